"""PocketsphinxRecognizer on real pocketsphinx, hearing espeak-ng players as `voicehost hear` does.

The corpus (voicehost/lab/hearing_corpus.py) is every phrase Secret Squad accepts, taken from
the prompts through `voicehost hear`'s own grammars, in four espeak-ng voices
(voicehost/lab/speakers.py VOICES: en-us and en-gb-x-rp low, en-us and en high), clean and
with white noise at 15 dB SNR, plus out-of-option speech in the same voices. The larger corpus
of four synthesizers, crowd babble, reverb and real recordings is measured by
`scripts/measure_hearing.py` (docs/hearing.md).

The bars below are what this engine reaches today (docs/hearing.md), a few points under the
measured numbers so that a new command in prompts/ or another espeak-ng build does not flip
them. They are not the bar the host aims for (every phrase right in every voice): the bundled
acoustic model does not reach it on espeak-ng speech; this test keeps the engine from getting
worse.
"""

from __future__ import annotations

import statistics

import pytest

from voicehost.host.ferret_out import deck
from voicehost.intents.grammar import Intent
from voicehost.lab.hearing_corpus import (
    COMMANDS_UNDER,
    GRAMMARS,
    Clip,
    ClipHeard,
    build_corpus,
    grammar_for,
    hear,
    hear_in_parallel,
    right,
)
from voicehost.lab.speakers import PLAIN, SPEAKERS, VOICES, add_noise, speak
from voicehost.prompts_dir import load_yaml
from voicehost.speech.base import recognize
from voicehost.speech.pocketsphinx_engine import PocketsphinxRecognizer, missing_words
from voicehost.tools import hear_grammar
from voicehost.voice import SAMPLE_RATE

# Share of option clips given the right intent, per voice: (clean, noisy). Measured: clean
# 64.8-85.2 %, noisy 61.7-76.6 % (docs/hearing.md).
MIN_RIGHT = (0.60, 0.55)
MAX_WRONG_INTENT = 0.05  # options heard as another option (measured 3.0 %): the worst mistake
MAX_FALSE_ACCEPT = 0.05  # out-of-option speech accepted as an option

TOKENS = load_yaml("common/tokens.yaml")["tokens"]  # the default seat names, in seat order
FIRST = TOKENS[0]  # the first seat: offered wherever a 3-player table points

Corpus = tuple[list[Clip], list[Clip]]
Hearings = tuple[list[ClipHeard], list[ClipHeard]]


@pytest.fixture(scope="session")
def corpus() -> Corpus:
    return build_corpus(VOICES)


@pytest.fixture(scope="session")
def heard(corpus: Corpus) -> Hearings:
    inside, outside = corpus
    hearings = hear_in_parallel([*inside, *outside])
    return hearings[: len(inside)], hearings[len(inside):]


@pytest.fixture(scope="session")
def first_seat() -> bytes:
    return speak(FIRST, SPEAKERS[0])


def misses(clips: list[Clip], hearings: list[ClipHeard]) -> list[str]:
    return [f"{c.text!r}->{h.raw_text!r} ({h.confidence:.2f})"
            for c, h in zip(clips, hearings, strict=True) if not right(c, h)]


@pytest.mark.parametrize("noisy", [False, True], ids=["clean", "noisy"])
@pytest.mark.parametrize("voice", [v.name for v in VOICES])
def test_each_voice_is_understood(corpus: Corpus, heard: Hearings, voice: str,
                                  noisy: bool) -> None:
    pairs = [(c, h) for c, h in zip(corpus[0], heard[0], strict=True)
             if c.speaker == voice and c.noisy == noisy]
    clips, hearings = [c for c, _ in pairs], [h for _, h in pairs]
    rate = sum(right(c, h) for c, h in pairs) / len(pairs)
    print(f"\n{voice} {'noisy' if noisy else 'clean'}: {rate:.1%} of {len(pairs)} right;"
          f" missed: {', '.join(misses(clips, hearings))}")
    assert rate >= MIN_RIGHT[noisy]


