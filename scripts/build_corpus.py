"""Build the hearing corpus on disk: WAVs and a manifest.jsonl under build/corpus/.

What is in it (voicehost/lab/voices.py has the voices and the tune / held-out split,
voicehost/lab/conditions.py the rooms):

- every phrase Secret Squad accepts (voicehost/lab/hearing_corpus.py `option_cases`), every
  phrase of Secret Operation's `turn` and of Ferret Out's `number` (the pick of a number), each
  heard under the full phrase set of its decision as the host offers it (commands included);
- in 12 target voices from four synthesizers (espeak-ng, flite, festival, piper);
- clean (every phrase in every voice), and in crowd babble at 20, 10 and 5 dB SNR, across the
  room with reverb, slow (0.8x) and fast (1.2x): `--sample K` phrases per voice and
  condition, picked deterministically (all of them with `--sample 0`);
- out-of-option clips: the table chatter of voicehost/lab/hearing_corpus.py in every target
  voice (each in one condition, in turn), babble alone, noise bursts, pink noise, near-silence;
- real human recordings from Debian's pocketsphinx-testdata, each heard among its own
  transcription and a few distractors written here (all held out);
- with `--fsdd DIR`, real people's spoken digits (the Free Spoken Digit Dataset's recordings,
  every `--fsdd-every`th clip), heard at Ferret Out's pick of a number (one to six offered,
  zero and seven to nine not), split by speaker as scripts/measure_digits.py splits them,
  clean ("real"), in the evaluation crowd's babble at 10 dB ("real-babble10") and, with
  `--kitchen WAV`, in that noise at 9 dB ("kitchen9").

A clip already on disk is not synthesized again; the manifest is rewritten every run.

    python scripts/build_corpus.py [--sample 120] [--workers 2] [--out build/corpus]
        [--fsdd /tmp/fsdd/recordings --kitchen /tmp/picovoice/data/noise/kitchen.wav]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import multiprocessing
import re
import time
import wave
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from functools import cache
from pathlib import Path

from measure_digits import NOISE_SNR_DB, clip_pcm, parse_name, split_speakers, with_noise

from voicehost.door import refuse
from voicehost.intents.grammar import Grammar
from voicehost.lab.conditions import CONDITIONS, babble, near_silence, pink_noise, sox, to_array
from voicehost.lab.hearing_corpus import OUT_OF_OPTION, noise_bursts, option_cases
from voicehost.lab.speakers import to_pcm
from voicehost.lab.voices import TARGETS, Voice, speak
from voicehost.tools import hear_grammar, read_wav
from voicehost.voice import SAMPLE_RATE

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = ROOT / "build" / "corpus"
DEFAULT_SAMPLE = 120
TESTDATA = Path("/usr/share/pocketsphinx/test/data")

# Decisions of the other games, "game/decision/players": every phrase of each is heard under
# its whole grammar. Ferret Out has no "pick" decision: `number` is where a player picks one.
OTHER_DECISIONS = ("secret-operation/turn/10", "ferret-out/number/10")

# Real recordings (pocketsphinx-testdata): file, what is said, and distractors that share
# words or rhythm with it, so the grammar is a real choice.
REAL = (
    ("goforward.raw", "go forward ten meters",
     ("go backward ten meters", "go forward two meters", "turn left ten degrees",
      "go forward ten feet")),
    ("something.raw", "go somewhere and do something",
     ("go home and do nothing", "come here and say something", "go somewhere else",
      "do something else")),
    ("tidigits/dhd.2934z.raw", "two nine three four zero",
     ("two nine three four", "two five three four zero", "nine two three four zero",
      "two nine three oh four")),
    ("cards/001.wav", "ten of clubs",
     ("ten of spades", "two of clubs", "ten of hearts", "queen of clubs")),
    ("cards/002.wav", "four queen of clubs",
     ("four of clubs", "queen of clubs", "four queen of spades", "five queen of hearts")),
    ("cards/003.wav", "seven of clubs",
     ("seven of hearts", "eleven clubs", "seven of spades", "six of clubs")),
    ("cards/004.wav", "five five",
     ("five nine", "nine five", "five of hearts", "four five")),
    ("cards/005.wav", "eight of spades four of clubs seven of hearts",
     ("eight of spades four of hearts seven of clubs", "eight of clubs four of spades",
      "seven of hearts four of clubs eight of spades", "eight of hearts seven of spades")),
    ("librivox/sense_and_sensibility_01_austen_64kb-0880.wav",
     "he was not an ill disposed young man",
     ("he was not an ill tempered old man", "he was a well disposed young man",
      "she was not an ill disposed young woman", "it was not an old man")),
    ("librivox/sense_and_sensibility_01_austen_64kb-0890.wav",
     "unless to be rather cold hearted and rather selfish is to be ill disposed",
     ("unless to be rather warm hearted and rather generous is to be well disposed",
      "to be rather cold and rather selfish is to be ill",
      "unless he was rather cold hearted and rather selfish",
      "rather cold hearted and rather selfish and ill disposed")),
    ("librivox/sense_and_sensibility_01_austen_64kb-0920.wav",
     "had he married a more amiable woman he might have been made still more respectable"
     " than he was",
     ("had he married a less amiable woman he might have been made still less respectable"
      " than he was", "had she married a more amiable man she might have been more respectable",
      "he might have been made still more respectable than he was",
      "had he married a more amiable woman")),
    ("librivox/sense_and_sensibility_01_austen_64kb-0930.wav",
     "he might even have been made amiable himself",
     ("he might never have been made amiable", "she might even have been made amiable herself",
      "he might even have made himself amiable", "he may have been made able himself")),
)


@dataclass(frozen=True)
class Entry:
    """One clip of the manifest. `intent`/`value`: what it should be heard as (None: it must
    not be understood); `grammar`: `grammar_for_key`'s key."""

    file: str
    text: str
    voice: str
    synth: str
    condition: str
    grammar: str
    intent: str | None
    value: str | None
    half: str
    kind: str  # option, chatter, babble, noise, pink, silence, real, real-other
    seed: int = 0
    source: dict[str, object] = field(default_factory=dict)  # how to make it, not manifested


