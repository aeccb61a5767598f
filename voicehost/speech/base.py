"""What every recognizer offers: one utterance in, one hearing out."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from voicehost.voice import Hearing


class Recognizer(Protocol):
    """One engine. `set_phrases` narrows it to what the moment accepts (limited mode)."""

    name: str

    def set_phrases(self, phrases: Sequence[str]) -> None:
        """Only these phrases (lower-case, space-separated words) may come back as text."""

    def start(self) -> None:
        """Begin a new utterance."""

    def feed(self, pcm: bytes) -> None:
        """Stream audio of the current utterance as it arrives."""

    def preview(self) -> bool:
        """The player has paused: start hearing what was fed so far, so that finish() can
        answer at once if the pause turns out to be the end. False: the engine does not
        preview (it decodes as the audio streams in), and nothing changes."""

    def complete(self) -> bool:
        """Whether the preview is heard, and is a whole answer: confident, and no longer
        offered phrase goes on from it ("no" could still become "no thanks", "i do" could
        become "i do not"). The ears may end the utterance then rather than wait out the
        trailing silence. False for an engine that does not preview."""

    def finish(self) -> Hearing:
        """End the utterance and return what was heard."""


class Wrapping:
    """A recognizer that hands one utterance to another, `inner` (which may change between
    utterances, at `set_phrases`): subclasses change only what they do differently."""

    inner: Recognizer

    def set_phrases(self, phrases: Sequence[str]) -> None:
        self.inner.set_phrases(phrases)

    def start(self) -> None:
        self.inner.start()

    def feed(self, pcm: bytes) -> None:
        self.inner.feed(pcm)

    def preview(self) -> bool:
        return self.inner.preview()

    def complete(self) -> bool:
        return self.inner.complete()

    def finish(self) -> Hearing:
        return self.inner.finish()


def recognize(recognizer: Recognizer, pcm: bytes) -> Hearing:
    """Recognize one whole utterance held in memory."""
    recognizer.start()
    recognizer.feed(pcm)
    return recognizer.finish()
