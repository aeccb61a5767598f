"""Wyoming speech services for the tests and the benchmark, built on the `wyoming` library's own
server classes and answering with real engines of ours: speech-to-text with Whisper tiny.en's
free transcription (voicehost/speech/whisper_engine.py), text-to-speech with the piper voice the
hearing corpus uses (en_US-joe-medium). No `wyoming-faster-whisper` or `wyoming-piper` is run:
their packages want downloads (models, voices) this machine cannot make.

    python -m voicehost.lab.services asr --uri tcp://127.0.0.1:10300
    python -m voicehost.lab.services tts --uri tcp://127.0.0.1:10200 [--delay 5]

`--delay` holds every answer back that many seconds (a service too slow for the table).
"""

from __future__ import annotations

import argparse
import asyncio
import io
import subprocess
import sys
import wave
from functools import partial
from typing import Any

import numpy as np
from wyoming.asr import Transcribe, Transcript
from wyoming.audio import AudioChunk, AudioChunkConverter, AudioStart, AudioStop
from wyoming.event import Event
from wyoming.info import AsrModel, AsrProgram, Attribution, Describe, Info, TtsProgram, TtsVoice
from wyoming.server import AsyncEventHandler, AsyncServer
from wyoming.tts import Synthesize

from voicehost.intents.understand import reading_of
from voicehost.lab.satellite import free_port, serves
from voicehost.voice import SAMPLE_RATE, SAMPLE_WIDTH

OURS = Attribution(name="voicehost test bench", url="")
PIPER = "en_US-joe-medium"


def info(kind: str) -> Info:
    if kind == "asr":
        return Info(asr=[AsrProgram(
            name="voicehost-whisper", attribution=OURS, installed=True,
            description="Whisper tiny.en, free transcription", version="1",
            models=[AsrModel(name="tiny.en", attribution=OURS, installed=True,
                             description="Whisper tiny.en", version="1", languages=["en"])])])
    return Info(tts=[TtsProgram(
        name="voicehost-piper", attribution=OURS, installed=True, description="piper",
        version="1", voices=[TtsVoice(name=PIPER, attribution=OURS, installed=True,
                                      description="joe", version="1", languages=["en_US"])])])


class Handler(AsyncEventHandler):
    def __init__(self, kind: str, engine: Any, delay_s: float, *args: Any) -> None:
        super().__init__(*args)
        self.kind, self.engine, self.delay_s = kind, engine, delay_s
        self.audio: list[bytes] = []
        self.converter = AudioChunkConverter(rate=SAMPLE_RATE, width=SAMPLE_WIDTH, channels=1)

    async def handle_event(self, event: Event) -> bool:
        if Describe.is_type(event.type):
            await self.write_event(info(self.kind).event())
        elif Transcribe.is_type(event.type) or AudioStart.is_type(event.type):
            self.audio = []
        elif AudioChunk.is_type(event.type):
            self.audio.append(self.converter.convert(AudioChunk.from_event(event)).audio)
        elif AudioStop.is_type(event.type) and self.kind == "asr":
            pcm = np.frombuffer(b"".join(self.audio), dtype=np.int16)
            text, _ = await asyncio.to_thread(self.engine.transcribe,
                                              pcm / 32768.0)
            await asyncio.sleep(self.delay_s)
            await self.write_event(Transcript(text=text).event())
            return False
        elif Synthesize.is_type(event.type) and self.kind == "tts":
            samples, rate = await asyncio.to_thread(self.engine, Synthesize.from_event(event).text)
            await asyncio.sleep(self.delay_s)
            await self.write_event(AudioStart(rate=rate, width=2, channels=1).event())
            data = samples.tobytes()
            for offset in range(0, len(data), 4096):
                await self.write_event(AudioChunk(rate=rate, width=2, channels=1,
                                                  audio=data[offset:offset + 4096]).event())
            await self.write_event(AudioStop().event())
            return False
        return True


def piper_render(text: str) -> tuple[np.ndarray, int]:
    """The line in the piper voice, without piper's random variation (so a test can find it
    again: the same text gives the same samples)."""
    from piper import SynthesisConfig

    from voicehost.lab.voices import _piper_voice

    out = io.BytesIO()
    with wave.open(out, "wb") as wav:
        _piper_voice(PIPER).synthesize_wav(
            text, wav, syn_config=SynthesisConfig(noise_scale=0.0, noise_w_scale=0.0))
    out.seek(0)
    with wave.open(out) as wav:
        return (np.frombuffer(wav.readframes(wav.getnframes()), dtype=np.int16).copy(),
                wav.getframerate())


async def serve(kind: str, uri: str, delay_s: float) -> None:
    if kind == "asr":
        from voicehost.speech.whisper_engine import WhisperRecognizer

        engine: Any = WhisperRecognizer(reader=reading_of)
    else:
        engine = piper_render
        piper_render("ready")  # load the voice before the first request
    server = AsyncServer.from_uri(uri)
    print(f"serving {kind} on {uri}", flush=True)
    await server.run(partial(Handler, kind, engine, delay_s))


class ServiceProcess:
    """One of these services, run as a process of its own on a free port."""

    def __init__(self, kind: str, delay_s: float = 0.0, timeout_s: float = 60.0) -> None:
        self.port = free_port()
        self.uri = f"tcp://127.0.0.1:{self.port}"
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "voicehost.lab.services", kind, "--uri", self.uri,
             "--delay", str(delay_s)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if not serves(self.proc, self.port, timeout_s):
            self.stop()
            raise RuntimeError(f"the {kind} service did not come up")

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("kind", choices=("asr", "tts"))
    parser.add_argument("--uri", required=True)
    parser.add_argument("--delay", type=float, default=0.0)
    args = parser.parse_args()
    asyncio.run(serve(args.kind, args.uri, args.delay))


if __name__ == "__main__":
    main()
