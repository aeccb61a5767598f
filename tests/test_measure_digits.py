"""The digit measurement's file-name parser and speaker split, and the real digits the hearing
corpus adds (only their names are read, but for the crowd's mix, made on a tone from sox)."""

import subprocess
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))

from build_corpus import FSDD_GRAMMAR, KITCHEN, REAL_BABBLE, fsdd_entries, other_audio  # noqa: E402
from measure_digits import parse_name, split_speakers  # noqa: E402

from voicehost.lab.conditions import active_power, to_array  # noqa: E402


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


def test_the_corpus_takes_every_nth_real_digit_split_by_speaker(tmp_path: Path) -> None:
    for speaker in ("ann", "bob", "cid", "dan"):
        for digit in range(10):
            for index in range(4):
                (tmp_path / f"{digit}_{speaker}_{index}.wav").touch()
    (tmp_path / "README.md").touch()
    entries = list(fsdd_entries(tmp_path, 2, tmp_path / "kitchen.wav"))
    assert len(entries) == 4 * 10 * 2 * 3  # speakers, digits, indexes 0 and 2, three conditions
    halves = {entry.voice: entry.half for entry in entries}
    assert halves == {"fsdd:ann": "tune", "fsdd:bob": "held-out", "fsdd:cid": "tune",
                      "fsdd:dan": "held-out"}
    assert {entry.condition for entry in entries} == {"real", REAL_BABBLE, KITCHEN}
    assert all(entry.grammar == FSDD_GRAMMAR for entry in entries)
    offered = {entry.text: (entry.intent, entry.value, entry.kind) for entry in entries}
    assert offered["4"] == ("choose", "4", "real")
    for digit in ("7", "8", "9"):  # heard past the six words, for the rule's range
        assert offered[digit] == ("choose", digit, "real")
    assert offered["0"] == (None, None, "real-other")  # no number Ferret Out hears
    assert len({entry.file for entry in entries}) == len(entries)


def test_without_kitchen_noise_the_real_digits_are_clean_and_in_a_crowd(tmp_path: Path) -> None:
    (tmp_path / "3_ann_0.wav").touch()
    assert [entry.condition for entry in fsdd_entries(tmp_path, 1, None)] == ["real",
                                                                             REAL_BABBLE]


def test_a_real_digit_in_a_crowd_has_the_babble_10_db_under_its_speech(tmp_path: Path) -> None:
    recording = tmp_path / "3_ann_0.wav"
    subprocess.run(["sox", "-n", "-r", "8000", "-b", "16", "-c", "1", str(recording),
                    "synth", "0.4", "sine", "300", "vol", "0.3"], check=True)
    clean, crowd = (other_audio(entry) for entry in fsdd_entries(tmp_path, 1, None))
    speech, mixed = to_array(clean), to_array(crowd)
    assert len(mixed) == len(speech)
    babble = mixed - speech
    assert np.mean(babble ** 2) > 0
    snr = 10 * np.log10(active_power(speech) / np.mean(babble ** 2))
    assert abs(snr - 10.0) < 0.5
