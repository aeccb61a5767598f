"""Pages of cards to cut out and fold: placing cards on paper, cut and fold lines, fitted text.

A folding card is two panels side by side, the back on the left and the front on the right.
Cut along the solid outline, fold along the dashed middle line with the print outside, and the
card has the back on one face and the front on the other: lying face down it shows only the
back.

A page of secrets is folded before anyone can see its print, so every crease it needs lies
where folding its edges together puts one: a quarter of the paper's width from its left edge.
Each **strip** across such a page is a cover, an inside and a tab: the cover is the page's
left quarter (up to the margin), the inside its mirror over the quarter line, the tab the
page's right half. Face down, the page is folded in half showing only tabs, its other edge
folded to that middle crease showing only covers, and each cover then folded back under onto
its inside, print to print: turned over, the page shows the tabs, every inside shut under the
blank back of its cover. The page heading sits over the tabs, so it is never folded under.
Lengths are millimetres; y grows down the page.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from fpdf import FPDF, ViewerPreferences
from fpdf.enums import Duplex

PAPERS = {"a4": (210.0, 297.0), "letter": (215.9, 279.4)}
MARGIN = 10.0
GAP = 4.0  # between cards, so each cut line belongs to one card
HEADER = 10.0  # the page's heading lines above the cards
MIN_FONT = 5.0
PT = 25.4 / 72  # millimetres in a typographic point

SLIP_HEIGHT = 10.5
IDENTITY_HEIGHT = 24.0

BLANK_BACK = "This side is blank on purpose: no secret is ever printed on the back of a page."
INK = (0, 0, 0)
HATCH = (205, 205, 205)
# The security tint under every secret: a fine grey crosshatch, the same on every inside. Seen
# from across a room, on a screen or in a thumbnail it is an even grey that the modest type
# over it barely changes; up close the dark type reads plainly over the grey lines.
TINT = (165, 165, 165)
TINT_STEP = 0.6
TINT_LINE = 0.15
SECRET_INK = (70, 70, 70)


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
    secret_pages: set[int] = field(default_factory=set)
    _cursor: tuple[float, float, float] = (0.0, 0.0, 0.0)  # x, y, tallest card in the row

    def __post_init__(self) -> None:
        if self.paper not in PAPERS:
            raise ValueError(f"paper must be one of {', '.join(PAPERS)}")
        self.pdf = FPDF(unit="mm", format=PAPERS[self.paper])
        self.pdf.set_auto_page_break(False)
        self.pdf.set_margins(MARGIN, MARGIN)
        self.pdf.set_title(self.title)
        self.pdf.set_creator("voicehost")
        # asks the viewer's print dialog for one-sided printing at full size
        self.pdf.viewer_preferences = ViewerPreferences(duplex=Duplex.SIMPLEX,
                                                        print_scaling="None")

    @property
    def size(self) -> tuple[float, float]:
        return PAPERS[self.paper]

    @property
    def page(self) -> int:
        return self.pdf.page

    def new_page(self, heading: tuple[str, ...], over_tabs: bool = False) -> None:
        """A fresh page, its heading one line after another at the top (`over_tabs`: over the
        page's right half only, where the strips' tabs are: a page of secrets). A page of
        secrets starts on a sheet of its own, so printed double-sided after all, no secret
        lies on the back of another page."""
        if self.page in self.secret_pages or (over_tabs and self.page % 2 == 1):
            self.blank_back()
        self.pdf.add_page()
        if over_tabs:
            self.secret_pages.add(self.page)
        width, _ = self.size
        left = width / 2 if over_tabs else MARGIN
        header = Rect(left, MARGIN, width - MARGIN - left, HEADER - 2)
        for line, area in zip(heading, header.rows(len(heading)), strict=True):
            self.fit(line, area, size=9, align="L")
        self.headers.append((self.page, header))
        self._cursor = (MARGIN, MARGIN + HEADER, 0.0)

    def place(self, width: float, height: float, heading: tuple[str, ...],
              over_tabs: bool = False) -> Rect:
        """Room for a card of this size: further along the row, on the next row, or on a new
        page (which starts with `heading`, `over_tabs` or not)."""
        page_width, page_height = self.size
        if width > page_width - 2 * MARGIN or height > page_height - 2 * MARGIN - HEADER:
            raise ValueError(f"a {width} x {height} mm card does not fit on {self.paper} paper")
        if self.pdf.page == 0:
            self.new_page(heading, over_tabs)
        x, y, tallest = self._cursor
        if x + width > page_width - MARGIN:
            x, y, tallest = MARGIN, y + tallest + GAP, 0.0
        if y + height > page_height - MARGIN:
            self.new_page(heading, over_tabs)
            x, y, tallest = self._cursor
        self._cursor = (x + width + GAP, y, max(tallest, height))
        return Rect(x, y, width, height)

    def blank_back(self) -> None:
        """A page left blank: the back of a page of secrets, or of the page before one."""
        self.pdf.add_page()
        width, height = self.size
        note = Rect(MARGIN, height / 2, width - 2 * MARGIN, 6)
        self.fit(BLANK_BACK, note, size=8)
        self.headers.append((self.page, note))

    def instructions(self, title: str, steps: list[str]) -> None:
        """A page of its own with no card on it: a title, then each step as a paragraph."""
        self.pdf.add_page()
        width, height = self.size
        area = Rect(MARGIN, MARGIN, width - 2 * MARGIN, height - 2 * MARGIN)
        pdf = self.pdf
        pdf.set_text_color(*INK)
        pdf.set_xy(area.x, area.y)
        pdf.set_font("helvetica", "B", 16)
        pdf.multi_cell(area.w, 9, title, align="L")
        pdf.set_font("helvetica", "", 12)
        for step in steps:
            pdf.set_x(area.x)
            pdf.multi_cell(area.w, 6.5, step, align="L")
            pdf.ln(3)
        self.headers.append((self.page, area))
        self._cursor = (MARGIN, height, 0.0)  # the next card starts a new page

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

    def quarter(self) -> float:
        """Where a page's blind creases put the fold between each cover and its inside."""
        return self.size[0] / 4

    def strip_block(self, kind: str, first: int, count: int, height: float,
                    heading: tuple[str, ...]) -> list[tuple[Rect, Rect]]:
        """Place `count` strips one under another, indexed from `first`; draw their cut and fold
        lines and hatch their covers. Returns each strip's (tab, inside)."""
        width, _ = self.size
        block = self.place(width - 2 * MARGIN, count * height, heading, over_tabs=True)
        fold = self.quarter()
        faces = []
        for at in range(count):
            outline = Rect(block.x, block.y + at * height, block.w, height)
            cover = Rect(outline.x, outline.y, fold - outline.x, height)
            inside = Rect(fold, outline.y, cover.w, height)
            tab = Rect(width / 2, outline.y, outline.x + outline.w - width / 2, height)
            self.hatch(cover)
            self.cut_line(outline)
            self.fold_line(fold, outline.y, outline.y + height)
            self.placed.append(PlacedCard(kind, first + at, self.page, outline,
                                          (tab, inside, cover)))
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

    def tint(self, area: Rect) -> None:
        """The security tint over `area`: lines both ways on the diagonal, clipped to it."""
        pdf = self.pdf
        pdf.set_draw_color(*TINT)
        pdf.set_line_width(TINT_LINE)
        with pdf.rect_clip(area.x, area.y, area.w, area.h):
            offset = -area.h
            while offset < area.w:
                pdf.line(area.x + offset, area.y, area.x + offset + area.h, area.y + area.h)
                pdf.line(area.x + offset, area.y + area.h, area.x + offset + area.h, area.y)
                offset += TINT_STEP
        pdf.set_draw_color(*INK)

    def secret(self, text: str, area: Rect, size: float) -> None:
        """A secret in modest type, stretched or squeezed to fill `area`'s width exactly:
        every secret of a kind takes the same room and nearly the same ink, whatever its
        word, so its shape tells nothing at a glance."""
        pdf = self.pdf
        pdf.set_font("helvetica", "", size)
        natural = pdf.get_string_width(text)
        pdf.set_stretching(100.0 * area.w / natural if natural else 100.0)
        pdf.set_text_color(*SECRET_INK)
        pdf.set_xy(area.x, area.y)
        margin, pdf.c_margin = pdf.c_margin, 0.0
        pdf.cell(area.w, area.h, text, align="L")
        pdf.c_margin = margin
        pdf.set_stretching(100.0)
        pdf.set_text_color(*INK)

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

    def finish(self) -> None:
        """After the last card: a last page of secrets gets its blank back too."""
        if self.page in self.secret_pages:
            self.blank_back()

    def output(self, path: str) -> None:
        self.pdf.output(path)
