"""One utterance's audio read by the ears as a microphone would deliver it, on a clock of its
own, with every preview heard before the next frame: as if the engine decoded in no time, so
an early end comes as soon as the ears would ever allow it."""

from __future__ import annotations

import time
from collections.abc import Callable

from voicehost.speech.base import Recognizer
from voicehost.speech.microphone import Frame
from voicehost.voice import SAMPLE_RATE, SAMPLE_WIDTH

FRAME_SAMPLES = 320  # 20 ms, as the microphone delivers


class PacedClip:
    """A FrameSource reading `pcm`, then silence; `read_s` is how much of it the ears read."""

    def __init__(self, pcm: bytes, settle: Callable[[], None]) -> None:
        self.pcm, self.settle, self.at = pcm, settle, 0
        self.began: float | None = None

    @property
    def read_s(self) -> float:
        return self.at / SAMPLE_WIDTH / SAMPLE_RATE

    def start(self) -> None:
        pass

    def stop(self) -> None:
        pass

    def drain(self) -> int:
        return 0

    def reopen(self) -> None:
        pass

    def read(self, timeout: float) -> Frame | None:
        self.settle()
        if self.began is None:
            self.began = time.monotonic()
        step = FRAME_SAMPLES * SAMPLE_WIDTH
        chunk = self.pcm[self.at:self.at + step] or bytes(step)
        captured = self.began + self.read_s
        self.at += step
        return Frame(chunk.ljust(step, b"\0"), captured)


def settle_for(recognizer: Recognizer) -> Callable[[], None]:
    """Wait for the engine's running preview (Whisper's; the split engine's current one)."""
    def settle() -> None:
        engine = getattr(recognizer, "inner", recognizer)
        preview = getattr(engine, "_preview", None)
        if preview is not None:
            preview.result()
    return settle
