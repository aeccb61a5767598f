"""How much the host talks, and how: measured over what it said at a tidy table
(tidy_table.py). A breath is a sentence; a stretch is all it says between two listens.

Speaking time is counted at the default voice's pace when no audio is given: joe at the
default `--rate` says about PACE_WPS words a second, pauses included (docs/voice.md)."""

from __future__ import annotations

import json
import re
import statistics
from collections import Counter
from dataclasses import dataclass

from voicehost.lab.tidy_table import TidyTable
from voicehost.prompts_dir import load_yaml

PACE_WPS = 2.9
WORD = re.compile(r"[A-Za-z0-9']+")
SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
LONG_BREATH = 20  # words: a breath longer than this is hard to say, and to follow


def words(text: str) -> int:
    return len(WORD.findall(text))


def breaths(text: str) -> list[str]:
    """The sentences of `text`, each said in one breath."""
    return [s for s in SENTENCE_END.split(text.strip()) if WORD.search(s)]


def _plain(sentence: str, names: frozenset[str]) -> tuple[str, ...]:
    """A sentence's words without names and numbers: what repeats when only they change."""
    numbers = set(load_yaml("common/tokens.yaml")["numbers"]) | {"zero"}
    return tuple(w for w in (w.lower() for w in WORD.findall(sentence))
                 if w not in names and w not in numbers and not w.isdigit())


def repeated(said: list[str], names: frozenset[str], fewest: int = 4) -> Counter[str]:
    """How often each sentence of `fewest` words or more (names and numbers aside) was said."""
    counted: Counter[str] = Counter()
    for text in said:
        for sentence in breaths(text):
            plain = _plain(sentence, names)
            if len(plain) >= fewest:
                counted[" ".join(plain)] += 1
    return counted


@dataclass(frozen=True)
class Talk:
    """One game's host speech."""

    words: int
    breaths: list[int]  # words per breath
    stretches: list[int]  # words per stretch between two listens
    confirms_per_round: list[int]  # read-backs asked a yes, round by round
    most_repeated: tuple[str, int]

    @property
    def minutes(self) -> float:
        return self.words / PACE_WPS / 60

    def breath(self, share: float) -> int:
        """Words per breath at this quantile (0.5: the median)."""
        ordered = sorted(self.breaths)
        return ordered[min(len(ordered) - 1, int(share * len(ordered)))]

    @property
    def long_breaths(self) -> float:
        return sum(b > LONG_BREATH for b in self.breaths) / len(self.breaths)


def talk_of(table: TidyTable, names: frozenset[str]) -> Talk:
    said = [s for s in table.said if not s.startswith("[")]
    per_breath = [words(b) for text in said for b in breaths(text)]
    confirms, rounds = 0, []
    for event in (json.loads(line) for line in table.events.getvalue().splitlines()):
        if event["event"] == "listen" and event.get("decision") == "confirm":
            confirms += 1
        if event["event"] == "score":
            rounds.append(confirms)
            confirms = 0
    most = repeated(said, names).most_common(1)
    return Talk(sum(words(s) for s in said), per_breath,
                [words(s) for s in table.between_listens()], rounds,
                most[0] if most else ("", 0))


def summary(talks: list[Talk]) -> dict[str, float]:
    """Over several games of a title: what docs/voice.md's table shows."""
    every = [b for talk in talks for b in talk.breaths]
    ordered = sorted(every)
    rounds = [c for talk in talks for c in talk.confirms_per_round]
    return {
        "minutes": statistics.mean(t.minutes for t in talks),
        "breath_median": statistics.median(every),
        "breath_p95": ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))],
        "long_breaths": sum(b > LONG_BREATH for b in every) / len(every),
        "longest_breath": max(every),
        "longest_stretch": max(s for t in talks for s in t.stretches),
        "readbacks_per_round": statistics.mean(rounds) if rounds else 0.0,
        "most_readbacks_in_a_round": max(rounds, default=0),
        "most_repeats": max(t.most_repeated[1] for t in talks),
    }
