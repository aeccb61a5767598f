"""Whole Secret Operation games through `voicehost play --io text`: the same host as audio mode."""

from __future__ import annotations

import random
import re
import subprocess
from collections.abc import Callable
from itertools import product
from pathlib import Path
from typing import Any

import pytest
from drive import drive, play_text, play_through_kills, resume_text, saying_once, voicehost
from operation_script import NUMBERS, OperationScript
from squad_script import SecretSquadScript
from wordings import facts_of, said_line

from voicehost.games.base import Action
from voicehost.host.grammars import decision_grammar
from voicehost.host.secret_operation import SecretOperationTable
from voicehost.host.table import Seats
from voicehost.lab.speakers import Speaker, speak
from voicehost.session import open_saved
from voicehost.speech.base import recognize
from voicehost.speech.pocketsphinx_engine import PocketsphinxRecognizer
from voicehost.store.journal import read_records

Listen = dict[str, Any]


def play_args(folder: Path, players: int, seed: int, *extra: str) -> list[str]:
    return play_text("secret-operation", folder, players, seed, *extra)


def journaled(folder: Path) -> tuple[list[Action], dict[str, Any]]:
    """The actions that stand in the journal, and the game state they replay to."""
    saved = open_saved(folder / "game.jsonl")
    return saved.actions, saved.table.game.status()


def exchanges(events: list[dict[str, Any]]) -> list[tuple[Listen, str, str, Listen | None]]:
    """(listen, what was heard, what the host said next, the next listen) for every answer."""
    listens = [i for i, e in enumerate(events) if e["event"] == "listen"]
    found = []
    for at, start in enumerate(listens):
        heard = next((e for e in events[start:] if e["event"] == "heard"), None)
        if heard is None:
            continue
        end = listens[at + 1] if at + 1 < len(listens) else len(events)
        said = " ".join(e["text"] for e in events[start:end] if e["event"] == "say")
        found.append((events[start], heard["text"], said,
                      events[end] if end < len(events) else None))
    return found


def same_moment(a: Listen, b: Listen | None) -> bool:
    keys = ("decision", "player", "options", "deck", "hands", "modules", "assembled", "blocked",
            "discard_pile", "module")
    return b is not None and all(a.get(k) == b.get(k) for k in keys)


def check_game(folder: Path, script: OperationScript, events: list[dict[str, Any]]) -> None:
    over = [e for e in events if e["event"] == "game_over"]
    assert len(over) == 1 and over[0]["winner"] == script.final["winner"]
    actions, status = journaled(folder)
    assert actions == script.actions
    assert status == script.final


@pytest.mark.parametrize(("plan", "seed"), [("engineers", 1), ("impostors", 2)])
def test_a_whole_six_player_game_ends_as_the_plan_says(tmp_path: Path, plan: str,
                                                      seed: int) -> None:
    script = OperationScript(6, seed, plan, first=2)
    events = drive(play_args(tmp_path, 6, seed), tmp_path / "events.jsonl", script.varied)
    check_game(tmp_path, script, events)
    assert script.final["winner"] == plan
    for listen in (e for e in events if e["event"] == "listen"):
        assert script.expects(listen), listen
    scores = [e for e in events if e["event"] == "score"]
    reveals = [m for (kind, _), m in script.moves.items() if kind == "reveal"]
    assert len(scores) == len(reveals) >= 3
    assert {s["what"] for s in scores} <= {"module_assembled", "module_failed"}
    said = " ".join(e["text"] for e in events if e["event"] == "say")
    assert all(name.title() in said for name in script.names)
    if plan == "impostors":
        assert "impostors win" in said.lower() or "impostors have won" in said.lower()
        assert "blocked" in said.lower() and "skip" in said.lower()
        assert "left in the deck" in said and "deck is empty" in said
    else:
        assert "engineers win" in said.lower() or "for the engineers" in said.lower()
    last = [e["text"] for e in events if e["event"] == "say"][-1]
    assert "identity card" in last


