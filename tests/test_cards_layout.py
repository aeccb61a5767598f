"""The secrets a deck number stands for, proven over many deck numbers: the deals the rules
allow, one Weasel per row, the impostors the rules count; and a misheard number is caught."""

from __future__ import annotations

import random
from collections import Counter
from functools import cache

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from voicehost.cards.pieces import IDENTITY, PRIVATE, SLIP, pieces, slips_of
from voicehost.games.deck import (
    DIGITS,
    GAME_CODES,
    PLAYER_RANGES,
    SEEDS,
    Deck,
    DeckNumberError,
    letters,
)
from voicehost.games.ferret_out import ROUNDS, FerretOut, PouchPair
from voicehost.games.layout import (
    ENGINEER,
    IMPOSTOR,
    SQUAD_BOXES,
    ferret_layout,
    operation_layout,
    squad_layout,
)
from voicehost.games.secret_operation import CARDS_IN_BOX, read_boards
from voicehost.host.deck_number import digits_from_speech, say_digits
from voicehost.host.ferret_out import deck as pouches
from voicehost.prompts_dir import load_yaml, prompts_dir

POUCHES = pouches()
BOARDS = load_yaml("secret_operation/boards.yaml")

# The rulebooks' own numbers, written out here rather than imported from the code under test.
IMPOSTORS = {4: 1, 5: 2, 6: 2, 7: 2, 8: 3, 9: 3, 10: 3}
SQUAD_CARDS_EACH = {3: 2, 4: 2, 5: 3, 6: 3, 7: 4, 8: 4, 9: 5, 10: 5}

decks = st.sampled_from(sorted(GAME_CODES)).flatmap(
    lambda game: st.builds(Deck, st.just(game),
                           st.integers(*PLAYER_RANGES[game]), st.integers(0, SEEDS - 1)))


def all_decks(game: str, seeds: range) -> list[Deck]:
    low, high = PLAYER_RANGES[game]
    return [Deck(game, players, seed) for players in range(low, high + 1) for seed in seeds]


# -- the deck number --------------------------------------------------------------------------


def test_every_deck_number_reads_back_as_its_deck() -> None:
    numbers = set()
    for game in GAME_CODES:
        for deck in all_decks(game, range(SEEDS)):
            assert len(deck.number) == DIGITS == 6 and Deck.read(deck.number) == deck
            numbers.add(deck.number)
    assert len(numbers) == sum(len(all_decks(g, range(1))) for g in GAME_CODES) * SEEDS


@given(decks, st.integers(0, 5), st.integers(1, 9))
def test_one_wrong_digit_is_caught(deck: Deck, position: int, shift: int) -> None:
    digits = list(deck.number)
    digits[position] = str((int(digits[position]) + shift) % 10)
    with pytest.raises(DeckNumberError):
        Deck.read("".join(digits))


@given(decks, st.integers(0, 4))
def test_two_swapped_neighbours_are_caught(deck: Deck, position: int) -> None:
    digits = list(deck.number)
    if digits[position] == digits[position + 1]:
        return
    digits[position], digits[position + 1] = digits[position + 1], digits[position]
    with pytest.raises(DeckNumberError):
        Deck.read("".join(digits))


@given(decks)
def test_a_deck_number_read_aloud_is_heard_back(deck: Deck) -> None:
    assert digits_from_speech(say_digits(deck.number)) == deck.number
    assert digits_from_speech(deck.printed) == deck.number
    spoken = say_digits(deck.number).replace("zero", "oh")
    assert digits_from_speech(f"the deck number is {spoken}") == deck.number


def test_spoken_digits_take_doubles_and_refuse_other_words() -> None:
    assert digits_from_speech("one double five triple oh two") == "1550002"
    assert digits_from_speech("one five bear four") is None
    assert digits_from_speech("double") is None
    for wrong in ("12345", "1234567", "12a456"):
        with pytest.raises(DeckNumberError):
            Deck.read(wrong)


# -- Secret Squad --------------------------------------------------------------------------------


def test_every_squad_box_is_a_deal_the_rules_allow() -> None:
    for deck in all_decks("secret-squad", range(0, SEEDS, 3)):
        layout = squad_layout(deck)
        assert len(layout.boxes) == SQUAD_BOXES >= 2 * 3  # a full game and a rematch
        each = SQUAD_CARDS_EACH[deck.players]
        for box, aside in zip(layout.boxes, layout.set_aside, strict=True):
            assert len(box) == deck.players
            counts = Counter(box)
            assert set(counts) <= {"yellow", "red"}
            if deck.players % 2 == 0:
                assert aside is None and counts == {"yellow": each, "red": each}
            else:  # the deal's set-aside card is the missing one
                assert aside in ("yellow", "red")
                assert counts + Counter([aside]) == Counter({"yellow": each, "red": each})


def test_squad_boxes_are_fresh_deals() -> None:
    """Over many decks each card is yellow about half the time in every box, and two boxes of
    one deck are not copies of each other."""
    yellow = Counter()
    same = 0
    decks_tried = all_decks("secret-squad", range(0, 400))
    for deck in decks_tried:
        layout = squad_layout(deck)
        for box_number, box in enumerate(layout.boxes):
            yellow[(deck.players, box_number, 0)] += box[0] == "yellow"
        same += layout.boxes[0] == layout.boxes[1]
    for count in yellow.values():
        assert 0.35 < count / 400 < 0.65
    assert same < len(decks_tried) / 4


