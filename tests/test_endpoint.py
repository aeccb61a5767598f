"""The endpointer on synthetic audio: espeak-ng speech, silence, clicks and steady noise."""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np
import pytest

from voicehost.lab.speakers import SPEAKERS, speak_wav, to_pcm
from voicehost.speech.ears import hop_levels
from voicehost.speech.endpoint import Endpointer, EndpointEvent, EndpointSettings
from voicehost.voice import SAMPLE_RATE

FRAME = 320  # 20 ms, like the microphone
TOL_S = 0.06


@cache
def phrase(text: str, speaker: int = 0) -> np.ndarray:
    """espeak-ng speech with its own leading and trailing silence cut off."""
    with tempfile.TemporaryDirectory() as tmp:
        pcm = to_pcm(speak_wav(text, SPEAKERS[speaker], Path(tmp) / "p.wav"))
    samples = np.frombuffer(pcm, dtype=np.int16)
    loud = np.nonzero(np.abs(samples) > 300)[0]
    return samples[loud[0] : loud[-1] + 1].copy()


def silence(seconds: float) -> np.ndarray:
    return np.zeros(round(seconds * SAMPLE_RATE), dtype=np.int16)


def with_noise(samples: np.ndarray, dbfs: float, seed: int = 1) -> np.ndarray:
    """Add steady white noise at an absolute RMS level."""
    rms = 32768.0 * 10 ** (dbfs / 20)
    noise = np.random.default_rng(seed).normal(0.0, rms, samples.shape)
    return np.clip(samples + noise, -32768, 32767).astype(np.int16)


@dataclass
class Run:
    events: list[tuple[float, EndpointEvent]]  # (stream position when reported, event)

    def kinds(self) -> list[str]:
        """Starts and ends in order ("speech" events, one per frame, left out)."""
        return [e.kind for _, e in self.events if e.kind != "speech"]

    def of(self, kind: str) -> list[tuple[float, EndpointEvent]]:
        return [(t, e) for t, e in self.events if e.kind == kind]


def run(samples: np.ndarray, settings: EndpointSettings | None = None) -> Run:
    endpointer = Endpointer(settings)
    events: list[tuple[float, EndpointEvent]] = []
    pcm = samples.astype(np.int16).tobytes()
    for offset in range(0, len(pcm), FRAME * 2):
        for event in endpointer.feed(pcm[offset : offset + FRAME * 2]):
            events.append((endpointer.position_s, event))
    return Run(events)


def scene(*parts: np.ndarray) -> tuple[np.ndarray, list[tuple[float, float]]]:
    """Concatenate silence and phrases; returns the samples and each phrase's (start, end)."""
    spans, pos = [], 0
    for part in parts:
        if np.any(part):
            spans.append((pos / SAMPLE_RATE, (pos + len(part)) / SAMPLE_RATE))
        pos += len(part)
    return np.concatenate(parts), spans


def test_start_and_end_in_a_quiet_room() -> None:
    samples, [(start, end)] = scene(silence(1.0), phrase("yup nope yup"), silence(1.5))
    result = run(with_noise(samples, -75))
    assert result.kinds() == ["start", "end"]
    (_, began), = result.of("start")
    (_, ended), = result.of("end")
    assert abs(began.at_s - start) < TOL_S
    assert abs(ended.at_s - end) < 0.1
    assert ended.reason == "silence"


