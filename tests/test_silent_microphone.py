"""A microphone that delivers digital silence (muted, turned down, the wrong device) is found
out once the host has spoken and it heard none of it, named once, and waited for until it
delivers a sound; a quiet room or a test's silent room before anyone speaks is not.

Synthetic frames and a fake stream here; the same through PulseAudio is
tests/test_silent_microphone_room.py."""

from __future__ import annotations

import io
import threading
import time
from collections.abc import Sequence
from types import SimpleNamespace

import numpy as np
import pytest

from voicehost.speech import ears as ears_module
from voicehost.speech.devices import SILENT_DBFS, input_level_problem, level_dbfs
from voicehost.speech.ears import Ears, Gate
from voicehost.speech.endpoint import Endpointer
from voicehost.speech.microphone import Frame, FrameQueue, Microphone
from voicehost.tools import heard_through, microphone_checks
from voicehost.voice import SAMPLE_RATE, Hearing, MicrophoneLost

FRAME = SAMPLE_RATE // 50  # 20 ms


class NoRecognizer:
    name = "none"

    def set_phrases(self, phrases: Sequence[str]) -> None: ...
    def start(self) -> None: ...
    def feed(self, pcm: bytes) -> None: ...
    def preview(self) -> bool: return False
    def complete(self) -> bool: return False
    def finish(self) -> Hearing: return Hearing("", 0.0, 0.0, 0.0)


class SilentSource(FrameQueue):
    """Frames of digital silence, as a muted microphone delivers them; silent since it
    opened `silent_for` seconds ago."""

    def __init__(self, silent_for: float | None) -> None:
        super().__init__(20, 30.0)
        self.opened = None if silent_for is None else time.monotonic() - silent_for
        self.named = 0

    @property
    def silent_since(self) -> float | None:
        return self.opened

    def went_silent(self) -> str:
        self.named += 1
        return "The microphone 'x' delivers only silence."

    def start(self) -> None: ...
    def stop(self) -> None: ...
    def reopen(self) -> None: ...

    def read(self, timeout: float) -> Frame | None:
        time.sleep(0.02)
        return Frame(bytes(2 * FRAME), time.monotonic() - 0.02)


def spoken_gate(seconds: float) -> Gate:
    """A gate that was closed for `seconds` just now: the host spoke."""
    gate = Gate()
    gate.close()
    gate._closed_at -= seconds  # as if it closed `seconds` ago
    gate.open()
    return gate


def test_the_gate_remembers_how_long_the_host_spoke() -> None:
    gate = Gate()
    began = time.monotonic()
    assert gate.closed_since(began) == 0.0
    with gate.closed():
        time.sleep(0.2)
        assert 0.15 < gate.closed_since(began) < 0.5  # still speaking
    with gate.closed(), gate.closed():  # nested: one span
        time.sleep(0.1)
    assert 0.25 < gate.closed_since(began) < 0.6
    assert gate.closed_since(time.monotonic()) == 0.0


def test_a_silent_microphone_the_host_spoke_into_is_lost_at_once_and_named() -> None:
    source = SilentSource(silent_for=5.0)
    ears = Ears(source, Endpointer(), NoRecognizer(), spoken_gate(2.0))  # type: ignore[arg-type]
    began = time.monotonic()
    with pytest.raises(MicrophoneLost, match="delivers only silence"):
        ears.listen(["yes", "no"], timeout_s=12.0)
    assert time.monotonic() - began < 1.0
    assert source.named == 1


def test_a_microphone_is_given_a_few_seconds_after_the_host_spoke() -> None:
    """Opened as the host began a line of 1.5 s: lost SILENT_FOR_S after it opened."""
    source = SilentSource(silent_for=1.5)
    ears = Ears(source, Endpointer(), NoRecognizer(), spoken_gate(1.5))  # type: ignore[arg-type]
    began = time.monotonic()
    with pytest.raises(MicrophoneLost):
        ears.listen(["yes", "no"], timeout_s=12.0)
    assert ears_module.SILENT_FOR_S - 1.6 < time.monotonic() - began < 10.0


@pytest.mark.parametrize(("silent_for", "host_spoke"), [(None, 2.0), (5.0, 0.0), (5.0, 0.5)])
def test_no_loss_without_a_silent_microphone_and_the_host_heard_through_it(
        silent_for: float | None, host_spoke: float) -> None:
    """A microphone that delivered a sound, or a silent room the host did not speak into
    (a test's virtual room before anyone speaks), is listened to as ever."""
    source = SilentSource(silent_for)
    gate = spoken_gate(host_spoke) if host_spoke else Gate()
    ears = Ears(source, Endpointer(), NoRecognizer(), gate)  # type: ignore[arg-type]
    assert ears.listen(["yes", "no"], timeout_s=1.0) is None
    assert source.named == 0


