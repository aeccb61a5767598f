"""Every page of a printed deck of each game as a picture, open and folded as its first page
says, for docs/printed-cards.md:

    python scripts/card_images.py docs/cards

The decks are printed with the real command (`voicehost cards`) and turned to pixels by
poppler's pdftoppm. A folded page is drawn from its open picture: the page's left quarter, the
strip covers, turned under onto the insides, so the insides show the blank back of the paper.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

from PIL import Image, ImageDraw

from voicehost.cards.pieces import PRIVATE
from voicehost.cards.render import render
from voicehost.games.deck import Deck

DECKS = (Deck("secret-squad", 4, 21), Deck("ferret-out", 4, 21), Deck("secret-operation", 5, 21))
DPI = 40
TABLE = (120, 120, 120)  # what lies under a folded page


def folded(page: Image.Image) -> Image.Image:
    """The page with its left quarter folded under: blank paper over the insides."""
    width, height = page.size
    quarter = width // 4
    shut = page.copy()
    draw = ImageDraw.Draw(shut)
    draw.rectangle((0, 0, quarter - 1, height), fill=TABLE)
    draw.rectangle((quarter, 0, 2 * quarter - 1, height), fill=(250, 250, 250))
    draw.line((quarter, 0, quarter, height), fill=(0, 0, 0), width=1)
    return shut


def strip_pages(deck: Deck) -> set[int]:
    """The pages that hold a player's strips (slips or identity slips)."""
    return {card.page for card in render(deck).placed if card.kind in PRIVATE}


def draw_deck(deck: Deck, out: Path) -> list[Path]:
    written = []
    with tempfile.TemporaryDirectory() as folder:
        pdf = Path(folder) / "cards.pdf"
        subprocess.run([sys.executable, "-m", "voicehost.cli", "cards", deck.game, "--players",
                        str(deck.players), "--seed", str(deck.seed), "--out", str(pdf)],
                       check=True, capture_output=True)
        subprocess.run(["pdftoppm", "-r", str(DPI), "-png", str(pdf), f"{folder}/page"],
                       check=True)
        folding = strip_pages(deck)
        for number, path in enumerate(sorted(Path(folder).glob("page-*.png")), 1):
            page = Image.open(path).convert("RGB")
            target = out / f"{deck.game}-page{number}.png"
            page.save(target, optimize=True)
            written.append(target)
            if number in folding:
                target = out / f"{deck.game}-page{number}-folded.png"
                folded(page).save(target, optimize=True)
                written.append(target)
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="the folder for the pictures")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    for deck in DECKS:
        for path in draw_deck(deck, args.out):
            print(path)


if __name__ == "__main__":
    main()
