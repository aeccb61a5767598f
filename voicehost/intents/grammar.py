"""Sentence templates → the exact phrases a recognizer may return → intents with a value.

Templates use hassil's syntax: `(a|b)` picks one, `[a]` is optional. One template list gives
both the recognizer's grammar (limited mode) and the matcher for what comes back.

People wrap their answers ("I think it's owl", "yes please") and say other words for the
phrases' own ("put it on module two"). The matcher understands them without adding a phrase
for the recognizers: what was said and every phrase are both read the same way (`Talk`: words
said for the grammar's own, then skip words dropped), and an answer made of several phrases
that all mean the same ("yes, that's right") means that; two meanings ("yes … no") mean none.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache, cached_property

from hassil.parse_expression import parse_sentence
from hassil.sample import sample_expression
from rapidfuzz import fuzz, process
from rapidfuzz.distance import DamerauLevenshtein

from voicehost.prompts_dir import load_yaml, prompts_dir
from voicehost.words import normalize

SNAP_THRESHOLD = 85.0  # rapidfuzz ratio a near miss needs to count as a phrase
SNAP_CANDIDATES = 5  # the nearest phrases a near miss is checked against, nearest first
SHORTEST_SLIP = 3  # a word shorter than this is never taken for a slip of another


@dataclass(frozen=True)
class Intent:
    """`name` is "choose" for one of the decision's options, else a command ("repeat", …)."""

    name: str
    value: str = ""


UNSPLIT_LETTERS = str.maketrans({"ł": "l", "ø": "o", "æ": "ae", "œ": "oe", "ß": "ss", "đ": "d",
                                 "ð": "d", "þ": "th", "ı": "i"})  # letters NFKD keeps whole


def fold(text: str) -> str:
    """`text` (lower case) without accents, as people type it on a plain keyboard and as
    recognizers write it: "zoë" is "zoe", "łukasz" is "lukasz"."""
    split = unicodedata.normalize("NFKD", text.translate(UNSPLIT_LETTERS))
    return "".join(c for c in split if not unicodedata.combining(c))


