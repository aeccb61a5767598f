"""Fuzz the host at its edges, and print the figures docs/robustness.md quotes.

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
from voicehost.lab.random_table import QuietVoice, RandomTable, careless_line, state_of
from voicehost.registry import GAMES
from voicehost.session import open_saved, resume
from voicehost.speech.text_voice import TextVoice
from voicehost.store.journal import Journal, JournalError, read_records
from voicehost.voice import EndOfInput

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


ASKED: Counter[str] = Counter()  # the decisions pending when something was said


def check_replay(table: Table, path: Path, seen: list[int]) -> None:
    """After a move was journaled: the journal, replayed from scratch, is the live game."""
    pending = table.game.pending()
    ASKED[f"{table.deck_game} {pending.kind if pending else 'over'}"] += 1
    lines = path.read_bytes().count(b"\n")
    if lines == seen[0]:
        return
    seen[0] = lines
    replayed = open_saved(path).table
    if state_of(replayed.game) != state_of(table.game):
        raise Mismatch(f"{path}: replay differs from the live game after {lines} records")


TYPED = ("yes", "no", "ready", "yup", "nope", "player two", "i pointed at cheetah", "yellow",
         "red", "roll", "three", "add to module one", "discard energy", "block robin",
         "mechanics energy and electronics", "cheetah was the weasel", "something else")


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
    print(f"utterances: said while pending: {dict(sorted(ASKED.items()))}")
    print(f"utterances: {heard} said or typed in {sum(games.values())} games "
          f"({', '.join(f'{n} {g}' for g, n in sorted(games.items()))}), {finished} played "
          f"to the end; {failures} tracebacks or replay mismatches; "
          f"{time.monotonic() - started:.0f} s")
    return failures


# -- journals -----------------------------------------------------------------------------------


JOURNAL_BYTES = 12_000  # the longest journal cut at every offset


def real_journals(folder: Path, seed: int) -> dict[str, bytes]:
    """A real journal of each game (boxed and printed), from careless games: a finished
    game's when one fits in JOURNAL_BYTES, else the longest that does."""
    rng = random.Random(seed)
    best: dict[str, tuple[bool, int, bytes]] = {}
    for _ in range(80):
        _, table = fuzz_game(rng, folder, 3000, typed=False)
        key = table.deck_game + (" printed" if table.cards else "")
        data = max(folder.glob("*.jsonl"), key=lambda p: p.stat().st_mtime_ns).read_bytes()
        rank = (table.game.pending() is None, len(data), data)
        if len(data) <= JOURNAL_BYTES and rank[:2] > best.get(key, (False, 0, b""))[:2]:
            best[key] = rank
    return {key: data for key, (_, _, data) in best.items()}


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


class Silent(QuietVoice):
    """A table that has gone home: the resumed host must say where things stand and save."""

    def listen(self, phrases: Any, timeout_s: Any = None) -> None:
        raise EndOfInput

    record = listen


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


def try_cut(path: Path, data: bytes, cut: bytes, resumed: dict[int, str]) -> str:
    """A journal cut short, as a pulled plug leaves it: refused if it holds no game, else
    resumed to exactly the records it holds whole (a last line cut short is dropped). The
    records of a cut are a prefix of the journal's: each count is resumed once."""
    path.write_bytes(cut)
    try:
        records = read_records(path)
    except JournalError as problem:
        if str(path) not in str(problem) or records_in(cut):
            raise AssertionError(f"a cut journal refused wrongly: {problem}") from None
        return "refused"
    if len(records) != records_in(cut):
        raise AssertionError(f"{len(records)} records read from a cut with {records_in(cut)}")
    if len(records) not in resumed:
        whole = b"".join(data.splitlines(keepends=True)[:len(records)])
        resumed[len(records)] = try_resume(path, cut, whole)
    return resumed[len(records)]


