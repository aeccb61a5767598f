"""The ears listening to the virtual room: players are espeak-ng voices played with paplay."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import numpy as np
import pytest

from voicehost.lab.room import GrammarSphinx, Room, RoomRecording, play_into_room, record_room
from voicehost.lab.speakers import SPEAKERS, speak
from voicehost.speech.devices import (
    NoInputDeviceError,
    Resampler,
    input_level_problem,
    measure_input_level,
    tone,
)
from voicehost.speech.ears import Ears, Gate, Utterance
from voicehost.speech.endpoint import Endpointer, EndpointSettings
from voicehost.speech.microphone import Microphone
from voicehost.speech.mouth import Mouth
from voicehost.speech.pocketsphinx_engine import PocketsphinxRecognizer
from voicehost.voice import SAMPLE_RATE

PHRASES = ["yup nope yup", "good evening players", "the night falls"]


def recognizer() -> PocketsphinxRecognizer:
    return PocketsphinxRecognizer()


@pytest.fixture
def ears(room: Room) -> Iterator[Ears]:
    ears = Ears(Microphone(room.device), Endpointer(), recognizer())
    yield ears
    ears.close()


def player_says(pcm: bytes, delay_s: float = 0.3) -> tuple[threading.Thread, list[float]]:
    """Play a phrase into the room from another thread; returns it and [start, end] times."""
    times: list[float] = []

    def run() -> None:
        time.sleep(delay_s)
        times.append(time.monotonic())
        play_into_room(pcm)
        times.append(time.monotonic())

    thread = threading.Thread(target=run)
    thread.start()
    return thread, times


def listen_in_background(ears: Ears, timeout_s: float
                         ) -> tuple[threading.Thread, list[Utterance | None]]:
    result: list[Utterance | None] = []
    thread = threading.Thread(target=lambda: result.append(ears.listen(PHRASES, timeout_s)))
    thread.start()
    return thread, result


def warm_mouth(room: Room, gate: Gate) -> Mouth:
    """The host's mouth in the room, warmed up, closing `gate` while it speaks."""
    mouth = Mouth(device=room.device, gate=gate, tail_s=0.25, voice="en-us", rate=150)
    mouth.warm_up()
    return mouth


def report(heard: Utterance, label: str) -> None:
    print(f"\nears {label}: {heard.text!r} conf {heard.hearing.confidence:.2f}, "
          f"end-of-speech detected → result {heard.latency_s * 1000:.0f} ms "
          f"(decode {heard.hearing.decode_seconds * 1000:.0f} ms), "
          f"speech end → result {heard.response_s * 1000:.0f} ms")


@pytest.mark.room
# Speaker/phrase pairs that the test's pocketsphinx grammar recognizes reliably: its
# margins are thin for some espeak voices (deep-man, child-like), whatever the plumbing.
@pytest.mark.parametrize(("text", "speaker"), [("good evening players", 0),
                                               ("yup nope yup", 2)])
def test_ears_hear_a_player(ears: Ears, text: str, speaker: int) -> None:
    pcm = speak(text, SPEAKERS[speaker])  # 0.3 s of silence each side
    thread, played = player_says(pcm)
    heard = ears.listen(PHRASES, timeout_s=3.0)
    thread.join()
    assert heard is not None, "the ears heard nothing"
    report(heard, SPEAKERS[speaker].name)
    assert heard.text == text
    assert heard.end_reason == "silence"
    # The timestamps line up with what was played (paplay + capture add some latency).
    assert played[0] + 0.3 - 0.05 < heard.speech_started_at < played[0] + 0.3 + 0.25
    assert heard.speech_ended_at < played[1]
    assert heard.endpoint_at - heard.speech_ended_at == pytest.approx(0.5, abs=0.15)
    assert heard.speech_started_at < heard.speech_ended_at < heard.endpoint_at
    assert 0 <= heard.latency_s < 0.5
    # The recognizer got the pre-roll, the speech and the trailing silence, in one piece.
    expected = 0.3 + (heard.speech_ended_at - heard.speech_started_at) + 0.5
    assert heard.hearing.audio_seconds == pytest.approx(expected, abs=0.03)


@pytest.mark.room
def test_microphone_resamples_when_the_device_rate_is_not_16k(room: Room) -> None:
    microphone = Microphone(room.device, device_rate=44100)
    ears = Ears(microphone, Endpointer(EndpointSettings(trailing_silence_s=0.3)),
                recognizer())
    try:
        thread, _ = player_says(speak("the night falls", SPEAKERS[0]))
        heard = ears.listen(PHRASES, timeout_s=3.0)
        thread.join()
        assert microphone.info is not None and microphone.rate == 44100
    finally:
        ears.close()
    assert heard is not None
    report(heard, "44.1 kHz microphone")
    assert heard.text == "the night falls"
    assert heard.endpoint_at - heard.speech_ended_at == pytest.approx(0.3, abs=0.15)


