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
from voicehost.cards.sheet import Rect, Sheet
from voicehost.games.deck import Deck
from voicehost.games.secret_operation import BLOCK
from voicehost.prompts_dir import load_yaml

IDENTITY_PANEL = (88.0, 62.0)
GAME_CARD_PANEL = (44.0, 62.0)
BOARD_SIZE = (90.0, 62.0)

SQUAD_FILL = {"YELLOW": (255, 236, 130), "RED": (244, 160, 160)}
COMPONENT_FILL = {"MECHANICS": (200, 215, 235), "ELECTRONICS": (205, 235, 205),
                  "ENERGY": (250, 225, 190), BLOCK.upper(): (225, 225, 225)}
SLIP_RULES = {"secret-squad": "slip_rule_box", "ferret-out": "slip_rule_row"}


def steps(key: str) -> str:
    """How to make the pieces, as the host says it too (prompts/cards/lines.yaml)."""
    return load_yaml("cards/lines.yaml")[key]


def heading(deck: Deck, what: str, how: str) -> tuple[str, ...]:
    return (f"{TITLES[deck.game]}  -  deck {deck.printed}  -  {what}", how)


def draw_back(sheet: Sheet, back: Rect, texts: tuple[str, ...]) -> None:
    """A folding card's face everyone may see: the game, a large letter, the deck number."""
    title, letter, number = texts
    sheet.hatch(back)
    inner = back.inset(4)
    sheet.fit(title, inner.row(0, 7), size=11, style="B", background=True)
    sheet.fit(letter, inner.row(9, inner.h - 22), size=64, style="B", background=True)
    sheet.fit(number, inner.row(inner.h - 9, 8), size=12, style="B", background=True)


# -- slips (Secret Squad, Ferret Out) -----------------------------------------------------------


def draw_slips(sheet: Sheet, deck: Deck, deck_pieces: tuple[Piece, ...]) -> None:
    """Each letter's slips of one batch as a block; a later batch starts on a new page."""
    how = f"{steps('slip_steps')} {steps(SLIP_RULES[deck.game])}"
    index = 0
    for _, in_batch in groupby(deck_pieces, key=lambda p: p.batch):
        batch_pieces = list(in_batch)
        what = "private slips"
        if deck.game == "ferret-out":
            what += f", {batch_pieces[0].label.replace('row', 'rows')}-{batch_pieces[-1].label[4:]}"
        page_heading = heading(deck, what, how)
        if sheet.page:
            sheet.new_page(page_heading)
        for _, block in groupby(batch_pieces, key=lambda p: p.letter):
            block_pieces = list(block)
            faces = sheet.slip_block(SLIP, index, len(block_pieces), page_heading)
            for piece, (tab, inside) in zip(block_pieces, faces, strict=True):
                draw_tab(sheet, tab, piece.outside)
                INSIDES[deck.game](sheet, inside, piece.inside)
            index += len(block_pieces)


def draw_tab(sheet: Sheet, tab: Rect, texts: tuple[str, ...]) -> None:
    title, letter, label, number = texts
    inner = tab.inset(0.8)
    sheet.fit(title, inner.row(0, 2.4), size=6, style="B")
    sheet.fit(letter, inner.row(2.4, 5.2), size=15, style="B")
    sheet.fit(label, inner.row(7.6, 2.8), size=8, style="B")
    sheet.fit(number, inner.row(10.5, 2.4), size=6)


def squad_inside(sheet: Sheet, cell: Rect, texts: tuple[str, ...]) -> None:
    """One box: its number and squad, YELLOW dotted or RED striped (so it reads in black and
    white and without colour vision)."""
    number, mark = texts
    cell = cell.inset(1.2)
    pdf = sheet.pdf
    pdf.set_fill_color(*SQUAD_FILL[mark])
    pdf.set_draw_color(0, 0, 0)
    pdf.set_line_width(0.3)
    pdf.rect(cell.x, cell.y, cell.w, cell.h, style="DF")
    pattern = cell.inset(0.8)
    if mark == "RED":
        sheet.stripes(pattern)
    else:
        sheet.dots(pattern)
    sheet.fit(number, Rect(cell.x + 1, cell.y + 0.8, 8, 5), size=10, style="B",
              background=True)
    sheet.fit(mark, Rect(cell.x + 10, cell.y + 0.8, cell.w - 11, cell.h - 1.6), size=11,
              style="B", background=True)


def ferret_inside(sheet: Sheet, area: Rect, texts: tuple[str, ...]) -> None:
    """One row: six numbered words, two to a line."""
    sheet.pdf.set_draw_color(150, 150, 150)
    sheet.pdf.set_line_width(0.2)
    inner = area.inset(1.0)
    sheet.pdf.rect(inner.x, inner.y, inner.w, inner.h)
    pairs = list(zip(texts[::2], texts[1::2], strict=True))
    cells = [cell for line in inner.inset(0.3).rows(3) for cell in line.columns(2)]
    for cell, (number, word) in zip(cells, pairs, strict=True):
        sheet.fit(number, Rect(cell.x, cell.y, 3.2, cell.h), size=6.5, style="B", align="L")
        sheet.fit(word, Rect(cell.x + 3.2, cell.y, cell.w - 3.2, cell.h), size=6.5, align="L")


INSIDES = {"secret-squad": squad_inside, "ferret-out": ferret_inside}


# -- Secret Operation ---------------------------------------------------------------------------


def draw_operation(sheet: Sheet, deck: Deck, deck_pieces: tuple[Piece, ...]) -> None:
    identity_heading = heading(deck, "identity cards", steps("identity_steps"))
    game_heading = heading(deck, "game cards", steps("game_card_steps"))
    board_heading = heading(deck, "module boards", steps("board_steps"))
    for index, piece in enumerate(deck_pieces):
        if piece.kind == IDENTITY:
            back, front = sheet.folding_card(IDENTITY, index, IDENTITY_PANEL, identity_heading)
            draw_back(sheet, back, piece.outside)
            card, dash, title, hint, word, mission = piece.inside
            inner = front.inset(3)
            sheet.fit(f"{card}  {dash}  {title}", inner.row(0, 5), size=9, style="B",
                      align="L")
            sheet.fit(hint, inner.row(5, 4), size=7, align="L")
            sheet.fit(word, inner.row(16, 18), size=28, style="B")
            sheet.fit(mission, inner.row(38, 8), size=11)
        elif piece.kind == GAME_CARD:
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
    if deck.game == "secret-operation":
        draw_operation(sheet, deck, deck_pieces)
    else:
        draw_slips(sheet, deck, deck_pieces)
    return sheet


def private_count(sheet: Sheet) -> str:
    """How many private pieces the sheet holds, in words ("24 private slips")."""
    kinds = [card.kind for card in sheet.placed if card.kind in PRIVATE]
    name = "slip" if SLIP in kinds else "card"
    return f"{len(kinds)} private {name}{'' if len(kinds) == 1 else 's'}"
