"""Refusing bad input at the door, the way argparse does."""

from __future__ import annotations

import argparse
import sys
from typing import NoReturn


def refuse(message: str) -> NoReturn:
    """One line on standard error, exit status 2."""
    print(f"voicehost: error: {message}", file=sys.stderr, flush=True)
    raise SystemExit(2)


def settings_given(args: argparse.Namespace) -> dict[str, str]:
    """`--set KEY=VALUE` options as a dict; a malformed one is refused."""
    settings = {}
    for item in args.set:
        key, equals, value = item.partition("=")
        if not equals:
            refuse(f"--set wants KEY=VALUE, not {item!r}.")
        settings[key.strip()] = value.strip()
    return settings
