"""The table's own ear: letters heard from Whisper's encoder by a small head trained here.

Whisper tiny.en's encoder is kept as it is; a head of three convolutions over its frames (one
every 20 ms), trained by scripts/train_letters.py on synthetic voices in crowds, noise and
echo, gives each frame the probability of every letter, of a word break and of nothing (CTC).
A phrase's score is the log-probability of its letters under CTC, every offered phrase at once;
the head was trained to spell the loudest talker, so the crowd behind a player weighs less
than it does in Whisper's own decoder (docs/hearing.md, "The letters head").

The weights ship with voicehost and are checked against their pinned SHA-256 before loading.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from functools import cache
from pathlib import Path

import numpy as np

from voicehost.speech.whisper_decoder import gelu, layer_norm

WEIGHTS = Path(__file__).with_name("letters.npz")
WEIGHTS_SHA256 = "00ae946d9efa1dbd6972303912b510cc1885c072589396807eab1083659e8dff"
ALPHABET = " '" + "abcdefghijklmnopqrstuvwxyz"  # label k + 1; label 0 is CTC's blank
BLANK = 0
WORD_BREAK = (ALPHABET.index(" ") + 1,)


class LettersError(Exception):
    """The head's weights are missing or not the pinned ones; one sentence for the user."""


def spelled(phrase: str) -> tuple[int, ...]:
    """A phrase's labels: its letters and word breaks; anything else is not spelled."""
    kept = "".join(c if c in ALPHABET else " " for c in phrase.lower())
    return tuple(ALPHABET.index(c) + 1 for c in " ".join(kept.split()))


def wrapped(before: Sequence[int], phrase: Sequence[int], after: Sequence[int]
            ) -> tuple[int, ...]:
    """A spelled phrase inside the spelled words said before and after it, a word break
    between each."""
    joined: list[int] = []
    for part in (before, phrase, after):
        if part:
            joined += [*(WORD_BREAK if joined else ()), *part]
    return tuple(joined)


class LettersHead:
    """Encoder frames (T × 384) → log-probabilities of the labels (T × 29)."""

    def __init__(self, path: Path = WEIGHTS, sha256: str = WEIGHTS_SHA256) -> None:
        if not path.is_file():
            raise LettersError(f"{path} is missing: reinstall voicehost.")
        if hashlib.sha256(path.read_bytes()).hexdigest() != sha256:
            raise LettersError(f"{path} does not match its pinned SHA-256: reinstall voicehost.")
        with np.load(path) as stored:
            weights = {name: stored[name].astype(np.float32) for name in stored.files}
        self.into = (weights["inp.weight"].T, weights["inp.bias"])
        self.convolutions = []
        for k in range(sum(name.startswith("convs.") and name.endswith(".weight")
                           for name in weights)):
            kernel = weights[f"convs.{k}.weight"]  # out × in × width
            self.convolutions.append((
                (weights[f"norms.{k}.weight"], weights[f"norms.{k}.bias"]),
                kernel.transpose(2, 1, 0).reshape(-1, kernel.shape[0]),
                weights[f"convs.{k}.bias"], kernel.shape[2]))
        self.out = (weights["out.weight"].T, weights["out.bias"])

    def log_probs(self, frames: np.ndarray) -> np.ndarray:
        x = gelu(np.asarray(frames, np.float32) @ self.into[0] + self.into[1])
        for norm, kernel, bias, width in self.convolutions:
            y = layer_norm(x, *norm)
            padded = np.pad(y, ((width // 2, width // 2), (0, 0)))
            windows = np.concatenate([padded[k:k + len(x)] for k in range(width)], axis=1)
            x = x + gelu(windows @ kernel + bias)
        logits = x @ self.out[0] + self.out[1]
        top = logits.max(-1, keepdims=True)
        return logits - top - np.log(np.exp(logits - top).sum(-1, keepdims=True))


@cache
def head() -> LettersHead:
    """The shipped head, loaded once per process."""
    return LettersHead()


def ctc_scores(log_probs: np.ndarray, sequences: Sequence[Sequence[int]]) -> np.ndarray:
    """log P(labels | frames) under CTC for every label sequence, all in one pass over the
    frames: the forward algorithm in probabilities, rescaled at every frame so that nothing
    underflows, batched over the sequences."""
    count = len(sequences)
    longest = max(1, max(len(s) for s in sequences))
    states = 2 * longest + 1  # blank, label, blank, label, ..., blank
    label = np.zeros((count, states), int)
    for n, sequence in enumerate(sequences):
        label[n, 1:2 * len(sequence):2] = sequence
    ends = np.array([2 * len(s) for s in sequences])  # the last state, a blank
    valid = np.arange(states)[None, :] <= ends[:, None]
    # a label may be reached from two states back unless it repeats the label there
    skips = np.zeros((count, states), bool)
    skips[:, 2:] = (label[:, 2:] != BLANK) & (label[:, 2:] != label[:, :-2])
    probs = np.exp(log_probs - log_probs.max(-1, keepdims=True))
    scale = log_probs.max(-1).sum()
    alpha = np.zeros((count, states))
    alpha[:, 0] = probs[0, BLANK]
    alpha[:, 1] = np.where(ends > 0, probs[0, label[:, 1]], 0.0)
    logs = np.zeros(count)
    for frame in probs[1:]:
        moved = alpha.copy()
        moved[:, 1:] += alpha[:, :-1]
        moved[:, 2:] += np.where(skips[:, 2:], alpha[:, :-2], 0.0)
        alpha = moved * frame[label] * valid
        total = alpha.sum(axis=1)
        alive = total > 0
        alpha[alive] /= total[alive, None]
        with np.errstate(divide="ignore"):
            logs += np.log(total)
    rows = np.arange(count)
    last = alpha[rows, ends] + np.where(ends > 0, alpha[rows, np.maximum(ends - 1, 0)], 0.0)
    with np.errstate(divide="ignore"):
        return logs + np.log(last) + scale


def best_path(log_probs: np.ndarray) -> tuple[str, float]:
    """The likeliest label at every frame, read as text, and its log-probability: what the
    head hears with no phrase offered, the reference a phrase's score is compared with."""
    best = log_probs.argmax(-1)
    kept = [int(b) for k, b in enumerate(best) if b != BLANK and (k == 0 or b != best[k - 1])]
    text = " ".join("".join(ALPHABET[b - 1] for b in kept).split())
    return text, float(log_probs.max(-1).sum())
