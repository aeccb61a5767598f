"""Whisper's decoder searching a grammar of any size, its templates never expanded.

hassil templates ("[can i get|give me] [a] {size} {drink} [please]") become a graph of words
(`WordGraph`): optional groups and alternatives are branches, a list is a branch per value.
Each word is written the ways Whisper writes it (sentence case, digits for numbers, joined by a
hyphen), token by token (`TokenGraph`), and a beam search walks the graph with the decoder,
token by token, keeping the likeliest paths that are still sentences of the grammar
(`search`). The cost grows with the length of what was said and the beam, not with the number
of sentences: Picovoice's coffee grammar spells 2 × 10⁸ of them (docs/bench-intent.md).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np
from hassil.expression import Alternative, Expression, ListReference, TextChunk
from hassil.expression import Sequence as Words
from hassil.parse_expression import parse_sentence
from tokenizers import Tokenizer

from voicehost.speech.whisper_decoder import Attended, State, TextDecoder
from voicehost.words import NUMBER_WORDS, plain_words

NUMBERS = {**NUMBER_WORDS, "sixteen": "16", "twenty": "20"}
DIGITS = {digits: word for word, digits in NUMBERS.items()}
# A path this far below the best sentence ended so far, in total, ends the search: a word that
# was said costs a small fraction of a nat a token, one that was not costs several.
LAGGING_NATS = 6.0
# A search whose best path has cost this much per token after this many tokens, with no
# sentence ended yet, ends there: said sentences cost under 2 nats a token by then, though
# a word the decoder did not expect ("brew") may cost 10 at the start.
HOPELESS_NATS = -3.0
HOPELESS_AFTER = 10
GRAPH_WIDTH = 8  # paths kept at every token
GRAPH_LONGEST = 64  # tokens
GRAPH_FLOOR = 0.5
# The sentence found is taken when it costs at most SCORE_FLOOR nats per token and scores at
# most FREE_GAP_FLOOR below Whisper's free transcript: the pair that took the most orders right
# with chatter, noise and digits taken ≤ 2 % on the coffee benchmark's tune half
# (scripts/bench_intent.py --fit; docs/bench-intent.md).
SCORE_FLOOR = -2.0
FREE_GAP_FLOOR = -1.5
# An answer heard wrapped in fillers is taken when it costs at most SCORE_FLOOR nats per token
# and at most FILLED_GAP_FLOOR nats in all more than the free transcript, chosen on the tune
# halves of the phrasing corpus and of the hearing corpus's chatter (docs/phrasings.md,
# "Answers wrapped in fillers").
FILLED_GAP_FLOOR = -4.0
FILLERS_BEFORE = 2  # "um, i think it's"
FILLERS_AFTER = 1  # "please"
FILLERS_BETWEEN = 1  # "no, i'm pointing at tiger"
PRONOUNS = ("i", "i'd", "i'll", "i'm", "i've")  # always written with a capital


@dataclass
class WordGraph:
    """Sentences as a graph of words: node 0 opens every sentence, `final` nodes end one."""

    arcs: list[list[tuple[str, int]]] = field(default_factory=lambda: [[]])
    skips: list[list[int]] = field(default_factory=lambda: [[]])  # arcs that say nothing
    final: set[int] = field(default_factory=set)

    @classmethod
    def of(cls, templates: Sequence[str], lists: Mapping[str, Sequence[str]]) -> WordGraph:
        """The graph of hassil `templates` whose {lists} take the values in `lists`."""
        graph = cls()
        for template in templates:
            graph.final.add(graph._add(parse_sentence(template).expression, 0, lists))
        return graph

    @classmethod
    def wrapped(cls, phrases: Sequence[Sequence[str]], fillers: Sequence[Sequence[str]], *,
                before: int = FILLERS_BEFORE, after: int = FILLERS_AFTER,
                between: int = FILLERS_BETWEEN) -> WordGraph:
        """The graph of `phrases` (each a sequence of words), each optionally wrapped in up to
        `before` `fillers` before it and `after` after it, and with up to `between` of them
        between two of its words: "um i think it's owl please", "no i'm pointing at owl"."""
        graph = cls()
        at = graph._fillers(fillers, 0, before)
        end = graph._node()
        for words in phrases:
            node = at
            for word in words[:-1]:
                node = graph._fillers(fillers, graph._words([word], node), between)
            graph._words(words[-1:], node, end)
        graph.final.add(graph._fillers(fillers, end, after))
        return graph

    def _fillers(self, fillers: Sequence[Sequence[str]], at: int, most: int) -> int:
        for _ in range(most):
            after = self._node()
            self.skips[at].append(after)
            for words in fillers:
                self._words(words, at, after)
            at = after
        return at

    def _node(self) -> int:
        self.arcs.append([])
        self.skips.append([])
        return len(self.arcs) - 1

    def _words(self, words: Sequence[str], at: int, to: int | None = None) -> int:
        for k, word in enumerate(words):
            after = to if to is not None and k == len(words) - 1 else self._node()
            self.arcs[at].append((word, after))
            at = after
        if not words and to is not None:
            self.skips[at].append(to)
            return to
        return at

    def _add(self, expression: Expression, at: int,
             lists: Mapping[str, Sequence[str]]) -> int:
        if isinstance(expression, TextChunk):
            return self._words(expression.text.lower().split(), at)
        if isinstance(expression, Words) and not isinstance(expression, Alternative):
            for item in expression.items:
                at = self._add(item, at, lists)
            return at
        end = self._node()
        if isinstance(expression, ListReference):
            for value in lists[expression.list_name]:
                self._words(value.lower().split(), at, end)
            return end
        if isinstance(expression, Alternative):
            for item in expression.items:
                self.skips[self._add(item, at, lists)].append(end)
            if expression.is_optional:
                self.skips[at].append(end)
            return end
        raise ValueError(f"templates with {type(expression).__name__} are not searched")

    def closure(self, node: int) -> frozenset[int]:
        """`node` and every node its skips reach."""
        seen, todo = {node}, [node]
        while todo:
            for after in self.skips[todo.pop()]:
                if after not in seen:
                    seen.add(after)
                    todo.append(after)
        return frozenset(seen)


def written_forms(word: str, first: bool) -> list[str]:
    """How Whisper may write `word` after a space (or first): as it is, capitalized, as
    digits, and (not first) joined to the word before by a hyphen."""
    if word in PRONOUNS:
        forms = [" " + word.capitalize()]
    else:
        forms = [" " + word, " " + word.capitalize()]
        if word in NUMBERS:
            forms.append(" " + NUMBERS[word])
    if not first:
        forms += ["-" + f[1:] for f in forms if not f[1:].isdigit()]
    return forms


class TokenGraph:
    """A WordGraph written in Whisper's tokens. A state of the search is a set of nodes (the
    graph is not deterministic); `step` is computed once per state and kept."""

    def __init__(self, graph: WordGraph, tokenizer: Tokenizer, pause_tokens: Sequence[int]
                 ) -> None:
        self.arcs: list[list[tuple[int, int]]] = [[] for _ in graph.arcs]
        self.start = frozenset({0})
        self.word_nodes = len(graph.arcs)  # nodes between words (a comma may stand there)
        closures = [graph.closure(n) for n in range(len(graph.arcs))]
        self.final = {n for n, reached in enumerate(closures) if reached & graph.final}
        self.pauses = tuple(pause_tokens)
        self.steps: dict[frozenset[int], dict[int, frozenset[int]]] = {}
        encoded: dict[str, tuple[int, ...]] = {}
        for node in range(len(graph.arcs)):
            for inner in closures[node]:
                for word, after in graph.arcs[inner]:
                    for form in written_forms(word, first=node == 0):
                        tokens = encoded.get(form)
                        if tokens is None:
                            tokens = tuple(tokenizer.encode(form,
                                                            add_special_tokens=False).ids)
                            encoded[form] = tokens
                        self._chain(node, tokens, after)

    def _chain(self, at: int, tokens: Sequence[int], to: int) -> None:
        for k, token in enumerate(tokens):
            if k == len(tokens) - 1:
                after = to
            else:
                self.arcs.append([])
                after = len(self.arcs) - 1
            self.arcs[at].append((token, after))
            at = after

    def step(self, state: frozenset[int]) -> dict[int, frozenset[int]]:
        """Each token allowed after `state`, and the state it leads to."""
        known = self.steps.get(state)
        if known is not None:
            return known
        after: dict[int, set[int]] = {}
        for node in state:
            for token, to in self.arcs[node]:
                after.setdefault(token, set()).add(to)
            if 0 < node < self.word_nodes:
                for token in self.pauses:
                    after.setdefault(token, set()).add(node)
        known = {token: frozenset(to) for token, to in after.items()}
        self.steps[state] = known
        return known

    def ends(self, state: frozenset[int]) -> bool:
        return bool(state & self.final)


@dataclass(frozen=True)
class GraphEvidence:
    """What the grammar's best sentence's confidence is computed from."""

    score: float  # log P(its tokens, then the end), per token
    free_gap: float  # score less the free greedy transcript's
    score_floor: ClassVar[float] = SCORE_FLOOR
    gap_floor: ClassVar[float] = FREE_GAP_FLOOR

    def confidence(self) -> float:
        """0..1, over the floor (0.5) where the score and the gap are both over theirs."""
        nearest = min(self.score - self.score_floor, self.free_gap - self.gap_floor)
        return 1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, 4.0 * nearest))))


@dataclass(frozen=True)
class FillerEvidence(GraphEvidence):
    """The same for an answer heard wrapped in fillers (`WordGraph.wrapped`), where the gap to
    the free transcript is in total, not per token: a word the player did not say, slipped in
    among likely fillers, costs little per token but several nats in all."""

    gap_floor: ClassVar[float] = FILLED_GAP_FLOOR


@dataclass(frozen=True)
class Found:
    """The likeliest sentence of the grammar: its tokens and log P(tokens, then the end),
    per token."""

    tokens: tuple[int, ...]
    score: float

    @property
    def total(self) -> float:
        return self.score * (len(self.tokens) + 1)


def words_of(text: str) -> str:
    """A found sentence, as Whisper wrote it, in the grammar's words."""
    return plain_words(re.sub(r"\d+", lambda m: DIGITS.get(m.group(), m.group()), text))


