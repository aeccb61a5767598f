"""What every recognizer offers: one utterance in, one hearing out."""

from __future__ import annotations

from collections.abc import Callable, Sequence
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


class PhraseReading(Protocol):
    """The offered phrases as people say them around the phrases' words: what an engine that
    also hears freely asks of the rooms above (voicehost.intents.understand), never deciding
    itself what a transcript names."""

    def read(self, words: Sequence[str]) -> tuple[str, ...]:
        """`words` as the matcher reads them among the phrases."""

    def wraps(self, words: Sequence[str]) -> bool:
        """Whether `words` are only words people wrap answers in."""

    def ways(self, phrase: str) -> list[tuple[str, ...]]:
        """`phrase` and each other way people say it that reads as it."""

    def fillers(self) -> list[tuple[str, ...]]:
        """The phrases an answer may be heard wrapped in."""

    def held(self, words: Sequence[str]) -> list[str]:
        """The phrases `words` hold, longest first."""

    def around(self, reading: Sequence[str], phrase: str) -> bool:
        """Whether `reading` is `phrase` among nothing but the phrases' words."""

    def with_free(self, best: str, heard: str, free_text: str, looped: bool = False) -> str:
        """What the matcher is given for the best phrase and the free transcript."""

    def snap(self, transcript: str) -> tuple[str, float]:
        """The phrase a free transcript is, and how sure; "" and 0 when none."""


# the reading of one decision's phrases (voicehost.intents.understand.reading_of)
Reader = Callable[[Sequence[str]], PhraseReading]


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
