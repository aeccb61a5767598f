"""The `voicehost` command at its edges: a file that is not what it should be, a folder that
is not there or cannot be written, a number out of range. Each is refused with one line and
exit status 2, with nothing created or changed (a mistyped word with the likely one); a reader
that goes away ends output quietly; Ctrl-C keeps the game and says how to carry it on; the
doctor fails only on what the engine in use needs, and never says ok of what it did not reach."""

from __future__ import annotations

import json
import os
import signal
import socket
import struct
import subprocess
import sys
import wave
from importlib.metadata import version
from pathlib import Path

import numpy as np
import pytest
from drive import EventTail, drive, play_text, resume_text
from squad_script import SecretSquadScript

from voicehost.cli import main
from voicehost.intents.understand import reading_of
from voicehost.session import actions_of
from voicehost.speech import devices
from voicehost.speech.engines import engine_checks
from voicehost.speech.mouth import Mouth
from voicehost.store.journal import read_records


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


WRITERS = [  # a command, its option that names a file to write, and a name for that file
    (["play", "--io", "text"], "--journal", "x.jsonl"),
    (["play", "--io", "text"], "--events", "x.jsonl"),
    (["cards", "secret-squad", "--players", "4"], "--out", "x.pdf"),
    (["say", "hi"], "--out", "x.wav"),
]


@pytest.mark.parametrize(("command", "option", "name"), WRITERS)
def test_a_file_under_a_file_is_refused(command: list[str], option: str, name: str,
                                        tmp_path: Path) -> None:
    plain = tmp_path / "plain.txt"
    plain.write_text("not a folder\n")
    target = plain / name
    line = refused([*command, option, str(target)], tmp_path)
    assert line.endswith(f"{option} {target}: {plain} is not a folder.")
    assert plain.read_text() == "not a folder\n" and nothing_saved(tmp_path)


READ_ONLY = Path("/sys")  # sysfs: no file can be made in it, not even by root (tests run as root)


@pytest.mark.parametrize(("command", "option", "name"), WRITERS)
def test_a_file_in_a_folder_that_cannot_be_written_is_refused(command: list[str], option: str,
                                                              name: str, tmp_path: Path) -> None:
    target = READ_ONLY / f"voicehost-test-{name}"
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
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))  # no models folder: no vosk model
    monkeypatch.delenv("VOICEHOST_MODELS", raising=False)
    status, lines = doctor([], capsys)
    assert status == 0, lines
    assert any(line.startswith(f"--  vosk model in {tmp_path / 'voicehost' / 'models'}: "
                               "No speech model found") and
               "Not needed: --engine auto does without it." in line for line in lines), lines
    assert [line for line in lines if "Whisper" in line], lines
    assert not [line for line in lines if line.startswith("NO ")], lines


