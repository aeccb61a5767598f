"""The printed deck: each game's pieces (cards/pieces.py) drawn on pages as a PDF, every face
showing exactly the texts its piece describes."""

from __future__ import annotations

from itertools import groupby
from typing import Any

from voicehost.cards.pieces import (
    BOARD,
    GAME_CARD,
    IDENTITY,
    PRIVATE,
    SLIP,
    TITLES,
    Piece,
    pieces,
)
from voicehost.cards.sheet import IDENTITY_HEIGHT, SLIP_HEIGHT, Rect, Sheet
from voicehost.games.deck import Deck
from voicehost.games.secret_operation import BLOCK
from voicehost.prompts_dir import load_yaml

GAME_CARD_PANEL = (44.0, 62.0)
BOARD_SIZE = (90.0, 62.0)

COMPONENT_FILL = {"MECHANICS": (200, 215, 235), "ELECTRONICS": (205, 235, 205),
                  "ENERGY": (250, 225, 190), BLOCK.upper(): (225, 225, 225)}
FERRET_SIZE = 5.5
FERRET_WORD = 8.0  # mm: every word of a row this wide
SLIP_RULES = {"secret-squad": "slip_rule_box", "ferret-out": "slip_rule_row"}


def steps(key: str) -> str:
    """How to make the pieces, as the host says it too (prompts/cards/lines.yaml)."""
    return load_yaml("cards/lines.yaml")[key]


def heading(deck: Deck, what: str, how: str) -> tuple[str, ...]:
    return (f"{TITLES[deck.game]}  -  deck {deck.printed}  -  {what}", how)


def first_page(sheet: Sheet, deck: Deck) -> None:
    """The page on top of the deck: how to make it without seeing a secret."""
    fold = load_yaml("cards/fold.yaml")
    rule = "identity_rule" if deck.game == "secret-operation" else SLIP_RULES[deck.game]
    numbered = [f"{n}. {step}" for n, step in enumerate(fold["fold_steps"], 1)]
    after = [steps(rule)]
    if deck.game == "secret-operation":
        after.append(f"{steps('game_card_steps')} {steps('board_steps')}")
    sheet.instructions(f"{TITLES[deck.game]}  -  deck {deck.printed}  -  {fold['first_page']}",
                       [fold["printing"], fold["prepare_blind"], *numbered, *after])


# -- strips: slips (Secret Squad, Ferret Out) and identity slips (Secret Operation) --------------


def draw_slips(sheet: Sheet, deck: Deck, deck_pieces: tuple[Piece, ...]) -> None:
    """Each letter's slips of one batch as a block; a later batch starts on a new page."""
    how = steps("strip_page")
    index = 0
    for _, in_batch in groupby(deck_pieces, key=lambda p: p.batch):
        batch_pieces = list(in_batch)
        what = "private slips"
        if deck.game == "ferret-out":
            what += f", {batch_pieces[0].label.replace('row', 'rows')}-{batch_pieces[-1].label[4:]}"
        page_heading = heading(deck, what, how)
        if sheet.placed:
            sheet.new_page(page_heading, over_tabs=True)
        for _, block in groupby(batch_pieces, key=lambda p: p.letter):
            block_pieces = list(block)
            faces = sheet.strip_block(SLIP, index, len(block_pieces), SLIP_HEIGHT,
                                      page_heading)
            for piece, (tab, inside) in zip(block_pieces, faces, strict=True):
                draw_tab(sheet, tab, piece.outside)
                INSIDES[deck.game](sheet, inside, piece.inside)
            index += len(block_pieces)


def draw_tab(sheet: Sheet, tab: Rect, texts: tuple[str, ...]) -> None:
    """The face everyone sees: a large letter, which slip it is, the game and the deck."""
    title, letter, label, number = texts
    inner = tab.inset(1.0)
    letter_cell, label_cell, game_cell = (Rect(inner.x, inner.y, 16, inner.h),
                                          Rect(inner.x + 16, inner.y, 24, inner.h),
                                          Rect(inner.x + 40, inner.y, inner.w - 40, inner.h))
    sheet.fit(letter, letter_cell, size=24, style="B")
    sheet.fit(label, label_cell, size=11, style="B")
    half = game_cell.h / 2
    sheet.fit(title, game_cell.row(0, half), size=8, style="B", align="L")
    sheet.fit(number, game_cell.row(half, half), size=8, align="L")


def squad_inside(sheet: Sheet, cell: Rect, texts: tuple[str, ...]) -> None:
    """One box: its number and squad in modest type over the security tint, the squad's word
    as wide as the other's (nothing codes a squad: no colour, no pattern, no longer word)."""
    box, squad = texts
    inner = cell.inset(1.0)
    sheet.tint(inner)
    text = inner.inset(0.8)
    sheet.secret(box, Rect(text.x, text.y, 10, text.h), size=9)
    sheet.secret(squad, Rect(text.x + 14, text.y, 22, text.h), size=9)


