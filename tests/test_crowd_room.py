"""A whole 4-player Secret Squad in a crowd: the host hears the players over party babble.

The table of tests/test_secret_squad_room.py plays, while a separate crowd (a second paplay
stream, voicehost/lab/conditions.py babble) talks on in the same room for the whole game, 10 dB
below the players' speech. The bar: at least 98 % of turns end with the right answer
within two tries, and no scoring choice (pointing, squad) is ever taken wrong. The table stops
playing as soon as the bar is out of reach, so an engine deaf in the crowd fails in minutes
instead of playing on for an hour.

VOICEHOST_TEST_ENGINE picks the host's recognizer (`--engine`, default auto, as a player's).

No engine meets the bar yet (docs/hearing.md): the test is marked `crowd`, which the suite
deselects, and is run by hand: `pytest -m crowd tests/test_crowd_room.py -s`.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import threading
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from squad_room import PLAYERS, VOICES, ScriptedTable
from squad_script import SecretSquadScript, answers_in_journal, answers_only
from wordings import any_case, any_of, said_line

from voicehost.games.base import Action
from voicehost.games.secret_squad import SecretSquad
from voicehost.host.secret_squad import question_deck
from voicehost.lab.conditions import active_power, babble, to_array, to_bytes
from voicehost.lab.room import RAW_16K, SINK, Room, record_room
from voicehost.lab.speakers import speak
from voicehost.session import actions_of
from voicehost.store.journal import read_records
from voicehost.voice import SAMPLE_RATE

pytestmark = pytest.mark.crowd

ENGINE = os.environ.get("VOICEHOST_TEST_ENGINE", "auto")
SEED = 42  # the seed of the quiet room game, so the two can be compared turn by turn
CROWD_SNR_DB = 10.0  # the crowd's level below the players' active speech
CROWD_SECONDS = 120.0  # one loop of babble; long enough that nobody hears it repeat
WITHIN_TRIES = 2
BAR = 0.98
# A turn still unsettled after this many utterances: the host is not hearing that player at
# all, and the game would go on for as long as anyone lets it.
MOST_TRIES = 8
SCORING = ("point", "squad")
# What the players say, for the level of their speech: every voice, short and long phrases.
SAMPLE_PHRASES = ("yup", "nope", "i pointed at cheetah", "yellow squad", "ready")

# Matched in the table's `last_said`, which is lower case.
READ_BACK = any_case(said_line("confirm"))
QUIT_CONFIRM = any_case(said_line("quit_confirm"))
UNDONE = any_case(said_line("undone"))
QUIET = any_case(any_of(said_line("quiet_please"), said_line("quiet_please_all")))


class Crowd:
    """Party babble played into the room as its own stream, looped until the crowd leaves."""

    CHUNK_SECONDS = 0.1

    def __init__(self, pcm: bytes) -> None:
        self.pcm = pcm
        self.written = 0  # bytes handed to paplay (it buffers at most a few seconds of them)
        self._stop = threading.Event()
        self._proc: subprocess.Popen[bytes] | None = None
        self._thread: threading.Thread | None = None

    def __enter__(self) -> Crowd:
        self._proc = subprocess.Popen(["paplay", f"--device={SINK}", *RAW_16K],
                                      stdin=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self._thread = threading.Thread(target=self._talk, daemon=True)
        self._thread.start()
        return self

    def _talk(self) -> None:
        assert self._proc is not None and self._proc.stdin is not None
        step = round(self.CHUNK_SECONDS * SAMPLE_RATE) * 2
        offset = 0
        try:
            while not self._stop.is_set():
                chunk = self.pcm[offset: offset + step]
                self._proc.stdin.write(chunk)  # blocks while paplay is ahead: real-time pace
                self.written += len(chunk)
                offset = (offset + step) % len(self.pcm)
        except BrokenPipeError:
            pass  # paplay died: `talking` tells the test

    @property
    def talking(self) -> bool:
        return self._proc is not None and self._proc.poll() is None and not self._stop.is_set()

    @property
    def seconds(self) -> float:
        return self.written / 2 / SAMPLE_RATE

    def __exit__(self, *_: object) -> None:
        assert self._proc is not None and self._thread is not None
        self._stop.set()
        self._proc.kill()  # not terminate-and-drain: the crowd stops talking at once
        self._proc.wait(5)
        self._thread.join(5)


def speech_power() -> float:
    """Mean active power of the players' speech as they play it into the room."""
    return float(np.mean([active_power(to_array(speak(phrase, voice)))
                          for voice in VOICES for phrase in SAMPLE_PHRASES]))


def crowd_babble(snr_db: float, seed: int) -> bytes:
    crowd = to_array(babble(CROWD_SECONDS, seed))
    gain = np.sqrt(speech_power() / 10 ** (snr_db / 10) / np.mean(crowd ** 2))
    return to_bytes(crowd * gain)


