"""Choose the letters head's share in ranking Whisper's phrases (whisper_scoring.W_LETTERS).

Each option clip of the hearing corpus's tune half is scored once by the decoder and by the
letters head (scripts/build_corpus.py, with --fsdd for real people's digits); then, for each
weight, the best phrase of `decoder score per token + weight × log P(phrase | letters, the
phrases offered)` is compared with the clip's own intent. Prints the share of clips whose best
phrase is right, per condition and weight. The confidence is fitted after, at the chosen
weight (scripts/fit_whisper_confidence.py).

    python scripts/fit_letters_weight.py --corpus build/corpus --half tune --limit 2400
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

import numpy as np
from build_corpus import DEFAULT_OUT, grammar_for_key  # scripts/, beside this one
from measure_hearing import load, read_pcm

from voicehost.door import refuse
from voicehost.intents.grammar import Grammar
from voicehost.intents.understand import reading_of
from voicehost.speech.whisper_engine import WhisperRecognizer

WEIGHTS = (0.0, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 1.0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--half", default="tune")
    parser.add_argument("--limit", type=int, default=2400, help="option clips, sampled")
    parser.add_argument("--kinds", default="option,real",
                        help="kinds of clip (comma-separated: option, real)")
    args = parser.parse_args()
    records = [r for r in load(args.corpus, args.half, None, set(args.kinds.split(",")))
               if r["intent"] is not None]
    if not records:
        refuse(f"{args.corpus} has no option clips in the {args.half} half.")
    random.Random(0).shuffle(records)
    records = records[:args.limit]
    engine = WhisperRecognizer(reader=reading_of)
    grammars: dict[str, Grammar] = {}
    right: dict[str, list[np.ndarray]] = {}
    for n, record in enumerate(records):
        grammar = grammars.get(record["grammar"])
        if grammar is None:
            grammar = grammars[record["grammar"]] = grammar_for_key(record["grammar"])
        engine.set_phrases(grammar.phrases)
        audio = np.frombuffer(read_pcm(args.corpus / record["file"]), "<i2") / 32768.0
        scores, phrases = engine.score(audio), engine.offered
        assert scores.letter_scores is not None
        share = scores.letters_share()
        wanted = np.array([(grammar.intents[p].name, grammar.intents[p].value)
                           == (record["intent"], record["value"]) for p in phrases])
        hits = [bool(wanted[int(np.argmax(scores.phrase_scores + w * share))]) for w in WEIGHTS]
        right.setdefault(record["condition"], []).append(np.array(hits))
        if (n + 1) % 200 == 0:
            print(f"{n + 1} clips", flush=True)
    print("condition   clips  " + "  ".join(f"w={w:<5g}" for w in WEIGHTS))
    every = [h for hits in right.values() for h in hits]
    for condition, hits in [*sorted(right.items()), ("all", every)]:
        rates = np.mean(hits, axis=0) * 100
        print(f"{condition:10s} {len(hits):6d}  " + "  ".join(f"{r:7.1f}" for r in rates))


if __name__ == "__main__":
    main()
