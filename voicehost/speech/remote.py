"""Wyoming speech services on a stronger machine in the house: speech-to-text (`--asr`, e.g.
wyoming-faster-whisper) and text-to-speech (`--tts`, e.g. wyoming-piper).

voicehost connects out for each request, as Home Assistant does: an utterance is sent whole
once the endpointer has ended it (transcribe, audio-start, audio-chunk ..., audio-stop →
transcript); a line is asked for by its text (synthesize → audio-start, audio-chunk ...,
audio-stop). A transcript is snapped onto the moment's phrases by the reader the host hands it
(voicehost.intents.understand: its own matcher, a phrase or one with a slip in it; anything else
is not understood), so a service that hears freely never makes the host guess.

The local engines stay: a service that does not answer within REMOTE_TIMEOUT_S, or answers
nonsense, is replaced by them for RETRY_AFTER_S, and the console is told once.
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Callable, Coroutine, Sequence
from typing import Any, TextIO, TypeVar

import numpy as np
from wyoming.asr import Transcribe, Transcript
from wyoming.audio import AudioChunk, AudioStart, AudioStop
from wyoming.client import AsyncTcpClient
from wyoming.info import Describe, Info
from wyoming.tts import Synthesize

from voicehost.speech.base import PhraseReading, Reader, Recognizer, recognize
from voicehost.speech.satellite import Address
from voicehost.voice import SAMPLE_RATE, SAMPLE_WIDTH, Hearing

T = TypeVar("T")

ASR_PORT, TTS_PORT = 10300, 10200  # the usual ports of wyoming-faster-whisper, wyoming-piper
REMOTE_TIMEOUT_S = 3.0  # a transcript or a line later than this is too late for the table
RETRY_AFTER_S = 60.0  # after a failure, the local engine stands in for this long
SEND_CHUNK_BYTES = 2048
LONGEST_LINE_S = 120.0  # a service that sends more audio than this for one line is refused


class ServiceError(RuntimeError):
    """The service did not answer, or not as its protocol says."""


class Fallback:
    """The remote service while it answers; the local engine for a while after it did not.
    Tells `console` once, the first time."""

    def __init__(self, what: str, address: Address, console: TextIO | None = None) -> None:
        self.what = what
        self.address = address
        self.console = console or sys.stderr
        self.down_until = 0.0
        self.failures = 0

    def attempt(self, remote: Callable[[], T], local: Callable[[], T], instead: str) -> T:
        if time.monotonic() < self.down_until:
            return local()
        try:
            return remote()
        # KeyError and the like: events that do not say what their type promises
        except (OSError, TimeoutError, asyncio.TimeoutError, ServiceError, KeyError, TypeError,
                ValueError) as problem:
            self.failures += 1
            self.down_until = time.monotonic() + RETRY_AFTER_S
            if self.failures == 1:
                print(f"(The {self.what} service at {self.address} did not answer in time "
                      f"({problem or type(problem).__name__}); {instead} instead, and the "
                      "service again in a minute.)", file=self.console, flush=True)
            return local()


def ask(work: Coroutine[Any, Any, T], timeout_s: float) -> T:
    """Run a request to its end within `timeout_s`, on a loop of its own."""
    return asyncio.run(asyncio.wait_for(work, timeout_s))


def describe_service(address: Address) -> Info:
    """What a Wyoming service says about itself (describe → info); OSError, TimeoutError or
    ServiceError when it does not say."""
    async def asked() -> Info:
        client = await _connected(address)
        try:
            await client.write_event(Describe().event())
            while (event := await client.read_event()) is not None:
                if Info.is_type(event.type):
                    return Info.from_event(event)
            raise ServiceError("it closed the connection without saying what it is")
        finally:
            await client.disconnect()
    return ask(asked(), REMOTE_TIMEOUT_S)


async def _connected(address: Address) -> AsyncTcpClient:
    client = AsyncTcpClient(address.host, address.port)
    await client.connect()
    return client


class RemoteRecognizer:
    """A Recognizer whose utterances a Wyoming speech-to-text service hears; `local` hears them
    when the service does not answer in time."""

    open_vocabulary = False  # a transcript outside the moment's phrases is not understood

    def __init__(self, uri: str, local: Recognizer, reader: Reader,
                 console: TextIO | None = None, language: str = "en") -> None:
        self.address = Address.parse(uri, default_port=ASR_PORT)
        self.local = local
        self.language = language
        self.fallback = Fallback("speech-to-text", self.address, console)
        self.name = f"wyoming-asr {self.address} (else {local.name})"
        self.reader = reader
        self._snap: PhraseReading = reader(())
        self._audio: list[bytes] = []

    def set_phrases(self, phrases: Sequence[str]) -> None:
        self._snap = self.reader(phrases)
        self.local.set_phrases(phrases)

    def start(self) -> None:
        self._audio = []

    def feed(self, pcm: bytes) -> None:
        self._audio.append(pcm)

    def preview(self) -> bool:
        return False

    def complete(self) -> bool:
        return False

    def finish(self) -> Hearing:
        pcm = b"".join(self._audio)
        began = time.monotonic()
        heard: Hearing = self.fallback.attempt(
            lambda: self._remote(pcm, began), lambda: recognize(self.local, pcm),
            f"hearing with {self.local.name}")
        return heard

    def _remote(self, pcm: bytes, began: float) -> Hearing:
        transcript = transcribe(self.address, pcm, self.language)
        text, sure = self._snap.snap(transcript)
        return Hearing(text, sure, len(pcm) / SAMPLE_WIDTH / SAMPLE_RATE,
                       time.monotonic() - began, raw_text=transcript)


class RemoteVoice:
    """Renders the host's lines with a Wyoming text-to-speech service: a `render` for the
    Mouth (samples, rate); `local` (the voice `local_name`: "piper joe") renders them when
    the service does not answer in time."""

    def __init__(self, uri: str, local: Callable[[str], tuple[np.ndarray, int]],
                 local_name: str, console: TextIO | None = None) -> None:
        self.address = Address.parse(uri, default_port=TTS_PORT)
        self.local, self.local_name = local, local_name
        self.fallback = Fallback("text-to-speech", self.address, console)

    def render(self, text: str) -> tuple[np.ndarray, int]:
        rendered: tuple[np.ndarray, int] = self.fallback.attempt(
            lambda: synthesize(self.address, text), lambda: self.local(text),
            f"speaking with {self.local_name}")
        return rendered


def transcribe(address: Address, pcm: bytes, language: str = "en") -> str:
    """The service's transcript of one utterance (16 kHz mono int16)."""
    return ask(_transcribe(address, pcm, language), REMOTE_TIMEOUT_S)


