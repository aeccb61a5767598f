"""What happened, in a game's words: each event of its rules said by the narrator method its
`narrators` maps the event's class to, and where the game stands (scores, status, tally)."""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

from voicehost.games.base import Decision, Event
from voicehost.games.deck import Deck
from voicehost.games.printed import DeckDigits, DeckRead, DeckRefused
from voicehost.host.deck_number import say_digits
from voicehost.host.lines import said_number
from voicehost.host.table import GameTable, TablePart

Saying = Callable[[Any, dict[str, Any]], list[str]]  # a narrator method: an event's facts → lines


class Narrator(TablePart[GameTable]):
    """Says what happened and where the game stands. Each kind of event of the rules maps to
    the method that says it, or to None: the host says nothing of it (what follows says it);
    the printed deck's events are said here for every game."""

    narrators: ClassVar[Mapping[type[Event], Saying | None]] = {}
    last_scored: dict[str, Any] | None = None  # the facts of the last round said scored

    def narrate(self, events: Sequence[Event]) -> list[str]:
        said: list[str] = []
        for event in events:
            said += self.say(event)
        return said

    def say(self, event: Event) -> list[str]:
        """One event in words, as its narrator says it (the registry refuses a table without
        one for an event of its rules)."""
        kind = type(event)
        narrator = self.narrators[kind] if kind in self.narrators else Narrator.deck_narrators[kind]
        return [] if narrator is None else narrator(self, event.facts)

    @classmethod
    def unnarrated(cls, events: Sequence[type[Event]]) -> list[str]:
        """The kinds of `events` this narrator neither says nor declares silent."""
        return [event.kind for event in events
                if event not in Narrator.deck_narrators and event not in cls.narrators]

    def _say_deck_digits(self, facts: dict[str, Any]) -> list[str]:
        return [self.lines("deck_digits", digits=say_digits(facts["said"]).capitalize())]

    def _say_deck_refused(self, facts: dict[str, Any]) -> list[str]:
        return [self.lines(facts["reason"], **facts)]

    def _say_deck_read(self, facts: dict[str, Any]) -> list[str]:
        return [self.lines("deck_read", printed=Deck.read(facts["deck"]).printed)]

    deck_narrators: ClassVar[Mapping[type[Event], Saying | None]] = {
        DeckDigits: _say_deck_digits,
        DeckRefused: _say_deck_refused,
        DeckRead: _say_deck_read,
    }

    def winners_line(self, facts: dict[str, Any]) -> str:
        winners = facts["winners"]
        key = "winner" if len(winners) == 1 else "winners"
        return self.lines(key, winners=self.seats.names_of(winners),
                          points=facts["scores"][winners[0]])

    # -- where the game stands --------------------------------------------------------------

    def scoreboard(self, scores: Sequence[int]) -> str:
        order = sorted(range(len(scores)), key=lambda s: -scores[s])
        items = [self.lines("score_item", name=self.seats.name_of(s), points=scores[s])
                 for s in order]
        return self.lines("standings", scores=", ".join(items))

    def standings(self) -> str:
        return self.scoreboard(self.table.game.scores)

    def explained(self) -> list[str]:
        """The last round's points, rule by rule, for whoever asks for the scores."""
        return []

    def points_said(self, points: list[int]) -> str:
        """"Husky four, Robin and Tiger one each.": the round's points, most first."""
        gained = sorted({p for p in points if p}, reverse=True)
        if not gained:
            return self.lines("round_points_none")
        if len(gained) == 1 and all(points):
            return self.lines("round_points_all", points=said_number(gained[0]))
        items = []
        for each in gained:
            seats = [seat for seat, p in enumerate(points) if p == each]
            key = "points_item_many" if len(seats) > 1 else "points_item"
            items.append(self.lines(key, names=self.seats.names_of(seats),
                                    points=said_number(each)))
        return self.lines("round_points", points=", ".join(items))  # each opens on a name

    def leader(self, scores: list[int]) -> str:
        top = max(scores)
        leaders = [seat for seat, points in enumerate(scores) if points == top]
        if len(leaders) == len(scores):
            return self.lines("all_level", points=said_number(top))
        if len(leaders) > 3:
            line = self.lines("lead_many", count=said_number(len(leaders)),
                              points=said_number(top))
            return line[0].upper() + line[1:]
        if len(leaders) > 1:
            return self.lines("lead_shared", names=self.seats.names_of(leaders),
                              points=said_number(top))
        return self.lines("leads", name=self.seats.name_of(leaders[0]), points=said_number(top))

    def recap(self, decision: Decision) -> list[str]:
        """Where the game stands, said when a saved game is resumed."""
        return []

    def help(self) -> str:
        return self.lines("help")

    @abstractmethod
    def tally(self) -> list[str]:
        """What "tally" reads back (the answers so far, the clues, the discard pile)."""

    @abstractmethod
    def status(self) -> str:
        """Where the game stands, for "status"."""