def test_every_phrase_the_game_accepts_is_in_the_corpus(corpus: Corpus) -> None:
    said = {(c.grammar, c.text) for c in corpus[0]}
    for key in GRAMMARS:
        for phrase, intent in grammar_for(key).intents.items():
            heard_under = COMMANDS_UNDER if intent.name != "choose" else key
            assert (heard_under, phrase) in said, (key, phrase)
    assert {TOKENS[0], TOKENS[9], "player ten", "myself", "me", "yup", "nah", "skip"} <= {
        text for _, text in said}
    assert all(sum(c.text == text and c.grammar == key for c in corpus[0])
               == 2 * len(VOICES) for key, text in said), "each in every voice, clean and noisy"


def test_options_are_not_heard_as_another_option(corpus: Corpus, heard: Hearings) -> None:
    wrong = [(c.speaker, c.noisy, c.text, h.text)
             for c, h in zip(corpus[0], heard[0], strict=True)
             if h.intent is not None and not right(c, h)]
    print(f"\nwrong intent: {len(wrong)} of {len(corpus[0])}: {wrong}")
    assert len(wrong) / len(corpus[0]) <= MAX_WRONG_INTENT


def test_out_of_option_speech_is_not_understood(corpus: Corpus, heard: Hearings) -> None:
    accepted = [(c.text, h.text) for c, h in zip(corpus[1], heard[1], strict=True)
                if h.intent is not None]
    rate = len(accepted) / len(corpus[1])
    print(f"\nfalse accepts: {rate:.1%} of {len(corpus[1])} out-of-option clips: {accepted}")
    assert rate <= MAX_FALSE_ACCEPT
    assert all(0.0 <= h.confidence <= 1.0 for h in heard[1])


def test_end_of_speech_to_text_is_fast(heard: Hearings) -> None:
    latency = sorted(h.decode_seconds for h in [*heard[0], *heard[1]])
    median, p95 = statistics.median(latency), latency[int(0.95 * (len(latency) - 1))]
    print(f"\ndecode latency: median {median * 1000:.1f} ms, p95 {p95 * 1000:.1f} ms")
    assert p95 < 0.1


def test_confidence_separates_options_from_chatter(corpus: Corpus, heard: Hearings) -> None:
    understood = [h.confidence for c, h in zip(corpus[0], heard[0], strict=True) if right(c, h)]
    chatter = [h.confidence for h in heard[1]]
    assert statistics.median(understood) > 0.8 > 0.2 > statistics.median(chatter)


def test_missing_words_are_named() -> None:
    assert missing_words(["Fox", "i pointed at zorblax", "zorblax qwfp fox"]) == ["zorblax",
                                                                                 "qwfp"]
    assert missing_words(["yes", "say that again"]) == []
    engine = PocketsphinxRecognizer()
    with pytest.raises(ValueError, match="zorblax, qwfp"):
        engine.set_phrases(["fox", "zorblax qwfp"])
    with pytest.raises(ValueError):
        engine.set_phrases(["  "])


def test_switching_phrase_sets_between_utterances(first_seat: bytes) -> None:
    engine = PocketsphinxRecognizer()
    pointing, answers = grammar_for(("point", 3)), grammar_for(("answer", 4))
    assert hear(engine, pointing, first_seat)[0].text == FIRST
    hearing, intent = hear(engine, answers, first_seat)
    assert (hearing.text, intent) == ("", None), f"{FIRST} is none of the answers"
    assert hearing.raw_text in answers.phrases and hearing.confidence < engine.floor
    assert hear(engine, pointing, first_seat)[0].text == FIRST


def test_the_caller_spelling_of_a_phrase_comes_back(first_seat: bytes) -> None:
    engine = PocketsphinxRecognizer()
    engine.set_phrases([name.title() for name in TOKENS[:4]])
    assert recognize(engine, first_seat).text == FIRST.title()


