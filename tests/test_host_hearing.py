"""How the host handles an engine that wavers between options or a room too loud to hear.

The voice here is scripted (a unit test of the host's logic, not of hearing): it hands the
host the Hearings a recognizer would, alternatives and all. That the real engines produce
such Hearings is tested with real audio in the engines' own tests.
"""

from __future__ import annotations

import io
import json
from collections.abc import Sequence
from pathlib import Path

from wordings import options_said

from voicehost.host.events import EventStream
from voicehost.host.host import Host
from voicehost.host.secret_squad import SecretSquadTable
from voicehost.host.table import Seats
from voicehost.session import actions_of
from voicehost.store.journal import Journal, read_records
from voicehost.voice import Hearing, Recording


class ScriptedVoice:
    """Hands out scripted hearings; `loud` says whether the room is too loud right now."""

    typed = False

    def __init__(self, hearings: Sequence[Hearing], loud: bool = False) -> None:
        self.hearings = list(hearings)
        self.loud = loud
        self.said: list[str] = []
        self.offered: list[list[str]] = []  # the phrases each listen accepted

    def say(self, text: str) -> None:
        self.said.append(text)

    def listen(self, phrases: Sequence[str], timeout_s: float | None = None) -> Hearing | None:
        self.offered.append(list(phrases))
        return self.hearings.pop(0)

    def record(self, phrases: Sequence[str]) -> Recording | None:
        raise AssertionError("no free speech in these tests")

    def play(self, pcm: bytes) -> None:
        raise AssertionError("no recordings in these tests")

    def sound(self, name: str) -> None:
        pass

    def too_loud(self) -> bool:
        return self.loud

    def close(self) -> None:
        pass


def heard(text: str, *alternatives: tuple[str, float]) -> Hearing:
    return Hearing(text, 0.9 if text else 0.0, 1.0, 0.01, alternatives=alternatives)


def squad_host(tmp_path: Path, voice: ScriptedVoice) -> tuple[Host, io.StringIO]:
    table = SecretSquadTable(Seats.default(4), seed=3)
    journal = Journal(tmp_path / "game.jsonl")
    journal.append(table.setup_record())
    out = io.StringIO()
    return Host(table, voice, journal, EventStream(out)), out


def answers(tmp_path: Path) -> list[tuple[int | None, str]]:
    return [(a.player, a.choice) for a in actions_of(read_records(tmp_path / "game.jsonl"))
            if a.kind == "answer"]


def test_wavering_between_two_options_asks_the_question_that_separates_them(
        tmp_path: Path) -> None:
    voice = ScriptedVoice([heard("ready"), heard("", ("nope", 0.45), ("yes", 0.41)),
                           heard("nope")])
    host, out = squad_host(tmp_path, voice)
    for _ in range(2):  # the deal, then Cheetah's answer to the first card
        assert host.drive(host.dialogue.take(host.table.game.pending()))
    assert any(line.endswith("No or yes?") for line in voice.said)
    assert answers(tmp_path) == [(0, "nope")]
    # the separating question accepts only those two options (and the commands)
    assert "yeah" in voice.offered[2] and "repeat" in voice.offered[2]
    heard_events = [json.loads(e) for e in out.getvalue().splitlines()
                    if json.loads(e)["event"] == "heard"]
    assert heard_events[1]["between"] == ["nope", "yup"]


def test_an_answer_is_never_taken_from_the_alternatives_alone(tmp_path: Path) -> None:
    # The separating question is not understood either: nothing is recorded, it is asked again.
    voice = ScriptedVoice([heard("ready"), heard("", ("nope", 0.45), ("yes", 0.41)),
                           heard(""), heard("yup")])
    host, _ = squad_host(tmp_path, voice)
    for _ in range(2):
        assert host.drive(host.dialogue.take(host.table.game.pending()))
    assert answers(tmp_path) == [(0, "yup")]
    assert not voice.hearings


def test_alternatives_naming_one_option_are_not_a_question(tmp_path: Path) -> None:
    voice = ScriptedVoice([heard("ready"), heard("", ("yes", 0.45), ("yeah", 0.41)),
                           heard("yes")])
    host, _ = squad_host(tmp_path, voice)
    for _ in range(2):
        assert host.drive(host.dialogue.take(host.table.game.pending()))
    assert not any(" or " in line and line.endswith("?") and "Yes or" in line
                   for line in voice.said)
    assert any("didn't" in line or "understand" in line for line in voice.said)
    assert answers(tmp_path) == [(0, "yup")]


def test_a_loud_room_gets_asked_for_quiet_not_read_the_options(tmp_path: Path) -> None:
    voice = ScriptedVoice([heard("ready"), heard(""), heard(""), heard(""), heard("nope")],
                          loud=True)
    host, _ = squad_host(tmp_path, voice)
    for _ in range(2):
        assert host.drive(host.dialogue.take(host.table.game.pending()))
    spoken = " ".join(voice.said)
    assert spoken.count("quiet, please") == 1  # before the deal, to the whole table
    assert spoken.count("quiet for Cheetah") + spoken.count("Quiet for Cheetah") == 3
    assert not options_said("secret_squad").search(spoken)
    assert answers(tmp_path) == [(0, "nope")]


def test_a_room_that_stays_loud_is_asked_for_quiet_before_one_question_in_three(
        tmp_path: Path) -> None:
    # The four seats each answer the first card at once, then the second card begins.
    voice = ScriptedVoice([heard("ready"), *[heard("nope")] * 5], loud=True)
    host, _ = squad_host(tmp_path, voice)
    asked = []
    for _ in range(6):
        said_before = len(voice.said)
        assert host.drive(host.dialogue.take(host.table.game.pending()))
        asked.append(sum("quiet" in line.lower() for line in voice.said[said_before:]))
    assert asked == [1, 0, 0, 1, 0, 0]
    voice.loud = False
    voice.hearings.append(heard("nope"))
    host.dialogue.loud_decisions = 2  # a quiet room starts the count again
    assert host.drive(host.dialogue.take(host.table.game.pending()))
    assert host.dialogue.loud_decisions == 0


def test_a_quiet_room_reads_the_options_after_two_misses(tmp_path: Path) -> None:
    voice = ScriptedVoice([heard("ready"), heard(""), heard(""), heard("nope")])
    host, _ = squad_host(tmp_path, voice)
    for _ in range(2):
        assert host.drive(host.dialogue.take(host.table.game.pending()))
    spoken = " ".join(voice.said)
    assert options_said("secret_squad").search(spoken) and "quiet" not in spoken.lower()
