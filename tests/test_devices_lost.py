"""The devices come and go: a lost speaker sends the host's lines to the console, a
lost microphone is waited for and the question asked again, and the game goes on.

The devices here are fakes (the host's logic and AudioVoice's, not PulseAudio's); a real
microphone unplugged mid-game is tests/test_unplug_room.py.
"""

from __future__ import annotations

import io
import json
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from squad_script import SecretSquadScript, answers_in_journal, answers_only
from wordings import said_line, then

from voicehost.games.secret_squad import Settings
from voicehost.host.events import EventStream
from voicehost.host.host import Host
from voicehost.host.secret_squad import SecretSquadTable
from voicehost.host.table import Seats
from voicehost.lab.random_table import QuietVoice
from voicehost.speech import microphone
from voicehost.speech.audio_voice import AudioVoice
from voicehost.speech.devices import NoOutputDeviceError
from voicehost.speech.ears import RoomLevel, Utterance
from voicehost.speech.microphone import Microphone
from voicehost.store.journal import Journal
from voicehost.voice import Hearing, MicrophoneLost

PLAYERS, SEED = 3, 42
MICROPHONE_LOST = said_line("microphone_lost")
MICROPHONE_BACK = said_line("microphone_back")


class Events(io.StringIO):
    """The host's event stream, kept so the table can read the question it is asked."""

    def listens(self) -> list[dict[str, Any]]:
        events = [json.loads(line) for line in self.getvalue().splitlines()]
        return [e for e in events if e["event"] == "listen"]


class TableEars:
    """The players, heard perfectly: each `listen` answers the host's last question as the
    script says. `lose_at`: the listens (counted from 0) at which the microphone goes away."""

    def __init__(self, script: SecretSquadScript, events: Events, lose_at: Sequence[int] = ()
                 ) -> None:
        self.script = script
        self.events = events
        self.lose_at = set(lose_at)
        self.listens = 0
        self.room = RoomLevel()
        self.microphone = self  # AudioVoice.wait_for_microphone reopens it
        self.reopened = 0

    def listen(self, phrases: Sequence[str], timeout_s: float,
               keep_audio: bool = False) -> Utterance:
        self.listens += 1
        if self.listens - 1 in self.lose_at:
            raise MicrophoneLost("unplugged")
        said = self.script.reply(self.events.listens()[-1])
        now = time.monotonic()
        return Utterance(Hearing(said, 0.9, 0.5, 0.01), now, now, now, now, "silence")

    def reopen(self) -> float:
        self.reopened += 1
        return 0.0

    def close(self) -> None:
        pass


class Mouth:
    """A speaker that plays (`said`), or is lost: every line fails as a vanished device."""

    def __init__(self, lost: bool = False) -> None:
        self.lost = lost
        self.said: list[str] = []

    def say(self, text: str) -> None:
        if self.lost:
            raise NoOutputDeviceError("Could not open the speaker 'pulse'.", "Plug it in.")
        self.said.append(text)

    def play_pcm(self, pcm: bytes) -> None:
        self.say("[recording]")

    def play_sound(self, name: str) -> None:
        if self.lost:
            raise NoOutputDeviceError("Could not open the speaker 'pulse'.", "Plug it in.")


def short_game(tmp_path: Path, voice: AudioVoice, events: Events) -> Host:
    """Secret Squad, 3 players, one round of one card: 17 decisions."""
    table = SecretSquadTable(Seats.default(PLAYERS), seed=SEED,
                             settings=Settings(rounds=1, cards_per_round=1))
    journal = Journal(tmp_path / "game.jsonl")
    journal.append(table.setup_record())
    return Host(table, voice, journal, EventStream(events))


def said_events(events: Events) -> list[str]:
    return [e["text"] for e in map(json.loads, events.getvalue().splitlines())
            if e["event"] == "say"]


def test_a_lost_speaker_sends_the_lines_to_the_console_and_the_game_goes_on(
        tmp_path: Path) -> None:
    script = SecretSquadScript(PLAYERS, seed=SEED, rounds=1)
    events, console = Events(), io.StringIO()
    voice = AudioVoice(Mouth(lost=True), TableEars(script, events), console=console)  # type: ignore[arg-type]
    outcome = short_game(tmp_path, voice, events).run()
    assert outcome.finished and outcome.scores == script.expected_scores()
    shown = console.getvalue().splitlines()
    assert shown[0].startswith("(The speaker is lost: Could not open the speaker 'pulse'.")
    # every line, in order, once (a sound between two lines shows them on two console lines)
    assert " ".join(shown[1:]) == " ".join(said_events(events))
    assert "That's the game!" in shown[-1]
    assert answers_only(answers_in_journal(tmp_path / "game.jsonl")) == {
        key: answer for key, answer in script.answers.items() if key[1] == 1}


def test_a_lost_speaker_is_tried_again_and_used_once_it_plays(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch
                                                              ) -> None:
    clock = [1000.0]
    monkeypatch.setattr("voicehost.speech.audio_voice.time.monotonic", lambda: clock[0])
    mouth, console = Mouth(lost=True), io.StringIO()
    voice = AudioVoice(mouth, TableEars(SecretSquadScript(PLAYERS, SEED), Events()),  # type: ignore[arg-type]
                       console=console)
    voice.say("one")
    mouth.lost = False
    clock[0] += 5
    voice.say("two")  # too soon to try the speaker again
    clock[0] += 30
    voice.say("three")
    assert mouth.said == ["three"]
    assert console.getvalue().splitlines()[1:] == ["one", "two", "(The speaker plays again.)"]


