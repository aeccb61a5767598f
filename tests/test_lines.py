"""Lines a person would write: every line in prompts/, rendered with sample facts (1 and many of
every count, every name), reads right: no "1 points", no ".." or " ,", no line that starts a
sentence in lower case, and every fact a line names is one the test knows how to fill."""

from __future__ import annotations

import re
import string
from collections import Counter
from pathlib import Path

import pytest
import yaml

from voicehost.host.lines import Lines

PROMPTS = Path(__file__).resolve().parent.parent / "prompts"
FILES = sorted(PROMPTS.glob("*/lines.yaml"))
# every fact a line may name: its sample value (whole numbers are also tried at 1 and 2)
WORDS = {"a": "violin", "b": "cello", "answer": "yup", "board": "A", "card": "energy",
         "cfo": "Robin", "choice": "yup", "choices": "Cheetah named Robin and Robin named Husky",
         "claimed": "Cheetah and Robin", "clue": "lantern",
         "demand": "mechanics and energy", "ending": "We play eight rounds",
         "extra": "energy", "ferret": "violin", "first": "Cheetah", "game": "Secret Squad",
         "hands": "Cheetah 2, Robin 3", "impostors": "two impostors hide",
         "impostors_cards": "two impostor cards", "letter": "C", "modules": "module one",
         "moves": "add to module one", "name": "Cheetah", "names": "Cheetah, Robin and Husky",
         "nope": "Robin", "options": "yup or nope", "phase": "the clues", "player": "Robin",
         "printed": "150 048", "reasons": "naming the Weasel", "red": "Robin",
         "rounds": "3 rounds", "scores": "Cheetah 3, Robin 1", "second": "Robin",
         "sleeves": "Slide every card up one notch.",
         "squad": "yellow", "takes": "Cheetah, take card C.", "target": "Robin",
         "weasel": "Husky", "what": "Cheetah's answer, yup", "winners": "Cheetah",
         "word": "Lantern",
         "yellow": "Cheetah", "yup": "Husky", "steps": "Fold the flaps in.",
         "rule": "Keep your slips shut.", "left_of": "Robin", "got": "five", "module": "two",
         "digits": "6"}
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

    table = FerretOutTable.from_options(Seats.default(4), 1, {"end": end})
    opening = " ".join(table.questions.opening())
    assert (f"{end} points" in opening) if end != "rounds" else ("eight rounds" in opening)


# -- the kinds of slip a person would not make ------------------------------------------------

SEVERAL, ONE = "Cheetah and Robin", "Cheetah"
SINGULAR = re.compile(r"\b(themself|there is|has|was)\b")
PLURAL = re.compile(r"\b(themselves|there are|have|were)\b")


def counted_lines() -> list[tuple[str, str, str]]:
    """Lines said of several players (`key`) that have a twin for one (`key`_one)."""
    found = []
    for path in FILES:
        table = yaml.safe_load(path.read_text(encoding="utf-8"))
        for key in table:
            if f"{key}_one" in table and "{names}" in str(table[key]):
                found.append((path.parent.name, key, f"{key}_one"))
    return found


@pytest.mark.parametrize(("game", "many", "one"), counted_lines())
def test_a_line_agrees_with_how_many_it_names(game: str, many: str, one: str) -> None:
    lines = Lines(f"{game}/lines.yaml")
    for phrasing in lines.table[many]:
        said = phrasing.format(names=SEVERAL)
        assert not SINGULAR.search(said), f"{game}/{many}: {said!r}"
    for phrasing in lines.table[one]:
        said = phrasing.format(names=ONE)
        assert not PLURAL.search(said), f"{game}/{one}: {said!r}"


def test_agreement_needs_a_twin_for_one() -> None:
    assert ("secret_operation", "skipped_empty", "skipped_empty_one") in counted_lines()


def choices_of_names() -> list[tuple[str, str]]:
    """(game, decision kind) whose options, read aloud, name players."""
    return [("secret-squad", "point"), ("ferret-out", "accuse"), ("ferret-out", "weasel"),
            ("secret-operation", "first_player")]


@pytest.mark.parametrize(("game", "kind"), choices_of_names())
def test_options_to_choose_from_are_joined_with_or(game: str, kind: str) -> None:
    from voicehost.host.table import Seats
    from voicehost.registry import GAMES

    table = GAMES[game].table.from_options(Seats.default(5), 1, {})
    offered = table.questions.say_options(table.example_decision(kind))
    assert " or " in offered, offered
    names = "|".join(n.title() for n in table.seats.names)
    assert not re.search(rf"\band ({names}|myself|you pick)\b", offered), offered


