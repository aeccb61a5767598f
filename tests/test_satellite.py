"""A real wyoming-satellite as the table's microphone and speaker
(voicehost/speech/satellite.py), piece by piece: what it says about itself, a line played
through its speaker, a player heard through its microphone, a kill and a restart, and the
door's refusals. Whole games through it are in tests/test_satellite_room.py.
"""

from __future__ import annotations

import json
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

import numpy as np
import pytest
from drive import kept_in, voicehost
from wyoming.audio import AudioChunk
from wyoming.event import Event, read_event
from wyoming.info import Attribution, Info
from wyoming.info import Satellite as Satellite_

from voicehost.intents.understand import reading_of
from voicehost.lab.conditions import babble
from voicehost.lab.room import (
    Room,
    RoomRecording,
    pieces_heard,
    play_into_room,
    recognize_pcm,
)
from voicehost.lab.satellite import SPEAKER, SatelliteProcess, free_port, start_satellite
from voicehost.lab.speakers import Speaker, speak
from voicehost.speech.devices import AudioDeviceError, Playback, resample
from voicehost.speech.factory import AudioSettings
from voicehost.speech.mouth import Mouth
from voicehost.speech.satellite import STREAM_LINGER_S, Address, Satellite
from voicehost.tools import doctor_checks, satellite_checks
from voicehost.voice import SAMPLE_RATE, MicrophoneLost

PLAYER = Speaker("player", "en-us", 50, 165)
LINE = "Welcome to Secret Squad. Fox, you answer first."
OTHER_LINE = "Time is up. The Weasel was Bear, who scores two points."  # no word in common


def rendered(text: str, rate: int = 175) -> np.ndarray:
    samples, sample_rate = Mouth(rate=rate).render(text)
    return resample(samples, sample_rate, SAMPLE_RATE)


@pytest.fixture
def satellite(room: Room, tmp_path: Path) -> Iterator[SatelliteProcess]:
    process = start_satellite(tmp_path / "satellite.log")
    yield process
    process.stop()


@pytest.mark.parametrize(("uri", "address"), [
    ("tcp://192.168.1.20:10700", Address("192.168.1.20", 10700)),
    ("tcp://kitchen.local", Address("kitchen.local", 10700)),
    ("kitchen.local:10800", Address("kitchen.local", 10800)),
])
def test_a_satellite_address_is_read_as_home_assistant_writes_it(uri: str,
                                                                  address: Address) -> None:
    assert Address.parse(uri) == address


@pytest.mark.parametrize("uri", ["http://kitchen.local:10700", "tcp://", "tcp://host:port"])
def test_a_wrong_satellite_address_is_refused(uri: str) -> None:
    with pytest.raises(ValueError, match="Wyoming address|port"):
        Address.parse(uri)


def test_a_line_that_stalls_on_its_way_out_is_still_that_line() -> None:
    line = rendered(LINE)
    rng = np.random.default_rng(5)
    chunk = 1024 * SAMPLE_RATE // 22050  # one of the satellite's chunks
    stalled = []
    for start in range(0, len(line), chunk):
        stalled.append(line[start:start + chunk])
        if rng.random() < 0.9:  # a busy machine's gap of 5 to 50 ms after most chunks
            stalled.append(np.zeros(int(rng.uniform(0.005, 0.05) * SAMPLE_RATE), np.int16))
    recording = np.concatenate(stalled).tobytes()
    assert pieces_heard(recording, line) >= 0.7
    assert pieces_heard(recording, rendered(OTHER_LINE)) < 0.1


