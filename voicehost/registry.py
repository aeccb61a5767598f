"""Every game voicehost hosts, in one place: the command line, `cards`, `hear`, the doctor and
`resume` all read it. A game is its rules (games/<game>.py, listed in `games.RULES`), its table
(host/<game>.py, the same module name) and its words (prompts/); docs/building.md has the
checklist."""

from __future__ import annotations

import importlib
import inspect
from dataclasses import dataclass
from types import ModuleType

from voicehost.games import RULES, printed
from voicehost.games.printed import DECK_DECISION
from voicehost.host.deck_number import DeckNumberGrammar
from voicehost.host.grammars import command_groups, confirm_grammar, decision_grammar
from voicehost.host.table import Seats, Table
from voicehost.intents.grammar import Grammar

PARTS = ("questions_type", "referee_type", "narrator_type")  # what a table names for its words


@dataclass(frozen=True)
class GameSpec:
    name: str  # on the command line and in deck numbers: "secret-squad"
    table: type[Table]  # the game's words and decisions, built on the rules engine
    rules: ModuleType  # the pure rules module: MIN_PLAYERS, MAX_PLAYERS, EVENTS, the engine

    def __post_init__(self) -> None:
        if not inspect.isclass(self.table) or not issubclass(self.table, Table):
            raise TypeError(f"{self.name}: its table does not give the host every hook it calls"
                            " (missing: the Table base class)")
        parts = {kind: getattr(self.table, kind, None) for kind in PARTS}
        missing = sorted([kind for kind, part in parts.items() if part is None]
                         + [hook for part in (self.table, *parts.values())
                            for hook in getattr(part, "__abstractmethods__", ())])
        if missing:
            raise TypeError(f"{self.name}: its table does not give the host every hook it calls"
                            f" (missing: {', '.join(missing)})")
        if self.table.deck_game != self.name:
            raise TypeError(f"{self.name}: its table calls itself {self.table.deck_game!r}")
        unnarrated = self.table.narrator_type.unnarrated((*self.rules.EVENTS, *printed.EVENTS))
        if unnarrated:
            raise TypeError(f"{self.name}: its table neither narrates nor declares silent: "
                            f"{', '.join(unnarrated)}")

    @property
    def title(self) -> str:
        return self.table.title

    @property
    def players(self) -> tuple[int, int]:
        return self.rules.MIN_PLAYERS, self.rules.MAX_PLAYERS


def table_of(rules: ModuleType) -> type[Table]:
    """The table that plays `rules`: the one `Table` of the host module of the same name
    (voicehost/host/ferret_out.py for voicehost/games/ferret_out.py)."""
    module = importlib.import_module(f"voicehost.host.{rules.__name__.rpartition('.')[2]}")
    tables = [thing for thing in vars(module).values()
              if inspect.isclass(thing) and issubclass(thing, Table)
              and thing.__module__ == module.__name__]
    if len(tables) != 1:
        raise TypeError(f"{rules.NAME}: {module.__name__} must define one Table, not "
                        f"{len(tables)}")
    return tables[0]


GAMES: dict[str, GameSpec] = {name: GameSpec(name, table_of(rules), rules)
                              for name, rules in RULES.items()}


def deck_words() -> frozenset[str]:
    """Every game's deck words (`Table.deck_words`): what the recognizer "auto" hears with
    pocketsphinx first."""
    return frozenset().union(*(spec.table.deck_words() for spec in GAMES.values()))


def grammar_at(game: str, decision: str, players: int, pouch: int = 0) -> Grammar:
    """What `game` accepts at `decision` with `players` (clamped to the game's range), every
    command included, exactly as the host would listen ("confirm": a read-back; the printed
    deck's number: any group of three digits). `pouch`: Ferret Out's pouch pair."""
    if decision == "confirm":
        return confirm_grammar()
    if decision == DECK_DECISION:
        return DeckNumberGrammar(command_groups())
    spec = GAMES[game]
    low, high = spec.players
    table = spec.table(Seats.default(min(max(players, low), high)), seed=0)
    return decision_grammar(table, table.example_decision(decision, pouch))


def game_named(name: str) -> GameSpec | None:
    """The game a command line or a journal names ("ferret-out", or "ferret_out")."""
    return GAMES.get(name.replace("_", "-"))
