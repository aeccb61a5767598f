"""The printed decks as a printer would print them: `voicehost cards` writes the PDF, poppler
turns its pages to pixels (pdftoppm) and to words with their boxes (pdftotext -bbox), and every
card and slip must fit its cut lines, fold the way its page says, and show on each face exactly
what its piece (cards/pieces.py) describes: the secrets its deck number stands for."""

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

from voicehost.cards.pieces import PRIVATE, SLIP, Piece, pieces
from voicehost.cards.render import render
from voicehost.cards.sheet import MARGIN as MARGIN_MM
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

# (game, players, seed, --set given): Ferret Out prints rows 1-16 of slips, 1-32 to play to 20
DECKS = [("secret-squad", 10, 482, ()), ("secret-squad", 3, 17, ()), ("ferret-out", 7, 250, ()),
         ("ferret-out", 3, 9, ("end=20",)), ("secret-operation", 10, 901, ()),
         ("secret-operation", 4, 3, ())]
SQUAD_WORDS = {"yellow", "red"}
IDENTITY_WORDS = {"engineer", "impostor"}


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
    pieces: tuple[Piece, ...]  # what each placed card is: `pieces[card.index]`
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
    return Printed(deck, paper, given, sheet.placed, sheet.headers, pieces(deck, settings),
                   pages, images)


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
    """Every private piece, in print order: Secret Squad's slips letter by letter, Ferret Out's
    letter by letter for rows 1-8, then for rows 9-16, ...; Secret Operation's identity cards."""
    cards = [c for c in printed.placed if c.kind in PRIVATE]
    assert [c.index for c in cards] == list(range(len(cards)))
    return cards


def row_layout(printed: Printed) -> FerretLayout:
    given = dict(item.split("=") for item in printed.settings)
    return ferret_layout(printed.deck, POUCHES, row_cards_for(given.get("end", "rounds")))


def face_words(texts: tuple[str, ...]) -> Counter[str]:
    return Counter(" ".join(texts).split())


def test_every_outside_shows_its_letter_and_the_deck_number_only(printed: Printed) -> None:
    """The face everyone may see: as its piece says, with the letter, the deck number and
    (a slip) its box or row, and no secret."""
    number = printed.deck.printed.split()
    secret_words = SQUAD_WORDS | IDENTITY_WORDS
    if printed.deck.game == "ferret-out":
        secret_words |= {w for row in row_layout(printed).rows
                         for w in (*row.ferret_words, *row.weasel_words)}
    for card in player_cards(printed):
        piece = printed.pieces[card.index]
        outside = words_in(printed, card, 0)
        assert Counter(outside) == face_words(piece.outside), (outside, piece)
        assert piece.letter in outside and set(number) <= set(outside), outside
        if card.kind == SLIP:
            assert set(piece.label.split()) <= set(outside)
        assert not secret_words & set(outside), outside


def test_ferret_out_prints_the_rows_its_ending_needs(printed: Printed) -> None:
    if printed.deck.game != "ferret-out":
        return
    needed = 32 if "end=20" in printed.settings else 16
    assert len(player_cards(printed)) == needed * printed.deck.players
    assert len(row_layout(printed).rows) == needed
    labels = [printed.pieces[c.index].label for c in player_cards(printed)]
    assert sorted(set(labels)) == sorted(f"row {r}" for r in range(1, needed + 1))
    # rows 9 on start on a page of their own, so they can wait until they are needed
    first_late = next(c for c in player_cards(printed)
                      if printed.pieces[c.index].label == "row 9")
    assert all(c.page < first_late.page for c in player_cards(printed)
               if int(printed.pieces[c.index].label.split()[1]) <= 8)


def test_every_inside_shows_the_one_secret_of_its_slip(printed: Printed) -> None:
    """A slip's inside shows its one box's squad (or its one row's six numbered words) for its
    letter, as the deck number stands for; an identity card's inside its identity."""
    deck = printed.deck
    for card in player_cards(printed):
        piece = printed.pieces[card.index]
        inside = words_in(printed, card, 1)
        assert Counter(inside) == face_words(piece.inside), (inside, piece)
        at = letters(deck.players).index(piece.letter)
        if deck.game == "secret-squad":
            box = int(piece.label.removeprefix("box "))
            squads = [w for w in inside if w in SQUAD_WORDS]
            assert squads == [squad_layout(deck).card(at)[box - 1]]
            assert [w for w in inside if w.isdigit()] == [str(box)]
        elif deck.game == "ferret-out":
            row = row_layout(printed).rows[int(piece.label.removeprefix("row ")) - 1]
            assert inside[1::2] == list(row.words_on(at))
            assert inside[::2] == [str(n) for n in range(1, 7)]
        else:
            identity = operation_layout(deck, BOARDS).identities[at]
            assert inside[:2] == ["Card", piece.letter] and identity in inside
            assert IDENTITY_WORDS & set(inside) == {identity}


