"""Text mode: each stdin line is one thing heard, stdout is what the host says."""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from typing import TextIO

from voicehost.speech.base import EndOfInput, Hearing


class TextVoice:
    def __init__(self, stdin: TextIO = sys.stdin, stdout: TextIO = sys.stdout) -> None:
        self.stdin = stdin
        self.stdout = stdout

    def say(self, text: str) -> None:
        print(text, file=self.stdout, flush=True)

    def listen(self, phrases: Sequence[str]) -> Hearing | None:
        line = self.stdin.readline()
        if not line:
            raise EndOfInput
        started = time.perf_counter()
        text = line.strip()
        if not text:
            return None  # an empty line is silence
        return Hearing(text, 1.0, 0.0, time.perf_counter() - started, raw_text=text)

    def close(self) -> None:
        self.stdout.flush()
