"""Endpointing: where an utterance starts and ends in a stream of 16 kHz int16 PCM.

Pure signal processing, no devices. Feed audio of any length; the endpointer cuts it into
10 ms hops, compares each hop's energy with an adaptive noise floor and reports events:
"start" (with pre-roll), "speech" (more of the utterance) and "end". A hop must also be
louder than the room level (`room_dbfs`, the loud moments of the audio outside utterances),
so a crowd talking at other tables is not taken for the player.
"""

from __future__ import annotations

import bisect
import math
from collections import deque
from dataclasses import dataclass
from typing import Literal

import numpy as np

from voicehost.voice import SAMPLE_RATE, SAMPLE_WIDTH

HOP_SAMPLES = SAMPLE_RATE // 100  # 10 ms
HOP_S = HOP_SAMPLES / SAMPLE_RATE
_HOP_BYTES = HOP_SAMPLES * SAMPLE_WIDTH

EventKind = Literal["start", "speech", "end"]


@dataclass(frozen=True)
class EndpointSettings:
    """Tuning of the endpointer; times in seconds, levels in dB."""

    trailing_silence_s: float = 0.5  # quiet after speech that ends the utterance
    pre_roll_s: float = 0.3  # audio kept before the detected start
    min_speech_s: float = 0.1  # shorter bursts (clicks, knocks) are ignored
    max_utterance_s: float = 10.0  # an utterance is cut off after this long
    start_margin_db: float = 10.0  # a hop this far above the noise floor may start speech
    keep_margin_db: float = 6.0  # a hop this far above the floor counts as still speaking
    start_gap_s: float = 0.05  # silence that cancels a start not yet confirmed
    quietest_floor_dbfs: float = -60.0  # the floor never goes below this (digital silence)
    floor_rise_s: float = 1.5  # time constant for the floor following louder steady noise
    floor_fall_s: float = 0.1  # time constant for the floor following a quieter room
    # The room level: this percentile of the hop levels outside utterances over the window.
    # In babble the floor sits in the gaps between other talkers' words; the player at the
    # table is louder than the room's loud moments, so margins over those hold in chatter.
    room_percentile: float = 90.0
    room_window_s: float = 2.0
    room_start_margin_db: float | None = 6.0  # None: the room level does not gate speech
    room_keep_margin_db: float | None = 3.0
    # A crowd's loud moments stay this close to its gaps; a louder room level is one bang
    # (a door, a beep) still in the window, which must not deafen the endpointer.
    room_above_floor_max_db: float = 20.0
    # A hop this far below the utterance's loudest is quiet however far above the floor it
    # is: a voice's fading tail and its echo in a silent room are not the player still
    # speaking (docs/speed.md, "The end of a fading word"). None: only the floor judges.
    quiet_below_loudest_db: float | None = 35.0

    def __post_init__(self) -> None:
        if self.trailing_silence_s <= 0 or self.min_speech_s < 0 or self.pre_roll_s < 0:
            raise ValueError("endpoint times must be positive")
        if self.max_utterance_s <= self.min_speech_s:
            raise ValueError("max_utterance_s must be longer than min_speech_s")
        if self.keep_margin_db > self.start_margin_db:
            raise ValueError("keep_margin_db must not exceed start_margin_db")
        if (self.room_start_margin_db is None) != (self.room_keep_margin_db is None):
            raise ValueError("set both room margins or neither")


@dataclass(frozen=True)
class EndpointEvent:
    """One thing that happened in the stream.

    start:  `pcm` is the pre-roll plus the speech so far; `at_s` is where speech began.
    speech: `pcm` is more audio of the current utterance (trailing silence included).
    end:    `at_s` is where speech stopped; `reason` is "silence" or "max_length".
    """

    kind: EventKind
    pcm: bytes = b""
    at_s: float = 0.0
    reason: str = ""