def ferret_inside(sheet: Sheet, area: Rect, texts: tuple[str, ...]) -> None:
    """One row: six numbered words, two to a line, every word as wide as the others, over the
    security tint."""
    inner = area.inset(1.0)
    sheet.tint(inner)
    pairs = list(zip(texts[::2], texts[1::2], strict=True))
    cells = [cell for line in inner.inset(0.3).rows(3) for cell in line.columns(2, gap=2)]
    for cell, (number, word) in zip(cells, pairs, strict=True):
        sheet.secret(number, Rect(cell.x, cell.y, 2.2, cell.h), size=FERRET_SIZE)
        sheet.secret(word, Rect(cell.x + 3.4, cell.y, FERRET_WORD, cell.h), size=FERRET_SIZE)


INSIDES = {"secret-squad": squad_inside, "ferret-out": ferret_inside}


# -- Secret Operation ---------------------------------------------------------------------------


def identity_inside(sheet: Sheet, area: Rect, texts: tuple[str, ...]) -> None:
    """The card, the game and a hint, then the identity and its mission in modest type over
    the security tint, each as wide as the other identity's."""
    card, dash, title, hint, word, mission = texts
    inner = area.inset(1.5)
    sheet.fit(f"{card}  {dash}  {title}", inner.row(0, 3.5), size=7, style="B", align="L")
    sheet.fit(hint, inner.row(3.5, 3.5), size=6, align="L")
    secret = inner.row(8, inner.h - 8)
    sheet.tint(secret)
    middle = secret.x + secret.w / 2
    sheet.secret(word, Rect(middle - 12, secret.y + 1, 24, 6), size=11)
    sheet.secret(mission, Rect(middle - 17, secret.y + 8, 34, 4.5), size=8)


def draw_operation(sheet: Sheet, deck: Deck, deck_pieces: tuple[Piece, ...]) -> None:
    identity_heading = heading(deck, "identity slips", steps("strip_page"))
    game_heading = heading(deck, "game cards", steps("game_card_steps"))
    board_heading = heading(deck, "module boards", steps("board_steps"))
    identities = [piece for piece in deck_pieces if piece.kind == IDENTITY]
    faces = sheet.strip_block(IDENTITY, 0, len(identities), IDENTITY_HEIGHT, identity_heading)
    for piece, (tab, inside) in zip(identities, faces, strict=True):
        draw_tab(sheet, tab, piece.outside)
        identity_inside(sheet, inside, piece.inside)
    sheet.new_page(game_heading)  # the page of identity slips is folded: nothing else on it
    for index, piece in enumerate(deck_pieces):
        if piece.kind == IDENTITY:
            continue
        if piece.kind == GAME_CARD:
            back, front = sheet.folding_card(GAME_CARD, index, GAME_CARD_PANEL, game_heading)
            sheet.hatch(back)
            sheet.fit(piece.outside[0], back.inset(3).row(20, 10), size=10, style="B",
                      background=True)
            inner = front.inset(3)
            sheet.pdf.set_fill_color(*COMPONENT_FILL[piece.inside[0]])
            sheet.pdf.rect(inner.x, inner.y, inner.w, inner.h, style="F")
            sheet.fit(piece.inside[0], inner.row(22, 10), size=12, style="B", background=True)
        else:
            draw_board(sheet, sheet.flat_card(BOARD, index, BOARD_SIZE, board_heading),
                       piece.outside)


def draw_board(sheet: Sheet, outline: Rect, texts: tuple[str, ...]) -> None:
    module, dash, board, needs, *demand = texts
    inner = outline.inset(3)
    sheet.fit(f"{module}  {dash}  {board}", inner.row(0, 8), size=13, style="B")
    sheet.fit(needs, inner.row(9, 6), size=9)
    for slot, component in zip(inner.row(20, inner.h - 20).columns(len(demand), gap=3),
                               demand, strict=True):
        sheet.pdf.set_draw_color(0, 0, 0)
        sheet.pdf.set_dash_pattern(dash=1, gap=1)
        sheet.pdf.rect(slot.x, slot.y, slot.w, slot.h)
        sheet.pdf.set_dash_pattern()
        sheet.fit(component, slot.inset(2), size=9)


def render(deck: Deck, paper: str = "a4", settings: Any = None) -> Sheet:
    """The whole deck laid out on pages (call `.output(path)` to write the PDF). `settings`:
    the game table's settings (None: the defaults). Each placed card's `index` is its piece's
    place in `pieces(deck, settings)`."""
    sheet = Sheet(paper, f"{TITLES[deck.game]} cards, deck {deck.printed}")
    deck_pieces = pieces(deck, settings)
    first_page(sheet, deck)
    if deck.game == "secret-operation":
        draw_operation(sheet, deck, deck_pieces)
    else:
        draw_slips(sheet, deck, deck_pieces)
    sheet.finish()
    return sheet


def private_count(sheet: Sheet) -> str:
    """How many private pieces the sheet holds, in words ("24 private slips")."""
    kinds = [card.kind for card in sheet.placed if card.kind in PRIVATE]
    name = "slip" if SLIP in kinds else "card"
    return f"{len(kinds)} private {name}{'' if len(kinds) == 1 else 's'}"
