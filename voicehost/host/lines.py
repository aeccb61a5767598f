"""Everything the host says comes from prompts/: a key, several phrasings, facts to fill in."""

from __future__ import annotations

import random
from typing import Any

from voicehost.prompts_dir import load_yaml


class Lines:
    def __init__(self, *files: str, seed: int = 0) -> None:
        self.table: dict[str, list[str]] = {}
        for relative in files:
            for key, phrasings in load_yaml(relative).items():
                self.table[key] = [phrasings] if isinstance(phrasings, str) else list(phrasings)
        self.rng = random.Random(seed)

    def __call__(self, key: str, **facts: Any) -> str:
        """A phrasing of `key` with `facts` filled in. For each whole number `x` a line may
        also say `{x_s}`: "" when x is 1, else "s" ("{points} point{points_s}")."""
        plurals = {f"{name}_s": "" if value == 1 else "s" for name, value in facts.items()
                   if isinstance(value, int) and not isinstance(value, bool)}
        return self.rng.choice(self.table[key]).format(**facts, **plurals)

    def count(self, key: str, n: int) -> str:
        """`n` things, said with `key` ("{n} rounds"), or `key`_one when n is 1 ("one round")."""
        return self(f"{key}_one" if n == 1 and f"{key}_one" in self.table else key, n=n)

    def either(self, items: list[str]) -> str:
        """"Fox, Owl or Bear": one of them, to choose."""
        if len(items) < 2:
            return "".join(items)
        return f"{', '.join(items[:-1])} {self('or')} {items[-1]}"


def spoken_list(items: list[str]) -> str:
    """"fox", "fox and owl", "fox, owl and bear"."""
    if not items:
        return ""
    if len(items) == 1:
        return items[0]
    return ", ".join(items[:-1]) + " and " + items[-1]
