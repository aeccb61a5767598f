"""Whisper (tiny.en on CTranslate2) that scores the offered phrases instead of transcribing.

Free Whisper decoding parrots a prompt of options and hallucinates on silence. Here the audio
is encoded once and every offered phrase is scored by the decoder with its tokens forced
(teacher forcing, over the phrases' trie: whisper_decoder.py): the log-probability of the
phrase's tokens and of the text ending there, per token. Per token, not in total: a total
favours short phrases, and "discard" beat "discard a mechanic" said in full (docs/hearing.md,
"What moved it").
The free greedy transcript of the same audio is scored the same way and plays the part of
pocketsphinx's free phone loop: the best phrase's confidence is a logistic fit of its score,
its gap to the free transcript's, its margin over the runner-up, its length in words and how
alike the free transcript is spelled. Whisper's no-speech probability told right phrases from
chatter no better than chance (docs/hearing.md), so it is kept for diagnostics only.

The model's files and their pinning: whisper_model.py; the features: features.py; the
confidence: confidence.py; the transcript's words: transcripts.py.
"""

from __future__ import annotations

import math
import time
from collections import Counter, OrderedDict
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, replace
from itertools import takewhile
from pathlib import Path

import numpy as np
from rapidfuzz import fuzz

from voicehost.intents.grammar import Talk
from voicehost.speech import letters
from voicehost.speech.confidence import DEFAULT_FLOOR, MARGIN_CAP, Evidence, confidence
from voicehost.speech.features import HOP, MAX_FRAMES, log_mel
from voicehost.speech.transcripts import holds, plain_words, spoken_forms, within
from voicehost.speech.whisper_decoder import BEAM_WIDTH, Attended, State, TextDecoder
from voicehost.speech.whisper_grammar import (
    GRAPH_FLOOR,
    GRAPH_LONGEST,
    FillerEvidence,
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
from voicehost.voice import SAMPLE_RATE, Hearing
from voicehost.words import normalize

# The encoder takes fewer than 3000 frames: the utterance plus 1 s, not 30 s, is far faster
# to score and hears single words freely at least as well (docs/hearing.md, "Whisper's settings").
DEFAULT_PAD_SECONDS = 1.0
OPEN_PAD_SECONDS: float | None = 1.0
MAX_ALTERNATIVES = 3
# An answer heard wrapped in fillers may run this much longer than the free transcript: one that
# says fewer words than it is refused anyway.
FILLED_EXTRA_TOKENS = 4
WRAPPED_TRIES = 4  # phrases heard again wrapped in fillers, at most: each is a search
FREE_EXTRA_TOKENS = 4  # the free transcript may run this much longer than the longest phrase
# Branches of the phrase trie this far below the best at their depth are not scored: at the
# first token it changed no best phrase and nearly halves the time on long lists; deeper, while
# more than PRUNE_AFTER written forms are left (docs/hearing.md, "Whisper's settings").
PRUNE_NATS = 8.0
PRUNE_AFTER = 16
PHRASE_CACHE_SIZE = 16
# An answer is whole, and the utterance may end before its trailing silence, when at no earlier
# word of its phrase the text ends with this chance or more (docs/speed.md, "Ending when the
# answer is whole"): 0 of 150 cut-off phrases passed on the tune voices.
ENDS_INSIDE_CHANCE = 0.1
# The letters head's share in ranking the phrases (letters.py), and how many of its likeliest
# phrases the decoder scores in full even where its pruning dropped them.
W_LETTERS = 0.05
LETTERS_RESCUED = 3


def log_softmax(logits: np.ndarray) -> np.ndarray:
    shifted = logits - logits.max(axis=-1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))


@dataclass(frozen=True)
class PhraseSet:
    """The offered phrases, each with the token sequences of its written forms."""

    phrases: tuple[str, ...]  # as the caller spelled them
    tokens: tuple[tuple[int, ...], ...]  # every written form of every phrase
    owner: tuple[int, ...]  # which phrase each token sequence spells
    words: frozenset[str]  # every word of every phrase
    inner: tuple[tuple[int, ...], ...]  # the written forms as said after other words
    letters: tuple[tuple[int, ...], ...]  # every phrase spelled for the letters head
    readings: dict[tuple[str, ...], str]  # every phrase as the matcher reads it → a phrase


