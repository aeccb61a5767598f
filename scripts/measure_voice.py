"""How well the host's own voice is understood in a loud room, per voice: the host's lines of
seeded games (scripts/seeded_games.py's tables, in text mode), each sentence rendered by each
voice, mixed with crowd babble (voicehost/lab/conditions.py) at each SNR, and written down by
the project's recognizer as a proxy listener (Whisper tiny.en, free transcription). Prints the
word error rate per voice and condition, as a markdown table (docs/voice.md).

    .venv/bin/python scripts/measure_voice.py [--games 3] [--sentences 120] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import random
import re
import tempfile
from pathlib import Path

import numpy as np
import soxr
from seeded_games import seeded_game  # scripts/, beside this one

from voicehost.intents.understand import reading_of
from voicehost.lab.conditions import clean, with_babble
from voicehost.speech.base import recognize
from voicehost.speech.mouth import Mouth
from voicehost.speech.whisper_engine import WhisperRecognizer
from voicehost.voice import SAMPLE_RATE
from voicehost.words import plain_words

VOICES = {"espeak-ng (--voice espeak)": "espeak", "piper joe (the default voice)": "joe"}
CONDITIONS = {"clean": None, "babble 5 dB": 5.0, "babble 0 dB": 0.0}


def sentences(games: int, wanted: int) -> list[str]:
    """Distinct sentences the host says in the first `games` seeded games, in a seeded order."""
    with tempfile.TemporaryDirectory() as folder:
        said = [event["text"] for seed in range(games)
                for event in seeded_game(seed, Path(folder))["events"]
                if event["event"] == "say"]
    found = dict.fromkeys(s.strip() for line in said
                          for s in re.split(r"(?<=[.!?])\s+", line) if len(s.split()) >= 2)
    chosen = list(found)
    random.Random(0).shuffle(chosen)
    return chosen[:wanted]


def word_errors(said: list[str], heard: list[str]) -> int:
    """Substitutions, insertions and deletions from `said` to `heard`."""
    row = list(range(len(heard) + 1))
    for i, word in enumerate(said, 1):
        previous, row[0] = row[0], i
        for j, other in enumerate(heard, 1):
            previous, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1,
                                           previous + (word != other))
    return row[-1]


def at_16k(samples: np.ndarray, rate: int) -> bytes:
    audio = soxr.resample(samples.astype(np.float32) / 32768.0, rate, SAMPLE_RATE)
    return (np.clip(audio, -1, 1) * 32767).astype("<i2").tobytes()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--sentences", type=int, default=120)
    parser.add_argument("--json", type=Path, help="write every sentence's transcript here")
    args = parser.parse_args()
    lines = sentences(args.games, args.sentences)
    listener = WhisperRecognizer(reader=reading_of)
    listener.set_phrases(None)
    results = []
    for voice, setting in VOICES.items():
        mouth = Mouth(voice=setting)
        for index, line in enumerate(lines):
            pcm = at_16k(*mouth.render(line))
            for condition, snr in CONDITIONS.items():
                mixed = clean(pcm) if snr is None else with_babble(pcm, snr, seed=index)
                heard = recognize(listener, mixed).raw_text
                said = plain_words(line).split()
                results.append({"voice": voice, "condition": condition, "line": line,
                                "heard": heard, "words": len(said),
                                "errors": word_errors(said, plain_words(heard).split())})
    print(f"{len(lines)} sentences ({sum(len(plain_words(s).split()) for s in lines)} words) "
          f"of {args.games} seeded games; word error rate, Whisper tiny.en as the listener:\n")
    print("| voice | " + " | ".join(CONDITIONS) + " |")
    print("|---|" + "---|" * len(CONDITIONS))
    for voice in VOICES:
        cells = []
        for condition in CONDITIONS:
            rows = [r for r in results if r["voice"] == voice and r["condition"] == condition]
            errors, words = sum(r["errors"] for r in rows), sum(r["words"] for r in rows)
            cells.append(f"{100 * errors / words:.1f} %")
        print(f"| {voice} | " + " | ".join(cells) + " |")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1, ensure_ascii=False),
                             encoding="utf-8")


if __name__ == "__main__":
    main()