def grammar_for_key(key: str) -> Grammar:
    """"game/decision/players", or "phrases:a|b|c" (each phrase its own intent)."""
    if key.startswith("phrases:"):
        return hear_grammar(key.removeprefix("phrases:"), "answer", 4)
    game, decision, players = key.split("/")
    return hear_grammar(None, decision, int(players), game)


def option_phrases() -> list[tuple[str, str, str, str]]:
    """(grammar key, phrase, intent name, intent value) for every phrase heard."""
    cases = [(f"secret-squad/{decision}/{players}", phrase, intent.name, intent.value)
             for (decision, players), phrase, intent in option_cases()]
    for key in OTHER_DECISIONS:
        cases += [(key, phrase, intent.name, intent.value)
                  for phrase, intent in grammar_for_key(key).intents.items()
                  if intent.name == "choose"]
    return cases


def stable(*parts: object) -> int:
    digest = hashlib.sha1("|".join(map(str, parts)).encode()).hexdigest()
    return int(digest[:12], 16)


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:40] or "x"


def clip_path(voice: str, condition: str, text: str, *salt: object) -> str:
    return f"{voice}/{condition}/{slug(text)}-{stable(text, *salt) % 16 ** 8:08x}.wav"


def sampled(cases: list[tuple[str, str, str, str]], voice: Voice, condition: str,
            sample: int) -> list[tuple[str, str, str, str]]:
    """Every case when clean or `sample` is 0, else `sample` of them, picked by a hash so each
    voice and condition hears a different, reproducible share."""
    if condition == "clean" or sample <= 0 or sample >= len(cases):
        return cases
    return sorted(cases, key=lambda c: stable(voice.name, condition, c[0], c[1]))[:sample]


def option_entries(sample: int) -> Iterator[Entry]:
    cases = option_phrases()
    for voice in TARGETS:
        for condition in CONDITIONS:
            for key, phrase, name, value in sampled(cases, voice, condition, sample):
                seed = stable(voice.name, condition, key, phrase) % 2 ** 31
                yield Entry(clip_path(voice.name, condition, phrase, key), phrase, voice.name,
                            voice.synth, condition, key, name, value, voice.half, "option",
                            seed)


def chatter_entries() -> Iterator[Entry]:
    """Each chatter sentence in every target voice, in one condition and grammar in turn."""
    keys = [*dict.fromkeys(k for k, *_ in option_phrases())]
    conditions = list(CONDITIONS)
    for i, text in enumerate(OUT_OF_OPTION):
        for j, voice in enumerate(TARGETS):
            condition = conditions[(i + j) % len(conditions)]
            yield Entry(clip_path(voice.name, condition, text, "chatter"), text, voice.name,
                        voice.synth, condition, keys[(i + j) % len(keys)], None, None,
                        voice.half, "chatter", stable(voice.name, text) % 2 ** 31)


