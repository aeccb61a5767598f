"""Secret Squad, the rules alone (docs/rules-secret-squad.md).

Theory of operation. A game is 3 rounds; each round has five phases, and `pending()` names the
decision the phase waits for:

    deal      the table deals the squad cards          → Decision("deal", None, ("ready",))
    question  each player answers the card, YUP/NOPE   → Decision("answer", seat, ("yup","nope"))
              (3 cards a round, every player answers each card, in seat order)
    ready     fingers in the air, ready to point       → Decision("ready", None, ("ready",))
    point     each player says whom they pointed at    → Decision("point", seat, other seats)
    reveal    each player shows their squad card       → Decision("squad", seat, ("yellow","red"))

Two rules keep it honest:
1. A choice outside the pending decision's options raises IllegalAction and changes nothing.
2. The engine never learns a squad before the reveal: squads sit on the players' cards.
   Printed cards (voicehost/cards) are the one exception: the squads are printed from the
   seed, so the engine is given them (`dealt`, round by round) and scores the reveal itself,
   with no squad decision; the table keeps them unsaid until then.

Seats are 0-based numbers; a choice naming a seat is its number as a string ("0", "1", ...).
Points are counted, not drawn: a short question deck never limits a score.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from voicehost.games.base import (
    Action,
    Aside,
    Decision,
    Event,
    IllegalAction,
    Phase,
    PhasedGame,
    setting,
)

SQUADS = ("yellow", "red")
ANSWERS = ("yup", "nope")
NAME = "secret-squad"  # on the command line, in journals and deck numbers
TITLE = "Secret Squad"  # said aloud and printed
DECK_CODE = 1  # the first digit of its printed decks' numbers
MIN_PLAYERS, MAX_PLAYERS = 3, 10

PICK_POINTS = 3
PICKED_BONUS = 1
LONE_SQUAD_POINTS = 4


@dataclass(frozen=True)
class Settings:
    rounds: int = setting(3, 1, 20)
    cards_per_round: int = setting(3, 1, 10)
    first_box: int = setting(1, 1, 8)  # printed cards: the box read in round 1 (the table's,
    # not the rules')


# -- what can happen: the events `apply` returns ---------------------------------------------

class RoundStarted(Event, kind="round_started"):
    round: int


class CardDrawn(Event, kind="card_drawn"):
    """The round's `index`-th card (1-based), deck card number `card`, is read."""

    round: int
    index: int
    card: int


class Answered(Event, kind="answered"):
    player: int
    answer: str


class CardDone(Event, kind="card_done"):
    """Everyone answered the card: the seats that said YUP and NOPE."""

    index: int
    card: int
    yup: list[int]
    nope: list[int]


class CardSkipped(Event, kind="card_skipped"):
    card: int


class PointNow(Event, kind="point_now"):
    """Everyone is ready: the pointing begins."""


class RevealNow(Event, kind="reveal_now"):
    round: int


class RoundScored(Event, kind="round_scored"):
    """`awards`: each seat's pick and bonus points; `pointed_at`: -1 for nobody."""

    round: int
    awards: list[dict[str, Any]]
    squads: list[str]
    pointed_at: list[int]
    scores: list[int]


class GameOver(Event, kind="game_over"):
    scores: list[int]
    winners: list[int]


EVENTS = (RoundStarted, CardDrawn, Answered, CardDone, CardSkipped, PointNow, RevealNow,
          RoundScored, GameOver)


def squad_cards(players: int) -> int:
    """Cards of each colour in play: half the players, rounded up."""
    return (players + 1) // 2


def deal_squads(players: int, rng: random.Random) -> tuple[list[str], str | None]:
    """Shuffle the squad cards in play and deal one each; at odd counts one is set aside."""
    cards = [squad for squad in SQUADS for _ in range(squad_cards(players))]
    rng.shuffle(cards)
    set_aside = cards.pop() if players % 2 else None
    return cards, set_aside


def check_dealt(dealt: Sequence[Sequence[str]], players: int, rounds: int) -> None:
    """Squads given round by round (printed cards) must be a deal the rules allow."""
    if len(dealt) < rounds:
        raise IllegalAction("too_few_deals", rounds=rounds, got=len(dealt))
    for squads in dealt:
        counts = [list(squads).count(squad) for squad in SQUADS]
        if len(squads) != players or sum(counts) != players or max(counts) > squad_cards(
                players):
            raise IllegalAction("not_a_deal", squads=list(squads))


def award_round(pointed_at: list[int], squads: list[str]) -> list[dict[str, int]]:
    """Each player's award for one round: `pick` for their own point, `bonus` for being found."""
    players = len(squads)
    awards = [{"pick": 0, "bonus": 0} for _ in range(players)]
    for seat, target in enumerate(pointed_at):
        if target == seat:
            alone = squads.count(squads[seat]) == 1
            awards[seat]["pick"] = LONE_SQUAD_POINTS if alone else 0
        elif squads[target] == squads[seat]:
            awards[seat]["pick"] = PICK_POINTS
            awards[target]["bonus"] = PICKED_BONUS  # once, however many found you
    return awards


@dataclass
class Card:
    """A question card on the table this round, and the answers placed on it."""

    number: int  # index into the deck of question cards
    answers: dict[int, str]


