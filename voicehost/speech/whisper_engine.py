"""Whisper (tiny.en on CTranslate2) that scores the offered phrases instead of transcribing.

Free Whisper decoding parrots a prompt of options and hallucinates on silence. Here the audio
is encoded once and every offered phrase is scored by the decoder with its tokens forced
(whisper_scoring.py). The free greedy transcript of the same audio (whisper_free.py) is scored
the same way and plays the part of pocketsphinx's free phone loop: the best phrase's confidence
is a logistic fit of its score, its gap to the free transcript's, its margin over the runner-up,
its length in words and how alike the free transcript is spelled (confidence.py). Whisper's
no-speech probability told right phrases from chatter no better than chance (docs/hearing.md),
so it is kept for diagnostics only.

What the free transcript says beside the best phrase is the intents room's to decide: the engine
is built with a `Reader` (voicehost.intents.understand.reading_of) and asks the reading of the
phrases it offers. The model's files and their pinning: whisper_model.py; the features:
features.py.
"""

from __future__ import annotations

import math
import time
from collections import OrderedDict
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path

import numpy as np

from voicehost.speech import letters
from voicehost.speech.base import Reader
from voicehost.speech.confidence import DEFAULT_FLOOR, Evidence
from voicehost.speech.features import HOP, MAX_FRAMES, log_mel
from voicehost.speech.whisper_decoder import BEAM_WIDTH, TextDecoder
from voicehost.speech.whisper_free import FreeDecoder
from voicehost.speech.whisper_grammar import (
    GRAPH_FLOOR,
    GRAPH_LONGEST,
    GraphEvidence,
    TokenGraph,
    WordGraph,
    search,
    words_of,
)
from voicehost.speech.whisper_model import (
    END_OF_TEXT_TOKEN,
    END_TOKENS,
    ENGLISH_TASK_TOKENS,
    PREFIX_TOKENS,
    WhisperModelError,
    find_model,
    load_tokenizer,
    verify_model,
)
from voicehost.speech.whisper_scoring import (
    PRUNE_NATS,
    PhraseScorer,
    PhraseSet,
    Ranked,
    Scores,
    rank,
)
from voicehost.voice import SAMPLE_RATE, Hearing
from voicehost.words import normalize, plain_words

# The encoder takes fewer than 3000 frames: the utterance plus 1 s, not 30 s, is far faster
# to score and hears single words freely at least as well (docs/hearing.md, "Whisper's settings").
DEFAULT_PAD_SECONDS = 1.0
OPEN_PAD_SECONDS: float | None = 1.0
FREE_EXTRA_TOKENS = 4  # the free transcript may run this much longer than the longest phrase
PHRASE_CACHE_SIZE = 16
# An answer is whole, and the utterance may end before its trailing silence, when at no earlier
# word of its phrase the text ends with this chance or more (docs/speed.md, "Ending when the
# answer is whole"): 0 of 150 cut-off phrases passed on the tune voices.
ENDS_INSIDE_CHANCE = 0.1


