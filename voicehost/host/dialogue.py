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

from collections.abc import Generator, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from voicehost.games.base import Action, Decision, IllegalAction
from voicehost.host import events as stream
from voicehost.host.clips import Playback, said_from
from voicehost.host.grammars import (
    command_groups,
    confirm_grammar,
    decision_grammar,
    heard_first,
    phrases_for,
    roll_call_grammar,
    spell_numbers,
    timer_grammar,
    wavering,
)
from voicehost.host.table import Table, Timer
from voicehost.intents.grammar import Grammar, Intent
from voicehost.voice import EndOfInput, Hearing, Recording

MISSES_BEFORE_OPTIONS = 1  # after this many misses in a row the host reads the options aloud
# While the room stays loud, the host asks for quiet before one decision in this many (and
# after every miss the noise caused): asked before every question, the table stops listening.
LOUD_DECISIONS_PER_ASK = 3
TRIES_PER_SEAT = 2  # the roll call asks a seat this many times before it says it can't hear
TELLING = ("repeat", "help", "scores", "tally", "status", "resume")  # answered, then re-asked

# What the host is waiting for when no decision of the game is pending: (kind, options).
CONFIRMING = ("confirm", ("yes", "no"))
PAUSED = ("paused", ("resume",))
ROLL_CALL = ("roll_call", ("in",))


# -- what the dialogue asks of its driver ---------------------------------------------------

@dataclass(frozen=True)
class Say:
    """Say these lines as one; a `Playback` line plays its recording after its caption."""

    lines: list[str]


@dataclass(frozen=True)
class Emit:
    event: stream.StreamEvent


@dataclass(frozen=True)
class Append:
    """Journal this record (fsynced) before carrying out anything that follows."""

    record: dict[str, Any]


@dataclass(frozen=True)
class Listen:
    """Hear one utterance limited to `phrases` (`free`: free speech, kept as a recording).
    Answered by Heard, Silence, MicLost or InputEnded."""

    phrases: Sequence[str]
    timeout_s: float | None = None
    free: bool = False


@dataclass(frozen=True)
class WaitForMicrophone:
    """Return once a microphone delivers audio again. Answered by Tick."""


@dataclass(frozen=True)
class Now:
    """What time it is (after everything before has been carried out). Answered by Tick."""


@dataclass(frozen=True)
class Keep:
    """Keep this recording next to the journal. Answered by Kept."""

    pcm: bytes
    label: str


@dataclass(frozen=True)
class Done:
    """The steps begun are over: `result` is what they came to (the game's Outcome)."""

    result: Any


Command = Say | Emit | Append | Listen | WaitForMicrophone | Now | Keep | Done


# -- what the driver answers ---------------------------------------------------------------

@dataclass(frozen=True)
class Tick:
    """The time on the driver's clock, in seconds: the answer to Now and WaitForMicrophone,
    and part of every answer to Listen."""

    now: float


class MicLost(Tick):
    """The microphone stopped delivering audio; the utterance it cut short is lost."""


class InputEnded(Tick):
    """Nobody will ever answer again (stdin closed): the game is saved as it is."""


@dataclass(frozen=True)
class Silence(Tick):
    """Nobody spoke in time. `too_loud`: whether the room, as heard, drowns a player."""

    too_loud: bool


@dataclass(frozen=True)
class Heard(Silence):
    """What the recognizer made of an utterance; for free speech, the `recording` too."""

    hearing: Hearing
    recording: Recording | None = None


@dataclass(frozen=True)
class Kept:
    clip: str  # the recording's reference, relative to the journal's folder


Answer = Tick | Kept
T = TypeVar("T")
Steps = Generator[Command, Answer | None, T]


@dataclass
class Outcome:
    finished: bool  # False when the table quit (or input ended) before the game was over
    scores: list[int]
    winners: list[int]


class TableQuit(Exception):
    """The table confirmed "quit game" while answering another question."""


