"""Whisper's log-mel features of 16 kHz audio, in numpy."""

from __future__ import annotations

import math

import numpy as np

from voicehost.voice import SAMPLE_RATE

N_FFT = 400
HOP = 160  # 100 mel frames a second; the encoder halves that
N_MELS = 80
MAX_FRAMES = 3000  # Whisper's 30 s window


def _mel_filters() -> np.ndarray:
    """Slaney-style mel filter bank, as Whisper's (and librosa's default) computes it."""
    fft_freqs = np.linspace(0.0, SAMPLE_RATE / 2, N_FFT // 2 + 1)
    linear_step, log_start_hz = 200.0 / 3, 1000.0
    log_start_mel, log_step = log_start_hz / linear_step, math.log(6.4) / 27.0
    top_mel = log_start_mel + math.log(SAMPLE_RATE / 2 / log_start_hz) / log_step
    mels = np.linspace(0.0, top_mel, N_MELS + 2)
    hz = np.where(mels >= log_start_mel,
                  log_start_hz * np.exp(log_step * (mels - log_start_mel)), mels * linear_step)
    ramps = hz[:, None] - fft_freqs[None, :]
    lower = -ramps[:-2] / np.diff(hz)[:-1, None]
    upper = ramps[2:] / np.diff(hz)[1:, None]
    weights = np.maximum(0.0, np.minimum(lower, upper))
    weights *= (2.0 / (hz[2:] - hz[:-2]))[:, None]
    return weights.astype(np.float32)


MEL_FILTERS = _mel_filters()
WINDOW = (0.5 - 0.5 * np.cos(2 * np.pi * np.arange(N_FFT) / N_FFT)).astype(np.float32)


def log_mel(audio: np.ndarray, frames: int) -> np.ndarray:
    """Whisper's log-mel features (80 × frames) of float audio, zero-padded to `frames`."""
    audio = np.asarray(audio, dtype=np.float32)[:frames * HOP]
    audio = np.pad(audio, (0, frames * HOP - len(audio)))
    padded = np.pad(audio, N_FFT // 2, mode="reflect")
    windows = np.lib.stride_tricks.sliding_window_view(padded, N_FFT)[::HOP][:frames]
    power = np.abs(np.fft.rfft(windows * WINDOW, axis=1)) ** 2
    logs = np.log10(np.maximum(MEL_FILTERS @ power.T.astype(np.float32), 1e-10))
    logs = np.maximum(logs, logs.max() - 8.0)
    return ((logs + 4.0) / 4.0).astype(np.float32)