def test_the_satellite_plays_the_hosts_line_and_hears_the_player(
        satellite: SatelliteProcess) -> None:
    link = Satellite(satellite.uri)
    try:
        link.start()
        assert link.name == "table"  # from its info, as `describe` answered
        sent: list[np.ndarray] = []

        def speaker(samples: np.ndarray, rate: int) -> Playback:
            sent.append(resample(samples, rate, SAMPLE_RATE))
            return link.play(samples, rate)

        mouth = Mouth(rate=175, speaker=speaker)
        with RoomRecording(f"{SPEAKER}.monitor") as out:
            spoken = mouth.say(LINE)
            time.sleep(0.3)
        assert spoken.total_s >= spoken.audio_s  # it waited for the line to play out
        heard_at = out.loud()
        assert heard_at and heard_at[0] - out.chunks[0][0] < 0.6
        # the line's own samples, not another line's: idle, all its pieces against 0.07
        right, other = (pieces_heard(out.pcm(), line) for line in (sent[0], rendered(OTHER_LINE)))
        assert right >= 0.7 and other < 0.2, (right, other)

        link.drain()
        play_into_room(speak("player three", PLAYER))
        time.sleep(0.4)
        pcm = b"".join(link.read(0.1).pcm for _ in range(link.frames.qsize()))
        assert recognize_pcm(pcm, ["player one", "player two", "player three"]) == "player three"
    finally:
        link.stop()


def test_the_satellite_plays_the_hosts_sounds(satellite: SatelliteProcess) -> None:
    link = Satellite(satellite.uri)
    try:
        link.start()
        mouth = Mouth(speaker=link.play)
        with RoomRecording(f"{SPEAKER}.monitor") as out:
            mouth.play_sound("fanfare")
            time.sleep(0.3)
        # most of the fanfare's 1.5 s reaches the satellite's speaker
        assert len(out.loud()) * 0.01 > 0.8
    finally:
        link.stop()


def test_a_killed_satellite_is_lost_then_found_again(satellite: SatelliteProcess) -> None:
    link = Satellite(satellite.uri)
    try:
        link.start()
        assert link.read(1.0) is not None
        satellite.kill()
        killed = time.monotonic()
        with pytest.raises(MicrophoneLost):
            while time.monotonic() - killed < 5:
                link.read(0.2)
        assert time.monotonic() - killed < 1.5
        with pytest.raises(AudioDeviceError):
            link.play(np.zeros(2205, dtype=np.int16), 22050)
        link.start()  # the ears start every listen: a lost satellite is read's to report
        with pytest.raises(MicrophoneLost):
            link.read(0.1)
        satellite.start()
        restarted = time.monotonic()
        link.reopen()  # waits until it streams again
        assert time.monotonic() - restarted < 3.0
        assert link.connections == 2 and link.read(1.0) is not None
        link.play(np.zeros(2205, dtype=np.int16), 22050)  # the speaker is back too
    finally:
        link.stop()


