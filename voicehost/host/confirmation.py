"""Yes or no: a scoring choice read back before it counts, and "quit game?"."""

from __future__ import annotations

from voicehost.games.base import Action, Decision
from voicehost.host.commands import TELLING
from voicehost.host.exchange import DialoguePart, Steps, TableQuit
from voicehost.host.grammars import confirm_grammar, gathering_grammar
from voicehost.host.lines import spoken_list
from voicehost.intents.grammar import Grammar

# A read-back of many answers is said a few at a time, each few in one breath.
BREATH_WORDS = 20


def breaths_of(items: list[str]) -> list[list[str]]:
    """`items` in runs of as even a count as fit one breath each (BREATH_WORDS words at most,
    an "and" or a comma's pause counted as one)."""
    size = [len(item.split()) + 1 for item in items]
    runs = max(1, -(-sum(size) // BREATH_WORDS))
    while True:
        counts = [len(items) // runs + (k < len(items) % runs) for k in range(runs)]
        starts = [sum(counts[:k]) for k in range(runs)]
        groups = [list(range(start, start + count)) for start, count in zip(starts, counts,
                                                                           strict=True)]
        if runs >= len(items) or all(sum(size[i] for i in g) <= BREATH_WORDS for g in groups):
            return [[items[i] for i in g] for g in groups]
        runs += 1


class Confirmation(DialoguePart):
    """Asks a yes/no question and hears the answer, a correction ("no, bear") or a command."""

    def read_back(self, decision: Decision, value: str) -> Steps[bool | str]:
        """Read a scoring choice back: True when the table agrees, False when it does not, or
        the option a "no" named instead."""
        table = self.dialogue.table
        read_back = table.referee.describe_choice(decision, value)
        return (yield from self.confirm(self.lines("confirm", choice=read_back),
                                        table.grammar(decision, [])))

    def read_back_all(self, decision: Decision, gathering: list[Action]
                      ) -> Steps[bool | tuple[int, str]]:
        """Read a gathering's answers back together: True when the table agrees, (seat,
        option) when a "no" names one answer changed ("no, Husky named Robin"), False when a
        bare "no" leaves it to the table to say which."""
        table = self.dialogue.table
        said = [table.referee.describe_choice(Decision(decision.kind, a.player,
                                                       decision.options), a.choice)
                for a in gathering]
        question = self.lines("confirm_all", choices=". ".join(
            spoken_list(group) for group in breaths_of(said)))
        answer = yield from self.confirm(
            question, heard=gathering_grammar(table, decision, gathering))
        if answer is False:
            self.speech.queue(self.lines("which_is_wrong"))
        if isinstance(answer, str):
            seat, _, value = answer.partition(" ")
            return int(seat), value
        return answer

    def confirm(self, question: str, corrections: Grammar | None = None,
                heard: Grammar | None = None) -> Steps[bool | str]:
        """Ask a yes/no `question`; True for yes. The commands work here too: "undo" or "skip"
        is a no; a confirmed "quit game" raises TableQuit. With `corrections` (the options of
        the choice read back), a no that names one ("no, bear") gives that option's value;
        `heard`: what is accepted instead, where the host built it."""
        grammar = heard or confirm_grammar(corrections)
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
