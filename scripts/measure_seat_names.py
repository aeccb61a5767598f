"""Measure how well seat names are heard: each name said alone and in the phrases the host
offers for a seat, by synthetic voices, heard by the real engine at a full table's decision.

Each set of names (--names, repeatable; default the candidates below) is seated in tables of
--players seats, in order (the last table filled up from the set's first names). Every name is
said in every CASE below by every voice of the half, with 0.4 s of silence each side, and
heard as `voicehost hear` hears a file: the decision's whole phrase list offered (every seat,
"player N" and every command), the engine's result matched to an intent. A clip is right
(its own seat), wrong (another seat or a command) or refused.

    python scripts/measure_seat_names.py --half tune                      # the candidates
    python scripts/measure_seat_names.py --half held-out --engines pocketsphinx,whisper \\
        --names fox,owl,bear,frog,whale,tiger,rabbit,snake,horse,duck --names NEW,...

Voices are voicehost/lab/voices.py's halves: choose on `tune`, report `held-out`. At 10
seats both decisions offer more than 80 phrases, so `auto` hears them with pocketsphinx;
`whisper` is what auto hears smaller tables with. Renderings are cached in --cache.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import json
import multiprocessing
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from voicehost.host.ferret_out import deck
from voicehost.host.grammars import decision_grammar
from voicehost.host.table import Seats
from voicehost.intents.grammar import Grammar
from voicehost.intents.understand import reading_of
from voicehost.lab.hearing_corpus import hear
from voicehost.lab.speakers import to_pcm
from voicehost.lab.voices import HELD_OUT, TUNE, Voice, speak_to_wav
from voicehost.registry import GAMES, deck_words

# Animal names a player can say easily: several syllables and distinct vowels first, then the
# one-syllable ones (the old defaults among them) to compare. None is a word of Ferret Out's
# deck (prompts/ferret_out/pouches.yaml has panda, zebra, koala, penguin, dolphin, camel,
# falcon, beaver, turtle, parrot, otter, eagle, llama, lion, moose...): a seat name there
# would be a guess and a seat at once. Each is in pocketsphinx's dictionary (toucan and narwhal
# are not: it cannot be offered them).
CANDIDATES = (
    "tiger", "rabbit", "monkey", "raccoon", "cobra", "jaguar", "kitten", "puppy", "pony",
    "robin", "ostrich", "peacock", "cheetah", "panther", "elephant", "wombat", "bison",
    "reindeer", "antelope", "gazelle", "hyena", "lemur", "iguana", "beetle", "unicorn",
    "vulture", "condor", "dingo", "mongoose", "manatee", "orca", "python",
    "viper", "magpie", "armadillo", "salamander", "rooster", "husky", "mammoth", "bobcat",
    "mustang", "poodle", "starfish", "wolverine", "alpaca", "bunny", "cougar", "heron", "jackal",
    "macaw", "possum", "tadpole",
    "fox", "owl", "bear", "frog", "whale", "snake", "horse", "duck",
)

# (game, decision, how the name is said): every way the host offers a seat at a full table.
ALONE = "{name}"
CASES = (
    ("secret-operation", "first_player", ALONE),
    ("secret-operation", "first_player", "{name} goes first"),
    ("secret-squad", "point", "i pointed at {name}"),
)
PAD_SECONDS = "0.4"


@dataclass(frozen=True)
class Job:
    """One clip to hear: who says what, at which table's decision, meaning which seat."""

    name: str
    text: str
    alone: bool
    voice: str
    table: tuple[str, ...]
    game: str
    decision: str
    asked: int  # whose decision it is (a seat does not point at itself)
    seat: int


@dataclass(frozen=True)
class SeatHeard:
    verdict: str  # "right", "wrong" or "refused"
    heard: str | None  # the seat name (or intent) heard, when one was
    raw_text: str


def tables(names: Sequence[str], players: int) -> list[tuple[tuple[str, ...], int]]:
    """The names seated in order, `players` a table, each table with how many of its first
    seats are its own; the last table is filled up from the first names (heard elsewhere),
    then from the candidates."""
    seated = []
    for start in range(0, len(names), players):
        own = list(names[start:start + players])
        fill = [n for n in dict.fromkeys([*names, *CANDIDATES]) if n not in own]
        seated.append((tuple(own + fill[: players - len(own)]), len(own)))
    return seated


@functools.cache
def grammar_at(table: tuple[str, ...], game: str, decision: str, asked: int) -> Grammar:
    """The decision's grammar as the host builds it asking seat `asked`, with these names."""
    seated = GAMES[game].table(Seats(table), seed=0)
    return decision_grammar(seated, seated.example_decision(decision, asked))


def jobs_for(names: Sequence[str], players: int, voices: Sequence[Voice]) -> list[Job]:
    """Every name in every case where its table's decision offers it, in every voice."""
    jobs = []
    for table, own in tables(names, players):
        for game, decision, template in CASES:
            for seat, name in enumerate(table[:own]):
                asked = 0 if seat == len(table) - 1 else len(table) - 1
                text = template.format(name=name)
                if grammar_at(table, game, decision, asked).match(text)[0] is None:
                    sys.exit(f"{game} {decision} does not offer {text!r}")
                jobs += [Job(name, text, template == ALONE, v.name, table, game, decision,
                             asked, seat) for v in voices]
    return jobs


