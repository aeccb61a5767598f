"""`voicehost hear`: a WAV in, JSON out, listening exactly as the host does at a decision."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from voicehost.lab.hearing_corpus import grammar_for
from voicehost.lab.hearing_corpus import hear as corpus_hear
from voicehost.lab.speakers import PLAIN, VOICES, speak_wav
from voicehost.speech.pocketsphinx_engine import PocketsphinxRecognizer
from voicehost.tools import read_wav


def hear(wav: Path, *args: str) -> dict:
    out = subprocess.run([sys.executable, "-m", "voicehost.cli", "hear", str(wav),
                          "--engine", "pocketsphinx", *args],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)


@pytest.mark.parametrize(("said", "decision", "intent", "value"), [
    ("yup", "answer", "choose", "yup"),
    ("yes", "answer", "choose", "yup"),
    ("i pointed at tiger", "point", "choose", "3"),
    ("repeat", "answer", "repeat", ""),
])
def test_hear_gives_the_intent(tmp_path: Path, said: str, decision: str, intent: str,
                               value: str) -> None:
    wav = speak_wav(said, PLAIN, tmp_path / "said.wav")
    result = hear(wav, "--decision", decision, "--players", "4")
    assert (result["intent"], result["value"]) == (intent, value)
    assert 0.0 < result["confidence"] <= 1.0
    assert result["timings"]["audio_seconds"] > 0.2


@pytest.mark.parametrize(("said", "decision", "value"), [
    ("add to module two", "turn", "add:2"),
    ("add to module five", "turn", "add:5"),  # heard, so the host can say why it cannot be
    ("discard energy", "turn", "discard:energy"),
    ("mechanics electronics energy", "reveal", "mechanics,electronics,energy"),
])
def test_hear_knows_secret_operation(tmp_path: Path, said: str, decision: str,
                                     value: str) -> None:
    wav = speak_wav(said, PLAIN, tmp_path / "said.wav")
    result = hear(wav, "--game", "secret-operation", "--decision", decision, "--players", "6")
    assert (result["intent"], result["value"]) == ("choose", value)


def test_chatter_is_not_understood(tmp_path: Path) -> None:
    wav = speak_wav("did you see the game last night", PLAIN, tmp_path / "chatter.wav")
    result = hear(wav, "--decision", "answer")
    assert result["intent"] is None and result["text"] == ""


def test_phrases_option_limits_what_is_heard(tmp_path: Path) -> None:
    wav = speak_wav("whale", PLAIN, tmp_path / "whale.wav")
    assert hear(wav, "--phrases", "whale|tiger")["value"] == "whale"



@pytest.mark.parametrize(("said", "decision", "players"), [
    ("at player ten", "point", 10), ("nah", "answer", 4), ("pizza", "squad", 4)])
def test_the_tests_hear_as_the_command_does(tmp_path: Path, said: str, decision: str,
                                            players: int) -> None:
    """voicehost/lab/hearing_corpus.py's in-process `hear`, on an engine that hears each clip
    alone as the command does, gives what `voicehost hear` prints."""
    wav = speak_wav(said, VOICES[0], tmp_path / "said.wav")
    printed = hear(wav, "--decision", decision, "--players", str(players))
    hearing, intent = corpus_hear(PocketsphinxRecognizer(whole_utterance=True),
                                  grammar_for((decision, players)), read_wav(wav))
    assert (printed["text"], printed["raw_text"]) == (hearing.text, hearing.raw_text)
    assert printed["intent"] == (None if intent is None else intent.name)
    assert printed["value"] == (None if intent is None else intent.value)
    shown = hearing.confidence if intent is not None else 0.0  # exact match, or no intent
    assert printed["confidence"] == pytest.approx(shown, abs=1e-3)
