"""Fit the Whisper engine's logistic confidence on measured evidence, and choose its floor.

Reads what `measure_hearing.py --pipeline whisper --floor 0 --json FILE` wrote (each clip's
best phrase and the evidence its confidence comes from), and what `measure_phrasings.py
--spoken --engine whisper --floor 0 --json FILE` wrote (condition "phrasing"; free speech and
deck words left out), fits the weights on the tune half, takes the lowest floor that keeps
wrong intents and accepted out-of-option clips under their bars on the tune half (for real
people's clips, the phrasings and the synthetic clips each), then compares the fit with the
weights in use on the held-out half.

    for half in tune held-out; do  # the corpus built with --fsdd and --kitchen
      python scripts/measure_hearing.py --pipeline whisper --half $half --limit 2400 --floor 0 \\
          --json build/measure/$half-f0.json
      python scripts/measure_hearing.py --pipeline whisper --half $half --floor 0 \\
          --kinds chatter,babble,pink,silence,noise,real,real-other \\
          --json build/measure/$half-out-f0.json
    done
    python scripts/measure_phrasings.py --spoken --half tune --voices 1 --engine whisper \\
        --floor 0 --json build/measure/tune-spoken-f0.json    # and --half held_out
    python scripts/fit_whisper_confidence.py \\
        --tune build/measure/{tune-f0,tune-out-f0,tune-spoken-f0}.json \\
        --held-out build/measure/{held-out-f0,held-out-out-f0,held-spoken-f0}.json
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from voicehost.lab.phrasings import REFUSED
from voicehost.speech import confidence as in_use

CONDITIONS = ("clean", "babble20", "babble10", "babble5", "reverb", "slow", "fast", "real",
              "kitchen9", "phrasing")
REAL_CONDITIONS = ("real", "kitchen9")
UNSCORED_KINDS = {"clue", "guess"}  # free speech, and the deck words pocketsphinx hears
OUTSIDE_WEIGHT = 3.0  # an accepted out-of-option clip costs like three refused right phrases
MAX_WRONG = 0.01  # of option clips given a wrong intent, on the tune half
MAX_OUTSIDE = 0.02  # of out-of-option clips given an intent, on the tune half
IN_USE = np.array([in_use.W_SCORE, in_use.W_FREE_GAP, in_use.W_MARGIN, in_use.W_WORDS,
                   in_use.W_SIMILARITY, in_use.W_LETTERS_SHARE, in_use.W_LETTERS_GAP,
                   in_use.W_AROUND, in_use.BIAS])
NAMES = ("W_SCORE", "W_FREE_GAP", "W_MARGIN", "W_WORDS", "W_SIMILARITY", "W_LETTERS_SHARE",
         "W_LETTERS_GAP", "W_AROUND", "BIAS")


@dataclass(frozen=True)
class Clip:
    file: str
    voice: str
    condition: str
    option: bool  # the clip says one of the offered options
    right: bool  # the best phrase was the clip's own option
    taken: bool  # at floor 0 the host took an answer (the free transcript may still refuse)
    x: tuple[float, ...] | None  # the evidence's terms; None when no phrase was scored


def terms(evidence: dict[str, float]) -> tuple[float, ...]:
    """The terms of confidence.confidence's logit, in the order of its weights."""
    return (evidence["score"], min(evidence["free_gap"], 0.0),
            min(evidence["margin"], in_use.MARGIN_CAP), evidence["words"],
            evidence["similarity"], max(evidence["letters_share"], -in_use.LETTERS_CAP),
            max(evidence["letters_gap"], -in_use.LETTERS_CAP), evidence["around"])


def read(path: Path) -> list[Clip]:
    """The clips of a measure_hearing or spoken-phrasing JSON written at floor 0 (whatever was
    heard counts)."""
    data = json.loads(path.read_text())
    if isinstance(data, list):
        return [Clip(f"{r['kind']}|{r['say']}|{r['voice']}", r["voice"], "phrasing",
                     r["want"] != REFUSED, r["want"] != REFUSED and r["got"] == r["want"],
                     r["got"] != REFUSED, terms(r["evidence"])
                     if r["evidence"] else None)
                for r in data if r["kind"] not in UNSCORED_KINDS]
    clips = []
    for record in data["results"]:
        heard = record["heard"]
        option = record["intent"] is not None
        clips.append(Clip(record["file"], record["voice"], record["condition"], option,
                          option and [heard["intent"], heard["value"]]
                          == [record["intent"], record["value"]],
                          heard["intent"] is not None,
                          terms(heard["evidence"]) if heard.get("evidence") else None))
    return clips


def fit(clips: Sequence[Clip], l2: float = 1e-3) -> np.ndarray:
    """Weighted logistic regression by Newton's method: the weights, then the bias."""
    scored = [c for c in clips if c.x is not None]
    design = np.hstack([np.array([c.x for c in scored]), np.ones((len(scored), 1))])
    y = np.array([1.0 if c.right else 0.0 for c in scored])
    weight = np.array([1.0 if c.option else OUTSIDE_WEIGHT for c in scored])
    w = np.zeros(design.shape[1])
    for _ in range(100):
        p = 1.0 / (1.0 + np.exp(-np.clip(design @ w, -60, 60)))
        gradient = design.T @ (weight * (p - y)) + l2 * w
        hessian = (design * (weight * p * (1 - p))[:, None]).T @ design + l2 * np.eye(len(w))
        step = np.linalg.solve(hessian, gradient)
        w -= step
        if np.abs(step).max() < 1e-9:
            break
    return w


