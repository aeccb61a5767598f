"""Secret Squad with printed slips, through `voicehost play --io text --cards`: the host deals
by voice, names the box, and scores the reveal alone, without ever saying a squad before it.
The players hold the slips of their letter as cards/pieces.py describes them (tests/
test_cards_pdf.py checks the PDF prints exactly that) and open only the slip the host names:
no slip it names shows anything of another box, and no line asks anyone to show a slip."""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import yaml
from drive import (
    drive,
    kept_in,
    play_text,
    resume_text,
    saying_once,
    secrets_kept,
    voicehost,
)
from wordings import any_of, facts_of, said_line

from voicehost.cards.pieces import SQUAD_WORDS, Piece, pieces, slips_of
from voicehost.games.base import Action, IllegalAction
from voicehost.games.deck import Deck, letters
from voicehost.games.layout import squad_layout
from voicehost.games.secret_squad import SecretSquad, Settings, award_round
from voicehost.prompts_dir import load_yaml, prompts_dir
from voicehost.session import actions_of
from voicehost.store.journal import read_records

TOKENS = load_yaml("common/tokens.yaml")["tokens"]
DIGIT_WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]
TAKE = said_line("take_card", name=re.compile(r"\w+"), letter=re.compile("[A-J]"))
# a round's result ends on who leads (or on the standings), worded alike by the games that
# score rounds
STANDINGS = any_of(*(said_line(key) for key in (
    "leads", "lead_shared", "lead_many", "all_level", "standings")))
OPEN = re.compile(r"\bopen\b.*?\b((?:box|row) \d+)\b")
SHOW_WORDS = {"show", "compare"}
PIECE_WORDS = {"card", "cards", "slip", "slips", "box", "boxes", "row", "rows"}
QUESTIONS = [q.lower() for card in yaml.safe_load(
    (prompts_dir() / "secret_squad" / "questions.yaml").read_text(encoding="utf-8"))["cards"]
    for q in (card["yellow"], card["red"])]


def spoken(number: str) -> str:
    return " ".join(DIGIT_WORDS[int(d)] for d in number)


def misread(number: str, rng: random.Random) -> str:
    """The number with one digit wrong, as a mishearing would give it."""
    position = rng.randrange(len(number))
    wrong = (int(number[position]) + rng.randrange(1, 10)) % 10
    return number[:position] + str(wrong) + number[position + 1:]


def told_to_open(sentence: str) -> str | None:
    """The slip a sentence of the host tells each player to open ("box 3", "row 5"), or None."""
    named = OPEN.search(sentence.lower())
    return named.group(1) if named else None


def asked_to_show(events: list[dict[str, Any]]) -> list[str]:
    """Every sentence of the host that asks players to show or compare a card, slip, box or
    row: the host knows every piece and reveals alone."""
    asked = []
    for event in events:
        if event["event"] == "say":
            for sentence in sentences(event["text"]):
                words = set(re.findall(r"[a-z]+", sentence.lower()))
                if words & SHOW_WORDS and words & PIECE_WORDS:
                    asked.append(sentence)
    return asked


class Holders:
    """Players holding the printed pieces of their letter (`pieces`): each opens a slip only
    when the host names it, and `opened` keeps every piece opened, in order."""

    def __init__(self, deck_pieces: tuple[Piece, ...]) -> None:
        self.pieces = deck_pieces
        self.cards: dict[str, str] = {}  # name → the letter the host dealt
        self.opened: list[tuple[str, Piece]] = []

    def hear(self, text: str) -> None:
        for take in map(facts_of, TAKE.finditer(text)):
            self.cards[take["name"].lower()] = take["letter"]
        for sentence in sentences(text):
            label = told_to_open(sentence)
            if label is not None:
                assert self.cards, f"told to open {label} before the slips were dealt"
                for name, letter in self.cards.items():
                    slips = slips_of(self.pieces, letter)
                    assert label in slips, f"no slip of letter {letter} says {label}"
                    self.opened.append((name, slips[label]))

    def open_now(self, name: str) -> Piece:
        """The piece `name` opened last."""
        return next(piece for who, piece in reversed(self.opened) if who == name)


