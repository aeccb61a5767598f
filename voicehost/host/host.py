"""The game master: asks the game what is pending, says it, listens, and moves the game on.

The same host runs in text mode and in audio mode; only the Voice differs. Every accepted
choice is journaled (fsynced) before the host says anything about it, so a kill at any point
loses nothing the table was told had been recorded.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from voicehost.games.base import Action, Decision, IllegalAction
from voicehost.host.clips import Playback, load_clip, said_from, save_clip
from voicehost.host.events import (
    EventStream,
    GameOver,
    Heard,
    Listen,
    Quit,
    Saved,
    Say,
    Score,
    Secrets,
)
from voicehost.host.table import Table, Timer
from voicehost.intents.grammar import NO, Grammar, Intent, normalize, said_signs
from voicehost.prompts_dir import load_yaml
from voicehost.store.journal import Journal
from voicehost.voice import EndOfInput, Hearing, MicrophoneLost, Voice

Caught = TypeVar("Caught")  # what a voice hands back: a Hearing or a Recording (or None)
MISSES_BEFORE_OPTIONS = 1  # after this many misses in a row the host reads the options aloud
# While the room stays loud, the host asks for quiet before one decision in this many (and
# after every miss the noise caused): asked before every question, the table stops listening.
LOUD_DECISIONS_PER_ASK = 3


@dataclass
class Outcome:
    finished: bool  # False when the table quit (or input ended) before the game was over
    scores: list[int]
    winners: list[int]


def command_groups(names: tuple[str, ...] | None = None) -> list[tuple[Intent, list[str]]]:
    commands = load_yaml("common/intents.yaml")["commands"]
    return [(Intent(name), templates) for name, templates in commands.items()
            if names is None or name in names]


def decision_grammar(table: Table, decision: Decision) -> Grammar:
    """What the host accepts while `decision` is pending: its options and every command."""
    return table.grammar(decision, command_groups())


def wavering(grammar: Grammar, hearing: Hearing, decision: Decision | None
             ) -> tuple[Intent, ...]:
    """The decision's options the engine wavered between (best first), when there are two or
    more; else ()."""
    if decision is None:
        return ()
    options: dict[Intent, None] = {}
    for phrase, _ in hearing.alternatives:
        intent = grammar.intents.get(phrase)
        if intent is not None and intent.name == "choose" and intent.value in decision.options:
            options[intent] = None
    return tuple(options) if len(options) >= 2 else ()


def spell_numbers(text: str) -> str:
    """Typed digits as the words the phrases use: "player 3" is "player three". A sign or a
    decimal point is said too ("minus one", "one point five"): neither is a whole number."""
    words = {str(n): word for n, word in enumerate(load_yaml("common/tokens.yaml")["numbers"], 1)}
    return " ".join(words.get(token, token) for token in normalize(said_signs(text)).split())


def phrases_for(grammar: Grammar, options: tuple[str, ...]) -> dict[str, str]:
    """Each option's shortest phrase (what a display would show: "say owl"). An option is a
    choice's value, or, for a moment that only a command ends (paused), the command."""
    shortest: dict[str, str] = {}
    for phrase, intent in grammar.intents.items():
        option = intent.value if intent.name == "choose" else intent.name
        if option in options and len(phrase) < len(shortest.get(option, phrase + " ")):
            shortest[option] = phrase
    return {option: shortest[option] for option in options if option in shortest}


def confirm_grammar(corrections: Grammar | None = None) -> Grammar:
    """Yes or no, and every command: a question never stops the table asking for the rules,
    the scores, a pause or the end of the game. With `corrections` (the options of the choice
    read back), "no <option>" corrects it; options that are themselves a yes or a no are not
    corrections."""
    confirm = load_yaml("common/intents.yaml")["confirm"]
    grammar = Grammar.build([(Intent("choose", answer), templates)
                             for answer, templates in confirm.items()] + command_groups())
    if corrections is None:
        return grammar
    options = Grammar({phrase: intent for phrase, intent in corrections.intents.items()
                       if intent.name == "choose" and grammar.match(phrase)[0] is None})
    no = grammar.spoken(NO)
    said = {f"{no} {options.spoken(intent)}": Intent("correct", intent.value)
            for intent in dict.fromkeys(options.intents.values())}
    corrected = Grammar({**grammar.intents, **said})
    corrected.corrections = options
    return corrected


