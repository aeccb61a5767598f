"""A whole printed-card Secret Squad game through real audio, and `voicehost hear` on a group
of a deck number.

As in tests/test_secret_squad_room.py, the host speaks into the PulseAudio test room and hears
it with the default engine (Whisper for these lists); the players are espeak-ng voices played
into the room. Here the host starts without knowing the cards: it asks for the deck number, a player
reads it off a page or slip (two groups of three digits), and from then on the host deals by
voice, names the box each round and scores the reveal by itself. The players read their squads
off their cards (the layout the deck number stands for), answer each question card truthfully
for their squad, point, and correct the host when a read-back is wrong, as a table would.
"""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from drive import secrets_kept
from squad_room import VOICES, SquadTable, phrasings
from squad_script import answers_in_journal, answers_only
from test_cards import TAKE, squads_said_before_reveal
from wordings import any_case, any_of, facts_of, said_line

from voicehost.games.deck import Deck, letters
from voicehost.games.layout import squad_layout
from voicehost.games.printed import DECK_DECISION
from voicehost.games.secret_squad import award_round
from voicehost.host.deck_number import say_digits
from voicehost.host.secret_squad import question_deck
from voicehost.host.table import Seats
from voicehost.lab.room import Room
from voicehost.lab.speakers import PLAIN, speak_wav
from voicehost.session import actions_of
from voicehost.store.journal import read_records

PLAYERS = 4
ROUNDS = 2  # CI time: the rules' three rounds play the same way as two
DECK = Deck("secret-squad", PLAYERS, 305)  # printed "143 056": a zero to read out too
GAME_SEED = 42
BOX = re.compile(r"\bbox (\d+)\b")
QUESTION = re.compile(r".+?\?")
QUESTION_CARD = any_case(any_of(*(said_line(key, "secret_squad", yellow=QUESTION, red=QUESTION)
                                  for key in ("card_first", "card"))))
DIGIT = "(?:zero|one|two|three|four|five|six|seven|eight|nine)"
ECHO = any_case(said_line("deck_digits", digits=re.compile(rf"{DIGIT}(?: {DIGIT})*")))
READ = any_case(said_line("deck_read", printed=re.compile(r"\d{3} \d{3}")))
SLOWEST = 110  # words a minute: how slowly a player reads digits the host keeps missing
MAX_DECK_GROUPS = 12  # three full readings each way, then the test gives up


def read_again(digits: str, tries: int) -> str:
    """A group of digits as a player reads it again after the host did not catch it: a zero
    as "oh" every other time (and, see `respond`, more slowly each time)."""
    return digits if tries % 2 == 0 else digits.replace("zero", "oh")


def truth(name: str, question: str) -> str:
    """What `name` truly answers to `question`: a fixed fact about that player."""
    return random.Random(f"{name}/{question.lower()}").choice(("yup", "nope"))


class PrintedRoomTable(SquadTable):
    """Four players holding printed cards, speaking aloud and listening to the host."""

    def __init__(self, deck_printed: str, seed: int) -> None:
        super().__init__(VOICES)
        self.names = list(Seats.default(PLAYERS).names)
        self.printed = deck_printed  # as every page and slip shows it
        self.rng = random.Random(seed)
        self.cards: dict[str, str] = {}  # name → the letter the host dealt
        self.box = 0
        self.question: tuple[str, str] | None = None  # the card read out: yellow, red
        self.boxes: dict[int, int] = {}  # round → the box the host named
        self.squads: dict[int, list[str]] = {}  # round → squads, seat by seat
        self.points: dict[int, list[int]] = {}
        self.answers: dict[tuple[int, int, int], str] = {}
        self.digits_said = ""  # the group just read out, until the host echoes it

    # -- listening to the host --------------------------------------------------------------

    def on_event(self, event: dict[str, Any]) -> None:
        super().on_event(event)
        if event["event"] != "say":
            return
        text = event["text"]
        for take in map(facts_of, TAKE.finditer(text)):
            self.cards[take["name"].lower()] = take["letter"]
        boxes = BOX.findall(text)
        if boxes and "look" in self.last_said:
            self.box = int(boxes[-1])
        if cards := [facts_of(card) for card in QUESTION_CARD.finditer(self.last_said)]:
            self.question = cards[-1]["yellow"], cards[-1]["red"]
        self.needs_undo = self._misheard()

    def _misheard(self) -> bool:
        """Did the host just read back something other than what was said?"""
        if self.digits_said:
            echo = ECHO.match(self.last_said)
            said, self.digits_said = self.digits_said, ""
            if echo is not None and facts_of(echo)["digits"] != say_digits(said):
                return True
        read = READ.search(self.last_said)
        if read is not None and facts_of(read)["printed"] != self.printed:
            return True
        return self.answer_misheard()

    # -- speaking ---------------------------------------------------------------------------

    def respond(self, listen: dict[str, Any], proc: subprocess.Popen) -> None:
        decision = listen["decision"]
        text = self.correction(decision)
        if text is None and decision == DECK_DECISION:
            group = self.printed.split()[1 if "last three" in self.last_said else 0]
            self.digits_said = group
            self.speaker = 0
            text = say_digits(group)
        elif text is None:
            text = self._play(listen)
        key = (decision, listen["player"], listen.get("round"), listen.get("card"), text)
        if decision != DECK_DECISION:
            self.say_one_of(listen, key, phrasings(decision, text, self.names))
            return
        groups = sum(ls["decision"] == DECK_DECISION for ls, _ in self.spoken)
        assert groups < MAX_DECK_GROUPS, f"the deck number was not heard: {self.spoken}"
        tries = self.again(key)
        voice = self.voice()
        self.say(listen, read_again(text, tries),
                 replace(voice, speed=max(SLOWEST, voice.speed - 25 * tries)))

    def _play(self, listen: dict[str, Any]) -> str:
        decision, player, round_ = listen["decision"], listen["player"], listen.get("round")
        if player is not None:
            self.speaker = player
        if decision == "roll_call":
            return "i'm in"
        if decision == "deal":  # everyone opens their card at the box the host named
            self.boxes[round_] = self.box
            self.squads[round_] = [self.squad_on_card(name) for name in self.names]
            return "ready"
        if decision == "ready":
            return "ready"
        if decision == "answer":
            assert self.question is not None, "asked to answer before a card was read"
            yellow, red = self.question
            squad = self.squads[round_][player]
            answer = truth(self.names[player], yellow if squad == "yellow" else red)
            self.answers[(round_, listen["card"], player)] = answer
            self.answer_echo = (self.names[player], answer)
            return answer
        if decision == "point":
            targets = [s for s in range(PLAYERS) if s != player]
            target = self.rng.choice(targets)
            self.points.setdefault(round_, [0] * PLAYERS)[player] = target
            self.expect(listen, self.names[player], self.names[target])
            return self.names[target]
        raise AssertionError(f"the host asked what printed cards already tell it: {listen}")

    def squad_on_card(self, name: str) -> str:
        """What `name` sees in today's box of the card they were handed."""
        layout = squad_layout(Deck.read(self.printed))
        return layout.card(letters(PLAYERS).index(self.cards[name]))[self.box - 1]

    def expected_scores(self) -> list[int]:
        totals = [0] * PLAYERS
        for round_, squads in self.squads.items():
            for seat, award in enumerate(award_round(self.points[round_], squads)):
                totals[seat] += award["pick"] + award["bonus"]
        return totals


