"""Secret Squad's rules, checked against the rulebook and over thousands of random games."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from voicehost.games.base import Action, IllegalAction
from voicehost.games.secret_squad import (
    SecretSquad,
    Settings,
    award_round,
    deal_squads,
    squad_cards,
)

DECK = 100
Test = Callable[..., Any]  # a test function, as Hypothesis decorates it


def random_tables(examples: int) -> Callable[[Test], Test]:
    """Hypothesis over `examples` random (players, seed) tables."""
    return lambda test: settings(max_examples=examples, deadline=None)(
        given(st.integers(3, 10), st.integers(0, 2**32))(test))


def play_random_game(players: int, seed: int) -> tuple[SecretSquad, list]:
    """Play a whole game with random legal choices; squads revealed as `deal_squads` dealt them."""
    game = SecretSquad(players, seed=seed, deck_size=DECK)
    rng = random.Random(seed * 7919 + players)
    squads, _ = deal_squads(players, rng)
    events = []
    while (decision := game.pending()) is not None:
        if decision.kind == "squad":
            choice = squads[decision.decider]
        else:
            choice = rng.choice(decision.options)
        events += game.apply(Action(decision.kind, decision.decider, choice))
        if any(e.kind == "round_scored" for e in events[-2:]):
            squads, _ = deal_squads(players, rng)
    return game, events


@pytest.mark.parametrize(
    ("players", "each", "aside"), [(3, 2, 1), (4, 2, 0), (5, 3, 1), (9, 5, 1), (10, 5, 0)]
)
def test_squad_cards_follow_the_setup(players: int, each: int, aside: int) -> None:
    assert squad_cards(players) == each
    dealt, set_aside = deal_squads(players, random.Random(players))
    assert len(dealt) == players
    assert (set_aside is not None) == bool(aside)


@random_tables(3000)
def test_deal_is_balanced_as_the_rules_deal(players: int, seed: int) -> None:
    dealt, set_aside = deal_squads(players, random.Random(seed))
    every_card = dealt + ([set_aside] if set_aside else [])
    assert every_card.count("yellow") == every_card.count("red") == (players + 1) // 2
    assert len(dealt) == players


@random_tables(2000)
def test_random_games_keep_the_scoring_invariants(players: int, seed: int) -> None:
    game, events = play_random_game(players, seed)
    rounds = [e.facts for e in events if e.kind == "round_scored"]
    assert len(rounds) == 3
    totals = [0] * players
    for scored in rounds:
        for seat, award in enumerate(scored["awards"]):
            assert award["bonus"] in (0, 1)  # at most one bonus per player per round
            assert award["pick"] in (0, 3, 4)
            assert award["pick"] != 4 or players == 3
            totals[seat] += award["pick"] + award["bonus"]
        assert award_round(scored["pointed_at"], scored["squads"]) == scored["awards"]
    assert game.scores == totals
    assert min(game.scores) >= 0
    over = events[-1]
    assert over.kind == "game_over"
    assert over.facts["winners"] == [s for s in range(players) if totals[s] == max(totals)]


@random_tables(500)
def test_every_card_is_answered_by_every_player(players: int, seed: int) -> None:
    _, events = play_random_game(players, seed)
    done = [e.facts for e in events if e.kind == "card_done"]
    assert len(done) == 9
    for tally in done:
        assert sorted(tally["yup"] + tally["nope"]) == list(range(players))


def test_a_correct_pick_scores_three_and_the_found_player_one() -> None:
    # 4 players: 0 and 1 yellow, 2 and 3 red.
    squads = ["yellow", "yellow", "red", "red"]
    awards = award_round([1, 2, 0, 1], squads)
    assert awards[0] == {"pick": 3, "bonus": 0}
    assert awards[1] == {"pick": 0, "bonus": 1}
    assert awards[2] == {"pick": 0, "bonus": 0}
    assert awards[3] == {"pick": 0, "bonus": 0}


def test_being_found_by_several_still_gives_one_bonus() -> None:
    squads = ["red", "red", "red", "yellow", "yellow", "yellow"]
    awards = award_round([2, 2, 0, 4, 3, 3], squads)
    assert [a["pick"] for a in awards] == [3, 3, 3, 3, 3, 3]
    assert [a["bonus"] for a in awards] == [1, 0, 1, 1, 1, 0]


def test_three_player_self_point() -> None:
    squads = ["yellow", "red", "red"]
    awards = award_round([0, 2, 0], squads)
    assert awards[0] == {"pick": 4, "bonus": 0}  # alone in yellow, knew it
    assert awards[1] == {"pick": 3, "bonus": 0}
    assert awards[2] == {"pick": 0, "bonus": 1}
    # pointing at yourself with a squad-mate at the table scores nothing
    assert award_round([0, 0, 1], ["red", "red", "yellow"])[0]["pick"] == 0


def test_pointing_at_yourself_is_only_for_three_players() -> None:
    game = SecretSquad(4, seed=1, deck_size=DECK)
    assert "0" not in game.point_options(0)
    assert SecretSquad(3, seed=1, deck_size=DECK).point_options(0) == ("0", "1", "2")


def advance_to(game: SecretSquad, kind: str) -> None:
    while (d := game.pending()).kind != kind:
        game.apply(Action(d.kind, d.decider, d.options[0]))


def test_illegal_choices_change_nothing() -> None:
    game = SecretSquad(4, seed=3, deck_size=DECK)
    advance_to(game, "point")
    before = (game.phase, list(game.pointed_at))
    with pytest.raises(IllegalAction) as excinfo:
        game.apply(Action("point", 0, "0"))
    assert excinfo.value.reason == "bad_point"
    with pytest.raises(IllegalAction):
        game.apply(Action("point", 2, "1"))  # not seat 2's turn
    assert (game.phase, game.pointed_at) == before


def test_more_squad_claims_than_cards_are_refused() -> None:
    game = SecretSquad(4, seed=3, deck_size=DECK)
    advance_to(game, "squad")
    game.apply(Action("squad", 0, "yellow"))
    game.apply(Action("squad", 1, "yellow"))
    with pytest.raises(IllegalAction) as excinfo:
        game.apply(Action("squad", 2, "yellow"))
    assert excinfo.value.facts["claimed"] == [0, 1]
    assert game.squads == ["yellow", "yellow", None, None]


def test_used_cards_go_to_the_bottom_of_the_deck() -> None:
    game = SecretSquad(4, seed=5, deck_size=10, settings=Settings(rounds=2))
    first_three = game.deck[:3]
    advance_to(game, "squad")
    for seat, squad in enumerate(["yellow", "yellow", "red", "red"]):
        game.apply(Action("squad", seat, squad))
    assert game.deck[-3:] == first_three
    assert len(game.deck) == 10


def test_skipping_a_card_draws_the_next_and_forgets_its_answers() -> None:
    game = SecretSquad(4, seed=5, deck_size=DECK)
    game.apply(Action("deal", None, "ready"))
    skipped = game.cards[-1].number
    game.apply(Action("answer", 0, "yup"))
    events = game.apply(Action("skip_card", None))
    assert [e.kind for e in events] == ["card_skipped", "card_drawn"]
    assert game.deck[-1] == skipped
    assert game.cards[-1].answers == {}
    assert game.pending().decider == 0


def test_ties_share_the_victory() -> None:
    game = SecretSquad(4, seed=5, deck_size=DECK, settings=Settings(rounds=1))
    advance_to(game, "point")
    for seat, target in enumerate([1, 0, 3, 2]):
        game.apply(Action("point", seat, str(target)))
    events = []
    for seat, squad in enumerate(["yellow", "yellow", "red", "red"]):
        events += game.apply(Action("squad", seat, squad))
    assert events[-1].kind == "game_over"
    assert events[-1].facts["winners"] == [0, 1, 2, 3]
    assert game.scores == [4, 4, 4, 4]


def test_player_count_limits() -> None:
    for players in (2, 11):
        with pytest.raises(IllegalAction):
            SecretSquad(players, seed=0, deck_size=DECK)
