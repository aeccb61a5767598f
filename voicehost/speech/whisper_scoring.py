"""The offered phrases scored against one utterance by Whisper's decoder, and ranked.

Each phrase's tokens are forced (teacher forcing, over the phrases' trie: whisper_decoder.py):
the log-probability of its tokens and of the text ending there, per token. Per token, not in
total: a total favours short phrases, and "discard" beat "discard a mechanic" said in full
(docs/hearing.md, "What moved it"). Where the free transcript wraps its answer in fillers ("I
think it's … please"), the phrases are scored again between them; the letters head (letters.py)
adds its share, and rescues the phrases it likes best from the decoder's pruning. A phrase refused
that way may be heard again as a small grammar, wrapped in the fillers people say around it
(`with_fillers`). What the phrases' words mean is the reading's (`PhraseSet.reading`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from rapidfuzz import fuzz

from voicehost.speech import letters
from voicehost.speech.base import PhraseReading
from voicehost.speech.confidence import MARGIN_CAP, Evidence, confidence
from voicehost.speech.transcripts import spoken_forms
from voicehost.speech.whisper_decoder import BEAM_WIDTH, Attended, State, TextDecoder
from voicehost.speech.whisper_free import Free
from voicehost.speech.whisper_grammar import (
    GRAPH_FLOOR,
    FillerEvidence,
    TokenGraph,
    WordGraph,
    search,
    words_of,
)
from voicehost.words import normalize, plain_words

MAX_ALTERNATIVES = 3
# An answer heard wrapped in fillers may run this much longer than the free transcript: one that
# says fewer words than it is refused anyway.
FILLED_EXTRA_TOKENS = 4
WRAPPED_TRIES = 4  # phrases heard again wrapped in fillers, at most: each is a search
# Branches of the phrase trie this far below the best at their depth are not scored: at the
# first token it changed no best phrase and nearly halves the time on long lists; deeper, while
# more than PRUNE_AFTER written forms are left (docs/hearing.md, "Whisper's settings").
PRUNE_NATS = 8.0
PRUNE_AFTER = 16
# The letters head's share in ranking the phrases (letters.py), and how many of its likeliest
# phrases the decoder scores in full even where its pruning dropped them.
W_LETTERS = 0.05
LETTERS_RESCUED = 3


@dataclass(frozen=True)
class PhraseSet:
    """The offered phrases, each with the token sequences of its written forms."""

    phrases: tuple[str, ...]  # as the caller spelled them
    tokens: tuple[tuple[int, ...], ...]  # every written form of every phrase
    owner: tuple[int, ...]  # which phrase each token sequence spells
    inner: tuple[tuple[int, ...], ...]  # the written forms as said after other words
    letters: tuple[tuple[int, ...], ...]  # every phrase spelled for the letters head
    reading: PhraseReading  # the phrases as people say them


@dataclass(frozen=True)
class Scores:
    """What the decoder made of one utterance (kept for diagnostics and tuning)."""

    phrase_scores: np.ndarray  # per phrase, best written form: log P(tokens, then the end),
    # per token
    free_text: str  # the free greedy transcript
    free_score: float  # its log P(tokens, then the end) per token, scored like the phrases
    free_length: int  # its tokens
    no_speech: float  # Whisper's no-speech probability
    looped: bool = False  # the free transcript said the utterance over: `free_text` is cut
    # log P(the text ends | the best phrase's words so far), at the likeliest of its earlier
    # word boundaries ("at player" of "at player three"); -inf for a phrase of one word
    ends_inside: float = -math.inf
    # per phrase, log P(its letters, wrapped in the free transcript's fillers or not) by the
    # letters head, and the log P of that head's likeliest reading with no phrase offered
    letter_scores: np.ndarray | None = None
    letters_free: float = 0.0

    def letters_share(self) -> np.ndarray:
        """Log-probabilities of the offered phrases under the letters head, among themselves
        (0 for each without the head)."""
        if self.letter_scores is None:
            return np.zeros_like(self.phrase_scores)
        return self.letter_scores - np.logaddexp.reduce(self.letter_scores)

    def fused(self) -> np.ndarray:
        """What ranks the phrases: the decoder's score per token, plus the letters head's
        log-probability of the phrase among those offered."""
        return self.phrase_scores + W_LETTERS * self.letters_share()


@dataclass(frozen=True)
class Ranked:
    """The phrases that were scored with their confidence, best first (the best-scoring
    phrase, then the others by confidence), and the best phrase's evidence."""

    alternatives: list[tuple[str, float]]
    evidence: Evidence | None  # the best phrase's, for tuning
    pair_confidence: float = 0.0  # the best phrase's, were the runner-up the same option

    def wavering(self, floor: float) -> tuple[tuple[str, float], ...]:
        """When the best phrase was refused only because the runner-up came close: both, best
        first (the audio is surely one of the two, but not surely which)."""
        ranked = self.alternatives
        if len(ranked) < 2 or ranked[0][1] >= floor or self.pair_confidence < floor:
            return ()
        return (ranked[0], max(ranked[1:], key=lambda pair: pair[1]))


