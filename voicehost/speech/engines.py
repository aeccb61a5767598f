"""Every engine the host can listen with, in one registry: `ENGINES`, name → how to build it
and how `voicehost doctor` checks it. `--engine`, `voicehost hear`, the doctor and audio mode
all read it, so a new engine is its module plus one line in `ENGINES`.

"auto", the default, is vosk when a model is present, else Whisper for short phrase lists
and pocketsphinx for long ones (split.py), else pocketsphinx alone when Whisper is not
installed. Each engine's package is imported only when that engine is built or checked.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from voicehost.folders import models_dir as models_home
from voicehost.speech.base import Reader, Recognizer

# one line of `voicehost doctor`: what, fine, what to do; fine None: not there, and not
# needed by the engine in use
Check = tuple[str, bool | None, str]
# (model, models_dir, whole_utterances, deck_words, reader) → the recognizer and a notice (""
# when none); raises SystemExit with one sentence when the engine cannot be had. `model`:
# --model, or None for the engine's own search. `whole_utterances`: each utterance is heard
# alone, as from a file, not as the next one of a live conversation (pocketsphinx; the others
# are unchanged). `deck_words`: the games' words said alone (registry.deck_words; auto's split).
# `reader`: how people say the offered phrases (voicehost.intents.understand.reading_of; Whisper
# asks it what its free transcript says).
Build = Callable[[Path | None, Path, bool, frozenset[str], Reader], tuple[Recognizer, str]]


@dataclass(frozen=True)
class Engine:
    """One entry of the registry. `check(model, models_dir, reader)`: the doctor's line on the
    engine; None when the doctor's hearing line, which builds the chosen engine, says all there
    is."""

    name: str
    build: Build
    check: Callable[[Path | None, Path, Reader], Check] | None = None


def _pocketsphinx(model: Path | None, models_dir: Path, whole_utterances: bool,
                  deck_words: frozenset[str], reader: Reader) -> tuple[Recognizer, str]:
    from voicehost.speech.pocketsphinx_engine import PocketsphinxRecognizer

    return PocketsphinxRecognizer(whole_utterance=whole_utterances), ""


def _vosk_model(model: Path | None, models_dir: Path) -> Path | None:
    from voicehost.speech.models import find_model

    return model if model is not None else find_model(models_dir)


def _vosk(model: Path | None, models_dir: Path, whole_utterances: bool,
          deck_words: frozenset[str], reader: Reader) -> tuple[Recognizer, str]:
    from voicehost.speech.models import NO_MODEL_MESSAGE
    from voicehost.speech.vosk_engine import VoskRecognizer

    model_dir = _vosk_model(model, models_dir)
    if model_dir is None:
        raise SystemExit(f"{models_dir}: {NO_MODEL_MESSAGE}")
    return VoskRecognizer(model_dir), f"Listening with vosk ({model_dir.name})."


def _whisper_if_installed(reader: Reader, model: Path | None = None
                          ) -> tuple[Recognizer | None, str]:
    """Whisper tiny.en when its runtime and checked model are here, else why not."""
    from voicehost.speech.whisper_engine import WhisperRecognizer
    from voicehost.speech.whisper_model import WhisperModelError

    try:
        return WhisperRecognizer(model, reader=reader), ""
    except ImportError as missing:
        return None, (f"Whisper is not installed ({missing.name} is missing; scripts/setup.sh "
                      "installs it)")
    except WhisperModelError as problem:
        return None, str(problem).rstrip(".")


def _whisper(model: Path | None, models_dir: Path, whole_utterances: bool,
             deck_words: frozenset[str], reader: Reader) -> tuple[Recognizer, str]:
    whisper, why_not = _whisper_if_installed(reader, model)
    if whisper is None:
        raise SystemExit(f"{why_not}.")
    return whisper, "Listening with Whisper tiny.en (phrase scoring)."


def _auto(model: Path | None, models_dir: Path, whole_utterances: bool,
          deck_words: frozenset[str], reader: Reader) -> tuple[Recognizer, str]:
    if _vosk_model(model, models_dir) is not None:
        return _vosk(model, models_dir, whole_utterances, deck_words, reader)
    def pocketsphinx() -> Recognizer:
        return _pocketsphinx(None, models_dir, whole_utterances, deck_words, reader)[0]

    whisper, why_not = _whisper_if_installed(reader)
    if whisper is None:
        return pocketsphinx(), (f"Listening with pocketsphinx alone: {why_not}, and there is "
                                f"no vosk model in {models_dir} (voicehost models download "
                                "fetches one).")
    from voicehost.speech.split import SplitRecognizer

    return SplitRecognizer(whisper, pocketsphinx, "pocketsphinx",
                           deck_words), ""  # the default, as it should be


def _check_pocketsphinx(model: Path | None, models_dir: Path, reader: Reader) -> Check:
    try:
        _pocketsphinx(None, models_dir, False, frozenset(), reader)
    except Exception as problem:  # noqa: BLE001 - the doctor reports, it does not crash
        return ("pocketsphinx", False, f"{problem}. Reinstall: pip install pocketsphinx")
    return ("pocketsphinx with its US-English model", True, "")


def _check_whisper(model: Path | None, models_dir: Path, reader: Reader) -> Check:
    whisper, why_not = _whisper_if_installed(reader)  # its own search, as auto's; --model is
    # vosk's
    if whisper is None:
        return ("Whisper tiny.en", False, f"{why_not}.")
    return ("Whisper tiny.en", True, "")


def _check_vosk(model: Path | None, models_dir: Path, reader: Reader) -> Check:
    from voicehost.speech.models import NO_MODEL_MESSAGE

    found = _vosk_model(model, models_dir)
    if found is None:
        return (f"vosk model in {models_dir}", False, NO_MODEL_MESSAGE)
    return (f"vosk model {found}", True, "")


ENGINES: dict[str, Engine] = {engine.name: engine for engine in (
    Engine("auto", _auto),
    Engine("pocketsphinx", _pocketsphinx, _check_pocketsphinx),
    Engine("vosk", _vosk, _check_vosk),
    Engine("whisper", _whisper, _check_whisper),
)}


def needed_by(engine: str) -> tuple[str, ...]:
    """The engines `engine` cannot listen without: auto does with pocketsphinx alone."""
    return ("pocketsphinx",) if engine == "auto" else (engine,)


def engine_checks(reader: Reader, model: Path | None = None, models_dir: Path | None = None,
                  engine: str = "auto") -> list[Check]:
    """The doctor's line on every engine that has a check, in registry order: one that is
    not there fails only when `engine`, the one in use, needs it. `models_dir`: where to look
    for models (None: the user's models folder)."""
    models_dir = models_dir or models_home()
    checks: list[Check] = []
    for each in ENGINES.values():
        if each.check is None:
            continue
        what, fine, to_do = each.check(model, models_dir, reader)
        if not fine and each.name not in needed_by(engine):
            checks.append((what, None, f"{to_do} (Not needed: --engine {engine} does without "
                                       "it.)"))
        else:
            checks.append((what, fine, to_do))
    return checks
