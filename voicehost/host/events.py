"""The event stream (--events): one JSON object per line, for displays, tests and benchmarks.

Each event is a dataclass below; on the stream it is `{"event": <kind>, "time": <unix seconds>,
...its fields}`, with optional fields that are None left out and `facts`/`context` spread into the
object. The stream carries no secret before its reveal, so a display may show all of it: what
the host knows from printed cards goes only to a secrets file of its own (--secrets, for
tests), and a `listen` whose options would give a secret away carries none.
"""

from __future__ import annotations

import contextlib
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
    (round, card, number, modules, ...). A `secret` listen's options would give a secret away:
    the stream leaves them out."""

    kind = "listen"
    player: int | None
    decision: str
    options: list[str]
    say: dict[str, str] | None = None
    context: dict[str, Any] = field(default_factory=dict)
    secret: bool | None = None

    def to_json(self) -> dict[str, Any]:
        record = super().to_json()
        if self.secret:
            record["options"] = []
            record.pop("say", None)
        return record


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
    """What the host knows from printed cards and must not say before each reveal: written
    to the secrets file alone, never to the stream."""

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
    """The stream, `out`, and the secrets file, `secrets`, each None when nobody reads it.
    A file that can no longer be written is said once, on standard error, and the game goes
    on without it."""

    def __init__(self, out: TextIO | None, secrets: TextIO | None = None) -> None:
        self.out, self.secrets = out, secrets

    @property
    def wanted(self) -> bool:
        """Whether anyone reads the stream (events cost nothing to skip)."""
        return self.out is not None

    def emit(self, event: StreamEvent) -> None:
        target = self.secrets if isinstance(event, Secrets) else self.out
        if target is None:
            return
        record = {"event": event.kind, "time": round(time.time(), 3), **event.to_json()}
        try:
            target.write(json.dumps(record, ensure_ascii=False) + "\n")
            target.flush()
        except OSError as problem:
            name = getattr(target, "name", "the event stream")
            print(f"voicehost: cannot write events to {name} ({problem.strerror or problem}); "
                  "the game goes on without them.", file=sys.stderr, flush=True)
            self.drop(target)

    def drop(self, target: TextIO) -> None:
        if target is self.out:
            self.out = None
        else:
            self.secrets = None
        with contextlib.suppress(OSError):
            _close(target)

    def close(self) -> None:
        """Close the files; standard output (`--events -`) and a terminal stay open."""
        for target in (self.out, self.secrets):
            if target is not None:
                with contextlib.suppress(OSError):
                    _close(target)


def _close(target: TextIO) -> None:
    if target is sys.stdout or target.isatty():
        target.flush()
        return
    target.close()