def test_resampler_streams_like_one_shot_and_filters_aliases() -> None:
    t = np.arange(44100) / 44100
    signal = (8000 * np.sin(2 * np.pi * 1000 * t) + 8000 * np.sin(2 * np.pi * 12000 * t))
    samples = signal.astype(np.int16)
    whole = Resampler(44100, 16000)(samples)
    streamed, resampler, pos = [], Resampler(44100, 16000), 0
    for size in np.random.default_rng(0).integers(1, 2000, 200):
        streamed.append(resampler(samples[pos : pos + size]))
        pos += size
    streamed_all = np.concatenate(streamed)
    assert abs(len(whole) - 16000) <= 1 and len(streamed_all) == len(whole)
    assert np.abs(streamed_all.astype(int) - whole).max() <= 1
    spectrum = np.abs(np.fft.rfft(whole[200:-200] * np.hanning(len(whole) - 400)))
    freqs = np.fft.rfftfreq(len(whole) - 400, 1 / 16000)
    assert freqs[spectrum.argmax()] == pytest.approx(1000, abs=3)
    alias = spectrum[np.abs(freqs - 4000) < 20].max()  # 12 kHz folds onto 4 kHz
    assert 20 * np.log10(spectrum.max() / alias) > 40


@pytest.mark.room
def test_frames_are_16k_and_evenly_timed(room: Room) -> None:
    with Microphone(room.device, device_rate=48000) as microphone:
        time.sleep(1.0)
    frames = []
    while (frame := microphone.read(timeout=0.01)) is not None:
        frames.append(frame)
    assert 45 <= len(frames) <= 52
    assert {len(f.pcm) for f in frames} == {640}
    steps = np.diff([f.captured_at for f in frames])
    assert np.allclose(steps, 0.02, atol=0.004)
    assert frames[-1].captured_at < time.monotonic()


@pytest.mark.room
def test_nobody_speaks(ears: Ears) -> None:
    began = time.monotonic()
    assert ears.listen(PHRASES, timeout_s=1.0) is None
    assert time.monotonic() - began == pytest.approx(1.0, abs=0.15)


@pytest.mark.room
def test_ears_are_deaf_while_the_mouth_speaks(room: Room) -> None:
    gate = Gate()
    mouth = warm_mouth(room, gate)
    ears = Ears(Microphone(room.device), Endpointer(), recognizer(), gate)
    deaf_control = Ears(Microphone(room.device), Endpointer(), recognizer())  # own gate
    try:
        # The mouth starts 0.2 s into the listening window and speaks for about 1.4 s.
        gated, gated_heard = listen_in_background(ears, 2.5)
        control, control_heard = listen_in_background(deaf_control, 2.5)
        with RoomRecording() as recording:
            time.sleep(0.2)
            said_at = time.monotonic()
            spoken = mouth.say("yup nope yup")
            gated.join()
            control.join()
        assert len(recording.loud()) * 0.01 > 0.5, "the mouth was not audible in the room"
        assert spoken.audio_s > 1.0
        assert gated_heard == [None]
        assert ears.gated_frames * 0.02 >= spoken.audio_s
        # The same ears without the mouth's gate do hear the mouth, all of it.
        [heard_anyway] = control_heard
        assert heard_anyway is not None
        assert said_at < heard_anyway.speech_started_at < said_at + spoken.first_audio_s + 0.2
        assert heard_anyway.speech_ended_at < said_at + spoken.total_s + 0.1
        assert heard_anyway.speech_ended_at - heard_anyway.speech_started_at > 0.8

        # Once the mouth is done (and the tail is over) the same ears hear players again.
        thread, _ = player_says(speak("the night falls", SPEAKERS[0]), delay_s=0.1)
        heard = ears.listen(PHRASES, timeout_s=3.0)
        thread.join()
        assert heard is not None and heard.text == "the night falls"
    finally:
        ears.close()
        deaf_control.close()


@pytest.mark.room
def test_an_utterance_the_host_talks_over_is_dropped(room: Room) -> None:
    gate = Gate()
    mouth = warm_mouth(room, gate)
    # GrammarSphinx refuses a new utterance before the old one is finished: a dropped
    # utterance must still be closed properly.
    ears = Ears(Microphone(room.device), Endpointer(), GrammarSphinx(), gate)
    try:
        listener, result = listen_in_background(ears, 4.0)
        first, _ = player_says(speak("good evening players", SPEAKERS[0]), delay_s=0.3)
        time.sleep(0.9)  # the player is mid-sentence when the host starts talking
        spoken = mouth.say("yup nope yup")
        first.join()
        second, played = player_says(speak("the night falls", SPEAKERS[0]), delay_s=0.1)
        listener.join()
        second.join()
    finally:
        ears.close()
    [heard] = result
    assert spoken.audio_s > 1.0
    assert heard is not None and heard.text == "the night falls"
    assert heard.speech_started_at > played[0]


@pytest.mark.room
def test_input_level_and_missing_microphone(room: Room) -> None:
    quiet = measure_input_level(0.3, room.device)
    assert quiet < -90
    assert input_level_problem(quiet) is not None

    result: list[float] = []
    measuring = threading.Thread(target=lambda: result.append(
        measure_input_level(0.5, room.device)))
    measuring.start()
    play_into_room(tone(1.5, 440, dbfs=-20).tobytes())
    measuring.join()
    assert result[0] == pytest.approx(-23, abs=1.5)  # a sine's RMS is 3 dB below its peak
    assert input_level_problem(result[0]) is None

    with pytest.raises(NoInputDeviceError) as raised:
        Microphone("no such microphone").start()
    assert "voicehost devices" in raised.value.what_to_do
    assert len(record_room(0.2)) == 0.2 * SAMPLE_RATE * 2
