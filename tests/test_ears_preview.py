"""The ears let Whisper start hearing while the endpointer waits out the trailing silence:
through the virtual room, with the real engine."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest
from test_ears_room import player_says, report

from voicehost.lab.room import Room
from voicehost.lab.speakers import VOICES, speak
from voicehost.speech.ears import PREVIEW_AFTER_S, Ears
from voicehost.speech.endpoint import Endpointer
from voicehost.speech.microphone import Microphone
from voicehost.speech.whisper_engine import WhisperRecognizer
from voicehost.tools import hear_grammar
from voicehost.voice import SAMPLE_RATE

POINTING = hear_grammar(None, "point", 10).phrases


@pytest.fixture(scope="module")
def whisper() -> WhisperRecognizer:
    return WhisperRecognizer()


@pytest.fixture
def ears(room: Room, whisper: WhisperRecognizer) -> Iterator[Ears]:
    ears = Ears(Microphone(room.device), Endpointer(), whisper)
    yield ears
    ears.close()


@pytest.mark.room
def test_the_answer_is_ready_as_the_silence_ends(ears: Ears) -> None:
    thread, _ = player_says(speak("player six", VOICES[0]))
    heard = ears.listen(POINTING, timeout_s=4.0)
    thread.join()
    assert heard is not None
    report(heard, "whisper with a preview")
    assert heard.text == "player six"
    # The engine heard the pre-roll, the speech and the pause that started the preview, not
    # the whole trailing silence: its decode ran while the endpointer waited out the rest.
    spoken = heard.speech_ended_at - heard.speech_started_at
    assert heard.hearing.audio_seconds == pytest.approx(0.3 + spoken + PREVIEW_AFTER_S,
                                                        abs=0.05)
    assert heard.latency_s == pytest.approx(heard.hearing.decode_seconds, abs=0.02)


def voiced(samples: np.ndarray) -> tuple[int, int]:
    """First and last sample above a whisper (espeak-ng pads its own silence too)."""
    loud = np.flatnonzero(np.abs(samples) > 300)
    return int(loud[0]), int(loud[-1]) + 1


@pytest.mark.room
def test_a_pause_inside_an_answer_voids_the_preview(ears: Ears) -> None:
    first = np.frombuffer(speak("i pointed at", VOICES[1]), dtype=np.int16)
    second = np.frombuffer(speak("cheetah", VOICES[1]), dtype=np.int16)
    gap = np.zeros(int(0.25 * SAMPLE_RATE), dtype=np.int16)  # > 0.15 s, < 0.5 s
    pcm = np.concatenate([first[:voiced(first)[1]], gap, second[voiced(second)[0]:]]).tobytes()
    thread, _ = player_says(pcm)
    heard = ears.listen(POINTING, timeout_s=4.0)
    thread.join()
    assert heard is not None
    report(heard, "a pause after 'i pointed at'")
    assert heard.text == "i pointed at cheetah"
    assert heard.hearing.audio_seconds > 0.3 + 0.25 + PREVIEW_AFTER_S  # both parts heard
