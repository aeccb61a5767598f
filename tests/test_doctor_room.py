"""`voicehost doctor` in the virtual room: it says which pipeline hears and how loud the room
is right now, from what the microphone records (crowd babble played into the room)."""

from __future__ import annotations

import threading
from dataclasses import replace

import numpy as np

from voicehost.intents.understand import reading_of
from voicehost.lab.conditions import babble
from voicehost.lab.room import Room, play_into_room
from voicehost.speech.factory import AudioSettings
from voicehost.tools import doctor_checks

SETTINGS = AudioSettings(reader=reading_of, engine="pocketsphinx")


def checks_while(pcm: bytes | None) -> dict[str, tuple[bool, str]]:
    player = None
    if pcm is not None:
        player = threading.Thread(target=play_into_room, args=(pcm,))
        player.start()
    try:
        return {what: (fine, advice) for what, fine, advice in doctor_checks(SETTINGS)}
    finally:
        if player is not None:
            player.join()


def room_line(checks: dict[str, tuple[bool, str]]) -> tuple[str, bool, str]:
    what = next(w for w in checks if w.startswith("room noise"))
    return what, *checks[what]


def quiet_room() -> bytes:
    """A quiet room's own noise (-61 dBFS): the virtual room alone is digital silence, which
    hears nothing (tests/test_silent_microphone_room.py)."""
    return np.random.default_rng(1).normal(0, 30, 4 * 16000).astype(np.int16).tobytes()


def test_doctor_names_the_pipeline_and_the_voice(room: Room) -> None:
    checks = checks_while(quiet_room())
    hearing = [w for w in checks if w.startswith("hearing:")]
    assert hearing == ["hearing: microphone → energy endpointer with the room-level gate → "
                       "pocketsphinx [--engine pocketsphinx --front-end none]"]
    assert checks[hearing[0]][0]
    assert checks["the host's voice: piper joe"][0]  # the default
    espeak = {what: fine for what, fine, _ in doctor_checks(replace(SETTINGS, voice="espeak"))}
    assert espeak["the host's voice: espeak-ng (its default voice)"]


def test_doctor_hears_a_quiet_room_and_a_loud_party(room: Room) -> None:
    quiet, fine, _ = room_line(checks_while(None))
    assert fine, quiet
    party = np.frombuffer(babble(4.0, seed=3), dtype=np.int16).astype(np.float64) * 2.0
    loud, fine, advice = room_line(checks_while(party.clip(-32768, 32767)
                                                .astype(np.int16).tobytes()))
    assert not fine and "too loud" in advice, loud
    assert float(loud.split()[2]) > -30  # "room noise -18 dBFS at its loud moments ..."
