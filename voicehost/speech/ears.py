"""The ears: microphone frames → endpointer → recognizer, deaf while the host speaks."""

from __future__ import annotations

import statistics
import threading
import time
from collections import deque
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np

from voicehost.speech.base import Recognizer
from voicehost.speech.endpoint import HOP_SAMPLES, Endpointer, EndpointEvent, hop_dbfs
from voicehost.speech.microphone import Frame, FrameSource
from voicehost.voice import SAMPLE_RATE, SAMPLE_WIDTH, Hearing, MicrophoneLost

# A player's speech must stand this far above the room's loud moments to be heard: below it
# Whisper's share of phrases heard right falls steeply
# (docs/hearing.md, "The host manages the room").
QUIET_MARGIN_DB = 15.0
# After this much quiet the engine starts hearing the utterance (a preview) while the
# endpointer waits out the rest of its trailing silence; speech that resumes voids it.
PREVIEW_AFTER_S = 0.08
# A whole answer ends the utterance after this much quiet, not before, however soon its
# preview is heard: shorter gaps come inside words and between words said in one breath.
END_EARLY_AFTER_S = 0.15
TYPICAL_SPEECH_DBFS = -30.0  # assumed until the first player has been understood
# A microphone that has delivered only digital silence for this long since it opened, while
# the host spoke for HOST_SPOKE_S of it (its gate closed), hears nothing: it is lost (muted,
# turned down, or the wrong device). Only then: a quiet room between lines, or a test's silent
# virtual room before anyone speaks, is digital silence too, but a live microphone hears the
# host (or at least its own noise).
SILENT_FOR_S = 3.0
HOST_SPOKE_S = 1.0


class RoomLevel:
    """How loud the room's noise is against how loud its players speak, as last heard."""

    def __init__(self, margin_db: float = QUIET_MARGIN_DB) -> None:
        self.margin_db = margin_db
        self.noise_dbfs: float | None = None  # the room's loud moments, last reading
        self._speech: deque[float] = deque(maxlen=8)  # levels of understood utterances

    @property
    def speech_dbfs(self) -> float:
        return statistics.median(self._speech) if self._speech else TYPICAL_SPEECH_DBFS

    def understood(self, speech_dbfs: float) -> None:
        self._speech.append(speech_dbfs)

    def too_loud(self) -> bool:
        return self.noise_dbfs is not None and (
            self.speech_dbfs - self.noise_dbfs < self.margin_db)


def speech_level_dbfs(hop_levels: Sequence[float]) -> float:
    """An utterance's speech level: its loud hops (the 90th percentile), in dBFS."""
    return float(np.percentile(hop_levels, 90)) if hop_levels else -120.0


def hop_levels(pcm: bytes) -> list[float]:
    """dBFS of each whole 10 ms hop of `pcm`, as the endpointer measures them."""
    samples = np.frombuffer(pcm[:len(pcm) - len(pcm) % (HOP_SAMPLES * SAMPLE_WIDTH)],
                            dtype="<i2").reshape(-1, HOP_SAMPLES)
    return [hop_dbfs(hop) for hop in samples]


