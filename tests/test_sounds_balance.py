"""The host's sounds in balance with its voice: each as loud as lines joe renders, A-weighted,
within 3 dB; the sting where small speakers play it; a chime short and soft enough to hear 40
times a game."""

from __future__ import annotations

import numpy as np
import pytest

from voicehost.speech.mouth import Mouth
from voicehost.speech.sounds import RATE, SOUNDS, loudness, sound

LINES = ("Welcome to Secret Squad! Playing tonight: Cheetah, Robin, Husky and Tiger.",
         "Cheetah, what's your answer, yup or nope?",
         "It was Tiger: the Weasel. Robin two, Cheetah one.",
         "That's the game! Robin wins with three points. Well played!")


@pytest.fixture(scope="module")
def voice_loudness() -> float:
    mouth = Mouth(voice="joe")
    return float(np.mean([loudness(*mouth.render(line)) for line in LINES]))


@pytest.mark.parametrize("name", SOUNDS)
def test_every_sound_is_as_loud_as_the_voice(name: str, voice_loudness: float) -> None:
    level = loudness(sound(name), RATE)
    print(f"\n{name}: {level:.1f} dB(A), the voice {voice_loudness:.1f} dB(A)")
    assert abs(level - voice_loudness) <= 3.0


def test_loudness_weighs_as_the_ear_does() -> None:
    """A 1 kHz tone measures its RMS in dBFS; a 100 Hz tone of the same power sounds far
    quieter (A-weighting: -19.1 dB; within 1 dB here, as 20 ms hops smear a low tone over
    neighbouring frequencies), and twice the amplitude is 6 dB louder."""
    t = np.arange(RATE) / RATE

    def tone(frequency: float, amplitude: float = 0.3) -> np.ndarray:
        return (amplitude * 32767 * np.sin(2 * np.pi * frequency * t)).astype(np.int16)

    assert loudness(tone(1000), RATE) == pytest.approx(20 * np.log10(0.3 / np.sqrt(2)),
                                                      abs=0.05)
    assert loudness(tone(1000), RATE) - loudness(tone(100), RATE) == pytest.approx(19.1, abs=1.0)
    assert loudness(tone(1000, 0.6), RATE) - loudness(tone(1000), RATE) == pytest.approx(6.0,
                                                                                       abs=0.1)


def test_the_sting_plays_on_small_speakers_and_the_chime_is_short() -> None:
    sting = sound("sting").astype(float)
    power = np.abs(np.fft.rfft(sting)) ** 2
    low = power[np.fft.rfftfreq(len(sting), 1 / RATE) < 200].sum() / power.sum()
    assert low < 0.05  # a laptop's drivers play little under 200 Hz
    chime = sound("chime")
    assert len(chime) / RATE <= 0.4 and np.abs(chime).max() / 32767 < 0.5
