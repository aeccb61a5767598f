"""The vosk (Kaldi) recognizer: grammar mode for what the moment accepts, open mode for clues.

In grammar mode vosk decodes against a small language model built from the phrases plus the
model's garbage word ("[unk]" in most models, "<UNK>" in some), so anything else tends to come
out as that garbage word. Only a whole phrase counts as heard: garbage, a sequence of several
phrases or a result below the confidence floor all come back as "".
"""

from __future__ import annotations

import json
import struct
import time
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import BinaryIO

import vosk

from voicehost.voice import SAMPLE_RATE, SAMPLE_WIDTH, Hearing
from voicehost.words import normalize

# Kaldi severity: warnings are -1, errors -2. Missing grammar words are detected here instead
# of being logged as warnings, so only errors reach stderr.
vosk.SetLogLevel(-2)

UNK_TOKENS = ("[unk]", "<UNK>", "<unk>")  # the garbage word, in the spellings models use
CHUNK_BYTES = 3200  # 0.1 s of audio per AcceptWaveform call
GRAMMAR_CACHE_SIZE = 16

_FST_MAGIC = 2125659606
_SYMBOL_TABLE_MAGIC = 2125658996
_FST_HAS_ISYMBOLS = 1
_FST_HAS_OSYMBOLS = 2


def read_vocabulary(model_dir: Path) -> frozenset[str]:
    """Every word the model knows: from words.txt, or else the symbol table inside its graph."""
    for name in ("graph/words.txt", "words.txt"):
        if (model_dir / name).is_file():
            lines = (model_dir / name).read_text(encoding="utf-8").splitlines()
            return frozenset(line.split()[0] for line in lines if line.strip())
    for name in ("graph/Gr.fst", "graph/HCLG.fst", "Gr.fst", "HCLG.fst"):
        if (model_dir / name).is_file():
            with open(model_dir / name, "rb") as f:
                return frozenset(_fst_output_symbols(f))
    raise ValueError(f"{model_dir} has neither a words.txt nor a graph to read words from")


def _fst_output_symbols(f: BinaryIO) -> Iterator[str]:
    """The output symbols stored in an OpenFst binary file's header."""
    if _int32(f) != _FST_MAGIC:
        raise ValueError(f"{f.name} is not an OpenFst file")
    _string(f)  # fst type
    _string(f)  # arc type
    _int32(f)  # version
    flags = _int32(f)
    f.read(8 * 4)  # properties, start state, number of states, number of arcs
    if flags & _FST_HAS_ISYMBOLS:
        for _ in _symbol_table(f):
            pass
    if not flags & _FST_HAS_OSYMBOLS:
        raise ValueError(f"{f.name} carries no word list")
    yield from _symbol_table(f)


def _symbol_table(f: BinaryIO) -> Iterator[str]:
    if _int32(f) != _SYMBOL_TABLE_MAGIC:
        raise ValueError(f"{f.name} has a damaged symbol table")
    _string(f)  # table name
    _int64(f)  # next free key
    for _ in range(_int64(f)):
        yield _string(f)
        _int64(f)  # key


def _int32(f: BinaryIO) -> int:
    return struct.unpack("<i", f.read(4))[0]


def _int64(f: BinaryIO) -> int:
    return struct.unpack("<q", f.read(8))[0]


def _string(f: BinaryIO) -> str:
    return f.read(_int32(f)).decode("utf-8")


