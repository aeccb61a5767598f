"""Whisper's written words as the grammars' words, and the phrases as Whisper writes them."""

from __future__ import annotations

import re
from collections.abc import Sequence

from voicehost.words import normalize, said_signs

NUMBER_WORDS = {
    "zero": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6",
    "seven": "7", "eight": "8", "nine": "9", "ten": "10", "eleven": "11", "twelve": "12",
}


def plain_words(text: str) -> str:
    """A transcript as grammar words: lower-case, punctuation gone, numbers spelled out (up
    to twelve as a word, longer ones digit by digit, as a code is read out)."""
    digits = {v: k for k, v in NUMBER_WORDS.items()}
    words = re.sub(r"[^a-z0-9' ]+", " ", said_signs(text).lower()).split()
    return " ".join(digits.get(w) or (" ".join(digits[d] for d in w) if w.isdigit() else w)
                    for w in words)


def spoken_forms(phrase: str) -> list[str]:
    """How Whisper would write `phrase`: sentence case, "I", and numbers also as digits."""
    words = ["I" if w == "i" else w for w in normalize(phrase).split()]
    forms = [words]
    if any(w in NUMBER_WORDS for w in words):
        forms.append([NUMBER_WORDS.get(w, w) for w in words])
    return [" " + (" ".join(f)[:1].upper() + " ".join(f)[1:]) for f in forms]


def holds(whole: Sequence[str], part: Sequence[str]) -> bool:
    """Whether `part` (some words) stands in `whole` as it is, its words next to each other."""
    return bool(part) and any(list(whole[at:at + len(part)]) == list(part)
                              for at in range(len(whole)))


def within(part: Sequence[str], whole: Sequence[str]) -> bool:
    """Whether `part`'s words are all in `whole`, in order (some of them left out)."""
    rest = iter(whole)
    return all(word in rest for word in part)
