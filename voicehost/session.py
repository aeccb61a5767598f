"""Starting and resuming a game: a table, its journal, and the host that runs it."""

from __future__ import annotations

import stat
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from voicehost.folders import data_dir
from voicehost.games.base import Action
from voicehost.host.dialogue import Outcome
from voicehost.host.events import EventStream
from voicehost.host.host import Host
from voicehost.host.table import Past, Seats, Table
from voicehost.registry import GAMES, game_named
from voicehost.store.journal import (
    Journal,
    JournalError,
    drop_cut_line,
    heard_through,
    read_records,
    standing_actions,
)
from voicehost.store.private import SaveWriteError
from voicehost.voice import Voice


def actions_of(records: list[dict[str, Any]]) -> list[Action]:
    """The actions of a journal's records that stand after every undo."""
    return [Action.from_json(action) for action in standing_actions(records)]


def saves_dir() -> Path:
    """Where every game keeps its own journal, named `<when>-<game>.jsonl`: its ID."""
    return data_dir() / "games"


def saved_files() -> list[Path]:
    """Every save, newest first: the games folder, and the one save file of earlier versions.
    Only regular files count: a folder, a pipe or a dangling link named like a save is none."""
    legacy = data_dir() / "current-game.jsonl"
    found = [(when, path) for path in [*saves_dir().glob("*.jsonl"), legacy]
             if (when := _modified(path)) is not None]
    newest = sorted((item for item in found if item[1] != legacy), reverse=True)
    return [path for _, path in newest] + [path for _, path in found if path == legacy]


def _modified(path: Path) -> float | None:
    """When the regular file `path` was last written; None when it is no regular file."""
    try:
        status = path.stat()
    except OSError:
        return None
    return status.st_mtime if stat.S_ISREG(status.st_mode) else None


def new_journal(game: str, folder: Path | None = None) -> Journal:
    """A journal of its own for a new game: the time and the game name, and a number when
    another game started in the same second."""
    folder = folder or saves_dir()
    stamp = time.strftime("%Y%m%d-%H%M%S")
    number = 1
    while True:
        suffix = "" if number == 1 else f"-{number}"
        try:
            return Journal(folder / f"{stamp}-{game}{suffix}.jsonl", new=True)
        except FileExistsError:
            number += 1


# A question card heard in any of the household's last RECENT_GAMES games of a title is dealt
# only once the deck has no other.
RECENT_GAMES = 3


def past_of(game: str) -> Past:
    """What the saves in the games folder tell a new game of `game` (its command-line name):
    whether the table has played it (a save with a move) and the question cards of its last
    RECENT_GAMES such games. A damaged save tells nothing."""
    name = GAMES[game].table.name
    played: list[Saved] = []
    for path in saved_files():
        if len(played) == RECENT_GAMES:
            break
        try:  # only a save of this title is replayed
            records = read_records(path)
            saved = replayed(path, records) if records[0].get("game") == name else None
        except JournalError:
            continue
        if saved is not None and saved.actions:
            played.append(saved)
    heard = [card for saved in played for card in saved.table.cards_heard(saved.actions)]
    return Past(bool(played), tuple(dict.fromkeys(heard)))


def new_table(game: str, seats: Seats, seed: int, settings: dict[str, Any],
              cards: str | None = None, seated_by_deck: bool = False) -> Table:
    """A new table; ValueError (a sentence for the table) on an unknown game or setting.
    `cards`: a deck number of printed cards, "ask" to ask for it, None for the boxed cards.
    `seated_by_deck`: the deck number, once heard, tells how many play (`seats` until then)."""
    spec = GAMES.get(game)
    if spec is None:
        raise ValueError(f"unknown game {game!r}; voicehost hosts: {', '.join(GAMES)}")
    table = spec.table.from_options(seats, seed, settings, cards)
    if seated_by_deck:
        return spec.table.seated_by(seed, table.settings, cards, len(seats.names))
    return table


def table_from_setup(record: dict[str, Any], path: Path) -> Table:
    """The table a journal's first line sets up; JournalError when there is none to set up."""
    game = str(record.get("game", ""))
    spec = game_named(game)
    if spec is None:
        raise JournalError(f"{path}, line 1: a game voicehost does not host "
                           f"({game.replace('_', '-') or 'no game named'}).")
    try:
        return spec.table.from_setup(record)
    except Exception as problem:  # noqa: BLE001 - any file may be in the games folder
        raise JournalError(f"{path}, line 1: a {spec.name} setup voicehost cannot read "
                           f"({brief(problem)}).") from None


def brief(problem: Exception) -> str:
    """What went wrong, in at most one short line."""
    said = str(problem).splitlines()[0] if str(problem) else type(problem).__name__
    return said if len(said) <= 80 else said[:77] + "..."


