"""The one question every game answers for the host: who must decide what now, with what options.

A game is a pure state machine: `pending()` names the next decision, `apply(action)` takes a
player's choice and returns what happened as events; `check(action)` says whether `apply` would
take it, changing nothing. Choices are plain strings and numbers so
the journal can store them as JSON and replay them; each kind of event is a frozen dataclass
whose facts are plain data.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import MISSING, dataclass, field, fields
from typing import Any, ClassVar, Protocol, dataclass_transform


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


@dataclass_transform(frozen_default=True)
class Event:
    """Something that happened, in the rules' words. Each kind of event is a class of its own,
    declared in its rules module's EVENTS as `class CardDrawn(Event, kind="card_drawn")` with
    its facts as annotated fields: a frozen dataclass. `facts` are its fields as plain data: a
    field with a default that is None is left out, and `details` (facts that depend on the
    reason, as a refusal's) are spread."""

    kind: ClassVar[str]

    def __init_subclass__(cls, kind: str, **rest: Any) -> None:
        super().__init_subclass__(**rest)
        cls.kind = kind
        dataclass(frozen=True)(cls)

    @property
    def facts(self) -> dict[str, Any]:
        facts: dict[str, Any] = {}
        for item in fields(self):
            value = getattr(self, item.name)
            if item.name == "details":
                facts.update(value)
            elif value is not None or item.default is MISSING:
                facts[item.name] = value
        return facts

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, **self.facts}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Event:
        if data.get("kind") != cls.kind:
            raise ValueError(f"not a {cls.kind} event: {data.get('kind')!r}")
        names = {item.name for item in fields(cls)}
        given = {name: value for name, value in data.items() if name in names}
        if "details" in names:
            given["details"] = {name: value for name, value in data.items()
                                if name not in names and name != "kind"}
        return cls(**given)


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

    def check(self, action: Action) -> None:
        """Raise the IllegalAction `apply(action)` would raise; change nothing."""

    def winners(self) -> list[int]: ...


@dataclass(frozen=True)
class Phase:
    """A phase of a game: the decision it waits for, and what a choice made there does.
    `rule`: what a choice among the decision's options may still break, raised as
    IllegalAction without changing anything; `take` runs only after it."""

    ask: Callable[[Any], Decision]
    take: Callable[[Any, Action], list[Event]]
    rule: Callable[[Any, Action], object] | None = None


@dataclass(frozen=True)
class Aside:
    """A move allowed outside the phases: what it does, and when it may be made (`rule`, as
    a Phase's)."""

    take: Callable[[Any], list[Event]]
    rule: Callable[[Any], object] | None = None


class PhasedGame:
    """A game declared as its phases: `PHASES` maps the phase it is in to the decision asked
    and the handler of the choice; `ASIDES`, moves allowed outside the phases, to theirs. A
    phase not in `PHASES` ("over") asks nothing."""

    PHASES: ClassVar[Mapping[str, Phase]]
    ASIDES: ClassVar[Mapping[str, Aside]] = {}
    phase: str

    def pending(self) -> Decision | None:
        phase = self.PHASES.get(self.phase)
        return None if phase is None else phase.ask(self)

    def apply(self, action: Action) -> list[Event]:
        self.check(action)
        aside = self.ASIDES.get(action.kind)
        if aside is not None:
            return aside.take(self)
        return self.PHASES[self.phase].take(self, action)

    def check(self, action: Action) -> None:
        aside = self.ASIDES.get(action.kind)
        if aside is not None:
            if aside.rule is not None:
                aside.rule(self)
            return
        decision = self.pending()
        if decision is None:
            raise IllegalAction("game_over", **self.over_facts())
        self.check_choice(action, decision)
        rule = self.PHASES[self.phase].rule
        if rule is not None:
            rule(self, action)

    def over_facts(self) -> dict[str, Any]:
        """What a move after the end is told besides "game_over"."""
        return {}

    def check_choice(self, action: Action, decision: Decision) -> None:
        """Refuse a move out of turn, or a choice not offered (free speech: one word)."""
        self.check_mover(action, decision)
        if not decision.options:
            if len(action.choice.split()) != 1:
                raise IllegalAction(f"{decision.kind}_is_one_word", said=action.choice)
        elif action.choice not in decision.options:
            raise IllegalAction(f"bad_{decision.kind}", options=decision.options)

    def check_mover(self, action: Action, decision: Decision) -> None:
        if action.kind != decision.kind or action.player != decision.decider:
            raise IllegalAction("not_your_turn", expected=decision.kind, player=decision.decider)
