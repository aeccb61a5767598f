"""Playing with printed cards: the deck number as a game decision (host/deck_number.py hears it).

`PrintedCards` wraps a game's rules engine. Until the deck number is known it has one decision
of its own, "deck_number": the table reads the number off a card's back, three digits at a
time. Every group heard is a journaled action like any other, so replay, undo and resume work
unchanged; a number that fails its check is an action too (it starts the reading over), so the
journal replays the same way. Once the number is known, `build(deck)` makes the real engine,
already holding the secrets the cards show, and every attribute is the engine's.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable
from dataclasses import field
from typing import Any

from voicehost.games.base import Action, Decision, Event, Game, IllegalAction
from voicehost.games.deck import DIGITS, Deck, DeckNumberError, letters

ASK = "ask"  # printed cards whose deck number the host asks for at the table
DECK_DECISION = "deck_number"
# The deck decision's one option stands for any digits read out: `DeckNumberGrammar` hears them
# and `apply` checks them. (A decision with no options would be free speech to the host.)
DECK_OPTIONS = ("digits",)


# -- what reading the number can give ---------------------------------------------------------

class DeckDigits(Event, kind="deck_digits"):
    """A group of digits was `said`; `heard` is the number so far."""

    heard: str
    said: str


class DeckRefused(Event, kind="deck_refused"):
    """The `number` failed its check: `reason` names the check, `details` say how."""

    number: str
    reason: str
    details: dict[str, Any] = field(default_factory=dict)


class DeckRead(Event, kind="deck_read"):
    deck: str


EVENTS = (DeckDigits, DeckRefused, DeckRead)


def known_deck(cards: str) -> Deck | None:
    """The deck `--cards` names, or None when the host is to ask for its number."""
    return None if cards == ASK else Deck.read(cards)


def check_deck(cards: str, game: str, players: int, lines: Callable[..., str]) -> None:
    """ValueError (a sentence for the table) when these cards cannot host this game."""
    if cards == ASK:
        return
    try:
        deck = Deck.read(cards)
    except DeckNumberError as wrong:
        raise ValueError(f"{cards} is not a deck number: "
                         f"{lines(wrong.reason, **wrong.facts)}") from None
    if deck.game != game or deck.players != players:
        raise ValueError(f"deck {deck.printed} is for {deck.game} with {deck.players} "
                         f"players, not {game} with {players}")


def dealt_letters(seed: int, players: int) -> tuple[str, ...]:
    """The card each seat takes, seat by seat: shuffled by the game's seed."""
    dealt = list(letters(players))
    random.Random(f"{seed}/cards").shuffle(dealt)
    return tuple(dealt)


class PrintedCards:
    def __init__(self, game: str, players: int, deck: Deck | None,
                 build: Callable[[Deck], Game], any_count: bool = False) -> None:
        self.game_name = game
        self.players = players
        self.any_count = any_count  # the deck tells how many play: `players` is provisional
        self.build = build
        self.deck: Deck | None = None
        self.inner: Game | None = None
        self.heard = ""  # the digits of the deck number read out so far
        if deck is not None:
            wrong = self.refusal(deck)
            if wrong is not None:
                raise IllegalAction(wrong[0], **wrong[1])
            self._take(deck)

    def refusal(self, deck: Deck) -> tuple[str, dict[str, Any]] | None:
        """Why these cards cannot be played at this table, or None when they can."""
        if deck.game != self.game_name:
            return "deck_wrong_game", {"game": deck.game}
        if deck.players != self.players and not self.any_count:
            return "deck_wrong_players", {"players": deck.players, "seats": self.players}
        return None

    def _take(self, deck: Deck) -> None:
        self.inner = self.build(deck)
        self.deck = deck

    @property
    def scores(self) -> list[int]:
        return self.inner.scores if self.inner is not None else [0] * self.players

    def winners(self) -> list[int]:
        return self.inner.winners() if self.inner is not None else []

    def pending(self) -> Decision | None:
        if self.inner is None:
            return Decision(DECK_DECISION, None, DECK_OPTIONS)
        return self.inner.pending()

    def check(self, action: Action) -> None:
        if self.inner is not None:
            self.inner.check(action)
        elif action.kind != DECK_DECISION:
            raise IllegalAction("not_your_turn", expected=DECK_DECISION, player=None)
        elif not action.choice.isdigit():
            raise IllegalAction("deck_length", digits=DIGITS)

    def apply(self, action: Action) -> list[Event]:
        if self.inner is not None:
            return self.inner.apply(action)
        self.check(action)
        digits = self.heard + action.choice
        if len(digits) < DIGITS:
            self.heard = digits
            return [DeckDigits(digits, action.choice)]
        self.heard = ""
        try:
            deck = Deck.read(digits)
        except DeckNumberError as wrong:
            return [DeckRefused(digits, wrong.reason, wrong.facts)]
        wrong = self.refusal(deck)
        if wrong is not None:
            return [DeckRefused(digits, wrong[0], wrong[1])]
        if deck.players == self.players:
            self._take(deck)
        else:  # seated provisionally: a table seated for the deck's players takes it on
            self.deck = deck
        return [DeckRead(deck.number)]

    def __deepcopy__(self, memo: dict[int, Any]) -> PrintedCards:
        """A copy to try a move on: the engine copied, `build` (the table's) shared."""
        twin = copy.copy(self)
        twin.inner = copy.deepcopy(self.inner, memo)
        return twin

    def __getattr__(self, name: str) -> Any:
        inner = self.__dict__.get("inner")
        if inner is None:
            raise AttributeError(f"{name!r}: the deck number is not known yet")
        return getattr(inner, name)
