"""Every game voicehost hosts, in one place: the command line, `cards`, `hear`, the doctor and
`resume` all read it. A game is its rules (games/), its table (host/), its words (prompts/)
and one line here; docs/building.md has the checklist."""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from types import ModuleType

from voicehost.games import RULES, ferret_out, printed, secret_operation, secret_squad
from voicehost.host.ferret_out import FerretOutTable
from voicehost.host.secret_operation import SecretOperationTable
from voicehost.host.secret_squad import SecretSquadTable
from voicehost.host.table import Table


@dataclass(frozen=True)
class GameSpec:
    name: str  # on the command line and in deck numbers: "secret-squad"
    table: type[Table]  # the game's words and decisions, built on the rules engine
    rules: ModuleType  # the pure rules module: MIN_PLAYERS, MAX_PLAYERS, EVENTS, the engine

    def __post_init__(self) -> None:
        missing = sorted(getattr(self.table, "__abstractmethods__", ()))
        if missing or not inspect.isclass(self.table) or not issubclass(self.table, Table):
            raise TypeError(f"{self.name}: its table does not give the host every hook it calls"
                            f" (missing: {', '.join(missing) or 'the Table base class'})")
        if self.table.deck_game != self.name:
            raise TypeError(f"{self.name}: its table calls itself {self.table.deck_game!r}")
        unnarrated = self.table.unnarrated((*self.rules.EVENTS, *printed.EVENTS))
        if unnarrated:
            raise TypeError(f"{self.name}: its table neither narrates nor declares silent: "
                            f"{', '.join(unnarrated)}")

    @property
    def title(self) -> str:
        return self.table.title

    @property
    def players(self) -> tuple[int, int]:
        return self.rules.MIN_PLAYERS, self.rules.MAX_PLAYERS


GAMES: dict[str, GameSpec] = {spec.name: spec for spec in (
    GameSpec("secret-squad", SecretSquadTable, secret_squad),
    GameSpec("ferret-out", FerretOutTable, ferret_out),
    GameSpec("secret-operation", SecretOperationTable, secret_operation),
)}
if set(GAMES) != set(RULES) or any(spec.rules is not RULES[name] for name, spec in GAMES.items()):
    raise TypeError("every game in games.RULES needs its one line here, with its own rules")


def game_named(name: str) -> GameSpec | None:
    """The game a command line or a journal names ("ferret-out", or "ferret_out")."""
    return GAMES.get(name.replace("_", "-"))