def squad_slips_showing_more(deck: Deck, opened: list[tuple[str, Piece]]) -> list[Piece]:
    """Every opened slip whose inside shows anything but its own box's number and squad."""
    layout = squad_layout(deck)
    wrong = []
    for _, piece in opened:
        box = int(piece.label.removeprefix("box "))
        squad = layout.card(letters(deck.players).index(piece.letter))[box - 1]
        if piece.inside != (f"box {box}", SQUAD_WORDS[squad]):
            wrong.append(piece)
    return wrong


class HoldingTable:
    """Players holding the printed pieces (`holders`), listening to the host."""

    holders: Holders

    @property
    def cards(self) -> dict[str, str]:
        return self.holders.cards

    def hear_host(self, event: dict[str, Any]) -> None:
        if event["event"] == "say":
            self.holders.hear(event["text"])


class PrintedTable(HoldingTable):
    """Players holding printed slips: each reads their own slip of the box the host names."""

    def __init__(self, deck: Deck, seed: int, read_out: list[str]) -> None:
        self.holders = Holders(pieces(deck))
        self.names = TOKENS[: deck.players]
        self.rng = random.Random(seed)
        self.read_out = list(read_out)  # what the table says when asked for the deck number
        self.round_squads: dict[int, list[str]] = {}
        self.points: dict[int, list[int]] = {}

    def squad_seen(self, name: str) -> str:
        marks = [squad for squad, words in SQUAD_WORDS.items()
                 if words in self.holders.open_now(name).inside]
        assert len(marks) == 1, f"{name}'s open slip shows {marks}"
        return marks[0]

    def reply(self, listen: dict[str, Any]) -> str:
        decision, player = listen["decision"], listen["player"]
        if decision == "deck_number":
            return self.read_out.pop(0)
        if decision == "deal":
            round_ = len(self.round_squads) + 1
            self.round_squads[round_] = [self.squad_seen(n) for n in self.names]
            return "ready"
        if decision in ("ready", "confirm"):
            return "ready" if decision == "ready" else "yes"
        if decision == "roll_call":
            return "i'm in"
        if decision == "answer":
            return self.rng.choice(["yup", "nope"])
        if decision == "point":
            targets = [s for s in range(len(self.names)) if s != player or len(self.names) == 3]
            target = self.rng.choice(targets)
            self.points.setdefault(listen["round"], [0] * len(self.names))[player] = target
            return "myself" if target == player else self.names[target]
        raise AssertionError(f"the host asked what printed cards already tell it: {listen}")

    def expected_scores(self) -> list[int]:
        totals = [0] * len(self.names)
        for round_, squads in self.round_squads.items():
            for seat, award in enumerate(award_round(self.points[round_], squads)):
                totals[seat] += award["pick"] + award["bonus"]
        return totals


def play(tmp_path: Path, deck: Deck, cards: str, table: PrintedTable, seed: int,
         *extra: str) -> list[dict[str, Any]]:
    command = voicehost("play", "secret-squad", "--io", "text", "--cards", cards,
                        "--seed", str(seed), *kept_in(tmp_path), *extra)
    if cards == "":
        command.remove("")  # --cards with no number: the host asks
        command += ["--players", str(deck.players)]
    return drive(command, tmp_path / "events.jsonl", table.reply, on_event=table.hear_host)


def said_before_reveals(events: list[dict[str, Any]]) -> Iterator[tuple[int, str]]:
    """(round, words) for all the host said, in lower case, without the reveals: what it said
    before the reveal of that round. A round's reveal is the `say` right after its `score`
    event, up to its standings; the rest of that `say` is the next round already."""
    round_, revealing = 1, False
    for event in events:
        if event["event"] == "score":
            revealing = True
        if event["event"] != "say":
            continue
        text = event["text"]
        if revealing:
            standings = STANDINGS.search(text)
            assert standings, text
            text = text[standings.end():]
            round_, revealing = round_ + 1, False
        yield round_, text.lower()


def sentences(text: str) -> list[str]:
    return re.split(r"(?<=[.?!])\s+", text)


