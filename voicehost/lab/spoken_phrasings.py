"""The phrasing corpus heard aloud: each phrasing read by a synthetic voice, heard by the real
engine limited to the moment's phrases, read by the host's matcher (scripts/measure_phrasings.py
`--spoken`).

A phrasing is said the way `voicehost.lab.phrasings.taken` types it, but the text that reaches
the matcher is what the engine heard: `grammar.match(spell_numbers(hearing.text))`, as
`Listening.hear` does; free speech goes `Listening.hear_free`'s way (a command heard whole, else
`said_from` of the free transcript, else the recording is kept).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from voicehost.door import refuse
from voicehost.host.clips import said_from
from voicehost.host.grammars import confirm_grammar, decision_grammar, spell_numbers
from voicehost.intents.grammar import Grammar
from voicehost.intents.understand import reading_of
from voicehost.lab.phrasings import REFUSED, Phrasing, said, said_as, table_at
from voicehost.lab.voices import HELD_OUT, TUNE, Voice, speak
from voicehost.speech.base import Recognizer, recognize
from voicehost.voice import SAMPLE_RATE, SAMPLE_WIDTH, Hearing

RECORDED = "RECORDED"  # free speech kept as its recording: the engine gave no words
EXTRA_SILENCE_S = 0.1  # voices.speak pads 0.3 s each side; the corpus is heard with 0.4 s
CACHE = Path(__file__).resolve().parents[2] / "build" / "phrasings-audio"


@dataclass(frozen=True)
class Moment:
    """What the host listens for at a phrasing's moment."""

    grammar: Grammar
    free: bool  # a decision without options: free speech


@dataclass(frozen=True)
class Spoken:
    kind: str
    decision: str
    say: str
    voice: str
    want: str
    got: str
    heard: str  # the engine's text ("" refused)
    raw: str  # the engine's free transcript, where it has one
    confidence: float
    seconds: float  # end of speech → intent: the engine's decoding and the matcher
    evidence: dict[str, float] | None = None  # Whisper: what its confidence came from


def moment_of(phrasing: Phrasing) -> Moment:
    table, decision = table_at(phrasing.moment)
    if phrasing.moment["decision"] == "confirm":
        return Moment(confirm_grammar(table.grammar(decision, [])), False)
    return Moment(decision_grammar(table, decision), not decision.options)


def voices_for(phrasing: Phrasing, count: int) -> tuple[Voice, ...]:
    """`count` voices of the phrasing's half, the same every run, different across phrasings."""
    voices = HELD_OUT if phrasing.half == "held_out" else TUNE
    first = hashlib.sha256(f"{phrasing.kind}|{phrasing.say}".encode()).digest()[0]
    return tuple(voices[(first + i) % len(voices)] for i in range(min(count, len(voices))))


def spoken_audio(text: str, voice: Voice, cache: Path | None = CACHE) -> bytes:
    """`voice` reading `text` with 0.4 s of silence each side (kept under `cache`)."""
    key = hashlib.sha256(f"{voice}|{text}".encode()).hexdigest()[:20]
    path = cache / f"{voice.name}-{key}.pcm" if cache is not None else None
    if path is not None and path.exists():
        return path.read_bytes()
    silence = bytes(int(EXTRA_SILENCE_S * SAMPLE_RATE) * SAMPLE_WIDTH)
    pcm = silence + speak(f" {text}", voice) + silence  # "-1" is no option to espeak-ng
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(pcm)
    return pcm


def hear(recognizer: Recognizer, moment: Moment, pcm: bytes) -> tuple[str, Hearing, float]:
    """(what the host takes, what the engine heard, seconds from the end of speech to the
    intent)."""
    recognizer.set_phrases(moment.grammar.phrases)
    hearing = recognize(recognizer, pcm)
    began = time.perf_counter()
    got = taken_from(moment, hearing.text, hearing.raw_text, hearing.confidence,
                     getattr(recognizer, "open_vocabulary", False))
    return got, hearing, hearing.decode_seconds + time.perf_counter() - began


def whisper_evidence(recognizer: Recognizer) -> dict[str, float] | None:
    """What Whisper's confidence in its best phrase came from (None for another engine)."""
    evidence = getattr(getattr(recognizer, "inner", recognizer), "last_evidence", None)
    return asdict(evidence) if evidence is not None else None


