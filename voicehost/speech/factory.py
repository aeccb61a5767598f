"""Choosing the engine and putting the ears and the mouth together for audio mode."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from voicehost.speech.base import Recognizer
from voicehost.voice import Voice

MODELS_DIR = Path(os.environ.get("VOICEHOST_MODELS", "models"))
ENGINES = ("auto", "vosk", "pocketsphinx", "whisper")


def make_recognizer(engine: str, model: Path | None = None, models_dir: Path = MODELS_DIR,
                    *, whole_utterances: bool = False) -> tuple[Recognizer, str]:
    """The recognizer `engine` names, and a notice. "auto": vosk when a model is present,
    else Whisper for short phrase lists and pocketsphinx for long ones (split.py), else
    pocketsphinx alone when Whisper is not installed.
    `whole_utterances`: each utterance is heard alone, as from a file, not as the next one
    of a live conversation (pocketsphinx; vosk is unchanged)."""
    from voicehost.speech.models import NO_MODEL_MESSAGE
    from voicehost.speech.vosk_engine import find_model

    if engine == "whisper":
        whisper, why_not = _whisper_if_installed(model)
        if whisper is None:
            raise SystemExit(f"{why_not}.")
        return whisper, "Listening with Whisper tiny.en (phrase scoring)."
    model_dir = model if model is not None else find_model(models_dir)
    if engine == "vosk" and model_dir is None:
        raise SystemExit(NO_MODEL_MESSAGE)
    if engine in ("vosk", "auto") and model_dir is not None:
        from voicehost.speech.vosk_engine import VoskRecognizer

        return VoskRecognizer(model_dir), f"Listening with vosk ({model_dir.name})."
    from voicehost.speech.pocketsphinx_engine import PocketsphinxRecognizer

    pocketsphinx = PocketsphinxRecognizer(whole_utterance=whole_utterances)
    if engine == "pocketsphinx":
        return pocketsphinx, ""
    whisper, why_not = _whisper_if_installed()
    if whisper is None:
        return pocketsphinx, (f"Listening with pocketsphinx: no vosk model in models/ "
                              f"(voicehost models download fetches one), and {why_not}.")
    from voicehost.speech.split import SplitRecognizer

    split = SplitRecognizer(whisper, pocketsphinx)
    return split, (f"Listening with Whisper tiny.en for up to {split.most_phrases} phrases, "
                   "pocketsphinx for longer lists: no vosk model in models/.")


def _whisper_if_installed(model: Path | None = None) -> tuple[Recognizer | None, str]:
    """Whisper tiny.en when its runtime and checked model are here, else why not."""
    from voicehost.speech.whisper_engine import WhisperModelError, WhisperRecognizer

    try:
        return WhisperRecognizer(model), ""
    except ImportError as missing:
        return None, f"Whisper is not installed ({missing.name}: pip install 'voicehost[whisper]')"
    except WhisperModelError as problem:
        return None, str(problem).rstrip(".")


def make_pipeline(engine: str, model: Path | None = None,
                  front_end: str = "none") -> tuple[Recognizer, str]:
    """The recognizer `engine` names, hearing through `front_end` (see frontend.py)."""
    recognizer, notice = make_recognizer(engine, model)
    if front_end == "none":
        return recognizer, notice
    from voicehost.speech.frontend import FilteredRecognizer, make_front_end

    return FilteredRecognizer(make_front_end(front_end), recognizer), notice


def describe_pipeline(engine: str, model: Path | None = None, front_end: str = "none") -> str:
    """The pipeline `voicehost play` would use, in one line."""
    recognizer, _ = make_pipeline(engine, model, front_end)
    return (f"microphone → energy endpointer with the room-level gate → {recognizer.name}"
            + (" (phrase scoring)" if recognizer.name.endswith("whisper") else "")
            + f" [--engine {engine} --front-end {front_end}]")


def audio_voice_or_notice(args: argparse.Namespace) -> tuple[Voice | None, str]:
    """The audio Voice, or None with one sentence saying why text mode it is."""
    from voicehost.speech.audio_voice import AudioVoice
    from voicehost.speech.devices import AudioDeviceError, find_device
    from voicehost.speech.ears import Ears, Gate
    from voicehost.speech.endpoint import Endpointer, EndpointSettings
    from voicehost.speech.microphone import Microphone
    from voicehost.speech.mouth import Mouth

    recognizer, notice = make_pipeline(args.engine, args.model, args.front_end)
    gate = Gate()
    microphone = Microphone(args.input_device)
    try:
        microphone.start()
        find_device(args.output_device, "output")
    except AudioDeviceError as problem:
        return None, f"{problem} Playing in text mode: type what the players say."
    mouth = Mouth(args.rate, args.volume, args.voice, args.output_device, gate)
    mouth.warm_up()
    endpointer = Endpointer(EndpointSettings(trailing_silence_s=args.silence))
    ears = Ears(microphone, endpointer, recognizer, gate)
    return AudioVoice(mouth, ears), notice
