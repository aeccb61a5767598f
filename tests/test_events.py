"""The event stream as a display reads it: typed events, each option with a phrase that works.

The voice here picks among the phrases the host offers, at random (seeded): a unit test of
the host's logic and its events, not of hearing."""

from __future__ import annotations

import io
import json
import random
import re
from collections.abc import Sequence
from dataclasses import MISSING, fields
from pathlib import Path

import pytest
from wordings import said_line

from voicehost.games.base import Action
from voicehost.host import events
from voicehost.host.grammars import decision_grammar, heard_first, roll_call_grammar
from voicehost.host.host import Host
from voicehost.host.table import Seats, Table
from voicehost.intents.grammar import Intent
from voicehost.lab.random_table import QuietVoice
from voicehost.registry import GAMES
from voicehost.session import actions_of
from voicehost.store.journal import Journal, read_records
from voicehost.voice import EndOfInput, Hearing, Recording

KINDS = {cls.kind: cls for cls in vars(events).values()
         if isinstance(cls, type) and issubclass(cls, events.StreamEvent)
         and cls is not events.StreamEvent}
EVENTS_DOC = Path(__file__).resolve().parent.parent / "docs" / "events.md"


class RandomPlayers(QuietVoice):
    """Say one of the offered phrases (never "quit" or "pause"); a clue is a random word."""

    def __init__(self, seed: int, turns: int) -> None:
        super().__init__()
        self.rng = random.Random(seed)
        self.turns = turns

    def listen(self, phrases: Sequence[str], timeout_s: float | None = None) -> Hearing:
        self.turns -= 1
        if self.turns < 0:
            raise EndOfInput
        allowed = sorted(p for p in phrases
                         if not {"quit", "stop", "exit", "end", "pause"} & set(p.split()))
        return Hearing(self.rng.choice(allowed), 0.9, 1.0, 0.01)

    def record(self, phrases: Sequence[str]) -> Recording:
        self.listen(phrases)
        word = self.rng.choice(["bark", "lantern", "river"])
        return Recording(Hearing("", 0.0, 1.0, 0.01), b"", word, 0.95)


class CheckedStream(events.EventStream):
    """Checks, as each listen is emitted, that every `say` phrase chooses its option: after a
    half move ("discard"), with the rest said alone ("energy") as the host then hears it."""

    def __init__(self, table: Table) -> None:
        super().__init__(io.StringIO())
        self.table = table
        self.checked = 0
        self.half = ""

    def emit(self, event: events.StreamEvent) -> None:
        decision = self.table.game.pending()
        if isinstance(event, events.HeardEvent) and event.intent and event.intent[0] == "choose":
            value = event.intent[1]
            self.half = value if decision and self.table.referee.follow_ups(decision, value) else ""
        if isinstance(event, events.ListenEvent) and event.decision != "confirm":
            grammar = (roll_call_grammar() if event.decision == "roll_call"
                       else heard_first(decision_grammar(self.table, decision),
                                        self.table.referee.follow_ups(decision, self.half)))
            assert set(event.say or {}) <= set(event.options)
            for option, phrase in (event.say or {}).items():
                assert grammar.match(phrase) == (Intent("choose", option), 1.0), phrase
                self.checked += 1
        super().emit(event)


def play(game: str, seed: int, tmp_path: Path, cards: str | None = None
         ) -> tuple[list[dict], int, Table]:
    spec = GAMES[game]
    settings = {"study_seconds": "0"} if game == "ferret-out" else {}
    table = spec.table.from_options(Seats.default(spec.players[0] + 1), seed, settings, cards)
    journal = Journal(tmp_path / f"{game}-{seed}.jsonl")
    journal.append(table.setup_record())
    stream = CheckedStream(table)
    Host(table, RandomPlayers(seed, 600), journal, stream).run()
    journal.close()
    records = [json.loads(line) for line in stream.out.getvalue().splitlines()]
    return records, stream.checked, table


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_event_is_a_typed_event_and_every_offered_phrase_works(game: str,
                                                                     tmp_path: Path) -> None:
    records, checked, _ = play(game, 7, tmp_path)
    assert checked > 20
    seen = {record["event"] for record in records}
    assert {"say", "listen", "heard"} <= seen
    for record in records:
        kind = KINDS[record["event"]]
        own = {f.name for f in fields(kind)} | {"event", "time"}
        spread = {f.name for f in fields(kind)} & {"facts", "context"}
        if not spread:
            assert set(record) <= own, record
        given = {f.name for f in fields(kind)
                 if f.default is MISSING and f.default_factory is MISSING} - {"facts", "context"}
        assert given <= set(record), record  # a field without a default is always there


