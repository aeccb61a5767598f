"""A careless, lively table for fuzzing the host: a Voice that says, at random (seeded), what
players say and worse: offered phrases, slips of the tongue, digits, names not in play,
garbage, silence, hostile text, ten thousand letters, commands at any moment."""

from __future__ import annotations

import random
import string
from collections.abc import Callable, Sequence
from typing import Any

from voicehost.prompts_dir import load_yaml
from voicehost.voice import EndOfInput, Hearing, Recording

ENDS_THE_GAME = {"quit", "stop", "exit", "end"}  # said rarely: a game that ends early tests less
HOSTILE = ("'; DROP TABLE players; --", "{name}", "{0}", "%s%s%s", "\x00\x01\x02", "🦊🦉🐻",
           "player\tthree", "yes\nno", "../../etc/passwd", "<script>alert(1)</script>",
           "ＹＵＰ", "nöpe", "   ", ".,;!?")
OTHER_WORDS = (*load_yaml("common/tokens.yaml")["tokens"], "eleven", "twelve", "zero", "hundred",
               "module", "yellow", "red", "maybe", "ready", "again", "nobody", "everyone",
               "myself")


def slip(text: str, rng: random.Random) -> str:
    """`text` with one letter dropped, doubled or swapped with the next."""
    if len(text) < 2:
        return text
    at = rng.randrange(len(text) - 1)
    kind = rng.randrange(3)
    if kind == 0:
        return text[:at] + text[at + 1:]
    if kind == 1:
        return text[:at] + text[at] + text[at:]
    return text[:at] + text[at + 1] + text[at] + text[at + 2:]


def careless_line(phrases: Sequence[str], rng: random.Random) -> str | None:
    """One thing a careless table might say when offered `phrases` (None: silence)."""
    calm = [p for p in phrases if not ENDS_THE_GAME & set(p.split())] or list(phrases)
    roll = rng.random()
    if roll < 0.50:
        return rng.choice(calm)
    if roll < 0.58:
        return slip(rng.choice(calm), rng)
    if roll < 0.64:
        return rng.choice(["player {}", "{}", "add to module {}", "block {}", "{} {} {}"]).format(
            *(rng.randrange(16) for _ in range(3)))
    if roll < 0.70:
        words = rng.choice(calm).split()
        words[rng.randrange(len(words))] = rng.choice(OTHER_WORDS)
        return " ".join(words)
    if roll < 0.76:
        return " ".join("".join(rng.choices(string.ascii_lowercase, k=rng.randint(1, 9)))
                        for _ in range(rng.randint(1, 4)))
    if roll < 0.81:
        return None
    if roll < 0.84:
        return rng.choice(HOSTILE)
    if roll < 0.86:
        return "".join(rng.choices(string.ascii_letters + " ", k=rng.randint(1000, 10000)))
    if roll < 0.998:
        return rng.choice(["yes", "no", "repeat", "help", "scores", "read the answers",
                           "status", "undo", "skip", "resume", "pause", "go back"])
    return rng.choice(["quit game", "stop the game"])


class QuietVoice:
    """The parts of a Voice a stand-in table seldom needs: it keeps what the host said, plays
    nothing, is never too loud, never loses its microphone. Subclasses listen and record."""

    typed = False

    def __init__(self) -> None:
        self.said: list[str] = []

    def say(self, text: str) -> None:
        self.said.append(text)

    def play(self, pcm: bytes) -> None:
        self.said.append(f"[recording, {len(pcm)} bytes]")

    def sound(self, name: str) -> None:
        self.said.append(f"[{name}]")

    def too_loud(self) -> bool:
        return False

    def wait_for_microphone(self) -> None:
        pass

    def close(self) -> None:
        pass


class RandomTable(QuietVoice):
    """A Voice: `utterances` things said, then the table goes quiet for good (EndOfInput).
    `before_each` runs before every listen (a fuzzer's check that nothing is lost)."""

    def __init__(self, seed: Any, utterances: int,
                 before_each: Callable[[], None] = lambda: None) -> None:
        super().__init__()
        self.rng = random.Random(seed)
        self.left = utterances
        self.before_each = before_each
        self.heard = 0

    def _next(self, phrases: Sequence[str]) -> str | None:
        self.before_each()
        if self.left <= 0:
            raise EndOfInput
        self.left -= 1
        self.heard += 1
        return careless_line(phrases, self.rng)

    def listen(self, phrases: Sequence[str], timeout_s: float | None = None) -> Hearing | None:
        text = self._next(phrases)
        if text is None:
            return None
        return Hearing(text, self.rng.uniform(0.3, 1.0), 1.0, 0.01, raw_text=text)

    def record(self, phrases: Sequence[str]) -> Recording | None:
        text = self._next(phrases)
        if text is None:
            return None
        if self.rng.random() < 0.5:
            text = self.rng.choice(["lantern", "bark", "river", "two words", "x", text])
        hearing = Hearing(text, 1.0, 1.0, 0.01, raw_text=text)
        return Recording(hearing, b"", text, self.rng.random())

    def too_loud(self) -> bool:
        return self.rng.random() < 0.02


def state_of(thing: Any) -> Any:
    """Everything a rules engine holds, as plain data to compare: random streams by their
    state, objects by their fields, functions left out."""
    if isinstance(thing, random.Random):
        return ["random", thing.getstate()]
    if thing is None or isinstance(thing, str | int | float | bool):
        return thing
    if isinstance(thing, dict):
        return {repr(key): state_of(value) for key, value in thing.items()}
    if isinstance(thing, list | tuple):
        return [state_of(item) for item in thing]
    if isinstance(thing, set | frozenset):
        return sorted(repr(item) for item in thing)
    if hasattr(thing, "__dict__"):
        return {name: state_of(value) for name, value in vars(thing).items()
                if not callable(value)}
    return repr(thing)
