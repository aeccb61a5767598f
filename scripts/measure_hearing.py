"""Measure a hearing pipeline (front end + recognizer) on the corpus scripts/build_corpus.py
wrote: right and wrong intents per condition, false accepts, speed and memory.

Each clip is heard as the live ears hear it: the front end over the whole clip (reset per
clip), then the recognizer limited to the clip's grammar, then the grammar's intent matcher
(`hearing_corpus.hear`). One pipeline per worker process hears its share of the clips one
after another (a streaming engine carries state, e.g. pocketsphinx's live CMN, from clip to
clip as in a game), in a fixed shuffled order.

    python scripts/build_corpus.py
    python scripts/measure_hearing.py --pipeline pocketsphinx --half held-out [--json out.json]

A pipeline is "RECOGNIZER" or "FRONTEND+RECOGNIZER" (e.g. "webrtc+pocketsphinx"): front ends
from voicehost/speech/frontend.py, recognizers from `RECOGNIZERS` below, both imported only
when asked for. `--half tune` is for tuning; report `--half held-out`.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import random
import resource
import statistics
import sys
import time
import wave
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from build_corpus import DEFAULT_OUT, grammar_for_key  # scripts/, beside this one

from voicehost.intents.grammar import Grammar
from voicehost.intents.understand import reading_of
from voicehost.lab.hearing_corpus import hear
from voicehost.speech.base import Recognizer

CONDITION_ROWS = ("clean", "babble20", "babble10", "babble5", "reverb", "slow", "fast", "real",
                  "real-babble10", "kitchen9")
REAL_ROWS = ("real", "real-babble10", "kitchen9")  # a real speaker's clips: clean, crowd, kitchen
FALSE_ACCEPT_ROWS = {"chatter": ("chatter",), "babble only": ("babble",),
                     "noise": ("noise", "pink", "silence"), "real, not offered": ("real-other",)}


def _pocketsphinx(options: dict[str, Any]) -> Recognizer:
    from voicehost.speech.pocketsphinx_engine import PocketsphinxRecognizer

    return PocketsphinxRecognizer(**options)


def _whisper(options: dict[str, Any]) -> Recognizer:
    from voicehost.speech import whisper_engine

    return whisper_engine.WhisperRecognizer(reader=reading_of, **options)  # type: ignore[attr-defined, no-any-return]


def _vosk(options: dict[str, Any]) -> Recognizer:
    from voicehost.speech.factory import make_recognizer

    return make_recognizer("vosk", frozenset(), reading_of, None, **options)[0]  # type: ignore[no-any-return]


def _auto(options: dict[str, Any]) -> Recognizer:
    from voicehost.registry import deck_words
    from voicehost.speech.factory import make_recognizer

    options = dict(options)
    used = options.pop("use_letters", True)
    floor = options.pop("floor", None)
    recognizer = make_recognizer("auto", deck_words(), reading_of, None, **options)[0]
    recognizer.short.use_letters(used)  # type: ignore[attr-defined]
    if floor is not None:
        recognizer.short.floor = floor  # type: ignore[attr-defined]
    return recognizer  # type: ignore[no-any-return]


# Recognizer name -> factory (given the recognizer options from the command line).
RECOGNIZERS: dict[str, Callable[[dict[str, Any]], Recognizer]] = {
    "pocketsphinx": _pocketsphinx,
    "whisper": _whisper,
    "vosk": _vosk,
    "auto": _auto,
}


def make_front_end(name: str) -> Any:
    from voicehost.speech.frontend import make_front_end as make

    return make(name)


@dataclass(frozen=True)
class Result:
    """What the pipeline made of one clip."""

    text: str
    raw_text: str
    intent: str | None
    value: str | None
    confidence: float
    decode_seconds: float
    cpu_seconds: float
    audio_seconds: float
    evidence: dict[str, float] | None  # Whisper: what the best phrase's confidence came from
    best: str | None  # Whisper: the best-scoring phrase, heard or refused


class Pipeline:
    """A front end (or none) and a recognizer, heard through clip after clip."""

    def __init__(self, name: str, options: dict[str, Any]) -> None:
        front, _, recognizer = name.rpartition("+")
        self.front_end = make_front_end(front) if front and front != "none" else None
        self.recognizer = RECOGNIZERS[recognizer](options)
        self.grammars: dict[str, Grammar] = {}

    def hear(self, record: dict[str, Any], pcm: bytes) -> Result:
        grammar = self.grammars.get(record["grammar"])
        if grammar is None:
            grammar = self.grammars[record["grammar"]] = grammar_for_key(record["grammar"])
        cpu = time.process_time()
        if self.front_end is not None:
            self.front_end.reset()
            pcm = self.front_end.process(pcm) + self.front_end.flush()
        hearing, intent = hear(self.recognizer, grammar, pcm)
        engine = getattr(self.recognizer, "inner", self.recognizer)  # the split's, as it heard
        evidence = getattr(engine, "last_evidence", None)
        alternatives = getattr(engine, "last_alternatives", None)
        return Result(hearing.text, hearing.raw_text, intent and intent.name,
                      intent and intent.value, hearing.confidence, hearing.decode_seconds,
                      time.process_time() - cpu, hearing.audio_seconds,
                      asdict(evidence) if evidence is not None else None,
                      alternatives[0][0] if alternatives and evidence is not None else None)


def read_pcm(path: Path) -> bytes:
    with wave.open(str(path), "rb") as clip:
        return clip.readframes(clip.getnframes())


def hear_share(pipeline: str, options: dict[str, Any], corpus: Path,
               records: list[dict[str, Any]]) -> tuple[list[Result], int]:
    """One worker: its clips' results and its peak RSS in kB."""
    ears = Pipeline(pipeline, options)
    results = [ears.hear(record, read_pcm(corpus / record["file"])) for record in records]
    return results, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def hear_all(pipeline: str, options: dict[str, Any], corpus: Path,
             records: Sequence[dict[str, Any]], workers: int) -> tuple[list[Result], int]:
    """Every record heard, in record order, and the largest worker's peak RSS (kB)."""
    shares = [list(records[i::workers]) for i in range(workers)]
    with multiprocessing.get_context("spawn").Pool(workers) as pool:
        parts = pool.starmap(hear_share, [(pipeline, options, corpus, s) for s in shares])
    results: list[Result] = [None] * len(records)  # type: ignore[list-item]
    for i, (part, _) in enumerate(parts):
        results[i::workers] = part
    return results, max(rss for _, rss in parts)