class VoskRecognizer:
    """Recognizer protocol over vosk. Load the model once and share it between instances by
    passing a `vosk.Model` instead of a path."""

    name = "vosk"
    open_vocabulary = True  # set_phrases(None) transcribes free speech (clues)

    def __init__(
        self,
        model: vosk.Model | str | Path,
        confidence_floor: float = 0.5,
        decoys: Sequence[str] = (),
    ) -> None:
        """`decoys` are extra in-vocabulary words put into every grammar to soak up speech
        that is not one of the phrases; hearing one gives "" (see models/README.md)."""
        if not 0.0 <= confidence_floor <= 1.0:
            raise ValueError(f"confidence_floor must be within 0..1, not {confidence_floor}")
        self.model = model if isinstance(model, vosk.Model) else vosk.Model(str(model))
        self.confidence_floor = confidence_floor
        self.unk = next((t for t in UNK_TOKENS if self._knows(t)), None)
        self.decoys = tuple(normalize(d) for d in decoys)
        self._refuse_missing(self.decoys, "decoy")
        self._grammars: OrderedDict[tuple[str, ...], vosk.KaldiRecognizer] = OrderedDict()
        self._open: vosk.KaldiRecognizer | None = None
        self._phrases: tuple[str, ...] | None = None
        self._active: vosk.KaldiRecognizer | None = None
        self._segments: list[dict] = []
        self._pending = b""
        self._audio_bytes = 0

    def _knows(self, word: str) -> bool:
        return self.model.vosk_model_find_word(word) >= 0

    def missing_words(self, phrases: Sequence[str]) -> list[str]:
        """Words of `phrases` the model cannot hear (vosk would silently drop them)."""
        words = dict.fromkeys(w for p in phrases for w in p.split())
        return [w for w in words if not self._knows(w)]

    def _refuse_missing(self, phrases: Sequence[str], what: str) -> None:
        missing = self.missing_words(phrases)
        if missing:
            raise ValueError(
                f"{what} words missing from the vosk model's vocabulary: {', '.join(missing)}"
            )

    def set_phrases(self, phrases: Sequence[str] | None) -> None:
        """Limit recognition to `phrases`; None opens the whole vocabulary (free speech)."""
        if phrases is None:
            self._phrases = None
            return
        cleaned = tuple(sorted({normalize(p) for p in phrases} - {""}))
        if not cleaned:
            raise ValueError("set_phrases needs at least one phrase (None means open vocabulary)")
        self._refuse_missing(cleaned, "phrase")
        self._phrases = cleaned
        if cleaned not in self._grammars:
            self._grammars[cleaned] = self._new_recognizer(self.grammar_json(cleaned))
            if len(self._grammars) > GRAMMAR_CACHE_SIZE:
                self._grammars.popitem(last=False)
        self._grammars.move_to_end(cleaned)

    def set_open_vocabulary(self) -> None:
        self.set_phrases(None)

    def grammar_json(self, phrases: Sequence[str]) -> str:
        """The vosk grammar: the phrases, the decoys and the garbage word, non-ASCII kept."""
        garbage = [self.unk] if self.unk else []
        return json.dumps([*phrases, *self.decoys, *garbage], ensure_ascii=False)

    def _new_recognizer(self, grammar: str | None) -> vosk.KaldiRecognizer:
        if grammar is None:
            recognizer = vosk.KaldiRecognizer(self.model, SAMPLE_RATE)
        else:
            recognizer = vosk.KaldiRecognizer(self.model, SAMPLE_RATE, grammar)
        recognizer.SetWords(True)
        return recognizer

    def start(self) -> None:
        if self._phrases is None:
            self._open = self._open or self._new_recognizer(None)
            self._active = self._open
        else:
            self._active = self._grammars[self._phrases]
        self._active.Reset()
        self._segments = []
        self._pending = b""
        self._audio_bytes = 0

    def feed(self, pcm: bytes) -> None:
        if self._active is None:
            raise RuntimeError("feed() before start()")
        self._audio_bytes += len(pcm)
        data = self._pending + pcm
        usable = len(data) - len(data) % SAMPLE_WIDTH  # an odd byte waits for its partner
        self._pending = data[usable:]
        for i in range(0, usable, CHUNK_BYTES):
            if self._active.AcceptWaveform(data[i : min(i + CHUNK_BYTES, usable)]):
                self._segments.append(json.loads(self._active.Result()))

    def preview(self) -> bool:
        return False  # it decodes as the audio streams in: finish() is quick already

    def complete(self) -> bool:
        return False

    def finish(self) -> Hearing:
        if self._active is None:
            raise RuntimeError("finish() before start()")
        began = time.perf_counter()
        self._segments.append(json.loads(self._active.FinalResult()))
        text, confidence, raw = self._judge(self._segments)
        decode_seconds = time.perf_counter() - began
        self._active = None
        return Hearing(
            text=text,
            confidence=confidence,
            audio_seconds=self._audio_bytes / (SAMPLE_RATE * SAMPLE_WIDTH),
            decode_seconds=decode_seconds,
            raw_text=raw,
        )

    def _judge(self, segments: list[dict]) -> tuple[str, float, str]:
        """(text, confidence, raw text) for the words vosk returned."""
        words = [w for s in segments for w in s.get("result", [])]
        raw = " ".join(w["word"] for w in words)
        if not words or any(w["word"] in UNK_TOKENS for w in words):
            return "", 0.0, raw
        if self._phrases is not None and raw not in self._phrases:
            return "", 0.0, raw  # a decoy, or several phrases run together
        confidence = max(0.0, min(1.0, *(float(w["conf"]) for w in words)))
        if confidence < self.confidence_floor:
            return "", confidence, raw
        return raw, confidence, raw
