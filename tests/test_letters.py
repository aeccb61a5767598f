"""The letters head (voicehost/speech/letters.py): its CTC scoring against a brute force, its
pinned weights, and the real head on Whisper's real encoder hearing synthesized players."""

from __future__ import annotations

import hashlib
import itertools
import shutil
from pathlib import Path

import numpy as np
import pytest

from voicehost.intents.understand import reading_of
from voicehost.lab.conditions import with_babble
from voicehost.lab.voices import TUNE, speak
from voicehost.speech import letters
from voicehost.speech.whisper_engine import WhisperRecognizer


def brute_force(log_probs: np.ndarray, labels: tuple[int, ...]) -> float:
    """log P(labels) summed over every frame-by-frame path that collapses to them."""
    total = -np.inf
    for path in itertools.product(range(log_probs.shape[1]), repeat=len(log_probs)):
        collapsed = [p for k, p in enumerate(path)
                     if p != letters.BLANK and (k == 0 or p != path[k - 1])]
        if tuple(collapsed) == labels:
            total = np.logaddexp(total, sum(log_probs[t, p] for t, p in enumerate(path)))
    return float(total)


def test_a_phrase_scores_every_alignment_of_its_letters() -> None:
    rng = np.random.default_rng(3)
    logits = rng.normal(size=(5, 4))
    log_probs = logits - np.logaddexp.reduce(logits, axis=1, keepdims=True)
    sequences = [(1,), (1, 2), (2, 2), (1, 3, 1), (3, 3, 3), (1, 2, 3, 1)]
    scored = letters.ctc_scores(log_probs, sequences)
    for sequence, score in zip(sequences, scored, strict=True):
        assert score == pytest.approx(brute_force(log_probs, sequence), abs=1e-9)


def test_letters_too_many_for_the_frames_cannot_be_said() -> None:
    log_probs = np.log(np.full((3, 4), 0.25))
    scored = letters.ctc_scores(log_probs, [(1, 1, 1), (1, 2, 3), (1, 2)])
    assert scored[0] == -np.inf  # a repeated letter needs a blank between: 5 frames
    assert np.isfinite(scored[1:]).all()


def test_a_phrase_is_spelled_in_its_letters_and_word_breaks() -> None:
    assert letters.spelled("Player  Three") == letters.spelled("player three")
    assert len(letters.spelled("i'm in")) == 6
    assert letters.spelled("7 up!") == letters.spelled("up")


def test_a_phrase_inside_a_players_own_words_keeps_its_word_breaks() -> None:
    cheetah, think, please = (letters.spelled(words) for words in
                              ("cheetah", "I think it's", "please."))
    assert letters.wrapped(think, cheetah, ()) == letters.spelled("i think it's cheetah")
    assert letters.wrapped((), cheetah, please) == letters.spelled("cheetah please")
    assert letters.wrapped((), cheetah, ()) == cheetah


def test_the_best_path_reads_as_text() -> None:
    frames = [0, 8, 8, 0, 9, 1, 1, 0, 9, 0]  # blank, f, f, blank, g, space, space, blank, g
    log_probs = np.log(np.full((len(frames), len(letters.ALPHABET) + 1), 1e-3))
    log_probs[np.arange(len(frames)), frames] = 0.0
    text, score = letters.best_path(log_probs)
    assert text == "fg g"
    assert score == pytest.approx(0.0)


def test_the_shipped_weights_match_their_pinned_hash() -> None:
    assert hashlib.sha256(letters.WEIGHTS.read_bytes()).hexdigest() == letters.WEIGHTS_SHA256


def test_altered_weights_are_refused(tmp_path: Path) -> None:
    copy = tmp_path / "letters.npz"
    shutil.copy(letters.WEIGHTS, copy)
    with copy.open("r+b") as f:
        f.seek(4000)
        byte = f.read(1)
        f.seek(4000)
        f.write(bytes([byte[0] ^ 1]))
    with pytest.raises(letters.LettersError, match="SHA-256"):
        letters.LettersHead(copy)
    with pytest.raises(letters.LettersError, match="missing"):
        letters.LettersHead(tmp_path / "none.npz")


OFFERED = ["yup", "nope", "ready", "repeat", "undo", "scores",
           *(f"player {n}" for n in "one two three four five six seven eight nine ten".split())]


@pytest.fixture(scope="module")
def engine() -> WhisperRecognizer:
    return WhisperRecognizer(reader=reading_of, use_letters=False)


def heads_pick(engine: WhisperRecognizer, pcm: bytes) -> str:
    audio = np.frombuffer(pcm, "<i2") / 32768.0
    frames = np.asarray(engine.encode(audio, 1.0))[0]
    scores = letters.ctc_scores(letters.head().log_probs(frames),
                                [letters.spelled(p) for p in OFFERED])
    return OFFERED[int(np.argmax(scores))]


@pytest.mark.parametrize("voice", TUNE[:3], ids=lambda v: v.name)
def test_the_head_alone_hears_players_among_the_options(engine: WhisperRecognizer,
                                                        voice: object) -> None:
    said = ["nope", "ready", "player three", "player eight", "scores"]
    picked = [heads_pick(engine, speak(p, voice)) for p in said]  # type: ignore[arg-type]
    assert sum(p == s for p, s in zip(picked, said, strict=True)) >= 4, picked


def test_the_head_alone_hears_through_a_crowd(engine: WhisperRecognizer) -> None:
    said = ["nope", "ready", "player three", "player eight", "repeat", "undo"]
    picked = [heads_pick(engine, with_babble(speak(p, voice), 10.0, k))
              for k, (p, voice) in enumerate(itertools.product(said, TUNE[:2]))]
    wanted = [p for p, _ in itertools.product(said, TUNE[:2])]
    assert sum(p == s for p, s in zip(picked, wanted, strict=True)) >= 8, picked