def load(corpus: Path, half: str, voices: set[str] | None,
         kinds: set[str] | None = None) -> list[dict[str, Any]]:
    manifest = corpus / "manifest.jsonl"
    if not manifest.exists():
        sys.exit(f"no {manifest}: run scripts/build_corpus.py first")
    records = [json.loads(line) for line in manifest.open()]
    unknown = (voices or set()) - {r["voice"] for r in records}
    if unknown:
        sys.exit(f"no voice {', '.join(sorted(unknown))} in {manifest}; its voices: "
                 + ", ".join(sorted({r['voice'] for r in records})))
    return [r for r in records if (half == "all" or r["half"] == half)
            and (voices is None or r["voice"] in voices)
            and (kinds is None or r["kind"] in kinds)]


def is_right(record: dict[str, Any], result: Result) -> bool:
    return (result.intent, result.value) == (record["intent"], record["value"])


def is_wrong(record: dict[str, Any], result: Result) -> bool:
    """Given an intent, and not the one it should: the worst mistake."""
    return result.intent is not None and not is_right(record, result)


def rate_row(pairs: list[tuple[dict[str, Any], Result]]) -> dict[str, Any]:
    clips = len(pairs)
    right = sum(is_right(r, h) for r, h in pairs)
    wrong = sum(is_wrong(r, h) for r, h in pairs)
    return {"clips": clips, "right": right, "wrong": wrong,
            "right_pct": round(100 * right / clips, 1) if clips else None,
            "wrong_pct": round(100 * wrong / clips, 1) if clips else None}