def squads_said_before_reveal(events: list[dict[str, Any]], names: list[str]) -> list[str]:
    """Every sentence the host said before a round's reveal that ties a player to a squad."""
    leaks = []
    for _, text in said_before_reveals(events):
        for question in QUESTIONS:  # a question card may name an animal that is a seat name
            text = text.replace(question, ". ")
        for sentence in sentences(text):
            words = set(re.findall(r"[a-z]+", sentence))
            if words & set(names) and words & {"yellow", "red"}:
                leaks.append(sentence)
    return leaks


@pytest.mark.parametrize("players", [3, 4, 7])
def test_a_printed_card_game_is_scored_by_the_host_alone(tmp_path: Path, players: int) -> None:
    deck = Deck("secret-squad", players, 100 + players)
    table = PrintedTable(deck, players, [])
    events = play(tmp_path, deck, deck.number, table, seed=players)
    assert sorted(table.cards) == sorted(table.names)
    assert sorted(table.cards.values()) == list(letters(players))  # one card each
    over = [e for e in events if e["event"] == "game_over"]
    assert over and over[0]["scores"] == table.expected_scores()
    scores = [e for e in events if e["event"] == "score"]
    assert [s["squads"] for s in scores] == [table.round_squads[r] for r in (1, 2, 3)]
    said = " ".join(e["text"] for e in events if e["event"] == "say")
    for r, squads in table.round_squads.items():
        yellow = [n.title() for n, s in zip(table.names, squads, strict=True) if s == "yellow"]
        assert f"box {r}" in said
        if yellow:
            assert f"Yellow squad: {yellow[0]}" in said
    assert "start the next game at box 4" in said
    assert not squads_said_before_reveal(events, table.names)
    # each round every player opened one slip, the named box's, and it showed only that box
    assert [p.label for _, p in table.holders.opened] == [
        f"box {r}" for r in (1, 2, 3) for _ in range(players)]
    assert not squad_slips_showing_more(deck, table.holders.opened)
    assert not asked_to_show(events)
    secrets = secrets_kept(tmp_path)
    assert len(secrets) == 1 and secrets[0]["secret"] is True
    assert [r["squads"] for r in secrets[0]["rounds"]] == [
        dict(zip(table.names, table.round_squads[r], strict=True)) for r in (1, 2, 3)]
    assert not any(e["event"] == "secrets" or e.get("secret") for e in events)


def test_the_host_asks_for_the_deck_number_and_refuses_a_misheard_one(tmp_path: Path) -> None:
    deck = Deck("secret-squad", 5, 424)
    misheard = misread(deck.number, random.Random(5))
    other_players = Deck("secret-squad", 4, 424).number
    read_out = [spoken(misheard[:3]), spoken(misheard[3:]),  # three digits at a time
                "one two three four five six seven", spoken(other_players), "what",
                spoken(deck.number[:3]), "the deck number is " + deck.number[3:]]
    table = PrintedTable(deck, 5, read_out)
    events = play(tmp_path, deck, "", table, seed=8)
    says = [e["text"] for e in events if e["event"] == "say"]
    assert "first three digits" in says[0] or "the first three?" in says[0]
    assert said_line("deck_digits", digits=spoken(misheard[:3]).capitalize()).match(says[1])
    assert "does not check out" in says[2]
    assert "has 6 digits" in says[3]
    assert "That deck is for 4 players, but 5 of you are playing" in says[4]
    assert "didn't" in says[5]  # not a number: asked again
    assert "last three" in says[6]
    assert f"Deck {deck.printed}" in says[7]
    assert TAKE.search(next(s for s in says[7:] if "box 1" in s))
    records = read_records(tmp_path / "game.jsonl")
    assert [a.choice for a in actions_of(records)][:7] == [
        misheard[:3], misheard[3:], "1234567", other_players, deck.number[:3], deck.number[3:],
        "ready"]
    over = [e for e in events if e["event"] == "game_over"]
    assert over and over[0]["scores"] == table.expected_scores()
    assert not squads_said_before_reveal(events, table.names)


