"""The journal is the save file: one JSON object per line, flushed and fsynced before moving on.

Records: {"type": "setup", ...} first, then {"type": "action", "action": {...}} for every choice
the game accepted and {"type": "undo"} for every undo. The game is a replay of it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from voicehost.games.base import Action


class Journal:
    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self._handle = path.open("a", encoding="utf-8")

    def append(self, record: dict[str, Any]) -> None:
        self._handle.write(json.dumps(record, ensure_ascii=False) + "\n")
        self._handle.flush()
        os.fsync(self._handle.fileno())

    def close(self) -> None:
        self._handle.close()


def read_records(path: Path) -> list[dict[str, Any]]:
    """Every whole record; a last line cut short by a pulled plug is dropped, not fatal."""
    records = []
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError:
                if line.endswith("\n"):
                    raise
    if not records or records[0].get("type") != "setup":
        raise ValueError(f"{path} is not a voicehost journal (no setup record)")
    return records


def actions_of(records: list[dict[str, Any]]) -> list[Action]:
    """The actions that stand after every undo."""
    actions: list[Action] = []
    for record in records:
        if record["type"] == "action":
            actions.append(Action.from_json(record["action"]))
        elif record["type"] == "undo" and actions:
            actions.pop()
    return actions


def truncate_partial_line(path: Path) -> None:
    """Cut a half-written last line so appends after a resume start on a fresh line."""
    data = path.read_bytes()
    if data and not data.endswith(b"\n"):
        path.write_bytes(data[: data.rfind(b"\n") + 1])