def hop_dbfs(hop: np.ndarray) -> float:
    """RMS level of int16 samples in dB relative to full scale."""
    power = float(np.mean(hop.astype(np.float64) ** 2)) / (32768.0**2)
    return 10.0 * math.log10(power + 1e-12)


class Endpointer:
    """Speech endpointer: hop energy over an adaptive noise floor and over the room level."""

    def __init__(self, settings: EndpointSettings | None = None) -> None:
        self.settings = settings or EndpointSettings()
        s = self.settings
        self._rise = 1.0 - math.exp(-HOP_S / s.floor_rise_s)
        self._fall = 1.0 - math.exp(-HOP_S / s.floor_fall_s)
        self._pre_roll_hops = round(s.pre_roll_s / HOP_S)
        self.floor_dbfs: float | None = None
        self._room_levels: deque[float] = deque()  # idle hop levels, oldest first
        self._room_sorted: list[float] = []  # the same, sorted
        self._room_size = max(1, round(s.room_window_s / HOP_S))
        self.reset()

    def reset(self, keep_floor: bool = True) -> None:
        """Forget any utterance in progress; the noise floor survives unless told otherwise."""
        self._rest = b""
        self._hops = 0  # hops processed since reset
        self._state: Literal["idle", "pending", "speech"] = "idle"
        self._history: deque[bytes] = deque()  # recent hops, for the pre-roll
        self._recent_db: deque[float] = deque(maxlen=round(1.0 / HOP_S))
        self._onset = 0  # hop index where the current (candidate) speech began
        self._voiced = 0  # voiced hops of a candidate start
        self._quiet = 0  # consecutive quiet hops
        self._last_active = 0  # hop index just after the last active hop
        self._loudest = -math.inf  # the loudest hop of the utterance (or candidate) so far
        if not keep_floor:
            self.floor_dbfs = None
            self._room_levels.clear()
            self._room_sorted.clear()

    @property
    def position_s(self) -> float:
        """Seconds of audio fed since the last reset (complete hops only)."""
        return self._hops * HOP_S

    @property
    def room_dbfs(self) -> float | None:
        """How loud the room gets while nobody speaks to the host: the `room_percentile` of
        the last `room_window_s` of hop levels outside utterances, dBFS."""
        if not self._room_sorted:
            return None
        s = self.settings
        rank = round(s.room_percentile / 100 * (len(self._room_sorted) - 1))
        if self.floor_dbfs is None:
            return self._room_sorted[rank]
        return min(self._room_sorted[rank], self.floor_dbfs + s.room_above_floor_max_db)

    @property
    def quiet_s(self) -> float:
        """How long the utterance in progress has been quiet (0 while the player speaks)."""
        return self._quiet * HOP_S if self._state == "speech" else 0.0

    @property
    def in_speech(self) -> bool:
        return self._state == "speech"

    def feed(self, pcm: bytes) -> list[EndpointEvent]:
        """Process more audio; returns what happened in it, in order."""
        data = self._rest + pcm
        whole = len(data) - len(data) % _HOP_BYTES
        self._rest = data[whole:]
        events: list[EndpointEvent] = []
        speech = bytearray()
        for offset in range(0, whole, _HOP_BYTES):
            hop = data[offset : offset + _HOP_BYTES]
            event = self._step(hop)
            if self._state == "speech" and event is None:
                speech += hop
            elif event is not None:
                if speech:
                    events.append(EndpointEvent("speech", bytes(speech)))
                    speech = bytearray()
                events.append(event)
        if speech:
            events.append(EndpointEvent("speech", bytes(speech)))
        return events

    def _step(self, hop: bytes) -> EndpointEvent | None:
        s = self.settings
        level = hop_dbfs(np.frombuffer(hop, dtype=np.int16))
        self._recent_db.append(level)
        if self.floor_dbfs is None:
            self.floor_dbfs = max(level, s.quietest_floor_dbfs)
        index = self._hops
        self._hops += 1
        above = level - self.floor_dbfs
        starts, active = self._judge(level, above)

        if self._state != "idle":
            self._loudest = max(self._loudest, level)
        if self._state == "speech":
            if s.quiet_below_loudest_db is not None:
                active = active and level > self._loudest - s.quiet_below_loudest_db
            return self._speech_step(hop, index, active)

        self._history.append(hop)
        if self._state == "idle":
            self._hear_room(level)
            self._adapt_floor(level)
            if starts:
                self._state, self._onset, self._voiced, self._quiet = "pending", index, 1, 0
                self._loudest = level
            else:
                while len(self._history) > self._pre_roll_hops:
                    self._history.popleft()
        else:  # pending
            self._adapt_floor(level)
            if active:
                self._voiced += 1
                self._quiet = 0
            else:
                self._quiet += 1
                if self._quiet * HOP_S > s.start_gap_s:
                    self._state = "idle"
                    while len(self._history) > self._pre_roll_hops:
                        self._history.popleft()
                    return None
        if self._state == "pending" and self._voiced * HOP_S >= s.min_speech_s - 1e-9:
            return self._confirm_start(index)
        return None

    def _judge(self, level: float, above: float) -> tuple[bool, bool]:
        """Whether this hop may start speech, and whether it counts as speaking."""
        s = self.settings
        starts, active = above > s.start_margin_db, above > s.keep_margin_db
        room = self.room_dbfs
        if room is None or s.room_start_margin_db is None or s.room_keep_margin_db is None:
            return starts, active
        return (starts and level > room + s.room_start_margin_db,
                active and level > room + s.room_keep_margin_db)

    def _hear_room(self, level: float) -> None:
        if len(self._room_levels) >= self._room_size:
            old = self._room_levels.popleft()
            del self._room_sorted[bisect.bisect_left(self._room_sorted, old)]
        self._room_levels.append(level)
        bisect.insort(self._room_sorted, level)

    def _confirm_start(self, index: int) -> EndpointEvent:
        first = max(0, self._onset - self._pre_roll_hops)
        kept = index + 1 - first  # hops from the start of the pre-roll up to now
        audio = b"".join(list(self._history)[-kept:])
        self._history.clear()
        self._state = "speech"
        self._last_active = index + 1 - self._quiet
        self._quiet = 0
        return EndpointEvent("start", audio, at_s=self._onset * HOP_S)

    def _speech_step(self, hop: bytes, index: int, active: bool) -> EndpointEvent | None:
        s = self.settings
        if active:
            self._quiet = 0
            self._last_active = index + 1
        else:
            self._quiet += 1
        if self._quiet * HOP_S >= s.trailing_silence_s - 1e-9:
            return self._end(self._last_active * HOP_S, "silence")
        if (index + 1 - self._onset) * HOP_S >= s.max_utterance_s - 1e-9:
            # Whatever kept going this long is the new background: re-learn the floor from it.
            self.floor_dbfs = max(float(np.percentile(self._recent_db, 10)),
                                  s.quietest_floor_dbfs)
            self._room_levels.clear()
            self._room_sorted.clear()
            for recent in self._recent_db:
                self._hear_room(recent)
            return self._end((index + 1) * HOP_S, "max_length")
        return None

    def end_now(self, reason: str) -> EndpointEvent:
        """End the utterance in progress here (the answer is whole), before its trailing
        silence runs out: the end of its last speech, as the silence would have ended it."""
        if self._state != "speech":
            raise RuntimeError("no utterance in progress")
        return self._end(self._last_active * HOP_S, reason)

    def _end(self, at_s: float, reason: str) -> EndpointEvent:
        self._state = "idle"
        self._quiet = 0
        self._history.clear()
        return EndpointEvent("end", at_s=at_s, reason=reason)

    def _adapt_floor(self, level: float) -> None:
        assert self.floor_dbfs is not None
        rate = self._fall if level < self.floor_dbfs else self._rise
        self.floor_dbfs = max(self.floor_dbfs + (level - self.floor_dbfs) * rate,
                              self.settings.quietest_floor_dbfs)
