"""The host's side of the conversation, with no I/O: no sound card, no clock, no files.

A `Dialogue` asks the game what is pending, says it, listens, and moves the game on. It does
none of that itself: `begin` and `receive` return commands (say these lines, emit this event,
journal this record, listen for these phrases) and take back what came of the last one (heard,
silence, the microphone lost, the time now). `Host` is the driver that carries the commands out
with a Voice, a Journal and an EventStream; a test drives it with a script.

Commands come in the order they must be carried out, and the last of each batch waits for an
answer: an accepted choice's `Append` comes before any line that speaks of it, so a kill at any
point loses nothing the table was told had been recorded.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from voicehost.games.base import Action, Decision, Event, IllegalAction
from voicehost.host import events as stream
from voicehost.host.commands import Commands
from voicehost.host.confirmation import Confirmation
from voicehost.host.countdown import Countdown
from voicehost.host.exchange import Answer, Append, Command, Done, Steps, TableQuit, Tick
from voicehost.host.grammars import decision_grammar, heard_first
from voicehost.host.listening import Listening
from voicehost.host.roll_call import RollCall
from voicehost.host.speech_queue import SpeechQueue
from voicehost.host.table import Table
from voicehost.voice import EndOfInput

MISSES_BEFORE_OPTIONS = 1  # after this many misses in a row the host reads the options aloud
# While the room stays loud, the host asks for quiet before one decision in this many (and
# after every miss the noise caused): asked before every question, the table stops listening.
LOUD_DECISIONS_PER_ASK = 3


@dataclass
class Outcome:
    finished: bool  # False when the table quit (or input ended) before the game was over
    scores: list[int]
    winners: list[int]


@dataclass(eq=False)
class Dialogue:
    """The decision loop: asks what is pending, hears it through its parts (the speech queue,
    listening, the commands, the confirmation, the roll call and the countdown), and moves
    the game on."""

    table: Table
    actions: list[Action] = field(default_factory=list)
    streaming: bool = True  # someone reads the events: `listen` events are worth building
    typed: bool = False  # the players type what they say (text mode): nothing goes unheard
    now: float = 0.0  # the time of the last answer
    called: bool = False  # the roll call is done
    opened: bool = True  # the table has been told what it plays
    setting_up: bool = False  # the table's set-up is still to be said, after the roll call
    secrets_shown: dict | None = None
    heard: int = 0  # the actions whose results the table has heard (the journal's "heard")
    half: str = ""  # a half move refused, whose rest the host asked for ("discard:")
    rest_asked: str = ""  # how it asked ("Which card?"), asked again after a miss
    loud_decisions: int = 0  # decisions in a row that began in a room too loud
    steps: Steps[Any] | None = None
    speech: SpeechQueue = field(default_factory=SpeechQueue)
    listening: Listening = field(init=False)
    commands: Commands = field(init=False)
    confirmation: Confirmation = field(init=False)
    roll_call: RollCall = field(init=False)
    countdown: Countdown = field(init=False)

    def __post_init__(self) -> None:
        self.listening = Listening(self)
        self.commands = Commands(self)
        self.confirmation = Confirmation(self)
        self.roll_call = RollCall(self)
        self.countdown = Countdown(self)

    @property
    def lines(self) -> Any:
        return self.table.lines

    def begin(self, steps: Steps[Any]) -> list[Command]:
        """Start `steps` (`game()`, or one part of it); the commands up to the first that
        waits for an answer, or up to Done."""
        self.steps = steps
        return self._advance(None)

    def receive(self, answer: Answer) -> list[Command]:
        """The answer to the last command; the commands that follow from it."""
        if isinstance(answer, Tick):
            self.now = answer.now
        return self._advance(answer)

    def _advance(self, answer: Answer | None) -> list[Command]:
        assert self.steps is not None, "begin() first"
        try:
            waiting = self.steps.send(answer)
        except StopIteration as over:
            waiting = Done(over.value)
        return [*self.speech.sent(), waiting]

    def game(self, resumed: bool = False) -> Steps[Outcome]:
        """The whole game, from the welcome to the winner (or to a quit)."""
        try:
            # a deck that tells how many play is read before the table is introduced
            self.opened = not (self.table.seated_by_deck and self.table.waiting_for_deck())
            if resumed:
                self.speech.queue(self.lines("welcome_back", game=self.table.title))
                decision = self.table.game.pending()
                if decision is not None:
                    if not self.table.waiting_for_deck():
                        yield from self.roll_call.call()  # who is who, before where we are
                    self.say_the_unheard()
                    self.speech.queue(*self.table.narrator.recap(decision))
                elif self.heard < len(self.actions):
                    self.say_the_unheard()
                else:
                    self.speech.queue(self.lines("already_over"))
                    self.say_the_result_again()
            elif self.opened:
                self.speech.queue(*self.table.questions.opening())
                self.setting_up = True
            else:
                self.speech.queue(self.lines("deck_first", game=self.table.title))
            while (decision := self.table.game.pending()) is not None:
                self.mark_secrets()
                if not self.table.waiting_for_deck():
                    if not self.opened:
                        self.speech.queue(*self.table.questions.opening())
                        self.opened = self.setting_up = True
                    if not self.called:
                        yield from self.roll_call.call()
                    if self.setting_up:
                        self.speech.queue(*self.table.questions.table_setup())
                        self.setting_up = False
                if not (yield from self.take(decision)):
                    return self._outcome(finished=False)
            self.speech.flush()
            return self._outcome(finished=True)
        except TableQuit:
            return self._outcome(finished=False)
        except EndOfInput:
            self.speech.queue(self.lines("input_ended"))
            self.speech.flush()
            self.speech.emit(stream.Saved("end_of_input"))
            return self._outcome(finished=False)

    def mark_secrets(self) -> None:
        """Tell the event stream what the host knows and must not say (printed cards), once,
        flagged `secret` so a display hides it."""
        facts = self.table.secrets()
        if facts and facts != self.secrets_shown:
            self.speech.emit(stream.Secrets(facts))
            self.secrets_shown = facts

    def say_the_unheard(self) -> None:
        """A game stopped between an answer and the result it came to (a round's, the
        winner): that result said and streamed as it would have been."""
        self.table.replay(self.actions[: self.heard])
        for at in range(self.heard, len(self.actions)):
            events = self.table.game.apply(self.actions[at])
            if self.stream_results(events):
                self.speech.queue(*self.table.narrator.narrate(events))
                self.speech.heard(at + 1)
                self.speech.flush()

    def stream_results(self, events: list[Event]) -> bool:
        """Put the results among `events` (a round scored, a scoring moment, the game's
        end) on the event stream; whether there were any."""
        results = False
        for event in events:
            if event.kind in ("round_scored", "game_over"):
                self.speech.emit(stream.Score(event.facts) if event.kind == "round_scored"
                                 else stream.GameOver(event.facts))
            elif event.kind in self.table.score_events:
                self.speech.emit(stream.Score(event.facts, event.kind))
            else:
                continue
            results = True
        return results

    def say_the_result_again(self) -> None:
        """A finished game, resumed: its end as it was said and streamed the first time."""
        over = [e for e in self.table.replay(self.actions) if e.kind == "game_over"]
        self.stream_results(over)
        self.speech.queue(self.table.narrator.standings(), *self.table.narrator.narrate(over))

    def _outcome(self, finished: bool) -> Outcome:
        game = self.table.game
        return Outcome(finished, list(game.scores), game.winners() if finished else [])

    def take(self, decision: Decision) -> Steps[bool]:
        """Settle one decision. False when the table quit."""
        grammar = decision_grammar(self.table, decision)
        self.speech.queue(self.table.questions.prompt(decision))
        timer = self.table.questions.timer(decision)
        if timer is not None:
            return (yield from self.countdown.run(decision, grammar, timer))
        misses = 0
        self.loud_decisions = self.loud_decisions + 1 if self.listening.too_loud else 0
        if self.loud_decisions % LOUD_DECISIONS_PER_ASK == 1:
            self.speech.queue(self.listening.quiet_please(decision.decider))
        self.half = self.rest_asked = ""
        while True:
            asked = heard_first(grammar, self.table.referee.follow_ups(decision, self.half))
            if decision.options:
                intent, problem = yield from self.listening.hear(asked, decision)
                if problem == "wavering":
                    intent, problem = yield from self.listening.separate(asked, decision)
            else:
                intent, problem = yield from self.listening.hear_free(asked, decision)
            if intent is None:
                misses += 1
                if problem == "too_loud":  # no option list read into the noise
                    self.speech.ask_again(self.listening.quiet_please(decision.decider),
                                          self.table.questions.ask_again(decision))
                    continue
                self.speech.ask_again(self.lines("not_understood" if problem == "wavering"
                                                 else problem))
                if misses > MISSES_BEFORE_OPTIONS:
                    options = self.table.questions.options_spoken(decision)
                    self.speech.queue(self.lines("options", options=options))
                self.speech.queue(self.rest_asked or self.table.questions.ask_again(decision))
                continue
            misses = 0
            if intent.name == "choose":
                if (yield from self.choose(decision, intent.value)):
                    return True
                continue
            outcome = yield from self.commands.handle(intent.name, decision)
            if outcome is not None:
                return outcome

    def choose(self, decision: Decision, value: str) -> Steps[bool]:
        """Apply a choice (confirmed first if it scores). True when the game moved on."""
        self.half = self.rest_asked = ""
        refusal = self.table.refuse_choice(decision, value)
        if refusal is not None:
            self.refuse(refusal, decision, value)
            return False
        action = self.table.referee.action_for(decision, value)
        # free speech (a decision without options: a guess of any word) is not read back, as
        # its words may not have been heard
        if decision.scoring and decision.options:
            try:  # a choice the rules refuse is refused with its reason, not read back first
                self.table.game.check(action)
            except IllegalAction as illegal:
                self.refuse(self.table.referee.refusal(illegal, decision), decision, value)
                return False
            if self.table.referee.gathered(decision):
                return (yield from self.gather(decision, action))
            if not self.table.referee.read_back(decision):
                return self.act(action, decision)
            answer = yield from self.confirmation.read_back(decision, value)
            if isinstance(answer, str):  # "no, bear": bear instead, read back in turn
                return (yield from self.choose(decision, answer))
            if not answer:
                self.speech.queue(self.lines("try_again"), self.table.questions.prompt(decision))
                return False
        return self.act(action, decision)

    def gather(self, decision: Decision, action: Action) -> Steps[bool]:
        """An answer of a gathering (whom each player named): taken as it is said, and once
        the last is given, every answer read back together before that last one counts. A
        "no" that names an answer ("no, Husky named Robin") fixes it, then all are read back
        again."""
        if not self.table.referee.closes_gathering(decision):
            return self.act(action, decision)
        while True:
            gathering = [*self.gathering(decision.kind), action]
            answer = yield from self.confirmation.read_back_all(decision, gathering)
            if answer is True:
                return self.act(action, decision)
            if answer is False:
                continue  # asked again which answer is wrong, with the same read-back
            seat, value = answer
            if seat == action.player:
                action = self.table.referee.action_for(decision, value)
                continue
            self.correct(decision, seat, value)

    def gathering(self, kind: str) -> list[Action]:
        """The answers of the gathering under way: the last actions of its `kind`."""
        taken: list[Action] = []
        for action in reversed(self.actions):
            if action.kind != kind:
                break
            taken.insert(0, action)
        return taken

    def correct(self, decision: Decision, seat: int, value: str) -> None:
        """Change `seat`'s answer in the gathering under way to `value`: the journal takes back
        the answers from it on and keeps them again, that one changed. A change the rules
        refuse is refused with its reason, and nothing changes."""
        at = next(i for i in range(len(self.actions) - 1, -1, -1)
                  if self.actions[i].kind == decision.kind and self.actions[i].player == seat)
        asked = Decision(decision.kind, seat, decision.options)
        again = [self.table.referee.action_for(asked, value), *self.actions[at + 1:]]
        self.table.replay(self.actions[:at])
        refusal = self.table.refuse_choice(asked, value)
        try:
            for action in again if refusal is None else ():
                self.table.game.apply(action)
        except IllegalAction as illegal:
            refusal = self.table.referee.refusal(illegal, asked)
        if refusal is not None:
            self.table.replay(self.actions)
            self.speech.queue(refusal)
            return
        for _ in self.actions[at:]:
            self.speech.send(Append({"type": "undo"}))
        del self.actions[at:]
        for action in again:
            self.speech.send(Append({"type": "action", "action": action.to_json()}))
            self.actions.append(action)

    def act(self, action: Action, decision: Decision) -> bool:
        try:
            events = self.table.game.apply(action)
        except IllegalAction as illegal:
            self.refuse(self.table.referee.refusal(illegal, decision), decision, action.choice)
            return False
        self.speech.send(Append({"type": "action", "action": action.to_json()}))
        self.actions.append(action)
        self.table = self.table.reseated(self.actions)
        results = self.stream_results(events)
        self.speech.queue(*self.table.narrator.narrate(events))
        if results:  # said on its own, so that the journal knows once it has been heard
            self.speech.heard(len(self.actions))
            self.speech.flush()
        return True

    def refuse(self, refusal: str, decision: Decision, value: str) -> None:
        """Say why the choice `value` is refused, and ask again; a half move ("discard") is
        asked for its rest alone, which the next answer may then say alone ("energy")."""
        if self.table.referee.follow_ups(decision, value):
            self.half, self.rest_asked = value, refusal
            self.speech.queue(refusal)
            return
        self.speech.queue(refusal, self.table.questions.prompt(decision))
