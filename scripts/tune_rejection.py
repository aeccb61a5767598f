"""Measure PocketsphinxRecognizer's rejection on synthetic players, to choose its defaults.

Builds the corpus of tests/test_pocketsphinx_engine.py (every phrase of the host's phrase
sets in the four espeak-ng voices, clean and at 15 dB SNR, plus table chatter, laughter,
near-miss words and noise bursts), decodes it once per engine setting with the confidence
floor at 0, and applies every floor afterwards. Prints, per setting: accuracy on the options
by speaker and condition, the false-accept rate on out-of-option speech, decode latency
(end of audio → text), and a floor sweep.

    python scripts/tune_rejection.py [--settings default,dither30,topn4] [--tempo] [--failures]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from test_pocketsphinx_engine import (  # noqa: E402
    SPEAKERS,
    Clip,
    build_corpus,
    hear_in_parallel,
    understood,
    voice_code,
)

from voicehost.speech.base import Hearing  # noqa: E402
from voicehost.speech.pocketsphinx_engine import DEFAULT_FLOOR  # noqa: E402

SETTINGS: dict[str, dict[str, object]] = {
    "default": {},
    "topn4": {"decoder_options": {"topn": 4}},  # pocketsphinx's own default: faster, worse
    "dither30": {"dither_sigma": 30.0},
    "seed1": {"seed": 1},
}
FLOORS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8)


def accepted(hearing: Hearing, floor: float) -> bool:
    return bool(hearing.text) and hearing.confidence >= floor


def rates(clips: Sequence[Clip], heard: Sequence[Hearing], floor: float) -> tuple[float, float]:
    """(understood, misheard as another meaning) fractions at `floor`."""
    taken = [understood(c, h) for c, h in zip(clips, heard, strict=True) if accepted(h, floor)]
    return sum(taken) / len(clips), (len(taken) - sum(taken)) / len(clips)


def false_accepts(heard: Sequence[Hearing], floor: float) -> float:
    return sum(accepted(h, floor) for h in heard) / len(heard)


def report_speakers(inside: Sequence[Clip], heard: Sequence[Hearing], floor: float) -> None:
    print(f"  options at floor {floor}: understood / misheard, per speaker")
    for speaker in SPEAKERS:
        cells = []
        for noisy in (False, True):
            pairs = [(c, h) for c, h in zip(inside, heard, strict=True)
                     if c.speaker == speaker.name and c.noisy == noisy]
            right, wrong = rates([c for c, _ in pairs], [h for _, h in pairs], floor)
            cells.append(f"{'noisy' if noisy else 'clean'} {right:6.1%} / {wrong:5.1%}")
        print(f"    {speaker.name:11s} " + "   ".join(cells))


def report_failures(inside: Sequence[Clip], heard: Sequence[Hearing], floor: float) -> None:
    """Print the option clips not understood, as the test's KNOWN_UNRELIABLE table."""
    failing: dict[tuple[str, str], str] = {}
    for clip, hearing in zip(inside, heard, strict=True):
        if not (accepted(hearing, floor) and understood(clip, hearing)):
            key = (clip.decision, clip.text)
            failing[key] = failing.get(key, "") + voice_code(clip)
    print(f"  options not understood at floor {floor}: {sum(map(len, failing.values()))}"
          f" of {len(inside)} clips, {len(failing)} of"
          f" {len({(c.decision, c.text) for c in inside})}"
          " (decision, phrase) pairs")
    print("KNOWN_UNRELIABLE = {")
    for (decision, text), codes in failing.items():
        print(f"    ({decision!r}, {text!r}): {codes!r},")
    print("}")


def report(name: str, inside: Sequence[Clip], outside: Sequence[Clip], heard_in: Sequence[Hearing],
           heard_out: Sequence[Hearing], seconds: float) -> None:
    latency = sorted(h.decode_seconds for h in [*heard_in, *heard_out])
    p95 = latency[int(0.95 * (len(latency) - 1))]
    print(f"\n== {name}: {len(inside)} option clips, {len(outside)} out-of-option clips,"
          f" decoded in {seconds:.0f} s")
    print(f"  decode latency (finish): median {statistics.median(latency) * 1000:.1f} ms,"
          f" p95 {p95 * 1000:.1f} ms")
    print("  floor  understood  misheard  false-accept")
    for floor in FLOORS:
        right, wrong = rates(inside, heard_in, floor)
        fa = false_accepts(heard_out, floor)
        print(f"  {floor:5.2f}  {right:9.1%}  {wrong:8.1%}  {fa:11.1%}")
    report_speakers(inside, heard_in, DEFAULT_FLOOR)
    fa = [(c.text, h.text) for c, h in zip(outside, heard_out, strict=True)
          if accepted(h, DEFAULT_FLOOR)]
    print(f"  false accepts at floor {DEFAULT_FLOOR}: {len(fa)}: "
          + ", ".join(f"{t!r}->{h!r}" for t, h in fa))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--settings", default="default",
                        help=f"comma-separated, from: {', '.join(SETTINGS)}")
    parser.add_argument("--tempo", action="store_true",
                        help="also measure the default on speech sped up by sox tempo 1.15")
    parser.add_argument("--failures", action="store_true",
                        help="list every option clip not understood at the default floor")
    args = parser.parse_args()
    began = time.perf_counter()
    corpora = {"": build_corpus()}
    if args.tempo:
        corpora["tempo 1.15"] = build_corpus(("tempo", "1.15"))
    print(f"corpus synthesized in {time.perf_counter() - began:.0f} s")
    runs = [(name, "") for name in args.settings.split(",")]
    runs += [("default", "tempo 1.15")] if args.tempo else []
    for name, effect in runs:
        inside, outside = corpora[effect]
        started = time.perf_counter()
        heard = hear_in_parallel([*inside, *outside], floor=0.0, **SETTINGS[name])
        heard_in, heard_out = heard[: len(inside)], heard[len(inside):]
        label = f"{name} ({effect})" if effect else name
        report(label, inside, outside, heard_in, heard_out, time.perf_counter() - started)
        if args.failures and name == "default" and not effect:
            report_failures(inside, heard_in, DEFAULT_FLOOR)
    print(f"\ntotal {time.perf_counter() - began:.0f} s")


if __name__ == "__main__":
    main()
