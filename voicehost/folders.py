"""Where voicehost keeps what it writes for the user: saved games and speech models, under the
user's data folder (XDG_DATA_HOME, by the XDG Base Directory specification)."""

from __future__ import annotations

import os
from pathlib import Path


def data_dir() -> Path:
    """XDG_DATA_HOME/voicehost; ~/.local/share/voicehost when XDG_DATA_HOME is unset, empty
    or relative (the specification says to ignore a relative one)."""
    given = os.environ.get("XDG_DATA_HOME", "")
    base = Path(given) if given and Path(given).is_absolute() else Path.home() / ".local/share"
    return base / "voicehost"


def models_dir() -> Path:
    """Where `voicehost models download` puts speech models and the engines look for them:
    VOICEHOST_MODELS when set, else the data folder's models/."""
    given = os.environ.get("VOICEHOST_MODELS", "")
    return Path(given) if given else data_dir() / "models"
