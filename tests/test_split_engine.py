"""The default engine without a vosk model: Whisper for short phrase lists, pocketsphinx for long
ones (voicehost/speech/split.py), on the real engines and espeak-ng players."""

from __future__ import annotations

from pathlib import Path

import pytest

from voicehost.lab.speakers import PLAIN, speak
from voicehost.speech.base import recognize
from voicehost.speech.factory import AudioSettings, describe_pipeline, make_recognizer
from voicehost.speech.pocketsphinx_engine import PocketsphinxRecognizer
from voicehost.speech.split import WHISPER_MOST_PHRASES, SplitRecognizer
from voicehost.speech.whisper_engine import WhisperRecognizer
from voicehost.tools import hear_grammar

# Secret Squad's confirmation (13 phrases) and Secret Operation's turn at 10 players (201).
SHORT = hear_grammar(None, "confirm", 4)
LONG = hear_grammar(None, "turn", 10, "secret-operation")


@pytest.fixture(scope="module")
def split() -> SplitRecognizer:
    recognizer, notice = make_recognizer("auto", models_dir=Path("no-such-models-dir"))
    assert isinstance(recognizer, SplitRecognizer), notice
    assert notice == ""  # the default listening as it should is no news
    return recognizer


def test_the_lists_fall_either_side_of_the_split() -> None:
    assert len(SHORT.phrases) <= WHISPER_MOST_PHRASES < len(LONG.phrases)


@pytest.mark.parametrize(("decision", "players", "game", "whisper"), [
    ("number", 7, "ferret-out", True),  # numbers: Whisper hears real people's digits better
    ("point", 10, "secret-squad", True),
    ("answer", 10, "secret-squad", True),
    ("first_player", 4, "secret-operation", True),
    ("guess", 7, "ferret-out", False),  # the round's deck words: pocketsphinx hears them all
    ("turn", 4, "secret-operation", False),
])
def test_each_decision_goes_to_the_engine_that_hears_it_best(decision: str, players: int,
                                                             game: str, whisper: bool) -> None:
    grammar = hear_grammar(None, decision, players, game)
    assert (len(grammar.phrases) <= WHISPER_MOST_PHRASES) == whisper, len(grammar.phrases)


@pytest.mark.parametrize(("grammar", "said", "alone"), [
    (SHORT, "correct", WhisperRecognizer),
    (LONG, "discard mechanics", PocketsphinxRecognizer),
])
def test_each_list_is_heard_as_its_engine_alone_hears_it(split: SplitRecognizer, grammar: object,
                                                        said: str, alone: type) -> None:
    pcm = speak(said, PLAIN)
    split.set_phrases(grammar.phrases)  # type: ignore[attr-defined]
    heard = recognize(split, pcm)
    engine = alone()
    engine.set_phrases(grammar.phrases)  # type: ignore[attr-defined]
    expected = recognize(engine, pcm)
    assert isinstance(split.current, alone)
    assert heard.text == expected.text and heard.text
    assert heard.confidence == pytest.approx(expected.confidence, abs=1e-6)
    intent, _ = grammar.match(heard.text)  # type: ignore[attr-defined]
    assert intent is not None and (intent.name, intent.value) == (
        ("choose", "yes") if grammar is SHORT else ("choose", "discard:mechanics"))


def test_the_doctor_names_both_engines() -> None:
    line = describe_pipeline(AudioSettings(engine="auto"))
    assert f"whisper (up to {WHISPER_MOST_PHRASES} phrases) / pocketsphinx" in line
    assert "--engine auto" in line