def test_a_lost_microphone_is_waited_for_and_the_question_asked_again(tmp_path: Path) -> None:
    script = SecretSquadScript(PLAYERS, seed=SEED, rounds=1)
    events = Events()
    called = PLAYERS  # the roll call's answers come first
    ears = TableEars(script, events, lose_at=(called + 2, called + 9))  # seat 2, a read-back
    mouth = Mouth()
    voice = AudioVoice(mouth, ears)  # type: ignore[arg-type]
    outcome = short_game(tmp_path, voice, events).run()
    assert outcome.finished and outcome.scores == script.expected_scores()
    assert ears.reopened == 2
    lost = [i for i, line in enumerate(mouth.said) if MICROPHONE_LOST.fullmatch(line)]
    assert len(lost) == 2
    # the pending decision asked again once the microphone is back
    robin = said_line("answer_next", "secret_squad", name="Robin")
    assert then(MICROPHONE_BACK, robin).fullmatch(mouth.said[lost[0] + 1])
    assert MICROPHONE_BACK.match(mouth.said[lost[1] + 1])
    assert mouth.said[lost[1] + 1].endswith(mouth.said[lost[1] - 1])  # the read-back again
    listens = events.listens()
    assert [(e["decision"], e["player"]) for e in listens[called + 1:called + 4]] == [
        ("answer", 0), ("answer", 1), ("answer", 1)]
    assert listens[called + 9]["decision"] == listens[called + 10]["decision"] == "confirm"
    assert answers_only(answers_in_journal(tmp_path / "game.jsonl")) == {
        key: answer for key, answer in script.answers.items() if key[1] == 1}


class Stream:
    """A PortAudio stream as the microphone sees it: running, or ended."""

    def __init__(self) -> None:
        self.active = True

    def stop(self) -> None:
        self.active = False

    def close(self) -> None:
        pass


def test_the_microphone_is_lost_when_its_stream_ends_or_stalls(
        monkeypatch: pytest.MonkeyPatch) -> None:
    mic = Microphone()
    mic._stream = stream = Stream()
    mic._block_at = time.monotonic()
    assert mic.read(timeout=0.01) is None  # quiet, not lost
    mic.frames.put(microphone.Frame(b"\0\0", 0.0))
    stream.active = False
    assert mic.read(timeout=0.01) is not None  # audio from before the loss is heard first
    with pytest.raises(MicrophoneLost):
        mic.read(timeout=0.01)
    stream.active = True
    mic._block_at = time.monotonic() - microphone.STALL_S - 0.1  # no callback for too long
    with pytest.raises(MicrophoneLost):
        mic.read(timeout=0.01)


class LostDuringTheStudy(QuietVoice):
    """A Voice whose microphone is lost at the first listen of a study timer and comes back
    after `away_s`; nobody says anything after that (the timer must end it)."""

    def __init__(self, away_s: float) -> None:
        super().__init__()
        self.away_s = away_s
        self.lost = False

    def listen(self, phrases: Sequence[str], timeout_s: float | None = None) -> Hearing | None:
        if not self.lost:
            self.lost = True
            raise MicrophoneLost
        time.sleep(timeout_s or 0.0)
        return None

    def wait_for_microphone(self) -> None:
        time.sleep(self.away_s)

    def record(self, phrases: Sequence[str]) -> None:
        raise AssertionError("no clue is asked here")


def test_a_study_timer_stops_while_the_microphone_is_away(tmp_path: Path) -> None:
    from voicehost.host.ferret_out import FerretOutTable

    table = FerretOutTable.from_options(Seats.default(3), 2, {"study_seconds": "2"})
    decision = table.game.pending()
    while decision.kind != "study":  # the number and the clues, straight to the study
        value = decision.options[0] if decision.options else "lantern"
        table.game.apply(table.referee.action_for(decision, value))
        decision = table.game.pending()
    voice = LostDuringTheStudy(away_s=1.5)
    host = Host(table, voice, Journal(tmp_path / "game.jsonl"), EventStream(None))
    began = time.monotonic()
    assert host.drive(host.dialogue.take(decision))
    took = time.monotonic() - began
    assert took >= 2.0 + 1.5 - 0.1, took  # the 2 s of study, after the 1.5 s away
    assert any(MICROPHONE_LOST.search(line) for line in voice.said)


@pytest.mark.parametrize("lost", [False, True])
def test_captions_show_each_line_once_and_what_was_heard(tmp_path: Path, lost: bool) -> None:
    script = SecretSquadScript(PLAYERS, seed=SEED, rounds=1)
    events, console = Events(), io.StringIO()
    voice = AudioVoice(Mouth(lost=lost), TableEars(script, events), console=console,  # type: ignore[arg-type]
                       captions=True)
    assert short_game(tmp_path, voice, events).run().finished
    shown = [line for line in console.getvalue().splitlines() if not line.startswith("(")]
    heard = [line for line in shown if line.startswith("  (heard")]
    assert " ".join(line for line in shown if line not in heard) == " ".join(
        said_events(events))  # each once, in order
    assert len(heard) == len(events.listens())
    assert heard[0] == "  (heard: i'm in)"


def test_no_captions_without_being_asked(tmp_path: Path) -> None:
    script = SecretSquadScript(PLAYERS, seed=SEED, rounds=1)
    events, console = Events(), io.StringIO()
    voice = AudioVoice(Mouth(), TableEars(script, events), console=console)  # type: ignore[arg-type]
    assert short_game(tmp_path, voice, events).run().finished
    assert console.getvalue() == ""
