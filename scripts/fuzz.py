"""Fuzz the host at its edges (issue 12), and print the figures the README quotes.

    python scripts/fuzz.py utterances [--count 100000]   random speech and typed lines
    python scripts/fuzz.py journals [--corruptions 10000] cut and corrupted save files
    python scripts/fuzz.py kills [--count 500]            SIGKILL mid-game, then resume

utterances: whole games of the three titles (boxed and printed cards, every table size) are
told what a careless table says (voicehost/lab/random_table.py), through the audio host's
Voice or typed through text mode. After every journaled move the journal is replayed and must
equal the live game. Any traceback is a failure.
journals: real journals of each game, cut at every byte offset and corrupted at random (bytes
flipped, cut out, doubled, lines swapped or replaced). Each must be refused with one sentence
naming the file, or resume to the game its whole lines hold.
kills: a game in text mode, driven by a player who answers by the game's state alone, is
killed (SIGKILL) at a random moment, resumed, and played to the end; it must end as the same
game played without a kill.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from collections import Counter
from pathlib import Path
from typing import Any

from voicehost.host.events import EventStream
from voicehost.host.host import Host
from voicehost.host.table import Seats, Table
from voicehost.lab.random_table import RandomTable, careless_line, state_of
from voicehost.registry import GAMES
from voicehost.session import open_saved, resume
from voicehost.speech.text_voice import TextVoice
from voicehost.store.journal import Journal, JournalError

# -- utterances ---------------------------------------------------------------------------------


class Mismatch(AssertionError):
    """The journal, replayed, is not the game being played."""


def new_table(rng: random.Random) -> Table:
    spec = GAMES[rng.choice(sorted(GAMES))]
    low, high = spec.players
    players = rng.randint(low, high)
    settings = {"study_seconds": "0"} if spec.name == "ferret-out" else {}
    if spec.name == "ferret-out":
        settings["end"] = rng.choice(["rounds", "15", "20"])
    if spec.name == "secret-squad":
        settings.update(rounds=str(rng.randint(1, 3)), cards_per_round=str(rng.randint(1, 4)))
    cards = rng.choice([None, None, "ask", printed_number(spec.name, players, rng)])
    return spec.table.from_options(Seats.default(players), rng.randrange(10**6), settings, cards)


def printed_number(game: str, players: int, rng: random.Random) -> str:
    from voicehost.games.deck import SEEDS, Deck

    return Deck(game, players, rng.randrange(SEEDS)).number


def check_replay(table: Table, path: Path, seen: list[int]) -> None:
    """After a move was journaled: the journal, replayed from scratch, is the live game."""
    lines = path.read_bytes().count(b"\n")
    if lines == seen[0]:
        return
    seen[0] = lines
    replayed = open_saved(path).table
    if state_of(replayed.game) != state_of(table.game):
        raise Mismatch(f"{path}: replay differs from the live game after {lines} records")


TYPED = ("yes", "no", "ready", "yup", "nope", "player two", "i pointed at owl", "yellow",
         "red", "roll", "three", "add to module one", "discard energy", "block fox",
         "mechanics energy and electronics", "owl was the weasel", "something else")


class CheckedText(TextVoice):
    """Text mode, typed lines from a string, with a check before every line is read."""

    def __init__(self, typed: io.StringIO, before_each: Any) -> None:
        super().__init__(typed, io.StringIO())
        self.before_each = before_each

    def listen(self, phrases: Any, timeout_s: float | None = None) -> Any:
        self.before_each()
        return super().listen(phrases, timeout_s)


def fuzz_game(rng: random.Random, folder: Path, budget: int, typed: bool) -> tuple[int, Table]:
    """One game told `budget` careless things (or fewer, if it ends); what was heard."""
    table = new_table(rng)
    path = folder / f"{time.time_ns()}.jsonl"
    journal = Journal(path, new=True)
    journal.append(table.setup_record())
    seen = [1]
    if typed:
        lines = [careless_line(TYPED, rng) or "" for _ in range(budget)]
        voice: Any = CheckedText(io.StringIO("\n".join(lines) + "\n"),
                                 lambda: check_replay(table, path, seen))
    else:
        voice = RandomTable(rng.random(), budget, lambda: check_replay(table, path, seen))
    try:
        Host(table, voice, journal, EventStream(io.StringIO())).run()
    finally:
        journal.close()
    check_replay(table, path, seen)
    return (budget if typed else voice.heard), table


def run_utterances(count: int, seed: int) -> int:
    rng = random.Random(seed)
    heard, games, failures = 0, Counter(), 0
    finished = 0
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as folder:
        while heard < count:
            typed = rng.random() < 0.2
            try:
                said, table = fuzz_game(rng, Path(folder), rng.randint(50, 2500), typed)
            except Exception:  # noqa: BLE001 - a fuzzer counts tracebacks, it does not stop
                failures += 1
                traceback.print_exc()
                continue
            heard += said
            games[table.deck_game + (" printed" if table.cards else "")] += 1
            finished += table.game.pending() is None
    print(f"utterances: {heard} said or typed in {sum(games.values())} games "
          f"({', '.join(f'{n} {g}' for g, n in sorted(games.items()))}), {finished} played "
          f"to the end; {failures} tracebacks or replay mismatches; "
          f"{time.monotonic() - started:.0f} s")
    return failures


# -- journals -----------------------------------------------------------------------------------


def real_journals(folder: Path, seed: int) -> dict[str, bytes]:
    """A long real journal of each game (boxed and printed), from careless games."""
    rng = random.Random(seed)
    best: dict[str, bytes] = {}
    for _ in range(60):
        _, table = fuzz_game(rng, folder, 3000, typed=False)
        key = table.deck_game + (" printed" if table.cards else "")
        data = max(folder.glob("*.jsonl"), key=lambda p: p.stat().st_mtime_ns).read_bytes()
        if len(data) > len(best.get(key, b"")):
            best[key] = data
    return best


def corrupt(data: bytes, rng: random.Random) -> bytes:
    kind = rng.randrange(6)
    at = rng.randrange(len(data))
    if kind == 0:
        return data[:at] + bytes([rng.randrange(256)]) + data[at + 1:]
    if kind == 1:
        return data[:at] + data[at + rng.randint(1, 200):]
    if kind == 2:
        return data[:at] + bytes(rng.randrange(256) for _ in range(rng.randint(1, 40))) + data[at:]
    lines = data.splitlines(keepends=True)
    i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
    if kind == 3:
        lines[i], lines[j] = lines[j], lines[i]
    elif kind == 4:
        lines.insert(i, lines[j])
    else:
        lines[i] = json.dumps(rng.choice([{"type": "action", "action": {"kind": "x"}},
                                          {"type": "undo"}, {"type": "action"}, [1],
                                          {"type": "setup", "game": "chess"}, "text", None]),
                              ensure_ascii=False).encode() + b"\n"
    return b"".join(lines)


class Silent:
    """A table that has gone home: the resumed host must say where things stand and save."""

    def listen(self, phrases: Any, timeout_s: Any = None) -> None:
        from voicehost.voice import EndOfInput

        raise EndOfInput

    record = listen

    def say(self, text: str) -> None:
        pass

    def play(self, pcm: bytes) -> None:
        pass

    def too_loud(self) -> bool:
        return False

    def wait_for_microphone(self) -> None:
        pass

    def close(self) -> None:
        pass


def try_resume(path: Path, data: bytes, whole: bytes | None) -> str:
    """"refused" or "resumed"; an exception is a failure. `whole`: the journal the game must
    be, when the cut lands where the whole lines are known."""
    path.write_bytes(data)
    try:
        saved = open_saved(path)
    except JournalError as problem:
        if str(path) not in str(problem):
            raise AssertionError(f"a refusal that does not name the file: {problem}") from None
        if path.read_bytes() != data:
            raise AssertionError("a refused journal was changed") from None
        return "refused"
    if whole is not None:
        path.with_suffix(".whole").write_bytes(whole)
        expected = open_saved(path.with_suffix(".whole")).table.game
        if state_of(saved.table.game) != state_of(expected):
            raise Mismatch("a cut journal resumed to another game than its whole lines")
    resume(saved, Silent(), EventStream(io.StringIO()))  # type: ignore[arg-type]
    return "resumed"


def run_journals(corruptions: int, seed: int) -> int:
    rng = random.Random(seed)
    failures = 0
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as folder:
        journals = real_journals(Path(folder), seed)
        target = Path(folder) / "check" / "game.jsonl"
        target.parent.mkdir()
        for key, data in sorted(journals.items()):
            outcomes: Counter[str] = Counter()
            cuts = range(len(data) + 1)
            for offset in cuts:
                cut = data[:offset]
                whole = cut[:cut.rfind(b"\n") + 1]
                try:
                    outcomes["cut " + try_resume(target, cut, whole if whole else None)] += 1
                except Exception:  # noqa: BLE001
                    failures += 1
                    traceback.print_exc()
            for _ in range(corruptions):
                try:
                    outcomes[try_resume(target, corrupt(data, rng), None)] += 1
                except Exception:  # noqa: BLE001
                    failures += 1
                    traceback.print_exc()
            moves = data.count(b"\n") - 1
            print(f"journals: {key}, {len(data)} bytes ({moves} moves): {len(cuts)} cuts "
                  f"({outcomes['cut resumed']} resumed, {outcomes['cut refused']} refused), "
                  f"{corruptions} corruptions ({outcomes['resumed']} resumed, "
                  f"{outcomes['refused']} refused)")
    print(f"journals: {failures} tracebacks or wrong resumes; "
          f"{time.monotonic() - started:.0f} s")
    return failures


# -- kills --------------------------------------------------------------------------------------

GAME_TIMEOUT_S = 300
KILL_GAMES = {"secret-squad": ["--players", "4", "--set", "rounds=1",
                               "--set", "cards_per_round=2"],
              "ferret-out": ["--players", "3", "--set", "study_seconds=0"],
              "secret-operation": ["--players", "4"]}


def answer(listen: dict[str, Any], tries: int) -> str:
    """What the player says: a function of what the host asks (the game's state) and of how
    many times it was refused since, so a resumed game is answered as it would have been."""
    if listen["decision"] == "confirm":
        return "yes"
    if listen["decision"] == "paused":
        return "resume"
    facts = json.dumps({k: v for k, v in listen.items() if k not in ("time", "say")},
                       sort_keys=True)
    pick = int(hashlib.sha256(facts.encode()).hexdigest(), 16) + tries
    if not listen["options"]:
        return ["lantern", "river", "velvet", "copper"][pick % 4]
    option = listen["options"][pick % len(listen["options"])]
    return (listen.get("say") or {}).get(option, option)


def play_out(argv: list[str], events: Path, kill_after: float | None) -> bool:
    """Run voicehost, answering each listen; True when it was killed."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "voicehost.cli", *argv, "--io", "text",
                             "--events", str(events)], stdin=subprocess.PIPE,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            env=env)
    began, offset, buffer = time.monotonic(), 0, ""
    last: dict[str, Any] | None = None
    tries = 0
    assert proc.stdin is not None
    while True:
        if time.monotonic() - began > GAME_TIMEOUT_S:
            proc.kill()
            raise AssertionError(f"{argv}: no end after {GAME_TIMEOUT_S} s")
        if kill_after is not None and time.monotonic() - began >= kill_after:
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            return True
        if events.exists():
            with events.open(encoding="utf-8") as handle:
                handle.seek(offset)
                buffer += handle.read()
                offset = handle.tell()
        while "\n" in buffer:
            line, buffer = buffer.split("\n", 1)
            event = json.loads(line)
            if event["event"] == "listen":
                key = {k: v for k, v in event.items() if k != "time"}
                tries = tries + 1 if key == last else 0
                last = key
                try:
                    proc.stdin.write(answer(event, tries) + "\n")
                    proc.stdin.flush()
                except BrokenPipeError:
                    pass
        if proc.poll() is not None and "\n" not in buffer:
            if proc.returncode != 0:
                raise AssertionError(f"voicehost exited {proc.returncode}: "
                                     f"{proc.stderr.read() if proc.stderr else ''}")
            return False
        time.sleep(0.002)


