"""Secret Operation's rules, checked against the rulebook and over thousands of random games.

The engine never sees a card, so the random games deal real cards in the test (`Table`) and
play them: every claim a player makes is true, every reveal reads the module's real cards.
"""

from __future__ import annotations

import copy
import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import product
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from operation_script import deal_box

from voicehost.games.base import Action, Decision, Event, IllegalAction
from voicehost.games.secret_operation import (
    ALL_CARDS,
    BLOCK,
    CARD_TYPES,
    CARDS_IN_BOX,
    COMPONENTS,
    HAND_SIZE,
    MAX_PLAYERS,
    MIN_PLAYERS,
    BoardError,
    CardDiscarded,
    GameOver,
    SecretOperation,
    check_robot,
    impostor_count,
    in_card_order,
    read_boards,
    set_aside_count,
)
from voicehost.prompts_dir import load_yaml

BOARDS_DATA = load_yaml("secret_operation/boards.yaml")
BOARDS = read_boards(BOARDS_DATA)
MAX_STEPS = 1000  # far above any real game: 44 cards, each played once, plus skips and reveals

# The rulebook's table of boards: board → (player counts printed on it, required components).
RULEBOOK_BOARDS = {
    "01": ({4, 5, 6, 8}, ("mechanics", "electronics", "energy")),
    "02": ({4, 5, 6}, ("mechanics", "electronics", "energy")),
    "03": ({4, 7, 9}, ("mechanics", "mechanics", "energy")),
    "04": ({4, 6, 8}, ("mechanics", "electronics", "electronics")),
}


def new_game(players: int, seed: int = 0, first: str = "0") -> SecretOperation:
    game = SecretOperation(players, seed=seed, modules=BOARDS.robot(players))
    game.apply(Action("first_player", None, first))
    return game


def cards_in_play(status: dict[str, Any]) -> int:
    """Conservation: every card of the box is in exactly one of these places (or set aside)."""
    lab = sum(len(m["demand"]) for m in status["modules"] if m["assembled"])
    return (status["deck"] + sum(status["hands"]) + sum(m["cards"] for m in status["modules"])
            + len(status["discard_pile"]) + lab + len(status["blocked"]))


def snapshot(game: SecretOperation) -> tuple[dict[str, Any], object]:
    state = {name: value for name, value in vars(game).items() if name != "rng"}
    return copy.deepcopy(state), game.rng.getstate()


# -- setup ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("players", "impostors", "deck", "set_aside"),
    [(4, 1, 24, 8), (5, 2, 29, 0), (6, 2, 26, 0), (7, 2, 23, 0), (8, 3, 20, 0), (9, 3, 17, 0),
     (10, 3, 14, 0)],
)
def test_setup_follows_the_rulebook(players: int, impostors: int, deck: int,
                                    set_aside: int) -> None:
    status = SecretOperation(players, seed=1, modules=BOARDS.robot(players)).status()
    assert status["impostors"] == impostors == impostor_count(players)
    assert status["engineers"] == players - impostors
    assert status["hands"] == [HAND_SIZE] * players
    assert status["deck"] == deck
    assert status["set_aside"] == set_aside == set_aside_count(players)
    assert status["discard_pile"] == [] and status["blocked"] == []
    assert cards_in_play(status) == ALL_CARDS - set_aside
    assert [m["cards"] for m in status["modules"]] == [0] * 4


def test_the_box_holds_what_the_rulebook_lists() -> None:
    assert CARDS_IN_BOX == {"mechanics": 18, "electronics": 12, "energy": 10, "block": 4}
    assert ALL_CARDS == 44


def test_player_count_limits() -> None:
    for players in (MIN_PLAYERS - 1, MAX_PLAYERS + 1):
        with pytest.raises(IllegalAction) as excinfo:
            SecretOperation(players, seed=0, modules=BOARDS.robot(6))
        assert excinfo.value.reason == "player_count"