def search(decoder: TextDecoder, cross: Attended, start: State, graph: TokenGraph,
           ends: Sequence[int], *, width: int = GRAPH_WIDTH, longest: int = GRAPH_LONGEST
           ) -> Found | None:
    """The beam search: at every token the `width` likeliest paths (in total log P) that the
    graph allows are kept; a path that may end is scored with the text ending there, per
    token, and the best so scored is the sentence. None when no path ends."""
    paths: list[tuple[tuple[int, ...], frozenset[int]]] = [((), graph.start)]
    said = np.zeros(1)
    best: Found | None = None
    state = start
    for _ in range(longest):
        grown: list[tuple[float, int, int, frozenset[int]]] = []
        for row, (tokens, at) in enumerate(paths):
            if graph.ends(at) and tokens:
                ended = (said[row] + float(np.logaddexp.reduce(state.next_token[row, ends]))
                         ) / (len(tokens) + 1)
                if best is None or ended > best.score:
                    best = Found(tokens, ended)
            for token, to in graph.step(at).items():
                grown.append((said[row] + float(state.next_token[row, token]), row, token, to))
        if not grown:
            break
        grown.sort(key=lambda g: -g[0])
        grown = grown[:width]
        if best is not None and grown[0][0] < best.total - LAGGING_NATS:
            break  # the words still open were not said: each costs nats, not a fraction
        said_so_far = len(paths[0][0]) + 1
        if best is None and said_so_far > HOPELESS_AFTER and \
                grown[0][0] < HOPELESS_NATS * said_so_far:
            break  # no sentence of the grammar was said
        rows = np.array([g[1] for g in grown])
        state = decoder.extend(cross, state, rows, np.array([[g[2]] for g in grown]))
        paths = [((*paths[g[1]][0], g[2]), g[3]) for g in grown]
        said = np.array([g[0] for g in grown])
    return best
