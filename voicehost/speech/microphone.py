"""The microphone: a PortAudio input stream cut into 16 kHz mono int16 frames on a queue.

A microphone can go away mid-game (unplugged, or dropped by the sound server). PortAudio then
ends the stream (ALSA, or PulseAudio killing it) or stops calling back (a hung driver):
`read` raises MicrophoneLost once the frames before the loss are used up, and `reopen` waits
for a device to deliver audio again. A PulseAudio that moves the stream to another source
instead (its default, `rescue-streams`) is no loss to PortAudio, and is not seen here.

A microphone can also be dead from the start while its stream runs: muted, its input volume at
zero, or the wrong device (a sink's monitor that nothing plays into). It delivers digital
silence. A live microphone never does (its own noise is above SILENT_DBFS), and it hears the
host speak; so once the host has spoken and the microphone has delivered nothing above the
floor since it opened, the ears call it lost (`went_silent`, ears.py): `reopen` then waits for
it to deliver a sound again.
"""

from __future__ import annotations

import contextlib
import os
import queue
import sys
import time
from collections.abc import Iterator
from typing import Any, NamedTuple, Protocol, TextIO

import numpy as np

from voicehost.speech.devices import (
    SILENT_DBFS,
    AudioDeviceError,
    DeviceInfo,
    DeviceSpec,
    NoInputDeviceError,
    Resampler,
    find_device,
    level_dbfs,
    rescan,
    silent_input_advice,
    sounddevice,
    supports,
)
from voicehost.voice import SAMPLE_RATE, MicrophoneLost

CLOCK_SMOOTHING = 0.05  # per block: a time constant of about 20 blocks
CLOCK_RESYNC_S = 0.1
# A stream that claims to run but has not called back for this long is lost. Generous: a
# PulseAudio null sink takes about a second to deliver its first block, and a busy host may
# hold the callback thread off for a while.
STALL_S = 3.0
REOPEN_FIRST_WAIT_S = 0.25  # between tries to open a lost microphone, doubling up to ...
REOPEN_LONGEST_WAIT_S = 1.0  # ... this: a replugged microphone is heard within about a second
# A silent microphone is opened again this often while it is waited for: PortAudio's "default"
# or "pulse" then follows a default input changed meanwhile.
SILENT_REOPEN_S = 5.0


class Frame(NamedTuple):
    pcm: bytes  # 16 kHz mono int16
    captured_at: float  # monotonic time of the frame's first sample (estimated)


class FrameSource(Protocol):
    """What the ears read: a Microphone, or a Wyoming satellite (satellite.py)."""

    def start(self) -> None: ...
    def stop(self) -> None: ...
    def read(self, timeout: float) -> Frame | None: ...
    def drain(self) -> int: ...
    def reopen(self) -> None: ...


class FrameQueue:
    """The frames a source has captured and the ears have not read yet. A source that can be
    lost says so in `lost`; `read` raises MicrophoneLost once its frames are used up."""

    def __init__(self, frame_ms: int, max_queued_s: float) -> None:
        self.frame_samples = SAMPLE_RATE * frame_ms // 1000
        self.frames: queue.Queue[Frame] = queue.Queue(
            maxsize=max(1, round(max_queued_s * 1000 / frame_ms)))
        self.overflows = 0  # times the device or the queue lost audio

    @property
    def lost(self) -> bool:
        return False

    def lost_because(self) -> str:
        return "the microphone stopped delivering audio"

    @property
    def silent_since(self) -> float | None:
        """Monotonic time from which the source has delivered only digital silence, when it
        has delivered nothing above the floor since it opened; None when it has (or when
        the source cannot tell)."""
        return None

    def went_silent(self) -> str:
        """The ears found the source silent (ears.py): the reason, in one sentence with what
        to do; `reopen` then waits for a sound."""
        return "the microphone delivers only silence"

    def read(self, timeout: float) -> Frame | None:
        """The next frame, or None if none arrives within `timeout` seconds. MicrophoneLost
        once the frames captured before a loss have all been read."""
        try:
            return self.frames.get(timeout=timeout)
        except queue.Empty:
            if self.lost:
                raise MicrophoneLost(self.lost_because()) from None
            return None

    def drain(self) -> int:
        """Drop every queued frame; returns how many were dropped."""
        dropped = 0
        while True:
            try:
                self.frames.get_nowait()
            except queue.Empty:
                return dropped
            dropped += 1

    def _put(self, frame: Frame) -> None:
        try:
            self.frames.put_nowait(frame)
        except queue.Full:  # nobody is listening: keep the newest audio
            self.overflows += 1
            try:
                self.frames.get_nowait()
            except queue.Empty:
                pass
            self.frames.put_nowait(frame)