def test_a_weasels_points_are_told_as_what_the_weasel_did() -> None:
    """Every reason for a point names what its scorer did ("fooled a Ferret"), never what
    somebody else did ("a Ferret missed"), which reads as if the scorer were that somebody."""
    table = yaml.safe_load((PROMPTS / "ferret_out" / "lines.yaml").read_text(encoding="utf-8"))
    reasons = {key: said for key, said in table.items() if key.startswith("reason_")}
    assert len(reasons) == 6
    for key, said in reasons.items():
        assert not re.match(r"(a|an|the|every|each)\b", said, flags=re.I), f"{key}: {said!r}"


SAID_TWICE = re.compile(r"\b(round \d+|card \d+|box \d+|row \d+)\b.*\b\1\b", flags=re.I)


@pytest.mark.parametrize("game", ["secret-squad", "ferret-out", "secret-operation"])
def test_no_round_or_card_is_said_twice_in_one_breath(game: str, tmp_path: Path) -> None:
    """A whole game, then the same game resumed after each of its moves: "We are in round 2.
    Round 2." is the kind of slip this finds."""
    import io
    import json
    import random

    from voicehost.host.events import EventStream
    from voicehost.host.grammars import command_groups
    from voicehost.host.host import Host
    from voicehost.host.table import Seats
    from voicehost.intents.grammar import expand
    from voicehost.lab.random_table import QuietVoice
    from voicehost.registry import GAMES
    from voicehost.session import open_saved
    from voicehost.store.journal import Journal, read_records
    from voicehost.voice import EndOfInput, Hearing, Recording

    commands = {p for _, templates in command_groups() for t in templates for p in expand(t)}
    refusing = {"no", "nah", "nope", "wrong", "something", "other", "none", "another"}

    class Players(QuietVoice):
        """Say an offered phrase that moves the game on (no command, no "no")."""

        def __init__(self, rng: random.Random, turns: int) -> None:
            super().__init__()
            self.rng, self.turns = rng, turns

        def listen(self, phrases: list[str], timeout_s: float | None = None) -> Hearing:
            self.take_turn()
            onward = sorted(p for p in phrases if p not in commands
                            and not refusing & set(p.split()))
            return Hearing(self.rng.choice(onward), 0.9, 1.0, 0.01)

        def record(self, phrases: list[str]) -> Recording:
            self.take_turn()  # a clue: the phrases offered are the commands only
            return Recording(Hearing("", 0.0, 1.0, 0.01), b"", "lantern", 0.95)

        def take_turn(self) -> None:
            self.turns -= 1
            if self.turns < 0:
                raise EndOfInput

    rng = random.Random(game)
    table = GAMES[game].table.from_options(Seats.default(4), 5, {})
    played = tmp_path / "played.jsonl"
    journal = Journal(played, new=True)
    journal.append(table.setup_record())
    voice = Players(rng, 400)
    Host(table, voice, journal, EventStream(io.StringIO())).run()
    journal.close()
    said = list(voice.said)
    records = read_records(played)
    for moves in range(1, len(records)):
        path = tmp_path / f"after-{moves}.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in records[:moves]))
        saved = open_saved(path)
        voice = Players(rng, len(saved.table.seats.names) + 1)  # the roll call, one answer
        journal = Journal(path)
        try:
            Host(saved.table, voice, journal, EventStream(io.StringIO()), saved.actions).run(
                resumed=True)
        finally:
            journal.close()
        said += voice.said
    assert len(records) > 20 and sum("Welcome back" in line for line in said) > 6
    twice = [line for line in said if SAID_TWICE.search(line)]
    assert not twice, twice[:3]


EVERY_TURN = 5  # a line said this often in a game where it is said at all is said every turn


def test_every_line_said_every_turn_has_two_wordings_at_least(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The 36 seeded games (scripts/seeded_games.py): every whole line (a sentence, not a piece
    of one such as "or" or "{name} {points}") said on average every turn of the games that say
    it is written at least two ways, so the host does not sound like a machine."""
    monkeypatch.syspath_prepend(str(PROMPTS.parent / "scripts"))
    from seeded_games import seeded_game

    said: Counter[str] = Counter()
    games: Counter[str] = Counter()
    real = Lines.__call__

    def counting(self: Lines, key: str, **facts: object) -> str:
        said[key] += 1
        return real(self, key, **facts)

    monkeypatch.setattr(Lines, "__call__", counting)
    for seed in range(36):
        before = Counter(said)
        seeded_game(seed, tmp_path)
        games.update(key for key in said if said[key] > before[key])
    wordings = {key: [phrasings] if isinstance(phrasings, str) else phrasings
                for path in FILES for key, phrasings in yaml.safe_load(path.read_text()).items()}
    every_turn = [key for key, count in said.items() if count / games[key] >= EVERY_TURN
                  and all(w.rstrip().endswith((".", "?", "!")) for w in wordings[key])]
    assert len(every_turn) >= 10
    alone = sorted(key for key in every_turn if len(wordings[key]) < 2)
    assert not alone, f"said every turn, in one wording only: {alone}"