def start(table: Table, voice: Voice, journal: Journal, events: EventStream) -> Outcome:
    """Play a new game into `journal` (new, see `new_journal`; the caller closes it)."""
    journal.append(table.setup_record())
    return Host(table, voice, journal, events).run()


@dataclass(frozen=True)
class Saved:
    """A journal read back: its table, with every action that stands replayed, and how many
    of them the table has heard the results of."""

    path: Path
    table: Table
    actions: list[Action]
    heard: int

    @property
    def unheard(self) -> bool:
        """Whether a result was never said: the game was stopped between an answer and what
        it came to."""
        return self.heard < len(self.actions)


def open_saved(journal_path: Path) -> Saved:
    """The saved game, or JournalError (one sentence) with the file left as it is."""
    return replayed(journal_path, read_records(journal_path))


def replayed(journal_path: Path, records: list[dict[str, Any]]) -> Saved:
    """The game the save's `records` (read_records) set up and play; JournalError (one
    sentence) when they do not."""
    table = table_from_setup(records[0], journal_path)
    try:
        actions = actions_of(records)
        table = table.reseated(actions)
        table.replay(actions)
    except Exception as problem:  # noqa: BLE001 - any file may be in the games folder
        raise JournalError(f"{journal_path}: its moves do not replay under the rules "
                           f"({brief(problem)}).") from None
    return Saved(journal_path, table, actions, heard_through(records))


def reopen(saved: Saved) -> Journal:
    """The save, ready for the resumed game's records (a cut last line dropped first);
    SaveWriteError when it cannot be written."""
    drop_cut_line(saved.path)
    try:
        return Journal(saved.path)
    except OSError as problem:
        raise SaveWriteError(saved.path, problem) from None


def resume(saved: Saved, voice: Voice, events: EventStream, journal: Journal) -> Outcome:
    """Carry on `saved` into `journal` (see `reopen`; the caller closes it)."""
    return Host(saved.table, voice, journal, events, saved.actions,
                heard=saved.heard).run(resumed=True)


@dataclass(frozen=True)
class Listed:
    """One save as `voicehost games` shows it."""

    path: Path
    saved: Saved | None  # None: damaged
    problem: str = ""

    @property
    def id(self) -> str:
        return self.path.stem

    @property
    def finished(self) -> bool:
        """Over, and the table has heard how it ended."""
        return (self.saved is not None and self.saved.table.game.pending() is None
                and not self.saved.unheard)

    @property
    def unplayed(self) -> bool:
        """A game that was set up and never got a move: nothing to carry on."""
        return self.saved is not None and not self.saved.actions


def list_saves() -> list[Listed]:
    listed = []
    for path in saved_files():
        try:
            listed.append(Listed(path, open_saved(path)))
        except JournalError as problem:
            listed.append(Listed(path, None, str(problem)))
    return listed


def find_save(game_id: str | None) -> Path:
    """The save `game_id` names (an ID, the start of one, or a file), or with None the latest
    unfinished one that has a move; JournalError (one sentence) when there is none."""
    if game_id is None:
        saves = list_saves()
        unfinished = [listed for listed in saves
                      if listed.saved is not None and not listed.finished
                      and not listed.unplayed]
        if not unfinished:
            unplayed = sum(listed.unplayed for listed in saves)
            never = (f" ({unplayed} never got a move: voicehost games --clean removes "
                     f"{'it' if unplayed == 1 else 'them'})" if unplayed else "")
            raise JournalError(f"No unfinished game is saved{never}. voicehost games lists "
                               "the saves; voicehost play starts a game.")
        return unfinished[0].path
    if Path(game_id).is_file():
        return Path(game_id)
    return save_named(game_id)


def save_named(game_id: str) -> Path:
    """The save in the games folder that `game_id` (an ID or the start of one) names."""
    matches = [path for path in saved_files() if game_id and path.stem.startswith(game_id)]
    exact = [path for path in matches if path.stem == game_id]
    if len(exact) == 1 or len(matches) == 1:
        return (exact or matches)[0]
    if not matches:
        raise JournalError(f"No saved game {game_id!r}: voicehost games lists the saves.")
    raise JournalError(f"{game_id!r} could be {', '.join(p.stem for p in matches)}: "
                       "say more of the ID.")


def saved_game(game_id: str) -> Listed:
    """The save `game_id` (an ID or the start of one) names, as listed; JournalError when
    there is none, or more than one."""
    path = save_named(game_id)
    try:
        return Listed(path, open_saved(path))
    except JournalError as problem:
        return Listed(path, None, str(problem))