def set_up_said(events: list[dict[str, Any]]) -> str:
    """All the host said before it asked who goes first."""
    said = []
    for event in events:
        if event["event"] == "listen" and event["decision"] == "first_player":
            return " ".join(said)
        if event["event"] == "say":
            said.append(event["text"])
    raise AssertionError("the host never asked who goes first")


def test_four_players_set_eight_cards_aside(tmp_path: Path) -> None:
    script = OperationScript(4, 4, "engineers")
    events = drive(play_args(tmp_path, 4, 4), tmp_path / "events.jsonl", script.varied)
    check_game(tmp_path, script, events)
    set_up = set_up_said(events)
    assert said_line("set_aside", "secret_operation", aside="eight").search(set_up)
    assert "one impostor" in set_up
    first_turn = next(e for e in events if e["event"] == "listen" and e["decision"] == "turn")
    assert first_turn["deck"] == 24 and first_turn["hands"] == [3, 3, 3, 3]


def injecting(script: OperationScript, rules: list[tuple[str, Callable[[Listen], str | None]]]
              ) -> tuple[Callable[[Listen], str], dict[str, int]]:
    """A reply that says each rule's phrase once, the first time the rule finds one to say;
    `said` maps each rule to the number of the reply it was said in."""
    said: dict[str, int] = {}
    replies = [0]

    def reply(listen: Listen) -> str:
        replies[0] += 1
        for name, rule in rules:
            if name in said:
                continue
            phrase = rule(listen)
            if phrase is not None:
                said[name] = replies[0] - 1
                return phrase
        return script.reply(listen)

    return reply, said


def invalid_moves(script: OperationScript) -> list[tuple[str, Callable[[Listen], str | None]]]:
    names = script.names

    def on_turn(make: Callable[[Listen], str | None]) -> Callable[[Listen], str | None]:
        return lambda listen: make(listen) if listen["decision"] == "turn" else None

    def empty_hand(listen: Listen) -> str | None:
        empty = [s for s, n in enumerate(listen["hands"]) if n == 0]
        return f"{names[empty[0]]} discards energy" if empty else None

    def already_blocked(listen: Listen) -> str | None:
        return f"block {names[listen['blocked'][0]]}" if listen["blocked"] else None

    def assembled(listen: Listen) -> str | None:
        done = listen["assembled"]
        return f"add to module {NUMBERS[done[0] - 1]}" if done else None

    first_deck = next(iter(script.moves.values())).context["deck"]

    def never_drew(listen: Listen) -> str | None:
        return "discard block" if listen["deck"] == first_deck else None

    def too_many(listen: Listen) -> str | None:
        if listen["decision"] != "reveal":
            return None
        move = script.move_for(listen)
        size = len(move.choice.split(","))
        spent = [c for c, n in move.face_down.items() if n < size]
        return " ".join([spent[0]] * size) if spent else None

    return [
        ("no_such_module", on_turn(lambda listen: "add to module five")),
        ("block_yourself", on_turn(lambda listen: "block myself")),
        ("no_block_in_hand", on_turn(never_drew)),
        ("add_which", on_turn(lambda listen: "add a card")),
        # said one after another: "block" right after "discard" would be the block card
        ("block_whom", on_turn(lambda listen: "block")),
        ("discard_which", on_turn(lambda listen: "discard")),
        ("empty_hand", on_turn(empty_hand)),
        ("already_blocked", on_turn(already_blocked)),
        ("module_assembled", on_turn(assembled)),
        ("wrong_count", lambda listen: "mechanics energy" if listen["decision"] == "reveal"
         else None),
        ("more_than_the_game_has", too_many),
    ]


def refusal(key: str, **facts: str | int) -> re.Pattern[str]:
    return said_line(key, "secret_operation", **facts)


