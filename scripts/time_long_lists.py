"""Time Whisper alone on the longest phrase lists: Secret Operation's turn and reveal, Ferret
Out's guess, each line said by plain en-us espeak-ng and heard as `voicehost hear` hears it.
Prints, per line, what was heard, its confidence, the best of three decode times and how many
phrases were scored (the rest pruned).

    .venv/bin/python scripts/time_long_lists.py [--players 6]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from voicehost.intents.understand import reading_of
from voicehost.lab.hearing_corpus import hear
from voicehost.lab.speakers import PLAIN, speak
from voicehost.speech.whisper_engine import WhisperRecognizer
from voicehost.tools import hear_grammar

SAID = {
    ("turn", "secret-operation"): [
        "discard mechanics", "block cheetah", "add to module two",
        "I'll put it on module three", "um I think I'll add a card to module one please"],
    ("reveal", "secret-operation"): [
        "one mechanic one energy and one block", "block block and energy"],
    ("guess", "ferret-out"): ["cactus", "my guess is desert"],
}
TRIES = 3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=6)
    args = parser.parse_args()
    engine = WhisperRecognizer(reader=reading_of)
    for (decision, game), lines in SAID.items():
        grammar = hear_grammar(None, decision, args.players, game)
        engine.set_phrases(grammar.phrases)
        assert engine._phrases is not None
        print(f"{decision} ({game}, {args.players} players): {len(grammar.phrases)} phrases, "
              f"{len(engine._phrases.tokens)} written forms")
        for line in lines:
            pcm = speak(line, PLAIN)
            seconds = []
            for _ in range(TRIES):
                began = time.perf_counter()
                hearing, _ = hear(engine, grammar, pcm)
                seconds.append(time.perf_counter() - began)
            assert engine.last_scores is not None
            scored = int(np.isfinite(engine.last_scores.phrase_scores).sum())
            print(f"  {line!r}: heard {hearing.text!r} at {hearing.confidence:.2f}, "
                  f"{min(seconds):.3f} s, {scored} phrases scored")


if __name__ == "__main__":
    main()
