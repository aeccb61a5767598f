"""Rooms a phrase is heard in: crowd babble, reverb at a distance, fast and slow talkers,
and the sounds that are nobody's answer (pink noise, near-silence, babble alone).

Every function takes and gives 16 kHz mono int16 PCM (`bytes`) and is deterministic for a
given seed. `babble(seconds, seed)` is public for other tests (the endpointer's).
"""

from __future__ import annotations

import functools
import subprocess
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from voicehost.lab.voices import BABBLE_TALKERS, Voice, speak
from voicehost.voice import SAMPLE_RATE

# Long table talk for the crowd: it must sound like speech, never like one of the options.
CROWD_CHATTER = (
    "so my sister finally moved into that apartment across the river last weekend",
    "honestly the traffic on the way over here was the worst I have seen all month",
    "did anybody try the little cheese pastries that came out of the oven earlier",
    "we should really plan a camping trip before the weather turns cold again",
    "my manager keeps scheduling meetings right in the middle of lunch every single day",
    "I read somewhere that the museum downtown is open late on thursday evenings now",
    "the kids spent the whole afternoon building a fort out of couch cushions",
    "can you believe how expensive a simple cup of coffee has become these days",
    "I have been trying to learn the guitar but my fingers still hurt after practice",
    "the new restaurant on the corner has a garden in the back with tiny lanterns",
    "apparently the neighbors are repainting their whole house a bright shade of orange",
    "last summer we drove along the coast and stopped at every little fishing village",
    "I keep forgetting to water the plants on the balcony and they look so sad",
    "he told me the story about the broken elevator at least three different times",
    "our flight got delayed twice and then they lost one of the suitcases somehow",
    "she is running the half marathon in the spring and training every morning",
    "the movie was fine but the ending felt rushed and a little confusing to me",
    "we found an old box of photographs in the attic from when grandpa was a sailor",
)
SENTENCES_PER_TALKER = 6
TALKERS = (5, 8)  # how many talk at once: between these, inclusive
BABBLE_RMS = 2000.0  # active level of the babble babble() returns (about -24 dBFS)


def babble(seconds: float, seed: int) -> bytes:
    """Crowd babble: 5-8 talkers (voices no target speaks with) talking over each other,
    each from a random point of their monologue and at the same level."""
    rng = np.random.default_rng(seed)
    length = max(1, round(seconds * SAMPLE_RATE))
    count = int(rng.integers(TALKERS[0], TALKERS[1] + 1))
    chosen = rng.choice(len(BABBLE_TALKERS), size=min(count, len(BABBLE_TALKERS)),
                        replace=False)
    monologues = _monologues(tuple(BABBLE_TALKERS[int(i)] for i in chosen))
    crowd = np.zeros(length)
    for speech in monologues:
        start = int(rng.integers(0, len(speech)))
        crowd += np.resize(np.roll(speech, -start), length)
    return to_bytes(crowd / max(np.sqrt(active_power(crowd)), 1e-9) * BABBLE_RMS)


def _monologues(talkers: tuple[Voice, ...]) -> list[np.ndarray]:
    with ThreadPoolExecutor(max_workers=4) as pool:
        return list(pool.map(_monologue, talkers))


@functools.cache
def _monologue(talker: Voice) -> np.ndarray:
    """A few chatter sentences in one breath, at unit active power (cached per process)."""
    index = BABBLE_TALKERS.index(talker)
    picks = [CROWD_CHATTER[(index * 5 + k) % len(CROWD_CHATTER)]
             for k in range(SENTENCES_PER_TALKER)]
    speech = to_array(speak(". ".join(picks) + ".", talker))
    return speech / np.sqrt(active_power(speech))


def to_array(pcm: bytes) -> np.ndarray:
    return np.frombuffer(pcm, dtype=np.int16).astype(np.float64)


def to_bytes(samples: np.ndarray) -> bytes:
    return np.clip(np.round(samples), -32768, 32767).astype(np.int16).tobytes()