@dataclass(frozen=True)
class Talk:
    """How people say answers around the phrases' words (prompts/common/intents.yaml):
    `skip` phrases they wrap answers in ("um", "i think", "my guess is"), and `same`: words
    said for a phrase's own ("put" for "add")."""

    named: frozenset[str]  # seat names, numbers and cards: each means something, never a slip
    numbers: frozenset[str]  # the numbers a choice offers, as words
    signs: frozenset[str]  # said before or inside a number, make it no whole one: minus, point
    like_no: frozenset[str]  # skip words a recognizer may write for "no" or "not"
    like_numbers: dict[str, tuple[str, ...]]  # number → words a recognizer may write it for
    skip: dict[str, tuple[tuple[str, ...], ...]]  # first word → skip phrases, longest first
    same: dict[str, tuple[tuple[tuple[str, ...], tuple[str, ...]], ...]]  # first word →
    # (said, the phrase's words), longest first

    @classmethod
    @cache
    def load(cls) -> Talk:
        table = load_yaml("common/intents.yaml")
        skip: dict[str, list[tuple[str, ...]]] = {}
        written_out = {said: tuple(full.split()) for said, full in table["written_out"].items()}
        for phrase in table["skip_words"]:
            words = tuple(normalize(str(phrase)).split())
            full = tuple(part for word in words for part in written_out.get(word, (word,)))
            for form in dict.fromkeys((words, full)):
                skip.setdefault(form[0], []).append(form)
        same: dict[str, list[tuple[tuple[str, ...], tuple[str, ...]]]] = {}
        for said, meant in table["same_words"].items():
            words = tuple(normalize(str(said)).split())
            same.setdefault(words[0], []).append((words, tuple(normalize(str(meant)).split())))
        tokens = load_yaml("common/tokens.yaml")
        cards = frozenset(word for game in sorted(prompts_dir().glob("*/intents.yaml"))
                          for templates in load_yaml(f"{game.parent.name}/intents.yaml")
                          .get("cards", {}).values() for template in templates
                          for phrase in expand(template) for word in phrase.split())
        named = (frozenset(tokens["tokens"]) | frozenset(tokens["numbers"])
                 | cards - frozenset(table["skip_words"]))
        return cls(named, frozenset(tokens["numbers"]),
                   frozenset(table["number_signs"].values()),
                   frozenset(table["sound_like_no"]),
                   {number: tuple(said) for number, said
                    in table["sound_like_numbers"].items()},
                   {first: tuple(sorted(dict.fromkeys(p), key=len, reverse=True))
                    for first, p in skip.items()},
                   {first: tuple(sorted(p, key=lambda pair: -len(pair[0])))
                    for first, p in same.items()})

    def unwhole(self, words: Sequence[str]) -> bool:
        """Whether `words` say a number with a sign or a decimal point ("minus one", "one point
        five"): no choice's number."""
        return any(word in self.signs and words[at + 1] in self.numbers
                   for at, word in enumerate(words[:-1]))

    def read(self, words: Sequence[str], own: frozenset[str]) -> tuple[str, ...]:
        """`words` as the matcher reads them: a word said for one of `own` (the grammar's
        choice words) becomes it, unless it is one of `own` itself; then skip words go."""
        meant: list[str] = []
        at = 0
        while at < len(words):
            for said, target in self.same.get(words[at], ()):
                if (tuple(words[at:at + len(said)]) == said and not own.issuperset(said)
                        and own.issuperset(target)):
                    meant += target
                    at += len(said)
                    break
            else:
                meant.append(words[at])
                at += 1
        kept: list[str] = []
        at = 0
        while at < len(meant):
            skipped = next((len(p) for p in self.skip.get(meant[at], ())
                            if tuple(meant[at:at + len(p)]) == p), 0)
            if not skipped:
                kept.append(meant[at])
            at += skipped or 1
        return tuple(kept)

    def ways(self, words: Sequence[str], own: frozenset[str]) -> list[tuple[str, ...]]:
        """`words` (a phrase) and each way people say it with words said for its own ("put
        it to module two" for "add it to module two"): the same words `read` takes back."""
        said = [tuple(words)]
        for pairs in self.same.values():
            for other, meant in pairs:
                if own.issuperset(other):
                    continue
                said += [(*words[:at], *other, *words[at + len(meant):])
                         for at in range(len(words) - len(meant) + 1)
                         if tuple(words[at:at + len(meant)]) == meant]
        return said

    def fillers(self) -> list[tuple[str, ...]]:
        """The skip phrases an answer may be heard wrapped in: all but those a recognizer may
        write for "no" or "not"."""
        return sorted({p for phrases in self.skip.values() for p in phrases
                       if " ".join(p) not in self.like_no})


def without_fillers(text: str) -> str:
    """Free speech without the words people wrap it in: "my clue is desert" is "desert"."""
    return " ".join(Talk.load().read(normalize(text).split(), frozenset()))


@cache
def expand(template: str) -> tuple[str, ...]:
    """Every phrase a template allows, normalized, in a stable order."""
    phrases = sample_expression(parse_sentence(template).expression)
    return tuple(dict.fromkeys(normalize(p) for p in phrases if normalize(p)))


NO = Intent("choose", "no")  # the answer to a read-back that a correction may follow


