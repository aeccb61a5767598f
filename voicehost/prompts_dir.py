"""Where the host's words live: the `prompts/` folder, installed as `voicehost.prompts`."""

from __future__ import annotations

from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import yaml


@cache
def prompts_dir() -> Path:
    try:
        installed = Path(str(resources.files("voicehost.prompts")))
    except ModuleNotFoundError:
        installed = None
    if installed is not None and (installed / "common").is_dir():
        return installed
    return Path(__file__).resolve().parents[1] / "prompts"  # a source checkout


@cache
def load_yaml(relative: str) -> Any:
    with (prompts_dir() / relative).open(encoding="utf-8") as handle:
        return yaml.safe_load(handle)
