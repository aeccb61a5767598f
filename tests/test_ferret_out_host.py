"""Whole Ferret Out games through `voicehost play ferret-out --io text`: the same host as audio.

The players are a seeded script (tests/ferret_script.py); the scores it expects come from the
rulebook's scoring of its plan, not from the host.
"""

from __future__ import annotations

import random
import re
import subprocess
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from drive import drive, play_text, play_through_kills, resume_text, typed
from ferret_script import FerretScript
from wordings import said_line

from voicehost.games.ferret_out import sleeve_for
from voicehost.host.clips import Said, load_clip, said_from, save_clip
from voicehost.host.ferret_out import FerretOutTable
from voicehost.host.table import Seats
from voicehost.session import actions_of
from voicehost.store.journal import read_records


def play_args(folder: Path, players: int, seed: int, *settings: str) -> list[str]:
    sets = [arg for setting in settings for arg in ("--set", setting)]
    return play_text("ferret-out", folder, players, seed, *sets)


def of(events: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [e for e in events if e["event"] == kind]


def listens(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return of(events, "listen")


def check_game(events: list[dict[str, Any]], script: FerretScript, journal: Path) -> None:
    over = of(events, "game_over")
    assert len(over) == 1
    assert over[0]["scores"] == script.expected_scores()
    best = max(script.expected_scores())
    assert over[0]["winners"] == [s for s, p in enumerate(script.expected_scores()) if p == best]
    assert len(actions_of(read_records(journal))) == script.expected_actions()
    assert journal_clues(journal) == script.expected_clues()


@pytest.mark.parametrize(("players", "seed"), [(3, 1), (5, 2), (7, 3)])
def test_a_whole_game_of_eight_rounds(tmp_path: Path, players: int, seed: int) -> None:
    script = FerretScript(players, seed=seed)
    events = drive(play_args(tmp_path, players, seed, "study_seconds=0"),
                   tmp_path / "events.jsonl", script.reply)
    check_game(events, script, tmp_path / "game.jsonl")
    scores = of(events, "score")
    assert len(scores) == script.rounds_played() >= 8
    assert [s["points"] for s in scores] == script.round_points()
    said = " ".join(e["text"] for e in of(events, "say"))
    assert "Chief Ferret Officer" in said
    # whom everyone named is read back once, together: a yes or two more a round at most
    yes_asked, round_ = Counter(), 0
    for listen in listens(events):
        round_ += listen["decision"] == "number"  # each round opens on the Chief's number
        yes_asked[round_] += listen["decision"] == "confirm"
    assert yes_asked and max(yes_asked.values()) <= 3, yes_asked


@pytest.mark.parametrize(("end", "seed"), [("15", 4), ("20", 5)])
def test_playing_to_fifteen_or_twenty_points(tmp_path: Path, end: str, seed: int) -> None:
    script = FerretScript(5, seed=seed, end=end, rounds=30)
    events = drive(play_args(tmp_path, 5, seed, f"end={end}", "study_seconds=0"),
                   tmp_path / "events.jsonl", script.reply)
    check_game(events, script, tmp_path / "game.jsonl")
    final = of(events, "game_over")[0]["scores"]
    assert max(final) >= int(end)
    before = of(events, "score")[-2]["scores"]
    assert max(before) < int(end) or len(set(before)) < len(before)  # else it would have ended
    assert len(of(events, "score")) == script.rounds_played()


def test_a_tie_after_eight_rounds_plays_more_rounds(tmp_path: Path) -> None:
    seed = next(s for s in range(200) if FerretScript(4, seed=s).rounds_played() > 8)
    script = FerretScript(4, seed=seed)
    events = drive(play_args(tmp_path, 4, seed, "study_seconds=0"),
                   tmp_path / "events.jsonl", script.reply)
    check_game(events, script, tmp_path / "game.jsonl")
    eighth = of(events, "score")[7]["scores"]
    assert eighth.count(max(eighth)) > 1
    said = " ".join(e["text"] for e in of(events, "say"))
    assert "tie-break round" in said


def test_the_round_twelve_words_are_never_read_out_before_the_reveal(tmp_path: Path) -> None:
    script = FerretScript(5, seed=8)
    mumbled: dict[tuple[str, int, int], int] = {}

    def reply(listen: dict[str, Any]) -> str:
        if listen["decision"] in ("guess", "accuse", "clue"):  # misheard twice: options read
            key = (listen["decision"], listen["round"], listen["player"])
            mumbled[key] = mumbled.get(key, 0) + 1
            if mumbled[key] <= 2:
                return "mumble mumble"
        return script.reply(listen)

    events = drive(play_args(tmp_path, 5, 8, "study_seconds=0"), tmp_path / "events.jsonl",
                   reply)
    said = [e["text"] for e in of(events, "say")]
    named = said_line("options", "ferret_out", options=said_line("options_named", "ferret_out"))
    assert any(named.search(t) for t in said)
    assert any(said_line("one_word").search(t) for t in said)  # a mumbled guess, refused
    game = FerretOutTable(Seats.default(5), 8).game
    prompts = Path(__file__).parents[1] / "prompts"
    in_lines = set(re.findall(r"[a-z]+", " ".join(
        (prompts / f).read_text().lower() for f in ("common/lines.yaml",
                                                    "ferret_out/lines.yaml"))))
    said_by_players: set[str] = set()
    revealed, round_ = False, 1
    for event in events:
        if event["event"] == "listen":
            if event.get("round", round_) != round_:
                round_, said_by_players, revealed = event["round"], set(), False
            revealed = revealed or event["decision"] == "weasel"  # the cards are out
        elif event["event"] == "heard" and event["intent"]:
            said_by_players.add(event["intent"][1])
        elif event["event"] == "say" and not revealed:
            sleeve = sleeve_for(round_)
            pair = game.pouches[game.shelf.pouch_set(sleeve.pouch_set)[sleeve.face]]
            spoken = set(re.findall(r"[a-z]+", event["text"].lower())) & set(pair.words())
            leaked = spoken - said_by_players - in_lines
            assert not leaked, f"round {round_}: said before the reveal: {leaked}"
    assert round_ >= 8
    listens = of(events, "listen")
    assert all(e.get("secret") is (True if e["decision"] == "guess" else None) for e in listens)
    assert any(e["decision"] == "guess" for e in listens)


def test_commands_work_at_every_kind_of_decision(tmp_path: Path) -> None:
    script = FerretScript(4, seed=6)
    commands = {"number": ["help", "scores"], "clue": ["repeat", "status"],
                "accuse": ["skip", "read the answers"], "guess": ["help"],
                "weasel": ["scores"], "study": ["repeat"]}
    pending = {kind: list(said) for kind, said in commands.items()}
    asked: list[tuple[str, str]] = []

    def reply(listen: dict[str, Any]) -> str:
        left = pending.get(listen["decision"], [])
        if left:
            asked.append((listen["decision"], left[0]))
            return left.pop(0)
        return script.reply(listen)

    events = drive(play_args(tmp_path, 4, 6, "study_seconds=0"), tmp_path / "events.jsonl",
                   reply)
    check_game(events, script, tmp_path / "game.jsonl")
    said = [e["text"] for e in of(events, "say")]
    assert any("Ferret Out. Every sleeve shows six words" in s for s in said)  # help
    assert any(said_line("standings", "ferret_out").match(s) for s in said)  # scores
    assert any(said_line("nothing_to_skip").search(s) for s in said)
    assert any(s.startswith("Round 1, collecting clues.") for s in said)  # status
    assert any(said_line("clues_intro", "ferret_out").match(s)
               for s in said[:40])  # read the answers: the clues so far
    heard_commands = [e["intent"][0] for e in of(events, "heard")
                      if e["intent"] and e["intent"][0] != "choose"]
    assert len(heard_commands) == sum(len(v) for v in commands.values())


def test_undo_takes_back_the_last_answer_and_asks_again(tmp_path: Path) -> None:
    script = FerretScript(4, seed=7)
    state = {"undone": 0}

    def reply(listen: dict[str, Any]) -> str:
        if listen["decision"] == "accuse" and listen["round"] == 1 and listen["player"] == 2 \
                and state["undone"] == 0:
            state["undone"] = 1
            return "undo"
        if listen["decision"] == "clue" and listen["round"] == 2 and listen["player"] == 3 \
                and state["undone"] == 1:
            state["undone"] = 2
            return "go back"
        return script.reply(listen)

    events = drive(play_args(tmp_path, 4, 7, "study_seconds=0"), tmp_path / "events.jsonl",
                   reply)
    check_game(events, script, tmp_path / "game.jsonl")
    asked = [(e["decision"], e["player"]) for e in listens(events)]
    at = asked.index(("accuse", 2))
    assert asked[at + 1] == ("accuse", 1)  # seat 1's answer was taken back
    said = " ".join(e["text"] for e in of(events, "say"))
    assert said_line("undone", what=f"{script.names[1].title()}'s answer").search(said)
    assert said_line("undone", what=f"{script.names[2].title()}'s clue").search(said)
    records = read_records(tmp_path / "game.jsonl")
    assert sum(r["type"] == "undo" for r in records) == 2


def test_pause_and_quit_then_resume_finishes_the_same_game(tmp_path: Path) -> None:
    script = FerretScript(5, seed=9)
    state = {"step": 0}

    def reply(listen: dict[str, Any]) -> str:
        if listen["decision"] == "clue" and listen["round"] == 2 and state["step"] == 0:
            state["step"] = 1
            return "pause"
        if state["step"] == 1:
            state["step"] = 2
            return "resume"
        if listen["decision"] == "accuse" and listen["round"] == 2 and state["step"] == 2:
            state["step"] = 3
            return "quit game"
        return script.reply(listen)

    events = drive(play_args(tmp_path, 5, 9, "study_seconds=0"), tmp_path / "events.jsonl",
                   reply)
    assert of(events, "quit") and not of(events, "game_over")
    said = " ".join(e["text"] for e in of(events, "say"))
    assert said_line("paused").search(said) and said_line("resumed").search(said)
    events = drive(resume_text(tmp_path), tmp_path / "events.jsonl", script.reply)
    assert "Welcome back to Ferret Out" in of(events, "say")[0]["text"]
    check_game(events, script, tmp_path / "game.jsonl")


def test_garbage_gets_a_clear_reprompt_and_never_a_guess(tmp_path: Path) -> None:
    script = FerretScript(4, seed=10)
    garbage = {"number": ["banana split", "seven", "", "um"],
               "clue": ["two whole words", "!!!"],
               "accuse": ["the one with the hat", "'; drop table players"],
               "guess": ["sandwich spaceship", "maybe"],
               "weasel": ["nobody knows"], "confirm": ["perhaps"]}
    pending = {kind: list(said) for kind, said in garbage.items()}

    def reply(listen: dict[str, Any]) -> str:
        left = pending.get(listen["decision"], [])
        return left.pop(0) if left else script.reply(listen)

    events = drive(play_args(tmp_path, 4, 10, "study_seconds=0"), tmp_path / "events.jsonl",
                   reply)
    check_game(events, script, tmp_path / "game.jsonl")
    said = " ".join(e["text"] for e in of(events, "say"))
    assert said_line("one_word").search(said)
    assert said_line("options", options="a number from one to six, or roll").search(said)
    assert said_line("confirm_options").search(said)
    assert "Traceback" not in said


def test_a_study_timer_warns_and_ends_by_itself(tmp_path: Path) -> None:
    script = FerretScript(3, seed=11)
    def respond(listen: dict[str, Any], proc: subprocess.Popen) -> None:
        if listen["decision"] == "study":
            return  # nobody says ready: the clock decides
        typed(script.reply)(listen, proc)

    events = drive(play_args(tmp_path, 3, 11, "study_seconds=4"), tmp_path / "events.jsonl",
                   respond=respond)
    check_game(events, script, tmp_path / "game.jsonl")
    said = [e["text"] for e in of(events, "say")]
    assert any(re.search(r"\b4 seconds\b", s) for s in said)
    two_left = said_line("time_left", "ferret_out", seconds=2)
    assert sum(bool(two_left.search(s)) for s in said) == script.rounds_played()
    asked = [(e["decision"], e["round"], e["time"]) for e in listens(events)
             if e["decision"] in ("study", "accuse")]
    for round_ in range(1, script.rounds_played() + 1):
        began = min(t for d, r, t in asked if d == "study" and r == round_)
        ended = min(t for d, r, t in asked if d == "accuse" and r == round_)
        assert 3.5 <= ended - began < 10  # the four-second clock, not a reply, ended it
    time_up = said_line("time_up", "ferret_out")
    assert sum(bool(time_up.match(s)) for s in said) == script.rounds_played()


def test_ready_ends_the_study_timer_early(tmp_path: Path) -> None:
    script = FerretScript(3, seed=12)
    started = time.monotonic()
    events = drive(play_args(tmp_path, 3, 12, "study_seconds=600"), tmp_path / "events.jsonl",
                   script.reply)
    check_game(events, script, tmp_path / "game.jsonl")
    assert time.monotonic() - started < 60  # eight ten-minute timers, each ended by "ready"
    said = " ".join(e["text"] for e in of(events, "say"))
    assert "600 seconds" in said and "Time's up" not in said


def test_kills_at_random_points_lose_nothing(tmp_path_factory: pytest.TempPathFactory) -> None:
    rng = random.Random(2026)
    for game in range(2):
        folder = tmp_path_factory.mktemp(f"game{game}")
        script = FerretScript(4, seed=200 + game)
        seen, runs = play_through_kills(play_args(folder, 4, 200 + game, "study_seconds=0"),
                                        folder, script.reply, rng, most_replies=60, kills=6)
        assert runs >= 4
        check_game(seen, script, folder / "game.jsonl")
        assert journal_clues(folder / "game.jsonl") == script.expected_clues()


def journal_clues(journal: Path) -> dict[tuple[int, int], str]:
    """(round, seat) → the clue the journal kept, replaying the rules to know the round."""
    records = read_records(journal)
    table = FerretOutTable.from_setup(records[0])
    clues = {}
    for action in actions_of(records):
        if action.kind == "clue":
            clues[(table.game.round, action.player)] = action.choice
        table.game.apply(action)
    return clues


@pytest.mark.parametrize(("setting", "problem"), [
    ("end=12", "setting end wants one of rounds, 15, 20"),
    ("study_seconds=soon", "setting study_seconds wants a whole number"),
    ("colour=red", "unknown setting 'colour'"),
])
def test_bad_settings_are_refused_with_a_sentence(tmp_path: Path, setting: str,
                                                  problem: str) -> None:
    done = subprocess.run(play_args(tmp_path, 5, 1, setting), capture_output=True, text=True,
                          input="", timeout=30)
    assert done.returncode != 0 and problem in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize(("transcript", "confidence", "clip", "choice", "readable"), [
    ("bark", 1.0, "", "bark", True),
    ("Bark!", 0.95, "clips/1-seat0.wav", "bark@clips/1-seat0.wav", True),
    ("bark", 0.4, "clips/1-seat0.wav", "bark?@clips/1-seat0.wav", False),
    ("", 0.0, "clips/1-seat0.wav", "@clips/1-seat0.wav", False),
    ("sand castle", 0.9, "clips/1-seat0.wav", "@clips/1-seat0.wav", False),
])
def test_a_clue_is_journaled_as_one_word_with_its_recording(
        transcript: str, confidence: float, clip: str, choice: str, readable: bool) -> None:
    said = said_from(transcript, confidence, clip)
    assert said.choice() == choice and len(choice.split()) == 1
    assert Said.parse(choice) == said and said.readable() is readable


def test_a_recording_is_kept_next_to_the_journal(tmp_path: Path) -> None:
    journal = tmp_path / "game.jsonl"
    journal.write_text("")
    pcm = b"\x10\x00\xf0\xff" * 8000
    clip = save_clip(journal, pcm, "seat2")
    assert clip.startswith("clips/") and (tmp_path / clip).is_file()
    assert load_clip(journal, clip) == pcm
    journal.rename(tmp_path / "game-1.jsonl")  # a save renamed by hand keeps its clips
    assert load_clip(tmp_path / "game-1.jsonl", clip) == pcm
    assert load_clip(journal, "clips/missing.wav") is None


def test_a_guess_of_any_word_is_taken_without_a_read_back(tmp_path: Path) -> None:
    """With the boxed sleeves a guess is free speech: its words (or only its recording) are
    what the Ferrets judge at the reveal, so the host does not read it back for a yes."""
    seed = next(s for s in range(200)
                if any(p.guesses for p in FerretScript(4, seed=s).plans[:1]))
    script = FerretScript(4, seed=seed)
    events = drive(play_args(tmp_path, 4, seed, "study_seconds=0"), tmp_path / "events.jsonl",
                   script.reply)
    asked = listens(events)
    guesses = [i for i, e in enumerate(asked) if e["decision"] == "guess" and not e["options"]]
    assert guesses
    assert all(asked[i + 1]["decision"] != "confirm" for i in guesses)


def test_the_cfo_number_past_six_is_refused_with_the_range_and_a_digit_is_its_word(
        tmp_path: Path) -> None:
    typed = ["i'm in"] * 4 + ["seven", "number 7", "3"]
    done = subprocess.run(play_args(tmp_path, 4, 7), input="\n".join(typed) + "\n",
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("a number from one to six.") == 2
    assert "didn't" not in done.stdout
    actions = actions_of(read_records(tmp_path / "game.jsonl"))
    assert [(a.kind, a.choice) for a in actions] == [("number", "3")]
