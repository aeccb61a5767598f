"""The one question every game answers for the host: who must decide what now, with what options.

A game is a pure state machine: `pending()` names the next decision, `apply(action)` takes a
player's choice and returns what happened as events. Choices and events are plain strings and
numbers so the journal can store them as JSON and replay them.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, Protocol


def setting(default: int, least: int, most: int) -> Any:
    """A whole-number setting a table may change with `--set`, from `least` to `most`."""
    return field(default=default, metadata={"range": (least, most)})


def setting_range(kind: type[Any], name: str) -> tuple[int, int] | None:
    """The values a `setting` may take, or None for a setting without a range."""
    for one in fields(kind):
        if one.name == name:
            return one.metadata.get("range")
    return None


@dataclass(frozen=True)
class Decision:
    """`decider` is a seat (0-based), or None when the whole table answers at once."""

    kind: str
    decider: int | None
    options: tuple[str, ...]
    scoring: bool = False  # the choice changes a score, so the host confirms it first


@dataclass(frozen=True)
class Action:
    kind: str
    player: int | None
    choice: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "player": self.player, "choice": self.choice}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Action:
        return cls(data["kind"], data["player"], data.get("choice", ""))


@dataclass(frozen=True)
class Event:
    kind: str
    facts: dict[str, Any] = field(default_factory=dict)


class IllegalAction(ValueError):
    """The action breaks the rules; `reason` names the rule in the game's own words."""

    def __init__(self, reason: str, **facts: Any) -> None:
        super().__init__(reason)
        self.reason = reason
        self.facts = facts


class Game(Protocol):
    players: int
    scores: list[int]

    def pending(self) -> Decision | None: ...

    def apply(self, action: Action) -> list[Event]: ...

    def winners(self) -> list[int]: ...
