"""A scripted Secret Operation table: real cards dealt from a seed, a plan for every decision.

The script plays the whole game in advance against its own copy of the rules engine, holding
the real cards (which the host never sees): who holds what, what lies on each module, what a
reveal turns over. Each decision it meets is keyed by what the host's `listen` event tells:
the decision's kind and the cards still in the deck and hands (every move spends exactly one,
so the key names one moment of the game, also after a kill, a resume or an undo). The reply
to a `listen` is looked up by that key, and so is the state the host should be in then.

Plans: "engineers" builds fast (add a needed card, else discard one) and wins; "impostors"
spoils a module at the start and once the deck is empty, plays every block it draws, and
otherwise discards, until deck and hands are empty.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from voicehost.games.base import Action, Decision
from voicehost.games.secret_operation import (
    BLOCK,
    CARD_TYPES,
    CARDS_IN_BOX,
    COMPONENTS,
    HAND_SIZE,
    SecretOperation,
    set_aside_count,
)
from voicehost.host.secret_operation import SecretOperationTable
from voicehost.host.table import Seats

NUMBERS = ["one", "two", "three", "four", "five", "six"]
CARD_PHRASES = {"mechanics": ["mechanics", "mechanic"], "electronics": ["electronics"],
                "energy": ["energy"], "block": ["block", "block card"]}


@dataclass
class Move:
    decider: int | None
    choice: str
    phrases: list[str]  # ways to say it, the plainest first
    context: dict[str, Any]  # what the host's listen event should carry here
    face_down: dict[str, int] = field(default_factory=dict)


def deal_box(players: int, rng: random.Random) -> tuple[list[list[str]], list[str]]:
    """The real cards, dealt as the rulebook says: every hand, and the shuffled deck with the
    cards to set aside still on top."""
    components = [c for c in COMPONENTS for _ in range(CARDS_IN_BOX[c])]
    rng.shuffle(components)
    hands = [components[HAND_SIZE * s:HAND_SIZE * (s + 1)] for s in range(players)]
    deck = components[HAND_SIZE * players:] + [BLOCK] * CARDS_IN_BOX[BLOCK]
    rng.shuffle(deck)
    return hands, deck


@dataclass
class Cards:
    hands: list[list[str]]
    deck: list[str]
    modules: list[list[str]] = field(default_factory=lambda: [[] for _ in range(4)])

    @classmethod
    def deal(cls, players: int, rng: random.Random) -> Cards:
        hands, deck = deal_box(players, rng)
        return cls(hands, deck[set_aside_count(players):])


def cards_left(context: dict[str, Any]) -> int:
    return context["deck"] + sum(context["hands"])


class OperationScript:
    def __init__(self, players: int, seed: int, plan: str, first: int = 0,
                 settings: dict[str, str] | None = None) -> None:
        self.rng = random.Random(seed)
        self.seats = Seats.default(players)
        self.names = list(self.seats.names)
        self.table = SecretOperationTable.from_options(self.seats, seed, settings or {})
        self.cards = Cards.deal(players, self.rng)
        self.plan = plan
        self.moves: dict[tuple[str, int], Move] = {}
        self.actions: list[Action] = []
        self._play(first)
        self.final = self.table.game.status()

    @property
    def game(self) -> SecretOperation:
        return self.table.game

    # -- playing the game in advance --------------------------------------------------------

    def _play(self, first: int) -> None:
        while (decision := self.game.pending()) is not None:
            key = (decision.kind, self.game.deck + sum(self.game.hands))
            assert key not in self.moves, f"two decisions share the key {key}"
            context = self.table.questions.context(decision)
            face_down = self.game.face_down()
            if decision.kind == "first_player":
                choice, phrases = str(first), [self.names[first], f"{self.names[first]} goes first"]
            elif decision.kind == "reveal":
                choice, phrases = self._reveal(decision)
            else:
                choice, phrases = self._turn(decision)
            self.moves[key] = Move(decision.decider, choice, phrases, context, face_down)
            action = Action(decision.kind, decision.decider, choice)
            self.actions.append(action)
            self._follow(self.game.apply(action))

    def _reveal(self, decision: Decision) -> tuple[str, list[str]]:
        index = self.game.revealing
        assert index is not None
        shown = self.rng.sample(self.cards.modules[index], len(self.cards.modules[index]))
        choice = ",".join(sorted(shown, key=CARD_TYPES.index))
        assert choice in decision.options
        counts = Counter(shown)
        plural = {BLOCK: "blocks"}
        counted = " and ".join(
            f"{NUMBERS[counts[c] - 1]} {plural.get(c, c) if counts[c] > 1 else c}"
            for c in CARD_TYPES if counts[c])
        return choice, [" ".join(shown), " ".join([*shown[:-1], "and", shown[-1]]), counted]

    def _turn(self, decision: Decision) -> tuple[str, list[str]]:
        seat = decision.decider
        assert seat is not None
        hand = self.cards.hands[seat]
        slot, choice = self._choose(seat, hand, decision)
        card = hand.pop(slot)
        verb, _, target = choice.partition(":")
        if verb == "add":
            self.cards.modules[int(target) - 1].append(card)
            word = NUMBERS[int(target) - 1]
            return choice, [f"add to module {word}", f"add {word}",
                            f"i add a card to module {word}", f"module {word}"]
        if verb == "discard":
            return choice, [f"discard {p}" for p in CARD_PHRASES[target]] + [f"i discard {target}"]
        name = self.names[int(target)]
        return choice, [f"block {name}", f"i block {name}"]

    def _choose(self, seat: int, hand: list[str], decision: Decision) -> tuple[int, str]:
        open_modules = [i for i, m in enumerate(self.game.modules) if not m.assembled]
        if self.plan == "engineers":
            for index in sorted(open_modules, key=lambda i: -len(self.cards.modules[i])):
                needed = (Counter(self.game.modules[index].demand)
                          - Counter(self.cards.modules[index]))
                for slot, card in enumerate(hand):
                    if needed[card]:
                        return slot, f"add:{index + 1}"
            slot = max(range(len(hand)), key=lambda s: hand.count(hand[s]))
            return slot, f"discard:{hand[slot]}"
        spoil = (len(self.actions) <= 3 and 0 in open_modules) or (
            self.game.deck == 0 and sum(self.game.hands) > 12 and 1 in open_modules)
        if spoil:
            return 0, f"add:{1 if self.game.deck else 2}"
        blocks = [o for o in decision.options if o.startswith("block:")]
        if BLOCK in hand and blocks:
            return hand.index(BLOCK), blocks[0]
        return 0, f"discard:{hand[0]}"

    def _follow(self, events: list[Any]) -> None:
        for event in events:
            if event.kind == "card_drawn":
                self.cards.hands[event.facts["player"]].append(self.cards.deck.pop(0))
            elif event.kind in ("module_assembled", "module_failed"):
                self.cards.modules[event.facts["module"] - 1] = []

    # -- answering the host -----------------------------------------------------------------

    def move_for(self, listen: dict[str, Any]) -> Move:
        return self.moves[(listen["decision"], cards_left(listen))]

    def expects(self, listen: dict[str, Any]) -> bool:
        """Is the host where the plan says it should be at this decision?"""
        if listen["decision"] in ("confirm", "roll_call"):
            return True
        move = self.moves.get((listen["decision"], cards_left(listen)))
        if move is None or move.decider != listen["player"]:
            return False
        return all(listen.get(k) == v for k, v in move.context.items())

    def reply(self, listen: dict[str, Any], tries: int = 0) -> str:
        if listen["decision"] == "confirm":
            return "yes"
        if listen["decision"] == "roll_call":
            return "i'm in"
        phrases = self.move_for(listen).phrases
        return phrases[tries % len(phrases)]

    def varied(self, listen: dict[str, Any]) -> str:
        """A randomly chosen way to say the planned move (text mode)."""
        if listen["decision"] == "confirm":
            return self.rng.choice(["yes", "yeah", "correct", "right"])
        if listen["decision"] == "roll_call":
            return "i'm in"
        return self.rng.choice(self.move_for(listen).phrases)
