"""What every recognizer and voice offers the host: one utterance in, one hearing out.

Audio everywhere in voicehost is 16 kHz, mono, signed 16-bit little-endian PCM bytes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

SAMPLE_RATE = 16000
SAMPLE_WIDTH = 2  # bytes per sample (int16)


@dataclass(frozen=True)
class Hearing:
    """What a recognizer made of one utterance. `text` is "" when nothing was understood."""

    text: str
    confidence: float  # 0..1; below the engine's floor the text is already ""
    audio_seconds: float
    decode_seconds: float  # time spent after the last frame arrived (end-of-speech → text)
    raw_text: str = ""  # what the engine said before rejection, for diagnostics only
    response_seconds: float = 0.0  # player stopped speaking → text ready (audio mode)


class Recognizer(Protocol):
    """One engine. `set_phrases` narrows it to what the moment accepts (limited mode)."""

    name: str

    def set_phrases(self, phrases: Sequence[str]) -> None:
        """Only these phrases (lower-case, space-separated words) may come back as text."""

    def start(self) -> None:
        """Begin a new utterance."""

    def feed(self, pcm: bytes) -> None:
        """Stream audio of the current utterance as it arrives."""

    def finish(self) -> Hearing:
        """End the utterance and return what was heard."""


def recognize(recognizer: Recognizer, pcm: bytes) -> Hearing:
    """Recognize one whole utterance held in memory."""
    recognizer.start()
    recognizer.feed(pcm)
    return recognizer.finish()


class EndOfInput(Exception):
    """Nobody will ever answer again (stdin closed): the host saves and stops."""


class Voice(Protocol):
    """The host's mouth and ears together. Text mode and audio mode both implement it."""

    def say(self, text: str) -> None:
        """Say `text` and return when it has been said."""

    def listen(self, phrases: Sequence[str]) -> Hearing | None:
        """Hear one utterance, limited to `phrases`; None when nobody spoke in time."""

    def close(self) -> None: ...
