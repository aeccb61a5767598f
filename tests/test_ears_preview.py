"""The ears let Whisper start hearing while the endpointer waits out the trailing silence:
through the virtual room, with the real engine."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest
from test_ears_room import player_says, report

from voicehost.intents.understand import reading_of
from voicehost.lab.paced_clip import PacedClip, settle_for
from voicehost.lab.room import Room
from voicehost.lab.speakers import VOICES, speak
from voicehost.speech.base import recognize
from voicehost.speech.ears import END_EARLY_AFTER_S, PREVIEW_AFTER_S, Ears
from voicehost.speech.endpoint import Endpointer, EndpointSettings
from voicehost.speech.microphone import Microphone
from voicehost.speech.whisper_engine import WhisperRecognizer
from voicehost.tools import hear_grammar
from voicehost.voice import SAMPLE_RATE

POINTING = hear_grammar(None, "point", 10).phrases


@pytest.fixture(scope="module")
def whisper() -> WhisperRecognizer:
    engine = WhisperRecognizer(reader=reading_of)
    engine.set_phrases(POINTING)
    recognize(engine, speak("player one", VOICES[0]))  # the first decode also loads the decoder
    return engine


@pytest.fixture
def ears(room: Room, whisper: WhisperRecognizer) -> Iterator[Ears]:
    ears = Ears(Microphone(room.device), Endpointer(), whisper)
    yield ears
    ears.close()


@pytest.mark.room
def test_the_answer_is_ready_as_the_silence_ends(room: Room, whisper: WhisperRecognizer) -> None:
    # The trailing silence is long here so that the engine's decode, however slow the machine,
    # ends before it does: the utterance ends when its answer is whole, not when it runs out.
    ears = Ears(Microphone(room.device), Endpointer(EndpointSettings(trailing_silence_s=6.0)),
                whisper)
    try:
        thread, _ = player_says(speak("player six", VOICES[0]))
        heard = ears.listen(POINTING, timeout_s=4.0)
        thread.join()
    finally:
        ears.close()
    assert heard is not None
    report(heard, "whisper with a preview")
    assert (heard.text, heard.end_reason) == ("player six", "complete")
    # The engine heard the pre-roll, the speech and the pause that started the preview, not
    # a trailing silence: its decode ran while the player was quiet.
    spoken = heard.speech_ended_at - heard.speech_started_at
    assert heard.hearing.audio_seconds == pytest.approx(0.3 + spoken + PREVIEW_AFTER_S,
                                                        abs=0.05)
    assert heard.latency_s == pytest.approx(heard.hearing.decode_seconds, abs=0.02)


@pytest.mark.room
def test_an_answer_that_could_go_on_waits_out_the_silence(ears: Ears) -> None:
    # "i do" is a yes, but "i do not" is a no: the player may not have finished.
    thread, _ = player_says(speak("i do", VOICES[0]))
    heard = ears.listen(hear_grammar(None, "answer", 4).phrases, timeout_s=4.0)
    thread.join()
    assert heard is not None
    report(heard, "'i do', which could go on")
    assert (heard.text, heard.end_reason) == ("i do", "silence")


def voiced(samples: np.ndarray) -> tuple[int, int]:
    """First and last sample above a whisper (espeak-ng pads its own silence too)."""
    loud = np.flatnonzero(np.abs(samples) > 300)
    return int(loud[0]), int(loud[-1]) + 1


@pytest.mark.room
def test_a_pause_inside_an_answer_voids_the_preview(ears: Ears) -> None:
    first = np.frombuffer(speak("i pointed at", VOICES[1]), dtype=np.int16)
    second = np.frombuffer(speak("robin", VOICES[1]), dtype=np.int16)
    gap = np.zeros(int(0.25 * SAMPLE_RATE), dtype=np.int16)  # > 0.15 s, < 0.5 s
    pcm = np.concatenate([first[:voiced(first)[1]], gap, second[voiced(second)[0]:]]).tobytes()
    thread, _ = player_says(pcm)
    heard = ears.listen(POINTING, timeout_s=4.0)
    thread.join()
    assert heard is not None
    report(heard, "a pause after 'i pointed at'")
    assert heard.text == "i pointed at robin"
    assert heard.hearing.audio_seconds > 0.3 + 0.25 + PREVIEW_AFTER_S  # both parts heard


def test_a_whole_answer_ends_after_a_pause_not_a_gap_between_words(
        whisper: WhisperRecognizer) -> None:
    # Every preview is heard at once here, so the ears could end the utterance as soon as the
    # first one: they wait for a pause longer than a gap between words said in one breath.
    samples = np.frombuffer(speak("player six", VOICES[0]), dtype=np.int16)
    start, end = voiced(samples)
    pcm = np.concatenate([np.zeros(SAMPLE_RATE // 2, np.int16), samples[start:end]]).tobytes()
    clip = PacedClip(pcm, settle_for(whisper))
    ears = Ears(clip, Endpointer(), whisper)
    heard = ears.listen(POINTING, timeout_s=10.0)
    assert heard is not None and clip.began is not None
    assert (heard.text, heard.end_reason) == ("player six", "complete")
    quiet = clip.began + clip.read_s - heard.speech_ended_at
    assert END_EARLY_AFTER_S - 0.011 <= quiet < END_EARLY_AFTER_S + 0.05
