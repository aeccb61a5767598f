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
        installed = resources.files("voicehost.prompts")
    except ModuleNotFoundError:  # a source checkout run without installing
        return Path(__file__).resolve().parents[1] / "prompts"
    if not isinstance(installed, Path):  # a regular package on disk is its own folder
        raise RuntimeError(f"voicehost's prompts are not a folder on disk: {installed}")
    return installed


@cache
def load_yaml(relative: str) -> Any:
    with (prompts_dir() / relative).open(encoding="utf-8") as handle:
        return yaml.safe_load(handle)
