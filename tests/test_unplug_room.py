"""The microphone unplugged mid-game, and plugged back in.

A short Secret Squad (3 players, one round of one card) through real audio, as in
tests/test_secret_squad_room.py, but in a PulseAudio of this test's own: when Robin is asked for
an answer the microphone is unloaded, Robin answers into a room nobody hears, and once the host
says it has lost the microphone, the microphone is loaded again. The host must ask Robin again
and finish the game with every answer and point in the journal.

Why a PulseAudio of its own: a PulseAudio with `rescue-streams` (the default) moves a stream
whose source goes away to its default source, and the test's PulseAudio has other rooms' sinks
in it, so the host would go on hearing another room; and a virtual source (module-remap-source)
hands its streams to its master when unloaded. Here rescue-streams is off and the microphone is
a null sink's monitor fed from the room by module-loopback, so unloading it ends the host's
stream, as unplugging a USB microphone does under ALSA.

    players (paplay) ─▶ sink "<room>" ─▶ <room>.monitor ─▶ loopback ─▶ sink "<room>-mic"
    host's mouth ─────▶ sink "<room>"                     host's ears ◀── <room>-mic.monitor
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from squad_room import InterruptedTable
from squad_script import SecretSquadScript, answers_in_journal, answers_only
from wordings import said_line

from voicehost.lab.room import RAW_16K, SINK, RoomError
from voicehost.store.journal import read_records

MIC = f"{SINK}-mic"
PLAYERS, SEED = 3, 42
MICROPHONE_LOST = said_line("microphone_lost")
MICROPHONE_BACK = said_line("microphone_back")


class UnpluggableRoom:
    """A PulseAudio server of the test's own: the room sink, and a microphone that can be
    unplugged (`unplug`) and plugged back in (`plug_in`)."""

    def __init__(self) -> None:
        # short: the server's socket path must fit in 108 bytes
        self.folder = Path(tempfile.mkdtemp(prefix="voicehost-unplug-"))
        (self.folder / "daemon.conf").write_text("rescue-streams = no\nexit-idle-time = -1\n")
        self.env = {"PULSE_SERVER": f"unix:{self.folder}/run/native", "PULSE_SINK": SINK,
                    "PULSE_SOURCE": f"{MIC}.monitor"}
        self.server = subprocess.Popen(
            ["pulseaudio", "--daemonize=no", "--system=false", "-n", "--use-pid-file=false",
             f"--load=module-null-sink sink_name={SINK}", "--load=module-native-protocol-unix"],
            env={**os.environ, "PULSE_CONFIG": str(self.folder / "daemon.conf"),
                 "PULSE_RUNTIME_PATH": str(self.folder / "run"),
                 "PULSE_STATE_PATH": str(self.folder / "state")},
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.keeper: subprocess.Popen[bytes] | None = None
        self.modules: list[str] = []
        deadline = time.monotonic() + 10
        while self.pactl("info", check=False).returncode != 0:
            if time.monotonic() > deadline or self.server.poll() is not None:
                self.close()
                raise RoomError("the test's own PulseAudio did not come up")
            time.sleep(0.1)
        # a low-latency recorder keeps the null sink in 20 ms steps (see voicehost.lab.room)
        self.keeper = subprocess.Popen(
            ["parec", f"--device={SINK}.monitor", "--latency-msec=20", *RAW_16K],
            env={**os.environ, **self.env}, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL)
        self.plug_in()

    def pactl(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["pactl", *args], capture_output=True, text=True, timeout=10,
                              check=check, env={**os.environ, **self.env, "LC_ALL": "C"})

    def plug_in(self) -> None:
        self.modules = [
            self.pactl("load-module", "module-null-sink", f"sink_name={MIC}").stdout.strip(),
            self.pactl("load-module", "module-loopback", f"source={SINK}.monitor",
                       f"sink={MIC}", "latency_msec=20", "source_dont_move=true",
                       "sink_dont_move=true").stdout.strip()]

    def unplug(self) -> None:
        for module in self.modules:  # the loopback may already have gone with its sink
            self.pactl("unload-module", module, check=False)
        self.modules = []

    def close(self) -> None:
        for process in (self.keeper, self.server):
            if process is not None and process.poll() is None:
                process.terminate()
                process.wait(10)
        shutil.rmtree(self.folder, ignore_errors=True)


@pytest.fixture
def unpluggable_room(monkeypatch: pytest.MonkeyPatch) -> Iterator[UnpluggableRoom]:
    """The room, reached by this test's players (paplay) and host through the environment."""
    for tool in ("pulseaudio", "pactl", "paplay", "parec"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is missing: apt-get install pulseaudio pulseaudio-utils")
    room = UnpluggableRoom()
    for name, value in room.env.items():
        monkeypatch.setenv(name, value)
    yield room
    room.close()


@pytest.mark.room
@pytest.mark.takes_seconds(90)
def test_a_microphone_unplugged_mid_game_is_waited_for_and_nothing_is_lost(
        unpluggable_room: UnpluggableRoom, tmp_path: Path) -> None:
    script = SecretSquadScript(PLAYERS, seed=SEED, rounds=1)
    table = InterruptedTable(script, unpluggable_room.unplug, unpluggable_room.plug_in)
    game = table.play(tmp_path, "play", "secret-squad", "--engine", "pocketsphinx",
                      "--players", str(PLAYERS), "--seed", str(SEED), "--set", "rounds=1",
                      "--set", "cards_per_round=1", "--rate", "340", "--silence", "0.4")
    said = game.of("say")
    lost = [e for e in said if MICROPHONE_LOST.search(e["text"])]
    back = [e for e in said if MICROPHONE_BACK.match(e["text"])]
    assert table.cut_at and len(lost) == 1, "the host did not notice"
    assert table.restored_at and len(back) == 1, "the host did not carry on"
    detected, recovered = (lost[0]["time"] - table.cut_at,
                           back[0]["time"] - table.restored_at)
    print(f"\nunplugged: {game.summary()}; lost said {detected:.2f} s after the unplug, "
          f"back said {recovered:.2f} s after the plug")
    # Robin is asked again once the microphone is back, and the answer is kept
    robin = [e for e in game.of("listen") if (e["decision"], e["player"]) == ("answer", 1)]
    assert len(robin) >= 2 and robin[-1]["time"] > back[0]["time"]
    assert "Robin" in back[0]["text"]
    over = game.of("game_over")
    assert over, "the game did not end"
    assert over[0]["scores"] == script.expected_scores()
    journal = tmp_path / "game.jsonl"
    assert read_records(journal)[0]["type"] == "setup"
    assert answers_only(answers_in_journal(journal)) == {
        key: answer for key, answer in script.answers.items() if key[1] == 1}
