"""The virtual room: a sound card (PulseAudio null sink) that the host speaks into and
listens to, through the same PortAudio path as a real sound card.

    sounddevice ─ PortAudio ─ ALSA "pulse" plugin ─ PulseAudio ─ sink "room"
                                                           └── source "room.monitor" ─ ears

A null sink renders audio in blocks as long as the longest latency anyone asked for
(2 s by default), so while no one records its monitor with low latency it delays and
bunches audio unlike any real sound card. The room keeps one low-latency recorder
("keeper") on room.monitor from `start_room` to `Room.close` so the sink runs in 20 ms steps.

The room becomes PulseAudio's default sink and source, and is also exported as PULSE_SINK
and PULSE_SOURCE to this process and its children, so changes to the defaults by someone
else do not move it. Set VOICEHOST_ROOM (read when this module is imported) to use another
sink name, e.g. to run two test sessions side by side on one machine without them hearing
each other: such a room leaves the defaults alone (changing them moves every stream that
follows the default).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from voicehost.speech import devices
from voicehost.speech.pocketsphinx_engine import jsgf
from voicehost.voice import SAMPLE_RATE, Hearing

DEFAULT_ROOM = "room"
SINK = os.environ.get("VOICEHOST_ROOM", DEFAULT_ROOM)
SOURCE = f"{SINK}.monitor"
PULSEAUDIO = ["pulseaudio", "-D", "--system=false", "--exit-idle-time=-1", "-n",
              f"--load=module-null-sink sink_name={SINK}", "--load=module-native-protocol-unix"]
RAW_16K = ["--raw", f"--rate={SAMPLE_RATE}", "--channels=1", "--format=s16le"]


class RoomError(RuntimeError):
    pass


@dataclass
class Room:
    device: str  # PortAudio device that reaches the room (both ways)
    keeper: subprocess.Popen[bytes]
    previous_defaults: dict[str, str]  # pactl set-default-* command → what it was before

    def close(self) -> None:
        """Stop the keeper and give a desktop PulseAudio its own defaults back."""
        self.keeper.terminate()
        self.keeper.wait(5)
        for command, name in self.previous_defaults.items():
            if name not in ("", SINK, SOURCE):
                run_tool("pactl", command, name)


def run_tool(*cmd: str, timeout: float = 10.0) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False,
                          env={**os.environ, "LC_ALL": "C"})  # pactl output is parsed


def _server_up() -> bool:
    return run_tool("pactl", "info", timeout=5).returncode == 0


def sink_latency_us(sink: str = SINK) -> int:
    """A sink's current and configured latency, whichever is larger."""
    out = run_tool("pactl", "list", "sinks").stdout
    blocks = out.split("Sink #")
    for block in blocks:
        if f"Name: {sink}\n" in block:
            line = next(ln for ln in block.splitlines() if "Latency:" in ln)
            numbers = [int(w) for w in line.replace(",", " ").split() if w.isdigit()]
            return max(numbers)
    raise RoomError(f"sink {sink!r} vanished")


