"""Sentence templates → the exact phrases a recognizer may return → intents with a value.

Templates use hassil's syntax: `(a|b)` picks one, `[a]` is optional. One template list gives
both the recognizer's grammar (limited mode) and the matcher for what comes back.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache

from hassil.parse_expression import parse_sentence
from hassil.sample import sample_expression
from rapidfuzz import fuzz, process
from rapidfuzz.distance import DamerauLevenshtein

SNAP_THRESHOLD = 85.0  # rapidfuzz ratio a near miss needs to count as a phrase
SNAP_CANDIDATES = 5  # the nearest phrases a near miss is checked against, nearest first
SHORTEST_SLIP = 3  # a word shorter than this is never taken for a slip of another


@dataclass(frozen=True)
class Intent:
    """`name` is "choose" for one of the decision's options, else a command ("repeat", …)."""

    name: str
    value: str = ""


def normalize(text: str) -> str:
    """Lower-case words of letters, digits and apostrophes, in any script; single-spaced."""
    words = re.sub(r"[^\w' ]+|_", " ", text.lower()).split()
    return " ".join(words)


@cache
def expand(template: str) -> tuple[str, ...]:
    """Every phrase a template allows, normalized, in a stable order."""
    phrases = sample_expression(parse_sentence(template).expression)
    return tuple(dict.fromkeys(normalize(p) for p in phrases if normalize(p)))


class Grammar:
    """What the host accepts at one moment: phrase → intent."""

    def __init__(self, phrases: Mapping[str, Intent]) -> None:
        self.intents = dict(phrases)
        self.words = frozenset(word for phrase in self.intents for word in phrase.split())

    @classmethod
    def build(cls, groups: Iterable[tuple[Intent, Sequence[str]]]) -> Grammar:
        """`groups`: (intent, templates) pairs. A phrase claimed twice keeps its first intent."""
        phrases: dict[str, Intent] = {}
        for intent, templates in groups:
            for template in templates:
                for phrase in expand(template):
                    phrases.setdefault(phrase, intent)
        return cls(phrases)

    @property
    def phrases(self) -> list[str]:
        return list(self.intents)

    def spoken(self, intent: Intent) -> str:
        """The shortest phrase that gives `intent`: how the host names it in a question."""
        return min((p for p, i in self.intents.items() if i == intent), key=len)

    def match(self, text: str) -> tuple[Intent | None, float]:
        """The intent for `text` and how sure the match is (1.0 exact); None when `text` is
        no phrase, nor one with a slip of the tongue or the keyboard in it."""
        said = normalize(text)
        if not said:
            return None, 0.0
        if said in self.intents:
            return self.intents[said], 1.0
        for phrase, score, _ in process.extract(said, self.phrases, scorer=fuzz.ratio,
                                                score_cutoff=SNAP_THRESHOLD,
                                                limit=SNAP_CANDIDATES):
            if self.slip_of(said, phrase):
                return self.intents[phrase], score / 100.0
        return None, 0.0

    def slip_of(self, said: str, phrase: str) -> bool:
        """Whether `said` is `phrase` with slips: word for word the same, or one letter wrong,
        missing, extra or swapped in a word that means nothing else here. A word of this
        grammar said in the wrong place ("player eleven" for "player seven" when eleven is not
        in play is not even that) is a different answer, never a slip."""
        words, meant = said.split(), phrase.split()
        if len(words) != len(meant):
            return False
        return all(word == target or (word not in self.words and one_slip_apart(word, target))
                   for word, target in zip(words, meant, strict=True))


def one_slip_apart(said: str, word: str) -> bool:
    """Whether `said` could be `word` with one letter wrong, missing, extra or swapped (and
    `word` is long enough for that to be a slip, not another word)."""
    return len(word) >= SHORTEST_SLIP and DamerauLevenshtein.distance(said, word) <= 1
