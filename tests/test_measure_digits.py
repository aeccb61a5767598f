"""The digit measurement's file-name parser and speaker split (no recordings needed)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))

from measure_digits import parse_name, split_speakers  # noqa: E402


def test_a_clip_name_gives_digit_speaker_and_index() -> None:
    assert parse_name("7_jackson_42.wav") == (7, "jackson", 42)
    assert parse_name("0_yweweler_0.wav") == (0, "yweweler", 0)


def test_other_names_are_not_clips() -> None:
    for name in ("README.md", "12_theo_1.wav", "3_theo.wav", "3_theo_1.mp3", "a_theo_1.wav"):
        assert parse_name(name) is None


def test_speakers_alternate_in_sorted_order_and_never_overlap() -> None:
    tune, held_out = split_speakers(["theo", "ann", "bob", "theo", "cid", "dan"])
    assert tune == ["ann", "cid", "theo"]
    assert held_out == ["bob", "dan"]
    assert not set(tune) & set(held_out)
