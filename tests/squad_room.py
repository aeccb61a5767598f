"""Secret Squad players in the room (tests/room.py): how they say their choices again, how
they check the host, and the table that plays a `SecretSquadScript` aloud."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable, Sequence
from typing import Any

from room import OTHER_WAYS, RoomTable, table_voices
from squad_script import NO, YES, SecretSquadScript
from wordings import any_case, said_line

from voicehost.lab.speakers import Speaker

PLAYERS = 4
MICROPHONE_LOST = said_line("microphone_lost")
VOICES = table_voices(PLAYERS)
NUMBERS = ["one", "two", "three", "four"]
WAYS = {"yup": YES, "nope": NO, **OTHER_WAYS,
        "yellow": ["yellow", "i am yellow", "yellow squad"],
        "red": ["red", "i am red", "red squad"], "undo": ["undo", "go back"],
        "myself": ["myself", "me"]}


def phrasings(decision: str, said: str, names: list[str]) -> list[str]:
    """Ways a player rephrases the same choice after the host did not understand it."""
    if decision == "point" and said in names:
        return [f"i pointed at {said}", said, f"at {said}",
                f"player {NUMBERS[names.index(said)]}"]
    return WAYS.get(said, [said])


class SquadTable(RoomTable):
    """Players who check the host: "undo" when it took another answer than the one given,
    "yes" or "no" to its read-back of a choice."""

    def __init__(self, voices: Sequence[Speaker]) -> None:
        super().__init__(voices)
        # how the host should read back each choice of the gathering under way (whom each
        # pointed at, each squad): (the name, the choice as said again in a "no", the read-back)
        self.intended: list[tuple[str, str, str]] = []
        self.gathering: tuple[str, Any] | None = None  # (decision, round) under way
        self.answer_echo: tuple[str, str] | None = None  # (name, yup/nope) just given
        self.needs_undo = False

    def expect(self, listen: dict[str, Any], name: str, answer: str) -> None:
        """The player `name` gave `answer` to a pointing or a squad: expect it read back."""
        decision = listen["decision"]
        key = (decision, listen.get("round"))
        if key != self.gathering:
            self.intended = []
        self.gathering = key
        if decision == "point":
            said = "themself" if answer == "myself" else answer
            self.intended.append((name, f"pointed at {answer}", f"pointed at {said}"))
        else:
            self.intended.append((name, f"is {answer}", f"is {answer}"))

    def confirm_reply(self, read_back: str) -> str:
        """Yes when every choice read back is the one given; else a no that says the first
        wrong one again ("no, robin pointed at husky")."""
        wrong = [(name, again) for name, again, line in self.intended
                 if f"{name} {line}" not in read_back]
        if not wrong:
            return "yes"
        name, again = wrong[0]
        return f"no {name} {again.replace('myself', name)}"

    def correction(self, decision: str) -> str | None:
        """What to say to put the host right, if anything: "undo", or "yes"/"no" when it
        asks to confirm its read-back."""
        if self.needs_undo:
            self.needs_undo = False
            return "undo"
        if decision == "confirm":
            return self.confirm_reply(self.last_said)
        return None

    def answer_misheard(self) -> bool:
        """Did the host just read back the other answer than the one last given?"""
        if self.answer_echo is None:
            return False
        name, answer = self.answer_echo
        self.answer_echo = None
        wrong = "nope" if answer == "yup" else "yup"
        return any_case(said_line("answered", "secret_squad", name=name, answer=wrong)).search(
            self.last_said) is not None


class ScriptedTable(SquadTable):
    """The table playing a `SecretSquadScript` aloud."""

    def __init__(self, script: SecretSquadScript) -> None:
        super().__init__(VOICES)
        self.script = script

    def on_event(self, event: dict[str, Any]) -> None:
        super().on_event(event)
        if event["event"] == "say" and self.answer_echo is not None:
            self.needs_undo = self.answer_misheard()

    def respond(self, listen: dict[str, Any], proc: subprocess.Popen) -> None:
        self.reply(listen, self.reply_text(listen))

    def reply_text(self, listen: dict[str, Any]) -> str:
        """What the table means to say to this `listen` (before any rephrasing)."""
        decision = listen["decision"]
        correction = self.correction(decision)
        if correction is not None:
            return correction
        text = self.script.reply(listen)
        if decision == "answer":
            text = self.script.answers[(listen["round"], listen["card"], listen["player"])]
            self.answer_echo = (self.script.names[listen["player"]], text)
        if decision in ("point", "squad"):
            self.expect(listen, self.script.names[listen["player"]], text)
        if listen["player"] is not None:
            self.speaker = listen["player"]
        return text

    def reply(self, listen: dict[str, Any], text: str) -> None:
        """Say `text` aloud, rephrased when the host asks the same thing again."""
        key = (listen["decision"], listen["player"], listen.get("round"), listen.get("card"),
               text)
        self.say_one_of(listen, key, phrasings(listen["decision"], text, self.script.names))


class InterruptedTable(ScriptedTable):
    """The scripted table, and a host that loses its microphone: `cut()` (unplug it, kill the
    satellite) as Cheetah is asked the first card, and `restore()` a second after the host says it
    has lost it. Cheetah answers into the void all the same."""

    def __init__(self, script: SecretSquadScript, cut: Callable[[], object],
                 restore: Callable[[], object]) -> None:
        super().__init__(script)
        self.cut, self.restore = cut, restore
        self.cut_at = 0.0  # wall-clock times, as the events carry
        self.restored_at = 0.0

    def respond(self, listen: dict[str, Any], proc: subprocess.Popen) -> None:
        if self.cut_at and not self.restored_at:  # else the game would never end
            raise AssertionError("the host listened on without noticing the microphone gone")
        if (listen["decision"], listen["player"]) == ("answer", 1) and not self.cut_at:
            self.cut()
            self.cut_at = time.time()
        super().respond(listen, proc)

    def on_event(self, event: dict[str, Any]) -> None:
        super().on_event(event)
        if (event["event"] == "say" and MICROPHONE_LOST.search(event["text"])
                and not self.restored_at):
            time.sleep(1.0)
            self.restore()
            self.restored_at = time.time()