# -- Ferret Out ----------------------------------------------------------------------------------


@cache
def pairs() -> list[PouchPair]:
    data = yaml.safe_load((prompts_dir() / "ferret_out" / "pouches.yaml").read_text())
    return [PouchPair.from_json(p) for p in data["pouches"]]


def test_every_ferret_row_has_exactly_one_weasel_card() -> None:
    known = {frozenset((p.ferrets, p.weasel)) for p in pairs()}
    weasels = Counter()
    for deck in all_decks("ferret-out", range(0, SEEDS, 4)):
        layout = ferret_layout(deck, POUCHES)
        assert [row.round for row in layout.rows] == list(range(1, ROUNDS + 1))
        engine = FerretOut(deck.players, deck.seed, pairs())
        for row in layout.rows:
            shown = [row.words_on(card) for card in range(deck.players)]
            lists = Counter(shown)
            assert len(lists) == 2 and sorted(lists.values()) == [1, deck.players - 1]
            odd = next(words for words, n in lists.items() if n == 1)
            weasels[(deck.players, shown.index(odd))] += 1
            assert frozenset(lists) in known  # a pouch pair, word n against word n
            set_index, face = divmod(row.round - 1, 4)
            played = pairs()[engine.shelf.pouch_set(set_index)[face]]
            assert frozenset(lists) == frozenset((played.ferrets, played.weasel))
        assert len({row.ferret_words for row in layout.rows}) == ROUNDS  # 8 different rows
    for players in range(3, 8):  # every card is the Weasel in some rows
        assert all(weasels[(players, card)] > 0 for card in range(players))


# -- Secret Operation ----------------------------------------------------------------------------


def test_impostor_count_matches_the_player_count() -> None:
    boards = read_boards(yaml.safe_load(
        (prompts_dir() / "secret_operation" / "boards.yaml").read_text()))
    for deck in all_decks("secret-operation", range(0, SEEDS, 5)):
        layout = operation_layout(deck, BOARDS)
        assert Counter(layout.identities) == {IMPOSTOR: IMPOSTORS[deck.players],
                                              ENGINEER: deck.players - IMPOSTORS[deck.players]}
        assert Counter(layout.components) == CARDS_IN_BOX
        assert Counter(layout.components) == {"mechanics": 18, "electronics": 12, "energy": 10,
                                              "block": 4}
        assert layout.modules == boards.robot(deck.players)


def test_impostors_sit_on_different_cards_across_decks() -> None:
    seeds = random.Random(1).sample(range(SEEDS), 300)
    decks = [Deck("secret-operation", 5, seed) for seed in seeds]
    first = Counter(operation_layout(deck, BOARDS).identities.index(IMPOSTOR) for deck in decks)
    assert len(first) == 4  # the first impostor card is any of A to D, never fixed


# -- the pieces printed ----------------------------------------------------------------------


def test_each_letter_has_one_slip_per_box_and_row_showing_that_one_only() -> None:
    """Over many decks: every letter has exactly one slip for each box (rows 1-16 for Ferret
    Out's 8 rounds), outside only the game, letter, box and deck number, inside that box's
    squad (that row's six numbered words) and nothing more; Secret Operation keeps one identity
    card per letter."""
    for deck in all_decks("secret-squad", range(0, SEEDS, 50)):
        layout, all_pieces = squad_layout(deck), pieces(deck)
        for at, letter in enumerate(letters(deck.players)):
            slips = slips_of(all_pieces, letter)
            assert sorted(slips) == sorted(f"box {b}" for b in range(1, SQUAD_BOXES + 1))
            for box, squad in enumerate(layout.card(at), 1):
                piece = slips[f"box {box}"]
                assert piece.outside == ("Secret Squad", letter, f"box {box}",
                                         f"deck {deck.printed}")
                assert piece.inside == (f"box {box}", f"{squad} squad")
        assert len(all_pieces) == SQUAD_BOXES * deck.players
    for deck in all_decks("ferret-out", range(0, SEEDS, 50)):
        layout, all_pieces = ferret_layout(deck, POUCHES, 2), pieces(deck)
        for at, letter in enumerate(letters(deck.players)):
            slips = slips_of(all_pieces, letter)
            assert sorted(slips) == sorted(f"row {r}" for r in range(1, 17))
            for row in layout.rows:
                piece = slips[f"row {row.round}"]
                assert set(piece.outside) == {"Ferret Out", letter, f"row {row.round}",
                                              f"deck {deck.printed}"}
                assert piece.inside[1::2] == row.words_on(at)
                assert piece.inside[::2] == tuple(str(n) for n in range(1, 7))
                assert piece.batch == row.row_card
        assert {p.kind for p in all_pieces} == {SLIP}
    for deck in all_decks("secret-operation", range(0, SEEDS, 100)):
        private = [p for p in pieces(deck) if p.kind in PRIVATE]
        assert [p.kind for p in private] == [IDENTITY] * deck.players
        assert [p.letter for p in private] == list(letters(deck.players))
