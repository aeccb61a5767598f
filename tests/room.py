"""The room for the tests: the session fixture (the virtual room of voicehost.lab.room) and the
table of players who play whole games in it.

conftest.py imports the fixture once VOICEHOST_ROOM names this worker's room.
"""

from __future__ import annotations

import statistics
import subprocess
import time
from collections.abc import Hashable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from drive import drive, kept_in, voicehost

from voicehost.lab.room import Room, play_into_room, start_room
from voicehost.lab.speakers import Speaker, speak

Event = dict[str, Any]


@pytest.fixture(scope="session")
def room() -> Iterator[Room]:
    """The virtual room; PulseAudio and the room sink are left for the next session."""
    the_room = start_room()
    yield the_room
    the_room.close()


def table_voices(players: int) -> list[Speaker]:
    """One voice per player: plain en-us at pitches spread from 20 to 80. espeak-ng's formant
    variants (+m3, +f3, ...) are far harder for pocketsphinx, which most room games hear with
    (docs/hearing.md, "Before this corpus")."""
    return [Speaker(f"player{seat}", "en-us", 20 + 60 * seat // (players - 1), 165)
            for seat in range(players)]


# The other ways a player says yes, no or ready when the host did not understand.
OTHER_WAYS = {"yes": ["yes", "yeah", "correct", "yep", "right"],
              "no": ["no", "nope", "wrong", "nah"], "ready": ["ready", "we are ready"],
              "i'm in": ["i'm in", "i am in", "count me in"]}


@dataclass
class RoomGame:
    """What a game in the room gave: every event, and how long it took."""

    events: list[Event]
    seconds: float

    def of(self, kind: str) -> list[Event]:
        return [e for e in self.events if e["event"] == kind]

    @property
    def heard(self) -> list[Event]:
        return self.of("heard")

    def summary(self, *notes: str) -> str:
        """How long it took, how much the host heard and understood (and `notes`), and how
        quickly it understood."""
        understood = [e["response_seconds"] for e in self.heard if e["intent"]]
        misses = sum(e["intent"] is None for e in self.heard)
        quickly = (f"median {statistics.median(understood):.3f} s, max {max(understood):.3f} s"
                   if understood else "nothing understood")
        return ", ".join([f"{self.seconds:.0f} s", f"{len(self.heard)} utterances heard",
                          f"{misses} not understood", *notes]) + \
            f"; player stopped → intent: {quickly}"


class RoomTable:
    """The players at a table in the room. Each says what they mean aloud in their own voice
    and, when the host asks the same thing again, says it another way.

    A game's table decides what to say (`respond`, called for every `listen` event) and
    follows what the host says (`on_event`, called for every event)."""

    def __init__(self, voices: Sequence[Speaker]) -> None:
        self.voices = voices
        self.speaker = 0  # the seat whose voice speaks next
        self.last_said = ""  # the host's last line, in lower case
        self.spoken: list[tuple[Event, str]] = []  # (listen, what a player said to it)
        self._attempt: tuple[Hashable, int] = ((), 0)

    def on_event(self, event: Event) -> None:
        if event["event"] == "say":
            self.last_said = event["text"].lower()

    def respond(self, listen: Event, proc: subprocess.Popen) -> None:
        raise NotImplementedError

    def play(self, folder: Path, *args: str) -> RoomGame:
        """Run `voicehost ARGS --io audio` to its end, the journal and events in `folder`, the
        table answering every `listen` aloud."""
        command = voicehost(*args, "--io", "audio", *kept_in(folder))
        started = time.monotonic()
        seen = drive(command, folder / "events.jsonl", respond=self.respond,
                     on_event=self.on_event, timeout=120.0)
        return RoomGame(seen, time.monotonic() - started)

    def again(self, key: Hashable) -> int:
        """How many times in a row the table said this already (0: the first time); `key` is
        what makes it the same: the question, who answers, what they mean."""
        tries = self._attempt[1] + 1 if self._attempt[0] == key else 0
        self._attempt = (key, tries)
        return tries

    def say_one_of(self, listen: Event, key: Hashable, ways: Sequence[str]) -> None:
        """Say the first of `ways`, and the next one each time the host asks again."""
        self.say(listen, ways[self.again(key) % len(ways)])

    def say(self, listen: Event, said: str, voice: Speaker | None = None) -> None:
        """Say `said` into the room in the speaker's voice (or `voice`)."""
        self.spoken.append((listen, said))
        time.sleep(0.2)  # people take a moment before answering
        play_into_room(speak(said, voice or self.voice()))

    def voice(self) -> Speaker:
        """The voice of the player whose turn it is to speak."""
        return self.voices[self.speaker % len(self.voices)]
