"""The rooms of docs/building.md ("How it is built"): what each folder may import."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from voicehost.registry import GAMES

PACKAGE = Path(__file__).resolve().parent.parent / "voicehost"
# folder → the voicehost modules and folders it may import (besides its own)
MAY_IMPORT = {
    "games": set(),
    "intents": {"prompts_dir", "words"},  # the words people wrap answers in are data in prompts/
    "store": set(),
    "host": {"games", "intents", "store", "prompts_dir", "voice", "words"},
    # the ears ask the reader they are handed (intents/understand.py); models live in the
    # user's folders
    "speech": {"voice", "words", "folders"},
    "cards": {"games", "prompts_dir"},
}


def imports_of(path: Path) -> set[str]:
    """The voicehost rooms a module imports: "games" for voicehost.games.x."""
    rooms = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names = ([node.module or ""] if isinstance(node, ast.ImportFrom)
                 else [a.name for a in node.names] if isinstance(node, ast.Import) else [])
        for name in names:
            parts = name.split(".")
            if parts[0] == "voicehost" and len(parts) > 1:
                rooms.add(parts[1])
    return rooms


@pytest.mark.parametrize("room", sorted(MAY_IMPORT))
def test_each_room_imports_only_what_the_architecture_allows(room: str) -> None:
    modules = sorted((PACKAGE / room).glob("*.py"))
    assert modules
    for module in modules:
        wrong = imports_of(module) - MAY_IMPORT[room] - {room}
        assert not wrong, f"{module.relative_to(PACKAGE)} imports {sorted(wrong)}"


@pytest.mark.parametrize("room", ["speech", "store", "intents"])
def test_no_room_below_the_host_names_a_game(room: str) -> None:
    """A game is its rules, its table and its prompts: the ears, the journal and the matcher
    take its words as arguments, so a new game never touches them."""
    games = {name for spec in GAMES.values() for name in (spec.name, spec.table.name)}
    for module in sorted((PACKAGE / room).glob("*.py")):
        text = module.read_text(encoding="utf-8").lower()
        named = sorted(game for game in games if game in text)
        assert not named, f"{module.relative_to(PACKAGE)} names {named}"


def test_the_check_sees_an_import_across_rooms(tmp_path: Path) -> None:
    module = tmp_path / "x.py"
    module.write_text("from voicehost.speech.base import recognize\n"
                      "import voicehost.cards.render\n")
    assert imports_of(module) == {"speech", "cards"}
