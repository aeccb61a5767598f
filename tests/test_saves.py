"""Save files you cannot lose: every game has its own journal, `voicehost games` lists them and
`voicehost resume [ID]` picks one (the latest unfinished by default). Starting a game never
moves or overwrites another."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest
from test_door import refused

from voicehost.cli import main
from voicehost.session import saves_dir


@pytest.fixture
def data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    return tmp_path


def play(argv: list[str], typed: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Run voicehost in text mode with `typed` as everything the table says."""
    monkeypatch.setattr(sys, "stdin", io.StringIO(typed))
    assert main([*argv, "--io", "text"]) == 0


def games_listed(capsys: pytest.CaptureFixture[str], *options: str) -> list[str]:
    capsys.readouterr()
    assert main(["games", *options]) == 0
    return capsys.readouterr().out.strip().splitlines()


ONE_MOVE = {  # what the table types for a game's first move, after the roll call
    "secret-squad": "i'm in\n" * 4 + "ready\nyup\n",
    "ferret-out": "i'm in\n" * 3 + "one\n",
    "secret-operation": "i'm in\n" * 4 + "you pick\n",
}


def test_games_started_in_one_second_each_keep_their_own_save(
        data: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    for seed in ("1", "2", "3"):
        play(["play", "secret-squad", "--players", "4", "--seed", seed], "", monkeypatch)
    saves = sorted(saves_dir().glob("*.jsonl"))
    assert len(saves) == 3  # was: one archive, the others overwritten
    seeds = sorted(json.loads(save.read_text().splitlines()[0])["seed"] for save in saves)
    assert seeds == [1, 2, 3]
    assert games_listed(capsys) == [  # none got a move
        "(3 games set up and never played: voicehost games --clean removes them.)"]


def test_resume_carries_on_the_latest_unfinished_game_or_the_one_named(
        data: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    play(["play", "ferret-out", "--players", "3", "--seed", "5"], ONE_MOVE["ferret-out"],
         monkeypatch)
    play(["play", "secret-operation", "--players", "4", "--seed", "6"],
         ONE_MOVE["secret-operation"], monkeypatch)
    operation, ferret = [line.split()[0] for line in games_listed(capsys)]  # newest first
    assert "secret-operation" in operation and "ferret-out" in ferret
    capsys.readouterr()
    play(["resume"], "", monkeypatch)
    assert "Welcome back to Secret Operation" in capsys.readouterr().out
    play(["resume", ferret], "", monkeypatch)
    assert "Welcome back to Ferret Out" in capsys.readouterr().out
    play(["resume", ferret[:-3]], "", monkeypatch)  # the start of an ID is enough
    assert "Welcome back to Ferret Out" in capsys.readouterr().out


def test_a_finished_game_is_not_resumed_by_default(
        data: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    answers = "ready\nyup\nplayer two\nyes\nplayer three\nyes\nyellow\nyes\nred\nyes\n" * 30
    play(["play", "secret-squad", "--players", "4", "--seed", "3", "--set", "rounds=1",
          "--set", "cards_per_round=2"], answers, monkeypatch)
    (listed,) = games_listed(capsys)
    assert listed.endswith(", finished"), listed
    line = refused(["resume", "--io", "text"], capsys)
    assert "No unfinished game is saved" in line
    assert "No saved game 'nope'" in refused(["resume", "nope", "--io", "text"], capsys)


def test_a_named_save_file_is_never_overwritten(
        data: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    journal = data / "ours.jsonl"
    play(["play", "secret-squad", "--journal", str(journal)], "", monkeypatch)
    kept = journal.read_bytes()
    line = refused(["play", "secret-squad", "--io", "text", "--journal", str(journal)], capsys)
    assert "holds a saved game already" in line
    assert journal.read_bytes() == kept and len(list(data.glob("**/*.jsonl"))) == 1


def test_a_damaged_save_is_listed_as_damaged(
        data: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    play(["play", "secret-squad", "--players", "4"], ONE_MOVE["secret-squad"], monkeypatch)
    saves_dir().joinpath("20000101-000000-secret-squad.jsonl").write_text("garbage\n")
    listed = games_listed(capsys)
    assert len(listed) == 2
    assert any("damaged" in line and "line 1" in line for line in listed)
    play(["resume"], "", monkeypatch)  # the damaged one is skipped, the good one resumed


def test_resume_skips_games_that_never_got_a_move(
        data: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    play(["play", "ferret-out", "--players", "3", "--seed", "5"], ONE_MOVE["ferret-out"],
         monkeypatch)
    for _ in range(2):  # started, then nobody answered: nothing to carry on
        play(["play", "secret-squad", "--players", "4"], "", monkeypatch)
    listed = games_listed(capsys)
    assert [line.split(", ")[-2] for line in listed[:-1]] == ["1 move"]
    assert listed[-1] == "(2 games set up and never played: voicehost games --clean removes them.)"
    capsys.readouterr()
    play(["resume"], "", monkeypatch)
    assert "Welcome back to Ferret Out" in capsys.readouterr().out
    saves_dir().joinpath(f"{listed[0].split()[0]}.jsonl").unlink()
    line = refused(["resume", "--io", "text"], capsys)
    assert "No unfinished game is saved (2 never got a move: voicehost games --clean" in line


def test_games_clean_removes_only_the_saves_with_no_moves(
        data: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    play(["play", "secret-operation", "--players", "4", "--seed", "6"],
         ONE_MOVE["secret-operation"], monkeypatch)
    for _ in range(3):
        play(["play", "secret-squad", "--players", "4"], "", monkeypatch)
    damaged = saves_dir() / "20000101-000000-secret-squad.jsonl"
    damaged.write_text("garbage\n")
    assert games_listed(capsys, "--clean") == ["Removed 3 saved games with no moves."]
    listed = games_listed(capsys)
    assert len(listed) == 2 and {"Secret Operation" in line for line in listed} == {True, False}
    assert any(line.startswith(damaged.stem) and "damaged" in line for line in listed)
    assert games_listed(capsys, "--clean") == ["Removed 0 saved games with no moves."]
    assert len(games_listed(capsys)) == 2


def test_games_remove_takes_away_the_one_save_it_names(
        data: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    play(["play", "ferret-out", "--players", "3", "--seed", "5"], ONE_MOVE["ferret-out"],
         monkeypatch)
    play(["play", "secret-squad", "--players", "4"], ONE_MOVE["secret-squad"], monkeypatch)
    squad, ferret = [line.split()[0] for line in games_listed(capsys)]
    assert "not-an-id" in refused(["games", "--remove", "not-an-id"], capsys)
    assert "say more of the ID" in refused(["games", "--remove", squad[:4]], capsys)
    assert "No saved game ''" in refused(["games", "--remove", ""], capsys)
    assert games_listed(capsys, "--remove", ferret) == [f"Removed {ferret} (Ferret Out, 1 move)."]
    (left,) = games_listed(capsys)
    assert left.startswith(squad)
