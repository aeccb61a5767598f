"""Yes or no: a scoring choice read back before it counts, and "quit game?"."""

from __future__ import annotations

from voicehost.games.base import Decision
from voicehost.host.commands import TELLING
from voicehost.host.exchange import DialoguePart, Steps, TableQuit
from voicehost.host.grammars import confirm_grammar
from voicehost.intents.grammar import Grammar


class Confirmation(DialoguePart):
    """Asks a yes/no question and hears the answer, a correction ("no, bear") or a command."""

    def read_back(self, decision: Decision, value: str) -> Steps[bool | str]:
        """Read a scoring choice back: True when the table agrees, False when it does not, or
        the option a "no" named instead."""
        table = self.dialogue.table
        read_back = table.referee.describe_choice(decision, value)
        return (yield from self.confirm(self.lines("confirm", choice=read_back),
                                        table.grammar(decision, [])))

    def confirm(self, question: str, corrections: Grammar | None = None
                ) -> Steps[bool | str]:
        """Ask a yes/no `question`; True for yes. The commands work here too: "undo" or "skip"
        is a no; a confirmed "quit game" raises TableQuit. With `corrections` (the options of
        the choice read back), a no that names one ("no, bear") gives that option's value."""
        grammar = confirm_grammar(corrections)
        commands = self.dialogue.commands
        self.speech.queue(question)
        while True:
            intent, _ = yield from self.dialogue.listening.hear(grammar, None)
            if intent is None:
                self.speech.ask_again(self.lines("confirm_options"))
            elif intent.name == "choose":
                return intent.value == "yes"
            elif intent.name == "correct":
                return intent.value
            elif intent.name in ("undo", "skip"):
                return False
            elif intent.name in TELLING:
                self.speech.queue(*commands.told(intent.name),
                                  *([] if intent.name == "repeat" else [question]))
            elif (yield from (commands.quit_game() if intent.name == "quit"
                              else commands.paused())):
                raise TableQuit
            else:
                self.speech.queue(question)
