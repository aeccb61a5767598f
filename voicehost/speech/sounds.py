"""The host's sounds, made here with numpy (nothing recorded, nothing copied): a tick for each of a
countdown's last seconds, a sting before a reveal, a fanfare for the winner, a soft chime when
the host starts listening for a free answer. The Mouth plays them as it plays a line, with the
ears shut (mouth.py), so the ears never hear one as a player.
"""

from __future__ import annotations

import functools

import numpy as np

RATE = 22050
SOUNDS = ("tick", "sting", "fanfare", "chime")
# Every sound is as loud as the host's voice (A-weighted, `loudness`): joe's lines measure
# -22.7 dB, and tests/test_sounds_balance.py holds each sound within 3 dB of lines joe renders.
VOICE_LOUDNESS = -22.7
MAX_PEAK = 0.9  # of full scale
LOUDNESS_HOP_S = 0.02
LOUDNESS_RANGE_DB = 40.0  # the hops counted: those within this of the loudest


def a_weighting(frequency: np.ndarray) -> np.ndarray:
    """The A-weighting curve (IEC 61672) as amplitude gains, 1 at 1 kHz."""
    f2 = np.maximum(frequency, 1.0) ** 2
    gain = (12194.0**2 * f2**2) / ((f2 + 20.6**2) * np.sqrt((f2 + 107.7**2) * (f2 + 737.9**2))
                                   * (f2 + 12194.0**2))
    return gain * 10 ** (2.0 / 20)


def loudness(samples: np.ndarray, rate: int) -> float:
    """How loud int16 samples sound, in dB(A) below full scale: the A-weighted power of their
    sounding hops (within LOUDNESS_RANGE_DB of the loudest), averaged."""
    hop = int(LOUDNESS_HOP_S * rate)
    x = np.asarray(samples, float) / 32768.0
    frames = np.lib.stride_tricks.sliding_window_view(x, hop)[::hop]
    window = np.hanning(hop)
    weights = a_weighting(np.fft.rfftfreq(hop, 1.0 / rate)) ** 2
    power = (np.abs(np.fft.rfft(frames * window, axis=1)) ** 2 * weights).sum(axis=1)
    power *= 2.0 / (hop * (window**2).sum())
    sounding = power[power > power.max() * 10 ** (-LOUDNESS_RANGE_DB / 10)]
    return float(10 * np.log10(sounding.mean()))


def _note(frequency: float, seconds: float, harmonics: tuple[float, ...] = (1.0,),
          attack_s: float = 0.01, decay_per_s: float = 3.0) -> np.ndarray:
    """One note: harmonics of `frequency` (their amplitudes), a linear attack, an exponential
    decay."""
    t = np.arange(int(seconds * RATE)) / RATE
    wave = sum(a * np.sin(2 * np.pi * frequency * (k + 1) * t)
               for k, a in enumerate(harmonics))
    envelope = np.minimum(1.0, t / attack_s) * np.exp(-decay_per_s * t)
    return np.asarray(wave) * envelope


def _scaled(samples: np.ndarray) -> np.ndarray:
    """int16 as loud as the voice (peaks kept under MAX_PEAK), with 5 ms fades so that no
    edge clicks."""
    fade = int(0.005 * RATE)
    ramp = np.linspace(0.0, 1.0, fade)
    samples = samples.copy()
    samples[:fade] *= ramp
    samples[-fade:] *= ramp[::-1]
    unit = samples / np.abs(samples).max()
    level = loudness((unit * 32767).astype(np.int16), RATE)
    gain = min(MAX_PEAK, 10 ** ((VOICE_LOUDNESS - level) / 20))
    return (unit * gain * 32767).astype(np.int16)


def _at(parts: list[tuple[float, np.ndarray]], seconds: float) -> np.ndarray:
    """The parts mixed, each starting at its time in seconds."""
    out = np.zeros(int(seconds * RATE))
    for start, part in parts:
        at = int(start * RATE)
        end = min(len(out), at + len(part))
        out[at:end] += part[:end - at]
    return out


def _tick() -> np.ndarray:
    return _note(1800.0, 0.04, (1.0, 0.3), attack_s=0.001, decay_per_s=120.0)


def _sting() -> np.ndarray:
    """A minor chord swelling, then a falling note: something is about to come out. Pitched
    where a laptop's or a smart speaker's small drivers play it (220 Hz and up)."""
    brass = (1.0, 0.6, 0.4, 0.25, 0.15)
    chord = sum(_note(f, 0.9, brass, attack_s=0.25, decay_per_s=2.0)
                for f in (293.66, 349.23, 440.0))  # D4, F4, A4
    fall = _note(220.0, 0.6, brass, attack_s=0.02, decay_per_s=4.0)  # A3
    return _at([(0.0, np.asarray(chord)), (0.55, fall)], 1.2)


def _fanfare() -> np.ndarray:
    """A rising major arpeggio and its chord held: the winner."""
    brass = (1.0, 0.7, 0.5, 0.3, 0.2, 0.1)
    notes = [(0.0, 392.0), (0.15, 523.25), (0.3, 659.25)]  # G4, C5, E5
    parts = [(start, _note(f, 0.3, brass, decay_per_s=6.0)) for start, f in notes]
    parts += [(0.45, _note(f, 1.0, brass, attack_s=0.02, decay_per_s=2.5))
              for f in (523.25, 659.25, 783.99)]  # C5, E5, G5 together
    return _at(parts, 1.5)


def _chime() -> np.ndarray:
    return np.asarray(_note(1318.5, 0.35, (1.0,), attack_s=0.005, decay_per_s=9.0)
                      + 0.5 * _note(1975.5, 0.35, (1.0,), attack_s=0.005, decay_per_s=12.0))


@functools.cache
def sound(name: str) -> np.ndarray:
    """The sound `name` (one of SOUNDS) as int16 mono samples at RATE."""
    makers = {"tick": _tick, "sting": _sting, "fanfare": _fanfare, "chime": _chime}
    if name not in makers:
        raise ValueError(f"no sound {name!r}: one of {', '.join(SOUNDS)}")
    return _scaled(makers[name]())
