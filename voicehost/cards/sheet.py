"""Pages of cards to cut out and fold: placing cards on paper, cut and fold lines, fitted text.

A folding card is two panels side by side, the back on the left and the front on the right.
Cut along the solid outline, fold along the dashed middle line with the print outside, and the
card has the back on one face and the front on the other: lying face down it shows only the
back.

Slips come in blocks two columns wide, each slip a flap, an inside and a tab in a line,
mirrored in the right column (flap | inside | tab  tab | inside | flap). Every block on a page
starts at the left margin, so the fold lines of all the slips on a page are two straight lines:
folding both side flaps in over the insides, print inside, hides every inside at once and
leaves the tabs in the middle in sight; the slips are then cut apart already shut.
Lengths are millimetres; y grows down the page.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from fpdf import FPDF

PAPERS = {"a4": (210.0, 297.0), "letter": (215.9, 279.4)}
MARGIN = 10.0
GAP = 4.0  # between cards, so each cut line belongs to one card
HEADER = 10.0  # the page's heading lines above the cards
MIN_FONT = 5.0
PT = 25.4 / 72  # millimetres in a typographic point

SLIP_FLAP = 34.0  # a slip's flap, and the inside it covers
SLIP_TAB = 26.0
SLIP_HEIGHT = 14.5
SLIP_BLOCK_WIDTH = 2 * (2 * SLIP_FLAP + SLIP_TAB)

INK = (0, 0, 0)
HATCH = (205, 205, 205)


@dataclass(frozen=True)
class Rect:
    x: float
    y: float
    w: float
    h: float

    def inset(self, by: float) -> Rect:
        return Rect(self.x + by, self.y + by, self.w - 2 * by, self.h - 2 * by)

    def row(self, top: float, height: float) -> Rect:
        return Rect(self.x, self.y + top, self.w, height)

    def columns(self, count: int, gap: float = 0.0) -> list[Rect]:
        width = (self.w - gap * (count - 1)) / count
        return [Rect(self.x + i * (width + gap), self.y, width, self.h) for i in range(count)]

    def rows(self, count: int, gap: float = 0.0) -> list[Rect]:
        height = (self.h - gap * (count - 1)) / count
        return [Rect(self.x, self.y + i * (height + gap), self.w, height) for i in range(count)]

    def contains(self, other: Rect, slack: float = 0.0) -> bool:
        return (other.x >= self.x - slack and other.y >= self.y - slack
                and other.x + other.w <= self.x + self.w + slack
                and other.y + other.h <= self.y + self.h + slack)


@dataclass(frozen=True)
class PlacedCard:
    """Where a card landed: `outline` is its cut line, `panels` its back and front (or one
    panel for a board that is not folded; a slip's tab, inside and flap). `kind` and `index`
    say which card it is."""

    kind: str
    index: int
    page: int
    outline: Rect
    panels: tuple[Rect, ...]


@dataclass
class Sheet:
    paper: str
    title: str
    pdf: FPDF = field(init=False)
    placed: list[PlacedCard] = field(default_factory=list)
    headers: list[tuple[int, Rect]] = field(default_factory=list)
    _cursor: tuple[float, float, float] = (0.0, 0.0, 0.0)  # x, y, tallest card in the row

    def __post_init__(self) -> None:
        if self.paper not in PAPERS:
            raise ValueError(f"paper must be one of {', '.join(PAPERS)}")
        self.pdf = FPDF(unit="mm", format=PAPERS[self.paper])
        self.pdf.set_auto_page_break(False)
        self.pdf.set_margins(MARGIN, MARGIN)
        self.pdf.set_title(self.title)
        self.pdf.set_creator("voicehost")

    @property
    def size(self) -> tuple[float, float]:
        return PAPERS[self.paper]

    @property
    def page(self) -> int:
        return self.pdf.page

    def new_page(self, heading: tuple[str, ...]) -> None:
        """A fresh page, its heading one line after another at the top."""
        self.pdf.add_page()
        width, _ = self.size
        header = Rect(MARGIN, MARGIN, width - 2 * MARGIN, HEADER - 2)
        for line, area in zip(heading, header.rows(len(heading)), strict=True):
            self.fit(line, area, size=9, align="L")
        self.headers.append((self.page, header))
        self._cursor = (MARGIN, MARGIN + HEADER, 0.0)

    def place(self, width: float, height: float, heading: tuple[str, ...]) -> Rect:
        """Room for a card of this size: further along the row, on the next row, or on a new
        page (which starts with `heading`)."""
        page_width, page_height = self.size
        if width > page_width - 2 * MARGIN or height > page_height - 2 * MARGIN - HEADER:
            raise ValueError(f"a {width} x {height} mm card does not fit on {self.paper} paper")
        if self.pdf.page == 0:
            self.new_page(heading)
        x, y, tallest = self._cursor
        if x + width > page_width - MARGIN:
            x, y, tallest = MARGIN, y + tallest + GAP, 0.0
        if y + height > page_height - MARGIN:
            self.new_page(heading)
            x, y, tallest = self._cursor
        self._cursor = (x + width + GAP, y, max(tallest, height))
        return Rect(x, y, width, height)

    def folding_card(self, kind: str, index: int, panel: tuple[float, float],
                     heading: tuple[str, ...]) -> tuple[Rect, Rect]:
        """Place a two-panel card and draw its cut and fold lines; returns (back, front)."""
        width, height = panel
        outline = self.place(2 * width, height, heading)
        back, front = Rect(outline.x, outline.y, width, height), Rect(
            outline.x + width, outline.y, width, height)
        self.cut_line(outline)
        self.fold_line(outline.x + width, outline.y, outline.y + height)
        self.placed.append(PlacedCard(kind, index, self.page, outline, (back, front)))
        return back, front

    def flat_card(self, kind: str, index: int, size: tuple[float, float],
                  heading: tuple[str, ...]) -> Rect:
        outline = self.place(*size, heading)
        self.cut_line(outline)
        self.placed.append(PlacedCard(kind, index, self.page, outline, (outline,)))
        return outline

    def slip_block(self, kind: str, first: int, count: int,
                   heading: tuple[str, ...]) -> list[tuple[Rect, Rect]]:
        """Place `count` slips as one block (left column top to bottom, then the right one),
        indexed from `first`; draw their cut and fold lines and hatch their flaps. Returns each
        slip's (tab, inside)."""
        rows = (count + 1) // 2
        block = self.place(SLIP_BLOCK_WIDTH, rows * SLIP_HEIGHT, heading)
        half = SLIP_BLOCK_WIDTH / 2
        faces = []
        for at in range(count):
            column, row = divmod(at, rows)
            outline = Rect(block.x + column * half, block.y + row * SLIP_HEIGHT, half,
                           SLIP_HEIGHT)
            flap_x = outline.x if column == 0 else outline.x + SLIP_TAB + SLIP_FLAP
            inside_x = outline.x + SLIP_FLAP if column == 0 else outline.x + SLIP_TAB
            tab_x = outline.x + 2 * SLIP_FLAP if column == 0 else outline.x
            flap = Rect(flap_x, outline.y, SLIP_FLAP, SLIP_HEIGHT)
            inside = Rect(inside_x, outline.y, SLIP_FLAP, SLIP_HEIGHT)
            tab = Rect(tab_x, outline.y, SLIP_TAB, SLIP_HEIGHT)
            self.hatch(flap)
            self.cut_line(outline)
            self.fold_line(flap.x + SLIP_FLAP if column == 0 else flap.x, outline.y,
                           outline.y + SLIP_HEIGHT)
            self.placed.append(PlacedCard(kind, first + at, self.page, outline,
                                          (tab, inside, flap)))
            faces.append((tab, inside))
        return faces

    # -- drawing ------------------------------------------------------------------------------

    def cut_line(self, outline: Rect) -> None:
        self.pdf.set_draw_color(*INK)
        self.pdf.set_line_width(0.3)
        self.pdf.set_dash_pattern()
        self.pdf.rect(outline.x, outline.y, outline.w, outline.h)

    def fold_line(self, x: float, top: float, bottom: float) -> None:
        self.pdf.set_draw_color(*INK)
        self.pdf.set_line_width(0.2)
        self.pdf.set_dash_pattern(dash=1.5, gap=1.5)
        self.pdf.line(x, top, x, bottom)
        self.pdf.set_dash_pattern()

    def hatch(self, area: Rect, step: float = 2.5) -> None:
        """A light grid over a back, so the front does not show through thin paper."""
        area = area.inset(0.6)
        self.pdf.set_draw_color(*HATCH)
        self.pdf.set_line_width(0.25)
        x = area.x + step
        while x < area.x + area.w - 0.1:
            self.pdf.line(x, area.y, x, area.y + area.h)
            x += step
        y = area.y + step
        while y < area.y + area.h - 0.1:
            self.pdf.line(area.x, y, area.x + area.w, y)
            y += step
        self.pdf.set_draw_color(*INK)

    def stripes(self, area: Rect, step: float = 1.6) -> None:
        self.pdf.set_line_width(0.35)
        y = area.y + step / 2
        while y < area.y + area.h:
            self.pdf.line(area.x, y, area.x + area.w, y)
            y += step

    def dots(self, area: Rect, step: float = 2.2, radius: float = 0.35) -> None:
        self.pdf.set_fill_color(*INK)
        y = area.y + step / 2
        while y + radius < area.y + area.h:
            x = area.x + step / 2
            while x + radius < area.x + area.w:
                self.pdf.ellipse(x - radius, y - radius, 2 * radius, 2 * radius, style="F")
                x += step
            y += step

    def blank(self, area: Rect) -> None:
        self.pdf.set_fill_color(255, 255, 255)
        self.pdf.rect(area.x, area.y, area.w, area.h, style="F")

    def fit(self, text: str, area: Rect, size: float, style: str = "", align: str = "C",
            background: bool = False) -> None:
        """Write `text` in one line inside `area`, shrinking the font until it fits."""
        pdf = self.pdf
        while size > MIN_FONT:
            pdf.set_font("helvetica", style, size)
            if pdf.get_string_width(text) <= area.w - 1.0 and size * PT <= area.h:
                break
            size -= 0.5
        pdf.set_font("helvetica", style, size)
        pdf.set_text_color(*INK)
        if background:
            width = pdf.get_string_width(text) + 1.0
            left = {"C": area.x + (area.w - width) / 2, "L": area.x, "R": area.x + area.w - width}
            self.blank(Rect(left[align], area.y + (area.h - size * PT) / 2 - 0.3, width,
                            size * PT + 0.6))
        pdf.set_xy(area.x, area.y)
        pdf.cell(area.w, area.h, text, align=align)

    def output(self, path: str) -> None:
        self.pdf.output(path)
