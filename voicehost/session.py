"""Starting and resuming a game: a table, its journal, and the host that runs it."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from voicehost.games.base import Action
from voicehost.host.events import EventStream
from voicehost.host.ferret_out import FerretOutTable
from voicehost.host.host import Host, Outcome
from voicehost.host.secret_operation import SecretOperationTable
from voicehost.host.secret_squad import SecretSquadTable
from voicehost.host.table import Seats, Table
from voicehost.store.journal import (
    Journal,
    JournalError,
    actions_of,
    read_records,
    truncate_partial_line,
)
from voicehost.voice import Voice

# Each game's table: `from_options(seats, seed, settings)` for a new game, `from_setup(record)`
# to rebuild one from the first line of its journal.
GAMES: dict[str, Any] = {"secret-squad": SecretSquadTable,
                         "secret-operation": SecretOperationTable,
                         "ferret-out": FerretOutTable}


def default_journal() -> Path:
    data = Path(os.environ.get("XDG_DATA_HOME", Path.home() / ".local" / "share"))
    return data / "voicehost" / "current-game.jsonl"


def new_table(game: str, seats: Seats, seed: int, settings: dict[str, Any],
              cards: str | None = None) -> Table:
    """A new table; ValueError (a sentence for the table) on an unknown game or setting.
    `cards`: a deck number of printed cards, "ask" to ask for it, None for the boxed cards."""
    if game not in GAMES:
        raise ValueError(f"unknown game {game!r}; voicehost hosts: {', '.join(GAMES)}")
    if cards is None:
        return GAMES[game].from_options(seats, seed, settings)
    if not getattr(GAMES[game], "printed_cards", False):
        raise ValueError(f"{game} cannot be played with printed cards yet")
    return GAMES[game].from_options(seats, seed, settings, cards=cards)


def table_from_setup(record: dict[str, Any], path: Path) -> Table:
    """The table a journal's first line sets up; JournalError when there is none to set up."""
    game = str(record.get("game", "")).replace("_", "-")
    if game not in GAMES:
        raise JournalError(f"{path}, line 1: a game voicehost does not host "
                           f"({game or 'no game named'}).")
    try:
        return GAMES[game].from_setup(record)
    except (KeyError, TypeError, ValueError) as problem:
        raise JournalError(f"{path}, line 1: a {game} setup voicehost cannot read "
                           f"({problem}).") from None


def start(table: Table, voice: Voice, journal_path: Path, events: EventStream) -> Outcome:
    if journal_path.exists():
        journal_path.rename(journal_path.with_name(f"game-{int(time.time())}.jsonl"))
    journal = Journal(journal_path)
    journal.append(table.setup_record())
    try:
        return Host(table, voice, journal, events).run()
    finally:
        journal.close()


@dataclass(frozen=True)
class Saved:
    """A journal read back: its table, with every action that stands replayed."""

    path: Path
    table: Table
    actions: list[Action]


def open_saved(journal_path: Path) -> Saved:
    """The saved game, or JournalError (one sentence) with the file left as it is."""
    records = read_records(journal_path)
    table = table_from_setup(records[0], journal_path)
    try:
        actions = actions_of(records)
        table.replay(actions)
    except (KeyError, TypeError, ValueError) as problem:
        raise JournalError(f"{journal_path}: its moves do not replay under the rules "
                           f"({problem}).") from None
    return Saved(journal_path, table, actions)


def resume(saved: Saved, voice: Voice, events: EventStream) -> Outcome:
    table, actions, journal_path = saved.table, saved.actions, saved.path
    truncate_partial_line(journal_path)
    journal = Journal(journal_path)
    try:
        return Host(table, voice, journal, events, actions).run(resumed=True)
    finally:
        journal.close()
