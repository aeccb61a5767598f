"""Who is who: each seat told its name and heard answering, before the first question."""

from __future__ import annotations

from voicehost.host.commands import TELLING
from voicehost.host.exchange import DialoguePart, Steps, TableQuit
from voicehost.host.grammars import roll_call_grammar
from voicehost.host.listening import ROLL_CALL

TRIES_PER_SEAT = 2  # the roll call asks a seat this many times before it says it can't hear


class RollCall(DialoguePart):
    """Calls each seat by name and listens for it, which also shows that the host hears
    every seat."""

    def call(self) -> Steps[None]:
        """Who is who: each seat is told its name and answers, which also shows that the host
        hears every seat. A seat not heard gets a word about it; "skip" ends the roll call."""
        self.dialogue.called = True
        grammar = roll_call_grammar()
        seats = self.dialogue.table.seats
        names = [seats.name_of(seat) for seat in range(len(seats.names))]
        listening, commands = self.dialogue.listening, self.dialogue.commands
        self.speech.queue(self.lines("roll_call"))
        unheard: list[int] = []
        for seat, name in enumerate(names):
            self.speech.queue(self.lines("roll_call_first", name=name) if seat == 0 else
                              self.lines("roll_call_next", name=name, left_of=names[seat - 1]))
            tries = 0
            while tries < TRIES_PER_SEAT:
                intent, problem = yield from listening.hear(grammar, None, moment=ROLL_CALL,
                                                            player=seat)
                if intent is not None and intent.name == "choose":
                    break
                if intent is None:
                    tries += 1
                    if tries < TRIES_PER_SEAT:
                        self.speech.ask_again(listening.quiet_please(seat)
                                              if problem == "too_loud"
                                              else self.lines("roll_call_again", name=name))
                    continue
                if intent.name == "skip":
                    return
                if intent.name in TELLING:
                    self.speech.queue(*commands.told(intent.name))
                    if intent.name == "repeat":
                        continue
                elif intent.name in ("pause", "quit") and (
                        (yield from commands.paused()) if intent.name == "pause"
                        else (yield from commands.quit_game())):
                    raise TableQuit
                self.speech.queue(self.lines("roll_call_again", name=name))
            else:
                unheard.append(seat)
                self.speech.queue(self.lines(self.as_typed("roll_call_unheard"), name=name))
        self.speech.queue(self.lines(self.as_typed("roll_call_done")) if not unheard else
                          self.lines(self.as_typed("roll_call_done_unheard"),
                                     names=self.dialogue.table.seats.names_of(unheard)))

    def as_typed(self, key: str) -> str:
        """The line `key`, or in text mode its wording that speaks of typing, not hearing."""
        return f"{key}_typed" if self.dialogue.typed else key