class FakeStream:
    active = True

    def stop(self) -> None: ...
    def close(self) -> None: ...


def block(samples: np.ndarray, microphone: Microphone) -> None:
    """One callback of the device with `samples`."""
    timing = SimpleNamespace(inputBufferAdcTime=0.0, currentTime=0.0)
    microphone._callback(samples.astype(np.int16).tobytes(), len(samples), timing,
                         SimpleNamespace(input_overflow=False))


def opened_microphone() -> Microphone:
    microphone = Microphone()
    microphone._stream = FakeStream()
    microphone._opened_at = microphone._block_at = time.monotonic()
    microphone.info = SimpleNamespace(name="Muted USB Mic")  # type: ignore[assignment]
    microphone.console = io.StringIO()
    return microphone


def test_the_microphone_knows_whether_it_ever_delivered_a_sound() -> None:
    microphone = opened_microphone()
    block(np.zeros(FRAME), microphone)
    block(np.ones(FRAME), microphone)  # -90 dBFS: the floor, still silence
    assert microphone.silent_since == microphone._opened_at
    noise = np.random.default_rng(0).normal(0, 8, FRAME)  # a quiet room's own noise
    assert level_dbfs(noise.astype(np.int16)) > SILENT_DBFS
    block(noise, microphone)
    assert microphone.silent_since is None
    block(np.zeros(FRAME), microphone)
    assert microphone.silent_since is None
    assert microphone.drain() == 4  # every block still goes to the ears


def test_a_silent_microphone_is_named_once_and_waited_for_until_it_sounds(
        monkeypatch: pytest.MonkeyPatch) -> None:
    microphone = opened_microphone()
    block(np.zeros(FRAME), microphone)
    why = microphone.went_silent()
    assert why.startswith("The microphone 'Muted USB Mic' delivers only silence.")
    assert "--input-device" in why and "--io text" in why and "unmute" in why
    microphone.went_silent()  # the ears found it again: not named again
    shown = microphone.console.getvalue()  # type: ignore[union-attr]
    assert shown == f"({why})\n"

    back: list[float] = []
    waiter = threading.Thread(target=lambda: (microphone.reopen(),
                                              back.append(time.monotonic())))
    waiter.start()
    time.sleep(0.5)
    block(np.zeros(FRAME), microphone)  # still muted
    time.sleep(0.3)
    assert not back, "reopen returned while the microphone was still silent"
    unmuted = time.monotonic()
    block(np.random.default_rng(1).normal(0, 300, FRAME), microphone)
    waiter.join(5)
    assert back and back[0] - unmuted < 0.5
    assert not microphone._silenced


def test_a_silent_microphone_lost_while_waited_for_is_reopened(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Unplugged while muted: the usual wait for a device that delivers, then for a sound."""
    microphone = opened_microphone()
    microphone.went_silent()
    opened: list[int] = []

    def start(self: Microphone) -> None:
        opened.append(1)
        self._stream = FakeStream()
        self._block_at = self._opened_at = time.monotonic()
        self._sound_at = None
        threading.Timer(0.1, block, (np.full(FRAME, 500), self)).start()

    monkeypatch.setattr(Microphone, "start", start)
    monkeypatch.setattr(Microphone, "stop", lambda self: setattr(self, "_stream", None))
    microphone._stream.active = False  # type: ignore[union-attr]  # the stream ended
    microphone.reopen()
    assert opened and not microphone._silenced and microphone.silent_since is None


def test_the_doctor_says_a_silent_microphone_hears_nothing() -> None:
    microphone = microphone_checks("microphone", np.zeros(32000, dtype=np.int16))
    level = microphone[0]
    assert level[0] == "microphone level -100 dBFS" and not level[1]
    assert "digital silence" in level[2] and "--input-device" in level[2]
    pipeline = ("hearing: microphone → energy endpointer → pocketsphinx", True, "")
    what, fine, advice = heard_through(pipeline, microphone)
    assert what == pipeline[0] and fine is False
    assert advice == "it loads, but hears nothing: microphone level -100 dBFS (above)"
    quiet = np.random.default_rng(1).normal(0, 30, 32000).astype(np.int16)
    assert heard_through(pipeline, microphone_checks("microphone", quiet)) == pipeline
    assert heard_through(pipeline, [("microphone", False, "No microphone.")])[1] is False
    assert input_level_problem(-100.0) is not None
