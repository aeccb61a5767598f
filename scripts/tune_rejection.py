"""Sweep PocketsphinxRecognizer's confidence floor on the recognition corpus, to choose it.

Decodes the corpus of voicehost/lab/hearing_corpus.py (every Secret Squad phrase in the chosen
voices, clean and at 15 dB SNR, plus out-of-option speech) once with the floor at 0, as
`voicehost hear` would, then applies every floor afterwards: share of option clips given the
right intent, share given a wrong intent, share of out-of-option clips accepted.

    python scripts/tune_rejection.py [--voices test|variants] [--whole-utterance]

--whole-utterance decodes each clip in one piece at the end (pocketsphinx's batch CMN) instead
of streaming it in 0.1 s blocks as the live ears do (live CMN); it prints the decode time at
the end of each utterance too.
"""

from __future__ import annotations

import argparse
import statistics
import time

from voicehost.lab.hearing_corpus import build_corpus, hear_in_parallel
from voicehost.lab.speakers import SPEAKERS, VOICES

FLOORS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--voices", choices=("test", "variants"), default="test")
    parser.add_argument("--whole-utterance", action="store_true",
                        help="decode each clip in one piece (batch CMN) instead of streaming")
    args = parser.parse_args()
    began = time.perf_counter()
    inside, outside = build_corpus(VOICES if args.voices == "test" else SPEAKERS)
    heard = hear_in_parallel([*inside, *outside], floor=0.0,
                             whole_utterance=args.whole_utterance)
    heard_in, heard_out = heard[: len(inside)], heard[len(inside):]
    latency = sorted(h.decode_seconds for h in heard)
    print(f"{len(inside)} option clips, {len(outside)} out-of-option clips,"
          f" {time.perf_counter() - began:.0f} s; decode after the end of each utterance:"
          f" median {statistics.median(latency):.3f} s,"
          f" p95 {latency[int(0.95 * (len(latency) - 1))]:.3f} s")
    print("  floor  right  wrong  false-accept")
    for floor in FLOORS:
        taken = [(c, h) for c, h in zip(inside, heard_in, strict=True)
                 if h.intent is not None and h.confidence >= floor]
        good = sum(h.intent == c.expected for c, h in taken)
        false = sum(h.intent is not None and h.confidence >= floor for h in heard_out)
        print(f"  {floor:5.2f}  {good / len(inside):5.1%}  {(len(taken) - good) / len(inside):5.1%}"
              f"  {false / len(outside):5.1%}")


if __name__ == "__main__":
    main()
