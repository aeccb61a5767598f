"""Every physical piece of a printed deck and what each of its faces shows, as plain text: pure,
no PDF (render.py draws exactly these texts, and the tests read them).

Secret Squad and Ferret Out print one **slip** per box (or row) of each letter. A slip is a
cover, an inside and a tab in a line: folding the cover onto the inside, print inside, hides the
inside and leaves the tab in sight. The tab is the `outside` (everyone may see it: the game, the
letter, which box or row, the deck number); the `inside` is the one box's squad or the one row's
six numbered words, seen only by its holder, only when the host names that box or row.
Secret Operation's identity slip is made the same way and holds one secret for the whole game:
`outside` its tab, `inside` its identity.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from voicehost.games import RULES
from voicehost.games.deck import Deck, letters
from voicehost.games.ferret_out import PouchPair
from voicehost.games.layout import (
    IMPOSTOR,
    ferret_layout,
    operation_layout,
    row_cards_for,
    squad_layout,
)
from voicehost.prompts_dir import load_yaml

TITLES = {name: rules.TITLE for name, rules in RULES.items()}
SLIP, IDENTITY, GAME_CARD, BOARD = "slip", "identity", "game", "board"
PRIVATE = (SLIP, IDENTITY)  # the pieces a player keeps to themself
# What an inside says of a secret. Words of a kind are printed as wide as each other
# (render.py), and the missions are written with the same letters' count and shape around
# "the robot", so that no secret is longer than another.
SQUAD_WORDS = {"yellow": "yellow squad", "red": "red squad"}
IDENTITY_WORDS = {IMPOSTOR: ("impostor", "Make the robot fail."),
                  "engineer": ("engineer", "Help the robot work.")}
IDENTITY_HINT = "Yours for the whole game. Keep it secret."


@dataclass(frozen=True)
class Piece:
    """One thing to cut out. `letter`: whose it is ("" for Secret Operation's game cards and
    boards); `label`: which of its letter's slips ("box 3", "row 5"; "" for other pieces);
    `batch`: the pieces printed together (Ferret Out's rows 1-8 are batch 1, rows 9-16 batch 2,
    ...: later batches start on a new page and can wait until the host asks for them)."""

    kind: str
    letter: str
    label: str
    outside: tuple[str, ...]
    inside: tuple[str, ...]
    batch: int = 1


def slip(deck: Deck, letter: str, label: str, inside: tuple[str, ...], batch: int = 1) -> Piece:
    return Piece(SLIP, letter, label, (TITLES[deck.game], letter, label, f"deck {deck.printed}"),
                 inside, batch)


def squad_pieces(deck: Deck) -> list[Piece]:
    """Each letter's 8 slips, box 1 to 8, letter after letter."""
    layout = squad_layout(deck)
    return [slip(deck, letter, f"box {box}", (f"box {box}", SQUAD_WORDS[squad]))
            for index, letter in enumerate(letters(deck.players))
            for box, squad in enumerate(layout.card(index), 1)]


def ferret_pieces(deck: Deck, end: str | int) -> list[Piece]:
    """Each letter's slips of rows 1-8, letter after letter, then every letter's rows 9-16, ...
    as many as the game's ending needs."""
    pairs = [PouchPair.from_json(p) for p in load_yaml("ferret_out/pouches.yaml")["pouches"]]
    layout = ferret_layout(deck, pairs, row_cards_for(end))
    return [slip(deck, letter, f"row {row.round}",
                 tuple(text for number, word in enumerate(row.words_on(index), 1)
                       for text in (str(number), word)), batch)
            for batch in range(1, layout.row_cards + 1)
            for index, letter in enumerate(letters(deck.players))
            for row in layout.on_row_card(batch)]


def operation_pieces(deck: Deck) -> list[Piece]:
    layout = operation_layout(deck, load_yaml("secret_operation/boards.yaml"))
    title = TITLES[deck.game]
    pieces = [Piece(IDENTITY, letter, "", (title, letter, "identity", f"deck {deck.printed}"),
                    (f"Card {letter}", "-", title, IDENTITY_HINT,
                     *IDENTITY_WORDS[identity]))
              for letter, identity in zip(letters(deck.players), layout.identities, strict=True)]
    pieces += [Piece(GAME_CARD, "", "", (title,), (card.upper(),)) for card in layout.components]
    pieces += [Piece(BOARD, "", "", (f"Module {number}", "-", f"board {board}",
                                     "Needs: " + ", ".join(demand), *demand), ())
               for number, (demand, board) in enumerate(zip(layout.modules, layout.boards,
                                                            strict=True), 1)]
    return pieces


def pieces(deck: Deck, settings: Any = None) -> tuple[Piece, ...]:
    """Every piece of the deck, in print order. `settings`: the game table's settings (None:
    the defaults; Ferret Out's ending says how many rows to print)."""
    if deck.game == "secret-squad":
        return tuple(squad_pieces(deck))
    if deck.game == "ferret-out":
        return tuple(ferret_pieces(deck, settings.end if settings else "rounds"))
    return tuple(operation_pieces(deck))


def slips_of(all_pieces: tuple[Piece, ...], letter: str) -> dict[str, Piece]:
    """A letter's slips by label ("box 3" → its slip)."""
    return {p.label: p for p in all_pieces if p.kind == SLIP and p.letter == letter}