def render(text: str, voice: Voice, cache: Path) -> bytes:
    """`voice` says `text`: 16 kHz PCM with 0.4 s of silence each side, cached."""
    key = hashlib.sha1(f"{asdict(voice)}|{text}|{PAD_SECONDS}".encode()).hexdigest()[:16]
    path = cache / f"{voice.name}-{key}.pcm"
    if not path.exists():
        wav = speak_to_wav(text, voice, cache / f"{key}.wav")
        shift = ("pitch", str(round(voice.semitones * 100))) if voice.semitones else ()
        path.write_bytes(to_pcm(wav, *shift, "pad", PAD_SECONDS, PAD_SECONDS))
        wav.unlink()
    return path.read_bytes()


def hear_share(engine: str, jobs: list[Job], voices: dict[str, Voice],
               cache: Path) -> list[SeatHeard]:
    """One worker: one recognizer, every job of its share in turn."""
    from voicehost.speech.factory import make_recognizer

    recognizer, _ = make_recognizer(engine, deck_words(), reading_of, None, whole_utterances=True)
    grammars: dict[tuple[tuple[str, ...], str, str, int], Grammar] = {}
    heard = []
    for job in jobs:
        key = (job.table, job.game, job.decision, job.asked)
        grammar = grammars.get(key) or grammars.setdefault(key, grammar_at(*key))
        hearing, intent = hear(recognizer, grammar, render(job.text, voices[job.voice], cache))
        if intent is None:
            heard.append(SeatHeard("refused", None, hearing.raw_text))
        elif intent.name == "choose" and intent.value == str(job.seat):
            heard.append(SeatHeard("right", job.name, hearing.raw_text))
        else:
            other = (job.table[int(intent.value)] if intent.name == "choose"
                     and intent.value is not None and intent.value.isdigit() else intent.name)
            heard.append(SeatHeard("wrong", other, hearing.raw_text))
    return heard


def hear_all(engine: str, jobs: list[Job], voices: Sequence[Voice], cache: Path,
             workers: int) -> list[SeatHeard]:
    by_name = {v.name: v for v in voices}
    for job in jobs[:1]:  # the synthesizers' caches warm before the workers fork
        render(job.text, by_name[job.voice], cache)
    shares = [jobs[i::workers] for i in range(workers)]
    with multiprocessing.get_context("fork").Pool(workers) as pool:
        parts = pool.starmap(hear_share, [(engine, s, by_name, cache) for s in shares])
    heard: list[SeatHeard] = [None] * len(jobs)  # type: ignore[list-item]
    for i, part in enumerate(parts):
        heard[i::workers] = part
    return heard


def tally(pairs: Sequence[tuple[Job, SeatHeard]]) -> str:
    counts = Counter(h.verdict for _, h in pairs)
    return f"{counts['right']}/{counts['wrong']}/{counts['refused']} of {len(pairs)}"


def report(engine: str, names: Sequence[str], jobs: Sequence[Job],
           heard: Sequence[SeatHeard]) -> list[str]:
    """A markdown table: per name, right/wrong/refused alone and in phrases; then totals and
    every confusion."""
    pairs = list(zip(jobs, heard, strict=True))
    lines = [f"| {engine} | alone | in phrases | all |", "|---|---|---|---|"]
    for name in names:
        mine = [(j, h) for j, h in pairs if j.name == name]
        lines.append(f"| {name} | {tally([p for p in mine if p[0].alone])} "
                     f"| {tally([p for p in mine if not p[0].alone])} | {tally(mine)} |")
    lines.append(f"| **all** | {tally([p for p in pairs if p[0].alone])} "
                 f"| {tally([p for p in pairs if not p[0].alone])} | {tally(pairs)} |")
    confused = Counter((j.name, h.heard) for j, h in pairs if h.verdict == "wrong")
    if confused:
        lines.append("")
        lines.append("Heard as another: " + ", ".join(
            f"{said}→{other} {n}" for (said, other), n in confused.most_common()))
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--names", action="append",
                        help="a comma-separated set of names (repeatable); default: candidates")
    parser.add_argument("--half", choices=("tune", "held-out"), default="tune")
    parser.add_argument("--voices", help="only these voices of the half (comma-separated)")
    parser.add_argument("--engines", default="pocketsphinx",
                        help="comma-separated: pocketsphinx, whisper, auto")
    parser.add_argument("--players", type=int, default=10)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--cache", type=Path, default=Path("/tmp/seat-name-clips"))
    parser.add_argument("--json", type=Path, help="write every clip's result here")
    args = parser.parse_args()
    voices = [v for v in (TUNE if args.half == "tune" else HELD_OUT)
              if not args.voices or v.name in args.voices.split(",")]
    if not voices:
        sys.exit(f"no such voice in the {args.half} half")
    args.cache.mkdir(parents=True, exist_ok=True)
    sets = [tuple(n.strip() for n in s.split(",") if n.strip()) for s in args.names] \
        if args.names else [CANDIDATES]
    deck_words = {w for pair in deck() for w in pair.words()}
    in_deck = sorted({n for names in sets for n in names} & deck_words)
    if in_deck:
        sys.exit(f"{', '.join(in_deck)}: Ferret Out deck words, not seat names")
    print(f"{args.half} voices: {', '.join(v.name for v in voices)}; {args.players} seats;"
          " right/wrong/refused", flush=True)
    everything = []
    for engine in args.engines.split(","):
        for names in sets:
            jobs = jobs_for(names, args.players, voices)
            started = time.process_time(), time.perf_counter()
            heard = hear_all(engine, jobs, voices, args.cache, args.workers)
            print(f"\n{len(jobs)} clips in {time.perf_counter() - started[1]:.0f} s\n")
            print("\n".join(report(engine, names, jobs, heard)), flush=True)
            everything += [{"engine": engine, **asdict(j), **asdict(h)}
                           for j, h in zip(jobs, heard, strict=True)]
    if args.json:
        args.json.write_text(json.dumps(everything, indent=1))


if __name__ == "__main__":
    main()
