"""A whole 5-player, 8-round Ferret Out through real audio.

The host speaks through sounddevice into the PulseAudio null sink (the test room) and listens
to its monitor with its own recognizer (pocketsphinx). The players are espeak-ng voices played
into the same room, each answering the question the host's events say it asked, and checking
the host's read-backs before they confirm. Pocketsphinx cannot transcribe free speech, so
every clue is kept as a recording and played back when the host reads the clues out.
"""

from __future__ import annotations

import re
import signal
import subprocess
import wave
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from drive import drive, kept_in, voicehost
from ferret_script import BOXED_GUESSES, CLUES, NUMBER_WORDS, FerretScript
from room import OTHER_WAYS, RoomTable, table_voices
from wordings import any_case, said_line

from voicehost.host.clips import Said
from voicehost.host.ferret_out import FerretOutTable
from voicehost.lab.room import Room, play_into_room
from voicehost.lab.speakers import speak
from voicehost.session import actions_of
from voicehost.store.journal import read_records

PLAYERS = 5
QUIT_ASKED = said_line("quit_confirm")
VOICES = table_voices(PLAYERS)
HOST = ["--engine", "pocketsphinx", "--rate", "340", "--silence", "0.4"]
WAYS = {**OTHER_WAYS, "myself": ["i named myself", "myself", "me"],
        "roll": ["please roll", "roll the die", "roll"],
        "something else": ["something else", "none of them", "i wrote something else"]}


def phrasings(decision: str, said: str, names: list[str]) -> list[str]:
    """Ways a player rephrases the same choice after the host did not understand it; the
    first is the one tried first (a carrier phrase: pocketsphinx hears those best)."""
    if decision == "accuse" and said in names:
        return [f"i named {said}", said, f"i wrote {said}",
                f"player {NUMBER_WORDS[names.index(said)]}"]
    if decision == "weasel":
        return [f"it was {said}", f"{said} was the weasel", said]
    if decision == "guess" and said in BOXED_GUESSES.values():
        return [said]  # any word, recorded: the Ferrets hear it played back
    if decision == "guess" and said != "something else":
        return [f"i guess {said}", f"my guess is {said}", said]
    if decision == "number" and said in NUMBER_WORDS:
        return [f"i pick {said}", f"let's say {said}", said]
    return WAYS.get(said, [said])


class FerretTable(RoomTable):
    """The scripted table, speaking aloud and listening to the host's read-backs."""

    def __init__(self, script: FerretScript) -> None:
        super().__init__(VOICES)
        self.script = script
        # how the host should read back each answer of the gathering under way (or the choice
        # just said): (seat, what the seat said, the read-back)
        self.intended: list[tuple[int | None, str, re.Pattern[str]]] = []
        self.gathering: tuple[str, Any] | None = None  # (decision, round) under way
        self.says: list[dict[str, Any]] = []

    def on_event(self, event: dict[str, Any]) -> None:
        super().on_event(event)
        if event["event"] == "say":
            self.says.append(event)

    def readback(self, listen: dict[str, Any], said: str) -> re.Pattern[str] | None:
        names = [name.title() for name in self.script.names]
        decision, seat = listen["decision"], listen["player"]
        name = names[seat] if seat is not None else ""
        if decision == "accuse":
            if said == "myself":
                return said_line("named_self", "ferret_out", name=name)
            return said_line("named", "ferret_out", name=name, target=said.title())
        if decision == "guess":
            if said == "something else":
                return said_line("guessed_other", "ferret_out", name=name)
            return said_line("guessed", "ferret_out", name=name, word=said)
        if decision == "weasel" and said in self.script.names:
            return said_line("weasel_was", "ferret_out", name=said.title())
        return None

    def confirm(self) -> str:
        """Yes when every answer read back is what was said; else a no that says the first
        one wrong again ("no, Husky named Robin"), or a bare no for a single choice."""
        wrong = [(seat, said) for seat, said, line in self.intended
                 if not any_case(line).search(self.last_said)]
        if not wrong:
            return "yes"
        seat, said = wrong[0]
        if seat is None or len(self.intended) == 1:
            return "no"
        name = self.script.names[seat]
        return f"no {name} named {name if said == 'myself' else said}"

    def respond(self, listen: dict[str, Any], proc: subprocess.Popen) -> None:
        decision = listen["decision"]
        if decision == "study":
            return  # nobody says ready: the study timer runs out
        if decision == "paused":
            text = "resume"  # the host heard "pause" in a clue: carry on
        elif decision == "confirm":
            text = self.confirm()
        else:
            text = self.script.choice(listen)
            gathering = decision in ("accuse", "guess") and bool(listen.get("options"))
            key = (decision, listen.get("round")) if gathering else None
            if key is None or key != self.gathering:
                self.intended = []  # a new gathering, or a choice read back alone
            self.gathering = key
            line = self.readback(listen, text)
            if line is not None:
                self.intended.append((listen["player"] if gathering else None, text, line))
            self.speaker = listen["player"] if listen["player"] is not None \
                else self.script.plan(listen).weasel  # the one showing the odd card
        key = (decision, listen["player"], listen.get("round"), text)
        self.say_one_of(listen, key, phrasings(decision, text, self.script.names))