def records_in(cut: bytes) -> int:
    """The whole records a cut holds: its complete lines, and a last one cut only of its
    newline (the JSON is whole)."""
    lines = cut.split(b"\n")
    whole = len(lines) - 1
    try:
        json.loads(lines[-1])
        return whole + 1
    except ValueError:
        return whole


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
            resumed: dict[int, str] = {}  # records read → the outcome, checked once
            for offset in cuts:
                cut = data[:offset]
                try:
                    outcomes["cut " + try_cut(target, data, cut, resumed)] += 1
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
    asked: Counter[str] = Counter()  # each question (by what it shows) → times asked
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
                key = json.dumps({k: v for k, v in event.items() if k != "time"},
                                 sort_keys=True)
                tries = asked[key]  # a refused answer is not given twice in a row
                asked[key] += 1
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


KILL_SEEDS = 5  # game seeds per title: each played once without a kill, as the reference


def kill_once(folder: Path, n: int, argv: list[str], reference: Any, kill_after: float) -> str:
    """Play, kill at `kill_after` seconds, resume to the end: where the kill landed; raises
    when the game ends otherwise than without a kill."""
    journal = folder / f"kill-{n}.jsonl"
    events = journal.with_suffix(".events")
    if not play_out([*argv, "--journal", str(journal)], events, kill_after):
        return "too late: the game was over"
    records = journal.read_bytes().count(b"\n") if journal.exists() else 0
    if not records:
        return "too early: no setup saved yet"
    events.unlink()
    play_out(["resume", "--journal", str(journal)], events, None)
    if final_state(journal) != reference:
        raise Mismatch(f"{argv}, killed at {kill_after:.2f} s after {records} records: "
                       "another game than without a kill")
    moves = records - 1
    return ("before the first move" if not moves else "after 1-9 moves" if moves < 10
            else "after 10-49 moves" if moves < 50 else "after 50 or more moves")


def run_kills(count: int, seed: int, workers: int = 2) -> int:
    from concurrent.futures import ThreadPoolExecutor

    rng = random.Random(seed)
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        plays = {(game, s): ["play", game, "--seed", str(s), *KILL_GAMES[game]]
                 for game in sorted(KILL_GAMES) for s in range(KILL_SEEDS)}

        def reference(key: tuple[str, int]) -> tuple[Any, float]:
            journal = folder / f"ref-{key[0]}-{key[1]}.jsonl"
            began = time.monotonic()
            play_out([*plays[key], "--journal", str(journal)], journal.with_suffix(".events"),
                     None)
            return final_state(journal), time.monotonic() - began

        with ThreadPoolExecutor(workers) as pool:
            references = dict(zip(plays, pool.map(reference, plays), strict=True))
            landed: Counter[str] = Counter()
            failures, tried = 0, 0
            # until `count` kills have landed mid-game: a kill may come too early or too late
            while (left := count - sum(n for k, n in landed.items() if k.startswith("after"))):
                runs = []
                for _ in range(left):
                    key = sorted(plays)[rng.randrange(len(plays))]
                    state, took = references[key]
                    tried += 1
                    runs.append(pool.submit(kill_once, folder, tried, plays[key], state,
                                            rng.uniform(0.1, took)))
                for run in runs:
                    try:
                        landed[run.result()] += 1
                    except Exception:  # noqa: BLE001
                        failures += 1
                        landed["after which the game ended otherwise"] += 1
                        traceback.print_exc()
    took = {game: f"{min(t for (g, _), (_, t) in references.items() if g == game):.1f}-"
                  f"{max(t for (g, _), (_, t) in references.items() if g == game):.1f}"
            for game in KILL_GAMES}
    print(f"kills: {tried} SIGKILLs ({', '.join(f'{n} {k}' for k, n in sorted(landed.items()))})"
          f"; games take {took} s unkilled; {failures} ended otherwise than unkilled; "
          f"{time.monotonic() - started:.0f} s")
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
