"""A whole 4-player Secret Squad through real audio.

The host speaks through sounddevice into the PulseAudio null sink of the test room and listens
to its monitor with the default recognizer (`--engine auto`: Whisper, every Secret Squad list
being under 100 phrases; tests/test_cards_room.py plays with pocketsphinx). The players
(tests/squad_room.py) are espeak-ng voices played into the same room with paplay, each
answering the question the host's events say it asked. They listen to the host's read-backs
and correct it ("undo", "no") when it misheard, as a table would.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from squad_room import PLAYERS, WAYS, ScriptedTable
from squad_script import SecretSquadScript, answers_in_journal, answers_only

from voicehost.lab.room import Room


@pytest.mark.takes_seconds(560)
def test_a_whole_game_through_the_room(room: Room, tmp_path: Path) -> None:
    script = SecretSquadScript(PLAYERS, seed=42)
    table = ScriptedTable(script)
    game = table.play(tmp_path, "play", "secret-squad", "--engine", "auto", "--players",
                      str(PLAYERS), "--seed", "42", "--rate", "230")
    corrections = [said for listen, said in table.spoken if said in WAYS["undo"]
                   or listen["decision"] == "confirm" and said in WAYS["no"]]
    first = next((i for i, e in enumerate(game.heard) if e["intent"]), -1) + 1
    print("\nroom game:", game.summary(f"{len(corrections)} corrections",
                                       f"first utterance understood: number {first}"))
    over = game.of("game_over")
    assert over, "the game did not end"
    assert over[0]["scores"] == script.expected_scores()
    assert answers_only(answers_in_journal(tmp_path / "game.jsonl")) == script.answers
