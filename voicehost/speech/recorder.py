"""`voicehost play --record FILE.wav`: everything the host plays (its lines, its sounds, the
players' clues played back) kept in one WAV file as well, one piece after another, so that a
whole game can be listened to afterwards. The file's header is brought up to date after every
piece: a game killed midway leaves a WAV that plays to that point."""

from __future__ import annotations

import wave
from collections.abc import Callable
from pathlib import Path

import numpy as np

from voicehost.speech.devices import Playback, resample

RATE = 22050  # joe's own rate: its lines are kept as they are
Speaker = Callable[[np.ndarray, int], Playback]


class Recorder:
    """A WAV file being written; `around(speaker)` is that speaker, keeping what it plays."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._wav = wave.open(str(path), "wb")  # noqa: SIM115 - open for the whole game
        self._wav.setnchannels(1)
        self._wav.setsampwidth(2)
        self._wav.setframerate(RATE)

    def around(self, speaker: Speaker) -> Speaker:
        def play(samples: np.ndarray, rate: int) -> Playback:
            self.keep(samples, rate)
            return speaker(samples, rate)

        return play

    def keep(self, samples: np.ndarray, rate: int) -> None:
        kept = resample(np.asarray(samples, dtype=np.int16), rate, RATE)
        self._wav.writeframes(kept.tobytes())  # the header is patched as it goes

    def close(self) -> None:
        self._wav.close()
