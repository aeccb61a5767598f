"""What the host will say, gathered until it next listens, and the commands for its driver."""

from __future__ import annotations

from dataclasses import dataclass, field

from voicehost.host import events as stream
from voicehost.host.clips import Playback
from voicehost.host.exchange import Append, Command, Cue, Emit, Say, spoken


@dataclass
class SpeechQueue:
    """Lines queued to be said as one, and every command for the driver in the order it must
    be carried out: an accepted choice's Append comes before any line that speaks of it."""

    queued: list[str] = field(default_factory=list)
    last_items: list[str] = field(default_factory=list)  # last said, recordings too (repeat)
    asking_again: bool = False  # what is queued only re-asks: "repeat" says the question
    hearing: int | None = None  # queued: the results of this many actions (journaled once said)
    out: list[Command] = field(default_factory=list)

    def send(self, command: Command) -> None:
        self.out.append(command)

    def sent(self) -> list[Command]:
        """The commands given since the last call."""
        commands, self.out = self.out, []
        return commands

    def emit(self, event: stream.StreamEvent) -> None:
        self.send(Emit(event))

    def queue(self, *lines: str) -> None:
        self.queued.extend(line for line in lines if line or isinstance(line, Cue))

    def flush(self) -> None:
        if not self.queued:
            return
        items, self.queued = self.queued, []
        clips = [item.clip for item in items if isinstance(item, Playback)]
        if spoken(items):
            self.emit(stream.SayEvent(spoken(items), clips or None))
        self.send(Say(items))
        if self.hearing is not None:  # after the Say: once it has been heard in full
            self.send(Append({"type": "heard", "through": self.hearing}))
            self.hearing = None
        if not self.asking_again:  # "repeat" says the words again, not the sounds
            self.last_items = [item for item in items if not isinstance(item, Cue)]
        self.asking_again = False

    def heard(self, through: int) -> None:
        """What is queued says the results of the first `through` actions: the journal
        records it once the table has heard it."""
        self.hearing = through

    def ask_again(self, *lines: str) -> None:
        """Queue `lines` that only re-ask (after a miss): "repeat" still says the question as
        it was first asked, not "Sorry, I didn't get that"."""
        self.queue(*lines)
        self.asking_again = True
