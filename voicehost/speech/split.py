"""Two engines by decision: a game's deck words (Ferret Out's, from its table) to
pocketsphinx, else Whisper; the rest to Whisper.

Whisper hears a lively table far better, and with the phrase trie it scores Secret Operation's
long lists in time; but the deck was chosen word by word for pocketsphinx to hear, and Whisper
refuses one in four of its words said alone. Wrapped in people's words ("I think it's
cactus") it is the other way round: pocketsphinx refuses half. So a decision whose phrases
name a deck word (Ferret Out's guess) is heard by pocketsphinx, and by Whisper when
pocketsphinx takes nothing or hears the word wrapped in others (then both must hear the same
word); every other decision by Whisper (the numbers: docs/hearing.md, "The split by decision").
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from voicehost.speech.base import Recognizer, Wrapping
from voicehost.voice import Hearing


class SecondOpinion:
    """Hears each utterance with `first`, and with `second` when `first` takes nothing: both
    are fed all of it, so `second` can preview in the pause while `first` streams. An answer
    `first` heard wrapped in other words ("i think it was dog"), naming some of `words`, is
    taken only when `second` names the same ones: pocketsphinx forces what it hears onto the
    grammar's carrier phrases, and Whisper hears wrapped words far better."""

    def __init__(self, first: Recognizer, second: Recognizer, words: frozenset[str]) -> None:
        self.first, self.second, self.words = first, second, words
        self.name = f"{first.name}, else {second.name}"

    def set_phrases(self, phrases: Sequence[str]) -> None:
        self.first.set_phrases(phrases)
        self.second.set_phrases(phrases)

    def start(self) -> None:
        self.first.start()
        self.second.start()

    def feed(self, pcm: bytes) -> None:
        self.first.feed(pcm)
        self.second.feed(pcm)

    def preview(self) -> bool:
        return self.second.preview()

    def complete(self) -> bool:
        return False  # `first` has not said yet whether it takes the answer

    def finish(self) -> Hearing:
        heard, other = self.first.finish(), self.second.finish()
        # both ended the utterance before either answer could be given
        spent = heard.decode_seconds + other.decode_seconds
        if not heard.text:
            return replace(other, decode_seconds=spent)
        named = self.named(heard.text)
        if named and len(heard.text.split()) > len(named) and (
                not other.text or self.named(other.text) != named):
            return replace(heard, text="", decode_seconds=spent)
        return replace(heard, decode_seconds=spent)

    def named(self, text: str) -> list[str]:
        return [word for word in text.split() if word in self.words]


class SplitRecognizer(Wrapping):
    """The Recognizer protocol over `short` and the engine `make_long` builds, named
    `long_name`, which hears the lists with a phrase of `long_words` (and `short` after it,
    when it takes nothing). It is built when first needed: a game that never offers a deck
    word never holds it in memory."""

    open_vocabulary = False

    def __init__(self, short: Recognizer, make_long: Callable[[], Recognizer], long_name: str,
                 long_words: frozenset[str]) -> None:
        self.short, self.make_long, self.long_words = short, make_long, long_words
        self.long: Recognizer | None = None
        self.name = f"{short.name} / {long_name} (deck words)"
        self.inner: Recognizer = short

    def set_phrases(self, phrases: Sequence[str]) -> None:
        self.inner = self.short
        if any(p in self.long_words for p in phrases):
            if self.long is None:
                self.long = self.make_long()
            self.inner = SecondOpinion(self.long, self.short, self.long_words)
        self.inner.set_phrases(phrases)