def final_state(journal: Path) -> Any:
    saved = open_saved(journal)
    if saved.table.game.pending() is not None:
        raise AssertionError(f"{journal}: the game did not end")
    return state_of(saved.table.game)


def run_kills(count: int, seed: int) -> int:
    rng = random.Random(seed)
    failures, killed_at = 0, Counter()
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as folder:
        references: dict[tuple[str, int], tuple[Any, float]] = {}
        for n in range(count):
            game = sorted(KILL_GAMES)[n % len(KILL_GAMES)]
            game_seed = rng.randrange(5)
            argv = ["play", game, "--seed", str(game_seed), *KILL_GAMES[game]]
            if (game, game_seed) not in references:
                journal = Path(folder) / f"ref-{game}-{game_seed}.jsonl"
                began = time.monotonic()
                play_out([*argv, "--journal", str(journal)], journal.with_suffix(".events"),
                         None)
                references[game, game_seed] = final_state(journal), time.monotonic() - began
            reference, took = references[game, game_seed]
            journal = Path(folder) / f"kill-{n}.jsonl"
            events = journal.with_suffix(".events")
            try:
                kill_after = rng.uniform(0.3, took)
                if not play_out([*argv, "--journal", str(journal)], events, kill_after):
                    killed_at["after the end"] += 1
                    continue
                moves = journal.read_bytes().count(b"\n") if journal.exists() else 0
                killed_at[game] += 1
                if not journal.exists() or not moves:
                    killed_at["before the setup was saved"] += 1
                    continue
                events.unlink()
                play_out(["resume", "--journal", str(journal)], events, None)
                if final_state(journal) != reference:
                    raise Mismatch(f"{game} seed {game_seed}, killed at {kill_after:.2f} s "
                                   f"after {moves} records: another game than without a kill")
            except Exception:  # noqa: BLE001
                failures += 1
                traceback.print_exc()
    print(f"kills: {count} runs ({', '.join(f'{n} {k}' for k, n in sorted(killed_at.items()))});"
          f" {failures} failures; {time.monotonic() - started:.0f} s")
    return failures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("what", choices=("utterances", "journals", "kills"))
    parser.add_argument("--count", type=int, default=None)
    parser.add_argument("--corruptions", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if args.what == "utterances":
        return min(1, run_utterances(args.count or 100_000, args.seed))
    if args.what == "journals":
        return min(1, run_journals(args.corruptions, args.seed))
    return min(1, run_kills(args.count or 500, args.seed))


if __name__ == "__main__":
    sys.exit(main())
