"""What the host asks, in a game's words: the opening, each decision's question (asked again
after a miss, its options read out after two), and the printed deck's number."""

from __future__ import annotations

from abc import abstractmethod
from typing import Any

from voicehost.games.base import Decision
from voicehost.games.printed import DECK_DECISION
from voicehost.host.table import GameTable, TablePart, Timer
from voicehost.prompts_dir import load_yaml


class Questions(TablePart[GameTable]):
    """Asks each decision of a game: the printed deck's number here, the game's own decisions
    by its `ask` and `say_options`."""

    @abstractmethod
    def opening(self) -> list[str]:
        """What the host says as a new game opens, before the roll call."""

    def table_setup(self) -> list[str]:
        """What the table lays out once everyone has answered the roll call, before the first
        decision: said apart from the opening so that no stretch of talk runs long."""
        return []

    def prompt(self, decision: Decision) -> str:
        if decision.kind == DECK_DECISION:
            return self.deck_prompt()
        return self.ask(decision)

    @abstractmethod
    def ask(self, decision: Decision) -> str:
        """The line that asks the decider for this decision."""

    def ask_again(self, decision: Decision) -> str:
        """The question alone, asked again after a miss: the game's `again_<kind>` line where
        the first asking also explains (a deal, a new phase), else the same line."""
        again = f"again_{decision.kind}"
        if again not in self.lines.table:
            return self.prompt(decision)
        name = self.seats.name_of(decision.decider) if decision.decider is not None else ""
        return self.lines(again, name=name)

    def options_spoken(self, decision: Decision) -> str:
        if decision.kind == DECK_DECISION:
            return self.lines("deck_options")
        return self.say_options(decision)

    @abstractmethod
    def say_options(self, decision: Decision) -> str:
        """The options, read aloud after a player was not understood twice."""

    def timer(self, decision: Decision) -> Timer | None:
        """A clock that also ends this decision, or None."""
        return None

    def context(self, decision: Decision) -> dict[str, Any]:
        """Public facts for the `listen` event (round, card, ...)."""
        return {}

    # -- printed cards ----------------------------------------------------------------------

    def deck_prompt(self) -> str:
        return self.lines("deck_ask_rest" if self.table.game.heard else "deck_ask")

    def takes(self) -> str:
        """"Fox, take letter C. Owl, take letter A." for dealing printed cards by voice."""
        return " ".join(self.lines("take_card", name=self.seats.name_of(seat), letter=letter)
                        for seat, letter in enumerate(self.table.card_letters()))

    def fold_steps(self) -> str:
        """How to make the printed pages without seeing a secret, as their first page says."""
        return " ".join(load_yaml("cards/fold.yaml")["fold_steps"])
