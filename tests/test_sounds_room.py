"""The host's sounds (voicehost/speech/sounds.py) through the virtual sound card: they play, and
the ears, shut while the mouth plays them, hear none of them as a player; the same ears without
the mouth's gate do pick them up, so the shutting is what keeps them out."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from voicehost.lab.room import Room, RoomRecording
from voicehost.speech.ears import Ears, Gate, Utterance
from voicehost.speech.endpoint import Endpointer
from voicehost.speech.microphone import Microphone
from voicehost.speech.mouth import Mouth
from voicehost.speech.pocketsphinx_engine import PocketsphinxRecognizer
from voicehost.speech.sounds import MAX_PEAK, RATE, SOUNDS, sound

PHRASES = ["yup", "nope", "ready"]


def test_each_sound_is_its_own_and_never_clips() -> None:
    lengths = {name: len(sound(name)) / RATE for name in SOUNDS}
    assert lengths["tick"] < 0.1 and lengths["chime"] < 0.5
    assert 0.8 < lengths["sting"] < 2.0 and 1.0 < lengths["fanfare"] < 2.0
    for name in SOUNDS:
        samples = sound(name)
        assert samples.dtype == np.int16 and np.abs(samples).max() <= MAX_PEAK * 32767
        assert abs(int(samples[0])) < 200 and abs(int(samples[-1])) < 200  # faded: no click
    # the sting is the lowest and the chime the highest of the three: where each holds most
    # of its energy (their loudness: tests/test_sounds_balance.py)
    def centroid(name: str) -> float:
        spectrum = np.abs(np.fft.rfft(sound(name).astype(float)))
        return float((np.fft.rfftfreq(len(sound(name)), 1 / RATE) * spectrum).sum()
                     / spectrum.sum())
    assert centroid("sting") < 1000 < centroid("fanfare") < centroid("chime")
    with pytest.raises(ValueError, match="no sound 'gong'"):
        sound("gong")


def listening(ears: Ears, timeout_s: float) -> tuple[threading.Thread, list[Utterance | None]]:
    result: list[Utterance | None] = []
    thread = threading.Thread(target=lambda: result.append(ears.listen(PHRASES, timeout_s)))
    thread.start()
    return thread, result


@pytest.mark.room
@pytest.mark.parametrize("played", [("sting",), ("fanfare",), ("chime",),
                                    ("tick", "tick", "tick")])
def test_the_ears_hear_none_of_the_hosts_sounds(room: Room, played: tuple[str, ...]) -> None:
    gate = Gate()
    mouth = Mouth(device=room.device, gate=gate, tail_s=0.25)
    mouth.warm_up()
    ears = Ears(Microphone(room.device), Endpointer(), PocketsphinxRecognizer(), gate)
    control = Ears(Microphone(room.device), Endpointer(), PocketsphinxRecognizer())
    try:
        gated, gated_heard = listening(ears, 3.0)
        ungated, control_heard = listening(control, 3.0)
        with RoomRecording() as recording:
            time.sleep(0.2)
            for name in played:
                mouth.play_sound(name)
                time.sleep(0.6 if name == "tick" else 0.0)  # a second's beat
            gated.join()
            ungated.join()
        audible = {"tick": 0.01, "chime": 0.05, "sting": 0.5, "fanfare": 0.5}
        assert len(recording.loud()) * 0.01 >= max(audible[name] for name in played), (
            "the sound was not audible")
        assert gated_heard == [None] and ears.gated_frames > 0
        if played != ("tick",) * len(played):  # a tick is too short to start an utterance
            assert control_heard[0] is not None, "without the gate the ears pick it up"
    finally:
        ears.close()
        control.close()