@pytest.mark.parametrize("chunk_bytes", [640, 333])
def test_streaming_in_chunks_hears_the_same_as_one_block(first_seat: bytes,
                                                         chunk_bytes: int) -> None:
    whole, streamed = PocketsphinxRecognizer(), PocketsphinxRecognizer()
    for engine in (whole, streamed):
        engine.set_phrases(grammar_for(("point", 3)).phrases)
    expected = recognize(whole, first_seat)
    streamed.start()
    for i in range(0, len(first_seat), chunk_bytes):
        streamed.feed(first_seat[i:i + chunk_bytes])
    got = streamed.finish()
    assert (got.text, got.raw_text) == (expected.text, expected.raw_text) == (FIRST, FIRST)
    assert got.confidence == pytest.approx(expected.confidence, abs=1e-6)
    assert got.audio_seconds == pytest.approx(len(first_seat) / 2 / SAMPLE_RATE)


def test_whole_utterance_decoding_hears_like_streaming(first_seat: bytes) -> None:
    # The batch-CMN mode that scripts/measure_hearing.py --whole-utterance measures.
    streamed, whole = PocketsphinxRecognizer(), PocketsphinxRecognizer(whole_utterance=True)
    pointing, answers = grammar_for(("point", 3)), grammar_for(("answer", 4))
    for engine in (streamed, whole):
        assert hear(engine, pointing, first_seat)[0].raw_text == FIRST
        assert hear(engine, answers, first_seat)[1] is None, f"{FIRST} is none of the answers"
    hearing = recognize(whole, bytes(2 * SAMPLE_RATE))  # one second of int16 silence
    assert hearing.text == "" and hearing.audio_seconds == pytest.approx(1.0)


def test_whole_utterance_decoding_hears_a_clip_alike_whatever_came_before(
        first_seat: bytes) -> None:
    """`voicehost hear` (one cold process per file) and the tests that hear many files in one
    engine must agree: in whole-utterance mode nothing carries over between utterances."""
    pointing = grammar_for(("point", 3))
    fresh = PocketsphinxRecognizer(whole_utterance=True)
    first = hear(fresh, pointing, first_seat)[0]
    used = PocketsphinxRecognizer(whole_utterance=True)
    for before in ("did you see the game last night", f"i pointed at {TOKENS[1]}", "hahaha"):
        hear(used, pointing, add_noise(speak(before, VOICES[1]), 10.0))
    again = hear(used, pointing, first_seat)[0]
    assert (again.text, again.raw_text) == (first.text, first.raw_text)
    assert first.raw_text == FIRST and first.confidence > 0.0
    assert again.confidence == pytest.approx(first.confidence, abs=1e-9)


@pytest.mark.parametrize("word", ["mug", "raven", "winter"])
def test_a_cold_decoder_hears_a_rejected_first_utterance_again_whole(word: str) -> None:
    """The first answers of a game: streamed from the model's default CMN these deck words are
    rejected; heard again whole (batch CMN) they are understood."""
    pouch = next(i for i, pair in enumerate(deck()) if word in pair.words())
    guess = hear_grammar(None, "guess", 5, "ferret-out", pouch)
    pcm = speak(word, PLAIN)
    assert hear(PocketsphinxRecognizer(warm_up=0), guess, pcm)[1] is None
    assert hear(PocketsphinxRecognizer(), guess, pcm)[1] == Intent("choose", word)


def test_hearing_again_whole_keeps_the_live_adaptation() -> None:
    """The live CMN the streamed pass adapted is given back after the whole-utterance pass."""
    pointing = grammar_for(("point", 3))
    chatter = add_noise(speak("did you see the game last night", VOICES[1]), 10.0)
    plain, rehearing = PocketsphinxRecognizer(warm_up=0), PocketsphinxRecognizer()
    assert hear(plain, pointing, chatter)[0].text == ""  # rejected: `rehearing` hears it twice
    hear(rehearing, pointing, chatter)
    default = PocketsphinxRecognizer()._grammar.get_cmn()
    assert plain._grammar.get_cmn() != default  # the streamed pass adapted it
    assert rehearing._grammar.get_cmn() == plain._grammar.get_cmn()
    assert rehearing._loop.get_cmn() == plain._loop.get_cmn()


def test_digital_silence_alone_is_not_understood() -> None:
    engine = PocketsphinxRecognizer()
    hearing, intent = hear(engine, grammar_for(("answer", 4)), bytes(SAMPLE_RATE * 2))
    assert (hearing.text, intent) == ("", None)
