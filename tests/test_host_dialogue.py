"""The host as a newcomer meets it: who is who, asking again after a miss, refusing before
reading back, a deck number that says how many play, and lines that read right.

The voice types the given lines in order (a unit test of the host's dialogue, not of hearing)."""

from __future__ import annotations

import io
import json
import re
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from drive import voicehost
from wordings import options_said, said_line

from voicehost.games.deck import Deck
from voicehost.host.events import EventStream
from voicehost.host.host import Host
from voicehost.host.table import Seats, Table
from voicehost.lab.random_table import QuietVoice
from voicehost.registry import GAMES
from voicehost.speech.text_voice import TextVoice
from voicehost.store.journal import Journal
from voicehost.voice import EndOfInput, Hearing, Recording

IN = "i'm in"


class Typed(QuietVoice):
    """Says the given lines in order (None: silence), then stops; keeps what the host said."""

    def __init__(self, *lines: str | None) -> None:
        super().__init__()
        self.lines = list(lines)

    def listen(self, phrases: Sequence[str], timeout_s: float | None = None) -> Hearing | None:
        if not self.lines:
            raise EndOfInput
        line = self.lines.pop(0)
        return None if line is None else Hearing(line, 0.9, 1.0, 0.01)

    def record(self, phrases: Sequence[str]) -> Recording | None:
        hearing = self.listen(phrases)
        return None if hearing is None else Recording(hearing, b"", hearing.text, 0.95)


def hosted(tmp_path: Path, table: Table, *lines: str | None) -> tuple[Typed, list[dict[str, Any]]]:
    journal = Journal(tmp_path / "game.jsonl")
    journal.append(table.setup_record())
    voice, out = Typed(*lines), io.StringIO()
    try:
        Host(table, voice, journal, EventStream(out)).run()
    finally:
        journal.close()
    return voice, [json.loads(line) for line in out.getvalue().splitlines()]


def squad(players: int = 3, **settings: str) -> Table:
    return GAMES["secret-squad"].table.from_options(
        Seats.default(players), 4, {"rounds": "1", "cards_per_round": "1", **settings})


# -- who is who -------------------------------------------------------------------------------

def test_the_roll_call_names_every_seat_in_order_and_each_answers(tmp_path: Path) -> None:
    voice, records = hosted(tmp_path, squad(), IN, IN, IN, "ready")
    listens = [r for r in records if r["event"] == "listen"]
    assert [(r["decision"], r["player"]) for r in listens[:3]] == [
        ("roll_call", 0), ("roll_call", 1), ("roll_call", 2)]
    assert listens[0]["say"] == {"in": IN}
    called = [line for line in voice.said if "I'm in" in line]
    named = [next(n for n in ("Cheetah", "Robin", "Husky") if n in line.split("I'm in")[-1]
                  or line.endswith(f"{n}, say I'm in.")) for line in called]
    assert named == ["Cheetah", "Robin", "Husky"]
    assert "first" in called[0] and "left" in called[0]
    assert listens[3]["decision"] == "deal"  # then the game


def test_a_seat_the_host_cannot_hear_gets_a_word_about_it(tmp_path: Path) -> None:
    voice, records = hosted(tmp_path, squad(), IN, None, "mumble", IN, "ready")
    said = " ".join(voice.said)
    assert "I can't hear Robin" in said
    assert "couldn't hear Robin" in said  # and at the end of the roll call
    assert [r["player"] for r in records if r["event"] == "listen"][:4] == [0, 1, 1, 2]


@pytest.mark.parametrize("answer", ["yeah I'm in", "yep I'm in", "I'm in", "im in", "in", "here",
                                    "yes", "ready", "yeah I’m in"])
def test_every_way_of_saying_in_answers_the_roll_call(tmp_path: Path, answer: str) -> None:
    voice, records = hosted(tmp_path, squad(), answer, answer, answer, "ready")
    listens = [(r["decision"], r["player"]) for r in records if r["event"] == "listen"]
    assert listens[:4] == [("roll_call", 0), ("roll_call", 1), ("roll_call", 2), ("deal", None)]
    assert not any("hear" in line and "can" in line for line in voice.said[:-1])


def test_typed_the_roll_call_speaks_of_typing_not_hearing(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "game.jsonl")
    table = squad()
    journal.append(table.setup_record())
    said = io.StringIO()
    typed = TextVoice(io.StringIO(f"{IN}\n\nmumble\n{IN}\nready\n"), said)
    try:
        Host(table, typed, journal, EventStream(io.StringIO())).run()
    finally:
        journal.close()
    lines = said.getvalue()
    assert "Robin" in lines and "type" in lines
    assert "hear" not in lines.split("Robin, say I'm in.")[1].split("Shuffle")[0]


