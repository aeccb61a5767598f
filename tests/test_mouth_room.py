"""The mouth speaking into the virtual room, checked by recording the room and recognizing it."""

from __future__ import annotations

import gc
import json
import subprocess
import sys
import threading
import time
import wave
from pathlib import Path

import numpy as np
import pytest

from voicehost.lab.room import Room, RoomRecording, recognize_pcm
from voicehost.speech.devices import check_speaker, tone
from voicehost.speech.ears import Gate
from voicehost.speech.mouth import Mouth

PHRASES = ["good evening players", "the night falls", "yup nope yup"]


def loud_span(samples: np.ndarray, rate: int, threshold: int = 300) -> float:
    loud = np.nonzero(np.abs(samples) > threshold)[0]
    return (loud[-1] - loud[0]) / rate


def loud_start(samples: np.ndarray, rate: int, threshold: int = 300) -> float:
    return float(np.nonzero(np.abs(samples) > threshold)[0][0] / rate)


def loud_end(samples: np.ndarray, rate: int, threshold: int = 300) -> float:
    return float(np.nonzero(np.abs(samples) > threshold)[0][-1] / rate)


@pytest.mark.room
@pytest.mark.parametrize("text", ["good evening players", "the night falls"])
def test_say_is_heard_in_the_room_and_returns_when_done(room: Room, text: str) -> None:
    mouth = Mouth(device=room.device, voice="en-us", rate=150)
    mouth.warm_up()
    expected, rate = mouth.render(text)

    with RoomRecording() as recording:
        called = time.monotonic()
        spoken = mouth.say(text)
        returned = time.monotonic()
        time.sleep(0.4)
    loud = recording.loud()
    print(f"\nmouth: {text!r} {spoken.audio_s:.2f} s of speech, render {spoken.render_s * 1000:.0f}"
          f" ms, first audio {spoken.first_audio_s * 1000:.0f} ms, say took {spoken.total_s:.2f} s")

    assert loud, "nothing audible in the room"
    tail = len(expected) / rate - loud_end(expected, rate)  # silence after the last word
    head = loud_start(expected, rate)  # silence before the first word
    print(f"room: first sound at {loud[0] - head - called:.3f} s, played until "
          f"{loud[-1] + tail - called:.3f} s, say returned at {returned - called:.3f} s")
    heard_span = loud[-1] - loud[0]
    assert heard_span == pytest.approx(loud_span(expected, rate), abs=0.15)
    assert loud[0] - head - called == pytest.approx(spoken.first_audio_s, abs=0.08)
    # Blocking: say cannot return before the speech has been played in real time, and it
    # returns when the room has heard the clip's last sample (parec delivers within ~30 ms).
    assert returned - called >= spoken.audio_s
    assert returned == pytest.approx(loud[-1] + tail, abs=0.06)
    assert spoken.first_audio_s < 0.5
    assert recognize_pcm(recording.pcm(), PHRASES) == text


@pytest.mark.room
def test_gate_is_shut_while_speaking_and_for_the_tail(room: Room) -> None:
    gate = Gate()
    mouth = Mouth(device=room.device, gate=gate, tail_s=0.3)
    mouth.warm_up()
    shut: list[float] = []
    stop = threading.Event()

    def watch() -> None:
        while not stop.is_set():
            if not gate.admits(time.monotonic()):
                shut.append(time.monotonic())
            time.sleep(0.005)

    watcher = threading.Thread(target=watch)
    watcher.start()
    called = time.monotonic()
    spoken = mouth.say("yup nope yup")
    returned = time.monotonic()
    time.sleep(0.5)
    stop.set()
    watcher.join()
    assert shut and shut[0] - called < 0.05
    assert shut[-1] == pytest.approx(returned + 0.3, abs=0.03)
    assert shut[-1] - shut[0] >= spoken.audio_s + 0.3 - 0.03
    assert gate.admits(time.monotonic())


FIRST_AUDIO = """
import json, sys, time
from voicehost.speech.mouth import Mouth
mouth = Mouth(device=sys.argv[1])
started = time.monotonic()
if sys.argv[2] == "warm":
    mouth.warm_up()
ready = time.monotonic() - started
first = mouth.say("Welcome.")
print(json.dumps([ready, first.render_s, first.first_audio_s, mouth.say("Welcome.").first_audio_s]))
"""


