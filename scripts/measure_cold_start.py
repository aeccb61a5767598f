"""How a fresh (cold) streaming recognizer hears its first utterance, with and without the
warm-up re-hearing (pocketsphinx_engine.WARM_UP_UTTERANCES).

Every Ferret Out deck word (plain en-us, among its round's twelve) and every out-of-option
clip of voicehost/lab/hearing_corpus.py (four voices, every other one noisy, plus noise
bursts), each heard as the first utterance of a new recognizer:

    python scripts/measure_cold_start.py
"""

from __future__ import annotations

import argparse
import tempfile
from multiprocessing import Pool
from pathlib import Path

from voicehost.host.ferret_out import deck
from voicehost.lab.hearing_corpus import Clip, grammar_for, hear, out_of_option_clips
from voicehost.lab.speakers import PLAIN, VOICES, speak_wav
from voicehost.speech.pocketsphinx_engine import WARM_UP_UTTERANCES
from voicehost.speech.pocketsphinx_engine import PocketsphinxRecognizer as Engine
from voicehost.tools import hear_grammar, read_wav

WARM_UPS = (0, WARM_UP_UTTERANCES)  # 0: no re-hearing


def deck_words(pouch: int) -> list[tuple[str, list[str | None]]]:
    grammar = hear_grammar(None, "guess", 5, "ferret-out", pouch)
    heard = []
    with tempfile.TemporaryDirectory() as tmp:
        for word in deck()[pouch].words():
            pcm = read_wav(speak_wav(word, PLAIN, Path(tmp) / "word.wav"))
            intents = [hear(Engine(warm_up=w), grammar, pcm)[1] for w in WARM_UPS]
            heard.append((word, [None if i is None else i.value for i in intents]))
    return heard


def chatter(clip: Clip) -> list[bool]:
    grammar = grammar_for(clip.grammar)
    return [hear(Engine(warm_up=w), grammar, clip.pcm)[1] is not None for w in WARM_UPS]


def main() -> None:
    argparse.ArgumentParser(description=__doc__.split("\n\n")[0]).parse_args()
    items = out_of_option_clips(VOICES)
    with Pool(2) as pool:
        words = [row for part in pool.map(deck_words, range(len(deck()))) for row in part]
        accepted = pool.map(chatter, items)
    for k, name in enumerate(("streamed only", "streamed, rejected ones again whole")):
        right = sum(values[k] == word for word, values in words)
        wrong = sum(values[k] not in (None, word) for word, values in words)
        false = sum(row[k] for row in accepted)
        print(f"{name}: deck words {right}/{len(words)} right, {wrong} wrong; "
              f"out-of-option {false}/{len(items)} accepted")


if __name__ == "__main__":
    main()