REFUSALS = {
    "no_such_module": refusal("no_such_module", got="five"),
    "block_yourself": refusal("block_yourself"), "no_block_in_hand": refusal("no_block_in_hand"),
    "add_which": refusal("add_which"), "discard_which": refusal("discard_which"),
    "block_whom": refusal("block_whom"), "empty_hand": refusal("empty_hand"),
    "already_blocked": refusal("already_blocked"), "module_assembled": refusal("module_done"),
    "wrong_count": refusal("wrong_count", cards=3),
    "more_than_the_game_has": refusal("too_many_of"),
}


@pytest.mark.parametrize(("plan", "seed", "expected"), [
    ("engineers", 3, {"no_such_module", "block_yourself", "no_block_in_hand", "add_which",
                      "discard_which", "block_whom", "module_assembled",
                      "wrong_count"}),
    ("impostors", 5, {"no_such_module", "block_yourself", "no_block_in_hand", "add_which",
                      "discard_which", "block_whom", "empty_hand",
                      "already_blocked", "wrong_count", "more_than_the_game_has"}),
])
def test_invalid_moves_get_a_reason_and_change_nothing(tmp_path: Path, plan: str, seed: int,
                                                       expected: set[str]) -> None:
    script = OperationScript(6, seed, plan)
    reply, said = injecting(script, invalid_moves(script))
    events = drive(play_args(tmp_path, 6, seed), tmp_path / "events.jsonl", reply)
    assert expected <= set(said), f"never reached: {expected - set(said)}"
    answered = exchanges(events)
    for rule, reply_number in said.items():
        listen, _, spoken, following = answered[reply_number]
        assert REFUSALS[rule].search(spoken), (rule, spoken)
        assert same_moment(listen, following), (rule, listen, following)
        assert "didn't" not in spoken  # heard and refused, not "not understood"
    check_game(tmp_path, script, events)  # no refused move reached the journal


def test_status_scores_and_the_discard_pile_at_any_time(tmp_path: Path) -> None:
    script = OperationScript(6, 7, "impostors")
    asked: list[str] = []
    commands = ["status", "scores", "read the answers", "what's the status"]

    def reply(listen: Listen) -> str:
        if listen["decision"] == "turn" and listen["deck"] in (20, 3) and commands:
            asked.append(commands.pop(0))
            return asked[-1]
        return script.reply(listen)

    events = drive(play_args(tmp_path, 6, 7), tmp_path / "events.jsonl", reply)
    check_game(tmp_path, script, events)
    assert len(asked) == 4
    replies = {heard: (listen, spoken, following)
               for listen, heard, spoken, following in exchanges(events)}
    listen, spoken, following = replies["status"]
    assert same_moment(listen, following)
    hands = listen["hands"]
    assert f"Deck: {listen['deck']} cards." in spoken
    assert "Modules: module one" in spoken and "module four" in spoken
    if len(set(hands)) == 1:
        assert f"Everyone holds {hands[0]} cards" in spoken
    else:
        assert f"{script.names[0].title()} {hands[0]}" in spoken
    assert f"It's {script.names[listen['player']].title()}'s turn" in spoken
    assert "of four modules assembled" in replies["scores"][1]
    assert said_line("discard_pile", "secret_operation").search(replies["read the answers"][1])
    assert "Status." in replies["what's the status"][1]


def test_commands_and_garbage_never_change_the_game(tmp_path: Path) -> None:
    script = OperationScript(6, 8, "engineers")
    extra = ["repeat", "help", "banana split", "", "zzzz", "pause", "resume", "undo"]

    def reply(listen: Listen) -> str:
        if listen["decision"] == "turn" and listen["deck"] == 24 and extra:
            return extra.pop(0)
        if listen["decision"] == "paused":
            return "resume"
        return script.reply(listen)

    events = drive(play_args(tmp_path, 6, 8), tmp_path / "events.jsonl", reply)
    check_game(tmp_path, script, events)
    said = [e["text"] for e in events if e["event"] == "say"]
    assert any(a == b for a, b in zip(said, said[1:], strict=False))  # repeat
    assert any(said_line("paused").match(s) for s in said)
    assert any(said_line("resumed").match(s) for s in said)
    assert any("Engineers build the robot" in s for s in said)  # help
    assert any("didn't understand" in s or "didn't catch" in s or "didn't get" in s
               for s in said)
    assert any("I didn't hear anything" in s or "still listening" in s for s in said)
    moves = said_line("options", "secret_operation",
                      options=said_line("option_add", "secret_operation"))
    assert any(moves.search(s) for s in said)  # options after two misses
    undone = [facts_of(m)["what"] for s in said if (m := said_line("undone").match(s))]
    assert any("added a card to module" in what or "discarded" in what for what in undone)
    records = read_records(tmp_path / "game.jsonl")
    assert [r["type"] for r in records].count("undo") == 1


