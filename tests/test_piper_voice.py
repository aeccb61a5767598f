"""The host's neural voice (voicehost/speech/piper_voice.py): piper with the bundled joe voice,
heard back by the real Whisper engine, and its files' pinning."""

from __future__ import annotations

import subprocess
import sys
import time
import wave
from pathlib import Path

import numpy as np
import pytest
import soxr

from voicehost.intents.understand import reading_of
from voicehost.lab.room import Room, RoomRecording
from voicehost.speech import piper_voice
from voicehost.speech.base import recognize
from voicehost.speech.mouth import Mouth
from voicehost.speech.piper_voice import PiperRenderer, PiperVoiceError
from voicehost.speech.whisper_engine import WhisperRecognizer
from voicehost.voice import SAMPLE_RATE


def heard(samples: np.ndarray, rate: int) -> str:
    """What Whisper writes freely for the line."""
    engine = WhisperRecognizer(reader=reading_of)
    engine.set_phrases(None)
    pcm = soxr.resample(samples.astype(np.float32) / 32768.0, rate, SAMPLE_RATE)
    return recognize(engine, (pcm * 32767).astype("<i2").tobytes()).raw_text


def test_say_speaks_with_joe_and_whisper_hears_the_line(tmp_path: Path) -> None:
    out = tmp_path / "line.wav"
    done = subprocess.run([sys.executable, "-m", "voicehost.cli", "say", "--voice", "joe",
                           "Cheetah, yes or no?", "--out", str(out)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    with wave.open(str(out)) as wav:
        rate = wav.getframerate()
        samples = np.frombuffer(wav.readframes(wav.getnframes()), dtype=np.int16)
    assert rate == 22050 and 0.8 < len(samples) / rate < 3.0
    assert "yes or no" in heard(samples, rate)


def test_the_rate_and_volume_settings_reach_piper() -> None:
    line = "Player three, it is your turn."
    slow, rate = Mouth(rate=110, voice="joe").render(line)
    fast, _ = Mouth(rate=260, voice="joe").render(line)
    assert len(slow) > 1.8 * len(fast)
    quiet, _ = Mouth(volume=0.25, voice="joe").render(line)
    normal, _ = Mouth(voice="joe").render(line)
    assert np.abs(quiet).max() < 0.4 * np.abs(normal).max()
    assert "your turn" in heard(normal, rate)


def test_a_changed_voice_file_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    package, pinned = piper_voice.PIPER_VOICES["joe"]
    wrong = dict(pinned, **{"en_US-joe-medium.onnx": "0" * 64})
    monkeypatch.setitem(piper_voice.PIPER_VOICES, "joe", (package, wrong))
    piper_voice._loaded.cache_clear()
    try:
        with pytest.raises(PiperVoiceError, match="en_US-joe-medium.onnx does not match"):
            PiperRenderer("joe").render("hello")
        assert piper_voice.installed_piper_voices() == []
    finally:
        piper_voice._loaded.cache_clear()


def test_voice_list_names_joe_first_and_the_espeak_voices() -> None:
    done = subprocess.run([sys.executable, "-m", "voicehost.cli", "say", "--voice", "list"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    rows = done.stdout.splitlines()
    assert rows[0].split() == ["joe", "piper,", "a", "natural", "voice"]
    assert rows[1].split()[:2] == ["espeak", "espeak-ng,"]
    assert any(row.startswith("en-us ") and "espeak-ng" in row for row in rows)


def test_an_unknown_voice_is_one_line_naming_joe(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "voicehost.cli", "say", "--voice", "no-such",
                           "hello", "--out", str(tmp_path / "x.wav")],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert "joe" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "x.wav").exists()


@pytest.mark.room
def test_joe_speaks_into_the_room_a_sentence_at_a_time(room: Room) -> None:
    """The first sentence plays while the rest renders: the first sound comes as soon as the
    first sentence is rendered, and the whole line is heard, no sentence lost or doubled."""
    line = ("Round two. Cheetah, it is your turn. Add a card to a module, discard one, "
            "or block a player.")
    mouth = Mouth(device=room.device, voice="joe")
    mouth.warm_up()
    whole, rate = mouth.render(line)
    with RoomRecording() as recording:
        spoken = mouth.say(line)
        time.sleep(0.3)
    assert spoken.audio_s == pytest.approx(len(whole) / rate, rel=0.1)  # piper's pace varies
    assert spoken.render_s < 0.5 * spoken.audio_s  # the first sentence, not the whole line
    assert spoken.total_s < spoken.audio_s + 0.6  # no long gap between the sentences
    loud = recording.loud()
    assert loud and loud[-1] - loud[0] == pytest.approx(spoken.audio_s, abs=0.6)


def test_voice_espeak_is_espeak_ngs_default_voice() -> None:
    named, default = Mouth(voice="espeak"), Mouth()
    assert named.voice_name == default.voice_name == "espeak-ng (its default voice)"
    assert named.voice_id() == default.voice_id() != Mouth(voice="en-us+f3").voice_id()
    samples, rate = named.render("Cheetah, yes or no?")
    assert "yes or no" in heard(samples, rate)