def test_pre_roll_and_utterance_audio_are_the_stream_itself() -> None:
    samples, [(start, _)] = scene(silence(1.0), phrase("yup nope yup"), silence(1.5))
    samples = with_noise(samples, -75)
    result = run(samples)
    audio = b"".join(e.pcm for _, e in result.events)
    (_, began), = result.of("start")
    first = round((began.at_s - 0.3) * SAMPLE_RATE)
    # The utterance is one contiguous slice of the input starting 0.3 s before the onset.
    assert audio == samples[first : first + len(audio) // 2].tobytes()
    assert first / SAMPLE_RATE < start - 0.25
    assert len(began.pcm) / 2 / SAMPLE_RATE == pytest.approx(0.3 + 0.1, abs=0.02)


def test_pre_roll_is_configurable() -> None:
    samples, _ = scene(silence(1.0), phrase("yup nope yup"), silence(1.0))
    result = run(with_noise(samples, -75), EndpointSettings(pre_roll_s=0.1))
    (_, began), = result.of("start")
    assert len(began.pcm) / 2 / SAMPLE_RATE == pytest.approx(0.1 + 0.1, abs=0.02)


def test_short_click_is_ignored_but_a_short_word_is_not() -> None:
    click = (np.random.default_rng(3).normal(0, 8000, round(0.05 * SAMPLE_RATE))).astype(np.int16)
    samples, _ = scene(silence(0.5), click, silence(1.0), click, silence(1.0))
    assert run(samples).events == []

    word = phrase("yes")
    assert len(word) / SAMPLE_RATE < 0.6
    samples, spans = scene(silence(0.5), click, silence(1.0), word, silence(1.0))
    start = spans[-1][0]
    result = run(samples)
    assert result.kinds() == ["start", "end"]
    assert abs(result.of("start")[0][1].at_s - start) < TOL_S


@pytest.mark.parametrize("snr_db", [20, 10])
def test_steady_background_noise(snr_db: float) -> None:
    speech = phrase("yup nope yup", 2)
    speech_dbfs = 10 * np.log10(np.mean(speech.astype(np.float64) ** 2) / 32768**2)
    samples, [(start, end)] = scene(silence(1.5), speech, silence(1.5))
    result = run(with_noise(samples, speech_dbfs - snr_db))
    assert result.kinds().count("start") == 1, result.kinds()
    (_, began), = result.of("start")
    (_, ended), = result.of("end")
    assert abs(began.at_s - start) < 0.1
    assert abs(ended.at_s - end) < 0.2  # a final plosive under noise is lost in it


def test_loud_steady_noise_alone_is_not_speech() -> None:
    # -30 dBFS hiss is 30 dB above the quiet-room floor: only the adaptive floor saves us.
    assert run(with_noise(silence(4.0), -30)).events == []


def test_noise_starting_mid_stream_is_absorbed() -> None:
    settings = EndpointSettings(max_utterance_s=2.0)
    samples, [(start, _)] = scene(silence(7.0), phrase("yup nope yup"), silence(1.0))
    noisy_tail = samples.copy()
    noisy_tail[SAMPLE_RATE:] = with_noise(samples[SAMPLE_RATE:], -35, seed=7)
    result = run(noisy_tail, settings)
    # The fan switching on looks like speech once, gets cut at max length, then the floor
    # learns it, and the phrase said over it is found.
    ends = result.of("end")
    assert [e.reason for _, e in ends][0] == "max_length"
    assert ends[-1][1].reason == "silence"
    assert abs(result.of("start")[-1][1].at_s - start) < 0.1


def test_floor_follows_slowly_rising_noise() -> None:
    # Noise swelling by 30 dB over 8 s is not speech; the phrase said over it afterwards is.
    n = 8 * SAMPLE_RATE
    rising = np.random.default_rng(5).normal(0.0, 1.0, n) * 32768 * 10 ** (
        np.linspace(-70, -40, n) / 20)
    speech = phrase("yup nope yup")
    samples, spans = scene(rising.astype(np.int16), silence(0.5), speech, silence(1.0))
    start = spans[-1][0]
    noisy = samples.copy()
    noisy[len(rising):] = with_noise(samples[len(rising):], -40, seed=6)
    result = run(noisy)
    assert result.kinds() == ["start", "end"]
    assert abs(result.of("start")[0][1].at_s - start) < 0.1


def test_floor_follows_a_room_getting_quieter() -> None:
    # A loud start (a hair dryer) then a quiet room: a softly spoken phrase must be found.
    soft = (phrase("yup nope yup") * 10 ** (-22 / 20)).astype(np.int16)  # about -40 dBFS
    samples, [(start, _)] = scene(silence(1.0), silence(2.0), soft, silence(1.0))
    noisy = with_noise(samples, -75)
    noisy[:SAMPLE_RATE] = with_noise(silence(1.0), -30)
    result = run(noisy)
    assert result.kinds() == ["start", "end"]
    assert abs(result.of("start")[0][1].at_s - start) < 0.1


@pytest.mark.parametrize("trailing_s", [0.5, 0.25, 0.8])
def test_trailing_silence_setting_is_honored(trailing_s: float) -> None:
    samples, [(_, end)] = scene(silence(1.0), phrase("yup nope yup"), silence(1.5))
    result = run(with_noise(samples, -75), EndpointSettings(trailing_silence_s=trailing_s))
    (reported_at, ended), = result.of("end")
    # The end is reported trailing_s after speech stopped (within one 20 ms frame).
    assert reported_at - ended.at_s == pytest.approx(trailing_s, abs=0.021)
    assert abs(ended.at_s - end) < 0.1


def fading_tail(level_dbfs: float, seconds: float, fall_db: float) -> np.ndarray:
    """Noise starting at `level_dbfs` (RMS) and fading by `fall_db` over `seconds`: a voice's
    echo dying away in a silent room."""
    t = np.arange(round(seconds * SAMPLE_RATE)) / SAMPLE_RATE
    envelope = 32768.0 * 10 ** ((level_dbfs - fall_db * t / seconds) / 20)
    return (np.random.default_rng(3).normal(0.0, 1.0, len(t)) * envelope).astype(np.int16)


def test_a_fading_tail_far_below_the_voice_is_not_the_player_still_speaking() -> None:
    word = phrase("yup")
    gain = 10 ** ((-10 - max(hop_levels(word.tobytes()))) / 20)  # its loudest hop at -10 dBFS
    samples, [(_, end)] = scene(silence(1.0), (word * gain).astype(np.int16))
    # 37 dB under the voice, fading: about 0.2 s of it above the silent room's floor margin
    samples = np.concatenate([samples, fading_tail(-47.0, 0.4, 15), silence(1.0)])
    (_, ended), = run(samples).of("end")
    assert abs(ended.at_s - end) < TOL_S
    (_, heard_out), = run(samples, EndpointSettings(quiet_below_loudest_db=None)).of("end")
    assert heard_out.at_s - end > 0.1


def test_a_pause_longer_than_the_trailing_silence_splits_the_utterance() -> None:
    samples, spans = scene(silence(1.0), phrase("yup"), silence(0.4), phrase("nope"),
                           silence(1.0))
    assert len(spans) == 2
    assert run(samples).kinds().count("start") == 1
    short = run(samples, EndpointSettings(trailing_silence_s=0.25))
    assert short.kinds().count("start") == 2
    assert [round(e.at_s, 1) for _, e in short.of("start")] == pytest.approx(
        [s for s, _ in spans], abs=TOL_S)


def test_max_utterance_cuts_off_long_speech() -> None:
    long_speech = np.concatenate([phrase("yup nope yup")] * 4)
    samples, [(start, _)] = scene(silence(1.0), long_speech, silence(1.0))
    result = run(samples, EndpointSettings(max_utterance_s=2.0))
    (reported_at, ended), = result.of("end")[:1]
    assert ended.reason == "max_length"
    assert reported_at == pytest.approx(start + 2.0, abs=0.03)


def test_reset_drops_an_utterance_in_progress() -> None:
    endpointer = Endpointer()
    speech = np.concatenate([silence(0.5), phrase("yup nope yup")]).tobytes()
    kinds = [e.kind for e in endpointer.feed(speech)]
    assert kinds[0] == "start" and "end" not in kinds and endpointer.in_speech
    endpointer.reset()
    assert not endpointer.in_speech
    assert endpointer.feed(silence(1.0).tobytes()) == []


def test_settings_are_validated() -> None:
    with pytest.raises(ValueError):
        EndpointSettings(trailing_silence_s=0)
    with pytest.raises(ValueError):
        EndpointSettings(keep_margin_db=12, start_margin_db=10)


def test_an_utterance_ended_early_ends_where_its_speech_did() -> None:
    endpointer = Endpointer()
    with pytest.raises(RuntimeError):
        endpointer.end_now("complete")  # nothing to end
    said = phrase("yes")
    pcm = np.concatenate([silence(0.5), said, silence(0.2)]).tobytes()
    kinds = [event.kind for event in endpointer.feed(pcm)]
    assert "start" in kinds and "end" not in kinds  # 0.2 s is short of the trailing silence
    assert endpointer.quiet_s == pytest.approx(0.2, abs=TOL_S)
    event = endpointer.end_now("complete")
    assert (event.kind, event.reason) == ("end", "complete")
    assert event.at_s == pytest.approx(0.5 + len(said) / SAMPLE_RATE, abs=TOL_S)
    assert not endpointer.in_speech
    assert endpointer.feed(silence(1.0).tobytes()) == []  # no second end of the same speech
