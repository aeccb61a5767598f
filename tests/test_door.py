"""Bad input is refused at the door: one line on standard error, exit status 2, nothing changed.
(Player counts, output folders, save files that cannot be resumed.)"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from drive import voicehost

from voicehost.cli import main
from voicehost.prompts_dir import load_yaml


def refused(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """The one line `voicehost argv` is refused with."""
    with pytest.raises(SystemExit) as stopped:
        main(argv)
    assert stopped.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("voicehost: error: "), err
    return err[0]


def squad_named(names: str, journal: Path) -> subprocess.CompletedProcess[str]:
    """Secret Squad in text mode seated with `names` (comma-separated, one seat each), with no
    one to answer."""
    return subprocess.run(voicehost("play", "secret-squad", "--io", "text", "--players",
                                    str(names.count(",") + 1), "--names", names, "--journal",
                                    str(journal)),
                          input="", text=True, capture_output=True, timeout=60, check=False)


@pytest.mark.parametrize(("game", "players", "low", "high"), [
    ("secret-squad", 11, 3, 10), ("secret-squad", 0, 3, 10), ("secret-squad", -3, 3, 10),
    ("secret-squad", 2, 3, 10), ("ferret-out", 8, 3, 7), ("secret-operation", 3, 4, 10),
])
def test_a_player_count_the_rules_do_not_allow_is_refused(
        game: str, players: int, low: int, high: int, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    journal = tmp_path / "game.jsonl"
    line = refused(["play", game, "--io", "text", "--players", str(players),
                    "--journal", str(journal)], capsys)
    assert f"{game} is for {low} to {high} players, not {players}." in line
    assert not journal.exists()


@pytest.mark.parametrize(("names", "reason"), [
    ("fox,fox,owl,bear", "fox twice"),
    ("undo,owl,bear,frog", "'undo' is an answer or a command the host listens for"),
    ("zoë,zoe,ben,carl", "zoe twice"),  # typed alike without the accent
    ("anna,ben,carl", "3 names for 4 players"),
    ("anna,ben,anne,carl", "anna and anne sound too alike"),
    ("mia,max,liam,lima", "liam and lima sound too alike"),
])
def test_names_a_table_could_not_tell_apart_are_refused(names: str, reason: str, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    journal = tmp_path / "game.jsonl"
    line = refused(["play", "secret-squad", "--io", "text", "--players", "4", "--names", names,
                    "--journal", str(journal)], capsys)
    assert reason in line
    assert not journal.exists()


HEARD = {  # game → seat names the host would hear as an answer or a command there
    "secret-squad": ["yes", "yeah", "no", "nope", "yup", "ready", "done", "repeat", "help",
                     "scores", "undo", "skip", "pass", "pause", "resume", "status", "quit",
                     "stop", "three", "ten", "player", "player two", "myself", "yellow", "yés"],
    "ferret-out": ["roll", "random", "six", "weasel"],
    "secret-operation": ["energy", "block", "mechanics", "electronics", "module"],
}


@pytest.mark.parametrize(("game", "name"), [
    (game, name) for game, names in HEARD.items() for name in names])
def test_names_the_host_hears_as_an_answer_or_a_command_are_refused(
        game: str, name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    journal = tmp_path / "game.jsonl"
    line = refused(["play", game, "--io", "text", "--players", "4", "--names",
                    f"anna,{name},carl,dora", "--journal", str(journal)], capsys)
    assert f"--names: {name!r} is an answer or a command the host listens for" in line
    assert not journal.exists()


def test_an_answer_of_another_game_is_a_name_here(tmp_path: Path) -> None:
    play = squad_named("anna,roll,carl,energy", tmp_path / "game.jsonl")
    assert (play.returncode, play.stderr) == (0, "")


def test_names_that_sound_like_an_answer_are_warned_about_and_the_game_starts(
        tmp_path: Path) -> None:
    play = squad_named("tree,fore,won,anna,ate,know,yet", tmp_path / "game.jsonl")
    assert play.returncode == 0, play.stderr
    assert play.stderr.strip().splitlines() == [
        f'voicehost: warning: "{name}" sounds like "{answer}"; pick another name if the host '
        "mishears it." for name, answer in [("tree", "three"), ("fore", "four"), ("won", "one"),
                                            ("ate", "eight"), ("know", "no"), ("yet", "yes")]]
    assert (tmp_path / "game.jsonl").exists()


@pytest.mark.parametrize("names", [
    "anna,ben,carl,dora,dan", ",".join(load_yaml("common/tokens.yaml")["tokens"])])
def test_names_unlike_any_answer_start_without_a_warning(names: str, tmp_path: Path) -> None:
    play = squad_named(names, tmp_path / "game.jsonl")
    assert (play.returncode, play.stderr) == (0, "")


def test_names_hard_to_hear_are_warned_about_and_the_game_starts(tmp_path: Path) -> None:
    faint = load_yaml("common/tokens.yaml")["hard_to_hear"][0]
    journal = tmp_path / "game.jsonl"
    play = squad_named(f"{faint},bo,anna,oliver", journal)
    assert play.returncode == 0, play.stderr
    warned = play.stderr.strip().splitlines()
    assert len(warned) == 1 and f"{faint} and bo may be misheard" in warned[0], warned
    assert f"{faint.title()}, Bo, Anna and Oliver" in play.stdout
    assert journal.exists()


def test_names_easy_to_hear_start_without_a_warning(tmp_path: Path) -> None:
    play = squad_named("anna,oliver,charlie", tmp_path / "game.jsonl")
    assert (play.returncode, play.stderr) == (0, "")


UNPLAYABLE = {  # game → {--set given: why it is refused}
    "secret-squad": {"rounds=0": "rounds wants 1 to 20, not 0",
                     "rounds=21": "rounds wants 1 to 20, not 21",
                     "cards_per_round=0": "cards_per_round wants 1 to 10, not 0",
                     "cards_per_round=11": "cards_per_round wants 1 to 10, not 11",
                     "first_box=9": "first_box wants 1 to 8, not 9",
                     "rounds=three": "rounds wants a whole number",
                     "colour=red": "unknown setting 'colour'",
                     "rounds": "--set wants KEY=VALUE"},
    "secret-operation": {"super_engineer=-1": "super_engineer must be 0 to 4",
                         "super_engineer=5": "super_engineer must be 0 to 4",
                         "low_deck=-1": "low_deck wants 0 to 44, not -1",
                         "low_deck=45": "low_deck wants 0 to 44, not 45"},
    "ferret-out": {"end=9": "setting end wants one of",
                   "study_seconds=-1": "study_seconds wants 0 to 600, not -1",
                   "study_seconds=601": "study_seconds wants 0 to 600, not 601"},
}


@pytest.mark.parametrize(("game", "setting", "reason"), [
    (game, setting, reason) for game, refusals in UNPLAYABLE.items()
    for setting, reason in refusals.items()])
def test_settings_a_game_cannot_play_are_refused(game: str, setting: str, reason: str,
                                                 tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    journal = tmp_path / "game.jsonl"
    line = refused(["play", game, "--io", "text", "--players", "4", "--set", setting,
                    "--journal", str(journal)], capsys)
    assert reason in line
    assert not journal.exists()


def test_cards_refuse_a_folder_that_is_not_there(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "no" / "such" / "cards.pdf"
    line = refused(["cards", "secret-squad", "--players", "4", "--out", str(out)], capsys)
    assert str(out.parent) in line
    assert not out.parent.exists()


SETUP = {"type": "setup", "game": "secret_squad", "players": 4}

BAD_JOURNALS = {
    "empty": (b"", "holds no game"),
    "blank lines": (b"\n\n", "line 1: not a voicehost record"),
    "text": (b"my shopping list\nmilk\n", "line 1: not a voicehost record"),
    "binary": (bytes(range(256)) + b"\n", "line 1: not a voicehost record"),
    "a list": (b"[1, 2, 3]\n", "line 1: not a voicehost record"),
    "no setup": (json.dumps({"type": "undo"}).encode() + b"\n", "line 1: a game's setup"),
    "newer version": (json.dumps({**SETUP, "version": 99}).encode() + b"\n",
                      "line 1: saved by a newer voicehost (records version 99)"),
    "unknown game": (json.dumps({**SETUP, "game": "chess"}).encode() + b"\n",
                     "line 1: a game voicehost does not host (chess)"),
    "torn middle": (json.dumps(SETUP).encode() + b"\n{\"type\": \"act\n"
                    + json.dumps({"type": "undo"}).encode() + b"\n",
                    "line 2: not a voicehost record"),
    "second setup": ((json.dumps(SETUP) + "\n") .encode() * 2, "line 2: a game's setup"),
}


@pytest.mark.parametrize("kind", sorted(BAD_JOURNALS))
def test_a_save_file_that_cannot_be_resumed_is_refused_and_kept(
        kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data, reason = BAD_JOURNALS[kind]
    journal = tmp_path / "game.jsonl"
    journal.write_bytes(data)
    line = refused(["resume", "--io", "text", "--journal", str(journal)], capsys)
    assert str(journal) in line and reason in line and "kept as it is" in line
    assert journal.read_bytes() == data
