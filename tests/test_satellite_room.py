"""Whole games of each title through a real wyoming-satellite process.

The satellite (voicehost/lab/satellite.py) records the test room's monitor and plays into a
speaker sink of its own, looped back into the room. The players are espeak-ng voices played
into the room, as in the other room games (the same scripted tables); voicehost opens no sound
device of its own: it hears the players only over Wyoming, and its lines reach the room only
through the satellite's speaker, where the test records them: every line must be heard there.
Since the satellite hears its own speaker, the game also shows the host not hearing itself.

The kill test cuts the satellite's power (SIGKILL to its process group) while the host waits
for an answer, restarts it a second after the host says so, and the game must end as the
script says, every answer in the journal.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from ferret_script import FerretScript
from operation_script import OperationScript
from room import RoomGame, RoomTable
from squad_room import InterruptedTable, ScriptedTable
from squad_script import SecretSquadScript, answers_in_journal, answers_only
from test_ferret_out_room import HOST as FERRET_HOST
from test_ferret_out_room import FerretTable
from test_secret_operation_room import PLAYERS as OPERATION_PLAYERS
from test_secret_operation_room import OperationTable
from wordings import said_line

from voicehost.lab.room import Room, RoomRecording
from voicehost.lab.satellite import SPEAKER, SatelliteProcess, start_satellite

MICROPHONE_LOST = said_line("microphone_lost")
MICROPHONE_BACK = said_line("microphone_back")
SQUAD_HOST = ["--engine", "pocketsphinx", "--rate", "340", "--silence", "0.4"]
SHORT_SQUAD = ["--set", "rounds=1", "--set", "cards_per_round=1"]


def first_card(script: SecretSquadScript) -> dict[tuple[int, int, int], str]:
    """The answers a game of one card per round takes from the script."""
    return {key: answer for key, answer in script.answers.items() if key[1] == 1}


@pytest.fixture
def satellite(room: Room, tmp_path: Path) -> Iterator[SatelliteProcess]:
    process = start_satellite(tmp_path / "satellite.log")
    yield process
    process.stop()


@dataclass
class Played:
    """What the satellite's speaker sink carried during a game: its loud 10 ms chunks, on the
    wall clock the events use."""

    loud: list[float]

    def after(self, at: float, within_s: float) -> bool:
        return any(at <= t <= at + within_s for t in self.loud)


def play_through(table: RoomTable, satellite: SatelliteProcess, folder: Path,
                 *args: str) -> tuple[RoomGame, Played]:
    """The game, and what the satellite's speaker played meanwhile."""
    with RoomRecording(f"{SPEAKER}.monitor") as speaker:
        game = table.play(folder, *args, "--satellite", satellite.uri)
        speaker.wait_quiet(for_s=1.5)  # on a busy machine the satellite may play late
    wall = time.time() - time.monotonic()
    return game, Played([t + wall for t in speaker.loud()])


def said_aloud(game: RoomGame, played: Played, away: tuple[float, float] = (0.0, 0.0)
               ) -> None:
    """Every line the host said came out of the satellite's speaker (nothing else plays into
    that sink) within 3 s of its `say` event, except while the satellite was `away`. (Which
    words: tests/test_satellite.py finds a line's own samples, piece by piece, in what the
    sink carried.)"""
    lines = [e for e in game.of("say") if not away[0] <= e["time"] <= away[1] + 0.5]
    silent = [e["text"][:60] for e in lines if not played.after(e["time"], 3.0)]
    assert lines and not silent, f"{len(silent)} of {len(lines)} lines not played: {silent}"


def heard_only_players(game: RoomGame, table: RoomTable) -> None:
    # a `heard` without response_seconds is a timer that ran out, not an utterance
    utterances = [e for e in game.heard if "response_seconds" in e]
    assert len(utterances) <= len(table.spoken), "the host heard more than the players said"


@pytest.mark.takes_seconds(90)
def test_secret_squad_through_a_satellite(satellite: SatelliteProcess, tmp_path: Path) -> None:
    script = SecretSquadScript(3, seed=42, rounds=1)
    table = ScriptedTable(script)
    game, played = play_through(table, satellite, tmp_path, "play", "secret-squad",
                                 *SQUAD_HOST, "--players", "3", "--seed", "42", *SHORT_SQUAD)
    print("\nsatellite squad game:", game.summary())
    over = game.of("game_over")
    assert over, "the game did not end"
    assert over[0]["scores"] == script.expected_scores()
    assert answers_only(answers_in_journal(tmp_path / "game.jsonl")) == first_card(script)
    said_aloud(game, played)
    heard_only_players(game, table)


@pytest.mark.takes_seconds(700)
def test_ferret_out_through_a_satellite(satellite: SatelliteProcess, tmp_path: Path) -> None:
    script = FerretScript(3, seed=1)
    assert script.rounds_played() == 8
    table = FerretTable(script)
    game, played = play_through(table, satellite, tmp_path, "play", "ferret-out", *FERRET_HOST,
                                 "--players", "3", "--seed", "1", "--set", "study_seconds=4")
    print("\nsatellite ferret game:", game.summary())
    over = game.of("game_over")
    assert over, "the game did not end"
    assert over[0]["scores"] == script.expected_scores()
    assert [e["points"] for e in game.of("score")] == script.round_points()
    said_aloud(game, played)
    heard_only_players(game, table)


@pytest.mark.takes_seconds(200)
def test_secret_operation_through_a_satellite(satellite: SatelliteProcess,
                                              tmp_path: Path) -> None:
    script = OperationScript(OPERATION_PLAYERS, 21, "engineers", first=1)
    table = OperationTable(script)
    game, played = play_through(table, satellite, tmp_path, "play", "secret-operation",
                                 "--engine", "pocketsphinx", "--players",
                                 str(OPERATION_PLAYERS), "--seed", "21", "--rate", "300")
    print("\nsatellite operation game:", game.summary())
    over = game.of("game_over")
    assert over and over[0]["winner"] == "engineers"
    said_aloud(game, played)
    heard_only_players(game, table)


@pytest.mark.takes_seconds(90)
def test_a_satellite_killed_mid_game_is_waited_for_and_nothing_is_lost(
        satellite: SatelliteProcess, tmp_path: Path) -> None:
    script = SecretSquadScript(3, seed=42, rounds=1)
    table = InterruptedTable(script, satellite.kill, satellite.start)
    game, played = play_through(table, satellite, tmp_path, "play", "secret-squad",
                                 *SQUAD_HOST, "--players", "3", "--seed", "42", *SHORT_SQUAD)
    said = game.of("say")
    lost = [e for e in said if MICROPHONE_LOST.search(e["text"])]
    back = [e for e in said if MICROPHONE_BACK.match(e["text"])]
    assert table.cut_at and len(lost) == 1, "the host did not notice"
    assert table.restored_at and len(back) == 1, "the host did not carry on"
    print(f"\nsatellite killed: {game.summary()}; lost said "
          f"{lost[0]['time'] - table.cut_at:.2f} s after the kill, back said "
          f"{back[0]['time'] - table.restored_at:.2f} s after the restart")
    cheetah = [e for e in game.of("listen") if (e["decision"], e["player"]) == ("answer", 1)]
    assert len(cheetah) >= 2 and cheetah[-1]["time"] > back[0]["time"]  # Cheetah is asked again
    over = game.of("game_over")
    assert over, "the game did not end"
    assert over[0]["scores"] == script.expected_scores()  # as an uninterrupted game ends
    assert answers_only(answers_in_journal(tmp_path / "game.jsonl")) == first_card(script)
    said_aloud(game, played, (table.cut_at, table.restored_at))