class Grammar:
    """What the host accepts at one moment: phrase → intent."""

    def __init__(self, phrases: Mapping[str, Intent]) -> None:
        self.intents = dict(phrases)
        self.words = frozenset(word for phrase in self.intents for word in phrase.split())
        self.corrections: Grammar | None = None  # a read-back's options: "no, bear" (see
        # `corrected`)

    @cached_property
    def choice_words(self) -> frozenset[str]:
        return frozenset(word for phrase, intent in self.intents.items() if intent.name == "choose"
                         for word in phrase.split())

    def read(self, said: str) -> str:
        """`said` (normalized) as the matcher reads it (see `Talk`)."""
        return " ".join(Talk.load().read(said.split(), self.choice_words))

    @cached_property
    def understood(self) -> dict[str, Intent | None]:
        """Each phrase as the matcher reads it → its intent; None where phrases of two
        intents read the same (then neither is taken that way)."""
        read: dict[str, Intent | None] = {}
        for phrase, intent in self.intents.items():
            key = self.read(phrase)
            if key:
                read[key] = intent if read.get(key, intent) == intent else None
        return read

    @cached_property
    def longest(self) -> int:
        """The most words a phrase has, as the matcher reads it: no longer piece of what was
        said can be one phrase."""
        return max((len(key.split()) for key in self.understood), default=0)

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
        read = self.read(said)
        if not read:
            return None, 0.0
        meant = self.one_meaning(read.split())
        if meant is not None:
            return meant, 1.0
        for phrase, score, _ in process.extract(read, list(self.understood), scorer=fuzz.ratio,
                                                score_cutoff=SNAP_THRESHOLD,
                                                limit=SNAP_CANDIDATES):
            intent = self.understood[phrase]
            if intent is not None and self.slip_of(read, phrase):
                return intent, score / 100.0
        return self.corrected(said)

    def corrected(self, said: str) -> tuple[Intent | None, float]:
        """At a read-back with `corrections`: a no, then another option ("no, it was bear")
        is Intent("correct", that option). Refused when the splits disagree."""
        if self.corrections is None:
            return None, 0.0
        words = said.split()
        found: set[Intent] = set()
        for at in range(1, min(len(words), 2 * self.longest + 1)):  # the no, said once or twice
            head = self.one_meaning(self.read(" ".join(words[:at])).split())
            if head != NO:
                continue
            option, snap = self.corrections.match(" ".join(words[at:]))
            if option is not None and option.name == "choose" and snap == 1.0:
                found.add(Intent("correct", option.value))
        return (found.pop(), 1.0) if len(found) == 1 else (None, 0.0)

    def one_meaning(self, words: Sequence[str]) -> Intent | None:
        """The intent of `words` read as one or more phrases one after another that all mean
        the same ("yes that's right"); None when no such reading exists, or readings disagree."""
        most = self.longest
        pieces = {(begin, end): self.understood.get(" ".join(words[begin:end]))
                  for begin in range(len(words))
                  for end in range(begin + 1, min(len(words), begin + most) + 1)}
        found = set()
        for intent in {i for i in pieces.values() if i is not None}:
            read = [True] + [False] * len(words)  # read[i]: words[:i] read as `intent`
            for end in range(1, len(words) + 1):
                read[end] = any(read[begin] and pieces[begin, end] == intent
                                for begin in range(max(0, end - most), end))
            if read[-1]:
                found.add(intent)
        return found.pop() if len(found) == 1 else None

    def slip_of(self, said: str, phrase: str) -> bool:
        """Whether `said` is `phrase` with slips: word for word the same, or one letter wrong,
        missing, extra or swapped in a word that means nothing else here nor names a seat or
        a number anywhere ("that's eight" is not "that's right"). A word of this grammar said
        in the wrong place ("player eleven" for "player seven" when eleven is not in play is
        not even that) is a different answer, never a slip."""
        words, meant = said.split(), phrase.split()
        if len(words) != len(meant):
            return False
        named = Talk.load().named
        return all(word == target or (word not in self.words and word not in named
                                      and one_slip_apart(word, target))
                   for word, target in zip(words, meant, strict=True))


def one_slip_apart(said: str, word: str) -> bool:
    """Whether `said` could be `word` with one letter wrong, missing, extra or swapped (and
    `word` is long enough for that to be a slip, not another word)."""
    return len(word) >= SHORTEST_SLIP and DamerauLevenshtein.distance(said, word) <= 1
