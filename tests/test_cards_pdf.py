"""The printed decks as a printer would print them: `voicehost cards` writes the PDF, poppler
turns its pages to pixels (pdftoppm) and to words with their boxes (pdftotext -bbox), and every
card must fit its cut lines and show exactly the secrets its deck number stands for."""

from __future__ import annotations

import re
import subprocess
from collections import Counter
from dataclasses import dataclass
from html import unescape
from pathlib import Path

import numpy as np
import pytest
from drive import voicehost

from voicehost.cards.render import render
from voicehost.cards.sheet import PAPERS, PlacedCard, Rect
from voicehost.games.deck import Deck, letters
from voicehost.games.layout import (
    FerretLayout,
    ferret_layout,
    operation_layout,
    row_cards_for,
    squad_layout,
)
from voicehost.games.secret_operation import CARDS_IN_BOX
from voicehost.host.ferret_out import deck as pouches
from voicehost.host.table import settings_from
from voicehost.prompts_dir import load_yaml
from voicehost.registry import GAMES

POUCHES = pouches()
BOARDS = load_yaml("secret_operation/boards.yaml")

MM_PER_PT = 25.4 / 72
DPI = 50
DARK = 160  # a grey level darker than this is ink
WORD = re.compile(r'<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">'
                  r"(.*?)</word>")
PAGE = re.compile(r"<page [^>]*>(.*?)</page>", re.S)

# (game, players, seed, --set given): Ferret Out prints 2 cards of rows each, 4 to play to 20
DECKS = [("secret-squad", 10, 482, ()), ("secret-squad", 3, 17, ()), ("ferret-out", 7, 250, ()),
         ("ferret-out", 3, 9, ("end=20",)), ("secret-operation", 10, 901, ()),
         ("secret-operation", 4, 3, ())]
PRIVATE = ("player", "more_rows")  # the kinds of card a player keeps secret


@dataclass(frozen=True)
class Word:
    text: str
    box: Rect  # millimetres


@dataclass
class Printed:
    deck: Deck
    paper: str
    settings: tuple[str, ...]
    placed: list[PlacedCard]
    headers: list[tuple[int, Rect]]
    pages: list[list[Word]]
    images: list[np.ndarray]


def read_pgm(path: Path) -> np.ndarray:
    data = path.read_bytes()
    magic, width, height, top, pixels = data.split(maxsplit=4)
    assert magic == b"P5" and int(top) == 255
    return np.frombuffer(pixels[: int(width) * int(height)], dtype=np.uint8).reshape(
        int(height), int(width))


def print_deck(folder: Path, deck: Deck, paper: str, given: tuple[str, ...]) -> Printed:
    """Print a deck with the real command and read it back as a printer's output."""
    pdf = folder / "cards.pdf"
    sets = [arg for item in given for arg in ("--set", item)]
    run = subprocess.run(voicehost("cards", deck.game, "--players", str(deck.players),
                                   "--seed", str(deck.seed), "--paper", paper, "--out", str(pdf),
                                   *sets),
                         capture_output=True, text=True, check=True)
    assert f"Deck number {deck.printed}" in run.stdout
    settings = settings_from(GAMES[deck.game].table.settings_type,
                             dict(item.split("=") for item in given))
    # where the cards were placed (the same deterministic layout)
    sheet = render(deck, paper, settings)
    html = subprocess.run(["pdftotext", "-bbox-layout", str(pdf), "-"], capture_output=True,
                          text=True, check=True).stdout
    pages = [[Word(unescape(w[4]), Rect(float(w[0]) * MM_PER_PT, float(w[1]) * MM_PER_PT,
                                        (float(w[2]) - float(w[0])) * MM_PER_PT,
                                        (float(w[3]) - float(w[1])) * MM_PER_PT))
              for w in WORD.findall(page)] for page in PAGE.findall(html)]
    subprocess.run(["pdftoppm", "-r", str(DPI), "-gray", str(pdf), str(folder / "page")],
                   check=True)
    images = [read_pgm(p) for p in sorted(folder.glob("page-*.pgm"))]
    assert len(images) == len(pages) == sheet.page
    return Printed(deck, paper, given, sheet.placed, sheet.headers, pages, images)


