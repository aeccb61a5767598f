"""Sound devices through PortAudio (sounddevice): listing, choosing, playing, checking.

Every problem raised here is an AudioDeviceError that carries one sentence of what to do,
so the host can print it and fall back to text mode.
"""

from __future__ import annotations

import math
import threading
import time
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Literal

import numpy as np

Kind = Literal["input", "output"]
DeviceSpec = int | str | None  # index, (part of a) name, or None for the system default

OUTPUT_LATENCY_S = 0.1  # small enough to start quickly, large enough to never underrun
BLOCK_S = 0.02


class AudioDeviceError(RuntimeError):
    """A sound device problem, with what the user can do about it."""

    def __init__(self, problem: str, what_to_do: str) -> None:
        super().__init__(f"{problem} {what_to_do}")
        self.problem = problem
        self.what_to_do = what_to_do


class NoInputDeviceError(AudioDeviceError):
    """No usable microphone: the host should fall back to text mode."""


class NoOutputDeviceError(AudioDeviceError):
    """No usable speaker."""


class NoSoundSystemError(NoInputDeviceError, NoOutputDeviceError):
    """PortAudio itself is missing: neither microphone nor speaker can work."""


@dataclass(frozen=True)
class DeviceInfo:
    index: int
    name: str
    hostapi: str
    inputs: int  # max input channels
    outputs: int  # max output channels
    default_rate: int
    default_input: bool
    default_output: bool


@dataclass(frozen=True)
class Problem:
    what: str
    what_to_do: str


def sounddevice() -> ModuleType:
    """The sounddevice module, or an AudioDeviceError if PortAudio itself is missing."""
    try:
        import sounddevice as sd
    except OSError as exc:  # raised when libportaudio cannot be loaded
        raise NoSoundSystemError(
            f"PortAudio could not be loaded ({exc}).",
            "Install it (Debian/Ubuntu: apt-get install libportaudio2).",
        ) from exc
    return sd


def rescan() -> None:
    """Make PortAudio look for devices again (a sound server or USB mic appeared later)."""
    sd = sounddevice()
    sd._terminate()
    sd._initialize()


def list_devices() -> list[DeviceInfo]:
    sd = sounddevice()
    hostapis = sd.query_hostapis()
    default_in, default_out = _defaults(sd)
    return [
        DeviceInfo(
            index=d["index"], name=d["name"], hostapi=hostapis[d["hostapi"]]["name"],
            inputs=d["max_input_channels"], outputs=d["max_output_channels"],
            default_rate=round(d["default_samplerate"]),
            default_input=d["index"] == default_in, default_output=d["index"] == default_out,
        )
        for d in sd.query_devices()
    ]


def _defaults(sd: ModuleType) -> tuple[int, int]:
    try:
        default_in, default_out = (int(i) for i in sd.default.device)
    except (TypeError, ValueError):
        return -1, -1
    return default_in, default_out


def _missing(kind: Kind, problem: str) -> AudioDeviceError:
    if kind == "input":
        return NoInputDeviceError(
            problem, "Plug in or enable a microphone, or pick one from `voicehost devices`.")
    return NoOutputDeviceError(
        problem, "Plug in or enable speakers, or pick a device from `voicehost devices`.")


def find_device(spec: DeviceSpec, kind: Kind) -> DeviceInfo:
    """Resolve a device setting (index, name or part of a name, None = default) for `kind`."""
    devices = list_devices()
    usable = [d for d in devices if (d.inputs if kind == "input" else d.outputs) > 0]
    if not usable:
        raise _missing(kind, f"No {kind} sound device was found.")
    if spec is None or spec == "":
        default = [d for d in usable if (d.default_input if kind == "input" else d.default_output)]
        return (default or usable)[0]
    if isinstance(spec, int) or spec.strip().isdigit():
        index = int(spec)
        for d in usable:
            if d.index == index:
                return d
        raise _missing(kind, f"Sound device #{index} does not exist or has no {kind}.")
    wanted = spec.strip().lower()
    matches = ([d for d in usable if d.name.lower() == wanted]
               or [d for d in usable if wanted in d.name.lower()])
    if not matches:
        names = ", ".join(repr(d.name) for d in usable)
        raise _missing(kind, f"No {kind} device matches {spec!r} (there are: {names}).")
    return matches[0]


def supports(device: DeviceInfo, kind: Kind, rate: int, channels: int = 1) -> bool:
    sd = sounddevice()
    check = sd.check_input_settings if kind == "input" else sd.check_output_settings
    try:
        check(device=device.index, samplerate=rate, channels=channels, dtype="int16")
    except Exception:  # PortAudioError or ValueError, depending on what is unsupported
        return False
    return True


