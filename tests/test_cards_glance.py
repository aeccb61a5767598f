"""A printed page tells nothing at a glance: seen from across a room, on a screen or in a
thumbnail, a secret looks like any other.

Each deck is printed with `voicehost cards` and turned to pixels at 20 dpi by poppler's
pdftoppm (about what a page shows across a room, or a viewer's thumbnail). Every inside is cut
out of its page, and the insides are compared two by two: two that hold different secrets must
differ on average by no more than two that hold the same, within 1 % of full scale.
"""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from voicehost.cards.pieces import IDENTITY, SLIP, Piece, pieces
from voicehost.cards.render import render
from voicehost.cards.sheet import Rect
from voicehost.games.deck import Deck
from voicehost.games.ferret_out import PouchPair
from voicehost.games.layout import ferret_layout, row_cards_for
from voicehost.prompts_dir import load_yaml

DPI = 20
ALLOWED = 0.01  # of full scale
EDGE = 1.5  # mm cut off each inside's edges: the fold and cut lines, not the print


def insides(deck: Deck, folder: Path) -> list[tuple[Piece, np.ndarray]]:
    """Every private piece of the deck with its inside as grey pixels (0 white .. 1 black),
    all cut to one size."""
    pdf = folder / "cards.pdf"
    subprocess.run([sys.executable, "-m", "voicehost.cli", "cards", deck.game, "--players",
                    str(deck.players), "--seed", str(deck.seed), "--out", str(pdf)],
                   check=True, capture_output=True)
    subprocess.run(["pdftoppm", "-r", str(DPI), "-gray", "-png", str(pdf), f"{folder}/page"],
                   check=True)
    pages = {int(p.stem.rsplit("-", 1)[1]):
             1 - np.asarray(Image.open(p).convert("L"), float) / 255
             for p in folder.glob("page-*.png")}
    deck_pieces = pieces(deck)
    cut: list[tuple[Piece, np.ndarray]] = []
    for card in render(deck).placed:
        if card.kind not in (SLIP, IDENTITY):
            continue
        inside: Rect = card.panels[1].inset(EDGE)
        x, y = (round(v / 25.4 * DPI) for v in (inside.x, inside.y))
        w, h = (int(v / 25.4 * DPI) for v in (inside.w, inside.h))
        cut.append((deck_pieces[card.index], pages[card.page][y:y + h, x:x + w]))
    size = min(a.shape for _, a in cut)
    return [(piece, pixels[: size[0], : size[1]]) for piece, pixels in cut]


def squad_secret(deck: Deck) -> Callable[[Piece], object]:
    return lambda piece: piece.inside[1]


def ferret_secret(deck: Deck) -> Callable[[Piece], object]:
    """A slip's secret is whether it is its row's Weasel's: compared within a row, as someone
    comparing the letters' slips would."""
    pairs = [PouchPair.from_json(p) for p in load_yaml("ferret_out/pouches.yaml")["pouches"]]
    layout = ferret_layout(deck, pairs, row_cards_for("rounds"))
    rows = {f"row {row.round}": row for row in layout.rows}
    letters = sorted({piece.letter for piece in pieces(deck)})

    def secret(piece: Piece) -> object:
        row = rows[piece.label]
        return (piece.label, letters.index(piece.letter) == row.weasel)

    return secret


def identity_secret(deck: Deck) -> Callable[[Piece], object]:
    return lambda piece: piece.inside[4]


SECRETS = {"secret-squad": squad_secret, "ferret-out": ferret_secret,
           "secret-operation": identity_secret}


def glance(deck: Deck, folder: Path) -> tuple[float, float]:
    """The mean difference between two insides with different secrets, and between two with
    the same, as fractions of full scale. Ferret Out's slips are compared within their row."""
    secret_of = SECRETS[deck.game](deck)
    cut = insides(deck, folder)
    same: list[float] = []
    different: list[float] = []
    for (a, pixels_a), (b, pixels_b) in itertools.combinations(cut, 2):
        if deck.game == "ferret-out" and a.label != b.label:
            continue
        gap = float(np.abs(pixels_a - pixels_b).mean())
        (same if secret_of(a) == secret_of(b) else different).append(gap)
    return float(np.mean(different)), float(np.mean(same))


@pytest.mark.parametrize(("game", "players"), [("secret-squad", 5), ("secret-squad", 8),
                                               ("ferret-out", 5), ("secret-operation", 7)])
def test_no_glance_tells_one_secret_from_another(game: str, players: int,
                                                 tmp_path: Path) -> None:
    different, same = glance(Deck(game, players, 21), tmp_path)
    print(f"\n{game}, {players} players: insides with different secrets differ by "
          f"{different:.2%}, with the same secret by {same:.2%}")
    assert different <= same + ALLOWED


def test_no_secret_is_printed_on_the_back_of_a_page(tmp_path: Path) -> None:
    """Printed double-sided after all (the PDF asks for one-sided), every page of secrets has
    a sheet to itself: it starts on a front, and its back is blank."""
    for deck in (Deck("secret-squad", 7, 3), Deck("ferret-out", 5, 3),
                 Deck("secret-operation", 6, 3)):
        sheet = render(deck)
        pdf = tmp_path / f"{deck.game}.pdf"
        sheet.output(str(pdf))
        secret = {card.page for card in sheet.placed if card.kind in (SLIP, IDENTITY)}
        assert secret and all(page % 2 == 1 for page in secret), (deck.game, secret)
        texts = {page: subprocess.run(["pdftotext", "-f", str(page), "-l", str(page),
                                       str(pdf), "-"], capture_output=True, text=True,
                                      check=True).stdout for page in range(1, sheet.page + 1)}
        for page in secret:
            assert "blank on purpose" in texts[page + 1], (deck.game, page)
        assert b"/Duplex /Simplex" in pdf.read_bytes()


def test_cards_print_sends_the_deck_one_sided_to_the_default_printer(tmp_path: Path) -> None:
    """`--print` hands the PDF to CUPS's lp, one-sided (an lp of ours on PATH keeps what it
    was asked), and no lp is one line."""
    bin_dir, asked = tmp_path / "bin", tmp_path / "asked.txt"
    bin_dir.mkdir()
    (bin_dir / "lp").write_text(f'#!/bin/sh\necho "$@" > {asked}\necho "request id is p-1"\n')
    (bin_dir / "lp").chmod(0o755)
    out = tmp_path / "cards.pdf"
    command = [sys.executable, "-m", "voicehost.cli", "cards", "secret-squad", "--players",
               "4", "--out", str(out), "--print"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}"})
    assert done.returncode == 0, done.stderr
    assert asked.read_text().split() == ["-o", "sides=one-sided", str(out)]
    assert "request id is p-1" in done.stdout and "one-sided" in done.stdout
    assert "face down" in done.stdout
    bin_dir.joinpath("lp").unlink()
    done = subprocess.run(command, capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PATH": f"{bin_dir}:/usr/bin/nonexistent"})
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1
    assert "no lp" in done.stderr
