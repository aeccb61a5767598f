"""What the host's dialogue and its driver exchange: the commands the dialogue gives (say,
emit, journal, listen, ...) and the answers the driver gives back (heard, silence, the
microphone lost, the time now); and the base of the dialogue's parts."""

from __future__ import annotations

from collections.abc import Generator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from voicehost.host import events as stream
from voicehost.voice import Hearing, Recording

if TYPE_CHECKING:
    from voicehost.host.dialogue import Dialogue


# -- what the dialogue asks of its driver ---------------------------------------------------

@dataclass(frozen=True)
class Say:
    """Say these lines as one; a `Playback` line plays its recording after its caption, a
    `Cue` plays one of the host's sounds where it stands."""

    lines: list[str]


class Cue(str):
    """One of the host's sounds among the lines said (speech/sounds.py: "tick", "sting",
    "fanfare", "chime"): it says nothing, so the lines' text, the captions and the event stream
    are the same with sounds or without."""

    sound: str

    def __new__(cls, sound: str) -> Cue:
        cue = super().__new__(cls, "")
        cue.sound = sound
        return cue


def spoken(items: Sequence[str]) -> str:
    """The text of lines as said: their words, the sounds among them left out."""
    return " ".join(item for item in items if not isinstance(item, Cue))


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


class TableQuit(Exception):
    """The table confirmed "quit game" while answering another question."""


class DialoguePart:
    """One of the dialogue's parts: it speaks through the dialogue's speech queue, with the
    lines of the table as it is now (a printed deck may reseat it)."""

    def __init__(self, dialogue: Dialogue) -> None:
        self.dialogue = dialogue
        self.speech = dialogue.speech

    @property
    def lines(self) -> Any:
        return self.dialogue.table.lines