def summarize(records: Sequence[dict[str, Any]], results: Sequence[Result],
              rss_kb: int, wall: float) -> dict[str, Any]:
    pairs = list(zip(records, results, strict=True))
    options = [(r, h) for r, h in pairs if r["intent"] is not None]
    outside = [(r, h) for r, h in pairs if r["intent"] is None]
    decode = sorted(h.decode_seconds for _, h in pairs)
    audio = sum(h.audio_seconds for _, h in pairs)
    return {
        "conditions": {c: rate_row([(r, h) for r, h in options if r["condition"] == c])
                       for c in CONDITION_ROWS},
        "synthetic": rate_row([(r, h) for r, h in options if r["kind"] == "option"]),
        "synths": {s: rate_row([(r, h) for r, h in options if r["synth"] == s])
                   for s in sorted({r["synth"] for r, _ in options})},
        "voices": {v: rate_row([(r, h) for r, h in options if r["voice"] == v])
                   for v in sorted({r["voice"] for r, _ in options if r["kind"] == "option"})},
        "speakers": {v: {c: rate_row([(r, h) for r, h in options
                                      if r["voice"] == v and r["condition"] == c])
                         for c in REAL_ROWS}
                     for v in sorted(speakers(options))},
        "grammars": {g: rate_row([(r, h) for r, h in options if r["grammar"] == g])
                     for g in sorted({r["grammar"] for r, _ in options if r["kind"] == "option"})},
        "false_accepts": {name: false_accepts([(r, h) for r, h in outside if r["kind"] in kinds])
                          for name, kinds in FALSE_ACCEPT_ROWS.items()},
        "decode_seconds": {"median": round(statistics.median(decode), 4) if decode else None,
                           "p95": round(decode[int(0.95 * (len(decode) - 1))], 4)
                           if decode else None},
        "cpu_per_audio_second": round(sum(h.cpu_seconds for _, h in pairs) / audio, 4)
        if audio else None,
        "peak_rss_mb": round(rss_kb / 1024, 1),
        "clips": len(pairs), "audio_seconds": round(audio, 1), "wall_seconds": round(wall, 1),
    }


def speakers(pairs: list[tuple[dict[str, Any], Result]], least: int = 10) -> set[str]:
    """The real speakers with `least` clips or more: one recording alone says little."""
    clips = Counter(r["voice"] for r, _ in pairs if r["kind"] == "real")
    return {voice for voice, count in clips.items() if count >= least}


def false_accepts(pairs: list[tuple[dict[str, Any], Result]]) -> dict[str, Any]:
    accepted = [(r, h) for r, h in pairs if h.intent is not None]
    return {"clips": len(pairs), "accepted": len(accepted),
            "pct": round(100 * len(accepted) / len(pairs), 1) if pairs else None,
            "examples": [f"{r['text']!r}->{h.text!r}" for r, h in accepted[:12]]}


def cell(row: dict[str, Any]) -> str:
    if not row["clips"]:
        return f"{'-':>6s}"
    return f"{row['right_pct']:5.1f} % / {row['wrong_pct']:4.1f} %  ({row['clips']})"