class PhraseScorer:
    """Scores a PhraseSet against an utterance's encoder frames. `letters_head` None: the
    decoder alone."""

    def __init__(self, decoder: TextDecoder, tokenizer: Any, prefix: list[int],
                 end_ids: list[int], pause_ids: list[int],
                 letters_head: letters.LettersHead | None, prune_nats: float = PRUNE_NATS,
                 beam_width: int = BEAM_WIDTH) -> None:
        self.decoder, self.tokenizer, self.prefix = decoder, tokenizer, prefix
        self.end_ids, self.pause_ids, self.letters = end_ids, pause_ids, letters_head
        self.prune_nats, self.beam_width = prune_nats, beam_width
        self.attended: tuple[Attended, State] | None = None  # the last scoring's

    def phrase_set(self, phrases: tuple[str, ...], reading: PhraseReading) -> PhraseSet:
        tokens, owner, inner = [], [], []
        for index, phrase in enumerate(phrases):
            for form in spoken_forms(phrase):
                tokens.append(tuple(self.tokenizer.encode(form, add_special_tokens=False).ids))
                within = form if form.startswith(" I ") or form == " I" else form.lower()
                inner.append(tuple(self.tokenizer.encode(within,
                                                         add_special_tokens=False).ids))
                owner.append(index)
        return PhraseSet(phrases, tuple(tokens), tuple(owner), tuple(inner),
                         tuple(letters.spelled(p) for p in phrases), reading)

    def score(self, phrases: PhraseSet, frames: np.ndarray, free: Free) -> Scores:
        """Score the phrases that can still win against `frames` (the encoder's output),
        beside `free`, the same audio's free transcript."""
        cross = self.decoder.attend(frames)
        start = self.decoder.start(cross, self.prefix)
        self.attended = (cross, start)
        per_sequence = self._per_token(cross, start, phrases.tokens)
        wrapped, wrapped_start = None, start
        wrapping = self._wrapping(phrases, free.tokens)
        heard = self._hear_letters(phrases, frames, wrapping)
        if wrapping is not None:
            before, after = wrapping
            if before:
                wrapped_start = self.decoder.extend(cross, start, np.zeros(1, int),
                                                    np.array([before]))
            wrapped = self._per_token(cross, wrapped_start,
                                      [(*t, *after) for t in phrases.inner])
            per_sequence = np.maximum(per_sequence, wrapped)
        owner = np.array(phrases.owner)
        if heard is not None:
            per_sequence = self._unpruned(phrases, cross, (start, wrapped_start), wrapping,
                                          per_sequence, heard[0])
        per_phrase = np.full(len(phrases.phrases), -np.inf)
        np.maximum.at(per_phrase, owner, per_sequence)
        scores = Scores(per_phrase, self.tokenizer.decode(list(free.tokens)).strip(),
                        free.score, len(free.tokens), free.no_speech, free.looped,
                        **({} if heard is None else {"letter_scores": heard[0],
                                                     "letters_free": heard[1]}))
        best_phrase = int(np.argmax(scores.fused()))
        forms = np.flatnonzero(owner == best_phrase)
        best = int(forms[np.argmax(per_sequence[forms])])
        said = ((wrapped_start, phrases.inner[best])
                if wrapped is not None and wrapped[best] >= per_sequence[best]
                else (start, phrases.tokens[best]))
        return replace(scores, ends_inside=self._ends_inside(cross, *said))

    def with_fillers(self, phrases: PhraseSet, best: str, scores: Scores
                     ) -> tuple[str, float] | None:
        """An offered phrase heard again as a grammar, with up to two fillers before it, one
        after and one between two of its words, said any way the matcher reads as it: "I will
        block cheetah please", "no, I'm pointing at tiger", where
        "block cheetah" alone scored low against the audio's extra words. The phrases tried are
        the best one, then those whose words the free transcript holds, longest first: the one
        it reads as whole ("throw away a block" for "discard a block"), then parts of it ("I'd
        see yes" holds "yes"). The sentence found, read beside the free transcript, and its
        confidence; None when none is taken.

        Only where the free transcript has words to wrap an answer in (two or more), and only a
        sentence that is not the phrase as offered: the decoder already scored that one. A
        sentence with fewer words than the free transcript leaves some of what was said out."""
        free_words = words_of(scores.free_text).split()
        if len(free_words) < 2:
            return None
        tried = [best, *phrases.reading.held(free_words)]
        for phrase in list(dict.fromkeys(tried))[:WRAPPED_TRIES]:
            heard = self._wrapped(phrases.reading, phrase, scores, len(free_words))
            if heard is not None:
                return heard
        return None

    def _wrapped(self, reading: PhraseReading, phrase: str, scores: Scores, free_words: int
                 ) -> tuple[str, float] | None:
        assert self.attended is not None
        ways = reading.ways(phrase)
        if not ways:
            return None
        graph = TokenGraph(WordGraph.wrapped(ways, reading.fillers()), self.tokenizer,
                           self.pause_ids)
        found = search(self.decoder, *self.attended, graph, self.end_ids,
                       longest=scores.free_length + FILLED_EXTRA_TOKENS)
        if found is None:
            return None
        said = words_of(self.tokenizer.decode(list(found.tokens)))
        free_total = scores.free_score * (scores.free_length + 1)
        sure = FillerEvidence(found.score, found.total - free_total).confidence()
        if (sure < GRAPH_FLOOR or said == normalize(phrase)
                or len(said.split()) < free_words):
            return None
        return reading.with_free(phrase, said, scores.free_text, scores.looped), sure

    def _hear_letters(self, phrases: PhraseSet, frames: np.ndarray,
                      wrapping: tuple[tuple[int, ...], tuple[int, ...]] | None
                      ) -> tuple[np.ndarray, float] | None:
        """The letters head's score of every phrase (plain, or in the free transcript's
        fillers when it has some, whichever is likelier) and the log-probability of its free
        reading; None when the head is not used."""
        if self.letters is None:
            return None
        log_probs = self.letters.log_probs(frames)
        spelled = list(phrases.letters)
        if wrapping is not None:
            before, after = (letters.spelled(plain_words(self.tokenizer.decode(list(part))))
                             for part in wrapping)
            spelled += [letters.wrapped(before, p, after) for p in phrases.letters]
        scores = letters.ctc_scores(log_probs, spelled)
        if wrapping is not None:
            count = len(phrases.letters)
            scores = np.maximum(scores[:count], scores[count:])
        return scores, letters.best_path(log_probs)[1]

    def _unpruned(self, phrases: PhraseSet, cross: Attended, starts: tuple[State, State],
                  wrapping: tuple[tuple[int, ...], tuple[int, ...]] | None,
                  per_sequence: np.ndarray, letter_scores: np.ndarray) -> np.ndarray:
        """`per_sequence` with the written forms of the letters head's likeliest phrases
        scored in full where the decoder's pruning dropped them: the crowd can mislead the
        decoder's first tokens."""
        owner = np.array(phrases.owner)
        liked = np.argsort(-letter_scores, kind="stable")[:LETTERS_RESCUED]
        dropped = [k for k in np.flatnonzero(np.isin(owner, liked))
                   if not np.isfinite(per_sequence[k])]
        if not dropped:
            return per_sequence
        rescored = per_sequence.copy()
        plain = self._per_token(cross, starts[0], [phrases.tokens[k] for k in dropped],
                                prune=False)
        rescored[dropped] = plain
        if wrapping is not None:
            inner = self._per_token(cross, starts[1],
                                    [(*phrases.inner[k], *wrapping[1]) for k in dropped],
                                    prune=False)
            rescored[dropped] = np.maximum(plain, inner)
        return rescored

    def _ends_inside(self, cross: Attended, start: State, form: tuple[int, ...]) -> float:
        """The log-probability of the text ending after `start` and the first words of `form`,
        at the likeliest of its word boundaries before the last word; -inf for one word."""
        bounds = [k for k in range(1, len(form))
                  if self.tokenizer.id_to_token(form[k]).startswith("Ġ")]
        if not bounds:
            return -math.inf
        steps = self.decoder.along(cross, start, form[:bounds[-1]])
        return float(np.logaddexp.reduce(steps[bounds][:, self.end_ids], axis=1).max())

    def _per_token(self, cross: Attended, start: State, tokens: Sequence[tuple[int, ...]],
                   prune: bool = True) -> np.ndarray:
        """Each token sequence's log P(tokens, then the end) after `start`, per token; -inf
        where it was pruned."""
        totals = self.decoder.score_trie(cross, start, tokens, self.end_ids,
                                         prune_nats=self.prune_nats if prune else math.inf,
                                         prune_after=PRUNE_AFTER, width=self.beam_width)
        return totals / (np.array([len(t) for t in tokens]) + 1)

    def _wrapping(self, phrases: PhraseSet, free: Sequence[int]
                  ) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
        """The free transcript's tokens before and after its answer that are words people
        wrap answers in ("I think it's", "please"), at word boundaries; None when it has
        none. Phrases are scored again between them: the fillers as optional branches."""
        texts = [self.tokenizer.decode([t]) for t in free]
        bounds = [i for i in range(1, len(free)) if texts[i].startswith(" ")]
        spoken = [i for i in range(len(free)) if plain_words(texts[i])]

        def skipped(part: Sequence[int]) -> bool:
            return phrases.reading.wraps(
                plain_words(self.tokenizer.decode(list(part))).split())

        before = max((i for i in bounds if skipped(free[:i])), default=0)
        last = spoken[-1] + 1 if spoken else len(free)
        after = min((i for i in bounds if i > before and skipped(free[i:last])), default=last)
        if not before and after == last:
            return None
        return tuple(free[:before]), tuple(free[after:last])