class Resampler:
    """Streaming sample-rate converter for int16 mono: low-pass FIR, then linear interpolation."""

    def __init__(self, from_rate: int, to_rate: int, taps: int = 63) -> None:
        self.from_rate, self.to_rate = from_rate, to_rate
        self._step = from_rate / to_rate
        cutoff = 0.45 * min(from_rate, to_rate) / from_rate  # cycles per input sample
        n = np.arange(taps) - (taps - 1) / 2
        kernel = 2 * cutoff * np.sinc(2 * cutoff * n) * np.hamming(taps)
        self._kernel = kernel / kernel.sum()
        self._history = np.zeros(taps - 1)  # input tail kept for the filter
        self._filtered = np.zeros(0)  # filtered samples not yet consumed
        self._pos = 0.0  # position of the next output sample within self._filtered

    def __call__(self, samples: np.ndarray) -> np.ndarray:
        if len(samples) == 0:
            return np.zeros(0, dtype=np.int16)
        x = np.concatenate([self._history, samples.astype(np.float64)])
        self._history = x[len(x) - len(self._history):]
        filtered = np.concatenate([self._filtered, np.convolve(x, self._kernel, "valid")])
        count = max(0, math.ceil((len(filtered) - 1 - self._pos) / self._step))
        positions = self._pos + self._step * np.arange(count)
        out = np.interp(positions, np.arange(len(filtered)), filtered)
        self._pos += self._step * count
        used = min(int(self._pos), len(filtered))
        self._filtered = filtered[used:]
        self._pos -= used
        return np.clip(np.round(out), -32768, 32767).astype(np.int16)


def resample(samples: np.ndarray, from_rate: int, to_rate: int) -> np.ndarray:
    """One-shot rate conversion of a whole clip."""
    if from_rate == to_rate:
        return samples.astype(np.int16)
    out = Resampler(from_rate, to_rate)(np.concatenate([samples, np.zeros(64, np.int16)]))
    return out[: round(len(samples) * to_rate / from_rate)]


@dataclass(frozen=True)
class Playback:
    """Monotonic times of one playback."""

    called_at: float
    first_audio_at: float  # estimated: the first sample reaches the speaker
    finished_at: float  # estimated: the last sample has left the speaker
    seconds: float  # length of the audio


def play(samples: np.ndarray, rate: int, device: DeviceSpec = None) -> Playback:
    """Play int16 mono samples and return only once the speaker has played them."""
    called_at = time.monotonic()
    sd = sounddevice()
    info = find_device(device, "output")
    if not supports(info, "output", rate):
        samples, rate = resample(samples, rate, info.default_rate), info.default_rate
    data = np.ascontiguousarray(samples, dtype=np.int16).tobytes()
    seconds = len(data) / 2 / rate
    pos = 0
    first_audio: list[float] = []
    last_audio: list[float] = []
    done = threading.Event()

    def callback(out: Any, frames: int, ti: Any, status: Any) -> None:
        nonlocal pos
        dac_delay = max(0.0, ti.outputBufferDacTime - ti.currentTime)
        now = time.monotonic()
        if not first_audio:
            first_audio.append(now + dac_delay)
        chunk = data[pos : pos + frames * 2]
        pos += len(chunk)
        out[: len(chunk)] = chunk
        if len(chunk) < frames * 2:
            out[len(chunk) :] = b"\0" * (frames * 2 - len(chunk))
            last_audio.append(now + dac_delay + len(chunk) / 2 / rate)
            raise sd.CallbackStop

    try:
        stream = sd.RawOutputStream(
            samplerate=rate, channels=1, dtype="int16", device=info.index,
            blocksize=round(rate * BLOCK_S), latency=OUTPUT_LATENCY_S,
            callback=callback, finished_callback=done.set,
        )
    except sd.PortAudioError as exc:
        raise NoOutputDeviceError(
            f"Could not open the speaker {info.name!r} ({exc}).",
            "Check that it is connected and not used exclusively by another program.",
        ) from exc
    try:
        with stream:
            if not done.wait(seconds + 5.0):
                raise AudioDeviceError(
                    f"The speaker {info.name!r} stopped taking audio.",
                    "Check the sound server (e.g. `pactl info`) or choose another output device.")
    except sd.PortAudioError as exc:
        raise NoOutputDeviceError(
            f"The speaker {info.name!r} failed ({exc}).",
            "Check that it is connected, or choose another output device.") from exc
    if not last_audio:  # the stream ended before the sound did: the device went away
        raise NoOutputDeviceError(
            f"The speaker {info.name!r} went away mid-sentence.",
            "Check that it is connected, or choose another output device.")
    # The stream ends when the last block is handed over, not when it has been heard.
    first = first_audio[0] if first_audio else called_at
    finished = max(last_audio[0] if last_audio else 0.0, first + seconds)
    wait = finished - time.monotonic()
    if wait > 0:
        time.sleep(wait)
    return Playback(called_at, first, finished, seconds)