def test_the_docs_describe_every_event() -> None:
    section = EVENTS_DOC.read_text(encoding="utf-8").split("# The event stream", 1)[1]
    section = section.split("\n## ", 1)[0]
    documented = set(re.findall(r"^\| `(\w+)` \|", section, flags=re.M))
    assert documented == set(KINDS)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_move_of_a_game_can_be_told_when_it_is_undone(game: str, tmp_path: Path) -> None:
    kinds = set()
    for seed, cards in ((3, None), (4, "ask")):
        _, _, table = play(game, seed, tmp_path, cards)
        for action in actions_of(read_records(tmp_path / f"{game}-{seed}.jsonl")):
            told = table.referee.describe_action(action)
            assert told and not re.search(r"[{}_]", told), (action, told)
            kinds.add(action.kind)
    assert len(kinds) >= 3


def test_an_undone_answer_is_told_as_a_person_would() -> None:
    referee = GAMES["secret-squad"].table(Seats.default(4), seed=1).referee
    assert referee.describe_action(Action("answer", 0, "yup")) == "Cheetah's answer, yup"  # was
    # "cheetah, answer yup"
    assert referee.describe_action(Action("point", 1, "2")) == "Robin pointing at Husky"
    assert referee.describe_action(Action("skip_card", None)) == "the skipped card"


class Typed(RandomPlayers):
    """Says the given lines in order, then stops; keeps what the host said."""

    def __init__(self, *lines: str) -> None:
        super().__init__(0, len(lines))
        self.lines = list(lines)

    def listen(self, phrases: Sequence[str], timeout_s: float | None = None) -> Hearing:
        super().listen(phrases)
        return Hearing(self.lines.pop(0), 0.9, 1.0, 0.01)

    def record(self, phrases: Sequence[str]) -> Recording:
        word = self.listen(phrases).text
        return Recording(Hearing("", 0.0, 1.0, 0.01), b"", word, 0.95)


def test_quit_asks_its_own_question_once(tmp_path: Path) -> None:
    table = GAMES["secret-operation"].table(Seats.default(4), seed=2)
    voice = Typed("quit game", "no")
    Host(table, voice, Journal(tmp_path / "game.jsonl"), events.EventStream(None)).run()
    asked = [line for line in voice.said if "Quit the game?" in line]
    assert asked and all(".." not in line and "Correct?" not in line
                         and "right?" not in line for line in asked), asked
    opening = voice.said[0]
    assert "one impostor hides" in opening, opening  # was "one impostor hide among you"


def typed_game(tmp_path: Path, *lines: str) -> tuple[Typed, list[dict], Path]:
    """A Secret Squad game with 3 players, 1 round of 1 card, told `lines` in order."""
    table = GAMES["secret-squad"].table.from_options(
        Seats.default(3), 4, {"rounds": "1", "cards_per_round": "1"})
    path = tmp_path / "game.jsonl"
    journal = Journal(path)
    journal.append(table.setup_record())
    voice, out = Typed(*["i'm in"] * 3, *lines), io.StringIO()  # the roll call first
    Host(table, voice, journal, events.EventStream(out)).run()
    return voice, [json.loads(line) for line in out.getvalue().splitlines()], path


TO_THE_POINTING = ("ready", "ready", "yup", "nope", "yup", "ready")  # deal, study, 3 answers


def test_a_pause_is_its_own_moment_with_resume_as_its_option(tmp_path: Path) -> None:
    _, records, _ = typed_game(tmp_path, "ready", "pause", "yes", "resume", "ready")
    listens = [r for r in records if r["event"] == "listen"]
    paused = [r for r in listens if r["decision"] == "paused"]
    assert len(paused) == 2  # "yes" does not end a pause: it is asked again
    assert paused[0]["options"] == ["resume"] and paused[0]["say"] == {"resume": "resume"}
    assert paused[0]["player"] is None
    assert all(r["decision"] != "confirm" for r in listens)  # was: "confirm", yes or no


POINTED = ("player two", "player one", "player two")  # Cheetah, Robin, Husky point
POINTED_BACK = "Cheetah pointed at Robin, Robin pointed at Cheetah and Husky pointed at Robin"


def test_quit_game_during_a_read_back_stops_the_game(tmp_path: Path) -> None:
    voice, records, path = typed_game(tmp_path, *TO_THE_POINTING, *POINTED, "quit game", "yes")
    asked = [i for i, line in enumerate(voice.said) if "Quit the game?" in line]
    read_back = [i for i, line in enumerate(voice.said) if POINTED_BACK in line]
    assert asked and read_back and read_back[0] < asked[0]  # was: "say yes or no"
    assert records[-1]["event"] == "quit"
    # the last pointing waits for the table's yes; the others were taken as they came
    assert [a.player for a in actions_of(read_records(path)) if a.kind == "point"] == [0, 1]


def test_the_scores_during_a_read_back_then_the_question_again(tmp_path: Path) -> None:
    voice, records, path = typed_game(tmp_path, *TO_THE_POINTING, *POINTED, "scores", "yes")
    standings = said_line("standings", "secret_squad")
    at = next(i for i, line in enumerate(voice.said) if standings.search(line))
    read_back = said_line("confirm_all", choices=POINTED_BACK)
    assert read_back.search(voice.said[at])  # asked again
    points = [a for a in actions_of(read_records(path)) if a.kind == "point"]
    assert [a.choice for a in points] == ["1", "0", "1"]  # "yes" after the scores took them

