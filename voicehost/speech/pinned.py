"""Files checked by their SHA-256 before they are loaded (Whisper's, the piper voices')."""

from __future__ import annotations

import hashlib
from pathlib import Path


def sha256(path: Path) -> str:
    """The file's SHA-256, read a megabyte at a time: a model is never held whole for it."""
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while block := f.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()