def test_no_satellite_at_the_address_is_refused_at_the_door(tmp_path: Path) -> None:
    uri = f"tcp://127.0.0.1:{free_port()}"  # nobody listens there
    started = time.monotonic()
    done = subprocess.run(voicehost("play", "secret-squad", "--players", "3",
                                    "--satellite", uri, *kept_in(tmp_path)),
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert f"No Wyoming satellite answers at {uri}" in done.stderr
    assert not (tmp_path / "game.jsonl").exists()  # no save file for a game never started
    assert time.monotonic() - started < 30


@pytest.mark.parametrize(("args", "reason"), [
    (["--io", "text", "--satellite", "tcp://127.0.0.1:10700"], "needs --io audio"),
    (["--satellite", "http://127.0.0.1:10700"], "not a Wyoming address"),
])
def test_a_satellite_the_host_cannot_use_is_refused(tmp_path: Path, args: list[str],
                                                    reason: str) -> None:
    done = subprocess.run(voicehost("play", "secret-squad", "--players", "3", *args,
                                    *kept_in(tmp_path)),
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and reason in done.stderr and "Traceback" not in done.stderr


def test_doctor_checks_the_satellite(satellite: SatelliteProcess) -> None:
    """`voicehost doctor --satellite`: what it says about itself, its microphone's level (crowd
    babble played into the room meanwhile) and a line through its speaker."""
    party = np.frombuffer(babble(4.0, seed=3), dtype=np.int16)
    player = threading.Thread(target=play_into_room, args=(party.tobytes(),))
    with RoomRecording(f"{SPEAKER}.monitor") as out:
        player.start()
        checks = doctor_checks(AudioSettings(reader=reading_of, engine="pocketsphinx",
                                             satellite=satellite.uri))
        player.join()
    said = {what: fine for what, fine, _ in checks}
    assert f"satellite 'table' at {satellite.uri} (description table)" in said
    level = next(what for what in said if what.startswith("satellite microphone level"))
    assert said[level] and -45 < float(level.split()[3]) < -5, level  # the babble, heard
    speaker = next(what for what in said if what.startswith("satellite speaker"))
    assert said[speaker] and len(out.loud()) > 100  # over a second of it came out
    assert f"hearing: satellite {satellite.uri} → energy endpointer" in " ".join(said)


def test_doctor_says_when_no_satellite_answers() -> None:
    uri = f"tcp://127.0.0.1:{free_port()}"
    checks = satellite_checks(uri)
    assert len(checks) == 1 and not checks[0][1]
    assert f"No Wyoming satellite answers at {uri}" in checks[0][2]


class HostileSatellite(threading.Thread):
    """A peer that answers describe like a satellite, then sends `stream`: raw bytes (this is a
    unit test of the reader's defences, so the peer is ours, not wyoming-satellite)."""

    def __init__(self, stream: bytes) -> None:
        super().__init__(daemon=True)
        self.stream = stream
        self.server = socket.create_server(("127.0.0.1", 0))
        self.uri = f"tcp://127.0.0.1:{self.server.getsockname()[1]}"
        self.start()

    def run(self) -> None:
        connection, _ = self.server.accept()
        with connection, connection.makefile("rb") as incoming:
            incoming.readline()  # describe
            connection.sendall(wire(Info(satellite=Satellite_(
                name="hostile", attribution=Attribution("", ""), installed=True,
                description="hostile", version=None)).event()))
            incoming.readline()  # run-satellite
            connection.sendall(self.stream)
            self.after_stream(incoming)

    def after_stream(self, incoming: BinaryIO) -> None:
        time.sleep(1.0)


class SpeakerSatellite(HostileSatellite):
    """A peer that keeps what it is sent to play: (event type, rate, samples) each."""

    def __init__(self) -> None:
        self.got: list[tuple[str, int | None, int]] = []
        super().__init__(b"")

    def after_stream(self, incoming: BinaryIO) -> None:
        while (event := read_event(incoming)) is not None:
            if AudioChunk.is_type(event.type):
                chunk = AudioChunk.from_event(event)
                self.got.append((event.type, chunk.rate, len(chunk.audio) // 2))
            else:
                self.got.append((event.type, None, 0))

    def streams(self) -> list[tuple[set[int | None], int]]:
        """Each audio stream it was sent: the rates of its chunks, and how many samples."""
        streams = []
        for kind, rate, samples in self.got:
            if kind == "audio-start":
                streams.append((set(), 0))
            elif kind == "audio-chunk":
                rates, total = streams[-1]
                streams[-1] = (rates | {rate}, total + samples)
        return streams


def test_pieces_played_one_after_another_go_out_as_one_stream() -> None:
    """The satellite starts its player afresh for every stream, which a busy machine makes
    late: a line, a player's clip and the next line go out as one stream."""
    peer = SpeakerSatellite()
    link = Satellite(peer.uri)
    try:
        link.start()
        line = np.full(2205, 1000, np.int16)  # 0.1 s at 22050 Hz
        first = link.play(line, 22050)
        clip = link.play(np.full(1600, 1000, np.int16), 16000)  # 0.1 s at 16 kHz
        assert clip.first_audio_at == pytest.approx(first.finished_at, abs=0.02)
        time.sleep(STREAM_LINGER_S + 0.3)
        link.play(line, 22050)  # after a pause: a stream of its own
        time.sleep(STREAM_LINGER_S + 0.3)
        kinds = [kind for kind, _, _ in peer.got if kind != "audio-chunk"]
        assert kinds == ["audio-start", "audio-stop"] * 2
        assert peer.streams() == [({22050}, 4410), ({22050}, 2205)]
    finally:
        link.stop()


def wire(event: Event) -> bytes:
    """An event as the library frames it."""
    header = {"type": event.type, "version": "1.0.0"}
    data = json.dumps(event.data).encode() if event.data else b""
    if data:
        header["data_length"] = len(data)
    if event.payload:
        header["payload_length"] = len(event.payload)
    return json.dumps(header).encode() + b"\n" + data + (event.payload or b"")


def chunk(rate: object, width: object, channels: object, audio: bytes) -> bytes:
    data = json.dumps({"rate": rate, "width": width, "channels": channels}).encode()
    header = {"type": "audio-chunk", "data_length": len(data), "payload_length": len(audio)}
    return json.dumps(header).encode() + b"\n" + data + audio


SPEECH = np.full(1600, 3000, dtype=np.int16).tobytes()  # 0.1 s at 16 kHz


@pytest.mark.parametrize(("name", "garbage"), [
    ("a rate of zero", chunk(0, 2, 1, SPEECH)),
    ("a width of seven", chunk(16000, 7, 1, SPEECH)),
    ("no channels", chunk(16000, 2, 0, SPEECH)),
    ("half a sample", chunk(16000, 2, 1, SPEECH[:-1])),
    ("a rate in words", chunk("fast", 2, 1, SPEECH)),
    ("no rate at all", b'{"type": "audio-chunk", "data_length": 2}\n{}'),
])
def test_a_hostile_satellites_chunks_are_dropped(name: str, garbage: bytes) -> None:
    peer = HostileSatellite(garbage + chunk(16000, 2, 1, SPEECH))
    link = Satellite(peer.uri)
    try:
        link.start()
        frames = [link.read(2.0) for _ in range(5)]  # the good chunk: 5 frames of 20 ms
        assert all(f is not None and f.pcm == SPEECH[:640] for f in frames), name
        assert link.refused_chunks == 1
    finally:
        link.stop()


@pytest.mark.parametrize("garbage", [b"not json at all\n", b"[1, 2, 3]\n",
                                     b'{"type": "audio-chunk", "data_length": "x"}\n',
                                     b"{" * 70000 + b"\n"])
def test_a_satellite_that_sends_garbage_is_a_lost_microphone(garbage: bytes) -> None:
    peer = HostileSatellite(chunk(16000, 2, 1, SPEECH) + garbage)
    link = Satellite(peer.uri)
    try:
        link.start()
        assert link.read(2.0) is not None  # what came before the garbage is heard
        with pytest.raises(MicrophoneLost):
            for _ in range(50):
                link.read(0.1)
    finally:
        link.stop()


class FallingSilentSatellite(HostileSatellite):
    """A peer that streams like a satellite for `streaming_s`, then sends nothing and keeps
    the connection open: a speaker on Wi-Fi whose plug was pulled."""

    def __init__(self, streaming_s: float) -> None:
        self.streaming_s = streaming_s
        super().__init__(b"")

    def after_stream(self, incoming: BinaryIO) -> None:
        connection = socket.socket(fileno=incoming.fileno())  # the accepted one, shared
        try:
            for _ in range(round(self.streaming_s / 0.1)):
                connection.sendall(chunk(16000, 2, 1, SPEECH))
                time.sleep(0.1)
            time.sleep(30)
        finally:
            connection.detach()


def test_a_satellite_that_stops_sending_is_lost_within_five_seconds() -> None:
    peer = FallingSilentSatellite(streaming_s=1.0)
    link = Satellite(peer.uri)
    try:
        link.start()
        last_sound = time.monotonic()
        with pytest.raises(MicrophoneLost) as lost:
            while True:
                if link.read(0.1) is not None:
                    last_sound = time.monotonic()
                assert time.monotonic() - last_sound < 10, "never reported lost"
        assert time.monotonic() - last_sound < 5.0
        assert "sent no sound" in str(lost.value)
        with pytest.raises(AudioDeviceError):  # its speaker is taken as gone too
            link.play(np.zeros(160, np.int16), 16000)
    finally:
        link.stop()
