"""The deck number: six digits on every card's back that rebuild the whole deck of secrets.

    G P S   S S C     G: the game (1 Secret Squad, 2 Ferret Out, 3 Secret Operation)
                      P: the player count (0 stands for 10)
                      SSS: the seed of the secret layout
                      C: a Damm check digit

Printed and read out in two groups of three: a recognizer hears three digits among a thousand
phrases quickly and well, where a whole number would be a million. The Damm check digit catches
every single wrong digit and every swap of two neighbours, so a misheard or misread number is
refused instead of dealing someone else's secrets.
"""

from __future__ import annotations

import string
from dataclasses import dataclass

from voicehost.games import PLAYER_RANGES, RULES

GAME_CODES = {name: rules.DECK_CODE for name, rules in RULES.items()}
SEEDS = 1_000
DIGITS = 6
GROUP = 3  # digits read out at a time

# The Damm quasigroup of order 10 (totally anti-symmetric, zero diagonal).
DAMM = (
    (0, 3, 1, 7, 5, 9, 8, 6, 4, 2),
    (7, 0, 9, 2, 1, 5, 4, 8, 6, 3),
    (4, 2, 0, 6, 8, 7, 1, 3, 5, 9),
    (1, 7, 5, 0, 9, 8, 3, 4, 2, 6),
    (6, 1, 2, 3, 0, 4, 5, 9, 7, 8),
    (3, 6, 7, 4, 2, 0, 9, 5, 8, 1),
    (5, 8, 6, 9, 7, 2, 0, 1, 3, 4),
    (8, 9, 4, 5, 3, 6, 2, 0, 1, 7),
    (9, 4, 3, 8, 6, 1, 7, 2, 0, 5),
    (2, 5, 8, 1, 4, 3, 6, 7, 9, 0),
)


class DeckNumberError(ValueError):
    """The number is no deck number; `reason` says why in the host's words (a lines key)."""

    def __init__(self, reason: str, **facts: object) -> None:
        super().__init__(reason)
        self.reason = reason
        self.facts = facts


def damm(digits: str) -> int:
    interim = 0
    for digit in digits:
        interim = DAMM[interim][int(digit)]
    return interim


@dataclass(frozen=True)
class Deck:
    game: str
    players: int
    seed: int

    def __post_init__(self) -> None:
        if self.game not in GAME_CODES:
            raise DeckNumberError("deck_unknown_game", game=self.game)
        low, high = PLAYER_RANGES[self.game]
        if not low <= self.players <= high:
            raise DeckNumberError("deck_player_count", low=low, high=high, players=self.players)
        if not 0 <= self.seed < SEEDS:
            raise DeckNumberError("deck_seed", seed=self.seed)

    @property
    def number(self) -> str:
        body = f"{GAME_CODES[self.game]}{self.players % 10}{self.seed:03d}"
        return body + str(damm(body))

    @property
    def printed(self) -> str:
        """As the cards show it: in two groups, easy to read aloud."""
        return f"{self.number[:GROUP]} {self.number[GROUP:]}"

    @classmethod
    def read(cls, number: str) -> Deck:
        """The deck a number names; DeckNumberError if it is mistyped or misheard."""
        digits = "".join(number.split())
        if len(digits) != DIGITS or not digits.isdigit():
            raise DeckNumberError("deck_length", digits=DIGITS)
        if damm(digits) != 0:
            raise DeckNumberError("deck_check")
        games = {code: game for game, code in GAME_CODES.items()}
        if int(digits[0]) not in games:
            raise DeckNumberError("deck_unknown_game", game=digits[0])
        players = int(digits[1]) or 10
        return cls(games[int(digits[0])], players, int(digits[2:-1]))


def letters(count: int) -> tuple[str, ...]:
    """The private cards' letters, A, B, C, ..."""
    return tuple(string.ascii_uppercase[:count])