def clip_pcm(folder: Path, clip: str) -> bytes:
    with wave.open(str(folder / clip), "rb") as wav:
        return wav.readframes(wav.getnframes())


def likeness(recording: bytes, spoken: bytes) -> float:
    """Peak normalized cross-correlation: about 1 when the recording holds exactly that
    utterance (0.978 or more after its trip through the room), lower for another word (0.77
    at most, "spicy" against "shiny" in the same voice)."""
    a = np.frombuffer(recording, dtype=np.int16).astype(np.float64)
    b = np.frombuffer(spoken, dtype=np.int16).astype(np.float64)
    size = 1 << int(np.ceil(np.log2(len(a) + len(b))))
    correlation = np.fft.irfft(np.fft.rfft(a, size) * np.conj(np.fft.rfft(b, size)), size)
    return float(np.abs(correlation).max() / (np.linalg.norm(a) * np.linalg.norm(b)))


def holds_clue(folder: Path, clip: str, seat: int) -> str:
    """Which scripted clue, in this seat's voice, the recording holds (checked unambiguous)."""
    recording = clip_pcm(folder, clip)
    scores = sorted((likeness(recording, speak(clue, VOICES[seat])), clue) for clue in CLUES)
    (runner_up, _), (best, clue) = scores[-2:]
    assert best > 0.9 and runner_up < best - 0.1, f"{clip}: unclear recording {scores[-3:]}"
    return clue


@pytest.mark.takes_seconds(880)
def test_a_whole_game_through_the_room(room: Room, tmp_path: Path) -> None:
    script = FerretScript(PLAYERS, seed=31)
    assert script.rounds_played() == 8
    table = FerretTable(script)
    game = table.play(tmp_path, "play", "ferret-out", *HOST, "--players", str(PLAYERS),
                      "--seed", "31", "--set", "study_seconds=4")
    noes = [said for listen, said in table.spoken
            if listen["decision"] == "confirm" and said in WAYS["no"]]
    print("\nferret room game:", game.summary(f"{len(noes)} read-backs refused"))
    over = game.of("game_over")
    assert over, "the game did not end"
    assert over[0]["scores"] == script.expected_scores()
    assert [e["points"] for e in game.of("score")] == script.round_points()

    # Every clue was recorded, kept next to the journal, and played back as it came.
    records = read_records(tmp_path / "game.jsonl")
    replay = FerretOutTable.from_setup(records[0])
    clips: dict[tuple[int, int], str] = {}
    for action in actions_of(records):
        if action.kind == "clue":
            said = Said.parse(action.choice)
            assert said.clip and (tmp_path / said.clip).stat().st_size > 8000
            clips[(replay.game.round, action.player)] = said.clip
        replay.game.apply(action)
    assert len(clips) == 8 * PLAYERS
    played = [clip for e in table.says for clip in e.get("clips", [])]
    assert set(played) >= set(clips.values())
    for (_, seat), clip in clips.items():  # each said back as it was given, by its player
        echo = next(e for e in table.says if clip in e.get("clips", []))
        assert f"{script.names[seat].title()}:" in echo["text"], echo
    held = {key: holds_clue(tmp_path, clip, key[1]) for key, clip in clips.items()}
    assert held == script.expected_clues()  # each recording holds its player's own clue


@pytest.mark.takes_seconds(65)
def test_recorded_clues_survive_a_kill(room: Room, tmp_path: Path) -> None:
    script = FerretScript(3, seed=32)
    table = FerretTable(script)
    events_path, journal = tmp_path / "events.jsonl", tmp_path / "game.jsonl"
    args = [*HOST, *kept_in(tmp_path)]
    first = voicehost("play", "ferret-out", "--io", "audio", "--players", "3", "--seed", "32",
                      "--set", "study_seconds=0", *args)

    def clues_kept() -> list[str]:
        return [Said.parse(a.choice).clip for a in actions_of(read_records(journal))
                if a.kind == "clue"]

    def until_two_clues(listen: dict[str, Any], proc: subprocess.Popen) -> None:
        if len(clues_kept()) >= 2:
            proc.send_signal(signal.SIGKILL)  # the plug is pulled after two clues
            return
        table.respond(listen, proc)

    with pytest.raises(AssertionError, match="voicehost failed"):
        drive(first, events_path, respond=until_two_clues, on_event=table.on_event,
              timeout=120.0)
    kept = clues_kept()
    assert len(kept) == 2 and all(kept)

    def until_the_readback(listen: dict[str, Any], proc: subprocess.Popen) -> None:
        if listen["decision"] == "study":  # the clues were read back: that is all we need
            table.intended = [(None, "quit", QUIT_ASKED)]  # the confirm that follows: the quit's
            play_into_room(speak("quit game", VOICES[0]))
            return
        table.respond(listen, proc)

    drive(voicehost("resume", "--io", "audio", *args), events_path,
          respond=until_the_readback, on_event=table.on_event, timeout=120.0)
    played = [clip for e in table.says for clip in e.get("clips", [])]
    assert set(kept) <= set(played)
    assert [holds_clue(tmp_path, clip, seat) for seat, clip in enumerate(kept)] == \
        script.plans[0].clues[:2]
