"""Refusing bad input at the door, the way argparse does."""

from __future__ import annotations

import argparse
import difflib
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn


def refuse(message: str) -> NoReturn:
    """One line on standard error, exit status 2."""
    print(f"voicehost: error: {message}", file=sys.stderr, flush=True)
    raise SystemExit(2)


class Parser(argparse.ArgumentParser):
    """argparse, with a mistake refused in one line (no usage dump), and a word close to one
    of the choices answered with the likely one."""

    def error(self, message: str) -> NoReturn:
        refuse(f"{message} ({self.prog} --help lists the options.)")

    def _check_value(self, action: argparse.Action, value: Any) -> None:
        if action.choices is None or value in action.choices:
            return
        choices = [str(choice) for choice in action.choices]
        close = difflib.get_close_matches(str(value), choices, n=1)
        guess = f"; did you mean {close[0]}?" if close else "."
        name = action.option_strings[0] if action.option_strings else action.dest
        refuse(f"{name}: {value!r} is not one of {', '.join(choices)}{guess}")


def settings_given(args: argparse.Namespace) -> dict[str, str]:
    """`--set KEY=VALUE` options as a dict; a malformed one is refused."""
    settings = {}
    for item in args.set:
        key, equals, value = item.partition("=")
        if not equals:
            refuse(f"--set wants KEY=VALUE, not {item!r}.")
        settings[key.strip()] = value.strip()
    return settings


def whole(option: str, low: int | None = None, high: int | None = None, *,
          unit: str = "") -> Callable[[str], int]:
    """An argparse `type=` for `option`: a whole number from `low` to `high` (either open when
    None), else refused."""
    wants = (f"{low} to {high}" if low is not None and high is not None
             else f"{low} or more" if low is not None else "") + (f" {unit}" if unit else "")

    def convert(text: str) -> int:
        try:
            number = int(text)
        except ValueError:
            refuse(f"{option} wants a whole number{', ' + wants if wants else ''}, "
                   f"not {text!r}.")
        if (low is not None and number < low) or (high is not None and number > high):
            refuse(f"{option} wants {wants}, not {number}.")
        return number

    return convert


def between(option: str, low: float, high: float, *, above_low: bool = False,
            unit: str = "") -> Callable[[str], float]:
    """An argparse `type=` for `option`: a number from `low` to `high` (more than `low` with
    `above_low`), else refused."""
    wants = (f"more than {low:g} and at most {high:g}" if above_low
             else f"{low:g} to {high:g}") + (f" {unit}" if unit else "")

    def convert(text: str) -> float:
        try:
            number = float(text)
        except ValueError:
            refuse(f"{option} wants a number, {wants}, not {text!r}.")
        if not (low < number if above_low else low <= number) or not number <= high:
            refuse(f"{option} wants {wants}, not {text}.")
        return number

    return convert


def folder_there(option: str, path: Path) -> None:
    """Refuse `option PATH` when PATH's folder is not there: voicehost makes no folder it was
    not asked for."""
    if path.parent.is_dir():
        return
    if path.parent.exists():
        refuse(f"{option} {path}: {path.parent} is not a folder.")
    refuse(f"{option} {path}: there is no folder {path.parent}.")


def cannot_write(option: str, path: Path, problem: OSError) -> NoReturn:
    """Refuse `option PATH` with why the file could not be opened (PermissionError, ...)."""
    refuse(f"{option} {path}: {problem.strerror or problem}.")


def players_allowed(game: str, players: int) -> None:
    """Refuse a player count `game`'s rules do not allow."""
    from voicehost.registry import GAMES

    low, high = GAMES[game].players
    if not low <= players <= high:
        refuse(f"{game} is for {low} to {high} players, not {players}.")


def file_named(option: str, path: Path, suffix: str, what: str) -> None:
    """Refuse `option PATH` when PATH's name does not end in `suffix`: what is written there
    is `what`, whatever the name says."""
    if path.suffix.lower() != suffix:
        refuse(f"{option} {path}: {what}; name the file {suffix}.")


DECK_NUMBER_PROBLEMS = {  # DeckNumberError's reason → what is wrong with the number
    "deck_length": "a deck number has {digits} digits",
    "deck_check": "that deck number does not check out (a digit may be wrong)",
    "deck_unknown_game": "that is no deck number of a game voicehost hosts",
    "deck_player_count": "that deck number is for a player count no game has",
    "deck_seed": "that deck number does not check out (a digit may be wrong)",
}


def deck_number(cards: str) -> None:
    """Refuse `--cards NUMBER` when the number is no deck number that voicehost cards
    prints (checked as the host checks one read out)."""
    from voicehost.games.deck import Deck, DeckNumberError

    try:
        Deck.read(cards)
    except DeckNumberError as wrong:
        problem = DECK_NUMBER_PROBLEMS.get(wrong.reason, wrong.reason)
        refuse(f"--cards {cards}: {problem.format(**wrong.facts)}.")


def warn(message: str) -> None:
    """One line on standard error; the command goes on."""
    print(f"voicehost: warning: {message}", file=sys.stderr, flush=True)


def names_not_heard(names: Sequence[str], heard: frozenset[str]) -> None:
    """Refuse a seat name made only of words the host listens for as an answer or a command
    (`heard`), with its accents or without: "yes", "ready", "player one"."""
    from voicehost.intents.grammar import fold

    for name in names:
        if any(all(word in heard for word in spelling.split())
               for spelling in (name, fold(name))):
            refuse(f"--names: {name!r} is an answer or a command the host listens for; "
                   "pick another name.")


def warn_sound_alikes(names: Sequence[str], answers: frozenset[str]) -> None:
    """Warn about each seat name that sounds like an answer said alone (`answers`: "three",
    "no", "ready"); nothing where espeak-ng is not there to say how they sound."""
    from voicehost.intents.sounds import sound_alikes

    for name, answer in sound_alikes(names, sorted(answers)):
        warn(f'"{name}" sounds like "{answer}"; pick another name if the host mishears it.')
