"""Written text as the words said: what a recognizer, a typist and the matcher all compare.
Below the ears and the matcher alike, so neither needs the other to read a transcript (a
recognizer's own writing included: digits, signs, punctuation)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from voicehost.prompts_dir import load_yaml


def normalize(text: str) -> str:
    """Lower-case words of letters, digits and apostrophes, in any script; single-spaced. A
    typographic apostrophe ("I’m", as phones and word processors type it) is the plain one."""
    words = re.sub(r"[^\w' ]+|_", " ", text.lower().replace("’", "'")).split()
    return " ".join(words)


def said_signs(text: str) -> str:
    """A typed or written sign or decimal point as the word said for it: "-1" is "minus 1",
    "1.5" is "1 point 5"."""
    spoken = load_yaml("common/intents.yaml")["number_signs"]
    text = re.sub(r"(?<![\w.])-(?=\d)", f" {spoken['minus']} ", text)
    return re.sub(r"(?<![\w.])(\d{1,2})[.,](\d{1,2})(?![\w.])", rf"\1 {spoken['point']} \2", text)


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


def holds(whole: Sequence[str], part: Sequence[str]) -> bool:
    """Whether `part` (some words) stands in `whole` as it is, its words next to each other."""
    return bool(part) and any(list(whole[at:at + len(part)]) == list(part)
                              for at in range(len(whole)))


def within(part: Sequence[str], whole: Sequence[str]) -> bool:
    """Whether `part`'s words are all in `whole`, in order (some of them left out)."""
    rest = iter(whole)
    return all(word in rest for word in part)
