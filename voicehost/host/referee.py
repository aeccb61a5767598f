"""What a heard choice means, in a game's words: its options as phrases, the move it makes,
its read-back for confirmation, and why the rules refused it."""

from __future__ import annotations

from abc import abstractmethod

from voicehost.games.base import Action, Decision, IllegalAction
from voicehost.games.printed import DECK_DECISION
from voicehost.host.table import Choices, GameTable, TablePart
from voicehost.intents.grammar import Intent
from voicehost.prompts_dir import load_yaml


class Referee(TablePart[GameTable]):
    """Turns what a player said into the game's move, reads a scoring one back, and says why
    a move was refused."""

    @abstractmethod
    def choices(self, decision: Decision) -> Choices:
        """Each option of `decision` and the phrases that choose it ([] for free speech)."""

    def ready_choices(self) -> Choices:
        return [(Intent("choose", "ready"), load_yaml("common/intents.yaml")["ready"]["ready"])]

    def follow_ups(self, decision: Decision, half: str) -> Choices:
        """The rest of a half move (`half`, a choice the rules refused as incomplete: "discard"
        with no card), said alone once the host has asked for it ("which card?" "Energy.")."""
        return []

    def read_back(self, decision: Decision) -> bool:
        """Whether a scoring choice is read back for a yes before it counts: not where the
        question was itself the table's yes or no ("Ferrets, was that your word?")."""
        return True

    def gathered(self, decision: Decision) -> bool:
        """Whether each player answers `decision` in turn and the answers are read back
        together once the last is given (whom everyone named), not one by one."""
        return False

    def closes_gathering(self, decision: Decision) -> bool:
        """Whether the answer to a gathered `decision` is the gathering's last."""
        return True

    def action_for(self, decision: Decision, value: str) -> Action:
        return Action(decision.kind, decision.decider, value)

    def skip_action(self, decision: Decision) -> Action | None:
        """The action "skip" takes at this decision, or None when nothing can be skipped."""
        return None

    @abstractmethod
    def describe_choice(self, decision: Decision, value: str) -> str:
        """A scoring choice read back for confirmation ("Fox pointed at Owl")."""

    def describe_action(self, action: Action) -> str:
        """A past move in words, for "Undone: ...": the game's `undone_<kind>` line, told the
        player's `name` and the `choice`."""
        name = self.seats.name_of(action.player) if action.player is not None else ""
        return self.lines(f"undone_{action.kind}", name=name, choice=action.choice)

    def refusal(self, illegal: IllegalAction, decision: Decision) -> str:
        if decision.kind == DECK_DECISION and illegal.reason in self.lines.table:
            return self.lines(illegal.reason, **illegal.facts)
        return self.refuse(illegal, decision)

    def refuse(self, illegal: IllegalAction, decision: Decision) -> str:
        """Why the rules refused a choice, for the table."""
        return self.lines("options", options=self.table.questions.options_spoken(decision))
