"""Every deck word is heard by `voicehost hear` when offered among its round's twelve words.

One espeak-ng recording per word (plain en-us), recognized by the real pocketsphinx engine
with the guess decision's grammar (the twelve words, "something else" and every command),
through the code `voicehost hear` runs: in-process for speed, plus real CLI calls. The CLI
hears each file alone (`whole_utterance`, fresh features); so does the in-process engine,
which tests/test_pocketsphinx_engine.py holds to hearing a clip the same whatever came before.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from voicehost.host.ferret_out import deck
from voicehost.lab.speakers import PLAIN, speak_wav
from voicehost.speech.base import recognize
from voicehost.speech.pocketsphinx_engine import PocketsphinxRecognizer
from voicehost.tools import hear_grammar, read_wav

PAIRS = deck()


@pytest.fixture(scope="module")
def recognizer() -> PocketsphinxRecognizer:
    return PocketsphinxRecognizer(whole_utterance=True)


@pytest.mark.parametrize("pouch", range(len(PAIRS)))
def test_every_word_of_a_pouch_pair_is_heard(pouch: int, recognizer: PocketsphinxRecognizer,
                                             tmp_path: Path) -> None:
    grammar = hear_grammar(None, "guess", 5, "ferret-out", pouch)
    recognizer.set_phrases(grammar.phrases)
    heard = {}
    for word in PAIRS[pouch].words():
        hearing = recognize(recognizer, read_wav(speak_wav(word, PLAIN, tmp_path / "w.wav")))
        intent, _ = grammar.match(hearing.text)
        heard[word] = None if intent is None else (intent.name, intent.value)
    wrong = {word: got for word, got in heard.items() if got != ("choose", word)}
    assert not wrong, f"pouch pair {pouch}: misheard or not understood: {wrong}"


@pytest.mark.parametrize("pouch", [3, 18, 24, 31])
def test_the_cli_hears_a_guess(pouch: int, tmp_path: Path) -> None:
    """Each process hears one file from a cold start, as a user running the command does."""
    for word in (PAIRS[pouch].ferrets[pouch % 6], PAIRS[pouch].weasel[(pouch + 3) % 6]):
        wav = speak_wav(word, PLAIN, tmp_path / "guess.wav")
        out = subprocess.run([sys.executable, "-m", "voicehost.cli", "hear", str(wav), "--engine",
                              "pocketsphinx", "--game", "ferret-out", "--decision", "guess",
                              "--pouch", str(pouch), "--players", "5"],
                             check=True, capture_output=True, text=True).stdout
        result = json.loads(out)
        assert (result["intent"], result["value"]) == ("choose", word)
        assert 0.0 < result["confidence"] <= 1.0


def test_a_word_from_another_pouch_is_not_taken_for_a_guess(tmp_path: Path) -> None:
    grammar = hear_grammar(None, "guess", 5, "ferret-out", 0)
    recognizer = PocketsphinxRecognizer()
    recognizer.set_phrases(grammar.phrases)
    stranger = "did you see the game last night"
    hearing = recognize(recognizer, read_wav(speak_wav(stranger, PLAIN, tmp_path / "x.wav")))
    assert grammar.match(hearing.text)[0] is None