def test_a_kill_after_the_deck_number_loses_nothing(tmp_path: Path) -> None:
    deck = Deck("secret-squad", 4, 77)
    table = PrintedTable(deck, 4,
                         [spoken(deck.number[:3]), spoken(deck.number[3:])])
    command = play_text("secret-squad", tmp_path, 4, 3, "--cards")
    resume = resume_text(tmp_path)
    seen = drive(command, tmp_path / "events.jsonl", table.reply, kill_after=3,
                 on_event=table.hear_host)
    rng = random.Random(4)
    while not any(e["event"] == "game_over" for e in seen):
        seen += drive(resume, tmp_path / "events.jsonl", table.reply,
                      kill_after=rng.randint(5, 30), on_event=table.hear_host)
    records = read_records(tmp_path / "game.jsonl")
    assert records[0]["cards"] == "ask"
    assert [a.choice for a in actions_of(records)[:2]] == [deck.number[:3], deck.number[3:]]
    # the deck number in two groups + 3 rounds × (deal + 12 answers + ready + 4 points): no
    # squad questions
    assert len(actions_of(records)) == 2 + 3 * (1 + 12 + 1 + 4)
    over = [e for e in seen if e["event"] == "game_over"]
    assert over[0]["scores"] == table.expected_scores()


def test_a_printed_game_resumed_mid_round_says_which_box_slip_is_this_rounds(
        tmp_path: Path) -> None:
    deck = Deck("secret-squad", 4, 31)
    table = PrintedTable(deck, 4, [])
    second_card = saying_once("quit game", lambda listen: (listen["decision"], listen.get("round"),
                                                           listen.get("card")) == ("answer", 2, 2),
                              table.reply)
    drive(voicehost("play", "secret-squad", "--io", "text", "--cards", deck.number, "--seed",
                    "5", *kept_in(tmp_path)), tmp_path / "events.jsonl", second_card,
          on_event=table.hear_host)
    opened = len(table.holders.opened)
    events = drive(resume_text(tmp_path), tmp_path / "events.jsonl", table.reply,
                   on_event=table.hear_host)
    first_answer = next(at for at, e in enumerate(events)
                        if e["event"] == "listen" and e["decision"] == "answer")
    said = " ".join(e["text"] for e in events[:first_answer] if e["event"] == "say")
    assert "card 2" in said.lower()
    assert [told_to_open(s) for s in sentences(said) if told_to_open(s)] == ["box 2"]
    assert [p.label for _, p in table.holders.opened[opened:opened + 4]] == ["box 2"] * 4
    over = [e for e in events if e["event"] == "game_over"]
    assert over and over[0]["scores"] == table.expected_scores()


def test_the_slip_checks_catch_a_card_of_every_box_and_a_call_to_show_it() -> None:
    """The checks above are not blind: a piece opened at box 1 that shows all the boxes (a
    whole card) is caught, and so is a line asking to show a card or compare slips."""
    deck = Deck("secret-squad", 4, 12)
    holders = Holders(pieces(deck))
    holders.hear("Fox, take letter B. Letter A is for Owl. Now open only your box 2 slip.")
    assert [(n, p.letter, p.label) for n, p in holders.opened] == [("fox", "B", "box 2"),
                                                                   ("owl", "A", "box 2")]
    assert not squad_slips_showing_more(deck, holders.opened)
    card_b = squad_layout(deck).card(1)
    whole_card = replace(holders.opened[0][1], inside=tuple(
        text for box, squad in enumerate(card_b, 1)
        for text in (f"box {box}", SQUAD_WORDS[squad])))
    assert squad_slips_showing_more(deck, [("fox", whole_card)]) == [whole_card]
    for line in ("Everyone, open your card and show box 1.", "Compare your slips for row 2."):
        assert asked_to_show([{"event": "say", "text": line}]), line
    assert not asked_to_show([{"event": "say", "text": "Three, two, one, show your easels!"}])


def test_a_deck_for_another_game_or_table_is_refused_at_the_start(tmp_path: Path) -> None:
    import subprocess

    for cards, extra, problem in [
        (Deck("ferret-out", 4, 1).number, [], "is for ferret-out"),
        (Deck("secret-squad", 5, 1).number, ["--players", "4"], "with 5 players"),
        ("123456", [], "does not check out"),
        (Deck("secret-squad", 4, 1).number, ["--set", "first_box=7"], "first_box"),
    ]:
        run = subprocess.run(voicehost("play", "secret-squad", "--io", "text", "--cards", cards,
                                       "--journal", str(tmp_path / "j.jsonl"), *extra),
                             capture_output=True, text=True, stdin=subprocess.DEVNULL)
        assert run.returncode != 0 and problem in run.stderr, run.stderr
        assert "Traceback" not in run.stderr


