"""A whole 4-player Secret Squad through real audio.

The host speaks through sounddevice into the PulseAudio null sink "room" and listens to its
monitor with the default recognizer (`--engine auto`: Whisper, every Secret Squad list being
under 80 phrases; tests/test_cards_room.py plays with pocketsphinx). The players are
espeak-ng voices played into the same room with paplay, each answering the question the
host's events say it asked. They listen to the host's read-backs and correct it ("undo",
"no") when it misheard, as a table would.
"""

from __future__ import annotations

import statistics
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from drive import drive, voicehost
from room import Room, play_into_room
from speakers import Speaker, speak
from table_script import SecretSquadScript

from voicehost.games.secret_squad import SecretSquad
from voicehost.host.secret_squad import question_deck
from voicehost.store.journal import actions_of, read_records

PLAYERS = 4
# One voice per player, low to high. espeak-ng's +variant voices are far harder for
# pocketsphinx (see the README's recognition notes), so the table speaks plain en-us.
VOICES = [Speaker(f"player{i}", "en-us", pitch, 165) for i, pitch in enumerate((20, 40, 60, 80))]
NUMBERS = ["one", "two", "three", "four"]


def phrasings(decision: str, said: str, names: list[str]) -> list[str]:
    """Ways a player rephrases the same choice after the host did not understand it."""
    if decision == "point" and said in names:
        return [f"i pointed at {said}", said, f"at {said}",
                f"player {NUMBERS[names.index(said)]}"]
    variants = {"yup": ["yup", "yes", "yeah", "yep"], "nope": ["nope", "no", "nah"],
                "yes": ["yes", "yeah", "correct", "yep", "right"],
                "no": ["no", "nope", "wrong", "nah"], "ready": ["ready", "we are ready"],
                "yellow": ["yellow", "i am yellow", "yellow squad"],
                "red": ["red", "i am red", "red squad"], "undo": ["undo", "go back"],
                "myself": ["myself", "me"]}
    return variants.get(said, [said])


class RoomTable:
    """The scripted table, speaking aloud and listening to the host's read-backs."""

    def __init__(self, script: SecretSquadScript) -> None:
        self.script = script
        self.last_said = ""
        self.speaker = 0
        self.intended = ""  # how the host should read back the point or squad just said
        self.answer_echo: tuple[str, str] | None = None  # (name, yup/nope) just given
        self.needs_undo = False
        self.spoken: list[tuple[dict[str, Any], str]] = []
        self.attempt: tuple[tuple[Any, ...], int] = ((), 0)

    def on_event(self, event: dict[str, Any]) -> None:
        if event["event"] != "say":
            return
        self.last_said = event["text"].lower()
        if self.answer_echo is not None:
            name, answer = self.answer_echo
            wrong = "nope" if answer == "yup" else "yup"
            self.needs_undo = f"{name}, {wrong}." in self.last_said
            self.answer_echo = None

    def respond(self, listen: dict[str, Any], proc: subprocess.Popen) -> None:
        self.say(listen, self.reply_text(listen))

    def reply_text(self, listen: dict[str, Any]) -> str:
        """What the table means to say to this `listen` (before any rephrasing)."""
        decision = listen["decision"]
        if self.needs_undo:
            self.needs_undo = False
            text = "undo"
        elif decision == "confirm":
            text = "yes" if self.intended in self.last_said else "no"
        else:
            text = self.script.reply(listen)
            if decision == "answer":
                text = self.script.answers[(listen["round"], listen["card"], listen["player"])]
            self.intended = {"point": f"pointed at {text}".replace("myself", "themself"),
                             "squad": f"is {text}"}.get(decision, "")
            if listen["player"] is not None:
                self.speaker = listen["player"]
            if decision == "answer":
                answer = self.script.answers[(listen["round"], listen["card"], listen["player"])]
                self.answer_echo = (self.script.names[listen["player"]], answer)
        return text

    def say(self, listen: dict[str, Any], text: str) -> None:
        """Say `text` aloud, rephrased when the host asks the same thing again."""
        decision = listen["decision"]
        key = (decision, listen["player"], listen.get("round"), listen.get("card"), text)
        tries = self.attempt[1] + 1 if self.attempt[0] == key else 0
        self.attempt = (key, tries)
        options = phrasings(decision, text, self.script.names)
        said = options[tries % len(options)]
        self.spoken.append((listen, said))
        time.sleep(0.2)  # people take a moment before answering
        play_into_room(speak(said, VOICES[self.speaker % len(VOICES)]))


def answers_in_journal(journal: Path) -> dict[tuple[int, int, int], str]:
    """(round, card, player) → the answer the journal kept, after undos."""
    game = SecretSquad(PLAYERS, seed=42, deck_size=len(question_deck()))
    kept = {}
    for action in actions_of(read_records(journal)):
        if action.kind == "answer":
            kept[(game.round, len(game.cards), action.player)] = action.choice
        game.apply(action)
    return kept


@pytest.mark.takes_seconds(560)
def test_a_whole_game_through_the_room(room: Room, tmp_path: Path) -> None:
    script = SecretSquadScript(PLAYERS, seed=42)
    table = RoomTable(script)
    events_path = tmp_path / "events.jsonl"
    journal = tmp_path / "game.jsonl"
    command = voicehost("play", "secret-squad", "--io", "audio", "--engine", "auto",
                        "--players", str(PLAYERS), "--seed", "42", "--rate", "230",
                        "--journal", str(journal), "--events", str(events_path))
    started = time.monotonic()
    events = drive(command, events_path, respond=table.respond, on_event=table.on_event,
                   timeout=120.0)
    heard = [e for e in events if e["event"] == "heard"]
    misses = [e for e in heard if e["intent"] is None]
    corrections = [said for listen, said in table.spoken if said in phrasings("", "undo", [])
                   or listen["decision"] == "confirm" and said in phrasings("", "no", [])]
    first_understood = next(i for i, e in enumerate(heard) if e["intent"]) + 1
    response = [e["response_seconds"] for e in heard if e["intent"]]
    print(f"\nroom game: {time.monotonic() - started:.0f} s, {len(heard)} utterances heard, "
          f"{len(misses)} not understood, {len(corrections)} corrections, first utterance "
          f"understood: number {first_understood}; player stopped → intent: median "
          f"{statistics.median(response):.3f} s, max {max(response):.3f} s")
    over = [e for e in events if e["event"] == "game_over"]
    assert over, "the game did not end"
    assert over[0]["scores"] == script.expected_scores()
    assert answers_in_journal(journal) == script.answers
