"""Two engines, one per decision: Whisper for short phrase lists, pocketsphinx for long ones.

Whisper hears a lively table far better, but pocketsphinx hears Ferret Out's single deck words
(its guess: 101 phrases with the commands) better than Whisper, and the room games were timed
with Secret Operation's long lists on pocketsphinx (the numbers: docs/hearing.md, "The default
is split between the engines" and "The long lists on Whisper again"). So each decision goes to
Whisper up to `most_phrases`, else to pocketsphinx.
"""

from __future__ import annotations

from collections.abc import Sequence

from voicehost.speech.base import Recognizer
from voicehost.voice import Hearing

WHISPER_MOST_PHRASES = 100  # Ferret Out's number (88) to Whisper, its guess (101) not


class SplitRecognizer:
    """The Recognizer protocol over `short` (lists up to `most_phrases`) and `long`."""

    open_vocabulary = False

    def __init__(self, short: Recognizer, long: Recognizer,
                 most_phrases: int = WHISPER_MOST_PHRASES) -> None:
        self.short, self.long, self.most_phrases = short, long, most_phrases
        self.name = f"{short.name} (up to {most_phrases} phrases) / {long.name}"
        self.current: Recognizer = short

    def set_phrases(self, phrases: Sequence[str]) -> None:
        self.current = self.short if len(phrases) <= self.most_phrases else self.long
        self.current.set_phrases(phrases)

    def start(self) -> None:
        self.current.start()

    def feed(self, pcm: bytes) -> None:
        self.current.feed(pcm)

    def preview(self) -> bool:
        return self.current.preview()

    def finish(self) -> Hearing:
        return self.current.finish()