def level_db(pcm: bytes) -> float:
    samples = to_array(pcm)
    return 10 * np.log10(max(float(np.mean(samples ** 2)), 1e-9))


@dataclass
class Utterance:
    turn: tuple[Any, ...]  # (decision, player, round, card) of the game decision it serves
    kind: str  # "choice", "confirm" (a yes/no to a read-back or a question), "undo", "resume"
    meant: str  # the intent the player meant: "choose:<value>" or a command's name


class OutOfReach(Exception):
    """The game can no longer meet the bar: the table stops playing."""


def planned_turns(script: SecretSquadScript) -> int:
    """The game's decisions: each round a deal, a ready, the answers, a point and a squad
    per player."""
    rounds = len(script.squads)
    return 2 * rounds + len(script.answers) + 2 * rounds * len(script.names)


class CrowdTable(ScriptedTable):
    """The room table, doing what a table does in a crowd when the host mishears more: it
    judges the last read-back (not a "please say yes or no" that followed it), says undo
    until the host has undone its mishearing, refuses a quit and resumes a pause it did not
    ask for. Every utterance is booked to the game decision (turn) it serves."""

    def __init__(self, script: SecretSquadScript) -> None:
        super().__init__(script)
        self.events: list[dict[str, Any]] = []
        self.read_back = ""
        self.undoing = False  # the host took a wrong answer and has not undone it yet
        self.turn: tuple[Any, ...] = ()
        self.answer_turn: tuple[Any, ...] = ()
        self.utterances: list[Utterance] = []
        self.heard: list[dict[str, Any]] = []
        self.over_allowed = int((1 - BAR) * planned_turns(script) + 1e-9)

    def on_event(self, event: dict[str, Any]) -> None:
        super().on_event(event)
        self.events.append(event)
        if event["event"] == "say":
            self.undoing = ((self.undoing or self.needs_undo)
                            and not UNDONE.search(self.last_said))
        if event["event"] == "say" and READ_BACK.search(self.last_said):
            self.read_back = self.last_said
        elif event["event"] == "heard":
            self.heard.append(event)

    def reply_text(self, listen: dict[str, Any]) -> str:
        if self.undoing:
            self.needs_undo = True  # the last "undo" was not understood: say it again
        if listen["decision"] == "paused":
            return "resume"
        if listen["decision"] == "confirm":
            if QUIT_CONFIRM.search(self.last_said):
                return "no"
            if not self.needs_undo:
                return self.confirm_reply(self.read_back)
        return super().reply_text(listen)

    def reply(self, listen: dict[str, Any], text: str) -> None:
        tries = tries_per_turn(self.utterances)
        over = [turn for turn, n in tries.items() if n > WITHIN_TRIES]
        if len(over) > self.over_allowed:
            raise OutOfReach(f"{len(over)} turns took over {WITHIN_TRIES} tries: the bar "
                             f"allows {self.over_allowed} in this game")
        if max(tries.values(), default=0) >= MOST_TRIES:
            raise OutOfReach(f"a turn is still unsettled after {MOST_TRIES} tries")
        decision = listen["decision"]
        if text == "undo":
            self.utterances.append(Utterance(self.answer_turn, "undo", "undo"))
        elif text == "resume":
            self.utterances.append(Utterance(self.turn, "resume", "resume"))
        elif decision == "confirm":
            self.utterances.append(Utterance(self.turn, "confirm", f"choose:{text}"))
        else:
            self.turn = (decision, listen["player"], listen.get("round"), listen.get("card"))
            if decision == "answer":
                self.answer_turn = self.turn
            value = "in" if decision == "roll_call" else text
            if decision == "point":
                value = str(listen["player"] if text == "myself"
                            else self.script.names.index(text))
            self.utterances.append(Utterance(self.turn, "choice", f"choose:{value}"))
        super().reply(listen, text)


def heard_as(heard: dict[str, Any]) -> str | None:
    intent = heard.get("intent")
    if intent is None:
        return None
    name, value = intent
    return f"choose:{value}" if name == "choose" else name


@dataclass
class Turns:
    tries: dict[tuple[Any, ...], int]  # game decision → utterances it needed
    misses: int  # utterances the host did not understand
    misheard: int  # utterances the host understood as something the player did not mean

    @property
    def within(self) -> float:
        return sum(t <= WITHIN_TRIES for t in self.tries.values()) / len(self.tries)


def tries_per_turn(utterances: list[Utterance]) -> dict[tuple[Any, ...], int]:
    """Tries per game decision: every utterance booked to it, except the one yes/no each
    read-back asks for (the host's own step, not a try)."""
    spoken: dict[tuple[Any, ...], int] = defaultdict(int)
    read_backs: dict[tuple[Any, ...], int] = defaultdict(int)
    previous = ""
    for utterance in utterances:
        spoken[utterance.turn] += 1
        if utterance.kind == "confirm" and previous != "confirm":
            read_backs[utterance.turn] += 1
        previous = utterance.kind
    return {turn: spoken[turn] - read_backs[turn] for turn in spoken}


