"""Measure what `voicehost hear` understands: every Secret Squad phrase, many voices.

For each voice set: every phrase the game accepts (tests/hearing_corpus.py takes them from the
prompts through `voicehost hear`'s own grammar) spoken by espeak-ng, clean and with white
noise at 15 dB SNR, plus out-of-option speech (chatter, near words, other names, noise bursts).
Prints, per voice and condition, the share of clips given the right intent and the share given
a wrong one, then the false accepts. The numbers in the README's recognition section come from

    python scripts/measure_hearing.py --voices test,variants [--floor 0.5] [--misses]

(--whole-utterance: decode each clip in one piece, with pocketsphinx's batch CMN, instead of
streaming it as the live ears do.)
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from hearing_corpus import Clip, Heard, build_corpus, hear_in_parallel, right  # noqa: E402
from speakers import SPEAKERS, VOICES, Speaker  # noqa: E402

from voicehost.speech.pocketsphinx_engine import DEFAULT_FLOOR  # noqa: E402

VOICE_SETS: dict[str, tuple[Speaker, ...]] = {"test": VOICES, "variants": SPEAKERS}


def describe(voice: Speaker) -> str:
    return f"{voice.name} ({voice.voice} -p {voice.pitch} -s {voice.speed})"


def report(voices: Sequence[Speaker], inside: Sequence[Clip], outside: Sequence[Clip],
           heard_in: Sequence[Heard], heard_out: Sequence[Heard], misses: bool) -> None:
    print(f"  {'voice':40s} {'clean right/wrong':>18s} {'noisy right/wrong':>18s}")
    for voice in voices:
        cells = []
        for noisy in (False, True):
            pairs = [(c, h) for c, h in zip(inside, heard_in, strict=True)
                     if c.speaker == voice.name and c.noisy == noisy]
            good = sum(right(c, h) for c, h in pairs)
            wrong = sum(h.intent is not None and not right(c, h) for c, h in pairs)
            cells.append(f"{good / len(pairs):8.1%} / {wrong / len(pairs):5.1%}")
        print(f"  {describe(voice):40s} {cells[0]:>18s} {cells[1]:>18s}")
    good = sum(right(c, h) for c, h in zip(inside, heard_in, strict=True))
    wrong = sum(h.intent is not None and not right(c, h)
                for c, h in zip(inside, heard_in, strict=True))
    print(f"  all options: {good} of {len(inside)} right ({good / len(inside):.1%}),"
          f" {wrong} wrong intent ({wrong / len(inside):.1%})")
    accepted = [(c, h) for c, h in zip(outside, heard_out, strict=True) if h.intent is not None]
    print(f"  out of option: {len(accepted)} of {len(outside)} accepted"
          f" ({len(accepted) / len(outside):.1%} false accepts): "
          + ", ".join(f"{c.text!r}->{h.text!r}" for c, h in accepted))
    if misses:
        for clip, heard in zip(inside, heard_in, strict=True):
            if not right(clip, heard):
                print(f"    miss {clip.speaker:8s} {'noisy' if clip.noisy else 'clean'}"
                      f" {clip.grammar} {clip.text!r} -> {heard.raw_text!r}"
                      f" ({heard.confidence:.2f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--voices", default="test", help="comma-separated: test, variants")
    parser.add_argument("--floor", type=float, default=DEFAULT_FLOOR)
    parser.add_argument("--misses", action="store_true", help="list every option clip missed")
    parser.add_argument("--whole-utterance", action="store_true",
                        help="decode each clip in one piece (batch CMN) instead of streaming")
    args = parser.parse_args()
    began = time.perf_counter()
    for name in args.voices.split(","):
        voices = VOICE_SETS[name]
        inside, outside = build_corpus(voices)
        started = time.perf_counter()
        heard = hear_in_parallel([*inside, *outside], floor=args.floor,
                                 whole_utterance=args.whole_utterance)
        print(f"\n== {name} voices, floor {args.floor}: {len(inside)} option clips,"
              f" {len(outside)} out-of-option clips, heard in"
              f" {time.perf_counter() - started:.0f} s")
        report(voices, inside, outside, heard[: len(inside)], heard[len(inside):], args.misses)
    print(f"\ntotal {time.perf_counter() - began:.0f} s")


if __name__ == "__main__":
    main()