def taken_from(moment: Moment, text: str, raw: str, sure: float, transcribes: bool) -> str:
    """What the host takes from the engine's `text` (and, for free speech from an engine that
    `transcribes`, its free transcript `raw`), written as the corpus writes what it wants."""
    if not moment.free:
        return said(moment.grammar, spell_numbers(text))
    command, snap = moment.grammar.match(text)
    if command is not None and snap == 1.0:
        return said_as(command)
    words = said_from(raw if transcribes else "", sure, "").words
    return words if words and " " not in words else RECORDED


def run(phrasings: Sequence[Phrasing], recognizer: Recognizer, voices: int) -> list[Spoken]:
    results = []
    for phrasing in phrasings:
        moment = moment_of(phrasing)
        for voice in voices_for(phrasing, voices):
            got, hearing, seconds = hear(recognizer, moment, spoken_audio(phrasing.say, voice))
            results.append(Spoken(phrasing.kind, phrasing.moment["decision"], phrasing.say,
                                  voice.name, phrasing.want, got, hearing.text,
                                  hearing.raw_text, hearing.confidence, seconds,
                                  whisper_evidence(recognizer)))
    return results


def verdict(result: Spoken) -> str:
    """right, refused (an answer was wanted, none taken), recorded (free speech kept as its
    recording) or wrong (another answer, or one where a refusal was wanted)."""
    if result.got == result.want:
        return "right"
    if result.got == RECORDED:
        return "recorded"
    return "refused" if result.got == REFUSED else "wrong"


VERDICTS = ("right", "refused", "wrong", "recorded")


def table(results: Sequence[Spoken]) -> list[str]:
    """The markdown table: per kind, right / refused / wrong (recorded) of all, and seconds."""
    lines = ["| kind | right / refused / wrong of clips | recorded | seconds median / p95 |",
             "|---|---|---|---|"]
    for kind in [*sorted({r.kind for r in results}), "all"]:
        rows = [r for r in results if kind in ("all", r.kind)]
        n = {v: sum(verdict(r) == v for r in rows) for v in VERDICTS}
        seconds = sorted(r.seconds for r in rows)
        cell = f"{n['right']} / {n['refused']} / {n['wrong']} of {len(rows)}"
        if kind == "all":
            cell += (f" ({100 * n['right'] / len(rows):.1f} % right, "
                     f"{100 * n['wrong'] / len(rows):.1f} % wrong)")
        lines.append(f"| {kind} | {cell} | {n['recorded'] or '-'} | "
                     f"{statistics.median(seconds):.2f} / "
                     f"{seconds[int(0.95 * (len(seconds) - 1))]:.2f} |")
    return lines


def add_spoken_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--spoken", action="store_true",
                        help="hear the phrasings aloud through the default engine")
    parser.add_argument("--half", choices=("tune", "held_out"), default="held_out")
    parser.add_argument("--voices", type=int, default=len(HELD_OUT),
                        help="voices per phrasing (of the half's six)")
    parser.add_argument("--kinds", help="only these kinds (comma-separated)")
    parser.add_argument("--engine", default="auto")
    parser.add_argument("--json", type=Path, help="write every clip's result here")
    parser.add_argument("--floor", type=float,
                        help="Whisper's confidence floor (to gather evidence at 0)")
    parser.add_argument("--no-letters", action="store_true",
                        help="Whisper without the letters head (how it heard before it)")


def run_spoken(phrasings: Sequence[Phrasing], args: argparse.Namespace) -> None:
    from voicehost.registry import deck_words
    from voicehost.speech.factory import make_recognizer

    kinds = set(args.kinds.split(",")) if args.kinds else None
    chosen = [p for p in phrasings if p.half == args.half and (kinds is None or p.kind in kinds)]
    recognizer, _ = make_recognizer(args.engine, deck_words(), reading_of)
    whisper = getattr(recognizer, "short", recognizer)
    if (args.floor is not None or args.no_letters) and not hasattr(whisper, "floor"):
        refuse(f"--floor and --no-letters are Whisper's; the engine {args.engine} is not.")
    if args.floor is not None:
        whisper.floor = args.floor
    if args.no_letters:
        whisper.use_letters(False)
    started = time.perf_counter()
    results = run(chosen, recognizer, args.voices)
    print(f"{len(results)} clips ({args.half}, {args.voices} voice(s) each, engine "
          f"{recognizer.name}) heard in {time.perf_counter() - started:.0f} s")
    print("\n".join(table(results)))
    if args.misses:
        for r in results:
            if verdict(r) != "right":
                print(f"{verdict(r)}: {r.kind} {r.voice} {r.say!r} want {r.want} got {r.got}"
                      f" (heard {r.heard!r}, free {r.raw!r}, {r.confidence:.2f})")
    if args.json:
        args.json.write_text(json.dumps([asdict(r) for r in results], indent=1))