@dataclass(frozen=True)
class Free:
    """Whisper's free greedy transcript, up to its first sentence end or repetition."""

    tokens: tuple[int, ...]
    looped: bool  # it said the utterance over: `tokens` is cut
    score: float  # log P(tokens, then the end), per token
    no_speech: float  # Whisper's no-speech probability


@dataclass(frozen=True)
class Scores:
    """What the decoder made of one utterance (kept for diagnostics and tuning)."""

    phrase_scores: np.ndarray  # per phrase, best written form: log P(tokens, then the end),
    # per token
    free_text: str  # the free greedy transcript
    free_score: float  # its log P(tokens, then the end) per token, scored like the phrases
    free_length: int  # its tokens
    no_speech: float  # Whisper's no-speech probability
    looped: bool = False  # the free transcript said the utterance over: `free_text` is cut
    # log P(the text ends | the best phrase's words so far), at the likeliest of its earlier
    # word boundaries ("at player" of "at player three"); -inf for a phrase of one word
    ends_inside: float = -math.inf
    # per phrase, log P(its letters, wrapped in the free transcript's fillers or not) by the
    # letters head, and the log P of that head's likeliest reading with no phrase offered
    letter_scores: np.ndarray | None = None
    letters_free: float = 0.0

    def letters_share(self) -> np.ndarray:
        """Log-probabilities of the offered phrases under the letters head, among themselves
        (0 for each without the head)."""
        if self.letter_scores is None:
            return np.zeros_like(self.phrase_scores)
        return self.letter_scores - np.logaddexp.reduce(self.letter_scores)

    def fused(self) -> np.ndarray:
        """What ranks the phrases: the decoder's score per token, plus the letters head's
        log-probability of the phrase among those offered."""
        return self.phrase_scores + W_LETTERS * self.letters_share()


