"""The printed deck: each game's private cards (and Secret Operation's game cards) as a PDF."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from voicehost.cards.sheet import Rect, Sheet
from voicehost.games.deck import Deck, letters
from voicehost.games.ferret_out import PouchPair
from voicehost.games.layout import (
    IMPOSTOR,
    FerretRow,
    ferret_layout,
    operation_layout,
    row_cards_for,
    squad_layout,
)
from voicehost.games.secret_operation import BLOCK
from voicehost.prompts_dir import load_yaml

TITLES = {"secret-squad": "Secret Squad", "ferret-out": "Ferret Out",
          "secret-operation": "Secret Operation"}
FOLD_HINT = "cut on the solid lines, fold on the dashed line with the print outside"

SQUAD_PANEL = (88.0, 62.0)
FERRET_PANEL = (95.0, 86.0)
IDENTITY_PANEL = (88.0, 62.0)
GAME_CARD_PANEL = (44.0, 62.0)
BOARD = (90.0, 62.0)

SQUAD_MARKS = {"yellow": "YELLOW", "red": "RED"}
SQUAD_FILL = {"yellow": (255, 236, 130), "red": (244, 160, 160)}
COMPONENT_FILL = {"mechanics": (200, 215, 235), "electronics": (205, 235, 205),
                  "energy": (250, 225, 190), BLOCK: (225, 225, 225)}


def heading(deck: Deck, what: str) -> str:
    return f"{TITLES[deck.game]}  -  deck {deck.printed}  -  {what}: {FOLD_HINT}"


def draw_back(sheet: Sheet, back: Rect, letter: str, deck: Deck, note: str = "") -> None:
    """The face everyone may see: a large letter, the game and the deck number (and `note`,
    which of a player's cards this is, when they have several)."""
    sheet.hatch(back)
    inner = back.inset(4)
    sheet.fit(TITLES[deck.game], inner.row(0, 7), size=11, style="B", background=True)
    if note:
        sheet.fit(letter, inner.row(9, inner.h - 30), size=56, style="B", background=True)
        sheet.fit(note, inner.row(inner.h - 19, 8), size=12, style="B", background=True)
    else:
        sheet.fit(letter, inner.row(9, inner.h - 22), size=64, style="B", background=True)
    sheet.fit(f"deck {deck.printed}", inner.row(inner.h - 9, 8), size=12, style="B",
              background=True)


def front_heading(sheet: Sheet, front: Rect, letter: str, deck: Deck, hint: str) -> Rect:
    """The top line of a front, and the room left below it."""
    inner = front.inset(3)
    sheet.fit(f"Card {letter}  -  {TITLES[deck.game]}", inner.row(0, 5), size=9, style="B",
              align="L")
    sheet.fit(hint, inner.row(5, 4), size=7, align="L")
    return Rect(inner.x, inner.y + 10, inner.w, inner.h - 10)


# -- Secret Squad -------------------------------------------------------------------------------


def player_cards(sheet: Sheet, deck: Deck, panel: tuple[float, float], what: str,
                 kind: str = "player", note: str = "") -> Iterator[tuple[int, str, Rect]]:
    """Each player's folding card with its back drawn: (index, letter, front)."""
    for index, letter in enumerate(letters(deck.players)):
        back, front = sheet.folding_card(kind, index, panel, heading(deck, what))
        draw_back(sheet, back, letter, deck, note)
        yield index, letter, front


def squad_cards(sheet: Sheet, deck: Deck, settings: Any) -> None:
    layout = squad_layout(deck)
    for index, letter, front in player_cards(sheet, deck, SQUAD_PANEL, "private cards"):
        room = front_heading(sheet, front, letter, deck,
                             "Look only at the box the host names.")
        boxes = [cell for row in room.rows(2, gap=2) for cell in row.columns(4, gap=2)]
        for number, (cell, squad) in enumerate(zip(boxes, layout.card(index), strict=True), 1):
            squad_box(sheet, cell, number, squad)


def squad_box(sheet: Sheet, cell: Rect, number: int, squad: str) -> None:
    pdf = sheet.pdf
    pdf.set_fill_color(*SQUAD_FILL[squad])
    pdf.set_draw_color(0, 0, 0)
    pdf.set_line_width(0.3)
    pdf.rect(cell.x, cell.y, cell.w, cell.h, style="DF")
    pattern = cell.inset(0.8)
    if squad == "red":
        sheet.stripes(pattern)
    else:
        sheet.dots(pattern)
    sheet.fit(str(number), Rect(cell.x + 1, cell.y + 1.5, cell.w - 2, 7), size=14, style="B",
              background=True)
    sheet.fit(SQUAD_MARKS[squad], Rect(cell.x + 1, cell.y + cell.h - 8, cell.w - 2, 6),
              size=9, style="B", background=True)


# -- Ferret Out ---------------------------------------------------------------------------------


def ferret_cards(sheet: Sheet, deck: Deck, settings: Any) -> None:
    """Each player's cards of rows, as many as the game's ending needs: every player's first
    card, then every player's second, ... so the later pages can wait until they are needed."""
    pairs = [PouchPair.from_json(p) for p in load_yaml("ferret_out/pouches.yaml")["pouches"]]
    layout = ferret_layout(deck, pairs, row_cards_for(settings.end if settings else "rounds"))
    for row_card in range(1, layout.row_cards + 1):
        rows = layout.on_row_card(row_card)
        span = f"rows {rows[0].round}-{rows[-1].round}"
        kind = "player" if row_card == 1 else "more_rows"
        for index, letter, front in player_cards(sheet, deck, FERRET_PANEL,
                                                 f"private cards, {span}", kind, span):
            ferret_rows(sheet, front, letter, deck, index, rows)


def ferret_rows(sheet: Sheet, front: Rect, letter: str, deck: Deck, index: int,
                rows: tuple[FerretRow, ...]) -> None:
    room = front_heading(sheet, front, letter, deck,
                         "Each round, read only the row and number the host names.")
    for row, area in zip(rows, room.rows(len(rows), gap=0.8), strict=True):
        sheet.pdf.set_draw_color(150, 150, 150)
        sheet.pdf.set_line_width(0.2)
        sheet.pdf.rect(area.x, area.y, area.w, area.h)
        label, words = Rect(area.x, area.y, 11, area.h), Rect(
            area.x + 11, area.y, area.w - 11, area.h)
        sheet.fit(f"Row {row.round}", label, size=7, style="B")
        for number, (cell, word) in enumerate(
                zip(words.columns(6), row.words_on(index), strict=True), 1):
            sheet.fit(str(number), cell.row(0.4, cell.h / 2 - 0.4), size=6, style="B")
            sheet.fit(word, cell.row(cell.h / 2, cell.h / 2 - 0.4), size=7)


# -- Secret Operation ---------------------------------------------------------------------------

IDENTITY_WORDS = {IMPOSTOR: ("IMPOSTOR", "Make the robot fail."),
                  "engineer": ("ENGINEER", "Build the robot.")}


def operation_cards(sheet: Sheet, deck: Deck, settings: Any) -> None:
    layout = operation_layout(deck, load_yaml("secret_operation/boards.yaml"))
    for index, letter, front in player_cards(sheet, deck, IDENTITY_PANEL, "identity cards"):
        room = front_heading(sheet, front, letter, deck, "Your identity. Keep it secret.")
        word, mission = IDENTITY_WORDS[layout.identities[index]]
        sheet.fit(word, room.row(6, 18), size=28, style="B")
        sheet.fit(mission, room.row(28, 8), size=11)

    for index, card in enumerate(layout.components):
        back, front = sheet.folding_card("game", index, GAME_CARD_PANEL,
                                         heading(deck, "game cards"))
        sheet.hatch(back)
        sheet.fit(TITLES[deck.game], back.inset(3).row(20, 10), size=10, style="B",
                  background=True)
        pdf = sheet.pdf
        pdf.set_fill_color(*COMPONENT_FILL[card])
        inner = front.inset(3)
        pdf.rect(inner.x, inner.y, inner.w, inner.h, style="F")
        sheet.fit(card.upper(), inner.row(22, 10), size=12, style="B", background=True)

    for number, (demand, board) in enumerate(zip(layout.modules, layout.boards, strict=True), 1):
        outline = sheet.flat_card("board", number - 1, BOARD, heading(deck, "module boards"))
        inner = outline.inset(3)
        sheet.fit(f"Module {number}  -  board {board}", inner.row(0, 8), size=13, style="B")
        sheet.fit("Needs: " + ", ".join(demand), inner.row(9, 6), size=9)
        for slot, component in zip(inner.row(20, inner.h - 20).columns(len(demand), gap=3),
                                   demand, strict=True):
            sheet.pdf.set_draw_color(0, 0, 0)
            sheet.pdf.set_dash_pattern(dash=1, gap=1)
            sheet.pdf.rect(slot.x, slot.y, slot.w, slot.h)
            sheet.pdf.set_dash_pattern()
            sheet.fit(component, slot.inset(2), size=9)


# Each game's drawing, given the settings the table will play with (Ferret Out's ending says
# how many rows to print).
DRAW: dict[str, Callable[[Sheet, Deck, Any], None]] = {
    "secret-squad": squad_cards, "ferret-out": ferret_cards,
    "secret-operation": operation_cards,
}


def render(deck: Deck, paper: str = "a4", settings: Any = None) -> Sheet:
    """The whole deck laid out on pages (call `.output(path)` to write the PDF). `settings`:
    the game table's settings (None: the defaults)."""
    sheet = Sheet(paper, f"{TITLES[deck.game]} cards, deck {deck.printed}")
    DRAW[deck.game](sheet, deck, settings)
    return sheet
