"""Whole Secret Squad games through `voicehost play --io text`: the same host as audio mode."""

from __future__ import annotations

import json
import random
import subprocess
from pathlib import Path

import pytest
from drive import drive, play_text, play_through_kills, resume_text, saying_once
from squad_script import SecretSquadScript
from wordings import said_line

from voicehost.session import actions_of
from voicehost.store.journal import read_records


def play_args(folder: Path, players: int, seed: int) -> list[str]:
    return play_text("secret-squad", folder, players, seed)


@pytest.mark.parametrize("players", [3, 4, 7])
def test_a_whole_game_ends_with_the_scores_the_rules_give(tmp_path: Path, players: int) -> None:
    script = SecretSquadScript(players, seed=players)
    events = drive(play_args(tmp_path, players, seed=11), tmp_path / "events.jsonl",
                   script.reply)
    over = [e for e in events if e["event"] == "game_over"]
    assert len(over) == 1
    assert over[0]["scores"] == script.expected_scores()
    best = max(script.expected_scores())
    assert over[0]["winners"] == [s for s, p in enumerate(script.expected_scores()) if p == best]
    assert len([e for e in events if e["event"] == "score"]) == 3


def test_kills_at_random_points_lose_no_answer_and_no_point(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    rng = random.Random(2026)
    for game in range(3):
        folder = tmp_path_factory.mktemp(f"game{game}")
        script = SecretSquadScript(4, seed=100 + game)
        seen, runs = play_through_kills(play_args(folder, 4, seed=game), folder, script.reply,
                                        rng, most_replies=25, kills=5)
        assert runs >= 3
        over = [e for e in seen if e["event"] == "game_over"]
        assert over and over[0]["scores"] == script.expected_scores()
        records = read_records(folder / "game.jsonl")
        # 3 rounds × (deal + 3 cards × 4 answers + ready + 4 points + 4 squads): none twice
        assert len(actions_of(records)) == 3 * (1 + 12 + 1 + 4 + 4)


def test_a_torn_last_line_is_dropped_on_resume(tmp_path: Path) -> None:
    script = SecretSquadScript(4, seed=9)
    journal = tmp_path / "game.jsonl"
    drive(play_args(tmp_path, 4, seed=9), tmp_path / "events.jsonl", script.reply,
          kill_after=10)
    with journal.open("a") as handle:
        handle.write('{"type": "action", "action": {"kind": "ans')  # the plug was pulled
    events = drive(resume_text(tmp_path), tmp_path / "events.jsonl", script.reply)
    assert [e for e in events if e["event"] == "game_over"][0]["scores"] == \
        script.expected_scores()
    for line in journal.read_text().splitlines():
        json.loads(line)


def test_the_end_of_input_says_the_game_is_saved_and_how_to_carry_on(tmp_path: Path) -> None:
    done = subprocess.run(play_args(tmp_path, 4, seed=5),
                          input="i'm in\n" * 4 + "ready\nyup\n", text=True,
                          capture_output=True, timeout=60, check=False)
    assert done.returncode == 0
    *_, said, hint = done.stdout.strip().splitlines()
    assert said.endswith("the game is saved. Run voicehost resume to carry on.")
    assert hint.startswith("The game is saved: ") and " resume --journal " in hint
    events = [json.loads(line) for line in (tmp_path / "events.jsonl").read_text().splitlines()]
    assert events[-1]["event"] == "saved" and events[-1]["reason"] == "end_of_input"
    assert [r["type"] for r in read_records(tmp_path / "game.jsonl")][:2] == ["setup", "action"]


def test_a_finished_game_resumed_says_its_result_again(tmp_path: Path) -> None:
    script = SecretSquadScript(4, seed=4)
    events_path = tmp_path / "events.jsonl"
    first = drive(play_args(tmp_path, 4, seed=11), events_path, script.reply)
    ended = [e for e in first if e["event"] == "game_over"]
    said_at_end = [e["text"] for e in first if e["event"] == "say"][-1]
    again = subprocess.run(resume_text(tmp_path), input="", text=True, capture_output=True,
                           timeout=60, check=False)
    assert again.returncode == 0
    events = [json.loads(line) for line in events_path.read_text().splitlines()][len(first):]
    over = [e for e in events if e["event"] == "game_over"]
    assert len(over) == 1
    assert {k: v for k, v in over[0].items() if k != "time"} == \
        {k: v for k, v in ended[0].items() if k != "time"}
    result = again.stdout.split("That game is already over. ")[1].strip()
    result = " ".join(result.split())  # the fanfare plays between the lines in audio mode
    assert said_line("standings", "secret_squad").search(result)
    winner = said_line("winner", "secret_squad").search(result)
    assert winner and winner.group(0) in said_at_end  # the same winner, as said the first time


def test_undo_takes_back_the_last_answer(tmp_path: Path) -> None:
    script = SecretSquadScript(4, seed=5)
    # asked for player 2's answer, "undo" takes back player 1's: the host must ask player 1 again
    reply = saying_once("undo", lambda listen: listen["decision"] == "answer"
                        and listen["player"] == 2, script.reply)
    events = drive(play_args(tmp_path, 4, seed=5), tmp_path / "events.jsonl", reply)
    listens = [e for e in events if e["event"] == "listen"]
    at = next(i for i, e in enumerate(listens) if e["player"] == 2 and e["decision"] == "answer")
    assert listens[at + 1]["player"] == 1
    assert [e for e in events if e["event"] == "game_over"][0]["scores"] == \
        script.expected_scores()


@pytest.mark.parametrize(("rounds", "cards", "said"), [
    (1, 1, ("one round", "one question")), (3, 5, ("3 rounds", "5 questions"))])
def test_the_intro_counts_rounds_and_questions_in_words(rounds: int, cards: int,
                                                        said: tuple[str, str]) -> None:
    from voicehost.host.secret_squad import SecretSquadTable
    from voicehost.host.table import Seats

    for seed in range(4):  # every phrasing of the intro
        table = SecretSquadTable.from_options(
            Seats.default(4), seed, {"rounds": str(rounds), "cards_per_round": str(cards)})
        intro = " ".join(table.questions.opening())
        assert all(words in intro for words in said), intro
        assert "1 rounds" not in intro and "1 questions" not in intro
