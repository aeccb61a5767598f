"""The journal is the save file: one JSON object per line, flushed and fsynced before moving on.

Records: {"type": "setup", ...} first, then {"type": "action", "action": {...}} for every choice
the game accepted, {"type": "undo"} for every undo and {"type": "heard", "through": N} once the
table has heard what the first N standing actions came to (a round's result, the winner). The
game is a replay of it.

Saves are private (0600): a save holds the seed, and so every secret. They are read
defensively: any file in the games folder may be damaged, huge, or not a file at all, and each
such file is one JournalError naming it, never an error that stops the others being read.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import IO, Any

from voicehost.store.private import SaveWriteError, open_private, replace_atomically


class Journal:
    """`new`: a new game's journal, which must not exist yet (FileExistsError): a game
    never writes into another's save."""

    def __init__(self, path: Path, new: bool = False) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self._handle = open_private(path, new)

    def append(self, record: dict[str, Any]) -> None:
        try:
            self._handle.write(json.dumps(record, ensure_ascii=False) + "\n")
            self._handle.flush()
            os.fsync(self._handle.fileno())
        except OSError as problem:
            raise SaveWriteError(self.path, problem) from None

    def close(self) -> None:
        try:
            self._handle.close()
        except OSError:
            pass  # what could not be written was said when it was appended


class JournalError(ValueError):
    """A save file that cannot be resumed; the message names the file and the line."""


RECORD_TYPES = ("setup", "action", "undo", "heard")
VERSION = 2  # of the records; a setup without one is from version 1. 2: "heard" records
# Far beyond any game's save (a long game is under 200 kB), and small enough to read at once.
MAX_SAVE_BYTES = 8 * 1024 * 1024
MAX_RECORD_BYTES = 256 * 1024
MAX_DEPTH = 32  # of nested lists and objects in one record


def read_records(path: Path) -> list[dict[str, Any]]:
    """Every whole record. A last line without its newline (a write cut short) is dropped
    and never replayed, even when it reads as a record. Anything else that is not a voicehost
    journal, cannot be read, or is too big to be one is a JournalError naming the file."""
    data = read_save(path)
    records: list[dict[str, Any]] = []
    for number, line in enumerate(data.splitlines(keepends=True), start=1):
        if not line.endswith(b"\n"):
            break  # the plug was pulled mid-line
        record = _record(path, number, line)
        if (record["type"] == "setup") != (number == 1):
            raise JournalError(f"{path}, line {number}: a game's setup comes first, and once.")
        if number == 1 and not (type(record.get("version", 1)) is int
                                and record.get("version", 1) <= VERSION):
            raise JournalError(f"{path}, line 1: saved by a newer voicehost (records version "
                               f"{str(record['version'])[:20]}); update voicehost to resume it.")
        records.append(record)
    if not records:
        raise JournalError(f"{path} holds no game" + (" (it is empty)." if not data else "."))
    return records


def read_save(path: Path) -> bytes:
    """The bytes of a save that is a regular file of at most MAX_SAVE_BYTES; JournalError
    (naming it) for anything else: a folder, a pipe, a dangling link, an unreadable file."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            raise JournalError(f"{path} is not a save file (it is a folder, a pipe or a "
                               "device).")
        with path.open("rb") as handle:
            return _bounded(path, handle)
    except OSError as problem:
        raise JournalError(f"{path} cannot be read ({problem.strerror or problem}).") from None


def _bounded(path: Path, handle: IO[bytes]) -> bytes:
    data = handle.read(MAX_SAVE_BYTES + 1)
    if len(data) > MAX_SAVE_BYTES:
        raise JournalError(f"{path} is over {MAX_SAVE_BYTES // 2**20} MB: too big to be a "
                           "voicehost save.")
    return data


def _record(path: Path, number: int, line: bytes) -> dict[str, Any]:
    where = f"{path}, line {number}"
    if len(line) > MAX_RECORD_BYTES:
        raise JournalError(f"{where}: a line too long to be a voicehost record.")
    if line.count(b"[") + line.count(b"{") > MAX_DEPTH and _depth(line) > MAX_DEPTH:
        raise JournalError(f"{where}: nested too deep to be a voicehost record.")
    try:
        record = json.loads(line.decode("utf-8"))
        json.dumps(record, ensure_ascii=False).encode("utf-8")  # no lone surrogate ("\ud800")
    except (UnicodeError, ValueError):  # a number of thousands of digits is a ValueError
        raise JournalError(f"{where}: not a voicehost record (the file is damaged, or not a "
                           "voicehost save).") from None
    if not isinstance(record, dict) or record.get("type") not in RECORD_TYPES:
        raise JournalError(f"{where}: not a voicehost record.")
    return record


def _depth(line: bytes) -> int:
    """How deep brackets nest in `line`, outside strings: checked before json reads it, as
    json recurses once per level."""
    deepest = depth = 0
    in_string = escaped = False
    for byte in line:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:  # quote
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in (0x5B, 0x7B):  # [ {
            depth += 1
            deepest = max(deepest, depth)
        elif byte in (0x5D, 0x7D):
            depth -= 1
    return deepest


def standing_actions(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The action records' actions (as saved) that stand after every undo."""
    actions: list[dict[str, Any]] = []
    for record in records:
        if record["type"] == "action":
            actions.append(record["action"])
        elif record["type"] == "undo" and actions:
            actions.pop()
    return actions


def heard_through(records: list[dict[str, Any]]) -> int:
    """How many of the standing actions the table has heard the results of. A save of
    records version 1 has no "heard" records: all of it was heard."""
    if records[0].get("version", 1) < VERSION:
        return len(standing_actions(records))
    through = standing = 0
    for record in records:
        if record["type"] == "action":
            standing += 1
        elif record["type"] == "undo":
            standing = max(0, standing - 1)
            through = min(through, standing)  # an answer taken back: its result unsaid
        elif record["type"] == "heard" and type(record.get("through")) is int:
            through = min(record["through"], standing)
    return through


def drop_cut_line(path: Path) -> None:
    """Drop a half-written last line, so that appends after a resume start on a fresh line:
    the whole records are written to a new file that replaces the save, never the save cut
    in place (a kill or a full disk then would leave it empty)."""
    data = read_save(path)
    if data and not data.endswith(b"\n"):
        replace_atomically(path, data[: data.rfind(b"\n") + 1])
