"""Ferret Out's rules, checked against the rulebook and over thousands of random games."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from voicehost.games.base import Action, Event, IllegalAction
from voicehost.games.ferret_out import (
    ENDINGS,
    OTHER_WORD,
    POINTS,
    ROUNDS,
    Award,
    FerretOut,
    PouchPair,
    PouchShelf,
    Settings,
    cfo_for,
    score_lines,
    score_round,
    sleeve_for,
)

WEASEL_RULES = {"a_ferret_missed", "named_themself", "guessed_the_ferret_word"}
FERRET_RULES = set(POINTS) - WEASEL_RULES


def pouches(count: int = 12) -> list[PouchPair]:
    """A made-up deck: pouch pair p pairs word fp_n with wp_n."""
    return [
        PouchPair(tuple(f"f{p}_{n}" for n in range(1, 7)), tuple(f"w{p}_{n}" for n in range(1, 7)))
        for p in range(count)
    ]


def new_game(players: int = 4, seed: int = 1, end: str | int = "rounds",
             deck: int = 12) -> FerretOut:
    return FerretOut(players, seed=seed, pouches=pouches(deck), settings=Settings(end=end))


def play_round(
    game: FerretOut,
    accusations: Sequence[int],
    weasel: int,
    guesses: Mapping[int, str] | None = None,
    number: str = "1",
) -> list[Event]:
    """One round as a table would play it. In `guesses`, "right" is the Ferrets' word, "wrong"
    the Weasel's word; the first of the two words at the number is the Ferrets'."""
    guesses = guesses or {}
    events: list[Event] = []
    while not any(e.kind == "round_scored" for e in events):
        decision = game.pending()
        assert decision is not None
        seat = decision.decider
        if decision.kind == "number":
            choice = number
        elif decision.kind == "clue":
            choice = "hint"
        elif decision.kind == "accuse":
            choice = str(accusations[seat])
        elif decision.kind == "guess":  # any word: the boxed sleeves' words are not known
            choice = {"right": "violin", "wrong": "cello", "other": "banjo"}[guesses[seat]]
        elif decision.kind == "weasel":
            choice = str(weasel)
        elif decision.kind == "guess_right":  # the Ferrets say whether it was their word
            choice = "yes" if guesses[weasel] == "right" else "no"
        else:
            choice = "ready"
        events += game.apply(Action(decision.kind, seat, choice))
    return events


def scored(events: list[Event]) -> dict[str, Any]:
    return next(e.facts for e in events if e.kind == "round_scored")


def snapshot(game: FerretOut | PouchShelf) -> dict[str, Any]:
    """Everything the game holds (its shelf too), with the random streams by their state."""
    return {
        name: value.getstate() if isinstance(value, random.Random)
        else snapshot(value) if isinstance(value, PouchShelf) else repr(value)
        for name, value in vars(game).items()
    }


DATA = Path(__file__).resolve().parent / "data"


# -- scoring, case by case ----------------------------------------------------------------

# (accusations by seat, weasel, guesses by seat, points by seat), worked out by hand.
SCORING_CASES = {name: (case["accusations"], case["weasel"], case["guesses"], case["points"])
                 for name, case in yaml.safe_load(
                     (DATA / "ferret_out_scoring.yaml").read_text(encoding="utf-8")).items()}


def words_for(guesses: Mapping[int, str]) -> dict[int, str]:
    return {seat: {"right": "violin", "wrong": "cello", "other": OTHER_WORD}[guess]
            for seat, guess in guesses.items()}


@pytest.mark.parametrize(("accusations", "weasel", "guesses", "points"),
                         SCORING_CASES.values(), ids=SCORING_CASES.keys())
def test_score_round_pays_as_the_rulebook(
    accusations: list[int], weasel: int, guesses: dict[int, str], points: list[int]
) -> None:
    assert score_round(accusations, weasel, words_for(guesses), "violin") == points


@pytest.mark.parametrize(("accusations", "weasel", "guesses", "points"),
                         SCORING_CASES.values(), ids=SCORING_CASES.keys())
def test_a_played_round_pays_as_the_rulebook(
    accusations: list[int], weasel: int, guesses: dict[int, str], points: list[int]
) -> None:
    game = new_game(players=len(accusations))
    facts = scored(play_round(game, accusations, weasel, guesses))
    assert facts["points"] == points
    assert game.scores == points
    assert facts["weasel"] == weasel


def test_the_breakdown_names_each_line_of_the_rulebook() -> None:
    lines = score_lines([3, 3, 0, 3], 3, {3: "violin"}, "violin")
    assert lines == [
        Award(0, "named_the_weasel", 1),
        Award(1, "named_the_weasel", 1),
        Award(3, "a_ferret_missed", 1),
        Award(3, "named_themself", 1),
        Award(3, "guessed_the_ferret_word", 2),
    ]
    facts = scored(play_round(new_game(), [3, 3, 0, 3], 3, {3: "right"}))
    assert facts["breakdown"] == [award.to_json() for award in lines]


def test_the_weasel_guess_is_matched_whatever_the_case() -> None:
    assert score_round([1, 1, 1], 1, {1: " Violin"}, "violin") == [2, 3, 2]


def test_a_guess_by_someone_who_did_not_name_themself_is_ignored() -> None:
    assert score_round([3, 3, 3, 0], 3, {3: "violin"}, "violin") == [3, 3, 3, 0]


def test_the_weasel_guess_cannot_be_scored_without_the_ferret_word() -> None:
    with pytest.raises(ValueError):
        score_round([1, 1, 1], 1, {1: "violin"}, None)


def test_the_table_is_asked_about_a_guess_only_when_the_weasel_guessed() -> None:
    game = new_game()
    play_round(game, [3, 1, 3, 0], 3, {1: "right"})  # only a Ferret guessed
    assert [s.rule for s in game.history[-1]].count("weasel_missed_the_word") == 3
    game.apply(Action("number", game.cfo, "2"))
    for seat in game.speaking_order():
        game.apply(Action("clue", seat, "hint"))
    game.apply(Action("study", None, "ready"))
    for seat in game.speaking_order():
        game.apply(Action("accuse", seat, "0"))
    decision = game.pending()
    assert (decision.kind, decision.decider) == ("guess", 0)
    assert decision.options == ()  # any word: the host does not know the boxed sleeves' words
    game.apply(Action("guess", 0, "zither"))
    game.apply(Action("weasel", None, "0"))
    decision = game.pending()
    assert decision.kind == "guess_right" and decision.scoring
    assert decision.options == ("yes", "no")
    (scored_round,) = [e for e in game.apply(Action("guess_right", None, "yes"))
                       if e.kind == "round_scored"]
    assert scored_round.facts["ferret_word"] == "zither"  # a right guess from the retail cards
    assert scored_round.facts["points"][0] == 1 + 2  # named themself, guessed the word


# -- the round's steps ----------------------------------------------------------------------

def test_a_round_asks_in_the_order_of_the_rulebook() -> None:
    game = new_game(players=3)
    game.apply(Action("number", 0, "4"))
    kinds = []
    while game.pending().kind != "number":
        decision = game.pending()
        kinds.append((decision.kind, decision.decider))
        choice = decision.options[0] if decision.options else "hint"
        if decision.kind == "accuse":
            choice = str(decision.decider)  # everyone names themself, so everyone guesses
        if decision.kind == "weasel":
            choice = "1"
        game.apply(Action(decision.kind, decision.decider, choice))
    assert kinds == [("clue", 0), ("clue", 1), ("clue", 2), ("study", None),
                     ("accuse", 0), ("accuse", 1), ("accuse", 2),
                     ("guess", 0), ("guess", 1), ("guess", 2),
                     ("weasel", None), ("guess_right", None)]


def test_the_events_of_a_round() -> None:
    game = new_game(players=3, seed=9)
    events = play_round(game, [2, 2, 0], 2, number="5")
    kinds = [e.kind for e in events]
    assert kinds == ["round_started", "number_chosen", "clue_given", "clue_given", "clue_given",
                     "accusations_done", "round_scored"]
    assert events[0].facts["cfo"] == 0 and events[0].facts["orientation"] == "insert"
    assert events[1].facts == {"round": 1, "number": 5, "rolled": False}
    assert events[2].facts == {"player": 0, "clue": "hint"}
    assert events[5].facts["accusations"] == [2, 2, 0]
    assert events[-1].facts["scores"] == [3, 3, 0]
    assert events[-1].facts["ferret_word"] is None


def test_a_roll_picks_a_number_from_the_seeded_die() -> None:
    numbers = []
    for _ in range(2):
        game = new_game(seed=42)
        events = game.apply(Action("number", 0, "roll"))
        chosen = events[1].facts
        assert chosen["rolled"] and 1 <= chosen["number"] <= 6
        assert game.answers.number == chosen["number"]
        numbers.append(chosen["number"])
    assert numbers[0] == numbers[1]


def test_clues_are_one_word_and_are_kept_as_said() -> None:
    game = new_game(players=3)
    game.apply(Action("number", 0, "1"))
    events = game.apply(Action("clue", 0, "  purring "))
    assert events[0].facts["clue"] == "purring"
    game.apply(Action("clue", 1, "ice-cream"))
    assert game.answers.clues == {0: "purring", 1: "ice-cream"}


def test_cfo_passes_clockwise_each_round() -> None:
    game = new_game(players=3)
    cfos = []
    for round_number in range(1, ROUNDS + 1):
        assert game.pending().decider == game.cfo == cfo_for(round_number, 3)
        assert game.speaking_order()[0] == game.cfo
        events = play_round(game, [1, 2, 0], (round_number % 3))
        cfos.append(events[0].facts["cfo"])
    assert cfos == [0, 1, 2, 0, 1, 2, 0, 1]
    assert [cfo_for(r, 5) for r in range(1, 12)] == [0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 0]


def test_the_sleeve_schedule() -> None:
    schedule = [(s.pouch_set, s.step) for s in map(sleeve_for, range(1, 13))]
    assert schedule == [
        (0, "insert"), (0, "rotate"), (0, "flip"), (0, "rotate"),
        (1, "insert"), (1, "rotate"), (1, "flip"), (1, "rotate"),
        (2, "insert"), (2, "rotate"), (2, "flip"), (2, "rotate"),
    ]
    assert [sleeve_for(r).face for r in range(1, 9)] == [0, 1, 2, 3, 0, 1, 2, 3]


def test_each_round_of_a_game_shows_a_new_row_and_sets_bring_new_pouches() -> None:
    game = new_game(players=3, deck=12)
    started = []
    for _ in range(ROUNDS):
        started.append(play_round(game, [2, 2, 0], 2)[0].facts)
    assert [f["orientation"] for f in started] == ["insert", "rotate", "flip", "rotate"] * 2
    rows = [f["pouch"] for f in started]
    assert len(set(rows)) == 8  # four faces of one set, then two new pouches' four faces
    assert set(game.shelf.pouch_set(0)).isdisjoint(game.shelf.pouch_set(1))


def test_pouch_sets_depend_on_the_seed_alone() -> None:
    rolled, named = new_game(seed=5), new_game(seed=5)
    for _ in range(5):
        play_round(rolled, [3, 3, 3, 0], 3, number="roll")
        play_round(named, [3, 3, 3, 0], 3, number="3")
    assert ([rolled.shelf.pouch_set(k) for k in range(4)]
            == [named.shelf.pouch_set(k) for k in range(4)])
    assert new_game(seed=5).shelf.pouch_set(3) == rolled.shelf.pouch_set(3)


def test_a_small_deck_comes_round_again_without_repeating_the_last_set() -> None:
    game = new_game(deck=6)
    sets = [game.shelf.pouch_set(k) for k in range(12)]
    for earlier, later in zip(sets, sets[1:], strict=False):
        assert len(set(later)) == 4
        assert later != earlier
    tiny = new_game(deck=4)
    assert all(sorted(tiny.shelf.pouch_set(k)) == [0, 1, 2, 3] for k in range(5))


# -- the end of the game ------------------------------------------------------------------

def test_eight_rounds_then_game_over() -> None:
    game = new_game(players=3)
    for _ in range(ROUNDS):
        assert game.pending() is not None
        events = play_round(game, [1, 0, 0], 1)  # seat 2 misses: [2, 1, 1] a round
    assert events[-1].kind == "game_over"
    assert events[-1].facts == {"scores": [16, 8, 8], "winners": [0]}
    assert game.pending() is None and game.round == ROUNDS


def test_a_tie_after_eight_rounds_plays_on_until_one_leads() -> None:
    game = new_game(players=3)
    for _ in range(ROUNDS):
        events = play_round(game, [2, 2, 0], 2)
    assert game.scores == [24, 24, 0]
    assert [e.kind for e in events[-2:]] == ["round_scored", "tie_break"]
    assert events[-1].facts == {"round": 9, "leaders": [0, 1]}
    assert game.round == 9 and game.sleeve.step == "insert" and game.sleeve.pouch_set == 2
    events = play_round(game, [2, 2, 0], 2)  # still tied: round 10
    assert events[-1].kind == "tie_break" and game.round == 10
    events = play_round(game, [1, 2, 1], 2)  # seat 0 misses the Weasel
    assert game.scores == [28, 29, 1]
    assert events[-1].kind == "game_over"
    assert events[-1].facts == {"scores": [28, 29, 1], "winners": [1]}
    assert game.pending() is None


def test_a_lone_leader_after_eight_rounds_wins() -> None:
    game = new_game(players=3)
    play_round(game, [2, 0, 0], 2)  # seat 1 misses: [2, 1, 1]
    for _ in range(ROUNDS - 1):
        events = play_round(game, [2, 2, 0], 2)
    assert game.scores == [23, 22, 1]
    assert events[-1].kind == "game_over" and events[-1].facts["winners"] == [0]


def test_playing_to_fifteen_ends_after_the_round_that_reaches_it() -> None:
    game = new_game(players=3, end=15)
    play_round(game, [2, 0, 0], 2)  # [2, 1, 1]
    for _ in range(4):
        events = play_round(game, [2, 2, 0], 2)
    assert game.scores == [14, 13, 1]
    assert events[-1].kind == "round_scored" and game.pending() is not None
    events = play_round(game, [2, 2, 0], 2)
    assert game.scores == [17, 16, 1]
    assert events[-1].kind == "game_over" and events[-1].facts["winners"] == [0]
    assert game.round == 6


def test_playing_to_twenty_goes_on_past_fifteen() -> None:
    game = new_game(players=3, end=20)
    play_round(game, [2, 0, 0], 2)  # [2, 1, 1]
    for _ in range(5):
        play_round(game, [2, 2, 0], 2)
    assert game.scores == [17, 16, 1] and game.pending() is not None
    events = play_round(game, [2, 2, 0], 2)
    assert game.scores == [20, 19, 1]
    assert events[-1].kind == "game_over" and events[-1].facts["winners"] == [0]


def test_a_tie_at_the_target_plays_on() -> None:
    game = new_game(players=3, end=15)
    for _ in range(5):
        events = play_round(game, [2, 2, 0], 2)
    assert game.scores == [15, 15, 0]
    assert events[-1].kind == "tie_break"
    events = play_round(game, [2, 0, 0], 1)  # seat 1 the Weasel, nobody finds them
    assert game.scores == [16, 16, 1]
    assert events[-1].kind == "tie_break"
    events = play_round(game, [1, 1, 1], 1, {1: "wrong"})  # found; names themself, wrong word
    assert events[-1].kind == "game_over"
    assert events[-1].facts == {"scores": [19, 17, 4], "winners": [0]}


def test_a_target_game_may_run_past_eight_rounds() -> None:
    game = new_game(players=7, end=20)
    for _ in range(ROUNDS):
        play_round(game, [0] * 7, 6, {0: "wrong"})  # nobody finds the Weasel: 1 point each
    assert game.scores == [8] * 7 and game.round == 9
    assert game.pending().kind == "number"


# -- illegal choices -------------------------------------------------------------------------

def advance_to(game: FerretOut, kind: str) -> None:
    while (decision := game.pending()).kind != kind:
        choice = decision.options[0] if decision.options else "hint"
        game.apply(Action(decision.kind, decision.decider, choice))


@pytest.mark.parametrize(
    ("kind", "action", "reason"),
    [
        ("number", Action("number", 0, "7"), "bad_number"),
        ("number", Action("number", 1, "3"), "not_your_turn"),
        ("number", Action("clue", 0, "cat"), "not_your_turn"),
        ("clue", Action("clue", 0, "big cat"), "clue_is_one_word"),
        ("clue", Action("clue", 0, ""), "clue_is_one_word"),
        ("clue", Action("clue", 0, "   "), "clue_is_one_word"),
        ("clue", Action("clue", 2, "cat"), "not_your_turn"),
        ("study", Action("study", None, "go"), "bad_study"),
        ("accuse", Action("accuse", 0, "4"), "bad_accuse"),
        ("accuse", Action("accuse", 0, "fox"), "bad_accuse"),
        ("accuse", Action("accuse", None, "1"), "not_your_turn"),
        ("guess", Action("guess", 0, "banana split"), "guess_is_one_word"),
        ("weasel", Action("weasel", None, "-1"), "bad_weasel"),
        ("weasel", Action("weasel", 0, "1"), "not_your_turn"),
        ("guess_right", Action("guess_right", None, "maybe"), "bad_guess_right"),
    ],
)
def test_illegal_choices_change_nothing(kind: str, action: Action, reason: str) -> None:
    game = new_game(players=4, seed=3)
    advance_to(game, kind)  # everyone names seat 0, so seat 0 guesses; "0" is the Weasel
    before = snapshot(game)
    with pytest.raises(IllegalAction) as excinfo:
        game.apply(action)
    assert excinfo.value.reason == reason
    assert snapshot(game) == before


def test_nothing_is_accepted_after_the_game_is_over() -> None:
    game = new_game(players=3, end=15)
    while game.pending() is not None:
        play_round(game, [1, 1, 1], 1, {1: "right"})  # [2, 3, 2] a round
    assert game.scores == [10, 15, 10]
    before = snapshot(game)
    with pytest.raises(IllegalAction) as excinfo:
        game.apply(Action("number", 0, "1"))
    assert excinfo.value.reason == "game_over"
    assert snapshot(game) == before


@pytest.mark.parametrize("players", [2, 8])
def test_player_count_limits(players: int) -> None:
    with pytest.raises(IllegalAction):
        new_game(players=players)


def test_settings_and_deck_are_checked() -> None:
    with pytest.raises(IllegalAction):
        new_game(end=10)
    with pytest.raises(IllegalAction):
        new_game(deck=3)
    with pytest.raises(IllegalAction):
        PouchPair.from_json({"ferrets": ["a", "b", "c", "d", "e"],
                             "weasel": ["f", "g", "h", "i", "j", "k"]})
    with pytest.raises(IllegalAction):
        PouchPair.from_json({"ferrets": ["a", "b", "c", "d", "e", "f"],
                             "weasel": ["a", "g", "h", "i", "j", "k"]})
    pair = PouchPair.from_json({"ferrets": ["cat", "b", "c", "d", "e", "f"],
                                "weasel": ["dog", "g", "h", "i", "j", "k"]})
    assert pair.at(1) == ("cat", "dog")


# -- thousands of random games ------------------------------------------------------------

def play_random_game(players: int, seed: int, end: str | int, deck: int
                     ) -> tuple[FerretOut, list[Event], int]:
    """A whole game of random legal choices; returns the game, its events and the weasel
    decisions asked."""
    game = new_game(players, seed, end, deck)
    rng = random.Random(seed)
    events: list[Event] = []
    weasels_asked = 0
    while (decision := game.pending()) is not None:
        assert game.round < 500, "the game should have ended long ago"
        if not decision.options:  # a clue, or a guess of any word
            choice = rng.choice(["fur", "sneaky", "music", "loud"])
        else:
            choice = rng.choice(decision.options)
        weasels_asked += decision.kind == "weasel"
        events += game.apply(Action(decision.kind, decision.decider, choice))
    return game, events, weasels_asked


@settings(max_examples=2000, deadline=None)
@given(st.integers(3, 7), st.integers(0, 2**32), st.sampled_from(ENDINGS), st.integers(4, 14))
def test_random_games_keep_the_scoring_invariants(
    players: int, seed: int, end: str | int, deck: int
) -> None:
    game, events, weasels_asked = play_random_game(players, seed, end, deck)
    rounds = [e.facts for e in events if e.kind == "round_scored"]
    assert [r["round"] for r in rounds] == list(range(1, len(rounds) + 1))
    assert weasels_asked == len(rounds)  # exactly one Weasel a round
    totals = [0] * players
    for facts in rounds:
        weasel = facts["weasel"]
        assert 0 <= weasel < players
        for line in facts["breakdown"]:
            assert (line["rule"] in WEASEL_RULES) == (line["seat"] == weasel)
            assert line["points"] == POINTS[line["rule"]]
        assert score_round(facts["accusations"], weasel, facts["guesses"],
                           facts["ferret_word"]) == facts["points"]
        assert all(0 <= p <= 3 for seat, p in enumerate(facts["points"]) if seat != weasel)
        assert 0 <= facts["points"][weasel] <= 4
        totals = [t + p for t, p in zip(totals, facts["points"], strict=True)]
        assert facts["scores"] == totals
    assert game.scores == totals and min(totals) >= 0
    over = events[-1]
    assert over.kind == "game_over"
    assert over.facts["winners"] == [s for s in range(players) if totals[s] == max(totals)]
    assert len(over.facts["winners"]) == 1
    if end == "rounds":
        assert len(rounds) >= ROUNDS
    else:
        assert max(totals) >= end
        assert all(max(r["scores"]) < end for r in rounds[:-1]
                   if len([s for s in r["scores"] if s == max(r["scores"])]) == 1)
    started = [e.facts for e in events if e.kind == "round_started"]
    assert [f["cfo"] for f in started] == [(r - 1) % players for r in range(1, len(rounds) + 1)]


@settings(max_examples=1000, deadline=None)
@given(st.data(), st.integers(3, 7))
def test_score_round_is_never_negative_and_never_above_the_rulebook(
    data: st.DataObject, players: int
) -> None:
    seats = st.integers(0, players - 1)
    accusations = data.draw(st.lists(seats, min_size=players, max_size=players))
    weasel = data.draw(seats)
    words = st.sampled_from(["violin", "cello", OTHER_WORD])
    guesses = {seat: data.draw(words) for seat in range(players) if accusations[seat] == seat}
    points = score_round(accusations, weasel, guesses, "violin")
    found = [seat for seat in range(players) if seat != weasel and accusations[seat] == weasel]
    for seat in range(players):
        if seat != weasel:
            assert points[seat] >= 1 - (guesses.get(weasel) == "violin")
            assert points[seat] <= 3
    if len(found) == players - 1 and accusations[weasel] != weasel:
        assert points == [0 if s == weasel else 3 for s in range(players)]
