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
        self.intended = ""  # how the host should read back the choice just said
        self.answer_echo: tuple[str, str] | None = None  # (name, yup/nope) just given
        self.needs_undo = False

    def correction(self, decision: str) -> str | None:
        """What to say to put the host right, if anything: "undo", or "yes"/"no" when it
        asks to confirm its read-back."""
        if self.needs_undo:
            self.needs_undo = False
            return "undo"
        if decision == "confirm":
            return "yes" if self.intended in self.last_said else "no"
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
        self.intended = {"point": f"pointed at {text}".replace("myself", "themself"),
                         "squad": f"is {text}"}.get(decision, "")
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