def active_power(samples: np.ndarray, frame: float = 0.02, floor_db: float = 35.0) -> float:
    """Mean power of the frames that carry speech: those within `floor_db` of the loudest
    (the 99th percentile frame), so the padding and pauses do not dilute it."""
    size = int(frame * SAMPLE_RATE)
    frames = samples[: len(samples) // size * size].reshape(-1, size) if len(samples) >= size \
        else samples.reshape(1, -1)
    powers = np.mean(frames ** 2, axis=1)
    loud = np.percentile(powers, 99)
    if loud <= 0:
        return 0.0
    return float(np.mean(powers[powers >= loud * 10 ** (-floor_db / 10)]))


def clean(pcm: bytes, seed: int = 0) -> bytes:
    return pcm


def with_babble(pcm: bytes, snr_db: float, seed: int = 0) -> bytes:
    """The phrase in a crowd: babble at `snr_db` below the phrase's active speech power."""
    speech = to_array(pcm)
    crowd = to_array(babble(len(speech) / SAMPLE_RATE, seed))
    gain = np.sqrt(active_power(speech) / 10 ** (snr_db / 10) / np.mean(crowd ** 2))
    return to_bytes(speech + crowd * gain)


def sox(pcm: bytes, *effects: str) -> bytes:
    """Run 16 kHz mono int16 PCM through sox effects."""
    raw = ["-t", "raw", "-r", str(SAMPLE_RATE), "-c", "1", "-b", "16", "-e", "signed-integer"]
    return subprocess.run(["sox", "-R", *raw, "-", *raw, "-", *effects], input=pcm,
                          check=True, capture_output=True).stdout


def reverb(pcm: bytes, seed: int = 0) -> bytes:
    """Across the room: 50-70 % reverberance, 10-40 ms pre-delay, 6-12 dB quieter, and a
    faint room noise floor (pink noise 30 dB under the speech)."""
    rng = np.random.default_rng(seed)
    wet = sox(pcm, "gain", f"{-rng.uniform(6, 12):.1f}",
              "reverb", f"{rng.uniform(50, 70):.0f}", "50", "100", "100",
              f"{rng.uniform(10, 40):.0f}", "0", "pad", "0", "0.2")
    speech = to_array(wet)
    noise = pink(len(speech), rng)
    return to_bytes(speech + noise * np.sqrt(active_power(speech) / 1000 / np.mean(noise ** 2)))


def tempo(factor: float) -> Callable[[bytes, int], bytes]:
    """A faster or slower talker, same pitch (sox tempo)."""
    def spoken_at(pcm: bytes, seed: int = 0) -> bytes:
        return sox(pcm, "tempo", "-s", f"{factor}")
    return spoken_at


def pink(length: int, rng: np.random.Generator) -> np.ndarray:
    """Pink (1/f) noise, unit-less: white noise shaped in the frequency domain."""
    spectrum = np.fft.rfft(rng.normal(0.0, 1.0, length))
    spectrum /= np.sqrt(np.maximum(np.arange(len(spectrum)), 1.0))
    return np.fft.irfft(spectrum, n=length)


def pink_noise(seconds: float, seed: int, rms: float = 1500.0) -> bytes:
    """A hum or fan: steady pink noise, nobody's answer."""
    noise = pink(round(seconds * SAMPLE_RATE), np.random.default_rng(seed))
    return to_bytes(noise / np.sqrt(np.mean(noise ** 2)) * rms)


def near_silence(seconds: float, seed: int) -> bytes:
    """A quiet room: a whisper of white noise about 65 dB below full scale."""
    noise = np.random.default_rng(seed).normal(0.0, 18.0, round(seconds * SAMPLE_RATE))
    return to_bytes(noise)


# Condition name -> what it does to a phrase's PCM (given a seed).
CONDITIONS: dict[str, Callable[[bytes, int], bytes]] = {
    "clean": clean,
    "babble20": lambda pcm, seed=0: with_babble(pcm, 20.0, seed),
    "babble10": lambda pcm, seed=0: with_babble(pcm, 10.0, seed),
    "babble5": lambda pcm, seed=0: with_babble(pcm, 5.0, seed),
    "reverb": reverb,
    "slow": tempo(0.8),
    "fast": tempo(1.2),
}
