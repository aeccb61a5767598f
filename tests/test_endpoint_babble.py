"""The endpointer in a crowd: espeak-ng players over espeak-ng babble, with the room gate."""

from __future__ import annotations

import numpy as np
import pytest

from voicehost.lab.conditions import active_power, babble
from voicehost.lab.speakers import VOICES, speak
from voicehost.speech.endpoint import Endpointer, EndpointEvent, EndpointSettings
from voicehost.voice import SAMPLE_RATE

FRAME_BYTES = 640  # 20 ms, like the microphone
TODAYS_RULE = EndpointSettings(room_start_margin_db=None, room_keep_margin_db=None)


def phrase(text: str, voice: int = 0) -> np.ndarray:
    """espeak-ng speech with its leading and trailing silence cut off."""
    samples = np.frombuffer(speak(text, VOICES[voice]), dtype=np.int16).astype(np.float64)
    loud = np.nonzero(np.abs(samples) > 300)[0]
    return samples[loud[0] : loud[-1] + 1]


def crowd(seconds: float, seed: int = 11) -> np.ndarray:
    return np.frombuffer(babble(seconds, seed), dtype=np.int16).astype(np.float64)


def pcm(samples: np.ndarray) -> bytes:
    return np.clip(np.rint(samples), -32768, 32767).astype(np.int16).tobytes()


def in_crowd(speech: np.ndarray, snr_db: float, lead_s: float = 3.0, tail_s: float = 11.0,
             seed: int = 11) -> tuple[bytes, float, float]:
    """The phrase said `lead_s` into babble `snr_db` below it; returns audio, onset, end."""
    background = crowd(lead_s + tail_s + len(speech) / SAMPLE_RATE, seed)
    background *= np.sqrt(active_power(speech) / 10 ** (snr_db / 10) / np.mean(background**2))
    onset = round(lead_s * SAMPLE_RATE)
    background[onset : onset + len(speech)] += speech
    return pcm(background), lead_s, lead_s + len(speech) / SAMPLE_RATE


def listen(audio: bytes, endpointer: Endpointer) -> list[tuple[float, EndpointEvent]]:
    """Feed microphone frames; (stream position when reported, event), "speech" left out."""
    events = []
    for offset in range(0, len(audio), FRAME_BYTES):
        for event in endpointer.feed(audio[offset : offset + FRAME_BYTES]):
            if event.kind != "speech":
                events.append((endpointer.position_s, event))
    return events


@pytest.mark.parametrize(("text", "voice", "snr_db"), [
    ("player six", 0, 20), ("i pointed at the fox", 1, 10), ("ready", 2, 10), ("no", 3, 10)])
def test_phrase_in_babble_is_found_and_ended_on_time(text: str, voice: int,
                                                      snr_db: float) -> None:
    audio, onset, end = in_crowd(phrase(text, voice), snr_db)
    events = listen(audio, Endpointer())
    assert [e.kind for _, e in events] == ["start", "end"]
    (_, began), (reported_at, ended) = events
    assert onset - 0.05 < began.at_s < onset + 0.15  # the 0.3 s pre-roll covers the rest
    assert ended.reason == "silence"
    assert end < reported_at < end + 0.6  # the trailing silence, not the 10 s cap


def test_todays_rule_talks_through_babble_until_the_cap() -> None:
    # Why the room level exists: the floor sits in the gaps between the crowd's words.
    audio, onset, _ = in_crowd(phrase("i pointed at the fox", 1), 10)
    events = listen(audio, Endpointer(TODAYS_RULE))
    assert events[0][1].at_s < onset - 1.0
    assert events[1][1].reason == "max_length"


def test_babble_alone_starts_nothing() -> None:
    audio = pcm(crowd(40.0, seed=99))
    assert listen(audio, Endpointer()) == []


def test_room_level_follows_the_crowd() -> None:
    chatter = crowd(20.0, seed=5)
    endpointer = Endpointer()
    listen(pcm(chatter[: 6 * SAMPLE_RATE] * 0.25), endpointer)
    soft_room, soft_floor = endpointer.room_dbfs, endpointer.floor_dbfs
    # A crowd 12 dB louder all at once looks like speech until the 10 s cap, then is learned.
    listen(pcm(chatter[6 * SAMPLE_RATE :]), endpointer)
    loud_room, loud_floor = endpointer.room_dbfs, endpointer.floor_dbfs
    assert soft_room is not None and loud_room is not None
    assert soft_floor is not None and loud_floor is not None
    assert loud_room - soft_room == pytest.approx(12.0, abs=2.0)  # 0.25 is -12 dB
    # The floor is the gaps between words; the room level their loud moments.
    assert loud_room - loud_floor > 4.0
    hops = chatter[-2 * SAMPLE_RATE :].reshape(-1, 160)
    levels = 10 * np.log10(np.mean(hops**2, axis=1) / 32768**2)
    assert loud_room == pytest.approx(float(np.percentile(levels, 90)), abs=1.0)