def test_quit_then_resume_finishes_the_same_game(tmp_path: Path) -> None:
    script = OperationScript(6, 9, "engineers")
    reply = saying_once("quit game", lambda listen: listen["decision"] == "turn"
                        and listen["deck"] <= 22, script.reply)
    first = drive(play_args(tmp_path, 6, 9), tmp_path / "events.jsonl", reply)
    assert any(e["event"] == "quit" for e in first)
    assert not any(e["event"] == "game_over" for e in first)
    events = drive(resume_text(tmp_path), tmp_path / "events.jsonl", script.reply)
    assert "Welcome back" in next(e["text"] for e in events if e["event"] == "say")
    game_resumes = next(i for i, e in enumerate(events)
                        if e["event"] == "listen" and e["decision"] != "roll_call")
    said = [e["text"] for e in events[:game_resumes] if e["event"] == "say"]
    assert "I'm in" in said[0] and "Status." in said[-1]  # who is who, then where we are
    check_game(tmp_path, script, events)


@pytest.mark.parametrize("plan", ["engineers", "impostors"])
def test_kills_at_random_points_lose_nothing(tmp_path: Path, plan: str) -> None:
    rng = random.Random(f"kill-{plan}")
    script = OperationScript(6, 10, plan)
    seen, runs = play_through_kills(play_args(tmp_path, 6, 10), tmp_path, script.reply, rng,
                                    most_replies=12, kills=6)
    assert runs >= 4
    for listen in (e for e in seen if e["event"] == "listen"):
        assert script.expects(listen), listen
    check_game(tmp_path, script, seen)


def test_the_super_engineer_challenge_needs_more_cards(tmp_path: Path) -> None:
    script = OperationScript(5, 11, "engineers", settings={"super_engineer": "4"})
    events = drive(play_args(tmp_path, 5, 11, "--set", "super_engineer=4"),
                   tmp_path / "events.jsonl", script.varied)
    check_game(tmp_path, script, events)
    harder = said_line("module_harder", "secret_operation", module="one", extra="mechanics")
    assert harder.search(set_up_said(events))
    assert "module four takes one more" in set_up_said(events)
    reveal = next(e for e in events if e["event"] == "listen" and e["decision"] == "reveal")
    assert len(reveal["options"][0].split(",")) == 4


@pytest.mark.parametrize(("args", "says"), [
    (["--players", "3"], "4 to 10 players"),
    (["--players", "6", "--set", "super_engineer=5"], "super_engineer must be 0 to 4"),
    (["--players", "6", "--set", "rounds=3"], "unknown setting"),
])
def test_bad_setups_are_refused_in_words(tmp_path: Path, args: list[str], says: str) -> None:
    done = subprocess.run(voicehost("play", "secret-operation", "--io", "text", "--journal",
                                    str(tmp_path / "g.jsonl"), *args),
                          capture_output=True, text=True, input="", timeout=30, check=False)
    assert done.returncode != 0 and says in done.stderr
    assert "Traceback" not in done.stderr


