"""Ferret Out and Secret Operation with printed cards, through `voicehost play --io text --cards`:
the host deals by voice, knows every secret from the deck number, scores alone, and never says
a secret before its reveal. The players hold the pieces of their letter as cards/pieces.py
describes them: a Ferret Out player opens only the row slip the host names, which shows that
row alone; no line asks anyone to show a slip or card."""

from __future__ import annotations

import random
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from drive import drive, kept_in, secrets_kept, voicehost
from ferret_script import CLUES, ROUTINE
from operation_script import OperationScript
from test_cards import Holders, HoldingTable, asked_to_show, said_before_reveals, sentences

from voicehost.cards.pieces import IDENTITY, Piece, pieces
from voicehost.games.deck import Deck, letters
from voicehost.games.ferret_out import leaders, score_round
from voicehost.games.layout import FerretLayout, ferret_layout, operation_layout, row_cards_for
from voicehost.games.secret_operation import impostor_count
from voicehost.host.ferret_out import FerretOutTable
from voicehost.host.ferret_out import deck as pouches
from voicehost.host.table import Seats, settings_from
from voicehost.prompts_dir import load_yaml
from voicehost.session import actions_of
from voicehost.store.journal import read_records

POUCHES = pouches()
BOARDS = load_yaml("secret_operation/boards.yaml")

DIGIT_WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]
NUMBER_WORDS = ["one", "two", "three", "four", "five", "six"]


def spoken(number: str) -> str:
    return " ".join(DIGIT_WORDS[int(d)] for d in number)