def print_report(title: str, summary: dict[str, Any]) -> None:
    print(f"\n== {title}: {summary['clips']} clips, {summary['audio_seconds']:.0f} s of audio,"
          f" heard in {summary['wall_seconds']:.0f} s")
    print(f"  {'condition':12s} right / wrong intent  (clips)")
    for name, row in summary["conditions"].items():
        print(f"  {name:12s} {cell(row)}")
    print(f"  {'synthetic':12s} {cell(summary['synthetic'])}")
    print(f"\n  {'synthesizer':12s} right / wrong intent  (clips), all conditions")
    for name, row in summary["synths"].items():
        print(f"  {name:12s} {cell(row)}")
    print(f"\n  {'voice':24s} right / wrong intent  (clips), all conditions")
    for name, row in summary["voices"].items():
        print(f"  {name:24s} {cell(row)}")
    if summary["speakers"]:
        print(f"\n  {'real speaker':24s} " + "".join(f"{c:28s}" for c in REAL_ROWS))
        for name, rows in summary["speakers"].items():
            print(f"  {name:24s} " + "".join(f"{cell(row):28s}" for row in rows.values()))
    print(f"\n  {'grammar':28s} right / wrong intent  (clips), all conditions")
    for name, row in summary["grammars"].items():
        print(f"  {name:28s} {cell(row)}")
    print("\n  false accepts (out-of-option clips given an intent):")
    for name, row in summary["false_accepts"].items():
        pct = "-" if row["pct"] is None else f"{row['pct']:.1f} %"
        print(f"  {name:12s} {row['accepted']} of {row['clips']} ({pct})"
              + (": " + ", ".join(row["examples"]) if row["examples"] else ""))
    print(f"\n  decode seconds median {summary['decode_seconds']['median']},"
          f" p95 {summary['decode_seconds']['p95']};"
          f" CPU seconds per audio second {summary['cpu_per_audio_second']};"
          f" peak RSS of a worker {summary['peak_rss_mb']} MB")


def print_misses(records: Sequence[dict[str, Any]], results: Sequence[Result]) -> None:
    print("\n  misses (option clips not given their intent):")
    for record, result in zip(records, results, strict=True):
        if record["intent"] is not None and not is_right(record, result):
            print(f"    {record['voice']:16s} {record['condition']:8s} {record['grammar']:26s}"
                  f" {record['text']!r} -> {result.raw_text!r} ({result.confidence:.2f})"
                  f"{' WRONG' if is_wrong(record, result) else ''}")


def recognizer_options(args: argparse.Namespace) -> dict[str, Any]:
    options: dict[str, Any] = {}
    if args.pipeline.endswith("pocketsphinx"):
        options["whole_utterance"] = args.whole_utterance
    if args.model is not None:
        options["model"] = args.model
    if args.floor is not None:
        options["floor"] = args.floor
    if args.no_letters:
        options["use_letters"] = False
    return options


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pipeline", default="pocketsphinx",
                        help="RECOGNIZER or FRONTEND+RECOGNIZER, e.g. webrtc+pocketsphinx")
    parser.add_argument("--half", choices=("tune", "held-out", "all"), default="held-out")
    parser.add_argument("--corpus", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--voices", help="only these voices (comma-separated manifest names)")
    parser.add_argument("--kinds", help="only these kinds of clip (comma-separated: option,"
                        " chatter, babble, noise, pink, silence, real)")
    parser.add_argument("--limit", type=int, help="only the first N clips of the shuffle")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--json", type=Path, help="write the results here")
    parser.add_argument("--misses", action="store_true", help="list every option clip missed")
    parser.add_argument("--floor", type=float, help="the recognizer's confidence floor")
    parser.add_argument("--model", type=Path, help="whisper: the model directory")
    parser.add_argument("--no-letters", action="store_true",
                        help="whisper: without the letters head (how it heard before it)")
    parser.add_argument("--whole-utterance", action="store_true",
                        help="pocketsphinx: decode each clip in one piece (batch CMN)")
    args = parser.parse_args()
    records = load(args.corpus, args.half, set(args.voices.split(",")) if args.voices else None,
                   set(args.kinds.split(",")) if args.kinds else None)
    random.Random(0).shuffle(records)  # voices and conditions mixed, the same order every run
    records = records[: args.limit] if args.limit else records
    started = time.perf_counter()
    results, rss = hear_all(args.pipeline, recognizer_options(args), args.corpus, records,
                            args.workers)
    summary = summarize(records, results, rss, time.perf_counter() - started)
    summary.update(pipeline=args.pipeline, half=args.half, options=recognizer_options(args))
    print_report(f"{args.pipeline}, {args.half}", summary)
    if args.misses:
        print_misses(records, results)
    if args.json:
        args.json.write_text(json.dumps({**summary, "results": [
            {**record, "heard": asdict(result)}
            for record, result in zip(records, results, strict=True)
        ]}, indent=1))


if __name__ == "__main__":
    main()
