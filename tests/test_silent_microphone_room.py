"""A microphone that delivers digital silence, through PulseAudio: the host's ears are the
monitor of a null sink nothing plays into (as a muted microphone, or the wrong device), its
mouth plays into the room. The host must say once, within 10 s of its first question, that it
has lost the microphone, name it on the console with what to do, wait (not walk the roll
call), and carry on with the same question once the microphone delivers a sound.

    host's mouth ─▶ sink "<room>"
    host's ears ◀── "<room>-muted".monitor ◀── (nothing; a sound at the end of the test)

The `voicehost doctor` of such a microphone is here too.
"""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from drive import EventTail, kept_in, voicehost
from wordings import said_line

from voicehost.intents.understand import reading_of
from voicehost.lab.room import RAW_16K, SINK, Room, run_tool
from voicehost.speech.factory import AudioSettings
from voicehost.tools import doctor_checks

MUTED = f"{SINK}-muted"
MICROPHONE_LOST = said_line("microphone_lost")
MICROPHONE_BACK = said_line("microphone_back")


@pytest.fixture
def muted_microphone(room: Room, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The default source of this process and its children: a null sink's monitor that
    nothing plays into."""
    loaded = run_tool("pactl", "load-module", "module-null-sink", f"sink_name={MUTED}")
    assert loaded.returncode == 0, loaded.stderr
    monkeypatch.setenv("PULSE_SOURCE", f"{MUTED}.monitor")
    try:
        yield MUTED
    finally:
        run_tool("pactl", "unload-module", loaded.stdout.strip())


def events_until(tail: EventTail, proc: subprocess.Popen, seen: list[dict[str, Any]],
                 done: Any, within_s: float) -> dict[str, Any] | None:
    """Read events into `seen` until one is `done` (returned), or `within_s` passes."""
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        try:
            event = tail.next(proc, max(0.01, deadline - time.monotonic()))
        except TimeoutError:
            return None
        if event is None:
            raise AssertionError(f"voicehost ended: {proc.stderr.read() if proc.stderr else ''}")
        seen.append(event)
        if done(event):
            return event
    return None


def is_say(line: Any) -> Any:
    return lambda e: e["event"] == "say" and line.search(e["text"])


@pytest.mark.room
@pytest.mark.takes_seconds(60)
def test_a_silent_microphone_is_named_once_and_waited_for(
        muted_microphone: str, tmp_path: Path) -> None:
    command = voicehost("play", "secret-squad", "--players", "3", "--seed", "42",
                        "--engine", "pocketsphinx", "--rate", "340", "--io", "audio",
                        *kept_in(tmp_path))
    proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONFAULTHANDLER": "1"})
    tail, seen = EventTail(tmp_path / "events.jsonl"), []
    try:
        first = events_until(tail, proc, seen, lambda e: e["event"] == "listen", 60.0)
        assert first is not None, f"the host never listened: {seen[-3:]}"
        lost = events_until(tail, proc, seen, is_say(MICROPHONE_LOST), 10.0)
        assert lost is not None, f"no word of the silent microphone in 10 s: {seen[-4:]}"
        detected = lost["time"] - first["time"]
        print(f"\nsilent microphone: lost said {detected:.2f} s after the first question, "
              f"{lost['time'] - seen[0]['time']:.2f} s after the game's first event")
        assert detected < 10.0
        # it waits: no roll call walked meanwhile, and the line is not said again
        assert events_until(tail, proc, seen, lambda e: e["event"] in ("listen", "say"),
                            8.0) is None, f"the host went on: {seen[-3:]}"
        # a sound: unmuted
        noise = np.random.default_rng(0).normal(0, 300, 16000).astype(np.int16).tobytes()
        subprocess.run(["paplay", f"--device={muted_microphone}", *RAW_16K], input=noise,
                       check=True, timeout=30)
        back = events_until(tail, proc, seen, is_say(MICROPHONE_BACK), 10.0)
        assert back is not None, f"the host did not carry on: {seen[-4:]}"
        assert "Cheetah" in back["text"]  # the question it was asking, asked again
        again = events_until(tail, proc, seen, lambda e: e["event"] == "listen", 20.0)
        assert again is not None and (again["decision"], again["player"]) == (
            first["decision"], first["player"])
    finally:
        proc.kill()
        _, errors = proc.communicate(timeout=30)
    said = [e["text"] for e in seen if e["event"] == "say"]
    assert sum(bool(MICROPHONE_LOST.search(text)) for text in said) == 1
    named = [line for line in errors.splitlines() if "delivers only silence" in line]
    assert len(named) == 1, errors
    assert "--input-device" in named[0] and "--io text" in named[0], named


def test_the_doctor_does_not_say_ok_hearing_through_a_silent_microphone(
        muted_microphone: str) -> None:
    checks = {what: (fine, advice) for what, fine, advice in doctor_checks(
        AudioSettings(reader=reading_of, engine="pocketsphinx"))}
    level = next(what for what in checks if what.startswith("microphone level"))
    assert level == "microphone level -100 dBFS" and checks[level][0] is False
    assert "digital silence" in checks[level][1]
    hearing = next(what for what in checks if what.startswith("hearing"))
    assert checks[hearing] == (False, f"it loads, but hears nothing: {level} (above)")
