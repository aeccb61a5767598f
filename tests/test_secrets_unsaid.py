"""No line the host says before a reveal depends on a secret. A campaign of printed games of all
three titles, each played twice by the same table saying the same words, once with each of two
decks of the same game and player count whose secrets differ: everything the host says up to
the game's first reveal (Secret Operation's is at the end) must be the same, word for word. A
line that refused a clue for being on the speaker's card, named a squad, hinted at a Weasel or
an impostor, would differ between the two decks."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from drive import drive, kept_in, voicehost
from ferret_script import CLUES, ROUTINE
from operation_script import OperationScript

from voicehost.games.deck import Deck, letters
from voicehost.games.layout import ferret_layout, operation_layout, squad_layout
from voicehost.games.printed import dealt_letters
from voicehost.host.ferret_out import deck as pouches
from voicehost.host.table import Seats
from voicehost.prompts_dir import load_yaml

BOARDS = load_yaml("secret_operation/boards.yaml")
REVEALS = {"score", "game_over"}  # the first reveal comes with the first of these


class SameWords:
    """A table whose every answer is drawn from its own seeded plan and what the host asks,
    never from the cards: told the same questions, it says the same words. `own_card` gives
    each seat's first clue, a word on that seat's card in one of the two decks."""

    def __init__(self, game: str, players: int, seed: int,
                 own_card: dict[int, str] | None = None) -> None:
        self.game, self.seed = game, seed
        self.rng = random.Random(seed)
        self.names = list(Seats.default(players).names)
        self.own_card = dict(own_card or {})
        self.script = (OperationScript(players, seed, "engineers")
                       if game == "secret-operation" else None)

    def reply(self, listen: dict[str, Any]) -> str:
        decision, seat = listen["decision"], listen["player"]
        if self.script is not None:
            return self.script.varied(listen)
        if decision in ROUTINE:
            return ROUTINE[decision]
        if decision in ("deal", "ready"):
            return "ready"
        if decision == "answer":
            return self.rng.choice(["yes", "no"])
        if decision == "point":
            return self.names[int(self.rng.choice(listen["options"]))]
        if decision == "number":
            return "three"
        if decision == "clue":
            return self.own_card.pop(seat, None) or self.rng.choice(CLUES)
        if decision == "accuse":
            return "myself" if seat == 0 else self.names[0]
        if decision == "guess":
            return "something else"
        raise AssertionError(f"a decision the plan does not know: {listen}")


def said_before_the_first_reveal(events: list[dict[str, Any]], decks: list[Deck]) -> list[str]:
    said = []
    for event in events:
        if event["event"] in REVEALS:
            break
        if event["event"] == "say":
            text = event["text"]
            for deck in decks:
                text = text.replace(deck.printed, "DECK")
            said.append(text)
    return said


def own_card_clues(deck: Deck, seed: int) -> dict[int, str]:
    """Each seat's word 1 of row 1 on its own card in `deck`, as the host deals the letters."""
    row = ferret_layout(deck, pouches()).rows[0]
    dealt = dealt_letters(seed, deck.players)
    return {seat: row.words_on(letters(deck.players).index(letter))[0]
            for seat, letter in enumerate(dealt)}


def secrets_differ(one: Deck, other: Deck) -> bool:
    if one.game == "secret-squad":
        return squad_layout(one).boxes[0] != squad_layout(other).boxes[0]
    if one.game == "ferret-out":
        rows = [ferret_layout(deck, pouches()).rows[0] for deck in (one, other)]
        return rows[0] != rows[1]
    return (operation_layout(one, BOARDS).identities
            != operation_layout(other, BOARDS).identities)


def play(folder: Path, deck: Deck, seed: int, table: SameWords) -> list[dict[str, Any]]:
    folder.mkdir()
    command = voicehost("play", deck.game, "--io", "text", "--cards", deck.number, "--seed",
                        str(seed), *kept_in(folder))
    if deck.game == "ferret-out":
        command += ["--set", "study_seconds=0"]
    return drive(command, folder / "events.jsonl", table.reply)


CAMPAIGN = [("secret-squad", 3, 1), ("secret-squad", 4, 2), ("secret-squad", 7, 3),
            ("secret-squad", 10, 4), ("ferret-out", 3, 5), ("ferret-out", 4, 6),
            ("ferret-out", 5, 7), ("ferret-out", 7, 8), ("secret-operation", 4, 9),
            ("secret-operation", 6, 10), ("secret-operation", 10, 11)]


@pytest.mark.parametrize(("game", "players", "seed"), CAMPAIGN)
def test_two_decks_sound_the_same_until_the_reveal(tmp_path: Path, game: str, players: int,
                                                   seed: int) -> None:
    one = Deck(game, players, seed)
    other = next(Deck(game, players, s) for s in range(seed + 1, seed + 50)
                 if secrets_differ(one, Deck(game, players, s)))
    # every seat's first clue is on its own card in the first deck, off it in the other
    clues = own_card_clues(one, seed) if game == "ferret-out" else None
    heard = [said_before_the_first_reveal(
        play(tmp_path / f"deck{n}", deck, seed, SameWords(game, players, seed, clues)),
        [one, other]) for n, deck in enumerate((one, other))]
    assert heard[0], "the host said nothing"
    assert len(heard[0]) == len(heard[1]), (heard[0][-3:], heard[1][-3:])
    differ = [(a, b) for a, b in zip(*heard, strict=True) if a != b]
    assert not differ, differ[:3]


def test_the_check_is_not_blind_to_a_line_that_tells_a_card(tmp_path: Path) -> None:
    """A line that depends on a deck's secrets is caught: the first reveal itself differs."""
    one = Deck("secret-squad", 4, 2)
    other = next(Deck("secret-squad", 4, s) for s in range(3, 50)
                 if secrets_differ(one, Deck("secret-squad", 4, s)))
    revealed = []
    for n, deck in enumerate((one, other)):
        events = play(tmp_path / f"deck{n}", deck, 2, SameWords("secret-squad", 4, 2))
        at = next(i for i, e in enumerate(events) if e["event"] in REVEALS)
        revealed.append([e["text"] for e in events[at:] if e["event"] == "say"][:1])
    assert revealed[0] != revealed[1]
