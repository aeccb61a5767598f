"""Whisper's free greedy transcript of an utterance: what it writes with no phrase offered, cut at
its first sentence end or repetition, and scored per token the way the phrases are, so that the
two compare (whisper_engine.py)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import takewhile
from typing import Any

import numpy as np


def log_softmax(logits: np.ndarray) -> np.ndarray:
    shifted = logits - logits.max(axis=-1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))


@dataclass(frozen=True)
class Free:
    """Whisper's free greedy transcript, up to its first sentence end or repetition."""

    tokens: tuple[int, ...]
    looped: bool  # it said the utterance over: `tokens` is cut
    score: float  # log P(tokens, then the end), per token
    no_speech: float  # Whisper's no-speech probability


class FreeDecoder:
    """Greedy decoding on the CTranslate2 model, after `prefix`; `end_ids` end a sentence
    (the end of text first)."""

    def __init__(self, model: Any, tokenizer: Any, prefix: list[int], end_ids: list[int]
                 ) -> None:
        self.model, self.tokenizer, self.prefix, self.end_ids = model, tokenizer, prefix, end_ids
        self.end_of_text = end_ids[0]

    def transcript(self, encoded: object, max_length: int) -> Free:
        """Whisper's free greedy transcript of `encoded`, up to its first sentence."""
        result = self.model.generate(encoded, [self.prefix], beam_size=1,
                                     max_length=max_length, return_no_speech_prob=True,
                                     return_logits_vocab=True)[0]
        steps = log_softmax(np.stack([np.asarray(x) for x in result.logits[0]]))
        tokens, looped = self.first_sentence(result.sequences_ids[0])
        return Free(tokens, looped, self._score(tokens, steps) / (len(tokens) + 1),
                    float(result.no_speech_prob))

    def _score(self, tokens: Sequence[int], steps: np.ndarray) -> float:
        """The transcript's log P(tokens, then the end), from its own decoding's logits."""
        said = float(steps[np.arange(len(tokens)), list(tokens)].sum())
        if len(tokens) >= len(steps):
            return said
        return said + float(np.logaddexp.reduce(steps[len(tokens), self.end_ids]))

    def first_sentence(self, tokens: Sequence[int]) -> tuple[tuple[int, ...], bool]:
        """The transcript up to its first sentence end or repetition, and whether it
        repeated: with the short padding Whisper tends to say the utterance over and over,
        from any of its words on ("and to module two add to module two add"). A repetition
        begins where two tokens in a row come again, or where the transcript starts over
        from its first token: one word said twice is none ("2 mechanics and 2 energy"). A
        point before a digit is a decimal point, not a sentence end ("1.5")."""
        kept: list[int] = []
        pairs: set[tuple[int, int]] = set()
        for index, token in enumerate(tokens):
            if kept and (kept[-1], token) in pairs:
                return tuple(kept[:-1]), True
            if kept and token == kept[0] and self._starts_over(kept, tokens[index:]):
                return tuple(kept), True
            if token >= self.end_of_text:
                break
            if kept:
                pairs.add((kept[-1], token))
            kept.append(token)
            if token in self.end_ids and not self._digit_follows(tokens, index):
                break
        return tuple(kept), False

    def _starts_over(self, kept: Sequence[int], rest: Sequence[int]) -> bool:
        """Whether `rest` says `kept` again from its start, as far as either goes."""
        said = list(takewhile(lambda token: token < self.end_of_text, rest))[:len(kept)]
        return list(kept[:len(said)]) == said

    def _digit_follows(self, tokens: Sequence[int], index: int) -> bool:
        following = tokens[index + 1] if index + 1 < len(tokens) else self.end_of_text
        return (following < self.end_of_text
                and self.tokenizer.decode([following])[:1].isdigit())
