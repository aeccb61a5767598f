"""Checks on the Ferret Out word pouches: shape, alignment, and words a voice host can hear."""

from __future__ import annotations

import itertools
import re
from functools import cache
from pathlib import Path

import pytest
import yaml
from pocketsphinx import Decoder

from voicehost.games.ferret_out import OTHER_WORD, ROLL, WORDS_PER_ROW, PouchPair

PROMPTS = Path(__file__).parents[1] / "prompts"
DECK_PATH = PROMPTS / "ferret_out" / "pouches.yaml"
MIN_PAIRS = 40
WORD = re.compile(r"[a-z]+")
# Two words offered together must differ in at least 2 phones and in 40% of the longer word.
MIN_PHONE_EDITS = 2
MIN_PHONE_SHARE = 0.4


@pytest.fixture(scope="module")
def pairs() -> list[dict]:
    data = yaml.safe_load(DECK_PATH.read_text(encoding="utf-8"))
    assert isinstance(data, dict) and set(data) == {"pouches"}, "a mapping with 'pouches' only"
    assert isinstance(data["pouches"], list)
    return data["pouches"]


@cache
def decoder() -> Decoder:
    return Decoder(samprate=16000, loglevel="FATAL")


@cache
def phones(word: str) -> tuple[str, ...]:
    pronunciation = decoder().lookup_word(word)
    return tuple(pronunciation.split()) if pronunciation else ()


def phone_edits(a: tuple[str, ...], b: tuple[str, ...]) -> int:
    previous = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        current = [i]
        for j, y in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x != y)))
        previous = current
    return previous[-1]


def sound_alike(a: str, b: str) -> bool:
    edits = phone_edits(phones(a), phones(b))
    longer = max(len(phones(a)), len(phones(b)))
    return edits < MIN_PHONE_EDITS or edits / longer < MIN_PHONE_SHARE


def words_of(pair: dict) -> list[str]:
    return list(pair["ferrets"]) + list(pair["weasel"])


def template_words(template: str) -> set[str]:
    """The one-word phrases a hassil template can expand to: "(a|b)", "word", "skip [it]"."""
    bare = re.sub(r"\[[^\]]*\]", " ", template).strip()
    match = re.fullmatch(r"\(?([a-z|]+)\)?", bare)
    return set(match.group(1).split("|")) if match else set()


def reserved_words() -> set[str]:
    """What the host listens for besides a guess: commands, yes/no, ready, seat names."""
    intents = yaml.safe_load((PROMPTS / "common" / "intents.yaml").read_text(encoding="utf-8"))
    tokens = yaml.safe_load((PROMPTS / "common" / "tokens.yaml").read_text(encoding="utf-8"))
    templates = [t for phrases in intents["commands"].values() for t in phrases]
    templates += [t for phrases in intents["confirm"].values() for t in phrases]
    templates += [t for phrases in intents["ready"].values() for t in phrases]
    templates += intents["self"]
    words = set().union(*map(template_words, templates))
    return words | set(tokens["tokens"]) | set(tokens["numbers"]) | {OTHER_WORD, ROLL}


def test_deck_has_enough_pouch_pairs(pairs):
    assert len(pairs) >= MIN_PAIRS, f"only {len(pairs)} pouch pairs, need at least {MIN_PAIRS}"


def test_every_pair_is_six_and_six_words(pairs):
    bad = [
        (i, pair) for i, pair in enumerate(pairs)
        if not isinstance(pair, dict) or set(pair) != {"ferrets", "weasel"}
        or not all(isinstance(pair[side], list) and len(pair[side]) == WORDS_PER_ROW
                   for side in ("ferrets", "weasel"))
    ]
    assert not bad, f"pairs that are not six ferret words and six weasel words: {bad}"


def test_every_word_is_one_lower_case_word(pairs):
    bad = [(i, w) for i, pair in enumerate(pairs) for w in words_of(pair)
           if not isinstance(w, str) or WORD.fullmatch(w) is None]
    assert not bad, f"words that are not a single lower-case word: {bad}"


def test_no_word_twice_within_a_pair(pairs):
    bad = [(i, words_of(pair)) for i, pair in enumerate(pairs)
           if len(set(words_of(pair))) != 2 * WORDS_PER_ROW]
    assert not bad, f"pairs with a word twice: {bad}"


def test_aligned_words_differ(pairs):
    bad = [(i, f, w) for i, pair in enumerate(pairs)
           for f, w in zip(pair["ferrets"], pair["weasel"], strict=True) if f == w]
    assert not bad, f"a ferret word the same as its weasel word: {bad}"


def test_no_word_twice_in_the_deck(pairs):
    seen: dict[str, int] = {}
    repeats = []
    for i, pair in enumerate(pairs):
        for word in words_of(pair):
            if word in seen:
                repeats.append((word, seen[word], i))
            seen.setdefault(word, i)
    assert not repeats, f"words in more than one pouch pair (word, first, again): {repeats}"


def test_every_word_is_in_the_recognizer_dictionary(pairs):
    missing = sorted({w for pair in pairs for w in words_of(pair) if not phones(w)})
    assert not missing, f"words pocketsphinx cannot hear: {missing}"


def test_no_two_words_of_a_pair_sound_alike(pairs):
    bad = [
        (i, a, b) for i, pair in enumerate(pairs)
        for a, b in itertools.combinations(words_of(pair), 2)
        if sound_alike(a, b) or a.startswith(b) or b.startswith(a)
    ]
    assert not bad, f"words offered together that sound alike: {bad}"


def test_no_word_is_something_the_host_listens_for_anyway(pairs):
    clashes = sorted({w for pair in pairs for w in words_of(pair)} & reserved_words())
    assert not clashes, f"deck words that are also commands, answers or seat names: {clashes}"


def test_the_rules_engine_takes_every_pair(pairs):
    loaded = [PouchPair.from_json(pair) for pair in pairs]
    assert all(len(p.words()) == 2 * WORDS_PER_ROW for p in loaded)


@pytest.mark.parametrize(
    ("a", "b", "alike"),
    [("cat", "cap", True), ("pen", "pin", True), ("skiing", "skating", True),
     ("cat", "dog", False), ("violin", "cello", False), ("rain", "snow", False)],
)
def test_the_sound_alike_rule_itself(a: str, b: str, alike: bool) -> None:
    assert sound_alike(a, b) is alike


def test_reserved_words_come_from_the_host_phrases() -> None:
    reserved = reserved_words()
    seat = yaml.safe_load((PROMPTS / "common" / "tokens.yaml").read_text())["tokens"][0]
    assert {"repeat", "skip", "yes", "nope", "ready", "myself", seat, "other"} <= reserved
    assert template_words("(scores|score|standings)") == {"scores", "score", "standings"}
    assert template_words("go back") == set()
