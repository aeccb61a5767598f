"""The default engine without a vosk model: pocketsphinx for Ferret Out's deck words (then
Whisper, when pocketsphinx takes nothing), Whisper for every other decision
(voicehost/speech/split.py), on the real engines and espeak-ng players."""

from __future__ import annotations

from functools import partial
from pathlib import Path

import pytest

from voicehost.host.ferret_out import deck
from voicehost.intents.understand import reading_of
from voicehost.lab.phrasings import load
from voicehost.lab.speakers import PLAIN, speak
from voicehost.lab.spoken_phrasings import moment_of, spoken_audio
from voicehost.lab.voices import TUNE
from voicehost.registry import deck_words
from voicehost.speech.base import Recognizer, recognize
from voicehost.speech.factory import AudioSettings, describe_pipeline, make_recognizer
from voicehost.speech.pocketsphinx_engine import PocketsphinxRecognizer
from voicehost.speech.split import SecondOpinion, SplitRecognizer
from voicehost.speech.whisper_engine import WhisperRecognizer
from voicehost.tools import hear_grammar
from voicehost.voice import Hearing

# Secret Squad's confirmation, and Ferret Out's guess among the first pouch pair's words.
SHORT = hear_grammar(None, "confirm", 4)
GUESS = hear_grammar(None, "guess", 5, "ferret-out", 0)


def hearers(recognizer: Recognizer) -> tuple[type, ...]:
    """The engines that hear, in the order they are asked."""
    if isinstance(recognizer, SecondOpinion):
        return (type(recognizer.first), type(recognizer.second))
    return (type(recognizer),)


@pytest.fixture(scope="module")
def split() -> SplitRecognizer:
    recognizer, notice = make_recognizer("auto", deck_words(), reading_of,
                                         models_dir=Path("no-such-models-dir"))
    assert isinstance(recognizer, SplitRecognizer), notice
    assert notice == ""  # the default listening as it should is no news
    return recognizer


WHISPER = (WhisperRecognizer,)
# the deck was chosen for pocketsphinx; Whisper hears a guess wrapped in people's words
DECK = (PocketsphinxRecognizer, WhisperRecognizer)


@pytest.mark.parametrize(("decision", "players", "game", "engines"), [
    ("number", 7, "ferret-out", WHISPER),  # Whisper hears real people's digits better
    ("point", 10, "secret-squad", WHISPER),
    ("answer", 10, "secret-squad", WHISPER),
    ("first_player", 4, "secret-operation", WHISPER),
    ("turn", 10, "secret-operation", WHISPER),  # the longest list: 201 phrases
    ("reveal", 6, "secret-operation", WHISPER),
    ("guess", 7, "ferret-out", DECK),
])
def test_each_decision_goes_to_the_engines_that_hear_it_best(
        split: SplitRecognizer, decision: str, players: int, game: str,
        engines: tuple[type, ...]) -> None:
    split.set_phrases(hear_grammar(None, decision, players, game, 0).phrases)
    assert hearers(split.inner) == engines


def test_the_split_knows_every_word_of_the_deck_the_game_deals() -> None:
    assert deck_words() == {word for pair in deck() for word in pair.words()}


def test_pocketsphinx_is_built_only_when_a_deck_word_is_offered() -> None:
    split, _ = make_recognizer("auto", deck_words(), reading_of,
                               models_dir=Path("no-such-models-dir"))
    assert isinstance(split, SplitRecognizer)
    for decision, players, game in [("confirm", 4, "secret-squad"), ("point", 10, "secret-squad"),
                                    ("turn", 6, "secret-operation"), ("number", 5, "ferret-out")]:
        split.set_phrases(hear_grammar(None, decision, players, game).phrases)
    assert split.long is None
    split.set_phrases(GUESS.phrases)
    assert isinstance(split.long, PocketsphinxRecognizer)
    assert isinstance(split.inner, SecondOpinion) and split.inner.first is split.long
    assert split.inner.second is split.short


def test_every_pouch_pairs_guess_goes_to_pocketsphinx_first(split: SplitRecognizer) -> None:
    for pouch in range(len(deck())):
        split.set_phrases(hear_grammar(None, "guess", 5, "ferret-out", pouch).phrases)
        assert hearers(split.inner) == DECK, pouch


