"""A tidy table for measuring how the host talks: every player answers at once with an offered
phrase that moves the game on (no command, no "no"), a clue is one word, and the host's words
are kept as it says them, a listen apart."""

from __future__ import annotations

import io
import random
from pathlib import Path

from voicehost.games.base import Decision, IllegalAction
from voicehost.host.events import EventStream
from voicehost.host.grammars import command_groups, decision_grammar
from voicehost.host.host import Host
from voicehost.host.table import Seats, Table
from voicehost.intents.grammar import Intent, expand
from voicehost.lab.random_table import QuietVoice
from voicehost.registry import GAMES
from voicehost.store.journal import Journal
from voicehost.voice import EndOfInput, Hearing, Recording

REFUSING = {"no", "nah", "nope", "wrong", "something", "other", "none", "another"}
CLUES = ("lantern", "harbor", "velvet", "thunder", "pepper", "meadow", "signal", "copper")


class TidyTable(QuietVoice):
    """Says an offered phrase that moves the game on, one the rules of `table` take (a table
    that knows its cards); `turns` answers, then nobody speaks."""

    def __init__(self, table: Table, rng: random.Random, turns: int = 2000) -> None:
        super().__init__()
        self.table, self.rng, self.turns = table, rng, turns
        self.commands = {p for _, templates in command_groups() for t in templates
                         for p in expand(t)}
        self.breaks: list[int] = []  # len(said) at each listen: what was said between two
        self.events = io.StringIO()  # the game's event stream

    def listen(self, phrases: list[str], timeout_s: float | None = None) -> Hearing:
        self.take_turn()
        onward = sorted(p for p in phrases if p not in self.commands
                        and not REFUSING & set(p.split()))
        yes = [p for p in onward if p in ("yes", "yup")]
        if yes:
            return Hearing(yes[0], 0.9, 1.0, 0.01)
        return Hearing(self.rng.choice(self.taken(onward) or onward), 0.9, 1.0, 0.01)

    def taken(self, phrases: list[str]) -> list[str]:
        """Those of `phrases` the rules take as the answer to the pending decision."""
        decision = self.table.game.pending()
        if decision is None:
            return []
        grammar = decision_grammar(self.table, decision)
        return [phrase for phrase in phrases if self._takes(decision, grammar.match(phrase)[0])]

    def _takes(self, decision: Decision, intent: Intent | None) -> bool:
        if intent is None or intent.name != "choose":
            return intent is not None
        if self.table.refuse_choice(decision, intent.value) is not None:
            return False
        try:
            self.table.game.check(self.table.referee.action_for(decision, intent.value))
        except IllegalAction:
            return False
        return True

    def record(self, phrases: list[str]) -> Recording:
        self.take_turn()
        return Recording(Hearing("", 0.0, 1.0, 0.01), b"", self.rng.choice(CLUES), 0.95)

    def take_turn(self) -> None:
        self.breaks.append(len(self.said))
        self.turns -= 1
        if self.turns < 0:
            raise EndOfInput

    def between_listens(self) -> list[str]:
        """What the host said between two listens, as one text each."""
        edges = [0, *self.breaks, len(self.said)]
        return [" ".join(s for s in self.said[a:b] if not s.startswith("["))
                for a, b in zip(edges, edges[1:], strict=False) if b > a]


def tidy_game(game: str, players: int, seed: int, folder: Path,
              options: dict[str, str] | None = None, table: Table | None = None) -> TidyTable:
    """Play one whole game of `game` at a tidy table; the table, with what the host said."""
    table = table or GAMES[game].table.from_options(Seats.default(players), seed, options or {})
    journal = Journal(folder / f"{game}-{players}-{seed}.jsonl", new=True)
    journal.append(table.setup_record())
    voice = TidyTable(table, random.Random(seed))
    try:
        Host(table, voice, journal, EventStream(voice.events)).run()
    finally:
        journal.close()
    return voice

