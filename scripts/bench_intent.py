"""Command acceptance on real voices: Picovoice's speech-to-intent benchmark (619 coffee
orders from 50+ crowd-sourced speakers) heard by voicehost's ears, clean and in kitchen noise.

    .venv/bin/python scripts/bench_intent.py DATA [--half held-out] [--snr clean 24 18 12 9 6]
        [--every 1 [--offset 0]] [--engine whisper] [--grammar-out PATH]
        [--others MANIFEST] [--json OUT] [--fit TUNE_JSON]

DATA is the benchmark repository's folder (Picovoice/speech-to-intent-benchmark): it holds
data/rhino/coffee_maker.yaml (the coffee maker context), data/label/label.json, the clips in
data/speech/clean/ and data/noise/kitchen.wav. The context's expressions become hassil
templates (written to --grammar-out, by default DATA/coffee_maker_hassil.yaml); a command is
accepted when what was heard reads as the right intent with every labelled slot right.

The coffee grammar expands to 2 × 10⁸ sentences, more than any list an engine takes. `whisper`
(the default) is voicehost's Whisper searching the templates' graph of words without expanding
it (voicehost/speech/whisper_grammar.py), taking the sentence it finds on its confidence.
`pocketsphinx` is voicehost's pocketsphinx recognizer (its decoders, dither and phone-loop
rejection, each clip heard whole as `voicehost hear` hears a file) given the templates as JSGF
rules instead of a list. `whisper-free` is Whisper tiny.en transcribing freely, the transcript
read by the same templates. `--others` hears the hearing corpus's clips of the same half that
are no order (chatter, noise, real people's digits) and counts those taken as one.

Noise is mixed as the benchmark's src/mix.py mixes it: a random stretch of the noise, scaled
so that the loudest 2048-sample frame of speech stands SNR dB above the loudest frame of the
noise, the sum peaking at half full scale. The stretch is drawn from a seed per clip and SNR,
so every run hears the same mixes.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
import time
import wave
from collections.abc import Callable, Iterable, Mapping
from collections.abc import Sequence as Listed
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import yaml
from hassil import Intents, recognize
from hassil.expression import Alternative, Expression, ListReference, Sequence, TextChunk
from hassil.parse_expression import parse_sentence
from hassil.sample import sample_expression

from voicehost.door import refuse
from voicehost.intents.understand import reading_of
from voicehost.voice import Hearing

# Rhino's published command acceptance on this benchmark (its README's figures), in percent.
RHINO = {"average": 97.6, 9: 96.5, 6: 93.5}
SNRS: tuple[str, ...] = ("clean", "24", "18", "12", "9", "6")
FRAME = 2048  # the benchmark's frame for peak energies
ENGINES = ("whisper", "pocketsphinx", "whisper-free")
Ears = Callable[[bytes], Hearing]  # one whole clip → what was heard ("" when refused)


@dataclass(frozen=True)
class Command:
    """What a coffee order means: its intent and slot values."""

    intent: str
    slots: Mapping[str, str]


def half(clip: str) -> str:
    """"tune" or "held-out", by a stable hash of the clip's id. The benchmark publishes no
    speaker ids (the clips are named by random ids), so the halves are split by clip."""
    return "tune" if hashlib.sha256(clip.encode()).digest()[0] % 2 == 0 else "held-out"


def rhino_template(expression: str) -> str:
    """A Rhino expression as a hassil template: `[a, b]` (optional choice) becomes `[a|b]`,
    `(a, b)` (choice) `(a|b)`, `$size:size` the list `{size}`."""
    parts = re.split(r"(\$\w+:\w+)", expression)  # the slot names keep their case
    template = "".join("{" + part.split(":")[1] + "}" if part.startswith("$") else part.lower()
                       for part in parts)
    template = re.sub(r"[\[(][^\])]*[\])]",
                      lambda m: m.group(0)[0] + "|".join(w.strip() for w in m.group(0)[1:-1]
                                                         .split(",")) + m.group(0)[-1],
                      template)
    return " ".join(template.split())


def coffee_grammar(context: Mapping[str, Any]) -> dict[str, Any]:
    """The Rhino context (coffee_maker.yaml's `context`) as hassil intents with their lists."""
    expressions, slots = context["expressions"], context["slots"]
    return {
        "language": "en",
        "intents": {intent: {"data": [{"sentences": [rhino_template(e) for e in sentences]}]}
                    for intent, sentences in expressions.items()},
        "lists": {slot: {"values": [str(v).lower() for v in values]}
                  for slot, values in slots.items()},
    }


def write_grammar(context_path: Path, out: Path) -> dict[str, Any]:
    """Read the Rhino context, write its hassil templates to `out`, return them."""
    try:
        context = yaml.safe_load(context_path.read_text(encoding="utf-8"))["context"]
        grammar = coffee_grammar(context)
    except (OSError, yaml.YAMLError, KeyError, TypeError, AttributeError) as problem:
        refuse(f"{context_path}: not a Rhino context ({problem}).")
    out.write_text(yaml.safe_dump(grammar, sort_keys=False), encoding="utf-8")
    return grammar


def understand(text: str, intents: Intents) -> Command | None:
    """What `text` means under the templates; None when it is none of them."""
    if not text.strip():
        return None
    result = recognize(text, intents)
    if result is None:
        return None
    return Command(result.intent.name, {name: str(entity.value).strip()
                                        for name, entity in result.entities.items()})


def verdict(label: Command, heard: Command | None) -> str:
    """"accepted" (intent and every labelled slot right), "wrong" (taken as something
    else) or "refused" (nothing taken)."""
    if heard is None:
        return "refused"
    right = heard.intent == label.intent and all(
        heard.slots.get(slot, "").strip() == value.strip() for slot, value in label.slots.items())
    return "accepted" if right else "wrong"


def sentences(grammar: Mapping[str, Any]) -> list[str]:
    return [s for intent in grammar["intents"].values() for data in intent["data"]
            for s in data["sentences"]]


def phrase_count(grammar: Mapping[str, Any]) -> int:
    """How many phrases the templates expand to (a flat list for the recognizer would hold
    as many, less the few that two templates share)."""
    sizes = {name: len(values["values"]) for name, values in grammar["lists"].items()}
    total = 0
    for sentence in sentences(grammar):
        marked = re.sub(r"\{(\w+)\}", lambda m: f"slot{m.group(1)}", sentence)
        for phrase in sample_expression(parse_sentence(marked).expression):
            n = 1
            for word in phrase.split():
                if word.startswith("slot"):
                    n *= sizes[word[4:]]
            total += n
    return total


def _jsgf(expression: Expression) -> str:
    if isinstance(expression, TextChunk):
        return " ".join(expression.text.split())
    if isinstance(expression, ListReference):
        return f"<{expression.list_name}>"
    if isinstance(expression, Alternative):
        options = [o for o in (_jsgf(item) for item in expression.items) if o]
        body = " | ".join(options)
        return f"[{body}]" if expression.is_optional or len(options) < len(expression.items) \
            else f"({body})"
    if isinstance(expression, Sequence):
        return " ".join(part for part in (_jsgf(item) for item in expression.items) if part)
    raise ValueError(f"no JSGF for {type(expression).__name__}")


def jsgf(grammar: Mapping[str, Any]) -> str:
    """The templates as one JSGF grammar: a rule per list, the sentences as alternatives."""
    lines = ["#JSGF V1.0;", "grammar coffee;"]
    for name, values in grammar["lists"].items():
        lines.append(f"<{name}> = " + " | ".join(values["values"]) + ";")
    body = " | ".join(f"({_jsgf(parse_sentence(s).expression)})" for s in sentences(grammar))
    lines.append(f"public <command> = {body};")
    return "\n".join(lines) + "\n"


def labels(path: Path) -> dict[str, Command]:
    """label.json: clip file name → its command."""
    try:
        table = json.loads(path.read_text(encoding="utf-8"))
        return {clip.removesuffix(".wav"): Command(entry["intent"], dict(entry["slots"]))
                for clip, entry in table.items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as problem:
        refuse(f"{path}: not the benchmark's labels ({problem}).")


def read_samples(path: Path) -> np.ndarray:
    """A 16 kHz mono 16-bit WAV as float samples in -1..1."""
    try:
        with wave.open(str(path), "rb") as wav:
            if (wav.getframerate(), wav.getnchannels(), wav.getsampwidth()) != (16000, 1, 2):
                refuse(f"{path}: not 16 kHz mono 16-bit PCM.")
            pcm = np.frombuffer(wav.readframes(wav.getnframes()), dtype="<i2")
    except (OSError, wave.Error, EOFError) as problem:
        refuse(f"{path}: {problem}.")
    return pcm.astype(np.float64) / 32768.0


def peak_frame_energy(samples: np.ndarray) -> float:
    frames = samples[: len(samples) // FRAME * FRAME].reshape(-1, FRAME)
    return float((frames ** 2).sum(axis=1).max())


def mix(speech: np.ndarray, noise: np.ndarray, snr_db: float,
        rng: np.random.Generator) -> np.ndarray:
    """The benchmark's mix (src/mix.py): speech plus a stretch of noise at `snr_db` by peak
    frame energies, scaled to peak at half full scale."""
    start = int(rng.integers(0, len(noise) - len(speech)))
    stretch = noise[start:start + len(speech)]
    scale = np.sqrt(peak_frame_energy(speech)
                    / (peak_frame_energy(stretch) * 10 ** (snr_db / 10.0)))
    noisy = speech + scale * stretch
    return noisy / (2 * np.max(np.abs(noisy)))


def pcm_bytes(samples: np.ndarray) -> bytes:
    return np.clip(np.round(samples * 32767), -32768, 32767).astype("<i2").tobytes()


def seed(clip: str, snr: str) -> int:
    return int.from_bytes(hashlib.sha256(f"{clip}/{snr}".encode()).digest()[:8], "little")


class _Sentences:
    """Stands in for the recognizer's phrase table: any text the templates read is a phrase."""

    def __init__(self, reads: Callable[[str], bool]) -> None:
        self.reads = reads

    def __bool__(self) -> bool:
        return True

    def get(self, text: str) -> str | None:
        return text if text and self.reads(text) else None


def pocketsphinx_ears(grammar: Mapping[str, Any], intents: Intents) -> Ears:
    """voicehost's pocketsphinx recognizer given the templates as JSGF rules, each clip heard
    whole."""
    from voicehost.speech.base import recognize as hear
    from voicehost.speech.pocketsphinx_engine import PocketsphinxRecognizer, missing_words

    missing = missing_words(v for values in grammar["lists"].values() for v in values["values"])
    missing += missing_words(re.sub(r"[^a-z' ]", " ", s) for s in sentences(grammar))
    if missing:
        refuse(f"pocketsphinx has no pronunciation for: {', '.join(dict.fromkeys(missing))}.")
    ears = PocketsphinxRecognizer(whole_utterance=True)
    # the host's set_phrases builds a list grammar; this one is the templates' rules
    ears._grammar.add_jsgf_string("coffee", jsgf(grammar))
    ears._grammar.activate_search("coffee")
    ears._phrases = _Sentences(lambda text: understand(text, intents) is not None)  # type: ignore[assignment]
    return lambda pcm: hear(ears, pcm)


def whisper_grammar_ears(grammar: Mapping[str, Any]) -> tuple[Ears, Callable[[], Any]]:
    """Whisper tiny.en searching the templates' sentences (whisper_grammar.py), each clip
    heard whole; and what its last confidence came from."""
    from voicehost.speech.base import recognize as hear
    from voicehost.speech.whisper_engine import WhisperRecognizer
    from voicehost.speech.whisper_grammar import WordGraph

    whisper = WhisperRecognizer(reader=reading_of)
    whisper.set_grammar(WordGraph.of(sentences(grammar), {
        name: values["values"] for name, values in grammar["lists"].items()}))
    return (lambda pcm: hear(whisper, pcm)), lambda: whisper.last_graph_evidence


def others(manifest: Path, half_name: str) -> list[tuple[str, Path]]:
    """The hearing corpus's clips that are no coffee order (chatter, noise, real people's
    digits) of one half: (kind, path)."""
    try:
        rows = [json.loads(line) for line in manifest.read_text(encoding="utf-8").splitlines()]
        return [(row["kind"], manifest.parent / row["file"]) for row in rows
                if row["kind"] != "option" and half_name in ("all", row["half"])]
    except (OSError, ValueError, KeyError, TypeError) as problem:
        refuse(f"{manifest}: not the hearing corpus's manifest ({problem}).")


def whisper_free_ears() -> Ears:
    """Whisper tiny.en transcribing freely."""
    from voicehost.speech.base import recognize as hear
    from voicehost.speech.engines import _whisper_if_installed

    whisper, why_not = _whisper_if_installed(reading_of)
    if whisper is None:
        refuse(f"{why_not}.")
    whisper.set_phrases(None)
    return lambda pcm: hear(whisper, pcm)


@dataclass
class Tally:
    accepted: int = 0
    wrong: int = 0
    refused: int = 0
    unrejected: int = 0  # right before rejection: the engine's best guess was the command

    @property
    def total(self) -> int:
        return self.accepted + self.wrong + self.refused

    def add(self, outcome: str) -> None:
        setattr(self, outcome, getattr(self, outcome) + 1)

    def rate(self) -> float:
        return 100.0 * self.accepted / self.total if self.total else 0.0


def table(tallies: Mapping[str, Tally]) -> Iterable[str]:
    """The figures per SNR as a Markdown table, Rhino's beside them."""
    yield ("| SNR (kitchen) | clips | accepted | wrong accepts | refused | right before "
           "rejection | Rhino |")
    yield "|---|---|---|---|---|---|---|"
    for snr, count in tallies.items():
        rhino = RHINO.get(int(snr)) if snr != "clean" else None
        yield (f"| {snr if snr == 'clean' else snr + ' dB'} | {count.total} | "
               f"{count.rate():.1f} % | {count.wrong} | {count.refused} | {count.unrejected} | "
               + (f"{rhino} %" if rhino is not None else "-") + " |")
    noisy = [t for snr, t in tallies.items() if snr != "clean"]
    if noisy:
        mean = sum(t.rate() for t in noisy) / len(noisy)
        yield (f"| noisy average | | {mean:.1f} % | | | | {RHINO['average']} % (24 to 6 dB, "
               "every 3 dB) |")


def fit_floors(rows: Listed[Mapping[str, Any]]) -> Iterable[str]:
    """From a tune run's --json lines: per pair of floors (the sentence's score per token, its
    gap to the free transcript), the orders taken right and wrong and the other clips taken;
    last, the pair that takes the most orders right with others ≤ 2 %, the strictest of
    equals."""
    orders = [r for r in rows if r["snr"] != "other" and r["evidence"]]
    other = [r for r in rows if r["snr"] == "other" and r["evidence"] and r["unrejected"]]
    total = sum(r["snr"] != "other" for r in rows)
    others = sum(r["snr"] == "other" for r in rows)
    best: tuple[int, float, float] | None = None
    yield "| score floor | gap floor | orders right | orders wrong | others taken |"
    yield "|---|---|---|---|---|"
    for score in (-4.0, -3.0, -2.5, -2.0, -1.5):
        for gap in (-2.0, -1.5, -1.0, -0.5, 0.0):
            floors = {"score": score, "free_gap": gap}
            taken = [r for r in orders + other
                     if all(r["evidence"][k] >= floor for k, floor in floors.items())]
            right = sum(r["unrejected"] == "accepted" for r in taken if r["snr"] != "other")
            wrong = sum(r["unrejected"] == "wrong" for r in taken if r["snr"] != "other")
            count = sum(r["snr"] == "other" for r in taken)
            yield (f"| {score:.1f} | {gap:.1f} | {right} of {total} | {wrong} | "
                   f"{count} of {others} |")
            if count <= 0.02 * others and (best is None or right >= best[0]):
                best = (right, score, gap)
    yield ("no pair keeps the others within 2 %" if best is None
           else f"chosen: score floor {best[1]}, gap floor {best[2]}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", type=Path, help="the benchmark repository's folder")
    parser.add_argument("--half", choices=("tune", "held-out", "all"), default="held-out")
    parser.add_argument("--snr", nargs="+", default=list(SNRS),
                        help="'clean' and/or SNRs in dB (default: %(default)s)")
    parser.add_argument("--every", type=int, default=1,
                        help="hear every Nth clip of the half, in name order (a subset)")
    parser.add_argument("--offset", type=int, default=0,
                        help="with --every N: start at this clip (0 to N-1), so that N runs "
                        "with offsets 0 to N-1 hear the whole half once")
    parser.add_argument("--engine", choices=ENGINES, default="whisper")
    parser.add_argument("--grammar-out", type=Path, default=None,
                        help="where the hassil templates go "
                        "(default DATA/coffee_maker_hassil.yaml)")
    parser.add_argument("--misses", action="store_true", help="print each clip not accepted")
    parser.add_argument("--others", type=Path, default=None,
                        help="the hearing corpus's manifest.jsonl: also hear its half's clips "
                        "that are no order (chatter, noise, digits) and count those taken")
    parser.add_argument("--json", type=Path, default=None,
                        help="add every clip's outcome (and Whisper's evidence) to this file, "
                        "one JSON line each, as it is heard")
    parser.add_argument("--fit", type=Path, default=None,
                        help="a tune run's --json file: print the floors it supports and stop")
    args = parser.parse_args(argv)
    if args.fit is not None:
        try:
            rows = [json.loads(line) for line in args.fit.read_text().splitlines()]
            print("\n".join(fit_floors(rows)))
        except (OSError, ValueError, KeyError, TypeError) as problem:
            refuse(f"{args.fit}: not a --json file of this script ({problem}).")
        return 0
    for snr in args.snr:
        if snr != "clean" and not re.fullmatch(r"-?\d+(\.\d+)?", snr):
            refuse(f"--snr {snr}: 'clean' or a number of dB.")
    if args.every < 1:
        refuse(f"--every {args.every}: 1 or more.")
    if not 0 <= args.offset < args.every:
        refuse(f"--offset {args.offset}: 0 to {args.every - 1} with --every {args.every}.")
    data = args.data
    if not (data / "data" / "label" / "label.json").is_file():
        refuse(f"{data}: no data/label/label.json: not the benchmark's folder.")
    grammar = write_grammar(data / "data" / "rhino" / "coffee_maker.yaml",
                            args.grammar_out or data / "coffee_maker_hassil.yaml")
    intents = Intents.from_dict(grammar)
    commands = labels(data / "data" / "label" / "label.json")
    clean = data / "data" / "speech" / "clean"
    clips = sorted(p.stem for p in clean.glob("*.wav")
                   if p.stem in commands and (args.half == "all" or half(p.stem) == args.half))
    clips = clips[args.offset::args.every]
    noise = read_samples(data / "data" / "noise" / "kitchen.wav")
    print(f"{len(clips)} clips ({args.half} half, every {args.every} from {args.offset}); "
          f"the templates expand to "
          f"{phrase_count(grammar):,} phrases; engine {args.engine}", flush=True)
    evidence: Callable[[], Any] = dict  # no evidence but Whisper's grammar search's
    if args.engine == "pocketsphinx":
        ears = pocketsphinx_ears(grammar, intents)
    elif args.engine == "whisper":
        ears, evidence = whisper_grammar_ears(grammar)
    else:
        ears = whisper_free_ears()

    def keep(hearing: Hearing, **facts: Any) -> None:
        if args.json is None:
            return
        found = evidence()
        with args.json.open("a", encoding="utf-8") as out:
            out.write(json.dumps({**facts, "heard": hearing.text, "raw": hearing.raw_text,
                                  "confidence": hearing.confidence,
                                  "seconds": hearing.decode_seconds,
                                  "evidence": vars(found) if found else None}) + "\n")
    tallies: dict[str, Tally] = {}
    started = time.process_time()
    audio_seconds = 0.0
    for snr in args.snr:
        count = tallies.setdefault(snr, Tally())
        for clip in clips:
            speech = read_samples(clean / f"{clip}.wav")
            audio_seconds += len(speech) / 16000
            samples = (speech if snr == "clean"
                       else mix(speech, noise, float(snr), np.random.default_rng(seed(clip, snr))))
            hearing = ears(pcm_bytes(samples))
            outcome = verdict(commands[clip], understand(hearing.text, intents))
            count.add(outcome)
            unrejected = verdict(commands[clip], understand(hearing.raw_text or hearing.text,
                                                            intents))
            count.unrejected += unrejected == "accepted"
            keep(hearing, snr=snr, clip=clip, outcome=outcome, unrejected=unrejected)
            if args.misses and outcome != "accepted":
                print(f"  {snr} {clip} {outcome}: heard {hearing.text!r} (raw "
                      f"{hearing.raw_text!r}, confidence {hearing.confidence:.2f}) for "
                      f"{commands[clip].slots}")
        print(f"{snr}: {count.accepted}/{count.total} accepted, {count.wrong} wrong, "
              f"{count.refused} refused", flush=True)
    if args.others is not None:
        taken: dict[str, list[int]] = {}
        for kind, path in others(args.others, args.half)[args.offset::args.every]:
            hearing = ears(pcm_bytes(read_samples(path)))
            heard = understand(hearing.text, intents) is not None
            taken.setdefault(kind, [0, 0])[heard] += 1
            keep(hearing, snr="other", clip=str(path), outcome=kind,
                 unrejected=understand(hearing.raw_text, intents) is not None)
        for kind, (refused, accepted) in taken.items():
            print(f"no order ({kind}): {accepted} of {accepted + refused} taken as one")
    cpu = time.process_time() - started
    print()
    print("\n".join(table(tallies)))
    print(f"\nCPU {cpu:.0f} s for {audio_seconds:.0f} s of audio "
          f"({cpu / max(audio_seconds, 1e-9):.2f} CPU s per audio s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
