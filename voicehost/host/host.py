"""The game master: asks the game what is pending, says it, listens, and moves the game on.

The same host runs in text mode and in audio mode; only the Voice differs. Every accepted
choice is journaled (fsynced) before the host says anything about it, so a kill at any point
loses nothing the table was told had been recorded.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from voicehost.games.base import Action, Decision, IllegalAction
from voicehost.host.clips import Playback, load_clip, said_from, save_clip
from voicehost.host.events import EventStream
from voicehost.host.table import Table
from voicehost.intents.grammar import Grammar, Intent
from voicehost.prompts_dir import load_yaml
from voicehost.store.journal import Journal
from voicehost.voice import EndOfInput, Hearing, Voice

MISSES_BEFORE_OPTIONS = 1  # after this many misses in a row the host reads the options aloud
# While the room stays loud, the host asks for quiet before one decision in this many (and
# after every miss the noise caused): asked before every question, the table stops listening.
LOUD_DECISIONS_PER_ASK = 3


@dataclass
class Outcome:
    finished: bool  # False when the table quit (or input ended) before the game was over
    scores: list[int]
    winners: list[int]


@dataclass(frozen=True)
class Timer:
    """A decision that also ends by itself (a study timer): `choice` is taken when `seconds`
    have passed; each (seconds left, line) warning is said on the way."""

    seconds: float
    choice: str
    done: str  # said when time is up
    warnings: list[tuple[float, str]] = field(default_factory=list)


def command_groups(names: tuple[str, ...] | None = None) -> list[tuple[Intent, list[str]]]:
    commands = load_yaml("common/intents.yaml")["commands"]
    return [(Intent(name), templates) for name, templates in commands.items()
            if names is None or name in names]


def decision_grammar(table: Table, decision: Decision) -> Grammar:
    """What the host accepts while `decision` is pending: its options and every command.
    A table may hear a decision its own way (`grammar`, e.g. a deck number read digit by digit);
    it returns None for the decisions `choices` covers."""
    own = getattr(table, "grammar", None)
    grammar = own(decision, command_groups()) if own is not None else None
    return grammar or Grammar.build(table.choices(decision) + command_groups())


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


def confirm_grammar() -> Grammar:
    confirm = load_yaml("common/intents.yaml")["confirm"]
    return Grammar.build([(Intent("choose", answer), templates)
                          for answer, templates in confirm.items()]
                         + command_groups(("repeat",)))


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
        self.last_said = ""
        self.last_items: list[str] = []  # what was last said, recordings included (repeat)
        self.secrets_shown: dict | None = None
        self.between: tuple[Intent, ...] = ()  # the options the last hearing wavered between
        self.loud_decisions = 0  # decisions in a row that began in a room too loud

    # -- speaking ---------------------------------------------------------------------------

    def queue(self, *lines: str) -> None:
        self.queued.extend(line for line in lines if line)

    def flush(self) -> None:
        if not self.queued:
            return
        items, self.queued = self.queued, []
        text = " ".join(items)
        clips = [item.clip for item in items if isinstance(item, Playback)]
        self.events.emit("say", text=text, **({"clips": clips} if clips else {}))
        if clips:
            self._say_with_recordings(items)
        else:
            self.voice.say(text)
        self.last_said = text
        self.last_items = items

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
             timeout_s: float | None = None) -> tuple[Intent | None, str]:
        """Say what is queued, listen once. (None, problem) when nothing was understood:
        "silence" (nobody spoke), "too_loud" (the room drowned the player), "wavering" (the
        engine heard one of `self.between`'s options but could not tell which) or
        "not_understood"."""
        self._listening(decision)
        hearing = self.voice.listen(grammar.phrases, timeout_s)
        if hearing is None:
            self.events.emit("heard", text="", intent=None, confidence=0.0)
            return None, "silence"
        intent, snap = grammar.match(hearing.text)
        self.between = () if intent is not None else wavering(grammar, hearing, decision)
        self.events.emit("heard", text=hearing.text,
                         intent=None if intent is None else [intent.name, intent.value],
                         confidence=round(hearing.confidence * snap, 3),
                         decode_seconds=round(hearing.decode_seconds, 4),
                         response_seconds=round(hearing.response_seconds, 4),
                         **({"between": [i.value for i in self.between]} if self.between
                            else {}),
                         **({} if hearing.snr_db is None
                            else {"snr_db": round(hearing.snr_db, 1)}))
        if intent is not None:
            return intent, ""
        if self.between:
            return None, "wavering"
        return None, "too_loud" if self.voice.too_loud() else "not_understood"

    def separate(self, grammar: Grammar, decision: Decision) -> tuple[Intent | None, str]:
        """Ask the one question that tells the options in `self.between` apart ("Owl or
        bear?") and listen for one of them (or a command)."""
        first, second = (grammar.spoken(intent) for intent in self.between[:2])
        first = first[:1].upper() + first[1:]
        narrowed = Grammar({phrase: intent for phrase, intent in grammar.intents.items()
                            if intent in self.between[:2] or intent.name != "choose"})
        self.queue(self.lines("which_of", first=first, second=second))
        return self.hear(narrowed, decision)

    def _listening(self, decision: Decision | None) -> None:
        self.flush()
        facts = {"player": None, "decision": "confirm", "options": ["yes", "no"]}
        if decision is not None:
            facts = {"player": decision.decider, "decision": decision.kind,
                     "options": list(decision.options), **self.table.context(decision)}
            if decision.kind in getattr(self.table, "secret_options", ()):
                facts["secret"] = True  # a display must not show these options
        self.events.emit("listen", **facts)

    def hear_free(self, grammar: Grammar, decision: Decision) -> tuple[Intent | None, str]:
        """Listen once to free speech (a decision without options, e.g. a clue). Commands
        still work; anything else is the choice: its words and its recording, kept."""
        self._listening(decision)
        recording = self.voice.record(grammar.phrases)
        if recording is None:
            self.events.emit("heard", text="", intent=None, confidence=0.0)
            return None, "silence"
        command, snap = grammar.match(recording.hearing.text)
        if command is not None and snap == 1.0:
            intent = command
            facts = {"text": recording.hearing.text,
                     "confidence": round(recording.hearing.confidence, 3)}
        else:
            clip = ""
            if recording.pcm:
                clip = save_clip(self.journal.path, recording.pcm, f"seat{decision.decider}")
            said = said_from(recording.transcript, recording.transcript_confidence, clip)
            if not said.words and not said.clip:
                self.events.emit("heard", text=recording.transcript, intent=None,
                                 confidence=0.0)
                return None, "not_understood"
            intent = Intent("choose", said.choice())
            facts = {"text": said.words, "clip": clip,
                     "confidence": round(recording.transcript_confidence, 3)}
        self.events.emit("heard", intent=[intent.name, intent.value],
                         response_seconds=round(recording.hearing.response_seconds, 4),
                         **facts)
        return intent, ""

    # -- the game loop ----------------------------------------------------------------------

    def run(self, resumed: bool = False) -> Outcome:
        try:
            if resumed:
                self.queue(self.lines("welcome_back", game=self.table.title))
                decision = self.table.game.pending()
                if decision is not None:
                    self.queue(*self.table.recap(decision))
                else:
                    self.queue(self.lines("already_over"))
                    self.say_the_result_again()
            else:
                self.queue(*self.table.opening())
            while (decision := self.table.game.pending()) is not None:
                self.mark_secrets()
                if not self.take(decision):
                    return self._outcome(finished=False)
            self.flush()
            return self._outcome(finished=True)
        except EndOfInput:
            self.queue(self.lines("input_ended"))
            self.flush()
            self.events.emit("saved", reason="end_of_input")
            return self._outcome(finished=False)

    def mark_secrets(self) -> None:
        """Tell the event stream what the host knows and must not say (printed cards), once,
        flagged `secret` so a display hides it. A table without secrets has no `secrets`."""
        secrets = getattr(self.table, "secrets", None)
        facts = secrets() if secrets is not None else None
        if facts and facts != self.secrets_shown:
            self.events.emit("secrets", secret=True, **facts)
            self.secrets_shown = facts

    def say_the_result_again(self) -> None:
        """A finished game, resumed: its end as it was said and streamed the first time."""
        over = [e for e in self.table.replay(self.actions) if e.kind == "game_over"]
        for event in over:
            self.events.emit("game_over", **event.facts)
        self.queue(self.table.standings(), *self.table.narrate(over))

    def _outcome(self, finished: bool) -> Outcome:
        game = self.table.game
        return Outcome(finished, list(game.scores), game.winners() if finished else [])

    def take(self, decision: Decision) -> bool:
        """Settle one decision. False when the table quit."""
        grammar = decision_grammar(self.table, decision)
        self.queue(self.table.prompt(decision))
        timer = getattr(self.table, "timer", lambda _: None)(decision)
        if timer is not None:
            return self.timed(decision, grammar, timer)
        misses = 0
        self.loud_decisions = self.loud_decisions + 1 if self.voice.too_loud() else 0
        if self.loud_decisions % LOUD_DECISIONS_PER_ASK == 1:
            self.queue(self.quiet_please(decision))
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
                    self.queue(self.quiet_please(decision), self.table.prompt(decision))
                    continue
                self.queue(self.lines("not_understood" if problem == "wavering" else problem))
                if misses > MISSES_BEFORE_OPTIONS:
                    self.queue(self.lines("options", options=self.table.options_spoken(decision)))
                self.queue(self.table.prompt(decision))
                continue
            misses = 0
            if intent.name == "choose":
                if self.choose(decision, intent.value):
                    return True
                continue
            outcome = self.command(intent.name, decision)
            if outcome is not None:
                return outcome

    def quiet_please(self, decision: Decision) -> str:
        if decision.decider is None:
            return self.lines("quiet_please_all")
        return self.lines("quiet_please", name=self.table.name_of(decision.decider))

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
            intent, _ = self.hear(grammar, decision, timeout_s=due)
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
        # a choice outside the options is refused with its reason, not read back first
        if (decision.scoring and value in decision.options
                and not self.confirm(self.table.describe_choice(decision, value))):
            self.queue(self.lines("try_again"), self.table.prompt(decision))
            return False
        return self.act(self.table.action_for(decision, value), decision)

    def act(self, action: Action, decision: Decision) -> bool:
        try:
            events = self.table.game.apply(action)
        except IllegalAction as illegal:
            self.queue(self.table.refusal(illegal, decision), self.table.prompt(decision))
            return False
        self.journal.append({"type": "action", "action": action.to_json()})
        self.actions.append(action)
        for event in events:
            if event.kind in ("round_scored", "game_over"):
                self.events.emit("score" if event.kind == "round_scored" else "game_over",
                                 **event.facts)
            elif event.kind in getattr(self.table, "score_events", ()):
                self.events.emit("score", what=event.kind, **event.facts)
        self.queue(*self.table.narrate(events))
        return True

    def confirm(self, choice: str) -> bool:
        grammar = confirm_grammar()
        self.queue(self.lines("confirm", choice=choice))
        while True:
            intent, _ = self.hear(grammar, None)
            if intent is not None and intent.name == "choose":
                return intent.value == "yes"
            if intent is not None and intent.name == "repeat":
                self.queue(*self.last_items)
                continue
            self.queue(self.lines("confirm_options"))

    # -- what can be said at any time -------------------------------------------------------

    def command(self, name: str, decision: Decision) -> bool | None:
        """Handle an always-available command; True/False ends the decision, None goes on."""
        if name == "repeat":
            self.queue(*self.last_items)
        elif name == "help":
            self.queue(self.table.help(), self.lines("commands_hint"),
                       self.table.prompt(decision))
        elif name == "scores":
            self.queue(self.table.standings(), self.table.prompt(decision))
        elif name == "tally":
            told = self.table.tally()  # a list when it plays recordings back
            self.queue(*(told if isinstance(told, list) else [told]), self.table.prompt(decision))
        elif name == "status":
            self.queue(self.table.status(), self.table.prompt(decision))
        elif name == "pause":
            return self.pause(decision)
        elif name == "resume":
            self.queue(self.table.prompt(decision))
        elif name == "undo":
            return self.undo(decision)
        elif name == "skip":
            return self.skip(decision)
        elif name == "quit":
            return self.quit(decision)
        return None

    def pause(self, decision: Decision) -> bool | None:
        grammar = Grammar.build(command_groups(("resume", "quit")))
        self.queue(self.lines("paused"))
        while True:
            intent, _ = self.hear(grammar, None)
            if intent is None:
                continue  # table chatter while paused is nobody's business
            if intent.name == "quit":
                return self.quit(decision)
            self.queue(self.lines("resumed"), self.table.prompt(decision))
            return None

    def undo(self, decision: Decision) -> bool | None:
        if not self.actions:
            self.queue(self.lines("nothing_to_undo"), self.table.prompt(decision))
            return None
        undone = self.actions.pop()
        self.journal.append({"type": "undo"})
        self.table.replay(self.actions)
        self.queue(self.lines("undone", what=self.describe_action(undone)))
        return True  # the loop asks the game again: the undone decision is pending once more

    def describe_action(self, action: Action) -> str:
        describe = getattr(self.table, "describe_action", None)
        if describe is not None:
            return describe(action)
        if action.player is None:
            return action.kind.replace("_", " ")
        return f"{self.table.seats.names[action.player]}, {action.kind} {self._spoken(action)}"

    def _spoken(self, action: Action) -> str:
        if action.kind == "point":
            return self.table.seats.names[int(action.choice)]
        return action.choice

    def skip(self, decision: Decision) -> bool | None:
        action = self.table.skip_action(decision)
        if action is None:
            self.queue(self.lines("nothing_to_skip"), self.table.prompt(decision))
            return None
        return True if self.act(action, decision) else None

    def quit(self, decision: Decision) -> bool | None:
        if self.confirm(self.lines("quit_confirm")):
            self.queue(self.lines("quitting"))
            self.flush()
            self.events.emit("quit")
            return False
        self.queue(self.table.prompt(decision))
        return None
