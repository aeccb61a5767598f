"""A Wyoming satellite as the table's microphone and speaker (a Home Assistant voice satellite:
`wyoming-satellite` on a Raspberry Pi with a microphone HAT, or anything speaking its protocol).

voicehost is the client, as Home Assistant is: it connects out to the satellite's address, asks
what it is (describe → info) and asks it to stream (run-satellite). A satellite without a wake
word then streams its microphone as audio-chunk events for as long as the connection lasts;
they are cut into the same 16 kHz frames a local microphone gives, for the same endpointer,
gate and recognizer. The host's lines go back as audio-start, audio-chunk ..., audio-stop,
which the satellite plays through its speaker.

wyoming-satellite 1.0.0 (the release on PyPI) sends no `played` event and keeps its microphone
streaming while it plays, so the speaker here waits out the clip's own length (plus the
measured delay to the satellite's speaker) and the ears' gate stays shut meanwhile, as with a
local speaker. It also starts its player afresh for every audio stream, which on a busy
machine costs a little more each time than that delay allows; so pieces played one right after
another (a line, a player's clue, the next line) go out as one stream, and the delay is paid
once.

A dropped connection is a lost microphone (MicrophoneLost, once the audio before the drop is
read) and a lost speaker (AudioDeviceError): the host says so and waits in `reopen`, which
connects again with backoff and asks for the stream again (a restarted satellite streams only
when asked). The protocol's framing is the `wyoming` library's own.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Coroutine
from dataclasses import dataclass
from typing import Any, TypeVar
from urllib.parse import urlparse

import numpy as np
from wyoming.audio import AudioChunk, AudioChunkConverter, AudioStart, AudioStop
from wyoming.client import AsyncTcpClient
from wyoming.info import Describe, Info
from wyoming.satellite import RunSatellite

from voicehost.speech.devices import AudioDeviceError, NoInputDeviceError, Playback, resample
from voicehost.speech.microphone import Frame, FrameQueue
from voicehost.voice import SAMPLE_RATE, SAMPLE_WIDTH

T = TypeVar("T")

DEFAULT_PORT = 10700  # wyoming-satellite's usual port
CONNECT_TIMEOUT_S = 5.0
REPLY_TIMEOUT_S = 5.0  # describe → info
FIRST_AUDIO_S = 3.0  # a satellite that streams sends its first chunk well within this
# A connected satellite that sends no audio for this long is lost, as a stalled sound card is:
# a speaker on Wi-Fi whose plug was pulled keeps its connection open for minutes.
STALL_S = 3.0
# From audio-start to the first sound out of a wyoming-satellite's speaker, measured here
# through PulseAudio (13-38 ms); the ears' gate tail covers the rest.
SPEAKER_DELAY_S = 0.03
SEND_CHUNK_SAMPLES = 1024  # per audio-chunk event sent
STREAM_LINGER_S = 0.2  # a piece played within this of the last one's end joins its stream
RECONNECT_FIRST_WAIT_S = 0.25  # between tries to reach a lost satellite, doubling up to ...
RECONNECT_LONGEST_WAIT_S = 2.0  # ... this
# What a microphone can send; anything else is dropped, not converted (a hostile or broken
# satellite must not crash the host).
RATES = range(8000, 48001)
WIDTHS = (1, 2, 4)
CHANNELS = (1, 2)


class SatelliteError(NoInputDeviceError):
    """The satellite cannot be reached, or does not behave like one."""


@dataclass
class Stream:
    """The audio stream the satellite is playing: its rate, and when what was sent ends."""

    rate: int
    ends_at: float
    stop: asyncio.TimerHandle | None = None


@dataclass(frozen=True)
class Address:
    host: str
    port: int

    @classmethod
    def parse(cls, uri: str, default_port: int = DEFAULT_PORT) -> Address:
        """tcp://HOST:PORT (the port defaults to a satellite's); ValueError names what is
        wrong."""
        parsed = urlparse(uri if "://" in uri else f"tcp://{uri}")
        if parsed.scheme != "tcp" or not parsed.hostname:
            raise ValueError(f"{uri!r} is not a Wyoming address: give tcp://HOST:PORT")
        try:
            port = parsed.port or default_port
        except ValueError:
            raise ValueError(f"{uri!r}: the port is not a number from 1 to 65535") from None
        return cls(parsed.hostname, port)

    def __str__(self) -> str:
        return f"tcp://{self.host}:{self.port}"


class Satellite(FrameQueue):
    """One satellite, as both the Microphone the ears read (start, read, drain, reopen, stop)
    and the speaker the mouth plays through (`play`). The connection lives on an asyncio loop
    of its own thread; the host's thread only waits on it."""

    def __init__(self, uri: str, frame_ms: int = 20, max_queued_s: float = 30.0) -> None:
        super().__init__(frame_ms, max_queued_s)
        self.address = Address.parse(uri)
        self.refused_chunks = 0  # audio chunks that were not audio a microphone sends
        self.info: dict[str, Any] = {}  # what the satellite said about itself
        self.connections = 0  # how many times it was reached (1 + reconnections)
        self._client: AsyncTcpClient | None = None
        self._reader: asyncio.Task[None] | None = None
        self._lost = False
        self._stalled = False  # lost because no audio came for STALL_S
        self._audio_at = 0.0  # monotonic: the last chunk's arrival, or when it was asked to stream
        self._pending = b""
        self._stream: Stream | None = None
        self._stopping: asyncio.Task[None] | None = None
        self._converter = AudioChunkConverter(rate=SAMPLE_RATE, width=SAMPLE_WIDTH, channels=1)
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True,
                                         name="voicehost-satellite")
        self._thread.start()

    # -- the microphone -----------------------------------------------------------------------

    @property
    def name(self) -> str:
        satellite = self.info.get("satellite") or {}
        return str(satellite.get("name") or self.address)

    @property
    def lost(self) -> bool:
        if (not self._lost and self.connections
                and time.monotonic() - self._audio_at > STALL_S):
            self._lost = self._stalled = True
        return self._lost

    def start(self) -> None:
        """Connect and ask for the stream, the first time. SatelliteError when the satellite
        does not answer. Once it has streamed, a lost satellite is `read`'s MicrophoneLost and
        `reopen`'s to find again, as with a local microphone."""
        if self.connections:
            return
        self._connect_now()

    def _connect_now(self) -> None:
        try:
            self._run(self._connect(), CONNECT_TIMEOUT_S + REPLY_TIMEOUT_S + 1)
        except (OSError, asyncio.TimeoutError, TimeoutError, EOFError) as problem:
            self._run(self._close(), 5)
            raise SatelliteError(
                f"No Wyoming satellite answers at {self.address} ({describe(problem)}).",
                "Check that wyoming-satellite runs there and that this machine can reach it.",
            ) from None

    def lost_because(self) -> str:
        if self._stalled:
            return (f"the satellite at {self.address} sent no sound for {STALL_S:.0f} seconds "
                    "(its power or its network may be gone)")
        return f"the satellite at {self.address} is gone"

    def reopen(self) -> None:
        """After a loss: connect again, trying every 0.25 s and then less often (up to every
        2 s), until the satellite streams again. Waits as long as it takes: the journal holds
        the game meanwhile."""
        wait = RECONNECT_FIRST_WAIT_S
        while True:
            try:
                self._run(self._close(), 5)
                self._connect_now()
                if self._delivers(FIRST_AUDIO_S):
                    return
            except SatelliteError:
                pass
            time.sleep(wait)
            wait = min(RECONNECT_LONGEST_WAIT_S, 2 * wait)

    def stop(self) -> None:
        """Disconnect and stop the connection's thread."""
        if not self._loop.is_closed() and self._thread.is_alive():
            self._run(self._close(), 5)
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(5)

    # -- the speaker --------------------------------------------------------------------------

    def play(self, samples: np.ndarray, rate: int) -> Playback:
        """Send int16 mono samples for the satellite to play; returns once they have played.
        AudioDeviceError while the satellite is not connected."""
        called_at = time.monotonic()
        samples = np.ascontiguousarray(samples, dtype=np.int16)
        if self._client is None or self.lost:
            raise AudioDeviceError(f"The satellite at {self.address} is not connected.",
                                   "Its lines are shown here until it is back.")
        try:
            first_audio_at, seconds = self._run(self._send(samples, rate, called_at),
                                                REPLY_TIMEOUT_S + len(samples) / rate)
        except (OSError, asyncio.TimeoutError, TimeoutError) as problem:
            self._lost = True
            raise AudioDeviceError(f"The satellite at {self.address} stopped taking audio "
                                   f"({describe(problem)}).",
                                   "Its lines are shown here until it is back.") from None
        finished_at = first_audio_at + seconds
        time.sleep(max(0.0, finished_at - time.monotonic()))
        return Playback(called_at, first_audio_at, finished_at, seconds)

    # -- on the connection's loop -------------------------------------------------------------

    def _run(self, work: Coroutine[Any, Any, T], timeout: float) -> T:
        return asyncio.run_coroutine_threadsafe(work, self._loop).result(timeout)

    async def _connect(self) -> None:
        client = AsyncTcpClient(self.address.host, self.address.port)
        await asyncio.wait_for(client.connect(), CONNECT_TIMEOUT_S)
        self._client = client
        await client.write_event(Describe().event())
        while True:
            event = await asyncio.wait_for(client.read_event(), REPLY_TIMEOUT_S)
            if event is None:
                raise EOFError("it closed the connection")
            if Info.is_type(event.type):
                self.info = Info.from_event(event).to_dict()
                break
        if not self.info.get("satellite"):
            raise EOFError("it answers, but is not a satellite (its info has no satellite)")
        self._pending = b""
        self._lost = self._stalled = False
        self._audio_at = time.monotonic()
        await client.write_event(RunSatellite().event())
        self._reader = asyncio.get_running_loop().create_task(self._read_stream(client))
        self.connections += 1

    async def _close(self) -> None:
        client, self._client = self._client, None
        # the stream dies with its connection: no audio-stop is owed to the next one
        if self._stream is not None and self._stream.stop is not None:
            self._stream.stop.cancel()
        if self._stopping is not None:
            self._stopping.cancel()
        self._stream = self._stopping = None
        if self._reader is not None:
            self._reader.cancel()
            self._reader = None
        if client is not None:
            try:
                await client.disconnect()
            except OSError:
                pass  # a dead satellite's socket may not close cleanly; it is gone either way

    async def _read_stream(self, client: AsyncTcpClient) -> None:
        try:
            while (event := await client.read_event()) is not None:
                if not AudioChunk.is_type(event.type):
                    continue  # run-pipeline and the like: nothing for the host
                try:
                    chunk: AudioChunk | None = AudioChunk.from_event(event)
                except (KeyError, TypeError, AttributeError):
                    chunk = None
                if chunk is not None and plausible(chunk):
                    self._heard(chunk, time.monotonic())
                else:
                    self.refused_chunks += 1
        except Exception:  # noqa: BLE001  killed mid-event, or framing no Wyoming peer sends
            pass  # (the library raises what the bytes make of it): the stream is over
        self._lost = True

    def _heard(self, chunk: AudioChunk, arrived_at: float) -> None:
        """Cut a chunk into frames. The satellite's timestamps are its own clock, so a chunk's
        first sample is placed one chunk's length before it arrived."""
        self._audio_at = arrived_at
        pcm = self._converter.convert(chunk).audio
        chunk_s = len(pcm) / SAMPLE_WIDTH / SAMPLE_RATE
        first_at = arrived_at - chunk_s - len(self._pending) / SAMPLE_WIDTH / SAMPLE_RATE
        pending = self._pending + pcm
        size = self.frame_samples * SAMPLE_WIDTH
        whole = len(pending) - len(pending) % size
        for offset in range(0, whole, size):
            frame = Frame(pending[offset:offset + size],
                          first_at + offset / SAMPLE_WIDTH / SAMPLE_RATE)
            self._put(frame)
        self._pending = pending[whole:]

    async def _send(self, samples: np.ndarray, rate: int, called_at: float
                    ) -> tuple[float, float]:
        """Send the samples, in the stream still playing if there is one; when they start
        to play, and for how long."""
        client = self._client
        if client is None:
            raise ConnectionResetError("not connected")
        if self._stopping is not None:
            await self._stopping
        stream = self._stream
        if stream is not None:
            if stream.stop is not None:
                stream.stop.cancel()
            samples = resample(samples, rate, stream.rate)
            starts_at = max(called_at, stream.ends_at)
        else:
            await client.write_event(AudioStart(rate=rate, width=SAMPLE_WIDTH,
                                                channels=1).event())
            starts_at = called_at + SPEAKER_DELAY_S
            stream = self._stream = Stream(rate, starts_at)
        data = samples.tobytes()
        step = SEND_CHUNK_SAMPLES * SAMPLE_WIDTH
        for offset in range(0, len(data), step):
            await client.write_event(AudioChunk(rate=stream.rate, width=SAMPLE_WIDTH, channels=1,
                                                audio=data[offset:offset + step]).event())
        seconds = len(samples) / stream.rate
        stream.ends_at = starts_at + seconds
        stream.stop = asyncio.get_running_loop().call_at(
            stream.ends_at + STREAM_LINGER_S, self._end_stream, client)
        return starts_at, seconds

    def _end_stream(self, client: AsyncTcpClient) -> None:
        """Nothing followed in time: end the stream (the satellite's player drains)."""
        self._stream = None
        self._stopping = asyncio.get_running_loop().create_task(self._write_stop(client))

    async def _write_stop(self, client: AsyncTcpClient) -> None:
        try:
            await client.write_event(AudioStop().event())
        except OSError:
            pass  # a satellite gone mid-line: its reader reports it lost
        finally:
            if self._stopping is asyncio.current_task():  # not a cancelled one's successor
                self._stopping = None

    def _delivers(self, within_s: float) -> bool:
        """Whether audio arrives within `within_s` seconds."""
        deadline = time.monotonic() + within_s
        while self.frames.empty():
            if time.monotonic() > deadline or self._lost:
                return False
            time.sleep(0.01)
        return True


def plausible(chunk: AudioChunk) -> bool:
    """Whether a chunk is audio a microphone could have sent."""
    frame = chunk.width * chunk.channels if isinstance(chunk.width, int) else 0
    return (isinstance(chunk.rate, int) and chunk.rate in RATES and chunk.width in WIDTHS
            and chunk.channels in CHANNELS and isinstance(chunk.audio, bytes)
            and len(chunk.audio) % frame == 0)


def describe(problem: BaseException) -> str:
    """An exception as a few words for a sentence."""
    if isinstance(problem, (asyncio.TimeoutError, TimeoutError)):
        return "no answer in time"
    return str(problem) or type(problem).__name__
