"""A phrasing corpus, run in text mode: what the host takes from each way people say an answer.

The corpus (tests/data/phrasings.yaml) groups phrasings by the moment they are said at: a game,
its player count, a decision (a kind `example_decision` gives, "confirm" for a read-back, or
"free_clue"/"free_guess" for free speech) and optionally actions played first. Each phrasing
expects an option's value, a command ("!scores"), a correction at a read-back ("no:2": a no
that names another option) or nothing ("REFUSED"). A stable hash of the moment and the words
splits the corpus into a tune half and a held-out half.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from voicehost.games.base import Action, Decision
from voicehost.host.clips import said_from
from voicehost.host.grammars import confirm_grammar, decision_grammar, spell_numbers
from voicehost.host.table import Seats, Table
from voicehost.intents.grammar import Grammar, Intent
from voicehost.registry import GAMES

REFUSED = "REFUSED"
HALVES = ("tune", "held_out")


@dataclass(frozen=True)
class Phrasing:
    kind: str  # the kind of decision, as the table of results names it
    moment: dict[str, Any]  # game, players, decision, seat, actions, of (for "confirm")
    say: str
    want: str  # an option's value, "!<command>", "no:<value>", or REFUSED

    @property
    def half(self) -> str:
        key = f"{self.kind}|{self.moment['decision']}|{self.say}".encode()
        return HALVES[hashlib.sha256(key).digest()[0] % 2]


def load(path: Path) -> list[Phrasing]:
    phrasings = []
    corpus = yaml.safe_load(path.read_text(encoding="utf-8"))
    for group in corpus["moments"]:
        moment = {key: value for key, value in group.items() if key not in ("kind", "say")}
        moment["seats"] = corpus["seats"]
        for want, says in group["say"].items():
            phrasings += [Phrasing(group["kind"], moment, str(say), str(want)) for say in says]
    return phrasings


def table_at(moment: dict[str, Any]) -> tuple[Table, Decision]:
    """A fresh table at the moment, and the decision pending there."""
    players = moment.get("players", 4)
    seats = Seats(tuple(moment["seats"][:players])) if "seats" in moment else Seats.default(players)
    table = GAMES[moment["game"]].table(seats, seed=3)
    decision = moment.get("of", moment["decision"])
    if decision in ("free_clue", "free_guess"):
        return table, Decision(decision.removeprefix("free_"), moment.get("seat", 0), ())
    pending = table.example_decision(decision, moment.get("seat", 0))
    if "actions" in moment:
        table.replay([Action(kind, player, choice)
                      for kind, player, choice in moment["actions"]])
        found = table.game.pending()
        assert found is not None
        pending = found
    return table, pending


def taken(phrasing: Phrasing) -> str:
    """What the host takes from the phrasing, written as the corpus writes what it wants."""
    table, decision = table_at(phrasing.moment)
    if phrasing.moment["decision"] == "confirm":
        return said(confirm_grammar(table.grammar(decision, [])), spell_numbers(phrasing.say))
    grammar = decision_grammar(table, decision)
    if decision.options:
        return said(grammar, spell_numbers(phrasing.say))
    command, snap = grammar.match(phrasing.say)
    if command is not None and snap == 1.0:
        return said_as(command)
    value = said_from(phrasing.say, 1.0, "").choice()
    if not value or table.refuse_choice(decision, value) is not None:
        return REFUSED
    return value if " " not in value else REFUSED  # a clue or a guess is one word


def said(grammar: Grammar, text: str) -> str:
    intent, _ = grammar.match(text)
    return REFUSED if intent is None else said_as(intent)


def said_as(intent: Intent) -> str:
    if intent.name == "choose":
        return intent.value
    if intent.name == "correct":
        return f"no:{intent.value}"
    return f"!{intent.name}"


@dataclass
class Count:
    right: int = 0
    refused: int = 0
    wrong: int = 0
    answers: int = 0  # phrasings that want something taken
    answers_right: int = 0

    @property
    def total(self) -> int:
        return self.right + self.refused + self.wrong


def measure(phrasings: list[Phrasing]) -> Iterator[tuple[Phrasing, str]]:
    for phrasing in phrasings:
        yield phrasing, taken(phrasing)


def tally(results: list[tuple[Phrasing, str]]) -> dict[tuple[str, str], Count]:
    """(kind, half) → how many were taken right (a refusal wanted counts right when refused),
    refused (though an answer was wanted) and taken wrongly (a refusal wanted, or another
    answer taken)."""
    counts: dict[tuple[str, str], Count] = {}
    for phrasing, got in results:
        count = counts.setdefault((phrasing.kind, phrasing.half), Count())
        if phrasing.want != REFUSED:
            count.answers += 1
            count.answers_right += got == phrasing.want
        if got == phrasing.want:
            count.right += 1
        elif got == REFUSED:
            count.refused += 1
        else:
            count.wrong += 1
    return counts