def rank(phrases: PhraseSet, scores: Scores) -> Ranked:
    """The phrases that were scored, with their confidence, best first."""
    offered, reading = phrases.phrases, phrases.reading
    said = reading.read(plain_words(scores.free_text).split())
    # the phrase is compared with what was said around the fillers
    free = " ".join(said) or plain_words(scores.free_text)
    ranked: list[tuple[str, float]] = []
    best: Evidence | None = None
    pair_confidence = 0.0
    fused, share = scores.fused(), scores.letters_share()
    for i in np.argsort(-fused, kind="stable")[:MAX_ALTERNATIVES]:
        if not np.isfinite(fused[i]):
            break
        rivals = np.delete(fused, i)
        evidence = Evidence(
            score=float(scores.phrase_scores[i]),
            free_gap=0.0 if free == plain_words(offered[i]) or not free
            else float(scores.phrase_scores[i] - scores.free_score),
            margin=float(fused[i] - rivals.max()) if len(rivals) else 10.0,
            words=len(normalize(offered[i]).split()),
            similarity=fuzz.ratio(free, normalize(offered[i])) / 100.0,
            letters_share=float(share[i]),
            letters_gap=0.0 if scores.letter_scores is None
            else min(0.0, float(scores.letter_scores[i] - scores.letters_free)),
            around=float(reading.around(said, offered[i])))
        ranked.append((offered[i], confidence(evidence)))
        if not ranked[1:]:  # the best phrase, as if the runner-up were the same option
            best = evidence
            third = np.sort(rivals)[-2] if len(rivals) > 1 else -np.inf
            pair_confidence = confidence(replace(
                evidence, margin=min(MARGIN_CAP, float(evidence.score - third))))
    return Ranked(ranked[:1] + sorted(ranked[1:], key=lambda pair: -pair[1])
                  or [(offered[0], 0.0)], best, pair_confidence)