def noise_entries() -> Iterator[Entry]:
    """Babble alone, noise bursts, pink noise, near-silence: alternately tune and held out."""
    keys = [*dict.fromkeys(k for k, *_ in option_phrases())]
    made = [("babble", 24), ("noise", len(noise_bursts())), ("pink", 10), ("silence", 10)]
    for kind, count in made:
        for i in range(count):
            yield Entry(f"{kind}/{kind}-{i:02d}.wav", kind, "none", "none", kind,
                        keys[i % len(keys)], None, None, ("tune", "held-out")[i % 2], kind,
                        1000 + i, {"index": i})


def real_entries() -> Iterator[Entry]:
    for name, text, distractors in REAL:
        phrases = [text, *distractors]
        order = sorted(phrases, key=lambda p: stable(name, p))  # the answer is not always first
        yield Entry(f"real/{slug(Path(name).stem)}.wav", text, f"human:{Path(name).stem}",
                    "human", "real", "phrases:" + "|".join(order), "choose", text, "held-out",
                    "real", 0, {"path": str(TESTDATA / name)})


FSDD_GRAMMAR = "ferret-out/number/10"
KITCHEN = f"kitchen{NOISE_SNR_DB:g}"
REAL_BABBLE = "real-babble10"


def fsdd_entries(folder: Path, every: int, kitchen: Path | None) -> Iterator[Entry]:
    """Every `every`th recording of each speaker and digit, clean, in a crowd and (with
    `kitchen`) in kitchen noise; one to nine are heard (seven to nine so that the host says
    the range of six), zero must be refused."""
    clips = sorted((parsed, path) for path in folder.iterdir()
                   if (parsed := parse_name(path.name)) is not None)
    tune, _ = split_speakers([speaker for (_, speaker, _), _ in clips])
    grammar = grammar_for_key(FSDD_GRAMMAR)
    number = {intent.value: (intent.name, intent.value) for intent in grammar.intents.values()
              if intent.name == "choose"}
    conditions = ["real", REAL_BABBLE, *([KITCHEN] if kitchen is not None else [])]
    for (digit, speaker, index), path in clips:
        if index % every:
            continue
        name, value = number.get(str(digit), (None, None))
        for condition in conditions:
            seed = stable(path.name, condition) % 2 ** 31
            yield Entry(f"fsdd/{condition}/{path.stem}.wav", str(digit), f"fsdd:{speaker}",
                        "human", condition, FSDD_GRAMMAR, name, value,
                        "tune" if speaker in tune else "held-out",
                        "real" if name else "real-other", seed,
                        {"fsdd": str(path), "noise": str(kitchen) if condition == KITCHEN
                         else ""})


def plan(sample: int, fsdd: Sequence[Entry] = ()) -> list[Entry]:
    return [*option_entries(sample), *chatter_entries(), *noise_entries(), *real_entries(),
            *fsdd]