def test_the_doctor_fails_when_the_engine_asked_for_is_not_there(
        working_devices: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    monkeypatch.delenv("VOICEHOST_MODELS", raising=False)
    status, lines = doctor(["--engine", "vosk"], capsys)
    assert status == 1
    assert any(line.startswith("NO  vosk model in ") and "No speech model found" in line
               for line in lines)


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


def test_events_on_standard_output_end_cleanly(tmp_path: Path) -> None:
    done = voicehost(["play", "--io", "text", "--events", "-"], tmp_path)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    assert events[-1]["event"] == "saved"


def test_ctrl_c_saves_the_game_in_one_line_and_resume_carries_it_on(tmp_path: Path) -> None:
    script = SecretSquadScript(4, seed=4)
    before = stopped_by_ctrl_c(play_text("secret-squad", tmp_path, 4, 11), tmp_path, script, 10)
    assert game_moves(tmp_path) == before
    again = stopped_by_ctrl_c(resume_text(tmp_path), tmp_path, script, 3)
    assert game_moves(tmp_path) == before + again
    events = drive(resume_text(tmp_path), tmp_path / "events.jsonl", script.reply)
    assert [e for e in events if e["event"] == "game_over"][0]["scores"] == \
        script.expected_scores()


def stopped_by_ctrl_c(command: list[str], folder: Path, script: SecretSquadScript,
                      replies: int) -> list[tuple[str, int | None]]:
    """Answer `replies` questions, press Ctrl-C at the next one and check that voicehost says
    in one line how to carry on; the moves answered (the roll call is none)."""
    proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    assert proc.stdin is not None and proc.stderr is not None
    tail = EventTail(folder / "events.jsonl")
    tail.offset = tail.path.stat().st_size if tail.path.exists() else 0
    moves: list[tuple[str, int | None]] = []
    answered = 0
    while (event := tail.next(proc, 30)) is not None:
        if event["event"] != "listen":
            continue
        if answered == replies:
            proc.send_signal(signal.SIGINT)
            break
        proc.stdin.write(script.reply(event) + "\n")
        proc.stdin.flush()
        answered += 1
        if event["decision"] != "roll_call":
            moves.append((event["decision"], event["player"]))
    assert proc.wait(timeout=30) == 130
    lines = proc.stderr.read().splitlines()
    journal = folder / "game.jsonl"
    assert len(lines) == 1 and lines[0].startswith("voicehost: stopped. The game is saved: "), \
        lines
    assert f" resume --journal {journal} --io text carries it on." in lines[0]
    return moves


def game_moves(folder: Path) -> list[tuple[str, int | None]]:
    return [(a.kind, a.player) for a in actions_of(read_records(folder / "game.jsonl"))]


@pytest.mark.parametrize("data", ["a file", READ_ONLY])
def test_a_save_folder_that_cannot_be_made_is_refused_naming_it(data: Path | str,
                                                                tmp_path: Path) -> None:
    if data == "a file":
        data = tmp_path / "data.txt"
        data.write_text("not a folder\n")
    line = refused(["play", "--io", "text"], Path(data))
    assert f"cannot save games in {Path(data) / 'voicehost' / 'games'}: " in line, line


def test_an_empty_xdg_data_home_saves_in_the_default_folder(tmp_path: Path) -> None:
    home, here = tmp_path / "home", tmp_path / "here"
    here.mkdir()
    done = subprocess.run([sys.executable, "-m", "voicehost.cli", "play", "--io", "text"],
                          input="", capture_output=True, text=True, timeout=120, cwd=here,
                          env={**os.environ, "HOME": str(home), "XDG_DATA_HOME": ""})
    assert done.returncode == 0, done.stderr
    assert len(list((home / ".local/share/voicehost/games").glob("*.jsonl"))) == 1
    assert list(here.iterdir()) == []


def test_version_names_the_installed_package(tmp_path: Path) -> None:
    done = voicehost(["--version"], tmp_path)
    assert (done.returncode, done.stdout) == (0, f"voicehost {version('voicehost')}\n")


@pytest.mark.parametrize(("args", "guess"), [
    (["play", "secret-sqaud"], "; did you mean secret-squad?"),
    (["plya"], "; did you mean play?"),
    (["play", "--io", "txet"], "; did you mean text?"),
    (["cards", "secret-squad", "--players", "4"], "--out"),
    (["play", "--no-such-option"], "unrecognized arguments: --no-such-option"),
])
def test_a_command_line_mistake_is_one_line(args: list[str], guess: str,
                                            tmp_path: Path) -> None:
    assert guess in refused(args, tmp_path)


def test_help_still_shows_the_options(tmp_path: Path) -> None:
    done = voicehost(["play", "--help"], tmp_path)
    assert done.returncode == 0 and done.stdout.startswith("usage: voicehost play")
    assert "--players" in done.stdout


def test_a_deck_number_that_does_not_check_out_is_refused_in_plain_words(
        tmp_path: Path) -> None:
    line = refused(["play", "--io", "text", "--cards", "123456"], tmp_path)
    assert line == ("voicehost: error: --cards 123456: that deck number does not check out "
                    "(a digit may be wrong).")
    assert nothing_saved(tmp_path)


@pytest.mark.parametrize(("command", "name", "kind"), [
    (["cards", "secret-squad", "--players", "4"], "cards.txt", ".pdf"),
    (["say", "hi"], "hi.mp3", ".wav"),
])
def test_out_must_be_named_for_what_is_written(command: list[str], name: str, kind: str,
                                               tmp_path: Path) -> None:
    out = tmp_path / name
    line = refused([*command, "--out", str(out)], tmp_path)
    assert line.endswith(f"name the file {kind}.") and not out.exists()


def test_say_without_a_speaker_suggests_saving_the_line(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    def no_speaker(mouth: Mouth, text: str) -> None:
        raise devices.AudioDeviceError("No output sound device was found.", "Plug one in.")

    monkeypatch.setattr(Mouth, "say", no_speaker)
    assert main(["say", "hello"]) == 1
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1 and "--out FILE.wav" in lines[0], lines


def test_the_doctor_does_not_hear_through_a_satellite_it_did_not_reach(
        capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]
    status, lines = doctor(["--satellite", f"tcp://127.0.0.1:{port}"], capsys)
    assert status == 1 and lines[0].startswith("NO  satellite at "), lines
    assert not [line for line in lines if line.startswith("ok  hearing")], lines


def test_models_live_in_the_data_folder_whatever_the_current_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    model = tmp_path / "data" / "voicehost" / "models" / "vosk-model-small-en-us-0.15"
    (model / "am").mkdir(parents=True)
    (model / "am" / "final.mdl").write_bytes(b"")
    (model / "conf").mkdir()
    here = tmp_path / "here"
    here.mkdir()
    monkeypatch.chdir(here)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.delenv("VOICEHOST_MODELS", raising=False)
    assert engine_checks(reading_of)[1] == (f"vosk model {model}", True, "")
    done = subprocess.run([sys.executable, "-m", "voicehost.cli", "models", "download"],
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "https_proxy": "http://127.0.0.1:9"})  # no network
    assert (done.returncode, done.stdout) == (0, f"Installed {model}\n"), done.stderr
    assert list(here.iterdir()) == []


@pytest.mark.parametrize("on_path", [False, True])
def test_the_goodbye_names_a_command_that_runs(on_path: bool, tmp_path: Path) -> None:
    script = Path(sys.executable).parent / "voicehost"  # as scripts/setup.sh installs it
    top = script.parent.parent.parent
    typed = "voicehost" if on_path else str(script.relative_to(top))
    path = os.pathsep.join([str(script.parent)] * on_path + ["/usr/bin", "/bin"])
    journal = tmp_path / "game.jsonl"
    done = subprocess.run([typed, "play", "--io", "text", "--journal", str(journal)],
                          input="quit game\nyes\n", capture_output=True, text=True,
                          timeout=120, cwd=top, env={**os.environ, "PATH": path})
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == (f"The game is saved: {typed} resume --journal "
                                            f"{journal} --io text carries it on.")


def test_a_voice_espeak_ng_does_not_have_is_refused_before_the_game_begins() -> None:
    """`--voice nosuch` fails as the voice is readied, with the voices to try: before the
    opening line, so the door refuses it in one line and leaves no save."""
    mouth = Mouth(voice="nosuch")
    with pytest.raises(ValueError, match="no voice matches 'nosuch'"):
        mouth.warm_up()


def test_record_is_for_audio_mode_and_a_wav_file(tmp_path: Path) -> None:
    line = refused(["play", "secret-squad", "--io", "text", "--record",
                    str(tmp_path / "game.wav")], tmp_path)
    assert line.endswith("--record is for audio mode: it needs --io audio.")
    assert not (tmp_path / "game.wav").exists() and nothing_saved(tmp_path)


def test_a_start_refused_after_its_files_opened_leaves_none_of_them(tmp_path: Path) -> None:
    events, secrets = tmp_path / "events.jsonl", tmp_path / "secrets.jsonl"
    line = refused(["play", "secret-squad", "--io", "text", "--satellite", "tcp://127.0.0.1:1",
                    "--events", str(events), "--secrets", str(secrets)], tmp_path)
    assert "--satellite is for audio mode" in line
    assert not events.exists() and not secrets.exists() and nothing_saved(tmp_path)
