"""How the dialogue listens: once per answer, through a lost microphone, to options or to free
speech, with the one question that tells two wavering options apart."""

from __future__ import annotations

from typing import TYPE_CHECKING

from voicehost.games.base import Decision
from voicehost.host import events as stream
from voicehost.host.clips import said_from
from voicehost.host.exchange import (
    Cue,
    DialoguePart,
    Heard,
    InputEnded,
    Keep,
    Listen,
    Now,
    Silence,
    Steps,
    WaitForMicrophone,
)
from voicehost.host.grammars import phrases_for, spell_numbers, wavering
from voicehost.intents.grammar import Grammar, Intent
from voicehost.voice import EndOfInput

if TYPE_CHECKING:
    from voicehost.host.dialogue import Dialogue

# What the host is waiting for when no decision of the game is pending: (kind, options).
CONFIRMING = ("confirm", ("yes", "no"))
PAUSED = ("paused", ("resume",))
ROLL_CALL = ("roll_call", ("in",))


class Listening(DialoguePart):
    """Says what is queued, then listens: it streams what it listens for and what it heard,
    and remembers how loud the room was and what it last listened for."""

    def __init__(self, dialogue: Dialogue) -> None:
        super().__init__(dialogue)
        self.too_loud = False  # the room, as last heard
        self.moment = ""  # what the host waits for now: a decision's kind, "confirm"...
        self.between: tuple[Intent, ...] = ()  # the options the last hearing wavered between
        self.waited_for_microphone = 0.0  # seconds, in all: a study timer stops meanwhile

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
            self.speech.emit(stream.HeardEvent("", None, 0.0))
            return None, "silence"
        hearing = answer.hearing
        intent, snap = grammar.match(spell_numbers(hearing.text))
        self.between = () if intent is not None else wavering(grammar, hearing, decision)
        self.speech.emit(stream.HeardEvent(
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
            asked = self.speech.last_items
            self.speech.queue(self.lines("microphone_lost"))
            self.speech.flush()
            yield Now()
            began = self.dialogue.now
            yield WaitForMicrophone()
            self.waited_for_microphone += self.dialogue.now - began
            self.speech.queue(self.lines("microphone_back"), *(
                asked if decision is None else [self.dialogue.table.questions.prompt(decision)]))
            self._listening(decision, grammar, moment, player)

    def separate(self, grammar: Grammar, decision: Decision
                 ) -> Steps[tuple[Intent | None, str]]:
        """Ask the one question that tells the options in `self.between` apart ("Owl or
        bear?") and listen for one of them (or a command)."""
        first, second = (grammar.spoken(intent) for intent in self.between[:2])
        first = first[:1].upper() + first[1:]
        narrowed = Grammar({phrase: intent for phrase, intent in grammar.intents.items()
                            if intent in self.between[:2] or intent.name != "choose"})
        self.speech.queue(self.lines("which_of", first=first, second=second))
        return (yield from self.hear(narrowed, decision))

    def _listening(self, decision: Decision | None, grammar: Grammar,
                   moment: tuple[str, tuple[str, ...]] = CONFIRMING,
                   player: int | None = None) -> None:
        self.speech.flush()
        self.moment = moment[0] if decision is None else decision.kind
        if not self.dialogue.streaming:
            return
        if decision is None:
            kind, options = moment
            self.speech.emit(stream.ListenEvent(player, kind, list(options),
                                                phrases_for(grammar, options)))
            return
        table = self.dialogue.table
        self.speech.emit(stream.ListenEvent(decision.decider, decision.kind,
                                            list(decision.options),
                                            phrases_for(grammar, decision.options) or None,
                                            table.questions.context(decision),
                                            decision.kind in table.secret_options or None))

    def hear_free(self, grammar: Grammar, decision: Decision
                  ) -> Steps[tuple[Intent | None, str]]:
        """Listen once to free speech (a decision without options, e.g. a clue). Commands
        still work; anything else is the choice: its words and its recording, kept. A chime
        after the question says when to speak: the recording keeps what is said from then."""
        self.speech.queue(Cue("chime"))
        self._listening(decision, grammar)
        answer = yield from self._through_losses(Listen(grammar.phrases, free=True),
                                                 decision, grammar)
        if not isinstance(answer, Heard) or answer.recording is None:
            self.speech.emit(stream.HeardEvent("", None, 0.0))
            return None, "silence"
        recording = answer.recording
        command, snap = grammar.match(recording.hearing.text)
        response = round(recording.hearing.response_seconds, 4)
        if command is not None and snap == 1.0:
            self.speech.emit(stream.HeardEvent(recording.hearing.text,
                                               [command.name, command.value],
                                               round(recording.hearing.confidence, 3),
                                               response_seconds=response))
            return command, ""
        clip = ""
        if recording.pcm:
            kept = yield Keep(recording.pcm, f"seat{decision.decider}")
            clip = kept.clip  # type: ignore[union-attr]
        said = said_from(recording.transcript, recording.transcript_confidence, clip)
        if not said.words and not said.clip:
            self.speech.emit(stream.HeardEvent(recording.transcript, None, 0.0))
            return None, "not_understood"
        intent = Intent("choose", said.choice())
        self.speech.emit(stream.HeardEvent(said.words, [intent.name, intent.value],
                                           round(recording.transcript_confidence, 3),
                                           response_seconds=response, clip=clip))
        return intent, ""

    def quiet_please(self, seat: int | None) -> str:
        if seat is None:
            return self.lines("quiet_please_all")
        return self.lines("quiet_please", name=self.dialogue.table.seats.name_of(seat))
