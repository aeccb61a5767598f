"""How often printed Ferret Out runs out of rows: simulated games of every ending, scored by the
rules' own functions, end with a tie still standing at the last printed row (a shared win).

    python scripts/row_counts.py [--games 4000] [--seed 1]

A table is modelled by how often a Ferret names the Weasel; the Weasel names themself 30 % of
the time and then guesses the Ferrets' word 40 % of the time. Figures go to
docs/rules-notes.md.
"""

from __future__ import annotations

import argparse
import random

from voicehost.games.ferret_out import (
    ENDINGS,
    MAX_PLAYERS,
    MIN_PLAYERS,
    end_reached,
    leaders,
    score_round,
)
from voicehost.games.layout import ROWS_PER_CARD, row_cards_for

FINDS = (0.3, 0.5, 0.8)  # how often a Ferret names the Weasel


def rounds_to_a_winner(players: int, end: str | int, find: float, rng: random.Random,
                       cap: int = 200) -> int:
    scores = [0] * players
    for round_number in range(1, cap + 1):
        weasel = rng.randrange(players)
        accusations = []
        for seat in range(players):
            others = [s for s in range(players) if s not in (seat, weasel)]
            if seat == weasel:
                right = rng.random() < 0.3
                accusations.append(seat if right else rng.choice(others))
            else:
                right = rng.random() < find or not others
                accusations.append(weasel if right else rng.choice(others))
        guesses = {}
        if accusations[weasel] == weasel:
            guesses[weasel] = "word" if rng.random() < 0.4 else "miss"
        points = score_round(accusations, weasel, guesses, "word")
        scores = [a + b for a, b in zip(scores, points, strict=True)]
        if end_reached(round_number, scores, end) and len(leaders(scores)) == 1:
            return round_number
    return cap


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=4000, help="per player count and table")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    print("ending  rows  table  games  median  longest  shared")
    for end in ENDINGS:
        rows = row_cards_for(end) * ROWS_PER_CARD
        worst = 0.0
        for find in FINDS:
            lengths = sorted(rounds_to_a_winner(players, end, find, rng)
                             for players in range(MIN_PLAYERS, MAX_PLAYERS + 1)
                             for _ in range(args.games))
            shared = sum(n > rows for n in lengths) / len(lengths)
            worst = max(worst, shared)
            print(f"{end!s:>6}  {rows:>4}  {find:>5.0%}  {len(lengths):>5}  "
                  f"{lengths[len(lengths) // 2]:>6}  {lengths[-1]:>7}  {shared:>6.3%}")
        print(f"{end!s:>6}: a shared tie in at most {worst:.3%} of games")


if __name__ == "__main__":
    main()