class Microphone(FrameQueue):
    """Records from an input device; `frames` fills with Frame(pcm, captured_at).

    Opens the device at 16 kHz when it can, otherwise at its own rate (or `device_rate`)
    and resamples. Raises NoInputDeviceError when there is no microphone to open.
    """

    def __init__(self, device: DeviceSpec = None, frame_ms: int = 20,
                 device_rate: int | None = None, latency_s: float = 0.05,
                 max_queued_s: float = 30.0) -> None:
        super().__init__(frame_ms, max_queued_s)
        self.device = device
        self.device_rate = device_rate
        self.latency_s = latency_s
        self.info: DeviceInfo | None = None
        self._stream: Any = None
        self._rate = SAMPLE_RATE
        self._channels = 1
        self._resampler: Resampler | None = None
        self._pending = np.zeros(0, dtype=np.int16)
        self._produced = 0
        self._clock: float | None = None  # monotonic time of the stream's first sample
        self._block_at = 0.0  # monotonic time of the last callback (or of the start)
        self._opened_at = 0.0  # monotonic time the stream was opened
        self._sound_at: float | None = None  # first block above SILENT_DBFS since then
        self._silenced = False  # the ears found it silent: `reopen` waits for a sound
        self.console: TextIO | None = None  # where a silent microphone is named (stderr)

    @property
    def rate(self) -> int:
        """The rate the device was opened at (frames are always 16 kHz)."""
        return self._rate

    @property
    def active(self) -> bool:
        return self._stream is not None and bool(self._stream.active)

    @property
    def lost(self) -> bool:
        """Whether the open stream stopped delivering audio: it ended, or hung."""
        return self._stream is not None and (
            not self._stream.active or time.monotonic() - self._block_at > STALL_S)

    def start(self) -> None:
        if self._stream is not None:
            return
        sd = sounddevice()
        info = find_device(self.device, "input")
        channels = 1 if supports(info, "input", info.default_rate) else min(2, info.inputs)
        rate = self.device_rate or (
            SAMPLE_RATE if supports(info, "input", SAMPLE_RATE, channels) else info.default_rate)
        self._resampler = Resampler(rate, SAMPLE_RATE) if rate != SAMPLE_RATE else None
        self._pending = np.zeros(0, dtype=np.int16)
        self._produced = 0  # 16 kHz samples produced since the stream started
        self._clock = None
        self._block_at = self._opened_at = time.monotonic()
        self._sound_at = None
        self.info, self._rate, self._channels = info, rate, channels
        try:
            stream = sd.RawInputStream(
                samplerate=rate, channels=channels, dtype="int16", device=info.index,
                blocksize=rate * self.frame_samples // SAMPLE_RATE, latency=self.latency_s,
                callback=self._callback,
            )
            stream.start()
        except sd.PortAudioError as exc:
            raise NoInputDeviceError(
                f"Could not open the microphone {info.name!r} at {rate} Hz ({exc}).",
                "Check that it is connected and free, or pick another in `voicehost devices`.",
            ) from exc
        self._stream = stream

    def stop(self) -> None:
        stream, self._stream = self._stream, None
        if stream is not None:
            try:
                stream.stop()
                stream.close()
            except sounddevice().PortAudioError:
                pass  # a lost device's stream may not stop cleanly; it is gone either way

    @property
    def silent_since(self) -> float | None:
        if self._stream is None or self._sound_at is not None:
            return None
        return self._opened_at

    def went_silent(self) -> str:
        """Name the silent microphone once, on the console (the host's line says that it is
        lost), and wait for a sound in the next `reopen`."""
        why = self.silent_because()
        if not self._silenced:
            print(f"({why})", file=self.console or sys.stderr, flush=True)
        self._silenced = True
        return why

    def silent_because(self) -> str:
        name = self.info.name if self.info else "the microphone"
        return f"The microphone {name!r} delivers only silence. {silent_input_advice()}"

    def reopen(self) -> None:
        """After a loss: close the stream and open the device again, trying every 0.25 s,
        then less often (up to every REOPEN_LONGEST_WAIT_S), until it delivers audio. Waits
        as long as it takes: the journal holds the game meanwhile. A microphone found silent
        is waited for until it delivers a sound (`_sounds`)."""
        if self._silenced and self._sounds():
            return
        wait = REOPEN_FIRST_WAIT_S
        self.stop()
        while True:
            try:
                with _stderr_silenced():  # ALSA and PortAudio print every failed open
                    self.start()
                if self._delivers(STALL_S) and (not self._silenced or self._sounds()):
                    return
            except NoInputDeviceError:
                pass  # still gone, or not listed yet
            self.stop()
            time.sleep(wait)
            wait = min(REOPEN_LONGEST_WAIT_S, 2 * wait)
            if not self._listed():
                with _stderr_silenced():
                    rescan()  # PortAudio sees a replugged device only when it looks again

    def _sounds(self) -> bool:
        """After the ears found the microphone silent: wait until it delivers a sound (it was
        unmuted, turned up, or the default input changed), opening it again every
        SILENT_REOPEN_S. True once it does; False when the stream is lost meanwhile."""
        while True:
            opened = time.monotonic()
            while time.monotonic() - opened < SILENT_REOPEN_S:
                if self._sound_at is not None:
                    self._silenced = False
                    return True
                if self.lost:
                    return False
                time.sleep(0.05)
            self.stop()
            try:
                with _stderr_silenced():
                    self.start()
            except NoInputDeviceError:
                return False

    def _delivers(self, within_s: float) -> bool:
        """Whether the just-opened stream calls back within `within_s` seconds."""
        opened = self._block_at
        deadline = opened + within_s
        while self._block_at == opened:
            if time.monotonic() > deadline or not self.active:
                return False
            time.sleep(0.01)
        return True

    def _listed(self) -> bool:
        try:
            find_device(self.device, "input")
        except AudioDeviceError:
            return False
        return True

    def __enter__(self) -> Microphone:
        self.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.stop()

    def lost_because(self) -> str:
        name = self.info.name if self.info else "the microphone"
        return f"{name!r} stopped delivering audio"

    def _callback(self, indata: Any, frames: int, ti: Any, status: Any) -> None:
        now = time.monotonic()
        self._block_at = now
        if status.input_overflow:
            self.overflows += 1
        samples = np.frombuffer(indata, dtype=np.int16)
        if self._channels > 1:
            samples = samples.reshape(-1, self._channels).mean(axis=1).astype(np.int16)
        if self._sound_at is None and len(samples) and level_dbfs(samples) > SILENT_DBFS:
            self._sound_at = now
        # Capture time of this block's first sample, from PortAudio's clock when it has one.
        adc = ti.inputBufferAdcTime
        age = ti.currentTime - adc if adc > 0 else frames / self._rate
        clock = self._track_clock(now - max(0.0, age))
        if self._resampler is not None:
            samples = self._resampler(samples)
        first = self._produced - len(self._pending)  # stream index of the first pending sample
        self._produced += len(samples)
        pending = np.concatenate([self._pending, samples])
        n = self.frame_samples
        whole = len(pending) - len(pending) % n
        for offset in range(0, whole, n):
            captured_at = clock + (first + offset) / SAMPLE_RATE
            self._put(Frame(pending[offset : offset + n].tobytes(), captured_at))
        self._pending = pending[whole:]

    def _track_clock(self, block_at: float) -> float:
        """Smoothed monotonic time of the stream's first sample (PortAudio's per-block times
        jitter through PulseAudio)."""
        observed = block_at - self._produced / SAMPLE_RATE
        if self._clock is None or abs(observed - self._clock) > CLOCK_RESYNC_S:
            self._clock = observed  # first block, or audio was lost: start over
        else:
            self._clock += CLOCK_SMOOTHING * (observed - self._clock)
        return self._clock


@contextlib.contextmanager
def _stderr_silenced() -> Iterator[None]:
    """Send file descriptor 2 to /dev/null meanwhile (as sounddevice does while PortAudio
    starts): C libraries print there, and a retry loop would fill the players' console."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
    except OSError:
        yield
        return
    saved = os.dup(2)
    try:
        os.dup2(devnull, 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(devnull)