async def _transcribe(address: Address, pcm: bytes, language: str) -> str:
    client = await _connected(address)
    try:
        await client.write_event(Transcribe(language=language).event())
        await client.write_event(AudioStart(rate=SAMPLE_RATE, width=SAMPLE_WIDTH,
                                            channels=1).event())
        for offset in range(0, len(pcm), SEND_CHUNK_BYTES):
            await client.write_event(AudioChunk(
                rate=SAMPLE_RATE, width=SAMPLE_WIDTH, channels=1,
                audio=pcm[offset:offset + SEND_CHUNK_BYTES]).event())
        await client.write_event(AudioStop().event())
        while True:
            event = await client.read_event()
            if event is None:
                raise ServiceError("it closed the connection without a transcript")
            if Transcript.is_type(event.type):
                text = Transcript.from_event(event).text
                if not isinstance(text, str):
                    raise ServiceError("its transcript is not text")
                return text
    finally:
        await client.disconnect()


def synthesize(address: Address, text: str) -> tuple[np.ndarray, int]:
    """The service's rendering of a line: int16 mono samples and their rate."""
    return ask(_synthesize(address, text), REMOTE_TIMEOUT_S)


async def _synthesize(address: Address, text: str) -> tuple[np.ndarray, int]:
    client = await _connected(address)
    try:
        await client.write_event(Synthesize(text=text).event())
        audio: list[bytes] = []
        rate = width = channels = 0
        while True:
            event = await client.read_event()
            if event is None:
                raise ServiceError("it closed the connection mid-line")
            if AudioStart.is_type(event.type):
                start = AudioStart.from_event(event)
                rate, width, channels = start.rate, start.width, start.channels
            elif AudioChunk.is_type(event.type):
                audio.append(AudioChunk.from_event(event).audio)
                if sum(map(len, audio)) > LONGEST_LINE_S * 48000 * 4:
                    raise ServiceError("it sends more audio than any line takes")
            elif AudioStop.is_type(event.type):
                break
    finally:
        await client.disconnect()
    if rate not in range(8000, 48001) or width != SAMPLE_WIDTH or channels not in (1, 2):
        raise ServiceError(f"it sent audio voicehost cannot play ({rate} Hz, "
                           f"{8 * width}-bit, {channels} channels)")
    data = b"".join(audio)
    samples = np.frombuffer(data[: len(data) // 2 * 2], dtype=np.int16)
    if channels == 2:
        samples = samples[: len(samples) // 2 * 2].reshape(-1, 2).mean(axis=1)
    return samples.astype(np.int16), rate
