"""How well real people's spoken digits are heard: the Free Spoken Digit Dataset's recordings
(8 kHz WAVs named DIGIT_SPEAKER_INDEX.wav), held-out speakers only.

Two measurements per engine and condition:
  number  Ferret Out's number decision, exactly as the host listens (one to six are options;
          zero, seven, eight and nine are not and must be refused);
  digits  the ten digit words offered alone (every clip is an option).
Each clip is resampled to 16 kHz with 0.4 s of silence each side. Conditions: clean, and
kitchen noise at 9 dB SNR (active speech power) when --noise names a WAV.

    .venv/bin/python scripts/measure_digits.py /tmp/fsdd/recordings --noise kitchen.wav
"""

from __future__ import annotations

import argparse
import re
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from voicehost.door import refuse
from voicehost.host.grammars import spell_numbers
from voicehost.intents.grammar import Grammar
from voicehost.intents.understand import reading_of
from voicehost.lab.conditions import active_power, to_array, to_bytes
from voicehost.tools import hear_grammar, read_wav
from voicehost.voice import SAMPLE_RATE

DIGIT_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
NUMBER_OPTIONS = {str(n) for n in range(1, 7)}  # what Ferret Out's number decision offers
CLIP_NAME = re.compile(r"^(\d)_([A-Za-z]+)_(\d+)\.wav$")
PADDING_S = 0.4
NOISE_SNR_DB = 9.0


def parse_name(name: str) -> tuple[int, str, int] | None:
    """DIGIT_SPEAKER_INDEX.wav → (digit, speaker, index); None for any other name."""
    found = CLIP_NAME.match(name)
    if found is None:
        return None
    return int(found[1]), found[2], int(found[3])


def split_speakers(speakers: Sequence[str]) -> tuple[list[str], list[str]]:
    """(tune, held-out): the speakers in sorted order, alternately."""
    ordered = sorted(set(speakers))
    return ordered[0::2], ordered[1::2]


def clip_pcm(path: Path) -> bytes:
    """The clip as 16 kHz mono 16-bit PCM with the padding each side."""
    raw = ["-t", "raw", "-r", str(SAMPLE_RATE), "-c", "1", "-b", "16", "-e", "signed-integer"]
    return subprocess.run(["sox", "-R", str(path), *raw, "-", "pad", str(PADDING_S),
                           str(PADDING_S)], check=True, capture_output=True).stdout


def with_noise(pcm: bytes, noise: np.ndarray, snr_db: float, offset: int) -> bytes:
    """The clip with `noise` (from `offset`, looped) `snr_db` below its active speech power."""
    speech = to_array(pcm)
    part = np.resize(np.roll(noise, -offset), len(speech))
    gain = np.sqrt(active_power(speech) / 10 ** (snr_db / 10) / max(np.mean(part ** 2), 1e-9))
    return to_bytes(speech + part * gain)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("data", type=Path, help="the folder of DIGIT_SPEAKER_INDEX.wav clips")
    parser.add_argument("--noise", type=Path, help="a noise WAV (kitchen) for the noisy condition")
    parser.add_argument("--every", type=int, default=5, help="take every Nth held-out clip")
    parser.add_argument("--engines", default="auto,pocketsphinx,whisper")
    parser.add_argument("--no-letters", action="store_true",
                        help="Whisper without the letters head (how it heard before it)")
    args = parser.parse_args()
    if not args.data.is_dir():
        refuse(f"{args.data} is not a folder of clips.")
    if args.every < 1:
        refuse("--every must be 1 or more.")
    clips = sorted((parsed, path) for path in args.data.iterdir()
                   if (parsed := parse_name(path.name)) is not None)
    if not clips:
        refuse(f"{args.data} has no DIGIT_SPEAKER_INDEX.wav clips.")
    tune, held_out = split_speakers([speaker for (_, speaker, _), _ in clips])
    chosen = [(parsed, path) for parsed, path in clips if parsed[1] in held_out][::args.every]
    print(f"speakers: tune {', '.join(tune)}; held out {', '.join(held_out)}; "
          f"{len(chosen)} clips (every {args.every}th held-out clip)")
    audio = {"clean": [clip_pcm(path) for _, path in chosen]}
    if args.noise:
        noise = to_array(read_wav(args.noise))
        audio[f"kitchen{NOISE_SNR_DB:g}"] = [
            with_noise(pcm, noise, NOISE_SNR_DB, (i * 7919) % len(noise))
            for i, pcm in enumerate(audio["clean"])]
    measurements = {
        "number": (hear_grammar(None, "number", 5, "ferret-out"), NUMBER_OPTIONS),
        "digits": (hear_grammar("|".join(DIGIT_WORDS), "", 0), set(DIGIT_WORDS)),
    }
    from voicehost.registry import deck_words
    from voicehost.speech.base import recognize
    from voicehost.speech.factory import make_recognizer

    print(f"\n{'engine':14s} {'condition':10s} {'measure':7s}  right refused wrong"
          "  (number: one-six / zero,seven-nine)")
    for engine in args.engines.split(","):
        recognizer, _ = make_recognizer(engine, deck_words(), reading_of, whole_utterances=True)
        whisper = getattr(recognizer, "short", recognizer)
        if args.no_letters and hasattr(whisper, "use_letters"):
            whisper.use_letters(False)
        for measure, (grammar, options) in measurements.items():
            recognizer.set_phrases(grammar.phrases)
            for condition, pcms in audio.items():
                started = time.perf_counter()
                tally: dict[tuple[bool, str], int] = {}
                for ((digit, _, _), _), pcm in zip(chosen, pcms, strict=True):
                    text = recognize(recognizer, pcm).text
                    # The digit phrases are words; the ten-word grammar's values are the words.
                    wanted = options if measure == "number" else {DIGIT_WORDS[digit]}
                    shown = DIGIT_WORDS[digit] if measure == "digits" else str(digit)
                    key = (shown in wanted, verdict_for(grammar, text, shown, wanted))
                    tally[key] = tally.get(key, 0) + 1
                offered = [tally.get((True, v), 0) for v in ("right", "refused", "wrong")]
                others = [tally.get((False, v), 0) for v in ("right", "refused", "wrong")]
                line = f"{recognizer.name:14s} {condition:10s} {measure:7s}  " \
                       f"{offered[0]:5d} {offered[1]:7d} {offered[2]:5d}"
                if measure == "number":
                    line += f"   not options: refused {others[1]}, taken {others[2]}"
                print(f"{line}   ({time.perf_counter() - started:.0f} s)", flush=True)


def verdict_for(grammar: Grammar, text: str, value: str, options: set[str]) -> str:
    """"right", "refused" or "wrong" for a clip whose answer is `value`."""
    intent, _ = grammar.match(spell_numbers(text))
    if intent is None:
        return "refused"
    if value in options and intent.name == "choose" and intent.value == value:
        return "right"
    return "wrong"


if __name__ == "__main__":
    main()
