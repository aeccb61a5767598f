"""`voicehost hear`: a WAV in, JSON out, listening exactly as the host does at a decision."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from speakers import Speaker, speak_wav

PLAIN = Speaker("plain", "en-us", 50, 160)


def hear(wav: Path, *args: str) -> dict:
    out = subprocess.run([sys.executable, "-m", "voicehost.cli", "hear", str(wav),
                          "--engine", "pocketsphinx", *args],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)


@pytest.mark.parametrize(("said", "decision", "intent", "value"), [
    ("yup", "answer", "choose", "yup"),
    ("yes", "answer", "choose", "yup"),
    ("i pointed at frog", "point", "choose", "3"),
    ("repeat", "answer", "repeat", ""),
])
def test_hear_gives_the_intent(tmp_path: Path, said: str, decision: str, intent: str,
                               value: str) -> None:
    wav = speak_wav(said, PLAIN, tmp_path / "said.wav")
    result = hear(wav, "--decision", decision, "--players", "4")
    assert (result["intent"], result["value"]) == (intent, value)
    assert 0.0 < result["confidence"] <= 1.0
    assert result["timings"]["audio_seconds"] > 0.2


def test_chatter_is_not_understood(tmp_path: Path) -> None:
    wav = speak_wav("did you see the game last night", PLAIN, tmp_path / "chatter.wav")
    result = hear(wav, "--decision", "answer")
    assert result["intent"] is None and result["text"] == ""


def test_phrases_option_limits_what_is_heard(tmp_path: Path) -> None:
    wav = speak_wav("whale", PLAIN, tmp_path / "whale.wav")
    assert hear(wav, "--phrases", "whale|tiger")["value"] == "whale"

