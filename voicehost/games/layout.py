"""The secrets a deck number stands for, card by card: pure and seeded, no PDF and no files
here (the word pouches and the module boards are passed in).

A deck has one private card per player, lettered A, B, C, ... Every layout is rebuilt from its
`Deck` alone, so the host that reads the deck number knows every secret the cards show.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from voicehost.games import secret_operation
from voicehost.games.deck import Deck
from voicehost.games.ferret_out import FACES, FerretOut, PouchPair
from voicehost.games.secret_squad import deal_squads

SQUAD_BOXES = 8  # a full game (3 rounds), a rematch, and two to spare
ROWS_PER_CARD = 8  # Ferret Out: one card holds the rows of a game of 8 rounds
# Ferret Out: each player's cards of rows, by the game's ending. Enough for the tie-break rounds
# of all but about 1 game in 450 (docs/rules-notes.md), after which a tie is shared.
ROW_CARDS = {"rounds": 2, "15": 3, "20": 4}


def _rng(deck: Deck, part: str) -> random.Random:
    return random.Random(f"{deck.number}/{part}")


# -- Secret Squad -------------------------------------------------------------------------------


@dataclass(frozen=True)
class SquadLayout:
    """`boxes[b][c]`: the squad printed in box b + 1 of card c. Each box is one deal of the
    rules' squad cards (`deal_squads`); at odd counts the set-aside card is simply not printed."""

    deck: Deck
    boxes: tuple[tuple[str, ...], ...]
    set_aside: tuple[str | None, ...]

    def card(self, index: int) -> tuple[str, ...]:
        """One card's front, box by box."""
        return tuple(box[index] for box in self.boxes)


def squad_layout(deck: Deck) -> SquadLayout:
    rng = _rng(deck, "squads")
    deals = [deal_squads(deck.players, rng) for _ in range(SQUAD_BOXES)]
    return SquadLayout(deck, tuple(tuple(dealt) for dealt, _ in deals),
                       tuple(aside for _, aside in deals))


# -- Ferret Out ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class FerretRow:
    """One round's row: every card shows `ferret_words` except card `weasel`, which shows
    `weasel_words`. Which pouch of the pair is the Ferrets' is drawn too, so knowing the
    pouches file does not tell a player which side they are on."""

    round: int
    ferret_words: tuple[str, ...]
    weasel_words: tuple[str, ...]
    weasel: int  # the card index (0 = A)

    def words_on(self, card: int) -> tuple[str, ...]:
        return self.weasel_words if card == self.weasel else self.ferret_words

    @property
    def row_card(self) -> int:
        """Which of a player's cards of rows shows this row: 1 for rows 1-8, 2 for 9-16, ..."""
        return (self.round - 1) // ROWS_PER_CARD + 1


@dataclass(frozen=True)
class FerretLayout:
    deck: Deck
    rows: tuple[FerretRow, ...]

    @property
    def row_cards(self) -> int:
        return self.rows[-1].row_card

    def on_row_card(self, row_card: int) -> tuple[FerretRow, ...]:
        return tuple(row for row in self.rows if row.row_card == row_card)


def row_cards_for(end: str | int) -> int:
    """How many cards of rows each player needs for a game with this ending."""
    return ROW_CARDS[str(end)]


def ferret_layout(deck: Deck, pairs: Sequence[PouchPair], row_cards: int = 1) -> FerretLayout:
    """`row_cards` cards of rows per player. The rows follow the engine's sleeve schedule for the
    same seed: row r shows the pouch pair `FerretOut(players, seed, pairs)` plays in round r,
    so the first rows are the same however many cards are printed."""
    engine = FerretOut(deck.players, deck.seed, list(pairs))
    rng = _rng(deck, "weasels")
    rows = []
    for round_number in range(1, row_cards * ROWS_PER_CARD + 1):
        set_index, face = divmod(round_number - 1, FACES)
        pair = pairs[engine.shelf.pouch_set(set_index)[face]]
        ferrets, weasel = (pair.ferrets, pair.weasel) if rng.random() < 0.5 else (
            pair.weasel, pair.ferrets)
        rows.append(FerretRow(round_number, ferrets, weasel, rng.randrange(deck.players)))
    return FerretLayout(deck, tuple(rows))


# -- Secret Operation ---------------------------------------------------------------------------

ENGINEER, IMPOSTOR = "engineer", "impostor"


@dataclass(frozen=True)
class OperationLayout:
    deck: Deck
    identities: tuple[str, ...]  # card by card
    components: tuple[str, ...]  # the 44 game cards: components then blocks
    modules: tuple[tuple[str, ...], ...]  # the four module boards' demands
    boards: tuple[str, ...]  # which board each module is


def operation_layout(deck: Deck, boards: dict[str, Any]) -> OperationLayout:
    """`boards`: prompts/secret_operation/boards.yaml, read."""
    identities = [IMPOSTOR] * secret_operation.impostor_count(deck.players)
    identities += [ENGINEER] * (deck.players - len(identities))
    _rng(deck, "identities").shuffle(identities)
    modules = secret_operation.read_boards(boards).robot(deck.players)
    entries = boards["robots"][deck.players]
    components = tuple(card for card in secret_operation.CARD_TYPES
                       for _ in range(secret_operation.CARDS_IN_BOX[card]))
    return OperationLayout(deck, tuple(identities), components, modules,
                           tuple(str(entry["board"]) for entry in entries))