class WhisperRecognizer:
    """The Recognizer protocol on Whisper tiny.en: phrase scoring, rejection, free text."""

    name = "whisper"
    # set_phrases(None) transcribes freely, but tiny.en gets too few single deck words right
    # (docs/hearing.md), with no confidence that tells right from wrong: clues are played back from
    # their recording instead.
    open_vocabulary = False

    def __init__(self, model: Path | None = None, *, floor: float = DEFAULT_FLOOR,
                 pad_seconds: float | None = DEFAULT_PAD_SECONDS,
                 open_pad_seconds: float | None = OPEN_PAD_SECONDS, threads: int = 2,
                 compute_type: str = "int8",
                 prune_nats: float = PRUNE_NATS, beam_width: int = BEAM_WIDTH,
                 verify: bool = True, use_letters: bool = True) -> None:
        import ctranslate2
        model_dir = find_model(model)
        if verify:
            verify_model(model_dir)
        self.floor = floor
        self.pad_seconds = pad_seconds  # None: pad to the full 30 s window
        self.open_pad_seconds = open_pad_seconds
        self.prune_nats = prune_nats
        self.beam_width = beam_width
        try:
            self._letters = letters.head() if use_letters else None
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
        self._attended: tuple[Attended, State] | None = None  # the last phrase scoring's
        self._end_ids = [self._end_of_text] + [self._tokenizer.token_to_id(t.replace(" ", "Ġ"))
                                         for t in END_TOKENS if self._token_known(t)]
        self._cache: OrderedDict[tuple[tuple[str, str], ...], PhraseSet] = OrderedDict()
        self._phrases: PhraseSet | None = None
        self._open = False
        self._graph: TokenGraph | None = None
        self._held: list[bytes] = []
        self._started = False
        self.last_scores: Scores | None = None
        self.last_alternatives: list[tuple[str, float]] = []
        self.last_evidence: Evidence | None = None  # the best phrase's, for tuning
        self._pair_confidence = 0.0  # the best phrase's, were the runner-up the same option
        self._previewer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="whisper")
        self._preview: Future[Hearing] | None = None
        self._previewed = 0  # chunks of audio the preview heard

    @property
    def offered(self) -> tuple[str, ...]:
        """The phrases offered now, in the order `Scores.phrase_scores` gives them."""
        assert self._phrases is not None
        return self._phrases.phrases

    def use_letters(self, used: bool) -> None:
        """Hear with the letters head (the default) or with the decoder alone."""
        self._letters = letters.head() if used else None

    def _token_known(self, text: str) -> bool:
        return self._tokenizer.token_to_id(text.replace(" ", "Ġ")) is not None

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
            cached = self._tokenize(tuple(p for _, p in key))
            self._cache[key] = cached
            if len(self._cache) > PHRASE_CACHE_SIZE:
                self._cache.popitem(last=False)
        self._cache.move_to_end(key)
        self._open, self._phrases = False, cached

    def set_grammar(self, graph: WordGraph) -> None:
        """Limit recognition to the sentences of `graph`, searched without expanding them."""
        self._graph = TokenGraph(graph, self._tokenizer, self._pause_ids)
        self._open, self._phrases = False, None

    def _tokenize(self, phrases: tuple[str, ...]) -> PhraseSet:
        tokens, owner, inner = [], [], []
        for index, phrase in enumerate(phrases):
            for form in spoken_forms(phrase):
                tokens.append(tuple(self._tokenizer.encode(form, add_special_tokens=False).ids))
                within = form if form.startswith(" I ") or form == " I" else form.lower()
                inner.append(tuple(self._tokenizer.encode(within,
                                                          add_special_tokens=False).ids))
                owner.append(index)
        words = frozenset(w for p in phrases for w in normalize(p).split())
        talk = Talk.load()
        return PhraseSet(phrases, tuple(tokens), tuple(owner), words, tuple(inner),
                         tuple(letters.spelled(p) for p in phrases),
                         {talk.read(normalize(p).split(), words): p for p in phrases})

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
        scores = self.score(audio)
        self.last_scores = scores
        ranked = self.rank(scores)
        self.last_alternatives = ranked[:3]
        best, sure = ranked[0]
        text = self.read_with_free(best, best if sure >= self.floor else "", scores.free_text,
                                   scores.looped)
        if not text and sure < self.floor:
            text, sure = self._with_fillers(best, scores) or (text, sure)
        return Hearing(text=text, confidence=sure,
                       audio_seconds=seconds, decode_seconds=time.perf_counter() - began,
                       raw_text=scores.free_text, alternatives=self.wavering(ranked))

    def _hear_graph(self, audio: np.ndarray, began: float) -> Hearing:
        """The grammar's likeliest sentence, taken when it scores near the free transcript."""
        assert self._graph is not None
        encoded = self.encode(audio, self.pad_seconds)
        free = self._free(encoded, GRAPH_LONGEST)
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

    def _with_fillers(self, best: str, scores: Scores) -> tuple[str, float] | None:
        """An offered phrase heard again as a grammar, with up to two fillers before it, one
        after and one between two of its words, said any way the matcher reads as it: "I will
        block cheetah please", "no, I'm pointing at tiger", where
        "block cheetah" alone scored low against the audio's extra words. The phrases tried are
        the best one, then those whose words the free transcript holds, longest first: the one
        it reads as whole ("throw away a block" for "discard a block"), then parts of it ("I'd
        see yes" holds "yes"). The sentence found, read beside the free transcript, and its
        confidence; None when none is taken.

        Only where the free transcript has words to wrap an answer in (two or more), and only a
        sentence that is not the phrase as offered: the decoder already scored that one. A
        sentence with fewer words than the free transcript leaves some of what was said out."""
        assert self._phrases is not None
        talk, own = Talk.load(), self._phrases.words
        free_words = words_of(scores.free_text).split()
        if len(free_words) < 2:
            return None
        reading = talk.read(free_words, own)
        # the longest a phrase the transcript holds can be is the transcript itself
        held = sorted((r for r in self._phrases.readings if holds(reading, r)), key=len,
                      reverse=True)
        tried = [best, *(self._phrases.readings[r] for r in held)]
        for phrase in list(dict.fromkeys(tried))[:WRAPPED_TRIES]:
            heard = self._wrapped(phrase, scores, len(free_words))
            if heard is not None:
                return heard
        return None

    def _wrapped(self, phrase: str, scores: Scores, free_words: int
                 ) -> tuple[str, float] | None:
        assert self._phrases is not None and self._attended is not None
        talk, own = Talk.load(), self._phrases.words
        ways = [way for way in talk.ways(normalize(phrase).split(), own) if talk.read(way, own)]
        if not ways:
            return None
        graph = TokenGraph(WordGraph.wrapped(ways, talk.fillers()), self._tokenizer,
                           self._pause_ids)
        found = search(self._decoder, *self._attended, graph, self._end_ids,
                       longest=scores.free_length + FILLED_EXTRA_TOKENS)
        if found is None:
            return None
        said = words_of(self._tokenizer.decode(list(found.tokens)))
        free_total = scores.free_score * (scores.free_length + 1)
        sure = FillerEvidence(found.score, found.total - free_total).confidence()
        if (sure < GRAPH_FLOOR or said == normalize(phrase)
                or len(said.split()) < free_words):
            return None
        return self.read_with_free(phrase, said, scores.free_text, scores.looped), sure

    def read_with_free(self, best: str, heard: str, free_text: str,
                       looped: bool = False) -> str:
        """What the matcher is given, the free transcript read as the matcher reads answers
        (skip words dropped) beside the best phrase:
        - the transcript itself when it is nothing but the phrases' words around the best
          phrase's ("I think it's owl", "yes but no": the matcher reads it whole), unless the
          best phrase is under the floor and the transcript has none of its words, only words
          said for them ("A." for "eight" is no "one");
        - nothing when the transcript says a number with a sign or a decimal point ("minus
          one", "1.5"): no choice's number;
        - nothing when the transcript names a seat, a number or a card the best phrase does
          not, as a whole word ("at a module two and three"; not "one" of "one bat" for
          "wombat");
        - `heard` and the transcript together when the transcript is another whole phrase
          ("yeah" against "yup", "no" against "yes"): the matcher takes them only as one
          meaning;
        - else `heard`: the decoder, scoring the phrases against the audio, hears them better
          than its free transcript writes them ("this card" for "discard", "let's say do" for
          "let's say two", "yes, he is a bit" for "yes"). The same when the transcript
          `looped` over nothing but the best phrase's words, in whatever order (where it was
          cut says nothing of where the player began), unless it names a seat, a number or
          a card more often than the phrase ("2 mechanics and 2 energy" is not "two
          mechanics and one energy")."""
        assert self._phrases is not None
        words = self._phrases.words
        free = plain_words(free_text).split()
        talk = Talk.load()
        reading = talk.read(free, words)
        own = talk.read(normalize(best).split(), words)
        if talk.unwhole(free):
            return ""
        names_another = self._names_another(free, own)
        if looped and reading and set(own).issuperset(reading) and not names_another:
            return heard
        if reading and words.issuperset(reading) and holds(reading, own):
            return " ".join(free) if heard or set(own) & set(free) else ""
        if names_another:
            return ""
        if heard and reading in self._phrases.readings and not within(reading, own):
            return f"{heard} {' '.join(free)}"
        return heard

    def _words_around(self, reading: Sequence[str], phrase: str) -> bool:
        """Whether `reading` (a transcript as the matcher reads it) is `phrase` among nothing
        but the phrases' words: "yes i do" around "yes"."""
        assert self._phrases is not None
        words = self._phrases.words
        own = Talk.load().read(normalize(phrase).split(), words)
        return words.issuperset(reading) and holds(reading, own)

    def _names_another(self, free: Sequence[str], own: Sequence[str]) -> bool:
        """Whether `free` (plain words) names a seat, number or card of the phrases that is
        not in `own`, or more often than `own` does ("two mechanics and two energy" against
        "two mechanics and one energy"), followed by nothing, a phrase's word or a skip
        word other than one written for a sound ("one that" may be "wombat"). A number the
        phrase has a word said like, and the transcript does not write that word, names nothing
        ("Big 4 Us" for "pick for us"; not "two" of "add to module 2 and 3")."""
        assert self._phrases is not None
        words, talk = self._phrases.words, Talk.load()
        left = Counter(own)
        unsaid = left - Counter(free)  # the phrase's words the transcript writes otherwise
        for at, word in enumerate(free):
            if word not in talk.named or word not in words:
                continue
            alike = [w for w in talk.like_numbers.get(word, ()) if unsaid[w] > 0]
            if alike and word not in own:
                unsaid[alike[0]] -= 1
                continue
            after = free[at + 1] if at + 1 < len(free) else None
            if after not in talk.like_no and (
                    after is None or after in words or not talk.read([after], words)):
                left[word] -= 1
                if left[word] < 0:
                    return True
        return False

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
        free = self._free(encoded, 2 * (longest + FREE_EXTRA_TOKENS))
        free_tokens = free.tokens
        frames = np.asarray(encoded)[0]
        cross = self._decoder.attend(frames)
        start = self._decoder.start(cross, self._prefix)
        self._attended = (cross, start)
        per_sequence = self._per_token(cross, start, self._phrases.tokens)
        wrapped, wrapped_start = None, start
        wrapping = self._wrapping(free_tokens)
        heard = self._hear_letters(frames, wrapping)
        if wrapping is not None:
            before, after = wrapping
            if before:
                wrapped_start = self._decoder.extend(cross, start, np.zeros(1, int),
                                                     np.array([before]))
            wrapped = self._per_token(cross, wrapped_start,
                                      [(*t, *after) for t in self._phrases.inner])
            per_sequence = np.maximum(per_sequence, wrapped)
        owner = np.array(self._phrases.owner)
        if heard is not None:
            per_sequence = self._unpruned(cross, (start, wrapped_start), wrapping,
                                          per_sequence, heard[0])
        per_phrase = np.full(len(self._phrases.phrases), -np.inf)
        np.maximum.at(per_phrase, owner, per_sequence)
        scores = Scores(per_phrase, self._tokenizer.decode(list(free_tokens)).strip(),
                        free.score, len(free_tokens), free.no_speech, free.looped,
                        **({} if heard is None else {"letter_scores": heard[0],
                                                     "letters_free": heard[1]}))
        best_phrase = int(np.argmax(scores.fused()))
        forms = np.flatnonzero(owner == best_phrase)
        best = int(forms[np.argmax(per_sequence[forms])])
        said = ((wrapped_start, self._phrases.inner[best])
                if wrapped is not None and wrapped[best] >= per_sequence[best]
                else (start, self._phrases.tokens[best]))
        return replace(scores, ends_inside=self._ends_inside(cross, *said))

    def _hear_letters(self, frames: np.ndarray,
                      wrapping: tuple[tuple[int, ...], tuple[int, ...]] | None
                      ) -> tuple[np.ndarray, float] | None:
        """The letters head's score of every phrase (plain, or in the free transcript's
        fillers when it has some, whichever is likelier) and the log-probability of its free
        reading; None when the head is not used."""
        if self._letters is None:
            return None
        assert self._phrases is not None
        log_probs = self._letters.log_probs(frames)
        spelled = list(self._phrases.letters)
        if wrapping is not None:
            before, after = (letters.spelled(plain_words(self._tokenizer.decode(list(part))))
                             for part in wrapping)
            spelled += [letters.wrapped(before, p, after) for p in self._phrases.letters]
        scores = letters.ctc_scores(log_probs, spelled)
        if wrapping is not None:
            count = len(self._phrases.letters)
            scores = np.maximum(scores[:count], scores[count:])
        return scores, letters.best_path(log_probs)[1]

    def _unpruned(self, cross: Attended, starts: tuple[State, State],
                  wrapping: tuple[tuple[int, ...], tuple[int, ...]] | None,
                  per_sequence: np.ndarray, letter_scores: np.ndarray) -> np.ndarray:
        """`per_sequence` with the written forms of the letters head's likeliest phrases
        scored in full where the decoder's pruning dropped them: the crowd can mislead the
        decoder's first tokens."""
        assert self._phrases is not None
        owner = np.array(self._phrases.owner)
        liked = np.argsort(-letter_scores, kind="stable")[:LETTERS_RESCUED]
        dropped = [k for k in np.flatnonzero(np.isin(owner, liked))
                   if not np.isfinite(per_sequence[k])]
        if not dropped:
            return per_sequence
        rescored = per_sequence.copy()
        plain = self._per_token(cross, starts[0], [self._phrases.tokens[k] for k in dropped],
                                prune=False)
        rescored[dropped] = plain
        if wrapping is not None:
            inner = self._per_token(cross, starts[1],
                                    [(*self._phrases.inner[k], *wrapping[1]) for k in dropped],
                                    prune=False)
            rescored[dropped] = np.maximum(plain, inner)
        return rescored

    def _ends_inside(self, cross: Attended, start: State, form: tuple[int, ...]) -> float:
        """The log-probability of the text ending after `start` and the first words of `form`,
        at the likeliest of its word boundaries before the last word; -inf for one word."""
        bounds = [k for k in range(1, len(form))
                  if self._tokenizer.id_to_token(form[k]).startswith("Ġ")]
        if not bounds:
            return -math.inf
        steps = self._decoder.along(cross, start, form[:bounds[-1]])
        return float(np.logaddexp.reduce(steps[bounds][:, self._end_ids], axis=1).max())

    def _per_token(self, cross: Attended, start: State, tokens: Sequence[tuple[int, ...]],
                   prune: bool = True) -> np.ndarray:
        """Each token sequence's log P(tokens, then the end) after `start`, per token; -inf
        where it was pruned."""
        totals = self._decoder.score_trie(cross, start, tokens, self._end_ids,
                                          prune_nats=self.prune_nats if prune else math.inf,
                                          prune_after=PRUNE_AFTER, width=self.beam_width)
        return totals / (np.array([len(t) for t in tokens]) + 1)

    def _wrapping(self, free: Sequence[int]) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
        """The free transcript's tokens before and after its answer that are words people
        wrap answers in ("I think it's", "please"), at word boundaries; None when it has
        none. Phrases are scored again between them: the fillers as optional branches."""
        assert self._phrases is not None
        talk, words = Talk.load(), self._phrases.words
        texts = [self._tokenizer.decode([t]) for t in free]
        bounds = [i for i in range(1, len(free)) if texts[i].startswith(" ")]
        spoken = [i for i in range(len(free)) if plain_words(texts[i])]

        def skipped(part: Sequence[int]) -> bool:
            said = plain_words(self._tokenizer.decode(list(part))).split()
            return bool(said) and not talk.read(said, words)

        before = max((i for i in bounds if skipped(free[:i])), default=0)
        last = spoken[-1] + 1 if spoken else len(free)
        after = min((i for i in bounds if i > before and skipped(free[i:last])), default=last)
        if not before and after == last:
            return None
        return tuple(free[:before]), tuple(free[after:last])

    def _free_score(self, tokens: Sequence[int], steps: np.ndarray) -> float:
        """The free transcript's log P(tokens, then the end), from its own decoding's logits."""
        said = float(steps[np.arange(len(tokens)), list(tokens)].sum())
        if len(tokens) >= len(steps):
            return said
        return said + float(np.logaddexp.reduce(steps[len(tokens), self._end_ids]))

    def _first_sentence(self, tokens: Sequence[int]) -> tuple[tuple[int, ...], bool]:
        """The free transcript up to its first sentence end or repetition, and whether it
        repeated: with the short padding Whisper tends to say the utterance over and over,
        from any of its words on ("and to module two add to module two add"). A repetition
        begins where two tokens in a row come again, or where the transcript starts over
        from its first token: one word said twice is none ("2 mechanics and 2 energy"). A
        point before a digit is a decimal point, not a sentence end ("1.5")."""
        kept: list[int] = []
        pairs: set[tuple[int, int]] = set()
        for index, token in enumerate(tokens):
            if kept and (kept[-1], token) in pairs:
                return tuple(kept[:-1]), True
            if kept and token == kept[0] and self._starts_over(kept, tokens[index:]):
                return tuple(kept), True
            if token >= self._end_of_text:
                break
            if kept:
                pairs.add((kept[-1], token))
            kept.append(token)
            if token in self._end_ids and not self._digit_follows(tokens, index):
                break
        return tuple(kept), False

    def _starts_over(self, kept: Sequence[int], rest: Sequence[int]) -> bool:
        """Whether `rest` says `kept` again from its start, as far as either goes."""
        said = list(takewhile(lambda token: token < self._end_of_text, rest))[:len(kept)]
        return list(kept[:len(said)]) == said

    def _digit_follows(self, tokens: Sequence[int], index: int) -> bool:
        following = tokens[index + 1] if index + 1 < len(tokens) else self._end_of_text
        return (following < self._end_of_text
                and self._tokenizer.decode([following])[:1].isdigit())

    def rank(self, scores: Scores) -> list[tuple[str, float]]:
        """The phrases that were scored, with their confidence, best first."""
        assert self._phrases is not None
        phrases = self._phrases.phrases
        reading = Talk.load().read(plain_words(scores.free_text).split(), self._phrases.words)
        # the phrase is compared with what was said around the fillers
        free = " ".join(reading) or plain_words(scores.free_text)
        ranked: list[tuple[str, float]] = []
        self._pair_confidence = 0.0
        self.last_evidence = None
        fused, share = scores.fused(), scores.letters_share()
        for i in np.argsort(-fused, kind="stable")[:MAX_ALTERNATIVES]:
            if not np.isfinite(fused[i]):
                break
            rivals = np.delete(fused, i)
            evidence = Evidence(
                score=float(scores.phrase_scores[i]),
                free_gap=0.0 if free == plain_words(phrases[i]) or not free
                else float(scores.phrase_scores[i] - scores.free_score),
                margin=float(fused[i] - rivals.max()) if len(rivals) else 10.0,
                words=len(normalize(phrases[i]).split()),
                similarity=fuzz.ratio(free, normalize(phrases[i])) / 100.0,
                letters_share=float(share[i]),
                letters_gap=0.0 if scores.letter_scores is None
                else min(0.0, float(scores.letter_scores[i] - scores.letters_free)),
                around=float(self._words_around(reading, phrases[i])))
            ranked.append((phrases[i], confidence(evidence)))
            if not ranked[1:]:  # the best phrase, as if the runner-up were the same option
                self.last_evidence = evidence
                third = np.sort(rivals)[-2] if len(rivals) > 1 else -np.inf
                self._pair_confidence = confidence(replace(
                    evidence, margin=min(MARGIN_CAP, float(evidence.score - third))))
        # the best-scoring phrase first (what is heard), then the others by confidence
        return ranked[:1] + sorted(ranked[1:], key=lambda pair: -pair[1]) or [(phrases[0], 0.0)]

    def wavering(self, ranked: Sequence[tuple[str, float]]) -> tuple[tuple[str, float], ...]:
        """When the best phrase was refused only because the runner-up came close: both, best
        first (the audio is surely one of the two, but not surely which)."""
        if len(ranked) < 2 or ranked[0][1] >= self.floor or self._pair_confidence < self.floor:
            return ()
        runner_up = max(ranked[1:], key=lambda pair: pair[1])
        return (ranked[0], runner_up)

    def transcribe(self, audio: np.ndarray) -> tuple[str, float]:
        """Free transcription as grammar words, with its mean per-token probability."""
        free = self._free(self.encode(audio, self.open_pad_seconds), 2 * 32)
        text = plain_words(self._tokenizer.decode(list(free.tokens)))
        if not text:
            return "", 0.0
        return text, math.exp(free.score) * (1.0 - free.no_speech)

    def _free(self, encoded: object, max_length: int) -> Free:
        """Whisper's free greedy transcript of `encoded`, up to its first sentence."""
        result = self._model.generate(encoded, [self._prefix], beam_size=1,
                                      max_length=max_length, return_no_speech_prob=True,
                                      return_logits_vocab=True)[0]
        steps = log_softmax(np.stack([np.asarray(x) for x in result.logits[0]]))
        tokens, looped = self._first_sentence(result.sequences_ids[0])
        return Free(tokens, looped, self._free_score(tokens, steps) / (len(tokens) + 1),
                    float(result.no_speech_prob))
