"""Two whole 6-player Secret Operation games through real audio: an engineers' win and an
impostors' win (deck and hands run out).

The host speaks through sounddevice into the PulseAudio null sink of tests/room.py and hears
with pocketsphinx. The players are espeak-ng voices played into the room, each saying the move
the plan gives it (tests/operation_script.py). Like a real table they watch the host: when its
state (the deck, hands, modules, blocks and discard pile in its `listen` events) is not what
their move should have made it, it misheard, and they say "undo"; a reveal read back wrong gets
a "no".
"""

from __future__ import annotations

import statistics
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from drive import drive, voicehost
from operation_script import OperationScript, cards_left
from room import Room, play_into_room
from speakers import Speaker, speak

from voicehost.games.secret_operation import read_out
from voicehost.session import open_saved

PLAYERS = 6
# Plain en-us at six pitches: the +variant voices are far harder for pocketsphinx (README).
VOICES = [Speaker(f"player{i}", "en-us", pitch, 165)
          for i, pitch in enumerate((20, 32, 44, 56, 68, 80))]
SAY_AGAIN = {"yes": ["yes", "yeah", "correct", "right"], "no": ["no", "nope", "wrong"],
             "undo": ["undo", "go back"]}


class RoomTable:
    """The scripted table, speaking aloud and watching what the host makes of it."""

    def __init__(self, script: OperationScript) -> None:
        self.script = script
        self.last_said = ""  # the host's last read-back of a reveal
        self.speaker = 0
        self.readback = ""  # how the host should read back the reveal just said
        self.attempt: tuple[tuple[Any, ...], int] = ((), 0)
        self.spoken: list[str] = []

    def on_event(self, event: dict[str, Any]) -> None:
        if event["event"] == "say" and "turned over" in event["text"]:
            self.last_said = event["text"].lower()  # the read-back to confirm

    def respond(self, listen: dict[str, Any], proc: subprocess.Popen) -> None:
        decision = listen["decision"]
        if decision == "confirm":
            intent = "yes" if self.readback and self.readback in self.last_said else "no"
            key: tuple[Any, ...] = ("confirm", intent, self.readback)
        elif not self.script.expects(listen):
            intent, key = "undo", ("undo", decision, listen["player"], cards_left(listen))
        else:
            move = self.script.move_for(listen)
            intent, key = "move", (decision, listen["player"], cards_left(listen))
            self.readback = self.last_said = ""
            if decision == "reveal":
                cards = self.script.table.cards_said(read_out(move.choice))
                self.readback = f"turned over {cards}".lower()
            if listen["player"] is not None:
                self.speaker = listen["player"]
        tries = self.attempt[1] + 1 if self.attempt[0] == key else 0
        self.attempt = (key, tries)
        phrases = (self.script.move_for(listen).phrases if intent == "move"
                   else SAY_AGAIN[intent])
        said = phrases[tries % len(phrases)]
        self.spoken.append(said)
        time.sleep(0.2)  # people take a moment before answering
        play_into_room(speak(said, VOICES[self.speaker % len(VOICES)]))


@pytest.mark.parametrize(("plan", "seed"), [
    pytest.param("engineers", 21, marks=pytest.mark.takes_seconds(210)),
    pytest.param("impostors", 22, marks=pytest.mark.takes_seconds(390)),
])
def test_a_six_player_game_through_the_room(room: Room, tmp_path: Path, plan: str,
                                            seed: int) -> None:
    script = OperationScript(PLAYERS, seed, plan, first=1)
    table = RoomTable(script)
    events_path = tmp_path / "events.jsonl"
    journal = tmp_path / "game.jsonl"
    command = voicehost("play", "secret-operation", "--io", "audio", "--engine", "pocketsphinx",
                        "--players", str(PLAYERS), "--seed", str(seed), "--rate", "300",
                        "--journal", str(journal), "--events", str(events_path))
    started = time.monotonic()
    events = drive(command, events_path, respond=table.respond, on_event=table.on_event,
                   timeout=120.0)
    heard = [e for e in events if e["event"] == "heard"]
    misses = [e for e in heard if e["intent"] is None]
    undos = table.spoken.count("undo") + table.spoken.count("go back")
    response = [e["response_seconds"] for e in heard if e["intent"]]
    print(f"\nroom game ({plan}): {time.monotonic() - started:.0f} s, {len(heard)} utterances "
          f"heard, {len(misses)} not understood, {undos} undos; player stopped → intent: "
          f"median {statistics.median(response):.3f} s, max {max(response):.3f} s")
    for said, got in zip(table.spoken, heard, strict=False):
        if said != got["text"]:
            print(f"  said {said!r}, heard {got['text']!r} → {got['intent']}")
    over = [e for e in events if e["event"] == "game_over"]
    assert over and over[0]["winner"] == plan
    saved = open_saved(journal)
    assert saved.actions == script.actions
    assert saved.table.game.status() == script.final
    if plan == "impostors":
        assert script.final["deck"] == 0 and sum(script.final["hands"]) == 0