def tone(seconds: float, frequency: float, rate: int = 16000, dbfs: float = -12.0) -> np.ndarray:
    t = np.arange(round(seconds * rate)) / rate
    ramp = np.minimum(1.0, np.minimum(t, t[::-1]) / 0.01)  # 10 ms fades, no clicks
    amplitude = 32767 * 10 ** (dbfs / 20)
    return (amplitude * ramp * np.sin(2 * np.pi * frequency * t)).astype(np.int16)


@dataclass(frozen=True)
class SpeakerCheck:
    ok: bool
    device: str
    seconds: float  # how long playing the tone took
    problem: Problem | None = None


def check_speaker(device: DeviceSpec = None, seconds: float = 0.4,
                  frequency: float = 660.0) -> SpeakerCheck:
    """Play a short tone; fails if no speaker opens or it does not play in real time."""
    try:
        name = find_device(device, "output").name
        playback = play(tone(seconds, frequency), 16000, device)
    except AudioDeviceError as exc:
        return SpeakerCheck(False, str(device or ""), 0.0, Problem(exc.problem, exc.what_to_do))
    took = playback.finished_at - playback.called_at
    if took < seconds * 0.8:
        return SpeakerCheck(False, name, took, Problem(
            f"The speaker {name!r} swallowed {seconds:.1f} s of sound in {took:.2f} s.",
            "It is probably not a real output: choose another device from `voicehost devices`."))
    return SpeakerCheck(True, name, took)


def record_input(seconds: float = 1.0, device: DeviceSpec = None) -> np.ndarray:
    """`seconds` of the microphone as 16 kHz mono int16 samples."""
    sd = sounddevice()
    info = find_device(device, "input")
    rate = 16000 if supports(info, "input", 16000) else info.default_rate
    settle = round(rate * 0.1)  # skip the first 100 ms, while the device wakes up
    try:
        with sd.InputStream(samplerate=rate, channels=1, dtype="int16", device=info.index,
                            latency=0.05) as stream:
            samples, _ = stream.read(settle + round(rate * seconds))
    except sd.PortAudioError as exc:
        raise NoInputDeviceError(
            f"Could not record from {info.name!r} ({exc}).",
            "Check that the microphone is connected and not used by another program.",
        ) from exc
    recorded = samples[settle:, 0]
    return recorded if rate == 16000 else resample(recorded, rate, 16000).astype(np.int16)


def level_dbfs(samples: np.ndarray) -> float:
    """RMS level of int16 samples in dBFS (-100 for digital silence)."""
    power = float(np.mean(samples.astype(np.float64) ** 2)) / 32768.0**2
    return max(-100.0, 10.0 * math.log10(power + 1e-12))


def measure_input_level(seconds: float = 1.0, device: DeviceSpec = None) -> float:
    """RMS level of the microphone over `seconds`, in dBFS (-100 for digital silence)."""
    return level_dbfs(record_input(seconds, device))


# A microphone's level at or below this is digital silence: muted, its volume at zero, or a
# device nothing reaches. A live one's own noise is above it.
SILENT_DBFS = -90.0


def silent_input_advice() -> str:
    """What to do about a microphone that delivers digital silence."""
    return ("Check that it is plugged in and unmuted and raise its input volume (pavucontrol "
            "or alsamixer), pick another with --input-device (voicehost devices lists them), "
            "or play with --io text.")


def input_level_problem(dbfs: float) -> Problem | None:
    """What a measured room level says about the microphone, if anything is wrong."""
    if dbfs <= SILENT_DBFS:
        return Problem(f"The microphone delivers digital silence ({dbfs:.0f} dBFS).",
                       silent_input_advice())
    if dbfs < -70.0:
        return Problem(f"The microphone is very quiet ({dbfs:.0f} dBFS).",
                       "Raise its input volume or move it closer to the players.")
    if dbfs > -10.0:
        return Problem(f"The microphone is very loud ({dbfs:.0f} dBFS) and may clip.",
                       "Lower its input volume or move it away from the speakers.")
    return None
