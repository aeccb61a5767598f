"""Lines a person would write: every line in prompts/, rendered with sample facts (1 and many of
every count, every name), reads right: no "1 points", no ".." or " ,", no line that starts a
sentence in lower case, and every fact a line names is one the test knows how to fill."""

from __future__ import annotations

import re
import string
from pathlib import Path

import pytest
import yaml

from voicehost.host.lines import Lines

PROMPTS = Path(__file__).resolve().parent.parent / "prompts"
FILES = sorted(PROMPTS.glob("*/lines.yaml"))
# every fact a line may name: its sample value (whole numbers are also tried at 1 and 2)
WORDS = {"a": "violin", "b": "cello", "answer": "yup", "board": "A", "card": "energy",
         "cfo": "Owl", "choice": "yup", "claimed": "Fox and Owl", "clue": "lantern",
         "demand": "mechanics and energy", "ending": "We play eight rounds",
         "extra": "energy", "ferret": "violin", "first": "Fox", "game": "Secret Squad",
         "hands": "Fox 2, Owl 3", "impostors": "two impostors hide",
         "impostors_cards": "two impostor cards", "letter": "C", "modules": "module one",
         "moves": "add to module one", "name": "Fox", "names": "Fox, Owl and Bear",
         "nope": "Owl", "options": "yup or nope", "phase": "the clues", "player": "Owl",
         "printed": "150 048", "reasons": "naming the Weasel", "red": "Owl",
         "rounds": "3 rounds", "scores": "Fox 3, Owl 1", "second": "Owl",
         "sleeves": "Slide every card up one notch.",
         "squad": "yellow", "takes": "Fox, take card C.", "target": "Owl",
         "weasel": "Bear", "what": "Fox's answer, yup", "winners": "Fox", "word": "Lantern",
         "yellow": "Fox", "yup": "Bear", "steps": "Fold the flaps in.",
         "rule": "Keep your slips shut.", "left_of": "Owl", "got": "five", "module": "two", "digits": "6"}
# every count a line may name: the least it is in play (players: 3, a module: 3 cards, a
# warning: 2 seconds left), tried at that and one more; counts that can be 1 are tried at 1
LEAST = {"aside": 8, "assembled": 0, "box": 1, "cards": 3, "count": 0, "deck": 2, "each": 1,
         "engineers": 3, "index": 1, "last": 16, "left": 2, "letters": 30, "n": 1, "number": 1,
         "players": 3, "points": 0, "round": 1, "row": 1, "seats": 3, "seconds": 1, "seen": 0,
         "total": 4}
COUNTS = tuple(LEAST)
NOUNS = ("point", "second", "card", "player", "round", "question", "page", "digit", "impostor",
         "module", "word", "clue", "box", "engineer", "move", "seat")
ONE_PLURAL = re.compile(rf"\b1 ({'|'.join(NOUNS)})s\b")
WRONG_MARKS = ("..", " ,", " .", "  ", ",.", "?.", ".?", " ?", " !")


def phrasings() -> list[tuple[str, str, str]]:
    found = []
    for path in FILES:
        table = yaml.safe_load(path.read_text(encoding="utf-8"))
        for key, said in table.items():
            if f"{key}_one" in table or key.endswith("_many"):
                continue  # said for many only: Lines.count takes `key`_one for one
            for phrasing in [said] if isinstance(said, str) else said:
                found.append((f"{path.parent.name}/{key}", key, phrasing))
    return found


@pytest.mark.parametrize(("where", "key", "phrasing"), phrasings(), ids=lambda x: str(x)[:40])
def test_every_line_reads_right_with_one_and_many(where: str, key: str, phrasing: str) -> None:
    fields = {field for _, field, _, _ in string.Formatter().parse(phrasing) if field}
    unknown = fields - set(WORDS) - set(COUNTS) - {f"{c}_s" for c in COUNTS}
    assert not unknown, f"{where}: no sample for {unknown}"
    lines = Lines()
    lines.table = {key: [phrasing]}
    for more in (0, 1):
        facts = {**WORDS, **{count: least + more for count, least in LEAST.items()}}
        said = lines(key, **facts)
        assert not ONE_PLURAL.search(said), f"{where}: {said!r}"
        assert not any(mark in said for mark in WRONG_MARKS), f"{where}: {said!r}"
    if re.search(r"[.!?]$", phrasing.strip()):
        assert not re.match(r"[a-z]", phrasing), f"{where}: a sentence starts in lower case"


def test_the_check_sees_a_wrong_plural() -> None:
    assert ONE_PLURAL.search("wins with 1 points")
    assert not ONE_PLURAL.search("wins with 1 point, and 2 points")


@pytest.mark.parametrize("end", ["rounds", "15", "20"])
def test_ferret_out_says_how_the_game_ends(end: str) -> None:
    from voicehost.host.ferret_out import FerretOutTable
    from voicehost.host.table import Seats

    opening = " ".join(FerretOutTable.from_options(Seats.default(4), 1, {"end": end}).opening())
    assert (f"{end} points" in opening) if end != "rounds" else ("eight rounds" in opening)
