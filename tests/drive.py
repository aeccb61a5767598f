"""Drive a `voicehost` process the way a table would: wait for each `listen`, answer it."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

Reply = Callable[[dict[str, Any]], str]
Respond = Callable[[dict[str, Any], subprocess.Popen], None]


class EventTail:
    """Read a growing JSON Lines events file."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.offset = 0
        self.buffer = ""

    def next(self, proc: subprocess.Popen, timeout: float) -> dict[str, Any] | None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if "\n" in self.buffer:
                line, self.buffer = self.buffer.split("\n", 1)
                return json.loads(line)
            if self.path.exists():
                with self.path.open(encoding="utf-8") as handle:
                    handle.seek(self.offset)
                    chunk = handle.read()
                    self.offset = handle.tell()
                self.buffer += chunk
                if chunk:
                    continue
            if proc.poll() is not None and "\n" not in self.buffer:
                return None
            time.sleep(0.005)
        raise TimeoutError(f"no event from voicehost in {timeout} s")


def voicehost(*args: str) -> list[str]:
    return [sys.executable, "-m", "voicehost.cli", *args]


def kept_in(folder: Path) -> list[str]:
    """The options that keep a game's journal, events and secrets file in `folder`."""
    return ["--journal", str(folder / "game.jsonl"), "--events", str(folder / "events.jsonl"),
            "--secrets", str(folder / "secrets.jsonl")]


def secrets_kept(folder: Path) -> list[dict[str, Any]]:
    """The secrets file of the game kept in `folder` (see `kept_in`)."""
    path = folder / "secrets.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def play_text(game: str, folder: Path, players: int, seed: int, *args: str) -> list[str]:
    """`voicehost play GAME --io text`, the journal and events in `folder`."""
    return voicehost("play", game, "--io", "text", "--players", str(players), "--seed",
                     str(seed), *kept_in(folder), *args)


def resume_text(folder: Path) -> list[str]:
    """`voicehost resume --io text` of the game kept in `folder`."""
    return voicehost("resume", "--io", "text", *kept_in(folder))


def saying_once(phrase: str, when: Callable[[dict[str, Any]], bool], reply: Reply) -> Reply:
    """`reply`, but `phrase` instead the first time a `listen` is `when`."""
    said = False

    def once(listen: dict[str, Any]) -> str:
        nonlocal said
        if not said and when(listen):
            said = True
            return phrase
        return reply(listen)

    return once


def typed(reply: Reply) -> Respond:
    """Answer by typing a line on the host's stdin (text mode)."""

    def respond(listen: dict[str, Any], proc: subprocess.Popen) -> None:
        proc.stdin.write(reply(listen) + "\n")
        proc.stdin.flush()

    return respond


def drive(command: list[str], events: Path, reply: Reply | None = None,
          kill_after: int | None = None, timeout: float = 30.0,
          env: dict[str, str] | None = None,
          respond: Respond | None = None,
          on_event: Callable[[dict[str, Any]], None] | None = None) -> list[dict[str, Any]]:
    """Run one voicehost process to its end (or SIGKILL it after `kill_after` replies).

    Returns every event it emitted. Typed replies are written without waiting for the host
    to take them, so a kill can land while an answer is in flight.
    """
    respond = respond or typed(reply)
    proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONFAULTHANDLER": "1", **(env or {})})
    tail = EventTail(events)
    tail.offset = events.stat().st_size if events.exists() else 0
    seen: list[dict[str, Any]] = []
    replies = 0
    try:
        while (event := tail.next(proc, timeout)) is not None:
            seen.append(event)
            if on_event is not None:
                on_event(event)
            if event["event"] != "listen":
                continue
            if kill_after is not None and replies >= kill_after:
                proc.send_signal(signal.SIGKILL)
                proc.wait()
                return seen
            respond(event, proc)
            replies += 1
        proc.stdin.close()
        proc.wait(timeout=timeout)
        if proc.returncode != 0:
            raise AssertionError(f"voicehost failed with {exit_status(proc.returncode)}, "
                                 f"its last events {seen[-4:]}: {proc.stderr.read()}")
        return seen
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def exit_status(code: int) -> str:
    """`code` as people read it: "status 1", or the signal that ended the process."""
    return f"signal {signal.Signals(-code).name}" if code < 0 else f"status {code}"


def play_through_kills(command: list[str], folder: Path, reply: Reply, rng: random.Random,
                       most_replies: int, kills: int) -> tuple[list[dict[str, Any]], int]:
    """Play the game `command` starts (kept in `folder`) to its end, pulling the plug `kills`
    times, each after 1 to `most_replies` replies, and resuming it each time.

    Returns every event and how many processes it took."""
    seen: list[dict[str, Any]] = []
    runs = 0
    while not any(e["event"] == "game_over" for e in seen):
        kill_after = rng.randint(1, most_replies) if runs < kills else None
        seen += drive(command, folder / "events.jsonl", reply, kill_after=kill_after)
        runs += 1
        command = resume_text(folder)
    return seen, runs
