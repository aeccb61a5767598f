"""Files only their owner reads, written so that a kill or a full disk never leaves one half
written: saves, event streams and the secrets file."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path
from typing import TextIO

PRIVATE = 0o600


class SaveWriteError(OSError):
    """A save (or a file beside it) that could not be written: one line for the table."""

    def __init__(self, path: Path, problem: OSError) -> None:
        super().__init__(problem.errno, problem.strerror)
        self.path, self.problem = path, problem

    def __str__(self) -> str:
        return f"cannot write {self.path}: {self.problem.strerror or self.problem}"


def open_private(path: Path, new: bool = False) -> TextIO:
    """`path` opened to append text, created 0600 (`new`: it must not exist yet,
    FileExistsError)."""
    def private(name: str, flags: int) -> int:
        return os.open(name, flags | os.O_CREAT | (os.O_EXCL if new else 0), PRIVATE)

    return open(path, "a", encoding="utf-8", opener=private)  # noqa: PTH123 - an opener


def replace_atomically(path: Path, data: bytes) -> None:
    """Put `data` in `path` by writing a new file beside it, fsynced, and renaming it over
    `path`: at any moment `path` holds either all of the old or all of the new. The new file
    is private. SaveWriteError when it cannot be done; `path` is then untouched."""
    folder = path.parent
    try:
        descriptor, temporary = tempfile.mkstemp(dir=folder, prefix=f".{path.name}.")
    except OSError as problem:
        raise SaveWriteError(path, problem) from None
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
        sync_folder(folder)
    except OSError as problem:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise SaveWriteError(path, problem) from None


def sync_folder(folder: Path) -> None:
    """fsync a folder, so that a file's new name survives a crash too."""
    descriptor = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