def test_first_player_by_lot_is_seeded() -> None:
    drawn = set()
    for seed in range(20):
        games = [SecretOperation(7, seed=seed, modules=BOARDS.robot(7)) for _ in range(2)]
        events = [game.apply(Action("first_player", None, "host_picks")) for game in games]
        assert events[0] == events[1] and events[0][0].facts["by_lot"]
        drawn.add(games[0].turn)
    assert len(drawn) > 1
    game = SecretOperation(7, seed=0, modules=BOARDS.robot(7))
    with pytest.raises(IllegalAction) as excinfo:
        game.apply(Action("first_player", None, "7"))
    assert excinfo.value.reason == "no_such_seat"


def test_dealt_hands_hold_no_block() -> None:
    """Blocks join the deck after the deal, so nobody can play one before drawing."""
    decision = new_game(6).pending()
    assert decision is not None
    assert not [o for o in decision.options if o.startswith("block:")]
    assert "discard:block" not in decision.options


# -- the boards data ------------------------------------------------------------------------------


@pytest.mark.parametrize("players", range(MIN_PLAYERS, MAX_PLAYERS + 1))
def test_every_count_has_a_valid_robot(players: int) -> None:
    for super_engineer in range(len(BOARDS.challenge) + 1):
        robot = BOARDS.robot(players, super_engineer)
        assert check_robot(robot) == robot
        game = SecretOperation(players, seed=0, modules=robot)
        assert [m["demand"] for m in game.status()["modules"]] == [list(d) for d in robot]


@pytest.mark.parametrize("players", range(MIN_PLAYERS, MAX_PLAYERS + 1))
def test_rulebook_boards_are_used_where_the_rulebook_prints_them(players: int) -> None:
    modules = BOARDS_DATA["robots"][players]
    for board, (counts, demand) in RULEBOOK_BOARDS.items():
        if players in counts:
            entry = next(m for m in modules if m["board"] == board)
            assert entry["source"] == "rulebook"
            assert tuple(entry["demand"]) == demand
    for entry in modules:
        printed = players in RULEBOOK_BOARDS.get(entry["board"], (set(), ()))[0]
        assert (entry["source"] == "rulebook") == printed, (players, entry)


def test_challenge_modules_demand_more() -> None:
    for players in range(MIN_PLAYERS, MAX_PLAYERS + 1):
        plain, hard = BOARDS.robot(players), BOARDS.robot(players, 4)
        assert all(len(h) > len(p) for h, p in zip(hard, plain, strict=True))
    assert BOARDS.robot(6, 1)[1:] == BOARDS.robot(6)[1:]
    with pytest.raises(BoardError):
        BOARDS.robot(6, 5)