def test_skip_ends_the_roll_call(tmp_path: Path) -> None:
    _, records = hosted(tmp_path, squad(), "skip", "ready")
    decisions = [r["decision"] for r in records if r["event"] == "listen"]
    assert decisions[:2] == ["roll_call", "deal"]


# -- asking again -----------------------------------------------------------------------------

def test_after_a_miss_only_the_question_is_said_again(tmp_path: Path) -> None:
    voice, _ = hosted(tmp_path, squad(), IN, IN, IN, "banana")
    deal = next(i for i, line in enumerate(voice.said) if "Shuffle" in line)
    again = voice.said[deal + 1]
    assert "Shuffle" not in again and "ready" in again, again
    assert len(again.split()) < 15, again


def test_repeat_after_a_miss_repeats_the_question_not_the_miss(tmp_path: Path) -> None:
    voice, _ = hosted(tmp_path, squad(), IN, IN, IN, "banana", "repeat")
    repeated = voice.said[-2]  # then the game is saved: nobody answers
    assert "Shuffle" in repeated and "didn't" not in repeated, repeated


def test_a_choice_the_rules_refuse_is_refused_before_it_is_read_back(tmp_path: Path) -> None:
    # 3 players: 2 yellow and 2 red cards, one set aside. Cheetah and Robin say red: Husky cannot.
    to_the_reveal = [IN, IN, IN, "ready", "yup", "nope", "yup", "ready",
                     "robin", "yes", "cheetah", "yes", "cheetah", "yes"]
    voice, _ = hosted(tmp_path, squad(), *to_the_reveal, "red", "yes", "red", "yes", "red")
    refused = next(i for i, line in enumerate(voice.said) if "red cards are in play" in line)
    assert "Correct?" not in voice.said[refused] and "right?" not in voice.said[refused]
    assert not any("Husky is red" in line for line in voice.said[:refused + 1])


# -- the deck tells how many play ---------------------------------------------------------------

def test_a_deck_number_heard_at_the_table_tells_how_many_play(tmp_path: Path) -> None:
    deck = Deck("secret-squad", 5, 57)
    first, last = deck.number[:3], deck.number[3:]
    journal = tmp_path / "game.jsonl"
    typed = "\n".join([first, last, *[IN] * 5, "ready"]) + "\n"
    play = subprocess.run(voicehost("play", "secret-squad", "--io", "text", "--cards", "--seed",
                                    "3", "--journal", str(journal)),
                          input=typed, text=True, capture_output=True, timeout=60, check=False)
    assert play.returncode == 0, play.stderr
    assert "of you are playing" not in play.stdout  # was: "That deck has 5 cards, but 4 ..."
    assert "Cheetah, Robin, Husky, Tiger and Orca" in play.stdout
    assert "Orca" not in play.stdout.split("I know these cards")[0]  # named once it is known
    again = subprocess.run(voicehost("resume", "--io", "text", "--journal", str(journal)),
                           input=f"{IN}\n" * 5, text=True, capture_output=True, timeout=60,
                           check=False)
    assert again.returncode == 0, again.stderr
    assert "Orca, say I'm in" in again.stdout or "Say I'm in, Orca" in again.stdout


# -- lines a person would write -----------------------------------------------------------------

def test_the_options_are_offered_with_or(tmp_path: Path) -> None:
    to_the_pointing = [IN, IN, IN, "ready", "yup", "nope", "yup", "ready"]
    voice, _ = hosted(tmp_path, squad(), *to_the_pointing, "banana", "banana")
    offered = next(line for line in voice.said if options_said("secret_squad").search(line))
    assert re.search(r"Cheetah, Robin or Husky\b", offered), offered


def test_a_player_found_but_missing_scores_in_words_that_read_right() -> None:
    from voicehost.games.secret_squad import RoundScored

    awards = [{"pick": 0, "bonus": 1}, {"pick": 3, "bonus": 0}, {"pick": 0, "bonus": 0}]
    scored = RoundScored(1, awards, ["red", "red", "yellow"], [-1, 0, -1], [1, 3, 0])
    narrator = squad().narrator
    said = narrator.narrate([scored])
    assert said[1:] == ["Robin three, Cheetah one.", said[2]], said  # one breath, most first
    explained = narrator.explained()  # "scores": the awards, one by one
    assert "Cheetah missed, but was found: one point." in explained, explained
    assert "Husky missed." in explained


def test_who_named_themselves_is_not_said_again_after_the_read_back() -> None:
    from voicehost.games.ferret_out import AccusationsDone

    table = GAMES["ferret-out"].table.from_options(Seats.default(4), 1, {})
    assert table.narrator.narrate([AccusationsDone(1, [1, 1, 0, 1], [1])]) == []
    nobody = table.narrator.narrate([AccusationsDone(1, [1, 2, 0, 1], [])])
    assert len(nobody) == 1 and said_line("nobody_self", "ferret_out").fullmatch(nobody[0])
