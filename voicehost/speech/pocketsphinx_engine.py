"""Pocketsphinx in limited mode: a JSGF grammar of the moment's phrases, plus rejection.

A grammar-only decoder maps any sound to the nearest phrase. To say "not understood", every
utterance is decoded twice while it streams in: once by the grammar and once by a free phone
loop (allphone search with the phone language model that ships with pocketsphinx). Speech that
really is one of the phrases scores nearly as well under the grammar as under the free loop;
chatter forced into a phrase scores far worse per frame. That per-frame log-likelihood ratio,
less a penalty for loud frames the grammar could only explain as silence, becomes the
confidence; below the floor the text is "".
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np
from pocketsphinx import Decoder, get_model_path

from voicehost.voice import SAMPLE_RATE, SAMPLE_WIDTH, Hearing
from voicehost.words import normalize

MODEL_DIR = Path(get_model_path()) / "en-us"
HMM_DIR = MODEL_DIR / "en-us"
DICTIONARY = MODEL_DIR / "cmudict-en-us.dict"
PHONE_LM = MODEL_DIR / "en-us-phone.lm.bin"

FRAME_SAMPLES = SAMPLE_RATE // 100  # pocketsphinx decodes 100 frames a second
# Audio goes to the decoders in blocks of this size whatever the caller's chunks are: with
# 20 ms chunks pocketsphinx scores differ slightly from one block, so results would depend on
# how the microphone happened to slice the audio. At most one block is left for finish().
BLOCK_BYTES = SAMPLE_RATE // 10 * SAMPLE_WIDTH
LOG_BASE = 1.0001  # pocketsphinx's log base: scores are exponents of it

# Tuned with scripts/tune_rejection.py on the espeak-ng corpus (see its output).
DEFAULT_FLOOR = 0.5
LR_CENTER = 2.0  # per-frame grammar−phone-loop score where confidence is 0.5
LR_SCALE = 4.0
UNEXPLAINED_ALLOWANCE = 4  # loud frames inside "silence" that are forgiven (onsets, tails)
UNEXPLAINED_SCALE = 4.0  # each this many more such frames lowers the logit by 1
DITHER_SIGMA = 100.0  # int16 units, about -50 dBFS
DITHER_SEED = 0  # the same dither for every utterance: the same audio is always heard alike
# A streaming decoder's live CMN starts from the model's default and adapts over the first
# utterances; until then an utterance it rejects is heard once more whole, as if alone
# (batch CMN, as `voicehost hear` hears a file): a cold decoder then misses far fewer words
# (docs/hearing.md, "The live ears warm up").
WARM_UP_UTTERANCES = 5

DECODER_OPTIONS: dict[str, object] = {
    "hmm": str(HMM_DIR),
    "dict": str(DICTIONARY),
    "loglevel": "FATAL",
    "bestpath": False,  # the lattice pass returns partial phrases on short grammars
    "topn": 16,  # more gaussians per senone: fewer confusions on unusual voices
}
FILLERS = frozenset({"<s>", "</s>", "<sil>", "[NOISE]", "[SPEECH]", "(NULL)"})


@dataclass(frozen=True)
class Pass:
    """What one decoder made of an utterance: text, total score and word segments."""

    text: str
    score: float  # total path score in pocketsphinx log units; -inf when nothing came out
    segments: tuple[tuple[str, int, int], ...]  # (word, first frame, last frame)


@dataclass(frozen=True)
class Evidence:
    """Why an utterance got its confidence (kept for diagnostics and tuning)."""

    ratio: float  # per speech frame: grammar path score minus free phone loop score
    unexplained: int  # loud frames the grammar path could only call silence or noise


@cache
def dictionary_words(path: Path = DICTIONARY) -> frozenset[str]:
    """Every word the pronunciation dictionary knows (alternates like "the(2)" folded in)."""
    with path.open(encoding="utf-8") as lines:
        return frozenset(line.split(" ", 1)[0].split("(", 1)[0] for line in lines if line.strip())


def missing_words(phrases: Iterable[str]) -> list[str]:
    """Words of `phrases` that pocketsphinx cannot pronounce, in order of first appearance."""
    known = dictionary_words()
    missing: dict[str, None] = {}
    for phrase in phrases:
        for word in normalize(phrase).split():
            if word not in known:
                missing[word] = None
    return list(missing)


def jsgf(phrases: Sequence[str]) -> str:
    """A grammar accepting exactly one of `phrases` (already normalized)."""
    return "#JSGF V1.0;\ngrammar options;\npublic <options> = " + " | ".join(phrases) + ";\n"


def log_score(value: float) -> float:
    """Undo the Python binding's exponentiation of a pocketsphinx score."""
    return math.log(value) / math.log(LOG_BASE) if value > 0 else -math.inf


def sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, x))))


def confidence(evidence: Evidence) -> float:
    """0..1: how surely the utterance is the phrase the grammar found."""
    logit = (evidence.ratio - LR_CENTER) / LR_SCALE
    logit -= max(0, evidence.unexplained - UNEXPLAINED_ALLOWANCE) / UNEXPLAINED_SCALE
    return sigmoid(logit)


def read_pass(decoder: Decoder) -> Pass:
    hyp = decoder.hyp()
    if hyp is None:
        return Pass("", -math.inf, ())
    segments = tuple((s.word, s.start_frame, s.end_frame) for s in decoder.seg())
    return Pass(hyp.hypstr, log_score(hyp.score), segments)


def speech_frames(segments: Iterable[tuple[str, int, int]]) -> list[tuple[int, int]]:
    """Frame spans of real words (fillers, silence and phone-loop SIL left out)."""
    return [(first, last) for word, first, last in segments
            if word not in FILLERS and word != "SIL" and not word.startswith("+")]


def unexplained_frames(segments: Iterable[tuple[str, int, int]], loud: np.ndarray) -> int:
    """Loud frames that the grammar path could only account for as silence or noise."""
    count = 0
    for word, first, last in segments:
        if word in FILLERS:
            count += int(loud[first:last + 1].sum())
    return count


def loud_frames(energies_db: np.ndarray) -> np.ndarray:
    """Frames well above the utterance's own noise floor (half-way up to its peaks)."""
    if len(energies_db) == 0:
        return np.zeros(0, dtype=bool)
    floor, peak = np.percentile(energies_db, 10), np.percentile(energies_db, 95)
    return energies_db > floor + 0.5 * (peak - floor)


