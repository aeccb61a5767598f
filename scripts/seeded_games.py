"""Seeded games in text mode, every line said and every event, to compare before and after a
change that must not change what the host does:

    python scripts/seeded_games.py before.json      # on the old code
    python scripts/seeded_games.py after.json       # on the new
    cmp before.json after.json

Each game is a table drawn as the fuzzer draws them (every title, table size and card kind) and
told what a careless table types (voicehost/lab/random_table.py). Times are left out.
"""

from __future__ import annotations

import argparse
import io
import json
import random
import tempfile
from pathlib import Path

from fuzz import TYPED, new_table

from voicehost.host.events import EventStream
from voicehost.host.host import Host
from voicehost.lab.random_table import careless_line
from voicehost.speech.text_voice import TextVoice
from voicehost.store.journal import Journal

TIMES = ("time", "decode_seconds", "response_seconds")


def seeded_game(seed: int, folder: Path) -> dict:
    rng = random.Random(seed)
    table = new_table(rng)
    journal = Journal(folder / f"{seed}.jsonl", new=True)
    journal.append(table.setup_record())
    lines = [careless_line(TYPED, rng) or "" for _ in range(rng.randint(50, 600))]
    said, events = io.StringIO(), io.StringIO()
    try:
        Host(table, TextVoice(io.StringIO("\n".join(lines) + "\n"), said), journal,
             EventStream(events)).run()
    finally:
        journal.close()
    return {"seed": seed, "game": table.deck_game, "said": said.getvalue(),
            "events": [{key: value for key, value in json.loads(line).items()
                        if key not in TIMES} for line in events.getvalue().splitlines()]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="where to write the games (JSON)")
    parser.add_argument("--games", type=int, default=36)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        games = [seeded_game(seed, Path(folder)) for seed in range(args.games)]
    args.out.write_text(json.dumps(games, indent=0, ensure_ascii=False), encoding="utf-8")
    print(f"{len(games)} games, {sum(len(game['events']) for game in games)} events")


if __name__ == "__main__":
    main()
