"""Learn the table's voices, measured: each real speaker's earlier answers as templates.

A player who has said "four" before, and had it confirmed, says it again. This matches each of
the hearing corpus's real digits (Free Spoken Digit Dataset, `build_corpus.py --fsdd`) against
the same speaker's templates, recordings the corpus does not measure (index 1, 6, 11, ... of
each digit), on Whisper tiny.en's encoder frames (the speech's frames, unit length, dynamic time
warping on cosine distance), and fuses the nearest template's digit with what the default
engine did with the clip (the `--json` of `measure_hearing.py --pipeline auto --kinds
real,real-other` on the same half):
- taken: the engine's best phrase, refused under its floor, when the speaker's nearest
  template is the same digit, the nearest template of another digit is at least `--take`
  times as far, and the nearest is no farther than `--within`;
- vetoed: an answer the engine took, with templates of its own, when the nearest template is
  another digit, by `--veto`.

Without `--known` every digit has templates, zero and seven to nine too (no table has those at
a pick of one to six); `--known K` keeps templates of K of the six options per speaker.

    python scripts/measure_hearing.py --pipeline auto --half tune --kinds real,real-other \\
        --workers 1 --json /tmp/heard-tune.json
    python scripts/measure_templates.py /tmp/fsdd/recordings /tmp/heard-tune.json --half tune \\
        [--kitchen WAV --same-room] [--take 1.02 --veto 1.02] [--known 6 --within 0.12]

`--same-room`: the templates are said in the clip's own room (the crowd's babble or the kitchen
at the clip's level, another stretch of it), as answers confirmed earlier in the game were.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import Counter, defaultdict
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
from build_corpus import (
    DEFAULT_OUT,
    FSDD_GRAMMAR,
    KITCHEN,
    REAL_BABBLE,
    grammar_for_key,
    real_in_room,
)
from measure_digits import clip_pcm, parse_name

from voicehost.door import refuse
from voicehost.intents.grammar import Grammar
from voicehost.intents.understand import reading_of
from voicehost.lab.conditions import to_array
from voicehost.speech.features import HOP
from voicehost.speech.whisper_engine import WhisperRecognizer

CONDITIONS_MEASURED = ("real", REAL_BABBLE, KITCHEN)
FRAME = 2 * HOP  # samples per encoder frame: the encoder halves the mel frames


def dtw(a: np.ndarray, b: np.ndarray) -> float:
    """Dynamic time warping of two runs of unit vectors on cosine distance, per step of the
    path's length bound (len(a) + len(b)). Each row is a min-plus recurrence, solved at once:
    D[j] = min(t[j], c[j] + D[j-1]) is C[j] + min over k <= j of (t[k] - C[k])."""
    cost = 1.0 - a @ b.T
    previous = np.concatenate([[0.0], np.full(len(b), np.inf)])
    for row in cost:
        from_above = row + np.minimum(previous[:-1], previous[1:])
        running = np.cumsum(row)
        previous = np.concatenate([[np.inf], running + np.minimum.accumulate(from_above - running)])
    return float(previous[-1] / (len(a) + len(b)))


def speech_frames(recognizer: WhisperRecognizer, pcm: bytes) -> np.ndarray:
    """The encoder's frames over the speech (the 20 ms hops within 30 dB of the loudest, 60 ms
    either side), each of unit length."""
    audio = to_array(pcm) / 32768.0
    encoded = np.asarray(recognizer.encode(audio.astype(np.float32), recognizer.pad_seconds))[0]
    hops = len(audio) // FRAME
    level = 20 * np.log10(np.sqrt(np.mean(audio[: hops * FRAME].reshape(hops, FRAME) ** 2, axis=1))
                          + 1e-6)
    loud = np.flatnonzero(level > level.max() - 30)
    frames = encoded[max(0, loud[0] - 3): min(hops, loud[-1] + 4, len(encoded))]
    return frames / np.linalg.norm(frames, axis=1, keepdims=True)


def nearest(recognizer: WhisperRecognizer, records: Sequence[dict[str, Any]], corpus: Path,
            fsdd: Path, count: int, same_room: bool, kitchen: Path | None
            ) -> dict[str, dict[int, float]]:
    """Each clip's distance to its speaker's nearest template of each digit."""
    templates: dict[tuple[str, str], list[tuple[int, np.ndarray]]] = {}
    distances = {}
    for record in records:
        speaker, condition = record["voice"].removeprefix("fsdd:"), record["condition"]
        room = condition if same_room else "real"
        if (speaker, room) not in templates:
            templates[speaker, room] = [
                (digit, speech_frames(recognizer, real_in_room(
                    clip_pcm(fsdd / f"{digit}_{speaker}_{index}.wav"), room, 7919 * index + digit,
                    kitchen)))
                for digit in range(10) for index in range(1, 5 * count, 5)]
        clip = speech_frames(recognizer, (corpus / record["file"]).read_bytes()[44:])
        best: dict[int, float] = {}
        for digit, frames in templates[speaker, room]:
            best[digit] = min(best.get(digit, np.inf), dtw(clip, frames))
        distances[record["file"]] = best
    return distances


@cache
def number_grammar() -> Grammar:
    return grammar_for_key(FSDD_GRAMMAR)


def answer(heard: dict[str, Any]) -> str | None:
    """What the engine took: a choice's value, "!command", or None."""
    if not heard.get("intent"):
        return None
    return str(heard["value"]) if heard["intent"] == "choose" else f"!{heard['intent']}"