def _broken(path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    data = copy.deepcopy(BOARDS_DATA)
    *parents, last = path
    target = data
    for key in parents:
        target = target[key]
    if value is None:
        del target[last]
    else:
        target[last] = value
    return data


@pytest.mark.parametrize(
    ("path", "value", "says"),
    [
        (("robots", 5, 0, "demand"), ["mechanics", "block"], "'block' is not one of"),
        (("robots", 5, 0, "demand"), [], "non-empty list"),
        (("robots", 5, 0, "demand"), "mechanics", "non-empty list"),
        (("robots", 5, 0, "source"), "guesswork", "source must be"),
        (("robots", 5, 0, "why"), " ", "say why"),
        (("robots", 5, 3), None, "a robot has 4 modules"),
        (("robots", 10), None, "exactly the counts"),
        (("robots", 7, 0, "demand"), ["energy"] * 9, "needs 11 energy"),
        (("challenge", 0, "demand"), ["mechanics", "energy"], "must demand more"),
        (("challenge",), [], "challenge"),
    ],
)
def test_broken_boards_data_is_refused(path: tuple[Any, ...], value: Any, says: str) -> None:
    with pytest.raises(BoardError, match=says):
        read_boards(_broken(path, value))


def test_the_engine_refuses_a_robot_it_cannot_build() -> None:
    with pytest.raises(BoardError):
        SecretOperation(6, seed=0, modules=BOARDS.robot(6)[:3])
    with pytest.raises(BoardError):
        SecretOperation(6, seed=0, modules=[["mechanics"], ["energy"], ["block"], ["energy"]])


# -- the real cards, which only the test sees -----------------------------------------------------


@dataclass
class Table:
    hands: list[list[str]]
    deck: list[str]
    set_aside: list[str]
    impostors: set[int]
    modules: list[list[str]] = field(default_factory=lambda: [[] for _ in range(4)])
    discard_pile: list[str] = field(default_factory=list)
    lab: list[str] = field(default_factory=list)
    blocked: set[int] = field(default_factory=set)

    @classmethod
    def deal(cls, players: int, rng: random.Random) -> Table:
        hands, deck = deal_box(players, rng)
        aside = set_aside_count(players)
        impostors = set(rng.sample(range(players), impostor_count(players)))
        return cls(hands, deck[aside:], deck[:aside], impostors)

    def agrees_with(self, status: dict[str, Any]) -> bool:
        return (status["deck"] == len(self.deck)
                and status["hands"] == [len(hand) for hand in self.hands]
                and [m["cards"] for m in status["modules"]] == [len(m) for m in self.modules]
                and Counter(status["discard_pile"]) == Counter(self.discard_pile)
                and status["blocked"] == sorted(self.blocked)
                and status["set_aside"] == len(self.set_aside)
                and Counter(status["face_up"]) == Counter(
                    self.discard_pile + self.lab + [BLOCK] * len(self.blocked)))

    def follow(self, events: list[Event]) -> None:
        """Move the real cards the way the engine's events say the table moved them."""
        for event in events:
            if event.kind == "card_drawn":
                self.hands[event.facts["player"]].append(self.deck.pop(0))
            elif event.kind == "turn_skipped" and event.facts["reason"] == "blocked":
                self.blocked.remove(event.facts["player"])
                self.discard_pile.append(BLOCK)
            elif event.kind in ("module_assembled", "module_failed"):
                index = event.facts["module"] - 1
                pile = self.lab if event.kind == "module_assembled" else self.discard_pile
                pile.extend(self.modules[index])
                self.modules[index] = []


def still_needed(game: SecretOperation, table: Table, index: int) -> Counter[str]:
    return Counter(game.modules[index].demand) - Counter(table.modules[index])


def moves_for(card: str, decision: Decision) -> list[str]:
    """Every true move with this card: add it anywhere open, discard it, or play it as a block."""
    moves = [o for o in decision.options if o.startswith("add:")] + [f"discard:{card}"]
    if card == BLOCK:
        moves += [o for o in decision.options if o.startswith("block:")]
    return moves


def choose_move(game: SecretOperation, table: Table, decision: Decision, rng: random.Random,
                skill: float, cunning: float) -> tuple[int, str]:
    """(index of the card in hand, choice): engineers build with `skill`, impostors sabotage
    with `cunning`, and otherwise anyone plays any true move."""
    seat = decision.decider
    assert seat is not None
    hand = table.hands[seat]
    impostor = seat in table.impostors
    if rng.random() < (cunning if impostor else skill):
        open_modules = [i for i, m in enumerate(game.modules) if not m.assembled]
        for slot, card in enumerate(hand):
            for index in open_modules:
                wanted = still_needed(game, table, index)[card] > 0
                spoils = not wanted and bool(table.modules[index])  # ruin work already placed
                if (wanted and not impostor) or (spoils and impostor):
                    return slot, f"add:{index + 1}"
    slot = rng.randrange(len(hand))
    return slot, rng.choice(moves_for(hand[slot], decision))


class RandomPlay:
    """A random game: real cards dealt in `table`, true moves told to `game`, checked each step."""

    def __init__(self, players: int, seed: int, skill: float, cunning: float) -> None:
        self.rng = random.Random(seed)
        self.skill, self.cunning = skill, cunning
        self.game = SecretOperation(players, seed=seed, modules=BOARDS.robot(players))
        self.table = Table.deal(players, self.rng)
        first = self.rng.choice(self.game.pending().options)
        self.actions = [Action("first_player", None, first)]
        self.events = self.game.apply(self.actions[0])

    def step(self) -> bool:
        """Play the pending decision truthfully; False once the game is over."""
        game, table = self.game, self.table
        decision = game.pending()
        if decision is None:
            return False
        assert decision.decider not in table.blocked, "a blocked player never acts"
        if decision.kind == "reveal":
            action = self.reveal(decision)
        else:
            assert table.hands[decision.decider], "a player with an empty hand never acts"
            action = self.turn(decision)
        new_events = game.apply(action)
        self.actions.append(action)
        table.follow(new_events)
        self.events += new_events
        status = game.status()
        assert table.agrees_with(status)
        assert cards_in_play(status) == ALL_CARDS - len(table.set_aside)
        return True

    def reveal(self, decision: Decision) -> Action:
        cards = self.table.modules[self.game.revealing]
        revealed = self.rng.sample(cards, len(cards))
        assert ",".join(sorted(revealed, key=CARD_TYPES.index)) in decision.options
        return Action("reveal", decision.decider, ", ".join(revealed))

    def turn(self, decision: Decision) -> Action:
        slot, choice = choose_move(self.game, self.table, decision, self.rng, self.skill,
                                   self.cunning)
        assert choice in decision.options, "the engine offers every true move"
        card = self.table.hands[decision.decider].pop(slot)
        verb, _, target = choice.partition(":")
        if verb == "add":
            self.table.modules[int(target) - 1].append(card)
        elif verb == "discard":
            self.table.discard_pile.append(card)
        else:
            self.table.blocked.add(int(target))
        return Action("turn", decision.decider, choice)


def play_random_game(players: int, seed: int, skill: float, cunning: float) -> RandomPlay:
    play = RandomPlay(players, seed, skill, cunning)
    for _ in range(MAX_STEPS):
        if not play.step():
            return play
    raise AssertionError("the game did not end")


def part_of_a_game(players: int, seed: int, skill: float, steps: int) -> SecretOperation:
    play = RandomPlay(players, seed, skill, cunning=skill)
    for _ in range(steps):
        if not play.step():
            break
    return play.game


# -- thousands of random games -------------------------------------------------------------------


Test = Callable[..., Any]  # a test function, as Hypothesis decorates it


def random_games(examples: int, *more: st.SearchStrategy[Any]) -> Callable[[Test], Test]:
    """Hypothesis over `examples` random games: players, seed and skill (0 to 1), then `more`."""
    return lambda test: settings(max_examples=examples, deadline=None)(given(
        st.integers(MIN_PLAYERS, MAX_PLAYERS), st.integers(0, 2**32), st.floats(0, 1), *more)(test))


@random_games(2000, st.floats(0, 1))
def test_random_games_end_as_the_rulebook_says(players: int, seed: int, skill: float,
                                               cunning: float) -> None:
    play = play_random_game(players, seed, skill, cunning)
    game, table, events = play.game, play.table, play.events
    status = game.status()
    over = events[-1]
    assert over.kind == "game_over" and [e.kind for e in events].count("game_over") == 1
    assert over.facts["winner"] == status["winner"] == game.winner
    assert (game.winner == "engineers") == (status["assembled"] == 4)
    if game.winner == "impostors":
        assert status["deck"] == 0 and sum(status["hands"]) == 0
    assert Counter(table.lab) == Counter(c for m in game.modules if m.assembled for c in m.demand)
    assert game.winners() == [] and game.scores == [0] * players


@pytest.mark.parametrize("players", range(MIN_PLAYERS, MAX_PLAYERS + 1))
def test_good_engineers_win_and_cunning_impostors_win(players: int) -> None:
    """The random games reach both endings, so both are checked above."""
    builders = Counter(play_random_game(players, seed, 1.0, 0.0).game.winner for seed in range(20))
    saboteurs = Counter(play_random_game(players, seed, 0.2, 1.0).game.winner
                        for seed in range(20))
    assert builders["engineers"] > builders["impostors"]
    assert saboteurs["impostors"] > saboteurs["engineers"]


def test_skipped_turns_have_their_reasons() -> None:
    reasons: Counter[str] = Counter()
    for seed in range(200):
        events = play_random_game(4 + seed % 7, seed, 0.3, 0.3).events
        reasons.update(e.facts["reason"] for e in events if e.kind == "turn_skipped")
    assert reasons["blocked"] > 0 and reasons["empty_hand"] > 0


@random_games(200)
def test_replaying_the_actions_rebuilds_the_game(players: int, seed: int, skill: float) -> None:
    """The journal stores actions only: replaying them must give the same events and state."""
    play = play_random_game(players, seed, skill, skill)
    replayed = SecretOperation(players, seed=seed, modules=BOARDS.robot(players))
    events = [event for action in play.actions for event in replayed.apply(action)]
    assert events == play.events
    assert replayed.status() == play.game.status()


def illegal_actions(game: SecretOperation) -> list[tuple[Action, str]]:
    """Actions that break a rule here, and the reason the engine must give."""
    decision = game.pending()
    if decision is None:
        return [(Action("turn", 0, "add:1"), "game_over"),
                (Action("reveal", 0, "energy"), "game_over")]
    seat = decision.decider
    empty = [s for s in range(game.players) if game.hands[s] == 0]
    others = [s for s in range(game.players) if s != seat and s not in empty]
    if decision.kind == "reveal":
        demand = len(game.modules[game.revealing].demand)
        cards = [(Action("reveal", seat, "energy," * demand + "energy"), "wrong_count"),
                 (Action("reveal", seat, "gears" + ",energy" * (demand - 1)), "unknown_card"),
                 (Action("turn", seat, "add:1"),
                  "not_your_turn" if game.hands[seat] else "empty_hand")]
        spent = [c for c in CARD_TYPES if game.face_down()[c] < demand]
        return cards + [(Action("reveal", seat, ",".join([c] * demand)),
                         "more_than_the_game_has") for c in spent]
    cards = [
        (Action("turn", seat, "add:5"), "no_such_module"),
        (Action("turn", seat, "add:0"), "no_such_module"),
        (Action("turn", seat, f"block:{seat}"), "block_yourself"),
        (Action("turn", seat, f"block:{game.players}"), "no_such_seat"),
        (Action("turn", seat, "discard:gears"), "unknown_card"),
        (Action("turn", seat, "dance"), "bad_turn"),
        (Action("reveal", seat, "energy,energy,energy"), "not_your_turn"),
    ]
    cards += [(Action("turn", seat, f"add:{n}"), "module_assembled")
              for n, module in enumerate(game.modules, 1) if module.assembled]
    cards += [(Action("turn", seat, f"block:{target}"), "already_blocked")
              for target in game.blocked if target != seat]
    cards += [(Action("turn", s, "discard:mechanics"), "empty_hand") for s in empty]
    cards += [(Action("turn", s, "add:1"), "not_your_turn") for s in others]
    face_down = game.face_down()
    cards += [(Action("turn", seat, f"discard:{c}"), "none_left")
              for c in COMPONENTS if not face_down[c]]
    if not face_down[BLOCK] or not game.drawn[seat]:
        reason = "no_blocks_left" if not face_down[BLOCK] else "no_block_in_hand"
        free = [s for s in range(game.players) if s != seat and s not in game.blocked]
        cards += [(Action("turn", seat, "discard:block"), reason)]
        cards += [(Action("turn", seat, f"block:{s}"), reason) for s in free]
    return cards


@random_games(300, st.integers(1, 50))
def test_illegal_moves_change_nothing(players: int, seed: int, skill: float, steps: int) -> None:
    game = part_of_a_game(players, seed, skill, steps)
    for action, reason in illegal_actions(game):
        before = snapshot(game)
        with pytest.raises(IllegalAction) as excinfo:
            game.apply(action)
        assert excinfo.value.reason == reason, action
        assert snapshot(game) == before


@random_games(300, st.integers(1, 50))
def test_options_are_exactly_the_legal_choices(players: int, seed: int, skill: float,
                                               steps: int) -> None:
    game = part_of_a_game(players, seed, skill, steps)
    decision = game.pending()
    if decision is None:
        return
    if decision.kind == "turn":
        candidates = [f"add:{n}" for n in range(0, 6)] + [f"discard:{c}" for c in CARD_TYPES]
        candidates += [f"block:{s}" for s in range(-1, game.players + 1)]
        listed = set(candidates) & set(decision.options)
    else:
        size = len(game.modules[game.revealing].demand)
        candidates = [",".join(cards) for n in (size - 1, size)
                      for cards in product(CARD_TYPES, repeat=n)]
        listed = {c for c in candidates if ",".join(in_card_order(c.split(","))) in
                  decision.options}
    assert set(decision.options) <= set(candidates)
    for choice in candidates:
        trial = copy.deepcopy(game)
        try:
            trial.apply(Action(decision.kind, decision.decider, choice))
            legal = True
        except IllegalAction:
            legal = False
        assert legal == (choice in listed), choice


# -- scripted games at 6 players ------------------------------------------------------------------
# Robot for 6: module 1 = mechanics, electronics, energy; 2 = the same;
# 3 = mechanics, mechanics, energy; 4 = mechanics, electronics, electronics.


def play(game: SecretOperation, script: list[tuple[str, int, str]]) -> list[Event]:
    events: list[Event] = []
    for kind, seat, choice in script:
        decision = game.pending()
        assert decision is not None and (decision.kind, decision.decider) == (kind, seat)
        events += game.apply(Action(kind, seat, choice))
    return events


def kinds(events: list[Event]) -> list[str]:
    return [event.kind for event in events]


def test_scripted_engineers_win() -> None:
    game = new_game(6)
    events = play(game, [
        ("turn", 0, "add:1"), ("turn", 1, "add:1"), ("turn", 2, "add:1"),
        ("reveal", 2, "energy, mechanics, electronics"),
        ("turn", 3, "add:2"), ("turn", 4, "add:2"), ("turn", 5, "add:2"),
        ("reveal", 5, "mechanics,block,energy"),  # an impostor slipped a block in face down
    ])
    assert kinds(events)[:6] == ["card_added", "card_drawn"] * 2 + ["card_added", "module_full"]
    assert kinds(events)[6:8] == ["module_assembled", "card_drawn"]  # reveal first, then draw
    failed = next(e for e in events if e.kind == "module_failed")
    assert failed.facts == {"module": 2, "cards": ["mechanics", "energy", "block"],
                            "demand": ["mechanics", "electronics", "energy"]}
    assert game.status()["discard_pile"] == ["mechanics", "energy", "block"]
    assert "add:1" not in game.pending().options  # module 1 is in the lab

    events = play(game, [
        ("turn", 0, "block:4"),
        ("turn", 1, "add:2"), ("turn", 2, "add:2"), ("turn", 3, "add:2"),
        ("reveal", 3, "mechanics,electronics,energy"),
    ])
    skipped = next(e for e in events if e.kind == "turn_skipped")
    assert skipped.facts == {"player": 4, "reason": "blocked"}
    assert kinds(events)[-3:] == ["module_assembled", "card_drawn", "turn_skipped"]
    assert game.pending().decider == 5 and game.status()["blocked"] == []

    events = play(game, [
        ("turn", 5, "add:3"), ("turn", 0, "add:3"), ("turn", 1, "add:3"),
        ("reveal", 1, "mechanics,energy,mechanics"),
        ("turn", 2, "add:4"), ("turn", 3, "add:4"), ("turn", 4, "add:4"),
        ("reveal", 4, "electronics,mechanics,electronics"),
    ])
    assert events[-1] == GameOver("engineers", 4)
    status = game.status()
    assert status["winner"] == "engineers" and game.pending() is None
    assert status["deck"] == 26 - 15  # 16 turns acted, the winning one draws no card
    assert status["hands"] == [3, 3, 3, 3, 2, 3]
    assert cards_in_play(status) == ALL_CARDS
    with pytest.raises(IllegalAction) as excinfo:
        game.apply(Action("turn", 5, "add:1"))
    assert excinfo.value.reason == "game_over"


def claim_a_discard(game: SecretOperation) -> str:
    """A discard the face-up cards cannot disprove: the first type still face down."""
    face_down = game.face_down()
    return next(f"discard:{c}" for c in COMPONENTS if face_down[c]) if any(
        face_down[c] for c in COMPONENTS) else "discard:block"


def test_scripted_impostors_win() -> None:
    game = new_game(6)
    events = play(game, [
        ("turn", 0, "add:3"), ("turn", 1, "add:3"), ("turn", 2, "add:3"),
        ("reveal", 2, "mechanics,electronics,energy"),  # module 3 wants two mechanics
    ])
    assert kinds(events)[-2:] == ["module_failed", "card_drawn"]
    assert game.status()["modules"][2]["cards"] == 0
    while game.deck:
        decision = game.pending()
        events += game.apply(Action("turn", decision.decider, claim_a_discard(game)))
    assert game.hands == [3] * 6

    blocker = game.turn
    target = (blocker + 1) % 6
    events = game.apply(Action("turn", blocker, f"block:{target}"))
    assert kinds(events) == ["block_played", "turn_skipped"]  # the deck is empty: no draw
    while (decision := game.pending()) is not None:
        events += game.apply(Action("turn", decision.decider, claim_a_discard(game)))
    empty = [e.facts["player"] for e in events if e.kind == "turn_skipped"
             and e.facts["reason"] == "empty_hand"]
    assert empty and target not in empty  # the blocked player holds the last card
    assert events[-2] == CardDiscarded(target, events[-2].facts["card"])
    assert events[-1] == GameOver("impostors", 0)
    status = game.status()
    assert status["deck"] == 0 and status["hands"] == [0] * 6
    assert len(status["discard_pile"]) == ALL_CARDS
    assert status["face_up"] == CARDS_IN_BOX
    assert cards_in_play(status) == ALL_CARDS


def test_a_blocked_player_keeps_the_block_until_their_turn() -> None:
    game = new_game(5)
    play(game, [("turn", 0, "discard:mechanics"), ("turn", 1, "discard:energy"),
                ("turn", 2, "discard:electronics"), ("turn", 3, "add:1"),
                ("turn", 4, "add:1")])
    play(game, [("turn", 0, "block:2")])
    assert game.status()["blocked"] == [2]
    assert "block:2" not in game.pending().options  # blocks do not stack
    with pytest.raises(IllegalAction) as excinfo:
        game.apply(Action("turn", 1, "block:2"))
    assert excinfo.value.reason == "already_blocked"
    events = play(game, [("turn", 1, "discard:energy")])
    assert kinds(events) == ["card_discarded", "card_drawn", "turn_skipped"]
    assert game.pending().decider == 3
    assert game.hands[2] == 3 and game.deck == 29 - 7  # the skipped player drew nothing
    assert game.status()["face_up"]["block"] == 1


def test_a_reveal_must_read_out_every_card_of_the_module() -> None:
    game = new_game(6)
    play(game, [("turn", 0, "add:4"), ("turn", 1, "add:4"), ("turn", 2, "add:4")])
    decision = game.pending()
    assert decision.kind == "reveal" and decision.scoring
    assert "mechanics,electronics,electronics" in decision.options
    assert "electronics,mechanics,electronics" not in decision.options  # one order per read-out
    for choice, reason in [("mechanics,electronics", "wrong_count"),
                           ("mechanics,electronics,electronics,energy", "wrong_count"),
                           ("mechanics,wires,energy", "unknown_card")]:
        with pytest.raises(IllegalAction) as excinfo:
            game.apply(Action("reveal", 2, choice))
        assert excinfo.value.reason == reason
    events = game.apply(Action("reveal", 2, "electronics , electronics,mechanics"))
    assert events[0].kind == "module_assembled"
    assert events[0].facts["cards"] == ["mechanics", "electronics", "electronics"]