class SecretSquad(PhasedGame):
    def __init__(
        self, players: int, seed: int, deck_size: int, settings: Settings | None = None,
        dealt: Sequence[Sequence[str]] | None = None, recent: Sequence[int] = (),
    ) -> None:
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise IllegalAction("player_count", low=MIN_PLAYERS, high=MAX_PLAYERS, got=players)
        self.settings = settings or Settings()
        if deck_size < self.settings.cards_per_round:
            raise IllegalAction("deck_too_small", needed=self.settings.cards_per_round)
        self.players = players
        self.rng = random.Random(seed)
        self.deck = list(range(deck_size))
        self.rng.shuffle(self.deck)
        # the cards the table heard in its last games go to the bottom, in shuffled order
        heard = set(recent)
        self.deck = ([card for card in self.deck if card not in heard]
                     + [card for card in self.deck if card in heard])
        self.scores = [0] * players
        self.round = 1
        self.phase = "deal"
        self.cards: list[Card] = []
        self.pointed_at: list[int | None] = [None] * players
        self.squads: list[str | None] = [None] * players
        self.history: list[list[dict[str, int]]] = []
        self.dealt = None if dealt is None else [list(squads) for squads in dealt]
        if self.dealt is not None:
            check_dealt(self.dealt, players, self.settings.rounds)

    # -- the host's question ------------------------------------------------------------

    def _ask_answer(self) -> Decision:
        return Decision("answer", self._next_seat(self.cards[-1].answers), ANSWERS)

    def _ask_point(self) -> Decision:
        seat = self._next_seat(dict(enumerate(self.pointed_at)))
        return Decision("point", seat, self.point_options(seat), scoring=True)

    def _ask_squad(self) -> Decision:
        return Decision("squad", self._next_seat(dict(enumerate(self.squads))), SQUADS,
                        scoring=True)

    def point_options(self, seat: int) -> tuple[str, ...]:
        """Whom a player may point at: anyone else, and themself only in a 3-player game."""
        return tuple(
            str(other) for other in range(self.players) if other != seat or self.players == 3
        )

    def _next_seat(self, taken: dict[int, object]) -> int:
        return next(seat for seat in range(self.players) if taken.get(seat) is None)

    # -- moves ----------------------------------------------------------------------------

    def _on_deal(self, action: Action) -> list[Event]:
        self.phase = "question"
        return [RoundStarted(self.round), self._draw()]

    def _on_answer(self, action: Action) -> list[Event]:
        card = self.cards[-1]
        card.answers[action.player] = action.choice
        events = [Answered(action.player, action.choice)]
        if len(card.answers) < self.players:
            return events
        events.append(self.tally(len(self.cards) - 1))
        if len(self.cards) < self.settings.cards_per_round:
            events.append(self._draw())
        else:
            self.phase = "ready"
        return events

    def _on_ready(self, action: Action) -> list[Event]:
        self.phase = "point"
        return [PointNow()]

    def _on_point(self, action: Action) -> list[Event]:
        self.pointed_at[action.player] = int(action.choice)
        if None not in self.pointed_at:
            self.phase = "reveal"
            if self.dealt is not None:
                self.squads = list(self.dealt[self.round - 1])
                return [RevealNow(self.round), *self._score_round()]
            return [RevealNow(self.round)]
        return []

    def _squad_rule(self, action: Action) -> None:
        in_play = squad_cards(self.players)
        if self.squads.count(action.choice) >= in_play:
            raise IllegalAction("too_many_in_squad", squad=action.choice, cards=in_play,
                                claimed=[s for s, sq in enumerate(self.squads)
                                         if sq == action.choice])

    def _on_squad(self, action: Action) -> list[Event]:
        self.squads[action.player] = action.choice
        if None in self.squads:
            return []
        return self._score_round()

    def _skip_rule(self) -> None:
        if self.phase != "question":
            raise IllegalAction("no_card_to_skip")

    def _skip_card(self) -> list[Event]:
        skipped = self.cards.pop()
        self.deck.append(skipped.number)
        return [CardSkipped(skipped.number), self._draw()]

    PHASES = {
        "deal": Phase(lambda game: Decision("deal", None, ("ready",)), _on_deal),
        "question": Phase(_ask_answer, _on_answer),
        "ready": Phase(lambda game: Decision("ready", None, ("ready",)), _on_ready),
        "point": Phase(_ask_point, _on_point),
        "reveal": Phase(_ask_squad, _on_squad, _squad_rule),
    }
    ASIDES = {"skip_card": Aside(_skip_card, _skip_rule)}

    # -- round bookkeeping ----------------------------------------------------------------

    def _draw(self) -> Event:
        card = Card(self.deck.pop(0), {})
        self.cards.append(card)
        return CardDrawn(self.round, len(self.cards), card.number)

    def _score_round(self) -> list[Event]:
        squads = [squad or "" for squad in self.squads]
        pointed_at = [target if target is not None else -1 for target in self.pointed_at]
        awards = award_round(pointed_at, squads)
        for seat, award in enumerate(awards):
            self.scores[seat] += award["pick"] + award["bonus"]
        self.history.append(awards)
        events = [RoundScored(self.round, awards, squads, pointed_at, list(self.scores))]
        self.deck.extend(card.number for card in self.cards)  # used cards to the bottom
        self.cards = []
        self.pointed_at = [None] * self.players
        self.squads = [None] * self.players
        if self.round == self.settings.rounds:
            self.phase = "over"
            events.append(GameOver(list(self.scores), self.winners()))
        else:
            self.round += 1
            self.phase = "deal"
        return events

    # -- what the table can ask ---------------------------------------------------------

    def tally(self, index: int) -> CardDone:
        """Who said YUP and who said NOPE on this round's card `index` (0-based)."""
        card = self.cards[index]
        return CardDone(
            index + 1, card.number,
            [seat for seat, answer in sorted(card.answers.items()) if answer == "yup"],
            [seat for seat, answer in sorted(card.answers.items()) if answer == "nope"])

    def winners(self) -> list[int]:
        best = max(self.scores)
        return [seat for seat, score in enumerate(self.scores) if score == best]
