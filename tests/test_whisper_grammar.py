"""Whisper searching a grammar too large to list: the templates' graph, written in Whisper's
tokens, and real speech heard through it (espeak-ng voices, the real decoder)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from voicehost.intents.understand import reading_of
from voicehost.lab.speakers import VOICES, speak
from voicehost.speech.base import recognize
from voicehost.speech.whisper_engine import WhisperRecognizer
from voicehost.speech.whisper_grammar import TokenGraph, WordGraph, words_of, written_forms
from voicehost.speech.whisper_model import find_model, load_tokenizer

SEATS = ("cheetah", "robin", "husky", "tiger", "orca", "manatee", "cobra", "dingo", "starfish",
         "elephant")
POINTED = "(pointed at|is pointing at)"
TEMPLATES = [f"[i think|i'd say] {{seat}} {POINTED} {{seat}} [and] {{seat}} {POINTED} {{seat}}",
             "[let's] (add|put) [a card] (to|on) module {module} [please]"]
LISTS = {"seat": SEATS, "module": ("one", "two", "three", "twelve")}


def expansions() -> int:
    return 3 * 10 * 2 * 10 * 2 * 10 * 2 * 10 + 2 * 2 * 2 * 2 * 4 * 2


@pytest.fixture(scope="module")
def graph() -> WordGraph:
    return WordGraph.of(TEMPLATES, LISTS)


@pytest.fixture(scope="module")
def tokens(graph: WordGraph) -> TokenGraph:
    tokenizer = load_tokenizer(find_model(None) / "tokenizer.json")
    return TokenGraph(graph, tokenizer, tokenizer.encode(",", add_special_tokens=False).ids)


def walks(tokens: TokenGraph, text: str) -> bool:
    """Whether Whisper writing `text` stays on the graph and may end there."""
    tokenizer = load_tokenizer(find_model(None) / "tokenizer.json")
    state = tokens.start
    for token in tokenizer.encode(text, add_special_tokens=False).ids:
        after = tokens.step(state).get(token)
        if after is None:
            return False
        state = after
    return tokens.ends(state)


def test_the_graph_holds_every_sentence_and_nothing_else(tokens: TokenGraph) -> None:
    assert expansions() > 100_000
    assert walks(tokens, " I think Robin pointed at tiger and cobra is pointing at orca")
    assert walks(tokens, " Robin pointed at tiger, cobra pointed at orca")
    assert walks(tokens, " Let's put a card on module 12 please")
    assert walks(tokens, " Add to module three")
    assert walks(tokens, " add to module 2")
    assert walks(tokens, " Put on module twelve.") is False  # the end is scored, not walked
    assert walks(tokens, " Put on module twelve")
    assert not walks(tokens, " Robin pointed at tiger")  # half a sentence
    assert not walks(tokens, " Robin pointed at owl and cobra pointed at orca")  # no such seat
    assert not walks(tokens, " Add to module four")
    assert not walks(tokens, " Please add to module one")  # "please" only at the end


def test_words_are_written_as_whisper_writes_them() -> None:
    assert written_forms("twelve", first=True) == [" twelve", " Twelve", " 12"]
    assert written_forms("ounce", first=False) == [" ounce", " Ounce", "-ounce", "-Ounce"]
    assert written_forms("i'd", first=True) == [" I'd"]
    assert words_of(" Can I get a 16-ounce latte, 12 ounce.") == ("can i get a sixteen ounce "
                                                                 "latte twelve ounce")


def test_a_template_with_an_unknown_part_is_refused() -> None:
    with pytest.raises(ValueError, match="not searched"):
        WordGraph.of(["(a;b)"], {})  # a permutation


@pytest.fixture(scope="module")
def whisper(graph: WordGraph) -> WhisperRecognizer:
    engine = WhisperRecognizer(reader=reading_of)
    engine.set_grammar(graph)
    return engine


@pytest.mark.parametrize(("said", "voice"), [
    ("robin pointed at tiger and cobra pointed at orca", 0),
    ("i think husky is pointing at dingo and elephant pointed at starfish", 1),
    ("let's put a card on module three please", 2),
    ("add to module two", 3),
])
def test_a_sentence_of_a_grammar_too_large_to_list_is_heard(whisper: WhisperRecognizer,
                                                             said: str, voice: int) -> None:
    heard = recognize(whisper, speak(said, VOICES[voice % len(VOICES)]))
    assert heard.text == said


@pytest.mark.parametrize("chatter", ["did you see the game last night",
                                     "pass me the crisps please"])
def test_speech_outside_the_grammar_is_not_taken(whisper: WhisperRecognizer,
                                                 chatter: str) -> None:
    heard = recognize(whisper, speak(chatter, VOICES[0]))
    assert heard.text == ""
    assert heard.raw_text  # the search found its likeliest sentence, and refused it


def test_silence_is_not_taken(whisper: WhisperRecognizer) -> None:
    heard = recognize(whisper, np.zeros(16000, "<i2").tobytes())
    assert heard.text == ""
    assert not math.isnan(heard.confidence)


def test_phrases_after_a_grammar_are_heard_as_phrases(graph: WordGraph) -> None:
    engine = WhisperRecognizer(reader=reading_of)
    engine.set_grammar(graph)
    engine.set_phrases(["yes", "no"])
    assert recognize(engine, speak("yes", VOICES[0])).text == "yes"


def test_an_answer_is_wrapped_in_two_fillers_before_one_after_and_one_between_words() -> None:
    tokenizer = load_tokenizer(find_model(None) / "tokenizer.json")
    fillers = [("um",), ("i", "think"), ("please",)]
    wrapped = TokenGraph(WordGraph.wrapped([("block", "cheetah"), ("put", "it", "to", "two")],
                                           fillers), tokenizer, [])

    def walks_wrapped(text: str) -> bool:
        state = wrapped.start
        for token in tokenizer.encode(text, add_special_tokens=False).ids:
            if (state := wrapped.step(state).get(token)) is None:
                return False
        return wrapped.ends(state)

    assert walks_wrapped(" block cheetah")
    assert walks_wrapped(" Um I think block cheetah please")
    assert walks_wrapped(" Please put it to two")
    assert not walks_wrapped(" Um um I think block cheetah")  # three before
    assert not walks_wrapped(" Block cheetah please please")  # two after
    assert walks_wrapped(" Block um cheetah")
    assert walks_wrapped(" Put um it I think to two please")
    assert not walks_wrapped(" Block um I think cheetah")  # two between
    assert not walks_wrapped(" Um block cheetah um please")  # two after