def sure(clips: Sequence[Clip], w: np.ndarray) -> np.ndarray:
    """Each clip's confidence under weights `w` (0 where no phrase was scored)."""
    x = np.array([c.x if c.x is not None else (np.nan,) * (len(w) - 1) for c in clips])
    return np.nan_to_num(1.0 / (1.0 + np.exp(-np.clip(x @ w[:-1] + w[-1], -60, 60))))


def rates(clips: Sequence[Clip], confidence: np.ndarray, floor: float) -> dict[str, float]:
    accepted = (confidence >= floor) & np.array([c.taken for c in clips], dtype=bool)
    option = np.array([c.option for c in clips], dtype=bool)
    right = np.array([c.right for c in clips], dtype=bool)
    options, outside = max(1, option.sum()), max(1, (~option).sum())
    return {"right": (accepted & right).sum() / options,
            "wrong": (accepted & option & ~right).sum() / options,
            "outside": (accepted & ~option).sum() / outside}


def group(clip: Clip) -> str:
    """Which bars a clip answers to: real people's, the spoken phrasings' or the synthetic
    corpus's."""
    if clip.condition == "phrasing":
        return "phrasing"
    return "real" if clip.condition in REAL_CONDITIONS else "synthetic"


def choose_floor(clips: Sequence[Clip], confidence: np.ndarray) -> float:
    """The lowest floor at which each group of clips keeps both bars: pooled, the many
    synthetic clips would hide real people's wrong intents."""
    groups = np.array([group(c) for c in clips])
    for floor in np.arange(0.05, 1.0, 0.01):
        if all(r["wrong"] <= MAX_WRONG and r["outside"] <= MAX_OUTSIDE
               for r in (rates([c for c, g in zip(clips, groups, strict=True) if g == name],
                               confidence[groups == name], floor)
                         for name in set(groups))):
            return float(round(floor, 2))
    return 1.0


def report(title: str, clips: Sequence[Clip], confidence: np.ndarray, floor: float) -> None:
    print(f"\n{title}, floor {floor:.2f}: right / wrong % of option clips (clips)")
    for condition in (*CONDITIONS, None):
        chosen = [i for i, c in enumerate(clips) if c.option
                  and (condition is None or c.condition == condition)]
        if chosen:
            r = rates([clips[i] for i in chosen], confidence[chosen], floor)
            print(f"  {condition or 'all':10s} {100 * r['right']:5.1f} / {100 * r['wrong']:4.1f}"
                  f"  ({len(chosen)})")
    outside = [i for i, c in enumerate(clips) if not c.option]
    r = rates([clips[i] for i in outside], confidence[outside], floor)
    print(f"  out-of-option clips given an intent: {100 * r['outside']:.1f} % of {len(outside)}")


def per_seat(clips: Sequence[Clip], w: np.ndarray, rate: float, prior: float) -> np.ndarray:
    """Confidences as a host learning each seat's voice would give them: each voice's own
    bias on the logit, nudged after every clip by what the turn showed (the answer the table
    confirmed tells whether the best phrase was right), pulled back towards 0 by `prior`."""
    bias: dict[str, float] = {}
    out = np.zeros(len(clips))
    for i, clip in enumerate(clips):
        if clip.x is None:
            continue
        b = bias.get(clip.voice, 0.0)
        logit = float(np.dot(clip.x, w[:-1]) + w[-1])
        out[i] = 1.0 / (1.0 + np.exp(-np.clip(logit + b, -60, 60)))
        label = 1.0 if clip.right else 0.0
        bias[clip.voice] = b - rate * (out[i] - label) - prior * b
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tune", type=Path, nargs="+", required=True,
                        help="measure_hearing JSONs of the tune half, floor 0")
    parser.add_argument("--held-out", type=Path, nargs="+", required=True,
                        help="the same of the held-out half")
    args = parser.parse_args()
    # a clip measured twice (in a sample and in a run of its kind) counts once
    tune = list({clip.file: clip for path in args.tune for clip in read(path)}.values())
    held_out = list({clip.file: clip for path in args.held_out for clip in read(path)}.values())
    fitted = fit(tune)
    print("fitted on the tune half: " + ", ".join(
        f"{n} {v:.3f}" for n, v in zip(NAMES, fitted, strict=True)))
    print("in use:                  " + ", ".join(
        f"{n} {v:.3f}" for n, v in zip(NAMES, IN_USE, strict=True)))
    for name, w in (("fitted", fitted), ("in use", IN_USE)):
        floor = choose_floor(tune, sure(tune, w))
        report(f"{name} weights, tune half", tune, sure(tune, w), floor)
        report(f"{name} weights, held-out half", held_out, sure(held_out, w), floor)
    report("in use, its own floor, held-out half", held_out, sure(held_out, IN_USE),
           in_use.DEFAULT_FLOOR)
    floor = choose_floor(tune, sure(tune, fitted))
    for rate in (0.05, 0.2):
        late = [i for i, c in enumerate(held_out) if i >= len(held_out) // 2]
        adapted = per_seat(held_out, fitted, rate, prior=0.01)[late]
        later = [held_out[i] for i in late]
        report(f"fitted weights, the later half of each seat's clips, learning the seat's voice"
               f" (rate {rate})", later, adapted, floor)
        report("the same clips, not learning", later, sure(later, fitted), floor)


if __name__ == "__main__":
    main()