def secret_words_of(printed: Printed) -> set[str]:
    """Every word of the deck that is some player's secret."""
    deck = printed.deck
    if deck.game == "secret-squad":
        return set(SQUAD_WORDS)
    if deck.game == "ferret-out":
        return {w for row in row_layout(printed).rows for w in (*row.ferret_words,
                                                               *row.weasel_words)}
    return set(IDENTITY_WORDS)


def test_folding_the_page_blind_shuts_every_inside_and_no_tab(printed: Printed) -> None:
    """Every private strip's fold lies a quarter of the paper's width from its left edge,
    where folding the page's edges together creases it; its cover, folded over that line,
    lands exactly on its inside and off its tab, which starts at the page's middle; and each
    fold line is printed dashed. The page heading sits over the tabs."""
    width, _ = PAPERS[printed.paper]
    strips = player_cards(printed)
    for card in strips:
        tab, inside, cover = card.panels
        fold = cover.x + cover.w
        assert fold == pytest.approx(width / 4)
        mirrored = Rect(2 * fold - cover.x - cover.w, cover.y, cover.w, cover.h)
        assert [round(v, 6) for v in (mirrored.x, mirrored.y, mirrored.w, mirrored.h)] == [
            round(v, 6) for v in (inside.x, inside.y, inside.w, inside.h)], card
        assert tab.x == pytest.approx(width / 2) and tab.x >= inside.x + inside.w, card
        image = printed.images[card.page - 1]
        column = image[px(card.outline.y) + 2: px(card.outline.y + card.outline.h) - 2,
                       px(fold) - 1: px(fold) + 1].min(axis=1)
        dark = column < DARK
        assert 0.25 < dark.mean() < 0.95, f"{card}: no dashed fold line at {fold}"
    for page in {c.page for c in strips}:
        assert all(header.x >= width / 2 for p, header in printed.headers if p == page)


def test_no_secret_on_a_face_the_preparer_handles(printed: Printed) -> None:
    """Made as page 1 says, face down, the preparer sees page 1, the pages' tab halves while
    folding them in half, and the covers while creasing them: none shows a secret word, and
    every secret word on the paper lies on an inside, the band the covers shut."""
    width, _ = PAPERS[printed.paper]
    secret = secret_words_of(printed)
    first = " ".join(w.text for w in printed.pages[0])
    assert not secret & set(first.split()), first
    for step in load_yaml("cards/fold.yaml")["fold_steps"]:
        assert " ".join(step.split()) in first
    assert not any(c.page == 1 for c in printed.placed), "page 1 holds no card"
    insides = [c.panels[1] for c in player_cards(printed)]
    strip_pages = {c.page for c in player_cards(printed)}
    for page, words in enumerate(printed.pages, 1):
        if page not in strip_pages:
            continue
        for word in words:
            if word.box.x + word.box.w <= width / 2 - MARGIN_MM + 0.5 and word.box.x >= (
                    width / 4 - 0.5):
                assert any(inside.contains(word.box, 0.5) for inside in insides), word
            else:
                assert word.text not in secret, f"page {page}: {word.text!r} shows"
                assert word.box.x >= width / 2 - 0.5, f"page {page}: {word} on a cover"


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
    for number, (board, demand, name) in enumerate(
            zip(boards, layout.modules, layout.boards, strict=True), 1):
        text = words_in(printed, board, 0)
        assert text[:5] == ["Module", str(number), "-", "board", name]
        needs = " ".join(text[text.index("Needs:") + 1:]).replace(",", "").split()
        assert needs[: len(demand)] == list(demand)


def test_cards_refuses_a_deck_the_game_cannot_have(tmp_path: Path) -> None:
    for game, players, seed, problem in [("ferret-out", 8, 1, "players"),
                                         ("secret-operation", 3, 1, "players"),
                                         ("secret-squad", 4, 1000, "seed")]:
        run = subprocess.run(voicehost("cards", game, "--players", str(players), "--seed",
                                       str(seed), "--out", str(tmp_path / "x.pdf")),
                             capture_output=True, text=True)
        assert run.returncode != 0 and problem in run.stderr and "Traceback" not in run.stderr
        assert not (tmp_path / "x.pdf").exists()


def test_the_page_count_counts_the_first_page(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    from voicehost.cli import main

    assert main(["cards", "secret-squad", "--players", "3", "--seed", "1",
                 "--out", str(tmp_path / "cards.pdf")]) == 0
    # the steps and its blank back, the slips and theirs
    assert "24 private slips, 4 pages in" in capsys.readouterr().out