def test_deck_numbers_read_by_espeak_are_heard_or_refused_never_misdealt() -> None:
    """The real recognizer under the host's deck-number grammars (the first three digits of
    any Secret Squad deck, then any three digits; and the commands), fed espeak-ng voices
    reading deck numbers three digits at a time. A group may be not understood (the host asks
    again) or misheard; a misheard number must then fail its check digit, never become
    another deck. The plain voice is never misheard."""
    from voicehost.games.deck import DeckNumberError
    from voicehost.host.deck_number import DeckNumberGrammar, first_groups
    from voicehost.host.grammars import command_groups
    from voicehost.lab.speakers import SPEAKERS, Speaker, speak
    from voicehost.speech.base import recognize
    from voicehost.speech.pocketsphinx_engine import PocketsphinxRecognizer

    grammars = (DeckNumberGrammar(command_groups(), first_groups("secret-squad")),
                DeckNumberGrammar(command_groups()))
    recognizers = [PocketsphinxRecognizer() for _ in grammars]
    for recognizer, grammar in zip(recognizers, grammars, strict=True):
        recognizer.set_phrases(grammar.phrases)
    rng = random.Random(7)
    decks = [Deck("secret-squad", rng.randint(3, 10), rng.randrange(1000)) for _ in range(6)]
    plain = Speaker("plain", "en-us", 50, 150)
    tally: Counter[tuple[str, str]] = Counter()
    for speaker in (*SPEAKERS, plain):
        for deck in decks:
            heard = ""
            for group, grammar, recognizer in zip(
                    (deck.number[:3], deck.number[3:]), grammars, recognizers, strict=True):
                text = recognize(recognizer, speak(spoken(group), speaker)).text
                intent, _ = grammar.match(text)
                outcome = ("asked again" if intent is None
                           else "heard" if intent.value == group else "misheard")
                tally[(speaker.name, outcome)] += 1
                heard += group if intent is None else intent.value  # asked again: read right
            if heard != deck.number:
                with pytest.raises(DeckNumberError):
                    Deck.read(heard)
                tally[(speaker.name, "refused by the check digit")] += 1
    assert tally[("plain", "misheard")] == 0, tally
    assert tally[("plain", "heard")] >= 2 * len(decks) - 2, tally
    heard = sum(n for (_, outcome), n in tally.items() if outcome == "heard")
    assert heard >= len(decks) * 2 * (len(SPEAKERS) + 1) * 0.6, tally


def test_the_engine_given_printed_squads_scores_the_reveal_without_asking() -> None:
    dealt = [["yellow", "red", "red", "yellow"], ["red", "red", "yellow", "yellow"]]
    game = SecretSquad(4, seed=1, deck_size=20, settings=Settings(rounds=2), dealt=dealt)
    kinds = []
    while (decision := game.pending()) is not None:
        kinds.append(decision.kind)
        choice = decision.options[0] if decision.kind != "point" else str(
            {0: 3, 1: 2, 2: 0, 3: 1}[decision.decider])
        events = game.apply(Action(decision.kind, decision.decider, choice))
        if decision.kind == "point" and decision.decider == 3:
            assert [e.kind for e in events][:2] == ["reveal_now", "round_scored"]
            assert events[1].facts["squads"] == dealt[len(game.history) - 1]
    assert "squad" not in kinds
    expected = [0, 0, 0, 0]
    for squads in dealt:
        for seat, award in enumerate(award_round([3, 2, 0, 1], squads)):
            expected[seat] += award["pick"] + award["bonus"]
    assert game.scores == expected and expected != [0, 0, 0, 0]
    for wrong in ([["yellow"] * 4, dealt[1]], [dealt[0]], [["red", "red", "yellow"]] * 2):
        with pytest.raises(IllegalAction):
            SecretSquad(4, seed=1, deck_size=20, settings=Settings(rounds=2), dealt=wrong)