def write_wav(path: Path, pcm: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".part")
    with wave.open(str(partial), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(SAMPLE_RATE)
        out.writeframes(pcm)
    partial.rename(path)  # a killed build leaves no half-written clip behind


VOICES_BY_NAME = {voice.name: voice for voice in TARGETS}


def make_speech(job: tuple[str, str, list[Entry]], out: Path) -> int:
    """Synthesize one text in one voice once, then write every clip made from it."""
    voice_name, text, entries = job
    pcm = speak(text, VOICES_BY_NAME[voice_name])
    for entry in entries:
        write_wav(out / entry.file, CONDITIONS[entry.condition](pcm, entry.seed))
    return len(entries)


def make_other(entry: Entry, out: Path) -> int:
    write_wav(out / entry.file, other_audio(entry))
    return 1


def other_audio(entry: Entry) -> bytes:
    index = int(entry.source.get("index", 0))  # type: ignore[call-overload]
    seconds = 1.0 + (entry.seed * 7919 % 2000) / 1000  # 1-3 s, reproducible
    if entry.kind == "babble":
        return babble(seconds, entry.seed)
    if entry.kind == "noise":
        return noise_bursts()[index]
    if entry.kind == "pink":
        return pink_noise(seconds, entry.seed, rms=300.0 + 250.0 * index)
    if entry.kind == "silence":
        return near_silence(seconds, entry.seed)
    if "fsdd" in entry.source:
        kitchen = str(entry.source["noise"])
        return real_in_room(clip_pcm(Path(str(entry.source["fsdd"]))), entry.condition,
                            entry.seed, Path(kitchen) if kitchen else None)
    if entry.kind == "real":
        return real_audio(Path(str(entry.source["path"])))
    raise ValueError(entry.kind)


def real_in_room(pcm: bytes, condition: str, seed: int, kitchen: Path | None) -> bytes:
    """A real recording in the room of `condition`: the crowd, the `kitchen` noise, or none."""
    if condition == REAL_BABBLE:
        return CONDITIONS["babble10"](pcm, seed)
    if condition == KITCHEN and kitchen is not None:
        noise = noise_samples(str(kitchen))
        return with_noise(pcm, noise, NOISE_SNR_DB, seed % len(noise))  # type: ignore[arg-type]
    return pcm


@cache
def noise_samples(path: str) -> object:
    return to_array(read_wav(Path(path)))


def real_audio(path: Path) -> bytes:
    """A test recording as 16 kHz mono PCM with 0.3 s of silence each side, like a clip."""
    if path.suffix == ".raw":
        return sox(path.read_bytes(), "pad", "0.3", "0.3")
    return to_pcm(path, "pad", "0.3", "0.3")


def _run(job: tuple[str, object], out: Path) -> int:
    kind, payload = job
    if kind == "speech":
        return make_speech(payload, out)  # type: ignore[arg-type]
    return make_other(payload, out)  # type: ignore[arg-type]


def jobs(entries: list[Entry], out: Path) -> list[tuple[str, object]]:
    """The clips not yet on disk, grouped so each text is synthesized once per voice; the
    slow synthesizers first so the two workers finish together."""
    missing = [e for e in entries if not (out / e.file).exists()]
    grouped: dict[tuple[str, str], list[Entry]] = {}
    for entry in missing:
        if entry.voice in VOICES_BY_NAME:
            grouped.setdefault((entry.voice, entry.text), []).append(entry)
    slow = {"festival": 0, "piper": 1}
    speech = sorted(grouped.items(),
                    key=lambda item: slow.get(VOICES_BY_NAME[item[0][0]].synth, 2))
    return ([("speech", (voice, text, group)) for (voice, text), group in speech]
            + [("other", e) for e in missing if e.voice not in VOICES_BY_NAME])


def build(out: Path, sample: int, workers: int, fsdd: Sequence[Entry]) -> list[Entry]:
    entries = plan(sample, fsdd)
    todo = jobs(entries, out)
    started, done = time.perf_counter(), 0
    with multiprocessing.get_context("fork").Pool(workers) as pool:
        for count in pool.imap_unordered(_job, [(job, out) for job in todo], chunksize=4):
            done += count
            if done % 500 < count:
                print(f"  {done} clips written, {time.perf_counter() - started:.0f} s",
                      flush=True)
    write_manifest(out, entries)
    return entries


def _job(args: tuple[tuple[str, object], Path]) -> int:
    return _run(*args)


def write_manifest(out: Path, entries: list[Entry]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    with (out / "manifest.jsonl").open("w") as manifest:
        for entry in entries:
            record = asdict(entry)
            record.pop("source")
            manifest.write(json.dumps(record) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--sample", type=int, default=DEFAULT_SAMPLE,
                        help="phrases per voice and noisy condition (0: all); clean has all")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--fsdd", type=Path, help="the Free Spoken Digit Dataset's recordings")
    parser.add_argument("--fsdd-every", type=int, default=5,
                        help="take every Nth recording of each speaker and digit")
    parser.add_argument("--kitchen", type=Path, help="a kitchen-noise WAV for the real digits")
    args = parser.parse_args()
    if args.fsdd is not None and not args.fsdd.is_dir():
        refuse(f"{args.fsdd} is not a folder of recordings.")
    if args.fsdd_every < 1:
        refuse("--fsdd-every must be 1 or more.")
    if args.kitchen is not None and not args.kitchen.is_file():
        refuse(f"{args.kitchen} is not a WAV file.")
    fsdd = list(fsdd_entries(args.fsdd, args.fsdd_every, args.kitchen)) if args.fsdd else []
    started = time.perf_counter()
    entries = build(args.out, args.sample, args.workers, fsdd)
    kinds: dict[str, int] = {}
    for entry in entries:
        kinds[f"{entry.half} {entry.kind}"] = kinds.get(f"{entry.half} {entry.kind}", 0) + 1
    print(f"{len(entries)} clips in {args.out / 'manifest.jsonl'} "
          f"({time.perf_counter() - started:.0f} s): "
          + ", ".join(f"{k} {n}" for k, n in sorted(kinds.items())))


if __name__ == "__main__":
    main()
