"""Free speech kept safe: a clue's words and its recording, journaled as one choice.

A free-speech choice (a Ferret Out clue) goes into the journal as one word of text:

    bark                  the transcript, sure (text mode, or a sure open-vocabulary engine)
    bark@clips/x.wav      the same, with the recording kept
    bark?@clips/x.wav     an unsure transcript: read back by playing the recording
    @clips/x.wav          no transcript at all (pocketsphinx): the recording is the clue

The recording is a WAV file in `clips/` next to the journal, written and fsynced before the
journal line that references it, so a kill loses neither.
"""

from __future__ import annotations

import os
import time
import wave
from dataclasses import dataclass
from pathlib import Path

from voicehost.intents.grammar import without_fillers
from voicehost.store.private import PRIVATE, SaveWriteError, sync_folder
from voicehost.voice import SAMPLE_RATE, SAMPLE_WIDTH

SURE = 0.8  # an open-vocabulary transcript at least this confident is read out as words
CLIP_DIR = "clips"


@dataclass(frozen=True)
class Said:
    """One free-speech choice: its words (maybe ""), whether they are trusted, its clip."""

    words: str
    sure: bool
    clip: str = ""  # path relative to the journal's folder; "" when there is no recording

    def choice(self) -> str:
        if not self.clip:
            return self.words
        return f"{self.words}{'' if self.sure or not self.words else '?'}@{self.clip}"

    @classmethod
    def parse(cls, choice: str) -> Said:
        words, at, clip = choice.partition("@")
        if not at:
            return cls(words, True)
        unsure = words.endswith("?") or not words
        return cls(words.rstrip("?"), not unsure, clip)

    def readable(self) -> bool:
        """Whether the host may read it out rather than play the recording."""
        return self.sure and bool(self.words)


def said_from(transcript: str, confidence: float, clip: str) -> Said:
    words = without_fillers(transcript).replace("?", "").replace("@", "")
    if clip and len(words.split()) > 1:
        return Said("", False, clip)  # a clue is one word: let the recording speak for it
    return Said(words, bool(words) and confidence >= SURE, clip)


class Playback(str):
    """A line that plays a recording: the text is said first (its caption), then the clip.
    `lost` is said instead of playing when the recording cannot be found."""

    clip: str
    lost: str

    def __new__(cls, caption: str, clip: str, lost: str) -> Playback:
        line = super().__new__(cls, caption)
        line.clip = clip
        line.lost = lost
        return line


def save_clip(journal: Path, pcm: bytes, label: str) -> str:
    """Write a recording next to the journal, fsynced; returns its reference."""
    folder = journal.parent / CLIP_DIR
    name = f"{CLIP_DIR}/{time.time_ns()}-{label}.wav"
    path = journal.parent / name
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE)
        with os.fdopen(descriptor, "wb") as handle:
            with wave.open(handle, "wb") as wav:
                wav.setnchannels(1)
                wav.setsampwidth(SAMPLE_WIDTH)
                wav.setframerate(SAMPLE_RATE)
                wav.writeframes(pcm)
            handle.flush()
            os.fsync(handle.fileno())
        sync_folder(folder)  # the file's name must survive a crash too
    except OSError as problem:
        raise SaveWriteError(path, problem) from None
    return name


def load_clip(journal: Path, clip: str) -> bytes | None:
    """The recording's audio, or None when it is gone or unreadable."""
    path = journal.parent / clip
    try:
        with wave.open(str(path), "rb") as wav:
            return wav.readframes(wav.getnframes())
    except (OSError, EOFError, wave.Error):
        return None
