"""The driver of the host's dialogue: it carries out what `Dialogue` asks with a Voice (text
mode or audio mode), the Journal (fsynced) and the EventStream, and answers it with what was
heard and the time."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from voicehost.games.base import Action
from voicehost.host import exchange
from voicehost.host.clips import Playback, load_clip, save_clip
from voicehost.host.dialogue import Dialogue, Outcome
from voicehost.host.events import EventStream
from voicehost.host.exchange import Answer, Command, Cue, Steps
from voicehost.host.table import Table
from voicehost.store.journal import Journal
from voicehost.voice import EndOfInput, MicrophoneLost, Voice


class Host:
    def __init__(self, table: Table, voice: Voice, journal: Journal, events: EventStream,
                 actions: list[Action] | None = None,
                 clock: Callable[[], float] = time.monotonic, heard: int | None = None) -> None:
        """`heard`: how many of `actions` the table has heard the results of (all of them
        when None)."""
        self.voice = voice
        self.journal = journal
        self.events = events
        self.clock = clock
        self.dialogue = Dialogue(table, list(actions or []), streaming=events.wanted,
                                 typed=voice.typed,
                                 heard=len(actions or []) if heard is None else heard)

    @property
    def table(self) -> Table:
        return self.dialogue.table

    @property
    def actions(self) -> list[Action]:
        return self.dialogue.actions

    def run(self, resumed: bool = False) -> Outcome:
        return self.drive(self.dialogue.game(resumed))

    def drive(self, steps: Steps[Any]) -> Any:
        """Carry out `steps` of the dialogue to their end; what they came to."""
        self.dialogue.listening.too_loud = self.voice.too_loud()
        commands = self.dialogue.begin(steps)
        while True:
            *now, waiting = commands
            for command in now:
                self.carry_out(command)
            if isinstance(waiting, exchange.Done):
                return waiting.result
            commands = self.dialogue.receive(self.answer(waiting))

    def carry_out(self, command: Command) -> None:
        if isinstance(command, exchange.Say):
            self.say(command.lines)
        elif isinstance(command, exchange.Emit):
            self.events.emit(command.event)
        elif isinstance(command, exchange.Append):
            self.journal.append(command.record)
        else:
            raise TypeError(f"{command!r} waits for an answer")

    def answer(self, command: Command) -> Answer:
        if isinstance(command, exchange.Listen):
            return self.listen(command)
        if isinstance(command, exchange.WaitForMicrophone):
            self.voice.wait_for_microphone()
        elif isinstance(command, exchange.Keep):
            return exchange.Kept(save_clip(self.journal.path, command.pcm, command.label))
        elif not isinstance(command, exchange.Now):
            raise TypeError(f"{command!r} waits for no answer")
        return exchange.Tick(self.clock())

    def listen(self, command: exchange.Listen) -> Answer:
        try:
            if command.free:
                recording = self.voice.record(command.phrases)
                hearing = None if recording is None else recording.hearing
            else:
                recording, hearing = None, self.voice.listen(command.phrases, command.timeout_s)
        except MicrophoneLost:
            return exchange.MicLost(self.clock())
        except EndOfInput:
            return exchange.InputEnded(self.clock())
        if hearing is None:
            return exchange.Silence(self.clock(), self.voice.too_loud())
        return exchange.Heard(self.clock(), self.voice.too_loud(), hearing, recording)

    def say(self, items: list[str]) -> None:
        """Say the lines; where one plays a recording, say the text up to it (its caption
        included), then play it; where a sound stands, say the text before it, then play it."""
        said: list[str] = []
        for item in items:
            if isinstance(item, Cue):
                self._say(said)
                said = []
                self.voice.sound(item.sound)
                continue
            said.append(item)
            if not isinstance(item, Playback):
                continue
            pcm = load_clip(self.journal.path, item.clip)
            if pcm is None:
                said.append(item.lost)
                continue
            self._say(said)
            said = []
            self.voice.play(pcm)
        self._say(said)

    def _say(self, items: list[str]) -> None:
        if items:
            self.voice.say(" ".join(items))
