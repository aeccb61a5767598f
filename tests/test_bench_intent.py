"""scripts/bench_intent.py stays runnable: its grammar writer, parser, scoring and noise mixing
on a tiny made-up coffee context (the benchmark's data stays out of the repository)."""

from __future__ import annotations

import importlib.util
import json
import sys
import wave
from pathlib import Path

import numpy as np
import pytest
import yaml
from hassil import Intents

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "bench_intent.py"
spec = importlib.util.spec_from_file_location("bench_intent", SCRIPT)
assert spec is not None and spec.loader is not None
bench = importlib.util.module_from_spec(spec)
sys.modules["bench_intent"] = bench
spec.loader.exec_module(bench)

CONTEXT = {"context": {
    "expressions": {"orderDrink": [
        "[can I get, give me] [a] $size:size $coffeeDrink:coffeeDrink",
        "$coffeeDrink:coffeeDrink with $milkAmount:milkAmount",
    ]},
    "slots": {"size": ["small", "twelve ounce"], "coffeeDrink": ["latte", "iced mocha", "mocha"],
              "milkAmount": ["milk", "a bit of soy milk"]},
}}


@pytest.fixture
def grammar(tmp_path: Path) -> dict:
    context = tmp_path / "coffee_maker.yaml"
    context.write_text(yaml.safe_dump(CONTEXT), encoding="utf-8")
    return bench.write_grammar(context, tmp_path / "coffee_maker_hassil.yaml")


def test_rhino_expressions_become_hassil_templates_with_the_slot_names_kept(
        grammar: dict, tmp_path: Path) -> None:
    assert bench.sentences(grammar) == ["[can i get|give me] [a] {size} {coffeeDrink}",
                                        "{coffeeDrink} with {milkAmount}"]
    written = yaml.safe_load((tmp_path / "coffee_maker_hassil.yaml").read_text())
    assert written["lists"]["milkAmount"]["values"] == ["milk", "a bit of soy milk"]


def test_a_heard_order_reads_as_its_intent_and_slots(grammar: dict) -> None:
    intents = Intents.from_dict(grammar)
    assert bench.understand("can I get a twelve ounce iced mocha", intents) == bench.Command(
        "orderDrink", {"size": "twelve ounce", "coffeeDrink": "iced mocha"})
    assert bench.understand("latte with a bit of soy milk", intents) == bench.Command(
        "orderDrink", {"coffeeDrink": "latte", "milkAmount": "a bit of soy milk"})
    assert bench.understand("a latte please", intents) is None
    assert bench.understand("", intents) is None


def test_an_order_is_accepted_only_with_every_labelled_slot_right() -> None:
    label = bench.Command("orderDrink", {"coffeeDrink": "mocha", "milkAmount": " milk"})
    assert bench.verdict(label, bench.Command("orderDrink", {"coffeeDrink": "mocha",
                                                             "milkAmount": "milk"})) == "accepted"
    assert bench.verdict(label, bench.Command("orderDrink", {"coffeeDrink": "mocha"})) == "wrong"
    assert bench.verdict(label, bench.Command("orderDrink", {"coffeeDrink": "latte",
                                                             "milkAmount": "milk"})) == "wrong"
    assert bench.verdict(label, None) == "refused"


def test_the_phrase_count_is_what_the_templates_expand_to(grammar: dict) -> None:
    # 3 openings × 2 articles × 2 sizes × 3 drinks, and 3 drinks × 2 milks
    assert bench.phrase_count(grammar) == 3 * 2 * 2 * 3 + 3 * 2


def test_pocketsphinx_takes_the_templates_as_jsgf_rules(grammar: dict) -> None:
    from pocketsphinx import Decoder

    from voicehost.speech.pocketsphinx_engine import DECODER_OPTIONS

    text = bench.jsgf(grammar)
    assert "<size> = small | twelve ounce;" in text
    assert "([can i get | give me] [a] <size> <coffeeDrink>)" in text
    Decoder(lm=None, **DECODER_OPTIONS).add_jsgf_string("coffee", text)  # raises if malformed


def test_labels_are_read_by_clip_and_bad_ones_refused(tmp_path: Path) -> None:
    path = tmp_path / "label.json"
    path.write_text(json.dumps({"abc.wav": {"intent": "orderDrink",
                                            "slots": {"coffeeDrink": "latte"}}}))
    assert bench.labels(path) == {"abc": bench.Command("orderDrink", {"coffeeDrink": "latte"})}
    path.write_text("[1, 2]")
    with pytest.raises(SystemExit) as refused:
        bench.labels(path)
    assert refused.value.code == 2


def test_noise_is_mixed_at_the_snr_of_peak_frame_energies() -> None:
    rng = np.random.default_rng(0)
    speech = rng.normal(0, 0.1, 8192) * np.hanning(8192)
    noise = rng.normal(0, 0.3, 40000)
    out = bench.mix(speech, noise, 9.0, np.random.default_rng(5))
    start = int(np.random.default_rng(5).integers(0, len(noise) - len(speech)))
    stretch = noise[start:start + len(speech)]
    (a, b), *_ = np.linalg.lstsq(np.stack([speech, stretch], axis=1), out, rcond=None)
    snr = 10 * np.log10(bench.peak_frame_energy(a * speech)
                        / bench.peak_frame_energy(b * stretch))
    assert snr == pytest.approx(9.0, abs=1e-6)
    assert np.max(np.abs(out)) == pytest.approx(0.5)


def test_the_halves_are_stable_and_both_used() -> None:
    clips = [f"clip-{n}" for n in range(40)]
    halves = [bench.half(c) for c in clips]
    assert halves == [bench.half(c) for c in clips]
    assert set(halves) == {"tune", "held-out"}