def test_the_rest_of_a_half_move_is_taken_said_alone_digits_too(tmp_path: Path) -> None:
    # seed 7, 4 players: the host's lot gives Husky the first turn, then Tiger, Cheetah, Robin
    typed = ["i'm in"] * 4 + ["you pick", "add", "3", "add to module 3", "discard", "energy",
                              "add", "module two", "block", "tiger"]
    done = subprocess.run(play_args(tmp_path, 4, 7), input="\n".join(typed) + "\n",
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    actions, _ = journaled(tmp_path)
    assert [(a.player, a.choice) for a in actions[1:]] == [
        (2, "add:3"), (3, "add:3"), (0, "discard:energy"), (1, "add:2"), (2, "block:3")]
    assert "Which card" in done.stdout and "Whom do you block?" in done.stdout
    assert "didn't" not in done.stdout


def test_status_in_secret_squad_says_where_the_game_stands(tmp_path: Path) -> None:
    script = SecretSquadScript(4, seed=3)
    reply = saying_once("status", lambda listen: listen["decision"] == "answer"
                        and listen["card"] == 2, script.reply)
    events = drive(play_text("secret-squad", tmp_path, 4, 3), tmp_path / "events.jsonl", reply)
    replies = {heard: (listen, spoken, following)
               for listen, heard, spoken, following in exchanges(events)}
    listen, spoken, following = replies["status"]
    first = Seats.default(4).names[0].title()
    standings = said_line("standings", "secret_squad").search(spoken)
    assert "card 2 of round 1" in spoken and standings
    assert facts_of(standings)["scores"].startswith(f"{first} 0")
    assert same_moment(listen, following)
    over = [e for e in events if e["event"] == "game_over"]
    assert over and over[0]["scores"] == script.expected_scores()


HEARD = [  # (decision, what a player says, the intent value the host must get)
    ("turn", "add to module two", "add:2"),
    ("turn", "discard energy", "discard:energy"),
    ("turn", "block {2}", "block:2"),
    ("turn", "block myself", "block:1"),
    ("turn", "add to module five", "add:5"),
    ("turn", "discard", "discard:"),
    ("reveal", "mechanics electronics and energy", "mechanics,electronics,energy"),
    ("reveal", "energy mechanics mechanics", "mechanics,mechanics,energy"),
    ("reveal", "two mechanics and one energy", "mechanics,mechanics,energy"),
    ("reveal", "energy and two mechanics", "mechanics,mechanics,energy"),
    ("first_player", "{3} goes first", "3"),
    ("first_player", "you pick", "host_picks"),
]


def test_a_single_card_may_be_read_out_without_its_count() -> None:
    table = SecretOperationTable(Seats.default(4), seed=0)
    grammar = decision_grammar(table, table.example_decision("reveal", 1))
    taken = {said: grammar.match(said)[0] for said in (
        "energy and two mechanics", "two mechanics and energy", "a mechanic and energy and a block",
        "block, one energy and mechanics", "energy and mechanics and mechanics",
        "two mechanics and two energy", "mechanics and energy")}
    assert {said: intent.value if intent else None for said, intent in taken.items()} == {
        "energy and two mechanics": "mechanics,mechanics,energy",
        "two mechanics and energy": "mechanics,mechanics,energy",
        "a mechanic and energy and a block": "mechanics,energy,block",
        "block, one energy and mechanics": "mechanics,energy,block",
        "energy and mechanics and mechanics": "mechanics,mechanics,energy",
        "two mechanics and two energy": None,  # four cards where three are asked
        "mechanics and energy": "mechanics,energy",  # one short: refused aloud with the rule
    }


def test_the_real_recognizer_hears_moves_and_forbidden_moves() -> None:
    """espeak-ng speech through pocketsphinx, limited to what the host accepts right then."""
    seats = Seats.default(6)
    table = SecretOperationTable(seats, seed=0)
    engine = PocketsphinxRecognizer()
    wrong = []
    for (kind, said, value), pitch in product(HEARD, (25, 75)):
        voice = Speaker("player", "en-us", pitch, 165)
        grammar = decision_grammar(table, table.example_decision(kind, 1))
        engine.set_phrases(grammar.phrases)
        text = said.format(*seats.names)
        hearing = recognize(engine, speak(text, voice))
        intent, _ = grammar.match(hearing.text)
        if intent is None or intent.value != value:
            wrong.append((text, hearing.text, intent))
    assert wrong == []