def roll_call_grammar() -> Grammar:
    """A seat answering the roll call, and every command."""
    answer = load_yaml("common/intents.yaml")["roll_call"]
    return Grammar.build([(Intent("choose", "in"), answer)] + command_groups())


class TableQuit(Exception):
    """The table confirmed "quit game" while answering another question."""


# What the host is waiting for when no decision of the game is pending: (kind, options).
CONFIRMING = ("confirm", ("yes", "no"))
PAUSED = ("paused", ("resume",))
ROLL_CALL = ("roll_call", ("in",))
TRIES_PER_SEAT = 2  # the roll call asks a seat this many times before it says it can't hear
TELLING = ("repeat", "help", "scores", "tally", "status", "resume")  # answered, then re-asked


class Host:
    def __init__(self, table: Table, voice: Voice, journal: Journal, events: EventStream,
                 actions: list[Action] | None = None) -> None:
        self.table = table
        self.voice = voice
        self.journal = journal
        self.events = events
        self.actions = list(actions or [])
        self.lines = table.lines
        self.queued: list[str] = []
        self.last_items: list[str] = []  # what was last said, recordings included (repeat)
        self.asking_again = False  # what is queued only re-asks: "repeat" says the question
        self.called = False  # the roll call is done
        self.opened = True  # the table has been told what it plays
        self.secrets_shown: dict | None = None
        self.between: tuple[Intent, ...] = ()  # the options the last hearing wavered between
        self.loud_decisions = 0  # decisions in a row that began in a room too loud
        self.waited_for_microphone = 0.0  # seconds, in all: a study timer stops meanwhile

    # -- speaking ---------------------------------------------------------------------------

    def queue(self, *lines: str) -> None:
        self.queued.extend(line for line in lines if line)

    def flush(self) -> None:
        if not self.queued:
            return
        items, self.queued = self.queued, []
        text = " ".join(items)
        clips = [item.clip for item in items if isinstance(item, Playback)]
        self.events.emit(Say(text, clips or None))
        if clips:
            self._say_with_recordings(items)
        else:
            self.voice.say(text)
        if not self.asking_again:
            self.last_items = items
        self.asking_again = False

    def ask_again(self, *lines: str) -> None:
        """Queue `lines` that only re-ask (after a miss): "repeat" still says the question as
        it was first asked, not "Sorry, I didn't get that"."""
        self.queue(*lines)
        self.asking_again = True

    def _say_with_recordings(self, items: list[str]) -> None:
        """Say the text up to each recording (its caption included), then play it."""
        said: list[str] = []
        for item in items:
            said.append(item)
            if not isinstance(item, Playback):
                continue
            pcm = load_clip(self.journal.path, item.clip)
            if pcm is None:
                said.append(item.lost)
                continue
            self.voice.say(" ".join(said))
            said = []
            self.voice.play(pcm)
        if said:
            self.voice.say(" ".join(said))

    def hear(self, grammar: Grammar, decision: Decision | None,
             timeout_s: float | None = None,
             moment: tuple[str, tuple[str, ...]] = CONFIRMING,
             player: int | None = None) -> tuple[Intent | None, str]:
        """Say what is queued, listen once. (None, problem) when nothing was understood:
        "silence" (nobody spoke), "too_loud" (the room drowned the player), "wavering" (the
        engine heard one of `self.between`'s options but could not tell which) or
        "not_understood". `moment`: what is asked when `decision` is None, and of `player`."""
        self._listening(decision, grammar, moment, player)
        hearing = self._through_losses(lambda: self.voice.listen(grammar.phrases, timeout_s),
                                       decision, grammar, moment, player)
        if hearing is None:
            self.events.emit(Heard("", None, 0.0))
            return None, "silence"
        intent, snap = grammar.match(spell_numbers(hearing.text))
        self.between = () if intent is not None else wavering(grammar, hearing, decision)
        self.events.emit(Heard(
            hearing.text, None if intent is None else [intent.name, intent.value],
            round(hearing.confidence * snap, 3), round(hearing.decode_seconds, 4),
            round(hearing.response_seconds, 4),
            between=[i.value for i in self.between] or None,
            snr_db=None if hearing.snr_db is None else round(hearing.snr_db, 1)))
        if intent is not None:
            return intent, ""
        if self.between:
            return None, "wavering"
        return None, "too_loud" if self.voice.too_loud() else "not_understood"

    def _through_losses(self, listen: Callable[[], Caught], decision: Decision | None,
                        grammar: Grammar, moment: tuple[str, tuple[str, ...]] = CONFIRMING,
                        player: int | None = None) -> Caught:
        """`listen()`; while the microphone is lost, say so, wait for it and ask again:
        nothing is lost."""
        while True:
            try:
                return listen()
            except MicrophoneLost:
                asked = self.last_items
                self.queue(self.lines("microphone_lost"))
                self.flush()
                began = time.monotonic()
                self.voice.wait_for_microphone()
                self.waited_for_microphone += time.monotonic() - began
                self.queue(self.lines("microphone_back"),
                           *(asked if decision is None else [self.table.prompt(decision)]))
                self._listening(decision, grammar, moment, player)

    def separate(self, grammar: Grammar, decision: Decision) -> tuple[Intent | None, str]:
        """Ask the one question that tells the options in `self.between` apart ("Owl or
        bear?") and listen for one of them (or a command)."""
        first, second = (grammar.spoken(intent) for intent in self.between[:2])
        first = first[:1].upper() + first[1:]
        narrowed = Grammar({phrase: intent for phrase, intent in grammar.intents.items()
                            if intent in self.between[:2] or intent.name != "choose"})
        self.queue(self.lines("which_of", first=first, second=second))
        return self.hear(narrowed, decision)

    def _listening(self, decision: Decision | None, grammar: Grammar,
                   moment: tuple[str, tuple[str, ...]] = CONFIRMING,
                   player: int | None = None) -> None:
        self.flush()
        if not self.events.wanted:
            return
        if decision is None:
            kind, options = moment
            self.events.emit(Listen(player, kind, list(options), phrases_for(grammar, options)))
            return
        self.events.emit(Listen(decision.decider, decision.kind, list(decision.options),
                                phrases_for(grammar, decision.options) or None,
                                self.table.context(decision),
                                decision.kind in self.table.secret_options or None))

    def hear_free(self, grammar: Grammar, decision: Decision) -> tuple[Intent | None, str]:
        """Listen once to free speech (a decision without options, e.g. a clue). Commands
        still work; anything else is the choice: its words and its recording, kept."""
        self._listening(decision, grammar)
        recording = self._through_losses(lambda: self.voice.record(grammar.phrases), decision,
                                         grammar)
        if recording is None:
            self.events.emit(Heard("", None, 0.0))
            return None, "silence"
        command, snap = grammar.match(recording.hearing.text)
        response = round(recording.hearing.response_seconds, 4)
        if command is not None and snap == 1.0:
            self.events.emit(Heard(recording.hearing.text, [command.name, command.value],
                                   round(recording.hearing.confidence, 3),
                                   response_seconds=response))
            return command, ""
        clip = ""
        if recording.pcm:
            clip = save_clip(self.journal.path, recording.pcm, f"seat{decision.decider}")
        said = said_from(recording.transcript, recording.transcript_confidence, clip)
        if not said.words and not said.clip:
            self.events.emit(Heard(recording.transcript, None, 0.0))
            return None, "not_understood"
        intent = Intent("choose", said.choice())
        self.events.emit(Heard(said.words, [intent.name, intent.value],
                               round(recording.transcript_confidence, 3),
                               response_seconds=response, clip=clip))
        return intent, ""

    # -- the game loop ----------------------------------------------------------------------

    def run(self, resumed: bool = False) -> Outcome:
        try:
            # a deck that tells how many play is read before the table is introduced
            self.opened = not (self.table.seated_by_deck and self.table.waiting_for_deck())
            if resumed:
                self.queue(self.lines("welcome_back", game=self.table.title))
                decision = self.table.game.pending()
                if decision is not None:
                    if not self.table.waiting_for_deck():
                        self.roll_call()  # who is who, before where we are
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
                        self.roll_call()
                if not self.take(decision):
                    return self._outcome(finished=False)
            self.flush()
            return self._outcome(finished=True)
        except TableQuit:
            return self._outcome(finished=False)
        except EndOfInput:
            self.queue(self.lines("input_ended"))
            self.flush()
            self.events.emit(Saved("end_of_input"))
            return self._outcome(finished=False)

    def mark_secrets(self) -> None:
        """Tell the event stream what the host knows and must not say (printed cards), once,
        flagged `secret` so a display hides it."""
        facts = self.table.secrets()
        if facts and facts != self.secrets_shown:
            self.events.emit(Secrets(facts))
            self.secrets_shown = facts

    def say_the_result_again(self) -> None:
        """A finished game, resumed: its end as it was said and streamed the first time."""
        over = [e for e in self.table.replay(self.actions) if e.kind == "game_over"]
        for event in over:
            self.events.emit(GameOver(event.facts))
        self.queue(self.table.standings(), *self.table.narrate(over))

    def _outcome(self, finished: bool) -> Outcome:
        game = self.table.game
        return Outcome(finished, list(game.scores), game.winners() if finished else [])

    def take(self, decision: Decision) -> bool:
        """Settle one decision. False when the table quit."""
        grammar = decision_grammar(self.table, decision)
        self.queue(self.table.prompt(decision))
        timer = self.table.timer(decision)
        if timer is not None:
            return self.timed(decision, grammar, timer)
        misses = 0
        self.loud_decisions = self.loud_decisions + 1 if self.voice.too_loud() else 0
        if self.loud_decisions % LOUD_DECISIONS_PER_ASK == 1:
            self.queue(self.quiet_please(decision.decider))
        while True:
            if decision.options:
                intent, problem = self.hear(grammar, decision)
                if problem == "wavering":
                    intent, problem = self.separate(grammar, decision)
            else:
                intent, problem = self.hear_free(grammar, decision)
            if intent is None:
                misses += 1
                if problem == "too_loud":  # no option list read into the noise
                    self.ask_again(self.quiet_please(decision.decider),
                                   self.table.ask_again(decision))
                    continue
                self.ask_again(self.lines("not_understood" if problem == "wavering" else problem))
                if misses > MISSES_BEFORE_OPTIONS:
                    self.queue(self.lines("options", options=self.table.options_spoken(decision)))
                self.queue(self.table.ask_again(decision))
                continue
            misses = 0
            if intent.name == "choose":
                if self.choose(decision, intent.value):
                    return True
                continue
            outcome = self.command(intent.name, decision)
            if outcome is not None:
                return outcome

    def roll_call(self) -> None:
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
                intent, problem = self.hear(grammar, None, moment=ROLL_CALL, player=seat)
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
                        self.paused() if intent.name == "pause" else self.quit_game()):
                    raise TableQuit
                self.queue(self.lines("roll_call_again", name=name))
            else:
                unheard.append(seat)
                self.queue(self.lines("roll_call_unheard", name=name))
        self.queue(self.lines("roll_call_done") if not unheard else
                   self.lines("roll_call_done_unheard", names=self.table.names_of(unheard)))

    def quiet_please(self, seat: int | None) -> str:
        if seat is None:
            return self.lines("quiet_please_all")
        return self.lines("quiet_please", name=self.table.name_of(seat))

    def timed(self, decision: Decision, grammar: Grammar, timer: Timer) -> bool:
        """Settle a decision that time also settles: listen until the next warning is due,
        say it, listen on; a choice or a command ends the wait early (pause stops the clock)."""
        self.flush()  # the clock starts once the table has heard how long it has
        deadline = time.monotonic() + timer.seconds
        warnings = sorted(timer.warnings, reverse=True)
        while True:
            left = deadline - time.monotonic()
            while warnings and warnings[0][0] >= left:
                self.queue(warnings.pop(0)[1])
            if left <= 0:
                self.queue(timer.done)
                return self.act(self.table.action_for(decision, timer.choice), decision)
            due = left - (warnings[0][0] if warnings else 0.0)
            waited = self.waited_for_microphone
            intent, _ = self.hear(grammar, decision, timeout_s=due)
            deadline += self.waited_for_microphone - waited
            if intent is None:
                continue  # silence or chatter: the clock runs on
            if intent.name == "choose":
                if self.choose(decision, intent.value):
                    return True
                continue
            began = time.monotonic()
            outcome = self.command(intent.name, decision)
            if outcome is not None:
                return outcome
            if intent.name == "pause":
                deadline += time.monotonic() - began

    def choose(self, decision: Decision, value: str) -> bool:
        """Apply a choice (confirmed first if it scores). True when the game moved on."""
        refusal = self.table.refuse_choice(decision, value)
        if refusal is not None:
            self.queue(refusal, self.table.prompt(decision))
            return False
        action = self.table.action_for(decision, value)
        # free speech (a decision without options: a guess of any word) is not read back, as
        # its words may not have been heard
        if decision.scoring and decision.options:
            try:  # a choice the rules refuse is refused with its reason, not read back first
                copy.deepcopy(self.table.game).apply(action)
            except IllegalAction as illegal:
                self.queue(self.table.refusal(illegal, decision), self.table.prompt(decision))
                return False
            read_back = self.table.describe_choice(decision, value)
            answer = self.confirm(self.lines("confirm", choice=read_back),
                                  self.table.grammar(decision, []))
            if isinstance(answer, str):  # "no, bear": bear instead, read back in turn
                return self.choose(decision, answer)
            if not answer:
                self.queue(self.lines("try_again"), self.table.prompt(decision))
                return False
        return self.act(action, decision)

    def act(self, action: Action, decision: Decision) -> bool:
        try:
            events = self.table.game.apply(action)
        except IllegalAction as illegal:
            self.queue(self.table.refusal(illegal, decision), self.table.prompt(decision))
            return False
        self.journal.append({"type": "action", "action": action.to_json()})
        self.actions.append(action)
        self.table = self.table.reseated(self.actions)
        for event in events:
            if event.kind in ("round_scored", "game_over"):
                self.events.emit(Score(event.facts) if event.kind == "round_scored"
                                 else GameOver(event.facts))
            elif event.kind in self.table.score_events:
                self.events.emit(Score(event.facts, event.kind))
        self.queue(*self.table.narrate(events))
        return True

    def confirm(self, question: str, corrections: Grammar | None = None) -> bool | str:
        """Ask a yes/no `question`; True for yes. The commands work here too: "undo" or "skip"
        is a no; a confirmed "quit game" raises TableQuit. With `corrections` (the options of
        the choice read back), a no that names one ("no, bear") gives that option's value."""
        grammar = confirm_grammar(corrections)
        self.queue(question)
        while True:
            intent, _ = self.hear(grammar, None)
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
            elif self.quit_game() if intent.name == "quit" else self.paused():
                raise TableQuit
            else:
                self.queue(question)

    # -- what can be said at any time -------------------------------------------------------

    def command(self, name: str, decision: Decision) -> bool | None:
        """Handle an always-available command; True/False ends the decision, None goes on."""
        if name in TELLING:
            self.queue(*self.told(name))
            if name != "repeat":  # what was last said already ends with the question
                self.queue(self.table.prompt(decision))
        elif name in ("pause", "quit"):
            if self.paused() if name == "pause" else self.quit_game():
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

    def paused(self) -> bool:
        """Wait for "resume" (True: the table quit instead)."""
        grammar = Grammar.build(command_groups(("resume", "quit")))
        self.queue(self.lines("paused"))
        while True:
            intent, _ = self.hear(grammar, None, moment=PAUSED)
            if intent is None:
                continue  # table chatter while paused is nobody's business
            if intent.name == "quit":
                return self.quit_game()
            self.queue(self.lines("resumed"))
            return False

    def undo(self, decision: Decision) -> bool | None:
        if not self.actions:
            self.queue(self.lines("nothing_to_undo"), self.table.prompt(decision))
            return None
        undone = self.actions.pop()
        self.journal.append({"type": "undo"})
        self.table.replay(self.actions)
        self.queue(self.lines("undone", what=self.table.describe_action(undone)))
        return True  # the loop asks the game again: the undone decision is pending once more

    def skip(self, decision: Decision) -> bool | None:
        action = self.table.skip_action(decision)
        if action is None:
            self.queue(self.lines("nothing_to_skip"), self.table.prompt(decision))
            return None
        return True if self.act(action, decision) else None

    def quit_game(self) -> bool:
        """Ask whether to stop; True when the table stopped (the journal keeps the game)."""
        if not self.confirm(self.lines("quit_confirm")):
            return False
        self.queue(self.lines("quitting"))
        self.flush()
        self.events.emit(Quit())
        return True