class PocketsphinxRecognizer:
    """The Recognizer protocol on pocketsphinx's bundled US-English model, with rejection."""

    name = "pocketsphinx"
    # Its bundled language model gets hardly a single word right (docs/rules-notes.md,
    # Ferret Out by voice): clues are played back from their recording instead of transcribed.
    open_vocabulary = False

    def __init__(self, floor: float = DEFAULT_FLOOR, *, whole_utterance: bool = False,
                 warm_up: int = WARM_UP_UTTERANCES) -> None:
        self.floor = floor
        self.warm_up = warm_up
        self._finished = 0
        # True: hold the audio and decode it in one piece in finish(), so that pocketsphinx
        # applies the model's batch CMN (feat.params says "cmn batch"; streamed blocks silently
        # turn it into live CMN), from a freshly reset feature pipeline: each utterance is heard
        # as if it were the first, whatever came before. That is how `voicehost hear` hears a
        # file. Live hearing streams: a warm live CMN hears more words than batch CMN, and the
        # whole decode would land after the endpoint instead of while the player talks
        # (docs/hearing.md, "A cold decoder hears worse").
        self.whole_utterance = whole_utterance
        self._held: list[bytes] = []
        self._grammar = Decoder(lm=None, **DECODER_OPTIONS)
        self._loop = Decoder(lm=None, allphone=str(PHONE_LM), **DECODER_OPTIONS)
        self._searches: dict[tuple[str, ...], str] = {}
        self._phrases: dict[str, str] = {}  # normalized → as the caller spelled it
        self._started = False
        self._rng = np.random.default_rng(DITHER_SEED)
        self._pending = b""
        self._energy_tail = np.zeros(0, dtype=np.float64)
        self._energies: list[np.ndarray] = []
        self._audio_samples = 0
        self.last_evidence: Evidence | None = None

    def set_phrases(self, phrases: Sequence[str]) -> None:
        """Limit recognition to `phrases`; grammars are built once per phrase set and cached."""
        normalized = {normalize(p): p for p in phrases if normalize(p)}
        if not normalized:
            raise ValueError("set_phrases needs at least one non-empty phrase")
        missing = missing_words(normalized)
        if missing:
            raise ValueError("pocketsphinx's dictionary has no pronunciation for: "
                             + ", ".join(missing))
        key = tuple(sorted(normalized))
        search = self._searches.get(key)
        if search is None:
            search = f"options{len(self._searches)}"
            self._grammar.add_jsgf_string(search, jsgf(key))
            self._searches[key] = search
        self._grammar.activate_search(search)
        self._phrases = normalized

    def start(self) -> None:
        if not self._phrases:
            raise RuntimeError("call set_phrases before start")
        if self._started:
            self._end_decoders()
        self._rng = np.random.default_rng(DITHER_SEED)
        self._pending = b""
        self._energy_tail = np.zeros(0, dtype=np.float64)
        self._energies = []
        self._audio_samples = 0
        self._held = []
        if self.whole_utterance:
            # noise removal and CMN otherwise carry over from the previous utterance
            self._grammar.reinit_feat()
            self._loop.reinit_feat()
        self._grammar.start_utt()
        self._loop.start_utt()
        self._started = True

    def feed(self, pcm: bytes) -> None:
        if not self._started:
            raise RuntimeError("call start before feed")
        self._pending += pcm
        whole = len(self._pending) - len(self._pending) % BLOCK_BYTES
        if whole:
            self._decode(self._pending[:whole])
            self._pending = self._pending[whole:]

    def _decode(self, pcm: bytes) -> None:
        usable = len(pcm) - len(pcm) % SAMPLE_WIDTH
        if usable == 0:
            return
        samples = self._dither(np.frombuffer(pcm[:usable], dtype="<i2"))
        self._track_energy(samples)
        raw = samples.tobytes()
        if self.whole_utterance or self._finished < self.warm_up:  # kept to hear it again
            self._held.append(raw)
        if self.whole_utterance:
            return
        for offset in range(0, len(raw), BLOCK_BYTES):
            self._grammar.process_raw(raw[offset:offset + BLOCK_BYTES], False, False)
            self._loop.process_raw(raw[offset:offset + BLOCK_BYTES], False, False)

    def _dither(self, samples: np.ndarray) -> np.ndarray:
        # Exact digital zeros (synthetic audio, muted inputs) make pocketsphinx skip frames
        # in its normalization and lose words; a faint noise floor keeps every frame usable.
        self._audio_samples += len(samples)
        noise = self._rng.normal(0.0, DITHER_SIGMA, len(samples))
        return np.clip(samples + noise, -32768, 32767).astype(np.int16)

    def _track_energy(self, samples: np.ndarray) -> None:
        joined = np.concatenate([self._energy_tail, samples.astype(np.float64)])
        whole = len(joined) - len(joined) % FRAME_SAMPLES
        frames = joined[:whole].reshape(-1, FRAME_SAMPLES)
        self._energies.append(10 * np.log10(np.mean(frames ** 2, axis=1) + 1.0))
        self._energy_tail = joined[whole:]

    def preview(self) -> bool:
        return False  # it decodes as the audio streams in: finish() is quick already

    def complete(self) -> bool:
        return False

    def finish(self) -> Hearing:
        if not self._started:
            raise RuntimeError("call start before finish")
        began = time.perf_counter()
        self._decode(self._pending)
        self._pending = b""
        if self.whole_utterance and self._held:
            self._decode_whole(b"".join(self._held))
        self._end_decoders()
        heard, loop = read_pass(self._grammar), read_pass(self._loop)
        sure = self._confidence(heard, loop)
        phrase = self._phrases.get(heard.text)
        self._finished += 1
        if ((phrase is None or sure < self.floor) and not self.whole_utterance
                and self._finished <= self.warm_up and self._held):
            heard, loop = self._hear_alone(b"".join(self._held))
            sure = self._confidence(heard, loop)
            phrase = self._phrases.get(heard.text)
        text = phrase if phrase is not None and sure >= self.floor else ""
        return Hearing(text=text, confidence=sure if phrase is not None else 0.0,
                       audio_seconds=self._audio_samples / SAMPLE_RATE,
                       decode_seconds=time.perf_counter() - began, raw_text=heard.text)

    def _decode_whole(self, audio: bytes) -> None:
        self._grammar.process_raw(audio, False, True)
        self._loop.process_raw(audio, False, True)

    def _hear_alone(self, audio: bytes) -> tuple[Pass, Pass]:
        """Decode `audio` again in whole-utterance mode, then give the live CMN back."""
        live = self._grammar.get_cmn(), self._loop.get_cmn()
        for decoder in (self._grammar, self._loop):
            decoder.reinit_feat()
            decoder.start_utt()
        self._decode_whole(audio)
        for decoder in (self._grammar, self._loop):
            decoder.end_utt()
        again = read_pass(self._grammar), read_pass(self._loop)
        for decoder, cmn in zip((self._grammar, self._loop), live, strict=True):
            decoder.reinit_feat()
            decoder.set_cmn(cmn)
        return again

    def _end_decoders(self) -> None:
        self._grammar.end_utt()
        self._loop.end_utt()
        self._started = False

    def _confidence(self, heard: Pass, loop: Pass) -> float:
        spans = speech_frames(heard.segments)
        self.last_evidence = None
        if not spans or not math.isfinite(heard.score) or not math.isfinite(loop.score):
            return 0.0
        frames = sum(last - first + 1 for first, last in spans)
        energies = np.concatenate(self._energies) if self._energies else np.zeros(0)
        evidence = Evidence(ratio=(heard.score - loop.score) / frames,
                            unexplained=unexplained_frames(heard.segments, loud_frames(energies)))
        self.last_evidence = evidence
        return confidence(evidence)