def of(events: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [e for e in events if e["event"] == kind]


# -- Ferret Out ---------------------------------------------------------------------------------


class FerretTable(HoldingTable):
    """Players holding printed Ferret Out cards. Each reads only their own card, at the row and
    number the host names; whom they name and whether they guess is drawn from a seeded plan
    (which peeks at the layout so that every scoring line comes up)."""

    def __init__(self, deck: Deck, seed: int, read_out: list[str], end: str = "rounds") -> None:
        self.layout: FerretLayout = ferret_layout(deck, POUCHES, row_cards_for(end))
        self.holders = Holders(pieces(deck, settings_from(FerretOutTable.settings_type,
                                                          {"end": end})))
        self.players = deck.players
        self.names = list(Seats.default(deck.players).names)
        self.rng = random.Random(seed)
        self.read_out = list(read_out)
        self.accusations: dict[int, list[int]] = {}
        self.guesses: dict[int, dict[int, str]] = {}
        self.numbers: dict[int, int] = {}
        self.typed: dict[int, set[str]] = {}  # round → every word a player said

    def card_of(self, seat: int) -> int:
        return letters(self.players).index(self.cards[self.names[seat]])

    def weasel(self, round_number: int) -> int:
        row = self.layout.rows[round_number - 1]
        return next(s for s in range(self.players) if self.card_of(s) == row.weasel)

    def my_word(self, seat: int, round_number: int) -> str:
        """The word at the round's number on the slip this seat opened last."""
        opened = self.holders.open_now(self.names[seat])
        assert opened.label == f"row {round_number}", opened
        return opened.inside[2 * self.numbers[round_number] - 1]

    def reply(self, listen: dict[str, Any]) -> str:
        said = self._reply(listen)
        if listen.get("round"):
            self.typed.setdefault(listen["round"], set()).update(said.lower().split())
        return said

    def _reply(self, listen: dict[str, Any]) -> str:
        decision, seat, round_ = listen["decision"], listen["player"], listen.get("round")
        if decision == "deck_number":
            return self.read_out.pop(0)
        if decision in ROUTINE:
            return ROUTINE[decision]
        if decision == "number":
            return self.rng.choice(["roll", *NUMBER_WORDS])
        self.numbers[round_] = listen["number"]
        if decision == "clue":
            return self.rng.choice(CLUES)
        if decision == "accuse":
            weasel, roll = self.weasel(round_), self.rng.random()
            others = [s for s in range(self.players) if s != seat]
            target = (seat if roll < 0.3 else weasel if roll < 0.75 else self.rng.choice(others))
            self.accusations.setdefault(round_, [0] * self.players)[seat] = target
            return "myself" if target == seat else self.names[target]
        if decision == "guess":
            # a guesser guesses the word on their own card, or another word of the round
            row = self.layout.rows[round_ - 1]  # its options are not streamed: a secret
            word = (self.my_word(seat, round_) if self.rng.random() < 0.6
                    else self.rng.choice(sorted((*row.ferret_words, *row.weasel_words))))
            self.guesses.setdefault(round_, {})[seat] = word
            return word
        raise AssertionError(f"the host asked what printed cards already tell it: {listen}")

    def expected_scores(self) -> list[int]:
        return self.scores_after(len(self.accusations))

    def scores_after(self, rounds: int) -> list[int]:
        totals = [0] * self.players
        for round_, accusations in sorted(self.accusations.items())[:rounds]:
            row = self.layout.rows[round_ - 1]
            ferret_word = row.ferret_words[self.numbers[round_] - 1]
            points = score_round(accusations, self.weasel(round_), self.guesses.get(round_, {}),
                                 ferret_word)
            totals = [t + p for t, p in zip(totals, points, strict=True)]
        return totals


def ferret_slips_showing_more(layout: FerretLayout, opened: list[tuple[str, Piece]]
                              ) -> list[Piece]:
    """Every opened slip whose inside shows anything but its own row's six numbered words for
    its letter."""
    wrong = []
    for _, piece in opened:
        row = layout.rows[int(piece.label.removeprefix("row ")) - 1]
        words = row.words_on(letters(layout.deck.players).index(piece.letter))
        if piece.inside != tuple(t for n, w in enumerate(words, 1) for t in (str(n), w)):
            wrong.append(piece)
    return wrong


def ferret_secrets_said(events: list[dict[str, Any]], table: FerretTable) -> list[str]:
    """Every sentence said before its round's reveal that names anyone as the Weasel, or speaks
    the round's Ferret or Weasel word when no player said that word first."""
    leaks: list[str] = []
    names = set(table.names)
    for round_, text in said_before_reveals(events):
        if round_ > len(table.accusations):
            continue
        row = table.layout.rows[round_ - 1]
        number = table.numbers.get(round_)
        secret = set() if number is None else {row.ferret_words[number - 1].lower(),
                                               row.weasel_words[number - 1].lower()}
        secret -= table.typed.get(round_, set())
        for sentence in sentences(text):
            words = set(re.findall(r"[a-z']+", sentence))
            if (words & names and "weasel" in words) or words & secret:
                leaks.append(f"round {round_}: {sentence}")
    return leaks


def play_ferret(tmp_path: Path, deck: Deck, cards: str, table: FerretTable,
                seed: int, end: str = "rounds") -> list[dict[str, Any]]:
    command = voicehost("play", "ferret-out", "--io", "text", "--cards", cards,
                        "--seed", str(seed), *kept_in(tmp_path), "--set", "study_seconds=0",
                        "--set", f"end={end}")
    if cards == "":
        command.remove("")  # --cards with no number: the host asks
        command += ["--players", str(deck.players)]
    return drive(command, tmp_path / "events.jsonl", table.reply, on_event=table.hear_host)


@pytest.mark.parametrize(("players", "asked", "end", "seed"), [
    (3, False, "rounds", 3), (5, True, "rounds", 5), (7, False, "rounds", 7),
    (4, False, "rounds", 3),  # a tie after round 8: tie-break rows on the second card
    (6, False, "20", 6)])
def test_a_printed_ferret_out_game_is_scored_by_the_host_alone(
        tmp_path: Path, players: int, asked: bool, end: str, seed: int) -> None:
    deck = Deck("ferret-out", players, 300 + players)
    read_out = [spoken(deck.number[:3]), spoken(deck.number[3:])] if asked else []
    table = FerretTable(deck, seed, read_out, end)
    events = play_ferret(tmp_path, deck, "" if asked else deck.number, table, seed, end)
    assert sorted(table.cards) == sorted(table.names)
    assert sorted(table.cards.values()) == list(letters(players))  # one letter each
    assert not any(e["decision"] in ("weasel", "guess_right") for e in of(events, "listen"))
    scores = of(events, "score")
    rounds = len(scores)
    assert rounds == len(table.accusations)  # one round per printed row
    assert [s["weasel"] for s in scores] == [table.weasel(r) for r in range(1, rounds + 1)]
    over = of(events, "game_over")
    expected = table.expected_scores()
    assert over and over[0]["scores"] == expected
    assert over[0]["winners"] == leaders(expected)
    assert len(leaders(expected)) == 1  # played on until one winner, as the rulebook says
    if end == "rounds":
        ties_at = [r for r in range(8, rounds) if len(leaders(table.scores_after(r))) > 1]
        assert rounds >= 8 and ties_at == list(range(8, rounds))  # only ties go on
        if players == 4:
            assert rounds > 8  # its seed was chosen for a tie after round 8
    else:
        assert max(expected) >= int(end) > max(table.scores_after(rounds - 1))
        assert rounds > 8, "a game to 20 points ends after row 8"
    said = " ".join(e["text"] for e in events if e["event"] == "say")
    if rounds > 8:
        assert "rows 9 to 16" in said.lower()  # the host says when to take the next card
    for r in range(1, rounds + 1):
        assert f"row {r}" in said
        row = table.layout.rows[r - 1]
        ferret = row.ferret_words[table.numbers[r] - 1]
        assert ferret in said  # said at the reveal
    assert not ferret_secrets_said(events, table)
    # each round every player opened one slip, the named row's, and it showed only that row
    opened = table.holders.opened
    assert [p.label for _, p in opened] == [f"row {r}" for r in range(1, rounds + 1)
                                            for _ in range(players)]
    assert not ferret_slips_showing_more(table.layout, opened)
    assert not asked_to_show(events)
    secrets = secrets_kept(tmp_path)
    assert len(secrets) == 1 and secrets[0]["secret"] is True
    assert [r["weasel"] for r in secrets[0]["rounds"][:rounds]] == [
        table.names[table.weasel(r)] for r in range(1, rounds + 1)]
    assert not of(events, "secrets")
    flagged = [e for e in events if e.get("secret")]
    assert flagged and all(e["event"] == "listen" and e["decision"] == "guess"
                           and e["options"] == [] and "say" not in e for e in flagged)
    records = read_records(tmp_path / "game.jsonl")
    assert records[0]["cards"] == ("ask" if asked else deck.number)
    kinds = {a.kind for a in actions_of(records)}
    assert "weasel" not in kinds and "guess_right" not in kinds


def test_the_ferret_leak_check_catches_a_secret_said_too_soon(tmp_path: Path) -> None:
    """The leak check above is not blind: a Weasel named or a word said before the reveal is
    caught."""
    deck = Deck("ferret-out", 4, 44)
    table = FerretTable(deck, 4, [])
    events = play_ferret(tmp_path, deck, deck.number, table, seed=4)
    assert not ferret_secrets_said(events, table)
    for r in range(1, 9):
        row, at = table.layout.rows[r - 1], table.numbers[r] - 1
        unsaid = [w for w in (row.ferret_words[at], row.weasel_words[at])
                  if w.lower() not in table.typed[r]]
        if unsaid:
            break
    first_say = next(i for i, e in enumerate(events)
                     if e["event"] == "say" and f"row {r}" in e["text"])
    for leak in (f"{table.names[table.weasel(r)].title()} is the Weasel.", f"Hint: {unsaid[0]}."):
        leaked = [*events[:first_say + 1], {"event": "say", "text": leak},
                  *events[first_say + 1:]]
        assert ferret_secrets_said(leaked, table)
    # and a slip showing a later row besides its own is caught
    name, first = table.holders.opened[0]
    two_rows = replace(first, inside=first.inside + table.holders.opened[-1][1].inside)
    assert not ferret_slips_showing_more(table.layout, [(name, first)])
    assert ferret_slips_showing_more(table.layout, [(name, two_rows)]) == [two_rows]


# -- Secret Operation ---------------------------------------------------------------------------


class OperationTable(HoldingTable):
    """Players holding printed identity cards, playing the moves of `OperationScript` (the
    identity cards change no move: the script's plan decides who wins)."""

    def __init__(self, script: OperationScript, deck: Deck, read_out: list[str]) -> None:
        self.script = script
        self.read_out = list(read_out)
        self.holders = Holders(pieces(deck))

    def reply(self, listen: dict[str, Any]) -> str:
        if listen["decision"] == "deck_number":
            return self.read_out.pop(0)
        return self.script.varied(listen)

    def identities(self, deck: Deck) -> list[str]:
        on_card = operation_layout(deck, BOARDS).identities
        return [on_card[letters(deck.players).index(self.cards[name])]
                for name in self.script.names]


def impostors_named_before_the_end(events: list[dict[str, Any]], names: list[str]) -> list[str]:
    """Every sentence said before game over that ties a seat name to being an impostor (no
    line before the end names a player and impostors together)."""
    leaks: list[str] = []
    for event in events:
        if event["event"] == "game_over":
            break
        if event["event"] != "say":
            continue
        for sentence in re.split(r"(?<=[.?!])\s+", event["text"].lower()):
            words = set(re.findall(r"[a-z]+", sentence))
            if words & set(names) and words & {"impostor", "impostors"}:
                leaks.append(sentence)
    return leaks


@pytest.mark.parametrize(("players", "plan", "asked"),
                         [(4, "engineers", True), (7, "impostors", False),
                          (10, "engineers", False)])
def test_a_printed_secret_operation_game_names_the_winners(tmp_path: Path, players: int,
                                                           plan: str, asked: bool) -> None:
    deck = Deck("secret-operation", players, 500 + players)
    script = OperationScript(players, players, plan)
    read_out = [spoken(deck.number[:3]), spoken(deck.number[3:])] if asked else []
    table = OperationTable(script, deck, read_out)
    command = voicehost("play", "secret-operation", "--io", "text", "--cards",
                        "" if asked else deck.number, "--seed", str(players), *kept_in(tmp_path))
    if asked:
        command.remove("")
        command += ["--players", str(players)]
    events = drive(command, tmp_path / "events.jsonl", table.reply, on_event=table.hear_host)
    assert sorted(table.cards) == sorted(script.names)
    identities = table.identities(deck)
    assert identities.count("impostor") == impostor_count(players)
    side = "impostor" if plan == "impostors" else "engineer"
    over = of(events, "game_over")
    assert over and over[0]["winner"] == plan
    assert over[0]["winners"] == [s for s, who in enumerate(identities) if who == side]
    impostors = [n for n, who in zip(script.names, identities, strict=True) if who == "impostor"]
    final = [e["text"] for e in events if e["event"] == "say"][-1]
    assert all(name.title() in final for name in impostors)
    assert not impostors_named_before_the_end(events, script.names)
    # one identity card each, for the whole game: its inside shows that identity alone, and no
    # slip or card is ever to be opened at a round or shown
    assert table.holders.opened == []
    on_card = dict(zip(letters(players), operation_layout(deck, BOARDS).identities,
                       strict=True))
    for piece in (p for p in table.holders.pieces if p.kind == IDENTITY):
        assert {"engineer", "impostor"} & set(piece.inside) == {on_card[piece.letter]}
        assert not {"engineer", "impostor"} & {w.lower() for w in piece.outside}
    assert not asked_to_show(events)
    secrets = secrets_kept(tmp_path)
    assert len(secrets) == 1 and secrets[0]["secret"] is True
    assert secrets[0]["identities"] == dict(zip(script.names, identities, strict=True))
    assert not any(e["event"] == "secrets" or e.get("secret") for e in events)
    assert read_records(tmp_path / "game.jsonl")[0]["cards"] == ("ask" if asked else deck.number)


def test_the_impostor_leak_check_catches_an_impostor_named_too_soon() -> None:
    names = ["fox", "owl", "bear", "frog"]
    fine = [{"event": "say", "text": "Fox, take letter B. Owl, take letter A. Look at your card: "
                                     "engineer or impostor."},
            {"event": "game_over"}, {"event": "say", "text": "Impostor cards: Owl."}]
    assert not impostors_named_before_the_end(fine, names)
    for leak in ("Owl is an impostor.", "Impostor cards: Owl.", "The impostors were fox."):
        leaked = [fine[0], {"event": "say", "text": leak}, *fine[1:]]
        assert impostors_named_before_the_end(leaked, names), leak


def test_the_engines_refuse_printed_secrets_that_do_not_fit() -> None:
    from voicehost.games.base import IllegalAction
    from voicehost.games.secret_operation import SecretOperation, read_boards
    from voicehost.prompts_dir import load_yaml

    robot = read_boards(load_yaml("secret_operation/boards.yaml")).robot(5)
    for wrong in (["impostor"] * 5, ["engineer"] * 5, ["impostor", "impostor", "engineer"]):
        with pytest.raises(IllegalAction):
            SecretOperation(5, 1, robot, wrong)
    game = SecretOperation(5, 1, robot, ["engineer", "impostor", "engineer", "impostor",
                                         "engineer"])
    assert game.impostor_seats() == [1, 3] and game.winners() == []  # nobody has won yet
