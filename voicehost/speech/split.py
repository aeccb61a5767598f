"""Two engines, one per decision: pocketsphinx for Ferret Out's deck words, Whisper for the rest.

Whisper hears a lively table far better, and with the phrase trie it scores Secret Operation's
long lists in time; but the deck was chosen word by word for pocketsphinx to hear, and Whisper
refuses two in five of its words said alone (the numbers: docs/hearing.md, "The default is
split between the engines"). So a decision whose phrases name a deck word (Ferret Out's guess)
goes to pocketsphinx, every other to Whisper.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from voicehost.prompts_dir import load_yaml
from voicehost.speech.base import Recognizer, Wrapping


def deck_words() -> frozenset[str]:
    """Every word of Ferret Out's pouches (prompts/ferret_out/pouches.yaml), both sides."""
    return frozenset(word for pair in load_yaml("ferret_out/pouches.yaml")["pouches"]
                     for side in ("ferrets", "weasel") for word in pair[side])


class SplitRecognizer(Wrapping):
    """The Recognizer protocol over `short` and the engine `make_long` builds, named
    `long_name`, which hears the lists with a phrase of `long_words`. It is built when first
    needed: a game that never offers a deck word never holds it in memory."""

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
            self.inner = self.long
        self.inner.set_phrases(phrases)
