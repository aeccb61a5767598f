"""A real wyoming-satellite in the virtual room (voicehost/lab/room.py), for the tests and the
benchmark.

    players ─ paplay ─ sink ROOM ─ ROOM.monitor ─ parec ─ wyoming-satellite ─ Wyoming ─ voicehost
    voicehost ─ Wyoming ─ wyoming-satellite ─ pacat ─ sink ROOM-speaker ─ loopback ─ sink ROOM

The satellite's speaker is a sink of its own, so a test can record exactly what the satellite
played (`SPEAKER.monitor`), and a loopback carries it into the room, where the satellite's own
microphone hears it, as in a real living room: the host must not hear itself.

The satellite runs from `.venv-satellite` (scripts/test.sh installs it; it pins an older
`wyoming` than voicehost's), or the Python that VOICEHOST_SATELLITE_PYTHON names. It is started
in a process group of its own, so a kill takes its recorder and player with it, like a satellite
whose power is cut.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

from voicehost.lab.room import SINK, SOURCE, RoomError, run_tool, sink_latency_us

REPO = Path(__file__).resolve().parents[2]
PYTHON = Path(os.environ.get("VOICEHOST_SATELLITE_PYTHON",
                             REPO / ".venv-satellite" / "bin" / "python"))
SPEAKER = f"{SINK}-speaker"
SPEAKER_RATE = 22050  # wyoming-satellite's default for --snd-command
LOW_LATENCY = "--latency-msec=20"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def port_accepts(port: int) -> bool:
    """Whether something on this machine takes connections on `port`."""
    try:
        socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
    except OSError:
        return False
    return True


def serves(proc: subprocess.Popen[bytes], port: int, timeout_s: float) -> bool:
    """Wait until `proc` takes connections on `port`; False when it died or took too long."""
    deadline = time.monotonic() + timeout_s
    while not port_accepts(port):
        if proc.poll() is not None or time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def add_speaker() -> None:
    """The satellite's speaker sink and its loopback into the room (once per PulseAudio)."""
    sinks = run_tool("pactl", "list", "short", "sinks").stdout.split()
    if SPEAKER in sinks:
        return
    for module in (["module-null-sink", f"sink_name={SPEAKER}"],
                   ["module-loopback", f"source={SPEAKER}.monitor", f"sink={SINK}",
                    "latency_msec=20"]):
        loaded = run_tool("pactl", "load-module", *module)
        if loaded.returncode != 0:
            raise RoomError(f"could not load {module[0]}: {loaded.stderr.strip()}")
    deadline = time.monotonic() + 6  # the loopback's recorder runs the sink in small steps
    while sink_latency_us(SPEAKER) > 100_000:
        if time.monotonic() > deadline:
            raise RoomError("the satellite's speaker sink did not switch to low latency")
        time.sleep(0.05)


@dataclass
class SatelliteProcess:
    """wyoming-satellite listening on `port`; `uri` is what voicehost connects to."""

    port: int
    name: str = "table"
    log: Path | None = None
    proc: subprocess.Popen[bytes] | None = field(default=None, repr=False)

    @property
    def uri(self) -> str:
        return f"tcp://127.0.0.1:{self.port}"

    def command(self) -> list[str]:
        raw = f"--raw --format=s16le --channels=1 {LOW_LATENCY}"
        return [str(PYTHON), "-m", "wyoming_satellite", "--name", self.name, "--no-zeroconf",
                "--uri", f"tcp://127.0.0.1:{self.port}",
                "--mic-command", f"parec --device={SOURCE} --rate=16000 {raw}",
                "--snd-command", f"pacat --device={SPEAKER} --rate={SPEAKER_RATE} {raw}",
                "--snd-command-rate", str(SPEAKER_RATE)]

    def start(self, timeout_s: float = 10.0) -> SatelliteProcess:
        if not PYTHON.exists():
            raise RoomError(f"no wyoming-satellite at {PYTHON}: scripts/test.sh installs it")
        add_speaker()
        out = self.log.open("ab") if self.log else subprocess.DEVNULL
        self.proc = subprocess.Popen(self.command(), stdout=out, stderr=out,
                                     start_new_session=True)
        if not serves(self.proc, self.port, timeout_s):
            self.kill()
            raise RoomError(f"wyoming-satellite did not come up on port {self.port}")
        return self

    def kill(self) -> None:
        """SIGKILL the satellite and its recorder and player, as a pulled plug would."""
        if self.proc is None:
            return
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait(5)
        self.proc = None

    def stop(self) -> None:
        if self.proc is None:
            return
        try:
            os.killpg(self.proc.pid, signal.SIGTERM)
            self.proc.wait(5)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            self.kill()
        self.proc = None


def start_satellite(log: Path | None = None, name: str = "table") -> SatelliteProcess:
    """A satellite on a free port, its microphone the room, its speaker SPEAKER."""
    return SatelliteProcess(free_port(), name, log).start()
