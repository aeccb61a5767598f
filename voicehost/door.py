"""Refusing bad input at the door, the way argparse does."""

from __future__ import annotations

import sys
from typing import NoReturn


def refuse(message: str) -> NoReturn:
    """One line on standard error, exit status 2."""
    print(f"voicehost: error: {message}", file=sys.stderr, flush=True)
    raise SystemExit(2)
