"""How sure Whisper is of its best phrase: a logistic fit over what the scoring found."""

from __future__ import annotations

import math
from dataclasses import dataclass

# the lowest that kept wrong intents ≤ 1 % and out-of-option answers ≤ 2 % on the tune half, for
# real people, the phrasings and the synthetic voices each
DEFAULT_FLOOR = 0.45
# Logistic confidence fitted on the corpus's tune half (scripts/fit_whisper_confidence.py),
# reported on the held-out half (docs/hearing.md, "The letters head"). The letters terms say
# how much of the head's belief the phrase holds among those offered, and how far its letters
# fall below what the head would spell freely; "around" that the free transcript is the phrase
# in words the matcher reads ("yes, I do" for "yes").
W_SCORE, W_FREE_GAP, W_MARGIN, W_WORDS, W_SIMILARITY = 0.189, 0.197, 0.184, 0.796, 0.250
W_LETTERS_SHARE, W_LETTERS_GAP, W_AROUND = 0.062, 0.109, 2.184
BIAS = -0.149
MARGIN_CAP = 10.0
LETTERS_CAP = 30.0


@dataclass(frozen=True)
class Evidence:
    """What a phrase's confidence is computed from."""

    score: float  # log P(phrase, then the end), per token
    free_gap: float  # score less the free transcript's; 0 when that transcript is the phrase
    margin: float  # score less the best other phrase's
    words: int
    similarity: float  # 0..1, the free transcript's spelling against the phrase's
    letters_share: float = 0.0  # log P(phrase | the letters head, the phrases offered)
    letters_gap: float = 0.0  # its letters' log P less the head's free reading's, at most 0
    around: float = 0.0  # 1 when the free transcript is the phrase among the phrases' words


def confidence(evidence: Evidence) -> float:
    """0..1: a logistic fit telling right phrases from wrong ones and from chatter."""
    logit = (W_SCORE * evidence.score + W_FREE_GAP * min(evidence.free_gap, 0.0)
             + W_MARGIN * min(evidence.margin, MARGIN_CAP) + W_WORDS * evidence.words
             + W_SIMILARITY * evidence.similarity
             + W_LETTERS_SHARE * max(evidence.letters_share, -LETTERS_CAP)
             + W_LETTERS_GAP * max(evidence.letters_gap, -LETTERS_CAP)
             + W_AROUND * evidence.around + BIAS)
    return 1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, logit))))
