"""A decision that time also settles (a study timer): warnings on the way, a tick for each of
the last seconds, the choice taken when time is up."""

from __future__ import annotations

from voicehost.games.base import Decision
from voicehost.host.commands import TELLING
from voicehost.host.exchange import Cue, DialoguePart, Now, Steps
from voicehost.host.grammars import timer_grammar
from voicehost.host.table import Timer
from voicehost.intents.grammar import Grammar

TICKED_S = 5  # the last seconds of a countdown, each with a tick


class Countdown(DialoguePart):
    """Runs a decision's clock: it stops while the game is paused or the microphone is
    away."""

    def run(self, decision: Decision, grammar: Grammar, timer: Timer) -> Steps[bool]:
        """Settle a decision that time also settles: listen until the next warning is due,
        say it, listen on; a choice or a command ends the wait early (pause stops the clock)."""
        dialogue, listening = self.dialogue, self.dialogue.listening
        self.speech.flush()  # the clock starts once the table has heard how long it has
        grammar = timer_grammar(grammar, timer.choice)
        yield Now()
        deadline = dialogue.now + timer.seconds
        ticks = [(float(left), Cue("tick")) for left in range(TICKED_S, 0, -1)
                 if left < timer.seconds]
        warnings = sorted([*timer.warnings, *ticks], key=lambda warning: -warning[0])
        while True:
            left = deadline - dialogue.now
            if warnings and warnings[0][0] >= left > 0:
                while warnings and warnings[0][0] >= left:
                    self.speech.queue(warnings.pop(0)[1])
                self.speech.flush()
                yield Now()  # a warning takes time to say: the clock counts it
                continue
            if left <= 0:
                self.speech.queue(timer.done)
                return dialogue.act(dialogue.table.referee.action_for(decision, timer.choice),
                                    decision)
            due = left - (warnings[0][0] if warnings else 0.0)
            waited = listening.waited_for_microphone
            intent, _ = yield from listening.hear(grammar, decision, timeout_s=due)
            deadline += listening.waited_for_microphone - waited
            if intent is None:
                continue  # silence or chatter: the clock runs on
            if intent.name == "choose":
                if (yield from dialogue.choose(decision, intent.value)):
                    return True
                continue
            began = dialogue.now
            asked = (self.lines("time_left", seconds=max(1, round(deadline - began)))
                     if intent.name in TELLING + ("pause",) else None)
            outcome = yield from dialogue.commands.handle(intent.name, decision, asked)
            if outcome is not None:
                return outcome
            if intent.name == "pause":  # the clock stands until the question is asked again
                self.speech.flush()
                yield Now()
                deadline += dialogue.now - began
