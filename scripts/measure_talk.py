"""How much the host talks: seeded whole games at a tidy table (voicehost/lab/tidy_table.py),
every player answering at once with a move the rules take, measured by voicehost/lab/talk.py.
Prints docs/voice.md's table, a row per title and table size: host speech minutes per game,
words per breath (median, p95), share of breaths over 20 words, the longest breath and the
longest stretch between two listens, read-backs asked a yes per round, and the most any
sentence of four words or more is said in one game.

    .venv/bin/python scripts/measure_talk.py [--seeds 3] [--render]

Minutes are counted at the default voice's pace (talk.PACE_WPS); with --render, every line
is rendered with joe at the default rate and its audio length counted instead (slow: a
minute or two a game).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from pathlib import Path

from voicehost.host.table import Seats
from voicehost.lab.talk import summary, talk_of
from voicehost.lab.tidy_table import TidyTable, tidy_game

TABLES = [("ferret-out", 5), ("ferret-out", 7), ("secret-squad", 6), ("secret-squad", 10),
          ("secret-operation", 4), ("secret-operation", 5), ("secret-operation", 8)]


def rendered_minutes(table: TidyTable) -> float:
    """The host's lines as joe says them: their audio, in minutes."""
    from voicehost.speech.mouth import Mouth

    mouth = Mouth(voice="joe")
    seconds = 0.0
    for text in table.said:
        if text.startswith("["):  # a sound, not a line
            continue
        samples, rate = mouth.render(text)
        seconds += len(samples) / rate
    return seconds / 60


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--render", action="store_true", help="time joe's audio")
    args = parser.parse_args()
    print("| game | players | minutes | words per breath (median / p95) | breaths over 20 "
          "words | longest breath | longest stretch | read-backs a round (mean / most) "
          "| most repeats |")
    print("|---|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as folder:
        for game, players in TABLES:
            talks, minutes = [], []
            for seed in range(1, args.seeds + 1):
                table = tidy_game(game, players, seed, Path(folder))
                names = frozenset(n.lower() for n in Seats.default(players).names)
                talk = talk_of(table, names)
                talks.append(talk)
                minutes.append(rendered_minutes(table) if args.render else talk.minutes)
            s = summary(talks)
            print(f"| {game} | {players} | {statistics.mean(minutes):.1f} "
                  f"(max {max(minutes):.1f}) | {s['breath_median']:.0f} / {s['breath_p95']} "
                  f"| {100 * s['long_breaths']:.1f} % | {s['longest_breath']} "
                  f"| {s['longest_stretch']} | {s['readbacks_per_round']:.1f} / "
                  f"{s['most_readbacks_in_a_round']} | {s['most_repeats']} |", flush=True)


if __name__ == "__main__":
    main()