def start_room() -> Room:
    """Start (or join) PulseAudio, set up the room and check PortAudio can reach it."""
    for tool in ("pulseaudio", "pactl", "paplay", "parec"):
        if shutil.which(tool) is None:
            raise RoomError(f"{tool} is missing: apt-get install pulseaudio pulseaudio-utils")
    if not _server_up():
        started = run_tool(*PULSEAUDIO)
        deadline = time.monotonic() + 10
        while not _server_up():
            if time.monotonic() > deadline:
                raise RoomError(f"PulseAudio did not come up (exit {started.returncode}): "
                                f"{started.stderr.strip()}")
            time.sleep(0.1)
    sinks = run_tool("pactl", "list", "short", "sinks").stdout.split()
    if SINK not in sinks:
        loaded = run_tool("pactl", "load-module", "module-null-sink", f"sink_name={SINK}")
        if loaded.returncode != 0:
            raise RoomError(f"could not create the room sink: {loaded.stderr.strip()}")
    previous: dict[str, str] = {}
    if SINK == DEFAULT_ROOM:
        previous = {"set-default-sink": run_tool("pactl", "get-default-sink").stdout.strip(),
                    "set-default-source": run_tool("pactl", "get-default-source").stdout.strip()}
        for what, name in (("set-default-sink", SINK), ("set-default-source", SOURCE)):
            done = run_tool("pactl", what, name)
            if done.returncode != 0:
                raise RoomError(f"pactl {what} {name} failed: {done.stderr.strip()}")
    os.environ["PULSE_SINK"], os.environ["PULSE_SOURCE"] = SINK, SOURCE

    keeper = subprocess.Popen(["parec", f"--device={SOURCE}", "--latency-msec=20", *RAW_16K],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 6  # at most one 2 s block to wait out
    while sink_latency_us() > 100_000:
        if time.monotonic() > deadline or keeper.poll() is not None:
            keeper.kill()
            raise RoomError("the room sink did not switch to low latency")
        time.sleep(0.05)

    devices.rescan()  # PortAudio only looks for devices when it starts
    names = [d.name for d in devices.list_devices() if d.inputs and d.outputs]
    if "pulse" not in names:
        keeper.kill()
        raise RoomError(f"PortAudio does not see PulseAudio (devices: {names}); "
                        "install libasound2-plugins (the ALSA pulse plugin)")
    return Room("pulse", keeper, previous)


def play_into_room(sound: Path | bytes) -> None:
    """Play a WAV file or 16 kHz mono int16 PCM into the room, like a player talking."""
    if isinstance(sound, Path):
        subprocess.run(["paplay", f"--device={SINK}", str(sound)], check=True, timeout=30)
    else:
        subprocess.run(["paplay", f"--device={SINK}", *RAW_16K], input=sound, check=True,
                       timeout=30)


def record_room(seconds: float) -> bytes:
    """Record what is audible in the room for `seconds`: 16 kHz mono int16 PCM."""
    with RoomRecording() as recording:
        time.sleep(seconds)
    return recording.pcm()[: round(seconds * SAMPLE_RATE) * 2]


class RoomRecording:
    """Records the room (or another PulseAudio source) in the background; every 10 ms chunk
    carries its arrival time."""

    CHUNK = SAMPLE_RATE // 100 * 2

    def __init__(self, source: str = SOURCE) -> None:
        self.source = source
        self.chunks: list[tuple[float, bytes]] = []
        self._proc: subprocess.Popen[bytes] | None = None
        self._thread: threading.Thread | None = None

    def __enter__(self) -> RoomRecording:
        self._proc = subprocess.Popen(
            ["parec", f"--device={self.source}", "--latency-msec=10", *RAW_16K],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()
        time.sleep(0.1)  # let parec connect before anything is played
        return self

    def __exit__(self, *_: object) -> None:
        assert self._proc is not None and self._thread is not None
        self._proc.terminate()
        self._proc.wait(5)
        self._thread.join(5)

    def _read(self) -> None:
        assert self._proc is not None and self._proc.stdout is not None
        while chunk := self._proc.stdout.read(self.CHUNK):
            self.chunks.append((time.monotonic(), chunk))

    def pcm(self) -> bytes:
        return b"".join(chunk for _, chunk in self.chunks)

    def wait_quiet(self, for_s: float = 1.0, at_most_s: float = 20.0) -> None:
        """Wait until nothing has been loud for `for_s` (at most `at_most_s`)."""
        deadline = time.monotonic() + at_most_s
        while time.monotonic() < deadline and time.monotonic() - max(
                self.loud(), default=0.0) < for_s:
            time.sleep(0.05)

    def loud(self, threshold: int = 300) -> list[float]:
        """Arrival times of chunks with any sample above `threshold`."""
        return [t for t, c in self.chunks
                if np.abs(np.frombuffer(c, dtype=np.int16)).max(initial=0) > threshold]


class GrammarSphinx:
    """A minimal real recognizer for the tests: pocketsphinx limited to a JSGF grammar."""

    name = "pocketsphinx-jsgf"

    def __init__(self) -> None:
        from pocketsphinx import Decoder

        # dither: pocketsphinx misbehaves on digitally silent audio without a little noise
        self._decoder = Decoder(lm=None, loglevel="FATAL", dither=True)
        self._audio = 0

    def set_phrases(self, phrases: Sequence[str]) -> None:
        self._decoder.add_jsgf_string("phrases", jsgf(phrases))
        self._decoder.activate_search("phrases")

    def start(self) -> None:
        self._audio = 0
        self._decoder.start_utt()

    def feed(self, pcm: bytes) -> None:
        self._audio += len(pcm)
        self._decoder.process_raw(pcm, False, False)

    def preview(self) -> bool:
        return False

    def complete(self) -> bool:
        return False

    def finish(self) -> Hearing:
        began = time.monotonic()
        self._decoder.end_utt()
        hyp = self._decoder.hyp()
        text = hyp.hypstr if hyp else ""
        confidence = min(1.0, max(0.0, hyp.prob)) if hyp else 0.0
        return Hearing(text, confidence, self._audio / 2 / SAMPLE_RATE,
                       time.monotonic() - began, raw_text=text)


def recognize_pcm(pcm: bytes, phrases: Sequence[str]) -> str:
    recognizer = GrammarSphinx()
    recognizer.set_phrases(phrases)
    recognizer.start()
    recognizer.feed(pcm)
    return recognizer.finish().text


def loudness_envelope(pcm: bytes | np.ndarray, hop: int = SAMPLE_RATE // 100) -> np.ndarray:
    """Log RMS level of every 10 ms of 16 kHz int16 audio."""
    samples = np.frombuffer(pcm, dtype=np.int16) if isinstance(pcm, bytes) else pcm
    frames = len(samples) // hop
    blocks = samples[: frames * hop].astype(np.float64).reshape(frames, hop)
    return np.log10(np.sqrt((blocks**2).mean(axis=1)) + 10.0)


def envelope_match(recording: bytes, spoken: np.ndarray) -> float:
    """How well the loudness of `spoken` (16 kHz samples) lines up with some stretch of
    `recording`: the best correlation of their 10 ms envelopes, about 0.98 for the same line
    after a trip through the room, 0.75 or less for another line of the same voice. Unlike
    the waveform, the envelope does not depend on espeak-ng rendering a line the same way
    twice (it does not)."""
    heard, line = loudness_envelope(recording), loudness_envelope(spoken)
    if len(heard) < len(line) or len(line) < 2:
        return 0.0
    windows = np.lib.stride_tricks.sliding_window_view(heard, len(line))
    windows = windows - windows.mean(axis=1, keepdims=True)
    line = line - line.mean()
    spread = np.linalg.norm(windows, axis=1) * np.linalg.norm(line)
    return float(np.max((windows @ line) / np.where(spread > 0, spread, np.inf)))


def _correlations(spectrum: np.ndarray, energy: np.ndarray, piece: np.ndarray) -> np.ndarray:
    """`piece`'s normalised correlation at every offset with the recording whose spectrum
    and cumulative energy these are."""
    size = len(piece)
    length = 2 * (len(spectrum) - 1)
    windows = np.sqrt(np.maximum(energy[size:] - energy[:-size], 1e-9))
    piece = piece - piece.mean()
    products = np.fft.irfft(spectrum * np.conj(np.fft.rfft(piece, length)), length)
    return products[:len(windows)] / (windows * max(float(np.linalg.norm(piece)), 1e-9))


def pieces_heard(recording: bytes, sent: np.ndarray, piece_s: float = 0.1,
                 stall_s: tuple[float, float] = (0.03, 0.06)) -> float:
    """The share of `sent`'s voiced pieces (16 kHz samples) found in `recording`, each
    anywhere, as a waveform correlating at 0.8 or more. A line played out or recorded through
    a busy machine may stall or drop samples inside a piece: such a piece counts when both its
    halves are found in order, the second from `stall_s[0]` too early to `stall_s[1]` too late.
    Another line of the same voice scores near 0."""
    heard = np.frombuffer(recording, dtype=np.int16).astype(np.float64)
    size = int(piece_s * SAMPLE_RATE)
    half = size // 2
    pieces = [sent[i:i + size].astype(np.float64) for i in range(0, len(sent) - size + 1, size)]
    voiced = [p for p in pieces if np.sqrt((p ** 2).mean()) > 300]
    if not voiced or len(heard) < size:
        return 0.0
    spectrum = np.fft.rfft(heard, 1 << (len(heard) + size).bit_length())
    energy = np.concatenate([[0.0], np.cumsum(heard ** 2)])
    early, late = (int(s * SAMPLE_RATE) for s in stall_s)
    found = 0
    for piece in voiced:
        if _correlations(spectrum, energy, piece).max() >= 0.8:
            found += 1
            continue
        first = _correlations(spectrum, energy, piece[:half]) >= 0.8
        second = np.concatenate([[0], np.cumsum(
            _correlations(spectrum, energy, piece[half:]) >= 0.8)])
        starts = np.arange(len(first)) + half
        lo = np.clip(starts - early, 0, len(second) - 1)
        hi = np.clip(starts + late + 1, 0, len(second) - 1)
        found += bool(np.any(first & (second[hi] > second[lo])))
    return found / len(voiced)
