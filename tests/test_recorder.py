"""`voicehost play --record FILE.wav` keeps everything the host plays, in order, in one WAV
that is whole after every piece. The host's real voice (joe) renders the lines; the speaker
here only counts what it is handed (this is a test of what is kept, not of a sound card: the
room tests play through one)."""

from __future__ import annotations

import wave
from pathlib import Path

import numpy as np

from voicehost.speech.devices import Playback
from voicehost.speech.mouth import Mouth
from voicehost.speech.recorder import RATE, Recorder


def kept_seconds(path: Path) -> float:
    with wave.open(str(path), "rb") as wav:
        assert (wav.getnchannels(), wav.getsampwidth(), wav.getframerate()) == (1, 2, RATE)
        return wav.getnframes() / RATE


def test_everything_the_host_plays_is_kept_in_order_and_the_file_is_whole_after_each_piece(
        tmp_path: Path) -> None:
    played: list[float] = []

    def speaker(samples: np.ndarray, rate: int) -> Playback:
        played.append(len(samples) / rate)
        return Playback(0.0, 0.0, 0.0, len(samples) / rate)

    path = tmp_path / "game.wav"
    recorder = Recorder(path)
    mouth = Mouth(voice="joe", speaker=speaker, tail_s=0.0)
    mouth.speaker = recorder.around(mouth.speaker)
    mouth.say("Welcome to Secret Squad. Cheetah, say I'm in.")
    assert kept_seconds(path) > 1.0  # whole already, before the file is closed
    mouth.play_sound("sting")
    clip = np.full(8000, 1200, np.int16)  # a player's half-second clue, played back
    mouth.play_pcm(clip.tobytes())
    recorder.close()
    assert len(played) >= 3
    assert abs(kept_seconds(path) - sum(played)) < 0.01 * len(played)
    with wave.open(str(path), "rb") as wav:
        audio = np.frombuffer(wav.readframes(wav.getnframes()), np.int16)
    tail = audio[-int(0.4 * RATE):]  # the clue, last: resampled, its level kept
    assert abs(int(np.median(tail)) - 1200) < 30
