"""Text mode: each stdin line is one thing heard, stdout is what the host says."""

from __future__ import annotations

import io
import os
import select
import sys
import time
from collections.abc import Sequence
from typing import TextIO

from voicehost.voice import SAMPLE_RATE, SAMPLE_WIDTH, EndOfInput, Hearing, Recording

MAX_LINE = 1000  # characters of a typed line kept: no answer is longer


def _fileno(stream: TextIO) -> int | None:
    try:
        return stream.fileno()
    except (AttributeError, io.UnsupportedOperation):
        return None


class TextVoice:
    typed = True

    def __init__(self, stdin: TextIO = sys.stdin, stdout: TextIO = sys.stdout) -> None:
        self.stdin = stdin
        self.stdout = stdout
        # A real stdin is read unbuffered by us, so that a listen can time out (study timer)
        # without a line sitting unseen in Python's read-ahead buffer.
        self._fd = _fileno(stdin)
        self._pending = b""
        self._dropping = False  # a line over MAX_LINE: its rest is dropped up to its end
        self._ended = False

    def say(self, text: str) -> None:
        print(text, file=self.stdout, flush=True)

    def listen(self, phrases: Sequence[str], timeout_s: float | None = None) -> Hearing | None:
        line = self._readline(timeout_s)
        started = time.perf_counter()
        text = (line or "").strip()
        if not text:
            return None  # an empty line (or none in time) is silence
        return Hearing(text, 1.0, 0.0, time.perf_counter() - started, raw_text=text)

    def record(self, phrases: Sequence[str]) -> Recording | None:
        """The typed line is both the transcript and (if it is one) the command."""
        hearing = self.listen(phrases)
        if hearing is None:
            return None
        return Recording(hearing, b"", hearing.text, 1.0)

    def play(self, pcm: bytes) -> None:
        seconds = len(pcm) / SAMPLE_WIDTH / SAMPLE_RATE
        print(f"[a recording plays, {seconds:.1f} s]", file=self.stdout, flush=True)

    def sound(self, name: str) -> None:
        pass  # the console shows the lines, and a sound says nothing a line does not

    def too_loud(self) -> bool:
        return False  # a typed line is never drowned out

    def wait_for_microphone(self) -> None:
        pass  # a keyboard is never lost (EndOfInput is the end)

    def close(self) -> None:
        self.stdout.flush()

    def _readline(self, timeout_s: float | None) -> str | None:
        """One typed line, its first MAX_LINE characters (no answer is longer: the rest is
        dropped); None when none came within `timeout_s` (None: wait for ever)."""
        if self._fd is None:
            line = rest = self.stdin.readline(MAX_LINE)
            if not line:
                raise EndOfInput
            while rest and not rest.endswith("\n"):
                rest = self.stdin.readline(MAX_LINE)
            return line
        deadline = None if timeout_s is None else time.monotonic() + timeout_s
        while b"\n" not in self._pending:
            if self._ended:
                if not self._pending:
                    raise EndOfInput
                self._pending += b"\n"  # a last line without its newline still counts
                break
            wait = None if deadline is None else max(0.0, deadline - time.monotonic())
            ready, _, _ = select.select([self._fd], [], [], wait)
            if not ready:
                return None
            chunk = os.read(self._fd, 4096)
            self._ended = not chunk
            self._take(chunk)
        line, self._pending = self._pending.split(b"\n", 1)
        return line.decode("utf-8", errors="replace")

    def _take(self, chunk: bytes) -> None:
        """Keep what was typed, a line in progress cut at MAX_LINE bytes."""
        if self._dropping:
            if b"\n" not in chunk:
                return
            chunk = chunk[chunk.index(b"\n"):]
            self._dropping = False
        self._pending += chunk
        start = self._pending.rfind(b"\n") + 1  # of the line in progress
        if len(self._pending) - start > MAX_LINE:
            self._pending = self._pending[: start + MAX_LINE]
            self._dropping = True