@dataclass(eq=False)
class Dialogue:
    table: Table
    actions: list[Action] = field(default_factory=list)
    streaming: bool = True  # someone reads the events: `listen` events are worth building
    typed: bool = False  # the players type what they say (text mode): nothing goes unheard
    too_loud: bool = False  # the room, as last heard
    now: float = 0.0  # the time of the last answer
    moment: str = ""  # what the host waits for now: a decision's kind, "confirm", "paused"...
    queued: list[str] = field(default_factory=list)
    last_items: list[str] = field(default_factory=list)  # last said, recordings too (repeat)
    asking_again: bool = False  # what is queued only re-asks: "repeat" says the question
    called: bool = False  # the roll call is done
    opened: bool = True  # the table has been told what it plays
    secrets_shown: dict | None = None
    between: tuple[Intent, ...] = ()  # the options the last hearing wavered between
    half: str = ""  # a half move refused, whose rest the host asked for ("discard:")
    rest_asked: str = ""  # how it asked ("Which card?"), asked again after a miss
    loud_decisions: int = 0  # decisions in a row that began in a room too loud
    waited_for_microphone: float = 0.0  # seconds, in all: a study timer stops meanwhile
    out: list[Command] = field(default_factory=list)
    steps: Steps[Any] | None = None

    @property
    def lines(self) -> Any:
        return self.table.lines

    # -- the driver's side ------------------------------------------------------------------

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
        commands, self.out = [*self.out, waiting], []
        return commands

    # -- speaking ---------------------------------------------------------------------------

    def emit(self, event: stream.StreamEvent) -> None:
        self.out.append(Emit(event))

    def queue(self, *lines: str) -> None:
        self.queued.extend(line for line in lines if line)

    def flush(self) -> None:
        if not self.queued:
            return
        items, self.queued = self.queued, []
        clips = [item.clip for item in items if isinstance(item, Playback)]
        self.emit(stream.SayEvent(" ".join(items), clips or None))
        self.out.append(Say(items))
        if not self.asking_again:
            self.last_items = items
        self.asking_again = False

    def ask_again(self, *lines: str) -> None:
        """Queue `lines` that only re-ask (after a miss): "repeat" still says the question as
        it was first asked, not "Sorry, I didn't get that"."""
        self.queue(*lines)
        self.asking_again = True

    # -- listening --------------------------------------------------------------------------

    def hear(self, grammar: Grammar, decision: Decision | None,
             timeout_s: float | None = None,
             moment: tuple[str, tuple[str, ...]] = CONFIRMING,
             player: int | None = None) -> Steps[tuple[Intent | None, str]]:
        """Say what is queued, listen once. (None, problem) when nothing was understood:
        "silence" (nobody spoke), "too_loud" (the room drowned the player), "wavering" (the
        engine heard one of `self.between`'s options but could not tell which) or
        "not_understood". `moment`: what is asked when `decision` is None, and of `player`."""
        self._listening(decision, grammar, moment, player)
        answer = yield from self._through_losses(Listen(grammar.phrases, timeout_s),
                                                 decision, grammar, moment, player)
        if not isinstance(answer, Heard):
            self.emit(stream.HeardEvent("", None, 0.0))
            return None, "silence"
        hearing = answer.hearing
        intent, snap = grammar.match(spell_numbers(hearing.text))
        self.between = () if intent is not None else wavering(grammar, hearing, decision)
        self.emit(stream.HeardEvent(
            hearing.text, None if intent is None else [intent.name, intent.value],
            round(hearing.confidence * snap, 3), round(hearing.decode_seconds, 4),
            round(hearing.response_seconds, 4),
            between=[i.value for i in self.between] or None,
            snr_db=None if hearing.snr_db is None else round(hearing.snr_db, 1)))
        if intent is not None:
            return intent, ""
        if self.between:
            return None, "wavering"
        return None, "too_loud" if self.too_loud else "not_understood"

    def _through_losses(self, listen: Listen, decision: Decision | None, grammar: Grammar,
                        moment: tuple[str, tuple[str, ...]] = CONFIRMING,
                        player: int | None = None) -> Steps[Silence]:
        """Listen; while the microphone is lost, say so, wait for it and ask again: nothing
        is lost."""
        while True:
            answer = yield listen
            if isinstance(answer, InputEnded):
                raise EndOfInput
            if isinstance(answer, Silence):  # or Heard
                self.too_loud = answer.too_loud
                return answer
            asked = self.last_items
            self.queue(self.lines("microphone_lost"))
            self.flush()
            yield Now()
            began = self.now
            yield WaitForMicrophone()
            self.waited_for_microphone += self.now - began
            self.queue(self.lines("microphone_back"),
                       *(asked if decision is None else [self.table.prompt(decision)]))
            self._listening(decision, grammar, moment, player)

    def separate(self, grammar: Grammar, decision: Decision
                 ) -> Steps[tuple[Intent | None, str]]:
        """Ask the one question that tells the options in `self.between` apart ("Owl or
        bear?") and listen for one of them (or a command)."""
        first, second = (grammar.spoken(intent) for intent in self.between[:2])
        first = first[:1].upper() + first[1:]
        narrowed = Grammar({phrase: intent for phrase, intent in grammar.intents.items()
                            if intent in self.between[:2] or intent.name != "choose"})
        self.queue(self.lines("which_of", first=first, second=second))
        return (yield from self.hear(narrowed, decision))

    def _listening(self, decision: Decision | None, grammar: Grammar,
                   moment: tuple[str, tuple[str, ...]] = CONFIRMING,
                   player: int | None = None) -> None:
        self.flush()
        self.moment = moment[0] if decision is None else decision.kind
        if not self.streaming:
            return
        if decision is None:
            kind, options = moment
            self.emit(stream.ListenEvent(player, kind, list(options),
                                         phrases_for(grammar, options)))
            return
        self.emit(stream.ListenEvent(decision.decider, decision.kind, list(decision.options),
                                phrases_for(grammar, decision.options) or None,
                                self.table.context(decision),
                                decision.kind in self.table.secret_options or None))

    def hear_free(self, grammar: Grammar, decision: Decision
                  ) -> Steps[tuple[Intent | None, str]]:
        """Listen once to free speech (a decision without options, e.g. a clue). Commands
        still work; anything else is the choice: its words and its recording, kept."""
        self._listening(decision, grammar)
        answer = yield from self._through_losses(Listen(grammar.phrases, free=True),
                                                 decision, grammar)
        if not isinstance(answer, Heard) or answer.recording is None:
            self.emit(stream.HeardEvent("", None, 0.0))
            return None, "silence"
        recording = answer.recording
        command, snap = grammar.match(recording.hearing.text)
        response = round(recording.hearing.response_seconds, 4)
        if command is not None and snap == 1.0:
            self.emit(stream.HeardEvent(recording.hearing.text, [command.name, command.value],
                                   round(recording.hearing.confidence, 3),
                                   response_seconds=response))
            return command, ""
        clip = ""
        if recording.pcm:
            kept = yield Keep(recording.pcm, f"seat{decision.decider}")
            clip = kept.clip  # type: ignore[union-attr]
        said = said_from(recording.transcript, recording.transcript_confidence, clip)
        if not said.words and not said.clip:
            self.emit(stream.HeardEvent(recording.transcript, None, 0.0))
            return None, "not_understood"
        intent = Intent("choose", said.choice())
        self.emit(stream.HeardEvent(said.words, [intent.name, intent.value],
                               round(recording.transcript_confidence, 3),
                               response_seconds=response, clip=clip))
        return intent, ""

    # -- the game ---------------------------------------------------------------------------

    def game(self, resumed: bool = False) -> Steps[Outcome]:
        """The whole game, from the welcome to the winner (or to a quit)."""
        try:
            # a deck that tells how many play is read before the table is introduced
            self.opened = not (self.table.seated_by_deck and self.table.waiting_for_deck())
            if resumed:
                self.queue(self.lines("welcome_back", game=self.table.title))
                decision = self.table.game.pending()
                if decision is not None:
                    if not self.table.waiting_for_deck():
                        yield from self.roll_call()  # who is who, before where we are
                    self.queue(*self.table.recap(decision))
                else:
                    self.queue(self.lines("already_over"))
                    self.say_the_result_again()
            elif self.opened:
                self.queue(*self.table.opening())
            else:
                self.queue(self.lines("deck_first", game=self.table.title))
            while (decision := self.table.game.pending()) is not None:
                self.mark_secrets()
                if not self.table.waiting_for_deck():
                    if not self.opened:
                        self.queue(*self.table.opening())
                        self.opened = True
                    if not self.called:
                        yield from self.roll_call()
                if not (yield from self.take(decision)):
                    return self._outcome(finished=False)
            self.flush()
            return self._outcome(finished=True)
        except TableQuit:
            return self._outcome(finished=False)
        except EndOfInput:
            self.queue(self.lines("input_ended"))
            self.flush()
            self.emit(stream.Saved("end_of_input"))
            return self._outcome(finished=False)

    def mark_secrets(self) -> None:
        """Tell the event stream what the host knows and must not say (printed cards), once,
        flagged `secret` so a display hides it."""
        facts = self.table.secrets()
        if facts and facts != self.secrets_shown:
            self.emit(stream.Secrets(facts))
            self.secrets_shown = facts

    def say_the_result_again(self) -> None:
        """A finished game, resumed: its end as it was said and streamed the first time."""
        over = [e for e in self.table.replay(self.actions) if e.kind == "game_over"]
        for event in over:
            self.emit(stream.GameOver(event.facts))
        self.queue(self.table.standings(), *self.table.narrate(over))

    def _outcome(self, finished: bool) -> Outcome:
        game = self.table.game
        return Outcome(finished, list(game.scores), game.winners() if finished else [])

    def take(self, decision: Decision) -> Steps[bool]:
        """Settle one decision. False when the table quit."""
        grammar = decision_grammar(self.table, decision)
        self.queue(self.table.prompt(decision))
        timer = self.table.timer(decision)
        if timer is not None:
            return (yield from self.timed(decision, grammar, timer))
        misses = 0
        self.loud_decisions = self.loud_decisions + 1 if self.too_loud else 0
        if self.loud_decisions % LOUD_DECISIONS_PER_ASK == 1:
            self.queue(self.quiet_please(decision.decider))
        self.half = self.rest_asked = ""
        while True:
            asked = heard_first(grammar, self.table.follow_ups(decision, self.half))
            if decision.options:
                intent, problem = yield from self.hear(asked, decision)
                if problem == "wavering":
                    intent, problem = yield from self.separate(asked, decision)
            else:
                intent, problem = yield from self.hear_free(asked, decision)
            if intent is None:
                misses += 1
                if problem == "too_loud":  # no option list read into the noise
                    self.ask_again(self.quiet_please(decision.decider),
                                   self.table.ask_again(decision))
                    continue
                self.ask_again(self.lines("not_understood" if problem == "wavering" else problem))
                if misses > MISSES_BEFORE_OPTIONS:
                    self.queue(self.lines("options", options=self.table.options_spoken(decision)))
                self.queue(self.rest_asked or self.table.ask_again(decision))
                continue
            misses = 0
            if intent.name == "choose":
                if (yield from self.choose(decision, intent.value)):
                    return True
                continue
            outcome = yield from self.command(intent.name, decision)
            if outcome is not None:
                return outcome

    def roll_call(self) -> Steps[None]:
        """Who is who: each seat is told its name and answers, which also shows that the host
        hears every seat. A seat not heard gets a word about it; "skip" ends the roll call."""
        self.called = True
        grammar = roll_call_grammar()
        names = [self.table.name_of(seat) for seat in range(len(self.table.seats.names))]
        self.queue(self.lines("roll_call"))
        unheard: list[int] = []
        for seat, name in enumerate(names):
            self.queue(self.lines("roll_call_first", name=name) if seat == 0 else
                       self.lines("roll_call_next", name=name, left_of=names[seat - 1]))
            tries = 0
            while tries < TRIES_PER_SEAT:
                intent, problem = yield from self.hear(grammar, None, moment=ROLL_CALL,
                                                       player=seat)
                if intent is not None and intent.name == "choose":
                    break
                if intent is None:
                    tries += 1
                    if tries < TRIES_PER_SEAT:
                        self.ask_again(self.quiet_please(seat) if problem == "too_loud"
                                       else self.lines("roll_call_again", name=name))
                    continue
                if intent.name == "skip":
                    return
                if intent.name in TELLING:
                    self.queue(*self.told(intent.name))
                    if intent.name == "repeat":
                        continue
                elif intent.name in ("pause", "quit") and (
                        (yield from self.paused()) if intent.name == "pause"
                        else (yield from self.quit_game())):
                    raise TableQuit
                self.queue(self.lines("roll_call_again", name=name))
            else:
                unheard.append(seat)
                self.queue(self.lines(self.as_typed("roll_call_unheard"), name=name))
        self.queue(self.lines(self.as_typed("roll_call_done")) if not unheard else
                   self.lines(self.as_typed("roll_call_done_unheard"),
                              names=self.table.names_of(unheard)))

    def as_typed(self, key: str) -> str:
        """The line `key`, or in text mode its wording that speaks of typing, not hearing."""
        return f"{key}_typed" if self.typed else key

    def quiet_please(self, seat: int | None) -> str:
        if seat is None:
            return self.lines("quiet_please_all")
        return self.lines("quiet_please", name=self.table.name_of(seat))

    def timed(self, decision: Decision, grammar: Grammar, timer: Timer) -> Steps[bool]:
        """Settle a decision that time also settles: listen until the next warning is due,
        say it, listen on; a choice or a command ends the wait early (pause stops the clock)."""
        self.flush()  # the clock starts once the table has heard how long it has
        grammar = timer_grammar(grammar, timer.choice)
        yield Now()
        deadline = self.now + timer.seconds
        warnings = sorted(timer.warnings, reverse=True)
        while True:
            left = deadline - self.now
            while warnings and warnings[0][0] >= left:
                self.queue(warnings.pop(0)[1])
            if left <= 0:
                self.queue(timer.done)
                return self.act(self.table.action_for(decision, timer.choice), decision)
            due = left - (warnings[0][0] if warnings else 0.0)
            waited = self.waited_for_microphone
            intent, _ = yield from self.hear(grammar, decision, timeout_s=due)
            deadline += self.waited_for_microphone - waited
            if intent is None:
                continue  # silence or chatter: the clock runs on
            if intent.name == "choose":
                if (yield from self.choose(decision, intent.value)):
                    return True
                continue
            began = self.now
            outcome = yield from self.command(intent.name, decision)
            if outcome is not None:
                return outcome
            if intent.name == "pause":
                deadline += self.now - began

    def choose(self, decision: Decision, value: str) -> Steps[bool]:
        """Apply a choice (confirmed first if it scores). True when the game moved on."""
        self.half = self.rest_asked = ""
        refusal = self.table.refuse_choice(decision, value)
        if refusal is not None:
            self.refuse(refusal, decision, value)
            return False
        action = self.table.action_for(decision, value)
        # free speech (a decision without options: a guess of any word) is not read back, as
        # its words may not have been heard
        if decision.scoring and decision.options:
            try:  # a choice the rules refuse is refused with its reason, not read back first
                self.table.game.check(action)
            except IllegalAction as illegal:
                self.refuse(self.table.refusal(illegal, decision), decision, value)
                return False
            read_back = self.table.describe_choice(decision, value)
            answer = yield from self.confirm(self.lines("confirm", choice=read_back),
                                             self.table.grammar(decision, []))
            if isinstance(answer, str):  # "no, bear": bear instead, read back in turn
                return (yield from self.choose(decision, answer))
            if not answer:
                self.queue(self.lines("try_again"), self.table.prompt(decision))
                return False
        return self.act(action, decision)

    def act(self, action: Action, decision: Decision) -> bool:
        try:
            events = self.table.game.apply(action)
        except IllegalAction as illegal:
            self.refuse(self.table.refusal(illegal, decision), decision, action.choice)
            return False
        self.out.append(Append({"type": "action", "action": action.to_json()}))
        self.actions.append(action)
        self.table = self.table.reseated(self.actions)
        for event in events:
            if event.kind in ("round_scored", "game_over"):
                self.emit(stream.Score(event.facts) if event.kind == "round_scored"
                          else stream.GameOver(event.facts))
            elif event.kind in self.table.score_events:
                self.emit(stream.Score(event.facts, event.kind))
        self.queue(*self.table.narrate(events))
        return True

    def refuse(self, refusal: str, decision: Decision, value: str) -> None:
        """Say why the choice `value` is refused, and ask again; a half move ("discard") is
        asked for its rest alone, which the next answer may then say alone ("energy")."""
        if self.table.follow_ups(decision, value):
            self.half, self.rest_asked = value, refusal
            self.queue(refusal)
            return
        self.queue(refusal, self.table.prompt(decision))

    def confirm(self, question: str, corrections: Grammar | None = None
                ) -> Steps[bool | str]:
        """Ask a yes/no `question`; True for yes. The commands work here too: "undo" or "skip"
        is a no; a confirmed "quit game" raises TableQuit. With `corrections` (the options of
        the choice read back), a no that names one ("no, bear") gives that option's value."""
        grammar = confirm_grammar(corrections)
        self.queue(question)
        while True:
            intent, _ = yield from self.hear(grammar, None)
            if intent is None:
                self.ask_again(self.lines("confirm_options"))
            elif intent.name == "choose":
                return intent.value == "yes"
            elif intent.name == "correct":
                return intent.value
            elif intent.name in ("undo", "skip"):
                return False
            elif intent.name in TELLING:
                self.queue(*self.told(intent.name), *([] if intent.name == "repeat" else
                                                      [question]))
            elif (yield from (self.quit_game() if intent.name == "quit" else self.paused())):
                raise TableQuit
            else:
                self.queue(question)

    # -- what can be said at any time -------------------------------------------------------

    def command(self, name: str, decision: Decision) -> Steps[bool | None]:
        """Handle an always-available command; True/False ends the decision, None goes on."""
        if name in TELLING:
            self.queue(*self.told(name))
            if name != "repeat":  # what was last said already ends with the question
                self.queue(self.table.prompt(decision))
        elif name in ("pause", "quit"):
            if (yield from (self.paused() if name == "pause" else self.quit_game())):
                return False
            self.queue(self.table.prompt(decision))
        elif name == "undo":
            return self.undo(decision)
        elif name == "skip":
            return self.skip(decision)
        return None

    def told(self, name: str) -> list[str]:
        """What a command that only tells something says."""
        if name == "repeat":
            return self.last_items
        if name == "help":
            return [self.table.help(), self.lines("commands_hint")]
        if name == "scores":
            return [self.table.standings()]
        if name == "tally":
            return self.table.tally()
        if name == "status":
            return [self.table.status()]
        return []  # resume: nothing was paused; the question again

    def paused(self) -> Steps[bool]:
        """Wait for "resume" (True: the table quit instead)."""
        grammar = Grammar.build(command_groups(("resume", "quit")))
        self.queue(self.lines("paused"))
        while True:
            intent, _ = yield from self.hear(grammar, None, moment=PAUSED)
            if intent is None:
                continue  # table chatter while paused is nobody's business
            if intent.name == "quit":
                return (yield from self.quit_game())
            self.queue(self.lines("resumed"))
            return False

    def undo(self, decision: Decision) -> bool | None:
        if not self.actions:
            self.queue(self.lines("nothing_to_undo"), self.table.prompt(decision))
            return None
        undone = self.actions.pop()
        self.out.append(Append({"type": "undo"}))
        self.table.replay(self.actions)
        self.queue(self.lines("undone", what=self.table.describe_action(undone)))
        return True  # the loop asks the game again: the undone decision is pending once more

    def skip(self, decision: Decision) -> bool | None:
        action = self.table.skip_action(decision)
        if action is None:
            self.queue(self.lines("nothing_to_skip"), self.table.prompt(decision))
            return None
        return True if self.act(action, decision) else None

    def quit_game(self) -> Steps[bool]:
        """Ask whether to stop; True when the table stopped (the journal keeps the game)."""
        if not (yield from self.confirm(self.lines("quit_confirm"))):
            return False
        self.queue(self.lines("quitting"))
        self.flush()
        self.emit(stream.Quit())
        return True
