"""What players can say at any time besides an answer: repeat, help, scores, tally, status,
pause and resume, undo, skip and quit."""

from __future__ import annotations

from voicehost.games.base import Decision
from voicehost.host import events as stream
from voicehost.host.exchange import Append, DialoguePart, Steps
from voicehost.host.grammars import command_groups
from voicehost.host.listening import PAUSED
from voicehost.intents.grammar import Grammar

TELLING = ("repeat", "help", "scores", "tally", "status", "resume")  # answered, then re-asked


class Commands(DialoguePart):
    """Carries out a command heard while a decision is pending: what only tells something is
    said and the question asked again; undo and skip move the game."""

    def handle(self, name: str, decision: Decision,
               asked: str | None = None) -> Steps[bool | None]:
        """Handle an always-available command; True/False ends the decision, None goes on.
        `asked`: the question to ask again after it, where not the decision's own prompt (a
        running clock says what time is left)."""
        asked = asked or self.dialogue.table.questions.prompt(decision)
        if name in TELLING:
            self.speech.queue(*self.told(name))
            if name != "repeat":  # what was last said already ends with the question
                self.speech.queue(asked)
        elif name in ("pause", "quit"):
            if (yield from (self.paused() if name == "pause" else self.quit_game())):
                return False
            self.speech.queue(asked)
        elif name == "undo":
            return self.undo(decision)
        elif name == "skip":
            return self.skip(decision)
        return None

    def told(self, name: str) -> list[str]:
        """What a command that only tells something says."""
        narrator = self.dialogue.table.narrator
        if name == "repeat":
            return self.speech.last_items
        if name == "help":
            return [narrator.help(), self.lines("commands_hint")]
        if name == "scores":
            return [narrator.standings(), *narrator.explained()]
        if name == "tally":
            return narrator.tally()
        if name == "status":
            return [narrator.status()]
        return []  # resume: nothing was paused; the question again

    def paused(self) -> Steps[bool]:
        """Wait for "resume" (True: the table quit instead)."""
        grammar = Grammar.build(command_groups(("resume", "quit")))
        self.speech.queue(self.lines("paused"))
        while True:
            intent, _ = yield from self.dialogue.listening.hear(grammar, None, moment=PAUSED)
            if intent is None:
                continue  # table chatter while paused is nobody's business
            if intent.name == "quit":
                return (yield from self.quit_game())
            self.speech.queue(self.lines("resumed"))
            return False

    def undo(self, decision: Decision) -> bool | None:
        dialogue = self.dialogue
        if not dialogue.actions:
            self.speech.queue(self.lines("nothing_to_undo"),
                              dialogue.table.questions.prompt(decision))
            return None
        undone = dialogue.actions.pop()
        self.speech.send(Append({"type": "undo"}))
        dialogue.table.replay(dialogue.actions)
        self.speech.queue(self.lines("undone",
                                     what=dialogue.table.referee.describe_action(undone)))
        return True  # the loop asks the game again: the undone decision is pending once more

    def skip(self, decision: Decision) -> bool | None:
        action = self.dialogue.table.referee.skip_action(decision)
        if action is None:
            self.speech.queue(self.lines("nothing_to_skip"),
                              self.dialogue.table.questions.prompt(decision))
            return None
        return True if self.dialogue.act(action, decision) else None

    def quit_game(self) -> Steps[bool]:
        """Ask whether to stop; True when the table stopped (the journal keeps the game)."""
        if not (yield from self.dialogue.confirmation.confirm(self.lines("quit_confirm"))):
            return False
        self.speech.queue(self.lines("quitting"))
        self.speech.flush()
        self.speech.emit(stream.Quit())
        return True
