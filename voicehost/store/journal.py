"""The journal is the save file: one JSON object per line, flushed and fsynced before moving on.

Records: {"type": "setup", ...} first, then {"type": "action", "action": {...}} for every choice
the game accepted and {"type": "undo"} for every undo. The game is a replay of it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any


class Journal:
    """`new`: a new game's journal, which must not exist yet (FileExistsError): a game
    never writes into another's save."""

    def __init__(self, path: Path, new: bool = False) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self._handle = path.open("x" if new else "a", encoding="utf-8")

    def append(self, record: dict[str, Any]) -> None:
        self._handle.write(json.dumps(record, ensure_ascii=False) + "\n")
        self._handle.flush()
        os.fsync(self._handle.fileno())

    def close(self) -> None:
        self._handle.close()


class JournalError(ValueError):
    """A save file that cannot be resumed; the message names the file and the line."""


RECORD_TYPES = ("setup", "action", "undo")
VERSION = 1  # of the records; a setup without one is from version 1


def read_records(path: Path) -> list[dict[str, Any]]:
    """Every whole record; a last line cut short by a pulled plug is dropped, not fatal.
    Anything else that is not a voicehost journal is a JournalError."""
    data = path.read_bytes()
    records: list[dict[str, Any]] = []
    for number, line in enumerate(data.splitlines(keepends=True), start=1):
        try:
            record = json.loads(line.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError):
            if not line.endswith(b"\n"):
                break  # the plug was pulled mid-line
            raise JournalError(f"{path}, line {number}: not a voicehost record (the file is "
                               f"damaged, or not a voicehost save).") from None
        if not isinstance(record, dict) or record.get("type") not in RECORD_TYPES:
            raise JournalError(f"{path}, line {number}: not a voicehost record.")
        if (record["type"] == "setup") != (number == 1):
            raise JournalError(f"{path}, line {number}: a game's setup comes first, and once.")
        if number == 1 and not (isinstance(record.get("version", 1), int)
                                and record.get("version", 1) <= VERSION):
            raise JournalError(f"{path}, line 1: saved by a newer voicehost (records version "
                               f"{record['version']!r}); update voicehost to resume it.")
        records.append(record)
    if not records:
        raise JournalError(f"{path} holds no game" + (" (it is empty)." if not data else "."))
    return records


def standing_actions(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The action records' actions (as saved) that stand after every undo."""
    actions: list[dict[str, Any]] = []
    for record in records:
        if record["type"] == "action":
            actions.append(record["action"])
        elif record["type"] == "undo" and actions:
            actions.pop()
    return actions


def truncate_partial_line(path: Path) -> None:
    """Cut a half-written last line so appends after a resume start on a fresh line."""
    data = path.read_bytes()
    if data and not data.endswith(b"\n"):
        path.write_bytes(data[: data.rfind(b"\n") + 1])
