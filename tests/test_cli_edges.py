"""The `voicehost` command at its edges: a file that is not what it should be, a folder that
is not there or cannot be written, a number out of range. Each is refused with one line and
exit status 2, with nothing created or changed; a reader that goes away ends output quietly;
the doctor fails only on what the engine in use needs."""

from __future__ import annotations

import os
import struct
import subprocess
import sys
import wave
from pathlib import Path

import numpy as np
import pytest

from voicehost.cli import main
from voicehost.speech import devices


def voicehost(args: list[str], data: Path, typed: str = "") -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "voicehost.cli", *args], input=typed,
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "XDG_DATA_HOME": str(data)})


def refused(args: list[str], data: Path) -> str:
    """The one line `voicehost args` is refused with, in a process of its own."""
    done = voicehost(args, data)
    assert done.returncode == 2, (done.returncode, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("voicehost: error: "), done.stderr
    return lines[0]


def nothing_saved(data: Path) -> bool:
    return not list(data.glob("**/*.jsonl"))


def float_wav(path: Path) -> Path:
    """A WAV of 32-bit floating-point samples (format code 3), which is not 16-bit PCM."""
    samples = np.zeros(1600, dtype=np.float32).tobytes()
    fmt = struct.pack("<HHIIHH", 3, 1, 16000, 16000 * 4, 4, 32)
    body = b"WAVE" + b"fmt " + struct.pack("<I", len(fmt)) + fmt
    body += b"data" + struct.pack("<I", len(samples)) + samples
    path.write_bytes(b"RIFF" + struct.pack("<I", len(body)) + body)
    return path


@pytest.mark.parametrize(("kind", "reason"), [
    ("float", "not a 16-bit PCM WAV (floating-point samples)"),
    ("mp3", "not a 16-bit PCM WAV (not a WAV file at all)"),
    ("text", "not a 16-bit PCM WAV"),
    ("folder", "is a folder, not a WAV file"),
    ("missing", "No such file or directory"),
])
def test_hear_refuses_what_is_not_a_16_bit_wav(kind: str, reason: str, tmp_path: Path) -> None:
    path = tmp_path / f"{kind}.wav"
    if kind == "float":
        float_wav(path)
    elif kind == "mp3":
        path.write_bytes(b"ID3\x04\x00\x00\x00\x00\x00\x00" + bytes(range(256)) * 8)
    elif kind == "text":
        path.write_text("my shopping list\nmilk\n")
    elif kind == "folder":
        path.mkdir()
    line = refused(["hear", str(path), "--engine", "pocketsphinx"], tmp_path)
    assert str(path) in line and reason in line, line


def test_events_into_a_missing_folder_is_refused_before_the_game_starts(tmp_path: Path) -> None:
    events = tmp_path / "missing" / "x.jsonl"
    line = refused(["play", "--io", "text", "--events", str(events)], tmp_path)
    assert line.endswith(f"--events {events}: there is no folder {events.parent}.")
    assert not events.parent.exists() and nothing_saved(tmp_path)


def test_a_journal_in_a_missing_folder_is_refused_not_made(tmp_path: Path) -> None:
    journal = tmp_path / "no" / "such" / "game.jsonl"
    line = refused(["play", "--io", "text", "--journal", str(journal)], tmp_path)
    assert line.endswith(f"--journal {journal}: there is no folder {journal.parent}.")
    assert not (tmp_path / "no").exists() and nothing_saved(tmp_path)


WRITERS = [  # a command, and its option that names a file to write
    (["play", "--io", "text"], "--journal"),
    (["play", "--io", "text"], "--events"),
    (["cards", "secret-squad", "--players", "4"], "--out"),
    (["say", "hi"], "--out"),
]


@pytest.mark.parametrize(("command", "option"), WRITERS)
def test_a_file_under_a_file_is_refused(command: list[str], option: str,
                                        tmp_path: Path) -> None:
    plain = tmp_path / "plain.txt"
    plain.write_text("not a folder\n")
    target = plain / "x.pdf"
    line = refused([*command, option, str(target)], tmp_path)
    assert line.endswith(f"{option} {target}: {plain} is not a folder.")
    assert plain.read_text() == "not a folder\n" and nothing_saved(tmp_path)


READ_ONLY = Path("/sys")  # sysfs: no file can be made in it, not even by root (tests run as root)


@pytest.mark.parametrize(("command", "option"), WRITERS)
def test_a_file_in_a_folder_that_cannot_be_written_is_refused(command: list[str], option: str,
                                                              tmp_path: Path) -> None:
    target = READ_ONLY / "voicehost-test.pdf"
    with pytest.raises(OSError) as cannot:  # what the system says; the refusal says it too
        target.open("x")
    line = refused([*command, option, str(target)], tmp_path)
    assert line.endswith(f"{option} {target}: {cannot.value.strerror}.")
    assert not target.exists() and nothing_saved(tmp_path)


def test_cards_out_naming_a_folder_is_refused(tmp_path: Path) -> None:
    line = refused(["cards", "secret-squad", "--players", "4", "--out", str(tmp_path)],
                   tmp_path)
    assert f"--out {tmp_path} is a folder" in line
    assert list(tmp_path.iterdir()) == []


OUT_OF_RANGE = [  # the command, and what the refusal says
    (["say", "hi", "--rate", "-5"], "--rate wants 80 to 450 words per minute, not -5."),
    (["say", "hi", "--volume", "3"], "--volume wants 0 to 1, not 3."),
    (["play", "--io", "text", "--rate", "-5"], "--rate wants 80 to 450 words per minute"),
    (["play", "--io", "text", "--volume", "3"], "--volume wants 0 to 1, not 3."),
    (["play", "--io", "text", "--volume", "nan"], "--volume wants 0 to 1, not nan."),
    (["play", "--io", "text", "--silence", "0"],
     "--silence wants more than 0 and at most 5 seconds, not 0."),
    (["play", "--io", "text", "--silence", "6"], "--silence wants more than 0 and at most 5"),
    (["play", "--io", "text", "--players", "four"], "--players wants a whole number, not 'four'."),
    (["play", "--io", "text", "--seed", "-1"], "--seed wants 0 or more, not -1."),
    (["resume", "--io", "text", "--rate", "0"], "--rate wants 80 to 450 words per minute"),
    (["resume", "--io", "text", "--silence", "-1"], "--silence wants more than 0"),
    (["hear", "x.wav", "--players", "0"], "--players wants 1 or more, not 0."),
    (["hear", "x.wav", "--pouch", "-1"], "--pouch wants 0 or more, not -1."),
    (["cards", "secret-squad", "--players", "4", "--seed", "1000", "--out", "c.pdf"],
     "--seed wants 0 to 999, not 1000."),
]


@pytest.mark.parametrize(("args", "reason"), OUT_OF_RANGE)
def test_a_number_out_of_range_is_refused_naming_its_option(args: list[str], reason: str,
                                                            tmp_path: Path) -> None:
    assert reason in refused(args, tmp_path)
    assert nothing_saved(tmp_path)


def test_cards_name_only_the_options_given(tmp_path: Path) -> None:
    out = tmp_path / "cards.pdf"
    line = refused(["cards", "secret-squad", "--players", "2", "--out", str(out)], tmp_path)
    assert line.endswith("secret-squad is for 3 to 10 players, not 2.") and "--seed" not in line
    assert not out.exists()


def test_a_reader_that_goes_away_ends_the_listing_quietly(tmp_path: Path) -> None:
    listing = subprocess.Popen([sys.executable, "-m", "voicehost.cli", "games"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               env={**os.environ, "XDG_DATA_HOME": str(tmp_path)})
    assert listing.stdout is not None and listing.stderr is not None
    listing.stdout.close()  # as `| head -1` does once it has its line
    err = listing.stderr.read().decode()
    assert listing.wait(timeout=120) == 0 and err == ""


@pytest.fixture
def working_devices(monkeypatch: pytest.MonkeyPatch) -> None:
    """A microphone that hears a quiet room and a speaker that plays."""
    noise = np.random.default_rng(1).normal(0, 30, 32000).astype(np.int16)
    monkeypatch.setattr(devices, "record_input", lambda seconds=1.0, device=None: noise)
    monkeypatch.setattr(devices, "check_speaker",
                        lambda *args, **kwargs: devices.SpeakerCheck(True, "speaker", 0.4))


def doctor(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, list[str]]:
    capsys.readouterr()
    status = main(["doctor", *args])
    return status, capsys.readouterr().out.splitlines()


def test_the_doctor_passes_a_working_install_without_vosk(
        working_devices: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)  # models/ is not here: no vosk model
    status, lines = doctor([], capsys)
    assert status == 0, lines
    assert any(line.startswith("--  vosk model: No speech model found") and
               "Not needed: --engine auto does without it." in line for line in lines), lines
    assert [line for line in lines if "Whisper" in line], lines
    assert not [line for line in lines if line.startswith("NO ")], lines


def test_the_doctor_fails_when_the_engine_asked_for_is_not_there(
        working_devices: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    status, lines = doctor(["--engine", "vosk"], capsys)
    assert status == 1
    assert any(line.startswith("NO  vosk model: No speech model found") for line in lines)


def pcm_wav(path: Path) -> Path:
    with wave.open(str(path), "wb") as wav:
        wav.setnchannels(1)
        wav.setsampwidth(2)
        wav.setframerate(16000)
        wav.writeframes(bytes(3200))
    return path


@pytest.mark.parametrize(("args", "reason"), [
    (["--decision", "dance"], "--decision: Secret Squad has no decision 'dance'; try: "),
    (["--game", "ferret-out", "--decision", "guess", "--pouch", "99"],
     "--pouch 99: ferret-out has no pouch pair 99."),
])
def test_hear_refuses_what_the_game_does_not_ask(args: list[str], reason: str,
                                                 tmp_path: Path) -> None:
    wav = pcm_wav(tmp_path / "quiet.wav")
    assert reason in refused(["hear", str(wav), "--engine", "pocketsphinx", *args], tmp_path)
