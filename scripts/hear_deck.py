"""Run the real `voicehost hear` on every Ferret Out deck word, one process per word.

Each word is spoken by espeak-ng (plain en-us, as tests/test_ferret_out_hear.py speaks it) and
heard among its round's twelve words with the guess decision's grammar. Prints how many were
heard right, every miss, the lowest confidences and the median time per call:

    python scripts/hear_deck.py [--workers 2] [--engine auto]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from multiprocessing import Pool
from pathlib import Path

from voicehost.host.ferret_out import deck
from voicehost.lab.speakers import PLAIN, speak_wav


def hear_pouch(pouch: int, engine: str) -> list[tuple[str, dict]]:
    heard = []
    with tempfile.TemporaryDirectory() as tmp:
        for word in deck()[pouch].words():
            wav = speak_wav(word, PLAIN, Path(tmp) / "word.wav")
            out = subprocess.run(
                [sys.executable, "-m", "voicehost.cli", "hear", str(wav), "--engine",
                 engine, "--game", "ferret-out", "--decision", "guess", "--pouch",
                 str(pouch), "--players", "5"], check=True, capture_output=True, text=True).stdout
            heard.append((word, json.loads(out)))
    return heard


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--engine", choices=("pocketsphinx", "whisper", "auto"),
                        default="pocketsphinx")
    args = parser.parse_args()
    with Pool(args.workers) as pool:
        heard = [row for part in pool.starmap(hear_pouch, [(pouch, args.engine) for pouch
                                                           in range(len(deck()))])
                 for row in part]
    right = [(w, r) for w, r in heard if (r["intent"], r["value"]) == ("choose", w)]
    print(f"heard right: {len(right)}/{len(heard)}")
    for word, result in heard:
        if (word, result) not in right:
            print(f"  {word!r}: heard {result['raw_text']!r} -> {result['intent']} "
                  f"{result['value']!r} ({result['confidence']})")
    lowest = sorted((r["confidence"], w) for w, r in right)[:5]
    print("lowest confidences:", ", ".join(f"{w} {c}" for c, w in lowest))
    print("under 0.6:", sum(r["confidence"] < 0.6 for _, r in right))
    print("median per call: decode {:.3f} s, total {:.3f} s".format(
        statistics.median(r["timings"]["decode_seconds"] for _, r in heard),
        statistics.median(r["timings"]["total_seconds"] for _, r in heard)))


if __name__ == "__main__":
    main()