@pytest.mark.room
def test_time_to_first_audio(room: Room) -> None:
    # Fresh interpreters: in this one, espeak was loaded long ago by other tests.
    results = {}
    for mode in ("cold", "warm"):
        out = subprocess.run([sys.executable, "-c", FIRST_AUDIO, room.device, mode],
                             capture_output=True, text=True, check=True, timeout=30).stdout
        results[mode] = json.loads(out.splitlines()[-1])
    (_, cold_render, cold_first, again), (warm_up, _, warm_first, _) = results.values()
    print(f"\nmouth time to first audio: cold start {cold_first * 1000:.0f} ms (render "
          f"{cold_render * 1000:.0f} ms), after warm_up ({warm_up * 1000:.0f} ms) "
          f"{warm_first * 1000:.0f} ms, next sentence {again * 1000:.0f} ms")
    assert cold_first < 1.0
    assert warm_first < 0.25 and again < 0.25


def test_rate_volume_and_voice_settings() -> None:
    text = "the night falls on the village"
    slow, rate = Mouth(rate=110).render(text)
    fast, _ = Mouth(rate=260).render(text)
    assert rate == 22050
    assert len(slow) > 1.6 * len(fast)

    loud, _ = Mouth(volume=1.0).render(text)
    quiet, _ = Mouth(volume=0.25).render(text)
    ratio = np.sqrt(np.mean(quiet.astype(float) ** 2) / np.mean(loud.astype(float) ** 2))
    assert 0.15 < ratio < 0.35

    us = Mouth(voice="English (America)")
    assert us.voice_id() == "gmw/en-us"
    assert Mouth(voice="en-us+f3").voice_id() == "gmw/en-us+f3"
    female = Mouth(voice="en-us+f3")
    assert not np.array_equal(female.render("hello")[0], us.render("hello")[0])
    with pytest.raises(ValueError, match="no voice matches"):
        Mouth(voice="no-such-voice-xyz").render("hello")
    with pytest.raises(ValueError):
        Mouth(volume=1.5)


def test_save_writes_the_rendered_speech(tmp_path: Path) -> None:
    mouth = Mouth()
    path = mouth.save("good evening players", tmp_path / "out.wav")
    with wave.open(str(path)) as wav:
        assert (wav.getnchannels(), wav.getsampwidth(), wav.getframerate()) == (1, 2, 22050)
        samples = np.frombuffer(wav.readframes(wav.getnframes()), dtype=np.int16)
    assert 1.0 < len(samples) / 22050 < 3.0
    # espeak-ng is not bit-exact from run to run, but the same speech comes out.
    assert len(samples) == pytest.approx(len(mouth.render("good evening players")[0]), rel=0.02)
    assert mouth.render("   ")[0].size == 0


@pytest.mark.parametrize("text", ["Cheetah, yup.", "Tiger, is that right?", "Owl goes first."])
def test_a_line_starts_with_its_first_sound(text: str) -> None:
    samples, rate = Mouth(rate=200).render(text)
    # a stop's closure would be tens of milliseconds of silence before the burst
    assert loud_start(samples, rate, threshold=64) <= 0.006
    assert loud_span(samples, rate) > 0.4


def test_long_text_is_rendered_completely() -> None:
    # espeak synthesizes on its own thread, and a fresh pyttsx3 engine's runAndWait returns
    # before it is done: the WAV only exists later. Drop older engines to get a fresh one.
    gc.collect()
    story = "The village sleeps while the wolves choose their prey. " * 12
    mouth = Mouth(rate=200)
    for _ in range(2):
        samples, rate = mouth.render(story)
        assert len(samples) / rate > 30
        assert np.abs(samples[-rate * 5 :]).max() > 1000


@pytest.mark.room
def test_speaker_check(room: Room) -> None:
    good = check_speaker(room.device, seconds=0.3)
    assert good.ok and good.problem is None and good.seconds >= 0.3
    bad = check_speaker("no such speaker")
    assert not bad.ok and bad.problem is not None
    assert "voicehost devices" in bad.problem.what_to_do

    with RoomRecording() as recording:
        assert check_speaker(room.device, seconds=0.3, frequency=1000).ok
        time.sleep(0.2)
    heard = np.frombuffer(recording.pcm(), dtype=np.int16).astype(float)
    spectrum = np.abs(np.fft.rfft(heard))
    assert np.fft.rfftfreq(len(heard), 1 / 16000)[spectrum.argmax()] == pytest.approx(1000, abs=5)
    assert tone(0.3, 1000).size == 4800
