"""The event stream (--events): one JSON object per line, for displays, tests and benchmarks.

Each event is a dataclass below; on the stream it is `{"event": <kind>, "time": <unix seconds>,
...its fields}`, with optional fields that are None left out and `facts`/`context` spread into the
object. A display must not show an event marked `"secret": true` (nor a `listen` whose options
are secret) before the game's reveal.
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import MISSING, dataclass, field, fields
from typing import Any, ClassVar, TextIO


@dataclass(frozen=True)
class StreamEvent:
    kind: ClassVar[str]

    def to_json(self) -> dict[str, Any]:
        record: dict[str, Any] = {"event": self.kind}
        for item in fields(self):
            value = getattr(self, item.name)
            if item.name in ("facts", "context"):
                record.update(value)
            elif value is not None or item.default is MISSING:  # a given field stays, None too
                record[item.name] = value
        return record


@dataclass(frozen=True)
class SayEvent(StreamEvent):
    """The host speaks `text`; `clips`: recordings it plays within it (a clue's own voice)."""

    kind = "say"
    text: str
    clips: list[str] | None = None


@dataclass(frozen=True)
class ListenEvent(StreamEvent):
    """The host waits for `player` (None: anyone) to decide `decision`. `options`: the values
    it accepts; `say`: for each, the shortest phrase that chooses it. `context`: public facts
    (round, card, number, modules, ...). A `secret` listen's options must not be shown."""

    kind = "listen"
    player: int | None
    decision: str
    options: list[str]
    say: dict[str, str] | None = None
    context: dict[str, Any] = field(default_factory=dict)
    secret: bool | None = None


@dataclass(frozen=True)
class HeardEvent(StreamEvent):
    """What was heard: `intent` is [name, value] (a command, or "choose" and an option), or
    None when nothing was understood. `between`: options the recognizer wavered between.
    `clip`: a free-speech answer's recording, next to the journal."""

    kind = "heard"
    text: str
    intent: list[str] | None
    confidence: float
    decode_seconds: float | None = None
    response_seconds: float | None = None  # the player stopped speaking → the text was ready
    between: list[str] | None = None
    snr_db: float | None = None
    clip: str | None = None


@dataclass(frozen=True)
class Score(StreamEvent):
    """A round was scored (`what` None), or a scoring moment of the game (`what`, e.g.
    "module_assembled"); `facts` are the rules' own."""

    kind = "score"
    facts: dict[str, Any]
    what: str | None = None


@dataclass(frozen=True)
class GameOver(StreamEvent):
    """The game ended: the rules' facts (scores and winners, or the winning side)."""

    kind = "game_over"
    facts: dict[str, Any]


@dataclass(frozen=True)
class Secrets(StreamEvent):
    """What the host knows from printed cards and must not say before each reveal."""

    kind = "secrets"
    facts: dict[str, Any]
    secret: bool = True


@dataclass(frozen=True)
class Quit(StreamEvent):
    """The table quit; the journal keeps the game for `voicehost resume`."""

    kind = "quit"


@dataclass(frozen=True)
class Saved(StreamEvent):
    """The host stopped with the game unfinished and saved (`reason`: "end_of_input")."""

    kind = "saved"
    reason: str


class EventStream:
    def __init__(self, out: TextIO | None) -> None:
        self.out = out

    @property
    def wanted(self) -> bool:
        """Whether anyone reads the stream (events cost nothing to skip)."""
        return self.out is not None

    def emit(self, event: StreamEvent) -> None:
        if self.out is None:
            return
        record = {"event": event.kind, "time": round(time.time(), 3), **event.to_json()}
        self.out.write(json.dumps(record, ensure_ascii=False) + "\n")
        self.out.flush()

    def close(self) -> None:
        """Close the events file; standard output (`--events -`) and a terminal stay open."""
        if self.out is None or self.out is sys.stdout or self.out.isatty():
            return
        self.out.close()