@pytest.mark.takes_seconds(340)
def test_a_printed_card_game_through_the_room(room: Room, tmp_path: Path) -> None:
    table = PrintedRoomTable(DECK.printed, seed=7)
    game = table.play(tmp_path, "play", "secret-squad", "--cards", "--engine", "auto",
                      "--players", str(PLAYERS), "--seed", str(GAME_SEED),
                      "--set", f"rounds={ROUNDS}", "--rate", "230")
    deck_tries = [said for listen, said in table.spoken if listen["decision"] == DECK_DECISION]
    undos = [said for _, said in table.spoken if said in ("undo", "go back")]
    print("\nprinted-card room game:", game.summary(
        f"{len(undos)} undos", f"deck number read in {len(deck_tries)} groups ({deck_tries})"))

    # the deck number was heard right: the groups the journal kept, and what the host knew
    records = read_records(tmp_path / "game.jsonl")
    assert records[0]["cards"] == "ask"
    kept = actions_of(records)
    deck_groups = [a.choice for a in kept if a.kind == DECK_DECISION]
    assert "".join(deck_groups[-2:]) == DECK.number
    secrets = secrets_kept(tmp_path)
    assert secrets and secrets[0]["secret"] is True and secrets[0]["deck"] == DECK.number
    assert not game.of("secrets")
    said = [e["text"] for e in game.of("say")]
    assert any(f"Deck {DECK.printed}" in text for text in said)
    assert "what is the deck number" in said[0].lower() or "the first three" in said[0]

    # the host dealt every card by voice, named the boxes, and scored alone
    assert sorted(table.cards) == sorted(table.names)
    assert sorted(table.cards.values()) == list(letters(PLAYERS))
    assert table.boxes == {r: r for r in range(1, ROUNDS + 1)}  # a fresh box each round
    over = game.of("game_over")
    assert over, "the game did not end"
    assert over[0]["scores"] == table.expected_scores()
    assert [s["squads"] for s in game.of("score")] == [table.squads[r]
                                                      for r in range(1, ROUNDS + 1)]
    assert not [e for e in game.of("listen") if e["decision"] == "squad"]

    # every answer kept is the script's, and true for the question of the player's squad
    journal_answers = answers_in_journal(tmp_path / "game.jsonl")
    assert answers_only(journal_answers) == table.answers
    questions = question_deck()
    for (round_, _, seat), (answer, card) in journal_answers.items():
        squad = table.squads[round_][seat]
        assert answer == truth(table.names[seat], questions[card][squad])

    assert not squads_said_before_reveal(game.events, table.names)


def hear_group(wav: Path) -> dict[str, Any]:
    """What the real `voicehost hear` makes of `wav` as a group of a deck number."""
    out = subprocess.run([sys.executable, "-m", "voicehost.cli", "hear", str(wav),
                          "--engine", "pocketsphinx", "--decision", DECK_DECISION],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def test_hear_takes_a_group_of_a_deck_number(tmp_path: Path) -> None:
    """`voicehost hear --decision deck_number`: an espeak-ng WAV of three digits read from a
    card's back, heard by the real command as the host hears a group of a deck number; a
    zero may be read "zero" or "oh"."""
    for group, read_as in (("143", "one four three"), ("056", "oh five six"),
                           ("701", "seven oh one"), ("284", "two eight four")):
        result = hear_group(speak_wav(read_as, PLAIN, tmp_path / f"{group}.wav"))
        assert (result["intent"], result["value"]) == ("choose", group), result
    chatter = speak_wav("which card is mine", PLAIN, tmp_path / "chatter.wav")
    assert hear_group(chatter)["intent"] is None
