"""Template matching for the table's voices: the warping distance and the rule that fuses the
nearest template with the engine's answer."""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))

from measure_templates import dtw, fused  # noqa: E402


def warped(a: np.ndarray, b: np.ndarray) -> float:
    """The textbook table, cell by cell."""
    cost = 1.0 - a @ b.T
    table = np.full((len(a) + 1, len(b) + 1), np.inf)
    table[0, 0] = 0.0
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            table[i, j] = cost[i - 1, j - 1] + min(table[i - 1, j], table[i, j - 1],
                                                   table[i - 1, j - 1])
    return float(table[-1, -1] / (len(a) + len(b)))


def test_the_row_at_once_warps_as_the_table_cell_by_cell() -> None:
    rng = np.random.default_rng(3)
    for n, m in ((1, 1), (3, 7), (12, 5), (20, 20)):
        a, b = rng.normal(size=(n, 8)), rng.normal(size=(m, 8))
        a /= np.linalg.norm(a, axis=1, keepdims=True)
        b /= np.linalg.norm(b, axis=1, keepdims=True)
        assert np.isclose(dtw(a, b), warped(a, b))
    same = rng.normal(size=(6, 8))
    same /= np.linalg.norm(same, axis=1, keepdims=True)
    assert np.isclose(dtw(same, np.repeat(same, 2, axis=0)), 0.0, atol=1e-9)  # said slower


def heard(intent: str | None, value: str | None, best: str) -> dict:
    return {"heard": {"intent": intent, "value": value, "best": best}}


def test_a_refused_best_phrase_is_taken_only_when_the_speakers_template_agrees() -> None:
    near_four = {4: 1.0, 1: 1.5, 6: 1.6}
    assert fused(heard(None, None, "four"), near_four, 1.02, 1.02) == "4"
    assert fused(heard(None, None, "one"), near_four, 1.02, 1.02) is None
    tied = {4: 1.0, 1: 1.01}
    assert fused(heard(None, None, "four"), tied, 1.02, 1.02) is None
    assert fused(heard(None, None, "four"), near_four, 1.02, 1.02, within=0.9) is None  # too far


def test_a_taken_answer_is_vetoed_when_the_speakers_template_is_clearly_another() -> None:
    near_four = {4: 1.0, 1: 1.5}
    assert fused(heard("choose", "1", "one"), near_four, 1.02, 1.02) is None
    assert fused(heard("choose", "4", "four"), near_four, 1.02, 1.02) == "4"
    assert fused(heard("choose", "1", "one"), {4: 1.0, 1: 1.01}, 1.02, 1.02) == "1"
    assert fused(heard("repeat", None, "repeat"), near_four, 1.02, 1.02) == "!repeat"
    assert fused(heard("choose", "2", "two"), near_four, 1.02, 1.02) == "2"  # no template of two
