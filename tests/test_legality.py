"""`game.check(action)` is the rules' own legality check: it refuses exactly what `apply` would
refuse, with the same rule, and changes nothing (the host asks it before reading a choice
back)."""

from __future__ import annotations

import copy
import pickle
import random

import pytest

from voicehost.games.base import Action, Decision, IllegalAction
from voicehost.host.table import Seats
from voicehost.registry import GAMES

FREE_WORDS = ("desert", "two words", "")  # a free-speech decision: one word, two, nothing


def outcome(game: object, action: Action) -> str:
    """The rule a copy of `game` refuses `action` with when applying it, or "" when taken."""
    try:
        copy.deepcopy(game).apply(action)  # type: ignore[attr-defined]
    except IllegalAction as illegal:
        return illegal.reason
    return ""


def checked(game: object, action: Action) -> str:
    try:
        game.check(action)  # type: ignore[attr-defined]
    except IllegalAction as illegal:
        return illegal.reason
    return ""


def tries(decision: Decision, players: int, rng: random.Random) -> list[Action]:
    """Every offered choice, and moves the rules must refuse: out of turn, of another kind,
    not offered, a skip."""
    choices = list(decision.options) or list(FREE_WORDS)
    other = None if decision.decider is not None else rng.randrange(players)
    if decision.decider is not None:
        other = (decision.decider + 1) % players
    return ([Action(decision.kind, decision.decider, choice) for choice in choices]
            + [Action(decision.kind, other, choices[0]),
               Action("no_such_kind", decision.decider, choices[0]),
               Action(decision.kind, decision.decider, "not an option:9"),
               Action("skip_card", None)])


@pytest.mark.parametrize("name", sorted(GAMES))
@pytest.mark.parametrize("seed", range(6))
def test_check_refuses_what_apply_refuses_and_changes_nothing(name: str, seed: int) -> None:
    spec = GAMES[name]
    rng = random.Random(seed)
    players = rng.randint(*spec.players)
    game = spec.table(Seats.default(players), seed=seed).game
    refused = taken = 0
    for _ in range(400):
        decision = game.pending()
        if decision is None:
            break
        legal = []
        for action in tries(decision, players, rng):
            before = pickle.dumps(game)
            reason = checked(game, action)
            assert pickle.dumps(game) == before, (action, "check changed the game")
            assert reason == outcome(game, action), action
            if reason:
                refused += 1
            elif action.kind == decision.kind:
                legal.append(action)
        taken += 1
        game.apply(rng.choice(legal))
    assert taken > 10 and refused > taken  # the walk went deep, and met refusals all the way