def test_a_folder_that_is_not_the_benchmark_is_refused(tmp_path: Path,
                                                        capsys: pytest.CaptureFixture) -> None:
    with pytest.raises(SystemExit) as refused:
        bench.main([str(tmp_path)])
    assert refused.value.code == 2
    assert "not the benchmark's folder" in capsys.readouterr().err


def test_the_table_puts_rhinos_figure_beside_each_snr_it_published() -> None:
    rows = list(bench.table({"clean": bench.Tally(3, 1, 0, 3), "9": bench.Tally(1, 0, 3, 2),
                             "6": bench.Tally(0, 0, 4, 1)}))
    assert rows[2] == "| clean | 4 | 75.0 % | 1 | 0 | 3 | - |"
    assert rows[3] == "| 9 dB | 4 | 25.0 % | 0 | 3 | 2 | 96.5 % |"
    assert rows[4] == "| 6 dB | 4 | 0.0 % | 0 | 4 | 1 | 93.5 % |"
    assert rows[5].startswith("| noisy average | | 12.5 % |")


def test_whisper_searches_the_templates_and_writes_every_clip(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture
                                                               ) -> None:
    from voicehost.lab.speakers import VOICES, speak

    data = tmp_path / "bench"
    (data / "data" / "rhino").mkdir(parents=True)
    (data / "data" / "rhino" / "coffee_maker.yaml").write_text(yaml.safe_dump(CONTEXT))
    (data / "data" / "label").mkdir()
    clean = data / "data" / "speech" / "clean"
    clean.mkdir(parents=True)
    said = {"a": ("can i get a small iced mocha", {"size": "small", "coffeeDrink": "iced mocha"}),
            "b": ("latte with a bit of soy milk", {"coffeeDrink": "latte",
                                                   "milkAmount": "a bit of soy milk"})}
    clips = {f"{name}{n}": said[name] for n in range(8) for name in said}
    held = {c: v for c, v in clips.items() if bench.half(c) == "held-out"}
    assert held
    for clip, (text, _) in held.items():
        with wave.open(str(clean / f"{clip}.wav"), "wb") as wav:
            wav.setnchannels(1)
            wav.setsampwidth(2)
            wav.setframerate(16000)
            wav.writeframes(speak(text, VOICES[0]))
    (data / "data" / "label" / "label.json").write_text(json.dumps(
        {f"{c}.wav": {"intent": "orderDrink", "slots": slots} for c, (_, slots) in held.items()}))
    (data / "data" / "noise").mkdir()
    with wave.open(str(data / "data" / "noise" / "kitchen.wav"), "wb") as wav:
        wav.setnchannels(1)
        wav.setsampwidth(2)
        wav.setframerate(16000)
        wav.writeframes(np.random.default_rng(0).normal(0, 3000, 16000 * 10)
                        .astype("<i2").tobytes())
    out = tmp_path / "clips.jsonl"
    assert bench.main([str(data), "--snr", "clean", "--every", "1", "--offset", "0", "--json",
                       str(out)]) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == len(held)
    assert all(r["outcome"] == "accepted" and r["evidence"]["score"] < 0 for r in rows)
    assert f"| clean | {len(held)} | 100.0 % |" in capsys.readouterr().out


def test_the_corpus_clips_that_are_no_order_are_listed_by_half(tmp_path: Path) -> None:
    manifest = tmp_path / "manifest.jsonl"
    manifest.write_text("\n".join(json.dumps(row) for row in [
        {"file": "a.wav", "kind": "option", "half": "tune"},
        {"file": "b.wav", "kind": "chatter", "half": "tune"},
        {"file": "c.wav", "kind": "real", "half": "held-out"}]))
    assert bench.others(manifest, "tune") == [("chatter", tmp_path / "b.wav")]
    assert bench.others(manifest, "held-out") == [("real", tmp_path / "c.wav")]


def test_the_floors_are_the_pair_taking_most_orders_with_few_others() -> None:
    def row(snr: str, verdict: str | bool, score: float, gap: float) -> dict:
        return {"snr": snr, "unrejected": verdict,
                "evidence": {"score": score, "free_gap": gap}}

    rows = [row("clean", "accepted", -0.5, 0.1), row("6", "accepted", -1.8, -1.2),
            row("6", "wrong", -0.9, -0.2)]
    rows += [row("other", True, -3.5, -1.2)] + [row("other", True, -5.0, -3.0)] * 60
    lines = list(bench.fit_floors(rows))
    assert "| -2.0 | -1.5 | 2 of 3 | 1 | 0 of 61 |" in lines
    assert lines[-1] == "chosen: score floor -2.0, gap floor -1.5"


def test_an_offset_outside_the_stride_is_refused(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture) -> None:
    with pytest.raises(SystemExit) as refused:
        bench.main([str(tmp_path), "--every", "2", "--offset", "2"])
    assert refused.value.code == 2
    assert "--offset 2: 0 to 1 with --every 2." in capsys.readouterr().err


def test_files_of_another_shape_are_refused_in_one_line(tmp_path: Path,
                                                        capsys: pytest.CaptureFixture) -> None:
    other = tmp_path / "other.jsonl"
    other.write_text(json.dumps({"clip": "a.wav"}) + "\n")
    with pytest.raises(SystemExit) as refused:
        bench.main([str(tmp_path), "--fit", str(other)])
    assert refused.value.code == 2
    assert "not a --json file of this script ('snr')" in capsys.readouterr().err
    with pytest.raises(SystemExit) as refused:
        bench.others(other, "tune")
    assert refused.value.code == 2
    assert "not the hearing corpus's manifest ('kind')" in capsys.readouterr().err