def fused(record: dict[str, Any], distance: dict[int, float], take: float, veto: float,
          within: float = np.inf) -> str | None:
    """What the host would take from the engine's result and the templates (a refused phrase
    only from a template `within` that distance)."""
    best = number_grammar().intents.get(str(record["heard"].get("best") or ""))
    order = sorted(distance, key=distance.__getitem__)
    ratio = distance[order[1]] / max(distance[order[0]], 1e-9)
    near, got = str(order[0]), answer(record["heard"])
    if got is None and best is not None and best.name == "choose" and best.value == near \
            and ratio >= take and distance[order[0]] <= within:
        return near
    if got is not None and got != near and got in {str(d) for d in distance} and ratio >= veto:
        return None  # only an answer with templates of its own is judged by them
    return got


def alone(distance: dict[int, float], offered: set[str]) -> str | None:
    """The nearest template's digit, when it is an option."""
    near = str(min(distance, key=distance.__getitem__))
    return near if near in offered else None


def tally(records: Sequence[dict[str, Any]], answers: dict[str, str | None]
          ) -> dict[str, Counter[str]]:
    rows: dict[str, Counter[str]] = defaultdict(Counter)
    for record in records:
        got = answers[record["file"]]
        if record["kind"] == "real-other":
            rows["not offered"]["taken" if got is not None else "refused"] += 1
        else:
            rows[record["condition"]]["right" if got == record["value"] else
                                      "refused" if got is None else "wrong"] += 1
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("fsdd", type=Path, help="the Free Spoken Digit Dataset's recordings")
    parser.add_argument("heard", type=Path, help="measure_hearing.py --json of the same half")
    parser.add_argument("--half", choices=("tune", "held-out"), default="held-out")
    parser.add_argument("--corpus", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--templates", type=int, default=3, help="templates per digit")
    parser.add_argument("--same-room", action="store_true")
    parser.add_argument("--kitchen", type=Path, help="the kitchen noise of the corpus")
    parser.add_argument("--take", type=float, default=1.02)
    parser.add_argument("--veto", type=float, default=1.02)
    parser.add_argument("--within", type=float, default=np.inf,
                        help="take a refused phrase only from a template this near")
    parser.add_argument("--known", type=int, choices=range(2, 7),
                        help="templates of only this many of the options one to six for each "
                             "speaker (drawn per speaker), as at a table early in the game")
    args = parser.parse_args()
    if not args.fsdd.is_dir() or not args.heard.is_file():
        refuse(f"{args.fsdd} must be a folder of recordings and {args.heard} a file.")
    if args.same_room and args.kitchen is None:
        refuse("--same-room needs --kitchen: the kitchen clips' templates are said in it.")
    records = [r for r in json.loads(args.heard.read_text())["results"]
               if r["half"] == args.half and r["voice"].startswith("fsdd:")
               and parse_name(Path(r["file"]).name) is not None]
    if not records:
        refuse(f"{args.heard} has no real digits of the {args.half} half.")
    speaker_of = {r["file"]: r["voice"] for r in records}
    said = {voice: set(random.Random(voice).sample(range(1, 7), args.known or 6))
            for voice in set(speaker_of.values())}
    distances = nearest(WhisperRecognizer(reader=reading_of), records, args.corpus, args.fsdd,
                        args.templates, args.same_room, args.kitchen)
    if args.known is not None:
        distances = {f: {d: v for d, v in distances[f].items() if d in said[speaker_of[f]]}
                     for f in distances}
    offered = {i.value for i in number_grammar().intents.values()
               if i.name == "choose"}
    engine = {r["file"]: answer(r["heard"]) for r in records}
    templates = {f: alone(d, offered) for f, d in distances.items()}
    both = {r["file"]: fused(r, distances[r["file"]], args.take, args.veto, args.within)
            for r in records}
    room = "in the clip's room" if args.same_room else "clean"
    known = "" if args.known is None else f" of {args.known} options only: {sorted(said.items())}"
    print(f"{len(records)} clips of the {args.half} half; {args.templates} templates a digit"
          f"{known}, {room}; take {args.take} within {args.within}, veto {args.veto}")
    print("| | " + " | ".join(f"{c}: right / refused / wrong" for c in CONDITIONS_MEASURED)
          + " | not offered, taken |")
    print("|---|" + "---|" * (len(CONDITIONS_MEASURED) + 1))
    for name, answers in (("engine", engine), ("nearest template alone", templates),
                          ("engine and templates", both)):
        rows = tally(records, answers)
        cells = [f"{rows[c]['right']} / {rows[c]['refused']} / {rows[c]['wrong']}"
                 for c in CONDITIONS_MEASURED]
        other = rows["not offered"]
        print(f"| {name} | " + " | ".join(cells)
              + f" | {other['taken']} of {other['taken'] + other['refused']} |")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
