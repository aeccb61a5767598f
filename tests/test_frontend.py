"""Front ends on real audio: espeak-ng speech in steady noise, streamed in microphone frames."""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest

from voicehost.lab.speakers import VOICES, add_noise, speak
from voicehost.speech.frontend import FRONT_ENDS, FrontEnd, make_front_end
from voicehost.voice import SAMPLE_RATE

SUPPRESSORS = ("webrtc", "deepfilter")
HOP = SAMPLE_RATE // 100
# Least noise reduction (dB, in the pauses) each suppressor must keep; measured 11 / 31
# on white noise at 10 dB SNR (webrtc at its default level 2).
NOISE_DROP_DB = {"webrtc": 8.0, "deepfilter": 20.0}


@cache
def clean_speech() -> np.ndarray:
    """Two players' phrases with pauses between them, as float samples."""
    parts = [speak("player six, i pointed at the fox", VOICES[0]),
             speak("yes", VOICES[2]),
             speak("the horse and the owl are red", VOICES[1])]
    return np.concatenate([np.frombuffer(p, dtype=np.int16) for p in parts]).astype(np.float64)


def hop_levels(samples: np.ndarray) -> np.ndarray:
    hops = samples[: len(samples) // HOP * HOP].reshape(-1, HOP)
    return 10 * np.log10(np.mean(hops**2, axis=1) / 32768**2 + 1e-12)


def speech_and_pause_hops() -> tuple[np.ndarray, np.ndarray]:
    levels = hop_levels(clean_speech())
    return levels > -45, levels < -70


def noisy(snr_db: float = 10.0, seed: int = 1) -> np.ndarray:
    """The phrases in white noise `snr_db` below the speech hops' power."""
    speech = clean_speech()
    talking, _ = speech_and_pause_hops()
    hops = speech[: len(speech) // HOP * HOP].reshape(-1, HOP)
    noise_power = np.mean(hops[talking] ** 2) / 10 ** (snr_db / 10)
    noise = np.random.default_rng(seed).normal(0.0, np.sqrt(noise_power), len(speech))
    return np.clip(speech + noise, -32768, 32767)


def stream(front_end: FrontEnd, samples: np.ndarray, chunk_samples: int = 320) -> np.ndarray:
    """Feed microphone-sized chunks, then flush; the output as float samples."""
    pcm = samples.astype(np.int16).tobytes()
    step = 2 * chunk_samples
    out = b"".join(front_end.process(pcm[i : i + step]) for i in range(0, len(pcm), step))
    return np.frombuffer(out + front_end.flush(), dtype=np.int16).astype(np.float64)


def power_db(samples: np.ndarray, hops: np.ndarray) -> float:
    framed = samples[: len(samples) // HOP * HOP].reshape(-1, HOP)
    return float(10 * np.log10(np.mean(framed[hops] ** 2) + 1e-9))


@pytest.mark.parametrize("name", FRONT_ENDS)
def test_output_is_as_long_as_the_input_and_in_step_with_it(name: str) -> None:
    samples = noisy()
    out = stream(make_front_end(name), samples)
    assert len(out) == len(samples)
    # The engine's own delay is taken out: the speech lines up with the input's, sample
    # for sample, so the endpointer's times and pre-roll stay true.
    speech = clean_speech()
    lags = range(-400, 401, 4)
    fit = [float(np.dot(speech[500:-500], np.roll(out, -lag)[500:-500])) for lag in lags]
    assert list(lags)[int(np.argmax(fit))] == 0
    assert np.corrcoef(speech, out)[0, 1] > 0.9


@pytest.mark.parametrize("name", SUPPRESSORS)
def test_suppressor_lowers_steady_noise_and_keeps_the_speech(name: str) -> None:
    talking, pause = speech_and_pause_hops()
    samples = noisy()
    out = stream(make_front_end(name), samples)
    assert power_db(samples, pause) - power_db(out, pause) > NOISE_DROP_DB[name]
    assert abs(power_db(out, talking) - power_db(samples, talking)) < 3.0
    # Less noise, same speech: the output is closer to the clean phrases than the input was.
    speech = clean_speech()
    assert np.sum((out - speech) ** 2) < np.sum((samples - speech) ** 2)


@pytest.mark.parametrize("name", SUPPRESSORS)
def test_clean_speech_passes_nearly_unchanged(name: str) -> None:
    talking, _ = speech_and_pause_hops()
    speech = clean_speech()
    out = stream(make_front_end(name), speech)
    assert abs(power_db(out, talking) - power_db(speech, talking)) < 3.0
    assert np.corrcoef(speech, out)[0, 1] > 0.9  # measured 0.93 (webrtc) to 0.99


@pytest.mark.parametrize("name", FRONT_ENDS)
def test_chunk_size_does_not_change_the_output(name: str) -> None:
    samples = noisy(seed=2)
    front_end = make_front_end(name)
    in_frames = stream(front_end, samples, 320)  # 20 ms, the microphone's frames
    assert np.array_equal(stream(front_end, samples, 1600), in_frames)  # 100 ms
    assert np.array_equal(stream(front_end, samples, 37), in_frames)  # odd sizes too


@pytest.mark.parametrize("name", SUPPRESSORS)
def test_output_lags_by_at_most_the_stated_latency(name: str) -> None:
    front_end = make_front_end(name)
    pcm = noisy().astype(np.int16).tobytes()
    taken = given = 0
    for offset in range(0, len(pcm), 640):
        given += len(front_end.process(pcm[offset : offset + 640])) // 2
        taken += len(pcm[offset : offset + 640]) // 2
        assert 0 <= taken - given <= front_end.latency_s * SAMPLE_RATE
    assert given + len(front_end.flush()) // 2 == taken


def test_flush_starts_a_fresh_stream() -> None:
    front_end = make_front_end("deepfilter")
    first = stream(front_end, noisy(seed=3))
    assert np.array_equal(stream(front_end, noisy(seed=3)), first)


def test_unknown_front_end_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown front end"):
        make_front_end("wishful")


def test_a_filtered_recognizer_hears_the_cleaned_speech() -> None:
    from voicehost.speech.base import recognize
    from voicehost.speech.frontend import FilteredRecognizer
    from voicehost.speech.pocketsphinx_engine import PocketsphinxRecognizer

    front_end = make_front_end("webrtc")
    filtered = FilteredRecognizer(front_end, PocketsphinxRecognizer())
    assert filtered.name == "webrtc+pocketsphinx"
    filtered.set_phrases(["yellow", "red", "repeat", "help"])
    noisy = add_noise(speak("yellow", VOICES[0]), 15.0)
    assert recognize(filtered, noisy).text == "yellow"
    # the front end ran on the engine's audio, and keeps its state from one utterance to
    # the next (no flush: DeepFilterNet would reload its model)
    assert front_end._taken == len(noisy) // 2
    assert recognize(filtered, noisy).text == "yellow"
    assert front_end._taken == len(noisy)
