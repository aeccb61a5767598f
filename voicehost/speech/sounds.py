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
PEAK = 0.5  # of full scale: under the host's voice, which espeak-ng and piper render near it


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
    """int16 at PEAK, with 5 ms fades so that no edge clicks."""
    fade = int(0.005 * RATE)
    ramp = np.linspace(0.0, 1.0, fade)
    samples = samples.copy()
    samples[:fade] *= ramp
    samples[-fade:] *= ramp[::-1]
    return (samples / np.abs(samples).max() * PEAK * 32767).astype(np.int16)


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
    """A low minor chord swelling, then a falling note: something is about to come out."""
    brass = (1.0, 0.6, 0.4, 0.25, 0.15)
    chord = sum(_note(f, 0.9, brass, attack_s=0.25, decay_per_s=2.0)
                for f in (146.83, 174.61, 220.0))  # D3, F3, A3
    fall = _note(110.0, 0.6, brass, attack_s=0.02, decay_per_s=4.0)  # A2
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
