"""Checks on the Secret Squad question deck: shape, read-aloud rules and uniqueness."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

DECK_PATH = Path(__file__).parents[1] / "prompts" / "secret_squad" / "questions.yaml"
SIDES = ("yellow", "red")
MIN_CARDS = 100
MAX_WORDS = 12
# Letters, spaces, apostrophes and commas only, then exactly one closing question mark.
ALLOWED = re.compile(r"[A-Za-z' ,]+\?")


def normalize(text: str) -> str:
    return " ".join(text.split()).casefold()


@pytest.fixture(scope="module")
def cards() -> list:
    data = yaml.safe_load(DECK_PATH.read_text(encoding="utf-8"))
    assert isinstance(data, dict), "deck must be a mapping with a 'cards' key"
    assert set(data) == {"cards"}, f"unexpected top-level keys: {sorted(data)}"
    assert isinstance(data["cards"], list), "'cards' must be a list"
    return data["cards"]


def all_sides(cards: list) -> list[tuple[int, str, str]]:
    return [(i, side, card[side]) for i, card in enumerate(cards) for side in SIDES]


def test_deck_has_enough_cards(cards):
    assert len(cards) >= MIN_CARDS, f"only {len(cards)} cards, need at least {MIN_CARDS}"


def test_every_card_has_exactly_yellow_and_red(cards):
    bad = [
        (i, card)
        for i, card in enumerate(cards)
        if not isinstance(card, dict) or set(card) != set(SIDES)
    ]
    assert not bad, f"cards without exactly the keys yellow and red: {bad}"


def test_every_side_is_a_non_empty_string(cards):
    bad = [
        (i, side, text)
        for i, side, text in all_sides(cards)
        if not isinstance(text, str) or not text.strip()
    ]
    assert not bad, f"sides that are not non-empty strings: {bad}"


def test_every_side_ends_with_question_mark(cards):
    bad = [(i, side, text) for i, side, text in all_sides(cards) if not text.endswith("?")]
    assert not bad, f"sides not ending with '?': {bad}"


def test_every_side_is_at_most_twelve_words(cards):
    bad = [(i, side, text) for i, side, text in all_sides(cards) if len(text.split()) > MAX_WORDS]
    assert not bad, f"sides longer than {MAX_WORDS} words: {bad}"


def test_every_side_uses_only_speakable_characters(cards):
    bad = [(i, side, text) for i, side, text in all_sides(cards) if ALLOWED.fullmatch(text) is None]
    assert not bad, f"sides with characters other than letters, spaces, ' and , : {bad}"


def test_no_side_appears_twice_in_the_deck(cards):
    seen: dict[str, tuple[int, str]] = {}
    duplicates = []
    for i, side, text in all_sides(cards):
        key = normalize(text)
        if key in seen:
            duplicates.append((seen[key], (i, side), text))
        else:
            seen[key] = (i, side)
    assert not duplicates, f"questions that appear more than once: {duplicates}"


def test_the_two_sides_of_a_card_differ(cards):
    bad = [
        (i, card["yellow"])
        for i, card in enumerate(cards)
        if normalize(card["yellow"]) == normalize(card["red"])
    ]
    assert not bad, f"cards whose yellow and red sides are the same: {bad}"


@pytest.mark.parametrize(
    "text, ok",
    [
        ("Have you ever slept in a tent?", True),
        ("Do you like your grandparents' cooking, honestly?", True),
        ("Have you ever slept in a tent", False),
        ("Have you ever been to 3 concerts?", False),
        ("Do you like sci-fi?", False),
        ("Do you like tea (or coffee)?", False),
        ("Really?? Yes?", False),
    ],
)
def test_character_rule_itself(text, ok):
    assert (ALLOWED.fullmatch(text) is not None) is ok