class Gate:
    """Shared between mouth and ears: audio captured while it is closed is never heard.

    The mouth closes it while speaking and reopens it a little after playback (the tail),
    so room echo and audio still buffered in the microphone are dropped too.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._closed = 0
        self._open_from = 0.0  # monotonic time from which captured audio counts again
        self._closed_at = 0.0  # when it closed last (while `_closed`)
        self._spans: deque[tuple[float, float]] = deque(maxlen=64)  # (closed, open again)

    def close(self) -> None:
        with self._lock:
            if self._closed == 0:
                self._closed_at = time.monotonic()
            self._closed += 1

    def open(self, after_s: float = 0.0) -> None:
        with self._lock:
            was_closed = self._closed > 0
            self._closed = max(0, self._closed - 1)
            self._open_from = max(self._open_from, time.monotonic() + after_s)
            if was_closed and self._closed == 0:
                self._spans.append((self._closed_at, self._open_from))

    def closed_since(self, since: float) -> float:
        """Seconds the gate has been closed (the host speaking) from monotonic time `since`
        to now, as far back as it remembers."""
        now = time.monotonic()
        with self._lock:
            spans = [*self._spans, *([(self._closed_at, now)] if self._closed else [])]
        return sum(max(0.0, min(end, now) - max(start, since)) for start, end in spans)

    @contextmanager
    def closed(self, tail_s: float = 0.0) -> Iterator[None]:
        self.close()
        try:
            yield
        finally:
            self.open(tail_s)

    def admits(self, captured_at: float) -> bool:
        """Whether audio captured at this monotonic time may be listened to."""
        with self._lock:
            return self._closed == 0 and captured_at >= self._open_from


@dataclass(frozen=True)
class Utterance:
    """One utterance heard, with monotonic timestamps for latency measurements."""

    hearing: Hearing
    speech_started_at: float  # first speech sample was captured (estimated)
    speech_ended_at: float  # last speech sample was captured (estimated)
    endpoint_at: float  # the endpointer decided the utterance was over
    result_at: float  # the recognizer's answer was ready
    end_reason: str  # "silence", "complete" (the answer was whole) or "max_length"
    pcm: bytes = b""  # the utterance's audio, when the listen asked to keep it
    snr_db: float | None = None  # speech level over the room's noise floor

    @property
    def text(self) -> str:
        return self.hearing.text

    @property
    def latency_s(self) -> float:
        """End-of-speech detected → result."""
        return self.result_at - self.endpoint_at

    @property
    def response_s(self) -> float:
        """Player stopped talking → result (includes the endpointer's trailing silence)."""
        return self.result_at - self.speech_ended_at


class Ears:
    """Listens for one utterance at a time; the microphone keeps running between calls."""

    def __init__(self, microphone: FrameSource, endpointer: Endpointer, recognizer: Recognizer,
                 gate: Gate | None = None) -> None:
        self.microphone = microphone
        self.endpointer = endpointer
        self.recognizer = recognizer
        self.gate = gate or Gate()
        self.gated_frames = 0  # frames dropped because the gate was closed
        self._recognizing = False  # recognizer.start() called, finish() not yet
        self._kept: list[bytes] | None = None  # the utterance's audio, when asked to keep it
        self.room = RoomLevel()
        self._levels: list[float] = []  # dBFS of the current utterance's hops
        self._noise_at_start: float | None = None
        self._withheld: list[bytes] | None = None  # audio after a preview, not yet fed

    def close(self) -> None:
        self.microphone.stop()

    def listen(self, phrases: Sequence[str], timeout_s: float,
               keep_audio: bool = False) -> Utterance | None:
        """Wait for someone to speak; None if nobody started speaking within `timeout_s`.

        Once speech has started, the utterance is always heard to its end. With `keep_audio`
        the Utterance carries the utterance's audio (pre-roll and trailing silence included).
        """
        self._kept = [] if keep_audio else None
        self.microphone.start()
        began = time.monotonic()
        deadline = began + timeout_s
        self._abandon()  # in case an earlier listen was interrupted mid-utterance
        self.recognizer.set_phrases(phrases)
        started_at: float | None = None
        while True:
            now = time.monotonic()
            if started_at is None and now >= deadline:
                self.room.noise_dbfs = self._room_noise()
                return None
            self._check_silent(now)
            frame = self.microphone.read(timeout=min(0.1, max(0.01, deadline - now)))
            if frame is None:
                continue
            frame_s = len(frame.pcm) / SAMPLE_WIDTH / SAMPLE_RATE
            if frame.captured_at + frame_s < began:
                continue  # recorded before we were asked to listen
            if not self.gate.admits(frame.captured_at):
                self.gated_frames += 1
                if self.endpointer.position_s:  # the host talks over an utterance: drop it
                    self._abandon()
                    started_at = None
                continue
            if started_at is None and frame.captured_at >= deadline:
                self.room.noise_dbfs = self._room_noise()
                return None
            heard, started_at = self._hear(frame, frame_s, started_at)
            if heard is not None:
                return heard

    def _check_silent(self, now: float) -> None:
        """MicrophoneLost when the microphone has delivered only digital silence since it
        opened, the host spoke meanwhile and it heard none of that (SILENT_FOR_S)."""
        since = getattr(self.microphone, "silent_since", None)
        if (since is not None and now - since >= SILENT_FOR_S
                and self.gate.closed_since(since) >= HOST_SPOKE_S):
            self._abandon()
            raise MicrophoneLost(self.microphone.went_silent())  # type: ignore[attr-defined]

    def _room_noise(self) -> float | None:
        room = self.endpointer.room_dbfs
        return self.endpointer.floor_dbfs if room is None else room

    def _measure(self, hearing: Hearing) -> float | None:
        """Update the room's levels from one utterance; its speech-over-noise in dB."""
        speech = speech_level_dbfs(self._levels)
        if hearing.text:
            self.room.understood(speech)
        self.room.noise_dbfs = self._noise_at_start
        return None if self._noise_at_start is None else speech - self._noise_at_start

    def _abandon(self) -> None:
        self.endpointer.reset()
        if self._recognizing:
            self.recognizer.finish()  # ends the recognizer's utterance; the text is dropped
            self._recognizing = False

    def _hear(self, frame: Frame, frame_s: float,
              started_at: float | None) -> tuple[Utterance | None, float | None]:
        events = self.endpointer.feed(frame.pcm)
        # Stream positions → monotonic capture times, anchored at the end of this frame.
        frame_end = frame.captured_at + frame_s
        position = self.endpointer.position_s
        for event in events:
            if self._kept is not None and event.kind in ("start", "speech"):
                if event.kind == "start":
                    self._kept.clear()
                self._kept.append(event.pcm)
            if event.kind == "start":
                self.recognizer.start()
                self._recognizing = True
                self._withheld = None
                self.recognizer.feed(event.pcm)
                started_at = frame_end - (position - event.at_s)
                self._noise_at_start = self._room_noise()
                self._levels = hop_levels(event.pcm)
            elif event.kind == "speech" and started_at is not None:
                if self._withheld is not None:
                    self._withheld.append(event.pcm)
                else:
                    self.recognizer.feed(event.pcm)
                self._levels += hop_levels(event.pcm)
            elif event.kind == "end" and started_at is not None:
                return self._ended(event, frame_end - (position - event.at_s), started_at), None
        if started_at is not None:
            self._preview_on_pause()
            if (self._withheld is not None and self.endpointer.quiet_s >= END_EARLY_AFTER_S
                    and self.recognizer.complete()):
                event = self.endpointer.end_now("complete")
                return self._ended(event, frame_end - (position - event.at_s), started_at), None
        return None, started_at

    def _ended(self, event: EndpointEvent, ended_at: float, started_at: float) -> Utterance:
        endpoint_at = time.monotonic()
        hearing = self.recognizer.finish()
        result_at = time.monotonic()
        self._recognizing = False
        pcm = b"".join(self._kept) if self._kept is not None else b""
        return Utterance(hearing, started_at, ended_at, endpoint_at, result_at, event.reason, pcm,
                     self._measure(hearing))

    def _preview_on_pause(self) -> None:
        """Let the engine start hearing once the player pauses; if they go on, feed it what
        was held back (which voids the preview)."""
        paused = self.endpointer.quiet_s >= PREVIEW_AFTER_S
        if paused and self._withheld is None and self.recognizer.preview():
            self._withheld = []
        elif not paused and self._withheld is not None:
            for pcm in self._withheld:
                self.recognizer.feed(pcm)
            self._withheld = None
