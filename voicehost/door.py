"""Refusing bad input at the door, the way argparse does."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn


def refuse(message: str) -> NoReturn:
    """One line on standard error, exit status 2."""
    print(f"voicehost: error: {message}", file=sys.stderr, flush=True)
    raise SystemExit(2)


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
