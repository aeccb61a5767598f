"""What the host needs from each game besides its rules: words for its decisions and events."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import asdict, dataclass, fields
from typing import Any, ClassVar, Protocol

from voicehost.cards.printed import PrintedCards, check_deck, dealt_letters, known_deck
from voicehost.games.base import Action, Decision, Event, Game, IllegalAction
from voicehost.host.lines import Lines
from voicehost.intents.grammar import Intent
from voicehost.prompts_dir import load_yaml


@dataclass(frozen=True)
class Seats:
    """How the table names its players: seat names (token icons or given names)."""

    names: tuple[str, ...]

    @classmethod
    def default(cls, players: int) -> Seats:
        return cls(tuple(load_yaml("common/tokens.yaml")["tokens"][:players]))

    def templates(self, seat: int) -> list[str]:
        """Every way to name a seat: its name, or "player <number>"."""
        number = load_yaml("common/tokens.yaml")["numbers"][seat]
        patterns = load_yaml("common/intents.yaml")["seat"]
        return [p.format(name=self.names[seat], number=number) for p in patterns]


def settings_from(kind: type[Any], given: dict[str, Any]) -> Any:
    """A game's Settings dataclass from `--set key=value` strings; ValueError names the problem."""
    known = {f.name: f for f in fields(kind)}
    values: dict[str, Any] = {}
    for key, raw in given.items():
        if key not in known:
            raise ValueError(f"unknown setting {key!r}; this game has: {', '.join(known)}")
        default = known[key].default
        if isinstance(raw, str) and isinstance(default, int) and not isinstance(default, bool):
            try:
                raw = int(raw)
            except ValueError:
                raise ValueError(f"setting {key} wants a whole number, not {raw!r}") from None
        values[key] = raw
    return kind(**values)


class SeatedTable(ABC):
    """What every game's table shares: seats, a seed, its settings and, with printed cards, a
    deck. The journal's setup record holds exactly these, so a table rebuilds from it."""

    name: ClassVar[str]
    deck_game: ClassVar[str]  # the game's name in deck numbers and on the command line
    settings_type: ClassVar[type[Any]]
    seats: Seats
    seed: int
    settings: Any
    cards: str | None  # None: the boxed game; "ask", or a deck number: printed cards
    lines: Lines

    @classmethod
    def from_options(cls, seats: Seats, seed: int, settings: dict[str, Any],
                     cards: str | None = None) -> Any:
        return cls(seats, seed, settings_from(cls.settings_type, settings), cards)

    @classmethod
    def from_setup(cls, record: dict[str, Any]) -> Any:
        return cls(Seats(tuple(record["names"])), record["seed"],
                   cls.settings_type(**record.get("settings", {})), record.get("cards"))

    def setup_record(self) -> dict[str, Any]:
        record = {"type": "setup", "game": self.name, "names": list(self.seats.names),
                  "seed": self.seed, "settings": asdict(self.settings)}
        return record if self.cards is None else {**record, "cards": self.cards}

    def _new_game(self) -> Any:
        if self.cards is None:
            return self._boxed_game()
        return PrintedCards(self.deck_game, len(self.seats.names), known_deck(self.cards),
                            self._printed_game)

    def replay(self, actions: Sequence[Action]) -> list[Event]:
        """The game as `actions` leave it, from a new one; the last action's events (what a
        finished game says again when it is resumed)."""
        self.game = self._new_game()
        events: list[Event] = []
        for action in actions:
            events = self.game.apply(action)
        return events

    def _check_printed(self, cards: str) -> None:
        """ValueError (a sentence for the table) when these cards cannot host this game."""
        check_deck(cards, self.deck_game, len(self.seats.names), self.lines)

    def name_of(self, seat: int) -> str:
        return self.seats.names[seat].title()

    def card_letters(self) -> tuple[str, ...]:
        """The card each seat takes, seat by seat: shuffled by the game's seed."""
        return dealt_letters(self.seed, len(self.seats.names))

    @abstractmethod
    def _boxed_game(self) -> Game:
        """The rules engine for the game's own boxed cards."""

    @abstractmethod
    def _printed_game(self, deck: Any) -> Game:
        """The rules engine once the printed deck is known."""


class Table(Protocol):
    """One game as the host sees it. `game` is the pure rules engine, rebuilt by `replay`."""

    name: str
    title: str
    game: Game
    seats: Seats
    lines: Lines

    def setup_record(self) -> dict[str, Any]: ...

    def name_of(self, seat: int) -> str: ...

    def replay(self, actions: Sequence[Action]) -> list[Event]: ...

    def opening(self) -> list[str]: ...

    def prompt(self, decision: Decision) -> str: ...

    def choices(self, decision: Decision) -> list[tuple[Intent, list[str]]]: ...

    def options_spoken(self, decision: Decision) -> str: ...

    def action_for(self, decision: Decision, value: str) -> Action: ...

    def describe_choice(self, decision: Decision, value: str) -> str: ...

    def skip_action(self, decision: Decision) -> Action | None: ...

    def narrate(self, events: Sequence[Event]) -> list[str]: ...

    def refusal(self, illegal: IllegalAction, decision: Decision) -> str: ...

    def context(self, decision: Decision) -> dict[str, Any]: ...

    def recap(self, decision: Decision) -> list[str]: ...

    def help(self) -> str: ...

    def standings(self) -> str: ...

    def tally(self) -> str: ...

    def status(self) -> str: ...
