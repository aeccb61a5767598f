"""Hearing a printed deck's number: three digits at a time, never snapped to near ones."""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from voicehost.games import PLAYER_RANGES
from voicehost.games.deck import GROUP, SEEDS, Deck
from voicehost.intents.grammar import Grammar, Intent
from voicehost.prompts_dir import load_yaml
from voicehost.words import normalize


def spoken_digits() -> dict[str, str]:
    """Word → digit, from prompts/cards/spoken.yaml ("oh" is a zero too)."""
    table = load_yaml("cards/spoken.yaml")
    return {word: digit for digit, words in table["digits"].items() for word in words}


def digits_from_speech(text: str) -> str | None:
    """"one five oh oh four two three", "150 0423", "double oh" → the digits said, or None when
    anything but digits (and a few filler words) was said."""
    table = load_yaml("cards/spoken.yaml")
    words = spoken_digits()
    repeats = {word: int(times) for times, names in table["repeats"].items() for word in names}
    filler = set(table["filler"])
    digits, times = "", 1
    for word in normalize(text).split():
        if word in filler:
            continue
        if word in repeats:
            times = repeats[word]
        elif word.isdigit():
            digits += word * times
            times = 1
        elif word in words:
            digits += words[word] * times
            times = 1
        else:
            return None
    return digits if digits and times == 1 else None


def say_digits(number: str) -> str:
    names = {digit: words[0] for digit, words in load_yaml("cards/spoken.yaml")["digits"].items()}
    return " ".join(names[digit] for digit in number)


def spoken_forms(group: str) -> list[str]:
    """Every reading of `group` the recognizer listens for: digit by digit, the words
    spoken.yaml lists under `listen` ("zero" or "oh"), else the digit's first word."""
    table = load_yaml("cards/spoken.yaml")
    heard = {digit: table["listen"].get(digit, words[:1])
             for digit, words in table["digits"].items()}
    return [" ".join(words) for words in itertools.product(*(heard[digit] for digit in group))]


class DeckNumberGrammar(Grammar):
    """The recognizer may return a group of three digits, or a command. The first group of a
    deck number is one of a few (the game and player count are known: `first_groups`); the
    second may be any three digits, so that a misheard digit fails the check digit instead of
    snapping to another deck. Digits are taken as said, never snapped to near ones. (Typed
    text may give the whole number at once.)"""

    def __init__(self, commands: Sequence[tuple[Intent, Sequence[str]]],
                 first_groups: Sequence[str] | None = None) -> None:
        self.commands = Grammar.build(commands)
        if first_groups is None:
            first_groups = ["".join(g) for g in itertools.product("0123456789", repeat=GROUP)]
        groups = {phrase: Intent("choose", group)
                  for group in first_groups for phrase in spoken_forms(group)}
        super().__init__({**groups, **self.commands.intents})

    def match(self, text: str) -> tuple[Intent | None, float]:
        said = normalize(text)
        if said in self.intents:
            return self.intents[said], 1.0
        digits = digits_from_speech(said)
        if digits is not None:
            return Intent("choose", digits), 1.0
        return self.commands.match(said)


def first_groups(game: str) -> list[str]:
    """The first three digits of every deck number of `game`, at every player count."""
    low, high = PLAYER_RANGES[game]
    return sorted({Deck(game, players, seed).number[:GROUP]
                   for players in range(low, high + 1) for seed in range(0, SEEDS, 100)})
