"""Two whole 6-player Secret Operation games through real audio: an engineers' win and an
impostors' win (deck and hands run out).

The host speaks through sounddevice into the PulseAudio null sink of voicehost/lab/room.py and
hears with the default engine (`--engine auto`: Whisper for every one of these decisions).
The players are espeak-ng voices played into the room, each saying the
move the plan gives it (tests/operation_script.py). Like a real table they watch the host: when its
state (the deck, hands, modules, blocks and discard pile in its `listen` events) is not what
their move should have made it, it misheard, and they say "undo"; a reveal read back wrong gets
a "no".
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest
from operation_script import OperationScript, cards_left
from room import OTHER_WAYS, RoomTable, table_voices

from voicehost.games.secret_operation import read_out
from voicehost.lab.room import Room
from voicehost.session import open_saved

PLAYERS = 6
SAY_AGAIN = {"yes": ["yes", "yeah", "correct", "right"], "no": ["no", "nope", "wrong"],
             "undo": ["undo", "go back"], "in": OTHER_WAYS["i'm in"]}


class OperationTable(RoomTable):
    """The scripted table, speaking aloud and watching what the host makes of it."""

    def __init__(self, script: OperationScript) -> None:
        super().__init__(table_voices(PLAYERS))
        self.script = script
        self.read_back = ""  # the host's last read-back of a reveal
        self.meant = ""  # how the host should read back the reveal just said

    def on_event(self, event: dict[str, Any]) -> None:
        super().on_event(event)
        if event["event"] == "say" and "turned over" in event["text"]:
            self.read_back = self.last_said  # the read-back to confirm

    def respond(self, listen: dict[str, Any], proc: subprocess.Popen) -> None:
        decision = listen["decision"]
        if decision == "confirm":
            intent = "yes" if self.meant and self.meant in self.read_back else "no"
            key: tuple[Any, ...] = ("confirm", intent, self.meant)
        elif decision == "roll_call":
            intent, key = "in", ("roll_call", listen["player"])
            self.speaker = listen["player"]
        elif not self.script.expects(listen):
            intent, key = "undo", ("undo", decision, listen["player"], cards_left(listen))
        else:
            move = self.script.move_for(listen)
            intent, key = "move", (decision, listen["player"], cards_left(listen))
            self.meant = self.read_back = ""
            if decision == "reveal":
                cards = self.script.table.words.cards_said(read_out(move.choice))
                self.meant = f"turned over {cards}".lower()
            if listen["player"] is not None:
                self.speaker = listen["player"]
        self.say_one_of(listen, key, self.script.move_for(listen).phrases if intent == "move"
                        else SAY_AGAIN[intent])


@pytest.mark.parametrize(("plan", "seed"), [
    pytest.param("engineers", 21, marks=pytest.mark.takes_seconds(210)),
    pytest.param("impostors", 22, marks=pytest.mark.takes_seconds(390)),
])
def test_a_six_player_game_through_the_room(room: Room, tmp_path: Path, plan: str,
                                            seed: int) -> None:
    script = OperationScript(PLAYERS, seed, plan, first=1)
    table = OperationTable(script)
    game = table.play(tmp_path, "play", "secret-operation", "--engine", "auto",
                      "--players", str(PLAYERS), "--seed", str(seed), "--rate", "300")
    spoken = [said for _, said in table.spoken]
    undos = spoken.count("undo") + spoken.count("go back")
    print(f"\nroom game ({plan}):", game.summary(f"{undos} undos"))
    for said, got in zip(spoken, game.heard, strict=False):
        if said != got["text"]:
            print(f"  said {said!r}, heard {got['text']!r} → {got['intent']}")
    over = game.of("game_over")
    assert over and over[0]["winner"] == plan
    saved = open_saved(tmp_path / "game.jsonl")
    assert saved.actions == script.actions
    assert saved.table.game.status() == script.final
    if plan == "impostors":
        assert script.final["deck"] == 0 and sum(script.final["hands"]) == 0