def count_turns(utterances: list[Utterance], heard: list[dict[str, Any]]) -> Turns:
    assert len(utterances) == len(heard), "every utterance is heard exactly once"
    tries = tries_per_turn(utterances)
    understood = [heard_as(h) for h in heard]
    misses = sum(h is None for h in understood)
    misheard = sum(h is not None and h != u.meant
                   for u, h in zip(utterances, understood, strict=True))
    return Turns(tries, misses, misheard)


def scoring_taken_wrong(journal: Path, script: SecretSquadScript) -> list[tuple[int, Action]]:
    """(round, action) for every point or squad the host journaled other than the player's,
    undone later or not."""
    records = read_records(journal)
    wrong = []
    for index, record in enumerate(records):
        if record["type"] != "action" or record["action"]["kind"] not in SCORING:
            continue
        action = Action.from_json(record["action"])
        game = SecretSquad(PLAYERS, seed=SEED, deck_size=len(question_deck()))
        for before in actions_of(records[:index]):
            game.apply(before)
        assert action.player is not None
        plan = script.points if action.kind == "point" else script.squads
        if action.choice != str(plan[game.round - 1][action.player]):
            wrong.append((game.round, action))
    return wrong


def test_a_whole_game_in_a_crowd(room: Room, tmp_path: Path) -> None:
    script = SecretSquadScript(PLAYERS, seed=SEED)
    table = CrowdTable(script)
    journal = tmp_path / "game.jsonl"
    crowd_pcm = crowd_babble(CROWD_SNR_DB, seed=10)
    with Crowd(crowd_pcm) as crowd:
        time.sleep(0.5)  # past paplay's start
        in_room = record_room(2.0)
        started = time.monotonic()
        stopped = ""
        try:
            table.play(tmp_path, "play", "secret-squad", "--engine", ENGINE,
                       "--players", str(PLAYERS), "--seed", str(SEED), "--rate", "230")
        except OutOfReach as reason:
            stopped = str(reason)
        seconds = time.monotonic() - started
        still_talking = crowd.talking
        crowd_seconds = crowd.seconds

    events = table.events
    turns = count_turns(table.utterances, table.heard)
    wrong = scoring_taken_wrong(journal, script)
    slow = sorted(t for t in turns.tries.values() if t > WITHIN_TRIES)
    response = [h["response_seconds"] for h in table.heard
                if h.get("intent") and "response_seconds" in h]
    snr = [h["snr_db"] for h in table.heard if "snr_db" in h]
    quiet = sum(QUIET.search(e["text"]) is not None for e in events if e["event"] == "say")
    which = sum(1 for e in table.heard if e.get("between"))
    undos = sum(u.kind == "undo" for u in table.utterances)
    print(f"\ncrowd room ({ENGINE}, babble {CROWD_SNR_DB:.0f} dB under the players): "
          f"{seconds:.0f} s; {len(turns.tries)} turns, {len(table.utterances)} utterances; "
          f"{turns.within:.1%} of turns within {WITHIN_TRIES} tries (over: {slow}); "
          f"{turns.misses} not understood, {turns.misheard} misheard, {undos} undos, "
          f"{len(wrong)} scoring choices taken wrong {wrong}; {quiet} asks for quiet, "
          f"{which} 'X or Y?' waverings; room level with the crowd alone "
          f"{level_db(in_room) - level_db(crowd_pcm):+.1f} dB from the babble played"
          f"{'; stopped: ' + stopped if stopped else ''}")
    if response:
        print(f"player stopped → intent: median {statistics.median(response):.3f} s, "
              f"90th percentile {np.percentile(response, 90):.3f} s, "
              f"max {max(response):.3f} s")
    if snr:
        print(f"host's speech-to-noise estimate: median {statistics.median(snr):.1f} dB")
    for turn, tries in turns.tries.items():
        if tries > WITHIN_TRIES:
            print(f"{turn}: {tries} tries:", [
                (said, heard.get("text"), heard_as(heard)) for utterance, (_, said), heard
                in zip(table.utterances, table.spoken, table.heard, strict=True)
                if utterance.turn == turn])

    # the crowd really was in the room, at its level, the whole game long
    assert abs(level_db(in_room) - level_db(crowd_pcm)) < 3.0
    assert still_talking and crowd_seconds >= seconds
    assert not stopped, stopped
    over = [e for e in events if e["event"] == "game_over"]
    assert over, "the game did not end"
    assert wrong == [], "a scoring choice was taken other than the player said"
    assert over[0]["scores"] == script.expected_scores()
    assert answers_only(answers_in_journal(journal)) == script.answers
    assert turns.within >= BAR, f"only {turns.within:.1%} of turns within {WITHIN_TRIES} tries"
