"""Synthetic players: espeak-ng speaks a phrase, sox shapes it, out comes 16 kHz PCM."""

from __future__ import annotations

import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from voicehost.voice import SAMPLE_RATE


@dataclass(frozen=True)
class Speaker:
    """One espeak-ng voice: a voice name with variant, a pitch (0-99) and a speed (words/min)."""

    name: str
    voice: str
    pitch: int
    speed: int


# espeak-ng's formant variants (+m3, +m7, +f3, +f4): strongly processed, far from the speech
# pocketsphinx's US-English model was trained on. Kept as a hard, measured case
# (scripts/measure_hearing.py) and by tests that need an unusual voice.
SPEAKERS = (
    Speaker("low-man", "en-us+m3", 25, 160),
    Speaker("deep-man", "en+m7", 15, 150),
    Speaker("high-woman", "en-us+f3", 75, 165),
    Speaker("child-like", "en+f4", 90, 175),
)

# Four different espeak-ng voices (accent and pitch), two low and two high: the players the
# recognition tests hear (tests/test_pocketsphinx_engine.py).
VOICES = (
    Speaker("us-low", "en-us", 20, 160),
    Speaker("rp-low", "en-gb-x-rp", 30, 160),
    Speaker("us-high", "en-us", 80, 160),
    Speaker("gb-high", "en", 85, 170),
)

# One plain en-us voice: the tests that check a list of words (deck words, deck numbers) and
# the scripts that measure them speak with it.
PLAIN = Speaker("plain", "en-us", 50, 160)


def speak_wav(text: str, speaker: Speaker, path: Path) -> Path:
    """Write espeak-ng's reading of `text` to a WAV at `path`."""
    subprocess.run(
        ["espeak-ng", "-v", speaker.voice, "-p", str(speaker.pitch), "-s", str(speaker.speed),
         "-w", str(path), text],
        check=True,
    )
    return path


def to_pcm(wav: Path, *effects: str) -> bytes:
    """Convert a WAV to 16 kHz mono int16 PCM, with optional sox effects (e.g. "tempo", "1.1")."""
    return subprocess.run(
        # -R: sox dithers with a fresh random seed otherwise, enough to flip borderline clips
        ["sox", "-R", str(wav), "-t", "raw", "-r", str(SAMPLE_RATE), "-c", "1", "-b", "16",
         "-e", "signed-integer", "-", *effects],
        check=True, capture_output=True,
    ).stdout


def speak(text: str, speaker: Speaker, *effects: str) -> bytes:
    """espeak-ng → 16 kHz PCM, padded with 0.3 s of silence each side like a real utterance."""
    with tempfile.TemporaryDirectory() as tmp:
        wav = speak_wav(text, speaker, Path(tmp) / "phrase.wav")
        return to_pcm(wav, *effects, "pad", "0.3", "0.3")


def add_noise(pcm: bytes, snr_db: float, seed: int = 0) -> bytes:
    """Mix white noise into speech at the given signal-to-noise ratio (dB), like a busy room."""
    speech = np.frombuffer(pcm, dtype=np.int16).astype(np.float64)
    power = np.mean(speech[np.abs(speech) > 100] ** 2) if np.any(np.abs(speech) > 100) else 1.0
    noise_power = power / (10 ** (snr_db / 10))
    noise = np.random.default_rng(seed).normal(0.0, np.sqrt(noise_power), speech.shape)
    return np.clip(speech + noise, -32768, 32767).astype(np.int16).tobytes()