@pytest.fixture(scope="module", params=[(d, p) for d in DECKS for p in PAPERS],
                ids=lambda dp: "-".join([*map(str, dp[0][:2]), *dp[0][3], dp[1]]))
def printed(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Printed:
    (game, players, seed, given), paper = request.param
    return print_deck(tmp_path_factory.mktemp(f"{game}-{paper}"), Deck(game, players, seed),
                      paper, given)


def px(mm: float) -> int:
    return round(mm / 25.4 * DPI)


def test_pages_have_the_paper_size(printed: Printed) -> None:
    width, height = PAPERS[printed.paper]
    for image in printed.images:
        assert abs(image.shape[1] - px(width)) <= 1 and abs(image.shape[0] - px(height)) <= 1


def test_no_ink_outside_the_cut_lines(printed: Printed) -> None:
    for page, image in enumerate(printed.images, 1):
        allowed = np.zeros(image.shape, dtype=bool)
        areas = [c.outline for c in printed.placed if c.page == page]
        areas += [h for p, h in printed.headers if p == page]
        for area in areas:
            allowed[max(px(area.y) - 2, 0): px(area.y + area.h) + 2,
                    max(px(area.x) - 2, 0): px(area.x + area.w) + 2] = True
        ink = image < DARK
        assert ink.any()
        stray = np.argwhere(ink & ~allowed)
        assert len(stray) == 0, f"page {page}: ink outside every card at {stray[:5].tolist()}"


def test_every_card_has_its_cut_line_drawn(printed: Printed) -> None:
    for card in printed.placed:
        image = printed.images[card.page - 1]
        box = card.outline
        top = image[px(box.y) - 1: px(box.y) + 2, px(box.x) + 2: px(box.x + box.w) - 2]
        left = image[px(box.y) + 2: px(box.y + box.h) - 2, px(box.x) - 1: px(box.x) + 2]
        assert (top.min(axis=0) < DARK).mean() > 0.95, f"{card}: no cut line on top"
        assert (left.min(axis=1) < DARK).mean() > 0.95, f"{card}: no cut line on the left"


def test_every_word_sits_inside_one_panel(printed: Printed) -> None:
    for page, words in enumerate(printed.pages, 1):
        panels = [panel for c in printed.placed if c.page == page for panel in c.panels]
        panels += [h for p, h in printed.headers if p == page]
        for word in words:
            assert any(panel.contains(word.box, slack=0.5) for panel in panels), (
                f"page {page}: {word.text!r} at {word.box} crosses a cut or fold line")


def words_in(printed: Printed, card: PlacedCard, panel: int) -> list[str]:
    """A panel's words in reading order: lines top to bottom, each left to right."""
    area = card.panels[panel]
    inside = sorted((w for w in printed.pages[card.page - 1] if area.contains(w.box, 0.5)),
                    key=lambda w: w.box.y)
    lines: list[list[Word]] = []
    for word in inside:
        if lines and abs(lines[-1][0].box.y - word.box.y) < 1.0:
            lines[-1].append(word)
        else:
            lines.append([word])
    return [w.text for line in lines for w in sorted(line, key=lambda w: w.box.x)]


def player_cards(printed: Printed) -> list[PlacedCard]:
    """Every private card: each player's first, then each player's second (Ferret Out), ..."""
    cards = [c for c in printed.placed if c.kind in PRIVATE]
    players = printed.deck.players
    assert [c.index for c in cards] == list(range(players)) * (len(cards) // players)
    assert [c.kind for c in cards[:players]] == ["player"] * players
    return cards


def row_layout(printed: Printed) -> FerretLayout:
    given = dict(item.split("=") for item in printed.settings)
    return ferret_layout(printed.deck, POUCHES, row_cards_for(given.get("end", "rounds")))


def test_every_back_shows_its_letter_and_the_deck_number(printed: Printed) -> None:
    number = printed.deck.printed.split()
    cards = player_cards(printed)
    for at, card in enumerate(cards):
        back = words_in(printed, card, 0)
        assert letters(printed.deck.players)[card.index] in back and back[-2:] == number, back
        if printed.deck.game == "ferret-out":
            rows = row_layout(printed).on_row_card(1 + at // printed.deck.players)
            assert f"{rows[0].round}-{rows[-1].round}" in back, back


def test_ferret_out_prints_the_rows_its_ending_needs(printed: Printed) -> None:
    if printed.deck.game != "ferret-out":
        return
    needed = 4 if "end=20" in printed.settings else 2
    assert len(player_cards(printed)) == needed * printed.deck.players
    assert len(row_layout(printed).rows) == needed * 8


def test_every_front_shows_the_secrets_of_its_card(printed: Printed) -> None:
    deck = printed.deck
    for at, card in enumerate(player_cards(printed)):
        front = words_in(printed, card, 1)
        assert front[:2] == ["Card", letters(deck.players)[card.index]]
        if deck.game == "secret-squad":
            squads = [w for w in front if w in ("YELLOW", "RED")]
            assert squads == [s.upper() for s in squad_layout(deck).card(card.index)]
            assert [w for w in front if w.isdigit()] == [str(n) for n in range(1, 9)]
        elif deck.game == "ferret-out":
            shown = [w for w in front[front.index("names.") + 1:]
                     if not w.isdigit() and w != "Row"]
            rows = row_layout(printed).on_row_card(1 + at // deck.players)
            expected = [w for row in rows for w in row.words_on(card.index)]
            assert shown == expected
        else:
            identity = operation_layout(deck, BOARDS).identities[card.index]
            assert identity.upper() in front
            assert {"ENGINEER", "IMPOSTOR"} - {identity.upper()} & set(front) == set()


def test_secret_operation_prints_every_game_card_and_board(printed: Printed) -> None:
    if printed.deck.game != "secret-operation":
        assert {c.kind for c in printed.placed} <= set(PRIVATE)  # private cards only
        return
    games = [c for c in printed.placed if c.kind == "game"]
    faces = Counter(w for c in games for w in words_in(printed, c, 1))
    assert faces == Counter({card.upper(): n for card, n in CARDS_IN_BOX.items()})
    backs = {" ".join(words_in(printed, c, 0)) for c in games}
    assert backs == {"Secret Operation"}, "game cards must look alike face down"
    boards = [c for c in printed.placed if c.kind == "board"]
    layout = operation_layout(printed.deck, BOARDS)
    for board, demand, name in zip(boards, layout.modules, layout.boards, strict=True):
        text = words_in(printed, board, 0)
        assert text[:5] == ["Module", str(board.index + 1), "-", "board", name]
        needs = " ".join(text[text.index("Needs:") + 1:]).replace(",", "").split()
        assert needs[: len(demand)] == list(demand)


def test_cards_refuses_a_deck_the_game_cannot_have(tmp_path: Path) -> None:
    for game, players, seed in [("ferret-out", 8, 1), ("secret-operation", 3, 1),
                                ("secret-squad", 4, 1000)]:
        run = subprocess.run(voicehost("cards", game, "--players", str(players), "--seed",
                                       str(seed), "--out", str(tmp_path / "x.pdf")),
                             capture_output=True, text=True)
        assert run.returncode != 0 and "players" in run.stderr and "Traceback" not in run.stderr
        assert not (tmp_path / "x.pdf").exists()


def test_one_page_is_one_page(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from voicehost.cli import main

    assert main(["cards", "secret-squad", "--players", "3", "--seed", "1",
                 "--out", str(tmp_path / "cards.pdf")]) == 0
    assert "3 private cards, 1 page in" in capsys.readouterr().out  # was "1 pages"
