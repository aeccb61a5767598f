"""Saves that survive anything: a write cut short, a kill or a full disk while one is repaired,
any file at all in the games folder, a folder or a save that cannot be written, a disk that fills
mid-game. Each gives one line, no traceback, and no save is lost or emptied. The failures are
injected in-process: the tests run as root, whom no permission stops."""

from __future__ import annotations

import errno
import io
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from test_saves import ONE_MOVE, games_listed, play

from voicehost.cli import main
from voicehost.session import open_saved, saves_dir
from voicehost.store import journal as journal_module
from voicehost.store import private
from voicehost.store.journal import read_records

TWO_MOVES = "i'm in\n" * 4 + "ready\nyup\nnope\n"  # Secret Squad, 4 players: two answers


@pytest.fixture
def data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    return tmp_path


def one_save(monkeypatch: pytest.MonkeyPatch, typed: str = TWO_MOVES) -> Path:
    play(["play", "secret-squad", "--players", "4", "--seed", "8"], typed, monkeypatch)
    (save,) = saves_dir().glob("*.jsonl")
    return save


def stopped(argv: list[str], capsys: pytest.CaptureFixture[str], typed: str = "",
            monkeypatch: pytest.MonkeyPatch | None = None) -> tuple[int, str]:
    """Run voicehost; its exit status and its one line on standard error (asserted one, with no
    traceback)."""
    if monkeypatch is not None:
        monkeypatch.setattr(sys, "stdin", io.StringIO(typed))
    capsys.readouterr()
    try:
        status = main(argv)
    except SystemExit as stop:
        status = int(stop.code or 0)
    err = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert len(err) == 1 and "Traceback" not in err[0], err
    return status, err[0]


def moves(save: Path) -> int:
    return sum(r["type"] == "action" for r in read_records(save))


# -- a write cut short, and its repair -----------------------------------------------------------


