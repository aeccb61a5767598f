"""The contract between the host and the speech room: what a Voice offers the host and what
one hearing of a player carries. Text mode and audio mode both keep it.

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
    # When the engine heard one of two or more phrases but could not tell which: those
    # phrases with their confidences, best first (`text` is then ""). The host asks the one
    # question that separates them instead of guessing.
    alternatives: tuple[tuple[str, float], ...] = ()
    snr_db: float | None = None  # the utterance's speech over the room's noise (audio mode)


class EndOfInput(EOFError):
    """Nobody will ever answer again (stdin closed): the host saves and stops."""


class MicrophoneLost(RuntimeError):
    """`listen` or `record`: the microphone stopped delivering audio (unplugged, or dropped by
    the sound system). Everything heard before the loss was heard; the utterance cut short is
    not. The host says so, calls `Voice.wait_for_microphone`, and asks again."""


@dataclass(frozen=True)
class Recording:
    """One free-speech utterance (a clue): its audio, what the limited grammar made of it
    (a command, or ""), and an open-vocabulary transcript where the engine has one."""

    hearing: Hearing  # limited to the phrases asked for, as `listen` would hear it
    pcm: bytes  # the utterance itself; b"" in text mode
    transcript: str = ""  # "" when the engine cannot transcribe free speech
    transcript_confidence: float = 0.0  # 0..1


class Voice(Protocol):
    """The host's mouth and ears together. Text mode and audio mode both implement it."""

    typed: bool  # the players type what they say (text mode): nothing goes unheard

    def say(self, text: str) -> None:
        """Say `text` and return when it has been said (shown on the console instead when
        the speaker is lost: a lost speaker never stops the game)."""

    def listen(self, phrases: Sequence[str], timeout_s: float | None = None) -> Hearing | None:
        """Hear one utterance, limited to `phrases`; None when nobody spoke in time
        (`timeout_s`, or the voice's own patience when None); MicrophoneLost (as `record`)."""

    def record(self, phrases: Sequence[str]) -> Recording | None:
        """Hear one utterance of free speech, keeping its audio; `phrases` (the commands)
        are still recognized. None when nobody spoke in time."""

    def play(self, pcm: bytes) -> None:
        """Play a recording back (16 kHz mono int16) and return when it has been heard."""

    def sound(self, name: str) -> None:
        """Play one of the host's sounds (speech/sounds.py: "tick", "sting", "fanfare",
        "chime") and return when it has been heard; nothing where sounds are off."""

    def too_loud(self) -> bool:
        """Whether the room, as last heard, is too loud to hear one player over it."""

    def wait_for_microphone(self) -> None:
        """After MicrophoneLost: return once a microphone delivers audio again (for as long
        as that takes). A voice whose input cannot be lost returns at once."""

    def close(self) -> None: ...