class WhisperRecognizer:
    """The Recognizer protocol on Whisper tiny.en: phrase scoring, rejection, free text."""

    name = "whisper"
    # set_phrases(None) transcribes freely, but tiny.en gets too few single deck words right
    # (docs/hearing.md), with no confidence that tells right from wrong: clues are played back from
    # their recording instead.
    open_vocabulary = False

    def __init__(self, model: Path | None = None, *, reader: Reader,
                 floor: float = DEFAULT_FLOOR,
                 pad_seconds: float | None = DEFAULT_PAD_SECONDS,
                 open_pad_seconds: float | None = OPEN_PAD_SECONDS, threads: int = 2,
                 compute_type: str = "int8",
                 prune_nats: float = PRUNE_NATS, beam_width: int = BEAM_WIDTH,
                 verify: bool = True, use_letters: bool = True) -> None:
        import ctranslate2
        model_dir = find_model(model)
        if verify:
            verify_model(model_dir)
        self.reader = reader
        self.floor = floor
        self.pad_seconds = pad_seconds  # None: pad to the full 30 s window
        self.open_pad_seconds = open_pad_seconds
        try:
            letters_head = letters.head() if use_letters else None
        except letters.LettersError as problem:
            raise WhisperModelError(str(problem)) from None
        self._ctranslate2 = ctranslate2
        self._model = ctranslate2.models.Whisper(str(model_dir), device="cpu",
                                                 compute_type=compute_type,
                                                 intra_threads=threads)
        self._decoder = TextDecoder(model_dir)
        self._tokenizer = load_tokenizer(model_dir / "tokenizer.json")
        self._end_of_text = self._tokenizer.token_to_id(END_OF_TEXT_TOKEN)
        prefix = [PREFIX_TOKENS[0]]
        if self._model.is_multilingual:
            prefix += ENGLISH_TASK_TOKENS
        self._prefix = [self._tokenizer.token_to_id(t) for t in (*prefix, PREFIX_TOKENS[1])]
        self._pause_ids = self._tokenizer.encode(",", add_special_tokens=False).ids
        self.last_graph_evidence: GraphEvidence | None = None
        self._end_ids = [self._end_of_text] + [
            self._tokenizer.token_to_id(t.replace(" ", "Ġ")) for t in END_TOKENS
            if self._tokenizer.token_to_id(t.replace(" ", "Ġ")) is not None]
        self.free = FreeDecoder(self._model, self._tokenizer, self._prefix, self._end_ids)
        self.scorer = PhraseScorer(self._decoder, self._tokenizer, self._prefix, self._end_ids,
                                   self._pause_ids, letters_head, prune_nats, beam_width)
        self._cache: OrderedDict[tuple[tuple[str, str], ...], PhraseSet] = OrderedDict()
        self._phrases: PhraseSet | None = None
        self._open = False
        self._graph: TokenGraph | None = None
        self._held: list[bytes] = []
        self._started = False
        self.last_scores: Scores | None = None
        self.last_ranked: Ranked | None = None
        self._previewer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="whisper")
        self._preview: Future[Hearing] | None = None
        self._previewed = 0  # chunks of audio the preview heard

    @property
    def offered(self) -> tuple[str, ...]:
        """The phrases offered now, in the order `Scores.phrase_scores` gives them."""
        assert self._phrases is not None
        return self._phrases.phrases

    @property
    def last_alternatives(self) -> list[tuple[str, float]]:
        """The last hearing's phrases with their confidence, best first."""
        return [] if self.last_ranked is None else self.last_ranked.alternatives[:3]

    @property
    def last_evidence(self) -> Evidence | None:
        """The last hearing's best phrase's evidence, for tuning."""
        return None if self.last_ranked is None else self.last_ranked.evidence

    def use_letters(self, used: bool) -> None:
        """Hear with the letters head (the default) or with the decoder alone."""
        self.scorer.letters = letters.head() if used else None

    def set_phrases(self, phrases: Sequence[str] | None) -> None:
        """Limit recognition to `phrases`; None transcribes freely (open vocabulary)."""
        self._graph = None
        if phrases is None:
            self._open, self._phrases = True, None
            return
        spelled = {normalize(p): p for p in phrases if normalize(p)}
        if not spelled:
            raise ValueError("set_phrases needs at least one non-empty phrase")
        key = tuple(sorted(spelled.items()))
        cached = self._cache.get(key)
        if cached is None:
            offered = tuple(p for _, p in key)
            cached = self.scorer.phrase_set(offered, self.reader(offered))
            self._cache[key] = cached
            if len(self._cache) > PHRASE_CACHE_SIZE:
                self._cache.popitem(last=False)
        self._cache.move_to_end(key)
        self._open, self._phrases = False, cached

    def set_grammar(self, graph: WordGraph) -> None:
        """Limit recognition to the sentences of `graph`, searched without expanding them."""
        self._graph = TokenGraph(graph, self._tokenizer, self._pause_ids)
        self._open, self._phrases = False, None

    def start(self) -> None:
        if self._phrases is None and not self._open and self._graph is None:
            raise RuntimeError("call set_phrases before start")
        self._settle_preview()
        self._held = []
        self._started = True

    def feed(self, pcm: bytes) -> None:
        if not self._started:
            raise RuntimeError("call start before feed")
        self._held.append(pcm)

    def preview(self) -> bool:
        """Start hearing what was fed so far, in the background (the player has paused):
        if nothing more is fed, finish() returns this hearing without decoding again."""
        if not self._started:
            raise RuntimeError("call start before preview")
        self._settle_preview()
        self._preview = self._previewer.submit(self._hear, b"".join(self._held))
        self._previewed = len(self._held)
        return True

    def complete(self) -> bool:
        preview = self._preview
        if (preview is None or not preview.done() or self._previewed != len(self._held)
                or self._phrases is None or not preview.result().text):
            return False
        # the preview's, the last hearing made
        best, scores = self.last_alternatives[0][0], self.last_scores
        assert scores is not None
        # Scoring a phrase forces its every token: "at player" cut off by a pause scores
        # "at player three" well, but its text likely ends after "player".
        return not self._goes_on(best) and scores.ends_inside < math.log(ENDS_INSIDE_CHANCE)

    def _goes_on(self, phrase: str) -> bool:
        """Whether a longer offered phrase begins with `phrase`'s words: the player may not
        be done ("no" may be "no thanks", "i do" may be "i do not")."""
        assert self._phrases is not None
        words = normalize(phrase).split()
        return any(len(longer := normalize(p).split()) > len(words)
                   and longer[:len(words)] == words for p in self._phrases.phrases)

    def finish(self) -> Hearing:
        if not self._started:
            raise RuntimeError("call start before finish")
        began = time.perf_counter()
        self._started = False
        if self._preview is not None and self._previewed == len(self._held):
            hearing = self._preview.result()
            self._preview = None
        else:
            self._settle_preview()
            hearing = self._hear(b"".join(self._held))
        self._held = []
        return replace(hearing, decode_seconds=time.perf_counter() - began)

    def _settle_preview(self) -> None:
        """Let a preview that is no longer wanted end before the engine is used again."""
        if self._preview is not None:
            self._preview.result()
            self._preview = None

    def _hear(self, pcm: bytes) -> Hearing:
        began = time.perf_counter()
        audio = np.frombuffer(pcm[:len(pcm) - len(pcm) % 2], dtype="<i2") / 32768.0
        seconds = len(audio) / SAMPLE_RATE
        if self._graph is not None:
            return self._hear_graph(audio, began)
        if self._open:
            text, sure = self.transcribe(audio)
            return Hearing(text=text if sure >= self.floor else "", confidence=sure,
                           audio_seconds=seconds, decode_seconds=time.perf_counter() - began,
                           raw_text=text)
        assert self._phrases is not None
        scores = self.score(audio)
        ranked = rank(self._phrases, scores)
        self.last_scores, self.last_ranked = scores, ranked
        best, sure = ranked.alternatives[0]
        text = self._phrases.reading.with_free(best, best if sure >= self.floor else "",
                                               scores.free_text, scores.looped)
        if not text and sure < self.floor:
            text, sure = self.scorer.with_fillers(self._phrases, best, scores) or (text, sure)
        return Hearing(text=text, confidence=sure,
                       audio_seconds=seconds, decode_seconds=time.perf_counter() - began,
                       raw_text=scores.free_text, alternatives=ranked.wavering(self.floor))

    def _hear_graph(self, audio: np.ndarray, began: float) -> Hearing:
        """The grammar's likeliest sentence, taken when it scores near the free transcript."""
        assert self._graph is not None
        encoded = self.encode(audio, self.pad_seconds)
        free = self.free.transcript(encoded, GRAPH_LONGEST)
        cross = self._decoder.attend(np.asarray(encoded)[0])
        found = search(self._decoder, cross, self._decoder.start(cross, self._prefix),
                       self._graph, self._end_ids)
        seconds = len(audio) / SAMPLE_RATE
        if found is None:
            self.last_graph_evidence = None
            return Hearing(text="", confidence=0.0, audio_seconds=seconds,
                           decode_seconds=time.perf_counter() - began,
                           raw_text=self._tokenizer.decode(list(free.tokens)).strip())
        said = words_of(self._tokenizer.decode(list(found.tokens)))
        self.last_graph_evidence = GraphEvidence(found.score, found.score - free.score)
        sure = self.last_graph_evidence.confidence()
        return Hearing(text=said if sure >= GRAPH_FLOOR else "", confidence=sure,
                       audio_seconds=seconds, decode_seconds=time.perf_counter() - began,
                       raw_text=said)

    def encode(self, audio: np.ndarray, pad_seconds: float | None) -> object:
        """The encoder's output for `audio`, padded to its length + pad_seconds (None: 30 s)."""
        frames = MAX_FRAMES
        if pad_seconds is not None:
            frames = min(MAX_FRAMES, math.ceil((len(audio) / SAMPLE_RATE + pad_seconds)
                                               * SAMPLE_RATE / HOP))
            frames += frames % 2
        features = log_mel(audio, frames)[None]
        return self._model.encode(self._ctranslate2.StorageView.from_array(features),
                                  to_cpu=True)

    def score(self, audio: np.ndarray) -> Scores:
        """Encode once, decode freely once, then score the phrases that can still win."""
        assert self._phrases is not None
        encoded = self.encode(audio, self.pad_seconds)
        longest = max(len(t) for t in self._phrases.tokens)
        free = self.free.transcript(encoded, 2 * (longest + FREE_EXTRA_TOKENS))
        return self.scorer.score(self._phrases, np.asarray(encoded)[0], free)

    def transcribe(self, audio: np.ndarray) -> tuple[str, float]:
        """Free transcription as grammar words, with its mean per-token probability."""
        free = self.free.transcript(self.encode(audio, self.open_pad_seconds), 2 * 32)
        text = plain_words(self._tokenizer.decode(list(free.tokens)))
        if not text:
            return "", 0.0
        return text, math.exp(free.score) * (1.0 - free.no_speech)