def test_a_last_record_cut_before_its_newline_is_dropped_not_replayed(
        data: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    save = one_save(monkeypatch)
    whole, answers = save.read_bytes(), moves(save)
    save.write_bytes(whole[:-1])  # the last answer's record, whole but for its newline
    assert moves(save) == answers - 1  # never replayed half
    play(["resume"], "", monkeypatch)
    assert moves(save) == answers - 1 and save.read_bytes().endswith(b"\n")
    assert open_saved(save).actions  # it still replays
    listed = games_listed(capsys)
    assert len(listed) == 1 and "damaged" not in listed[0] and "unfinished" in listed[0]


def failing(point: str, problem: BaseException) -> Callable[..., Any]:
    """`point` of the repair (os.fsync or os.replace) fails with `problem`."""
    real = getattr(os, point)

    def fail(*args: Any, **kwargs: Any) -> Any:
        if point == "fsync" or any(".jsonl." in str(a) for a in args):
            raise problem
        return real(*args, **kwargs)

    return fail


class Killed(BaseException):
    """The process died here."""


@pytest.mark.parametrize(("point", "problem"), [
    ("fsync", OSError(errno.ENOSPC, "No space left on device")),
    ("replace", OSError(errno.ENOSPC, "No space left on device")),
    ("fsync", Killed()),
    ("replace", Killed()),
])
def test_a_repair_cut_by_a_kill_or_a_full_disk_leaves_the_save_whole(
        point: str, problem: BaseException, data: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    save = one_save(monkeypatch)
    cut = save.read_bytes()[:-1]
    save.write_bytes(cut)
    with monkeypatch.context() as failures:
        failures.setattr(private.os, point, failing(point, problem))
        if isinstance(problem, Killed):
            with pytest.raises(Killed):
                main(["resume", "--io", "text"])
        else:
            status, line = stopped(["resume", "--io", "text"], capsys)
            assert status == 2 and "No space left on device" in line and str(save) in line
    assert save.read_bytes() == cut  # as it was: never emptied, never cut in place
    if not isinstance(problem, Killed):  # a kill leaves its new file, which no glob reads
        assert not [f for f in save.parent.iterdir() if f.name.startswith(".")]


# -- any file in the games folder ----------------------------------------------------------------


def with_names(names: str) -> Callable[[Path, str], None]:
    """A save whose setup is a real one's with `names` (JSON) for its seats' names."""
    def write(path: Path, setup: str) -> None:
        record = json.loads(setup)
        path.write_text(json.dumps({**record, "names": "NAMES"}).replace('"NAMES"', names)
                        + "\n")
    return write


BAD_FILES: dict[str, Callable[[Path, str], None]] = {
    "nested brackets": lambda p, _: p.write_text("[" * 100_000 + "\n"),
    "a 5000-digit number": lambda p, _: p.write_text('{"type": "setup", "seed": '
                                                     + "9" * 5000 + "}\n"),
    "names that are numbers": with_names("[1, 2, 3, 4]"),
    "a lone surrogate": with_names('["\\ud800", "robin", "husky", "tiger"]'),
    "a folder": lambda p, _: p.mkdir(),
    "a dangling link": lambda p, _: p.symlink_to(p.parent / "nowhere"),
    "a pipe": lambda p, _: os.mkfifo(p),
    "too big": lambda p, _: p.write_bytes(b" " * (journal_module.MAX_SAVE_BYTES + 2)),
    "binary": lambda p, _: p.write_bytes(bytes(range(256)) * 4),
}


@pytest.mark.parametrize("kind", list(BAD_FILES))
def test_one_bad_file_in_the_games_folder_harms_no_other_game(
        kind: str, data: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    good = one_save(monkeypatch)
    BAD_FILES[kind](saves_dir() / "20000101-000000-secret-squad.jsonl",
                    good.read_text().splitlines()[0])
    listed = games_listed(capsys)
    ours = [line for line in listed if line.startswith(good.stem)]
    assert len(ours) == 1 and "unfinished" in ours[0], listed
    others = [line for line in listed if not line.startswith(good.stem)]
    assert all("damaged" in line and "\n" not in line for line in others), others
    capsys.readouterr()
    play(["resume"], "", monkeypatch)
    assert "Welcome back to Secret Squad" in capsys.readouterr().out


def test_an_unreadable_save_is_listed_as_damaged_and_kept(
        data: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    good = one_save(monkeypatch)
    locked = saves_dir() / "20000101-000000-secret-squad.jsonl"
    locked.write_bytes(good.read_bytes())
    real_open = Path.open

    def refuse_locked(self: Path, *args: Any, **kwargs: Any) -> Any:
        if self == locked:
            raise PermissionError(errno.EACCES, "Permission denied")
        return real_open(self, *args, **kwargs)

    with monkeypatch.context() as failures:
        failures.setattr(Path, "open", refuse_locked)
        listed = games_listed(capsys)
        assert any(line.startswith(locked.stem) and "Permission denied" in line
                   for line in listed)
        status, line = stopped(["resume", locked.stem, "--io", "text"], capsys)
        assert status == 2 and "Permission denied" in line and "kept as it is" in line
    assert locked.read_bytes() == good.read_bytes()


# -- what cannot be written ----------------------------------------------------------------------


def refusing_writes(patch: pytest.MonkeyPatch, where: Path, error: int) -> None:
    """Opening a file in `where` for writing, or removing one, fails with `error`."""
    real_open, real_unlink = os.open, Path.unlink

    def opening(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        if Path(path).parent == where and flags & (os.O_WRONLY | os.O_RDWR):
            raise OSError(error, os.strerror(error))
        return real_open(path, flags, *args, **kwargs)

    def unlinking(self: Path, *args: Any, **kwargs: Any) -> None:
        if self.parent == where:
            raise OSError(error, os.strerror(error))
        real_unlink(self, *args, **kwargs)

    patch.setattr(private.os, "open", opening)
    patch.setattr(Path, "unlink", unlinking)


def test_a_read_only_save_is_refused_in_one_line_and_kept(
        data: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    save = one_save(monkeypatch)
    kept = save.read_bytes()
    with monkeypatch.context() as failures:
        refusing_writes(failures, save.parent, errno.EACCES)
        status, line = stopped(["resume", "--io", "text"], capsys)
        assert status == 2 and "Permission denied" in line and "chmod u+w" in line
        status, line = stopped(["games", "--remove", save.stem], capsys)
        assert status == 2 and "cannot remove" in line and "Permission denied" in line
    assert save.read_bytes() == kept


def test_a_read_only_games_folder_is_refused_in_one_line(
        data: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    saves_dir().mkdir(parents=True)
    refusing_writes(monkeypatch, saves_dir(), errno.EROFS)
    status, line = stopped(["play", "secret-squad", "--io", "text"], capsys, "", monkeypatch)
    assert status == 2 and "Read-only file system" in line


def test_a_disk_that_fills_mid_game_stops_it_in_one_line_with_every_answer_kept(
        data: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    real_fsync = os.fsync
    writes = 0

    def filling(descriptor: int) -> None:
        nonlocal writes
        writes += 1
        if writes > 3:  # the setup and two answers fit (ready, yup)
            raise OSError(errno.ENOSPC, "No space left on device")
        real_fsync(descriptor)

    with monkeypatch.context() as failures:
        failures.setattr(journal_module.os, "fsync", filling)
        status, line = stopped(["play", "secret-squad", "--players", "4", "--seed", "8",
                                "--io", "text"], capsys, TWO_MOVES + "yup\n", monkeypatch)
    assert status == 1 and "No space left on device" in line and "resume" in line
    (save,) = saves_dir().glob("*.jsonl")
    assert moves(save) >= 2 and open_saved(save).actions  # every answer before, replayable


def test_an_event_stream_that_cannot_be_written_is_said_once_and_the_game_goes_on(
        data: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    status, line = stopped(["play", "secret-squad", "--players", "4", "--seed", "8",
                            "--io", "text", "--events", "/dev/full"], capsys, TWO_MOVES,
                           monkeypatch)
    assert status == 0 and "/dev/full" in line and "goes on" in line
    (save,) = saves_dir().glob("*.jsonl")
    assert moves(save) == 3


def test_resume_of_a_folder_is_refused_in_one_line(
        data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, line = stopped(["resume", "--journal", str(data), "--io", "text"], capsys)
    assert status == 2 and "not a save file" in line


def test_saves_and_event_files_are_private(
        data: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    events = data / "events.jsonl"
    play(["play", "secret-squad", "--players", "4", "--events", str(events)], ONE_MOVE[
        "secret-squad"], monkeypatch)
    (save,) = saves_dir().glob("*.jsonl")
    assert oct(save.stat().st_mode & 0o777) == oct(0o600)
    assert oct(events.stat().st_mode & 0o777) == oct(0o600)


def peak_memory_mb(typed: Path, data: Path) -> float:
    """The peak memory of `voicehost play` in a process of its own, `typed` its standard
    input."""
    code = ("import resource, sys; from voicehost.cli import main; main(sys.argv[1:]); "
            "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)")
    with typed.open("rb") as stdin:
        done = subprocess.run([sys.executable, "-c", code, "play", "secret-squad", "--players",
                               "4", "--seed", "8", "--io", "text"], stdin=stdin,
                              capture_output=True, text=True, timeout=120,
                              env={**os.environ, "XDG_DATA_HOME": str(data)})
    assert done.returncode == 0, done.stderr
    return int(done.stderr.split()[-1]) / 1024


def test_a_typed_line_of_ten_megabytes_is_cut_not_held(tmp_path: Path) -> None:
    short, huge = tmp_path / "short.txt", tmp_path / "huge.txt"
    short.write_text("i'm in\n" * 4 + "yes\nready\nyup\n")
    huge.write_text("i'm in\n" * 4 + "yes " * 2_500_000 + "\nready\nyup\n")
    assert peak_memory_mb(huge, tmp_path / "a") < peak_memory_mb(short, tmp_path / "b") + 30