@pytest.mark.parametrize(("grammar", "said", "alone", "meant"), [
    (SHORT, "correct", partial(WhisperRecognizer, reader=reading_of), "yes"),
    (GUESS, deck()[0].words()[0], PocketsphinxRecognizer, deck()[0].words()[0]),
])
def test_each_list_is_heard_as_its_engine_alone_hears_it(split: SplitRecognizer, grammar: object,
                                                        said: str, alone: type,
                                                        meant: str) -> None:
    pcm = speak(said, PLAIN)
    split.set_phrases(grammar.phrases)  # type: ignore[attr-defined]
    heard = recognize(split, pcm)
    engine = alone()
    engine.set_phrases(grammar.phrases)  # type: ignore[attr-defined]
    expected = recognize(engine, pcm)
    assert hearers(split.inner)[0] is getattr(alone, "func", alone)
    assert heard.text == expected.text and heard.text
    assert heard.confidence == pytest.approx(expected.confidence, abs=1e-6)
    intent, _ = grammar.match(heard.text)  # type: ignore[attr-defined]
    assert intent is not None and (intent.name, intent.value) == ("choose", meant)


@pytest.mark.parametrize("said", ["I'd say doctor", "I'd say desert"])
def test_a_guess_pocketsphinx_refuses_is_heard_by_whisper(split: SplitRecognizer,
                                                         said: str) -> None:
    pcm = speak(said, PLAIN)
    pocketsphinx = PocketsphinxRecognizer()
    pocketsphinx.set_phrases(GUESS.phrases)
    assert recognize(pocketsphinx, pcm).text == ""
    split.set_phrases(GUESS.phrases)
    intent, _ = GUESS.match(recognize(split, pcm).text)
    assert intent is not None and (intent.name, intent.value) == ("choose", said.split()[-1])


# Tune-half guesses, each in the corpus voice that showed it: pocketsphinx forces "I don't know"
# onto the carrier phrase "i wrote stool", which Whisper does not hear; both hear "I think it
# was desert".
@pytest.mark.parametrize(("said", "voice", "alone", "taken"), [
    ("I don't know", "espeak-scottish", "i wrote stool", ""),
    ("I think it was desert", "flite-kal16", "i think it was desert", "i think it was desert"),
])
def test_a_wrapped_guess_pocketsphinx_hears_is_taken_only_if_whisper_hears_the_same(
        split: SplitRecognizer, said: str, voice: str, alone: str, taken: str) -> None:
    phrasing = next(p for p in load(Path(__file__).parent / "data" / "phrasings.yaml")
                    if (p.kind, p.say, p.moment["decision"]) == ("guess", said, "guess"))
    phrases = moment_of(phrasing).grammar.phrases
    pcm = spoken_audio(said, next(v for v in TUNE if v.name == voice), cache=None)
    split.set_phrases(phrases)
    assert isinstance(split.inner, SecondOpinion)
    assert recognize(split.inner.first, pcm).text == alone
    assert recognize(split, pcm).text == taken


class Says:
    """A recognizer that hears `text` in anything (for the rule between two engines)."""

    name = "says"

    def __init__(self, text: str) -> None:
        self.text = text

    def set_phrases(self, phrases: object) -> None:
        pass

    def start(self) -> None:
        pass

    def feed(self, pcm: bytes) -> None:
        pass

    def preview(self) -> bool:
        return False

    def complete(self) -> bool:
        return False

    def finish(self) -> Hearing:
        return Hearing(self.text, 0.9 if self.text else 0.0, 1.0, 0.1, raw_text=self.text)


@pytest.mark.parametrize(("first", "second", "taken"), [
    ("dog", "", "dog"),  # a deck word alone: pocketsphinx's
    ("dog", "desert", "dog"),
    ("", "i'd say desert", "i'd say desert"),  # pocketsphinx takes nothing: Whisper's
    ("i think it was dog", "i think it was dog", "i think it was dog"),
    ("i think it was dog", "dog", "i think it was dog"),  # the same word, however wrapped
    ("i think it was dog", "i think it was desert", ""),  # another word: neither
    ("i think it was dog", "", ""),
    ("i guess something else", "", "i guess something else"),  # no deck word to disagree on
])
def test_a_wrapped_deck_word_needs_the_second_engine_to_hear_it_too(
        first: str, second: str, taken: str) -> None:
    both = SecondOpinion(Says(first), Says(second), frozenset({"dog", "desert"}))
    heard = recognize(both, bytes(3200))
    assert heard.text == taken
    assert heard.decode_seconds == pytest.approx(0.2)


def test_the_doctor_names_both_engines() -> None:
    line = describe_pipeline(AudioSettings(reader=reading_of, engine="auto",
                                           deck_words=deck_words()))
    assert "whisper / pocketsphinx (deck words)" in line
    assert "--engine auto" in line
