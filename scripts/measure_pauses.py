"""How often the ears cut a player short who pauses mid-phrase: phrases of the games' decisions
said in two parts with a pause of 0.2-0.4 s between them, by one half's synthetic voices,
heard by the real ears (endpointer, preview, early end) and the default engine.

The audio is fed as fast as the ears take it, and each preview is waited for before the next
frame: as if the engine decoded in no time, so an early end comes as soon as it ever could.
That is the worst case for cutting a player short; a real machine is only slower to end.

    .venv/bin/python scripts/measure_pauses.py [--half held-out] [--per-decision 30]

A phrase is **cut short** when the utterance ended before its second part began; **taken
wrongly** when the host would take another answer than the whole phrase's.
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from voicehost.door import refuse
from voicehost.intents.grammar import Grammar
from voicehost.intents.understand import reading_of
from voicehost.lab.paced_clip import PacedClip, settle_for
from voicehost.lab.voices import HELD_OUT, TUNE, Voice, speak
from voicehost.speech.ears import Ears
from voicehost.speech.endpoint import Endpointer
from voicehost.tools import hear_grammar
from voicehost.voice import SAMPLE_RATE

# (game, decision, players): where players say phrases of several words
DECISIONS = (("secret-squad", "answer", 6), ("secret-squad", "point", 10),
             ("secret-operation", "first_player", 6), ("secret-operation", "turn", 6),
             ("ferret-out", "number", 6))
LEAD_S = 0.5  # the room's quiet before the player speaks
VOICED = 300  # a sample this loud is speech, not the synthesizer's padding


@dataclass(frozen=True)
class Paused:
    decision: str
    phrase: str
    split: int  # words before the pause
    pause_s: float


def trimmed(pcm: bytes) -> np.ndarray:
    samples = np.frombuffer(pcm, dtype=np.int16)
    loud = np.flatnonzero(np.abs(samples) > VOICED)
    return samples[loud[0]:loud[-1] + 1] if len(loud) else samples[:0]


def paused_audio(case: Paused, voice: Voice) -> tuple[bytes, float]:
    """The phrase said in two parts with the pause between; and when the second part begins,
    in seconds from the start of the audio."""
    words = case.phrase.split()
    first = trimmed(speak(" ".join(words[:case.split]), voice))
    second = trimmed(speak(" ".join(words[case.split:]), voice))
    lead = np.zeros(int(LEAD_S * SAMPLE_RATE), np.int16)
    gap = np.zeros(int(case.pause_s * SAMPLE_RATE), np.int16)
    audio = np.concatenate([lead, first, gap, second])
    return audio.tobytes(), (len(lead) + len(first) + len(gap)) / SAMPLE_RATE


def cases(per_decision: int, seed: int) -> list[tuple[Paused, Grammar]]:
    rng = random.Random(seed)
    chosen = []
    for game, decision, players in DECISIONS:
        grammar = hear_grammar(None, decision, players, game)
        long = [p for p in grammar.phrases if len(p.split()) >= 2]
        for phrase in rng.sample(long, min(per_decision, len(long))):
            chosen.append((Paused(decision, phrase, rng.randint(1, len(phrase.split()) - 1),
                                  rng.uniform(0.2, 0.4)), grammar))
    return chosen


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--half", choices=("tune", "held-out"), default="held-out")
    parser.add_argument("--per-decision", type=int, default=30)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--engine", default="auto")
    parser.add_argument("--misses", action="store_true")
    args = parser.parse_args()
    if args.per_decision < 1:
        refuse("--per-decision must be 1 or more.")
    from voicehost.registry import deck_words
    from voicehost.speech.factory import make_recognizer

    recognizer, _ = make_recognizer(args.engine, deck_words(), reading_of)
    voices: Sequence[Voice] = HELD_OUT if args.half == "held-out" else TUNE
    rows: dict[str, list[int]] = {}
    for i, (case, grammar) in enumerate(cases(args.per_decision, args.seed)):
        voice = voices[i % len(voices)]
        pcm, second_at = paused_audio(case, voice)
        microphone = PacedClip(pcm, settle_for(recognizer))
        ears = Ears(microphone, Endpointer(), recognizer)
        heard = ears.listen(grammar.phrases, timeout_s=60.0)
        assert microphone.began is not None
        ended = None if heard is None else heard.speech_ended_at - microphone.began
        cut = heard is not None and ended < second_at
        want, _ = grammar.match(case.phrase)
        got, _ = grammar.match(heard.text) if heard is not None else (None, 0.0)
        wrong = got is not None and got != want
        row = rows.setdefault(case.decision, [0, 0, 0, 0])
        row[0] += 1
        row[1] += heard is not None and heard.end_reason == "complete"
        row[2] += cut
        row[3] += cut and wrong
        if args.misses and cut:
            print(f"cut short: {voice.name} {case.phrase!r} after {case.split} word(s),"
                  f" pause {case.pause_s:.2f} s: heard {heard.text!r}"
                  f"{' WRONG' if wrong else ''}")
    print(f"| decision | phrases | ended early | cut short | cut short, taken wrongly |"
          f"\n|---|---|---|---|---|  ({args.half}, engine {recognizer.name})")
    total = [0, 0, 0, 0]
    for decision, row in rows.items():
        total = [a + b for a, b in zip(total, row, strict=True)]
        print(f"| {decision} | {row[0]} | {row[1]} | {row[2]} | {row[3]} |")
    print(f"| all | {total[0]} | {total[1]} | {total[2]} ({100 * total[2] / total[0]:.1f} %) |"
          f" {total[3]} |")


if __name__ == "__main__":
    main()
