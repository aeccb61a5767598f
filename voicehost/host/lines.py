"""Everything the host says comes from prompts/: a key, several phrasings, facts to fill in."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from voicehost.prompts_dir import load_yaml


class Lines:
    def __init__(self, *files: str, seed: int = 0) -> None:
        self.table: dict[str, list[str]] = {}
        for relative in files:
            for key, phrasings in load_yaml(relative).items():
                self.table[key] = [phrasings] if isinstance(phrasings, str) else list(phrasings)
        self.rng = random.Random(seed)
        self.used: Counter[tuple[str, int]] = Counter()

    def __call__(self, key: str, **facts: Any) -> str:
        """A phrasing of `key` with `facts` filled in. For each whole number `x` a line may
        also say `{x_s}`: "" when x is 1, else "s" ("{points} point{points_s}")."""
        plurals = {f"{name}_s": "" if value == 1 else "s" for name, value in facts.items()
                   if isinstance(value, int) and not isinstance(value, bool)}
        return self.wording(key).format(**facts, **plurals)

    def wording(self, key: str) -> str:
        """One of `key`'s wordings, the least said so far (by chance among those): a line said
        often goes round all its wordings."""
        wordings = self.table[key]
        fewest = min(self.used[key, i] for i in range(len(wordings)))
        chosen = self.rng.choice([i for i in range(len(wordings)) if self.used[key, i] == fewest])
        self.used[key, chosen] += 1
        return wordings[chosen]

    def count(self, key: str, n: int) -> str:
        """`n` things, said with `key` ("{n} rounds"), or `key`_one when n is 1 ("one round")."""
        return self(f"{key}_one" if n == 1 and f"{key}_one" in self.table else key, n=n)

    def either(self, items: list[str]) -> str:
        """"Fox, Owl or Bear": one of them, to choose."""
        if len(items) < 2:
            return "".join(items)
        return f"{', '.join(items[:-1])} {self('or')} {items[-1]}"


def said_number(n: int) -> str:
    """A count as said: "four", not "4" (past ten, its digits)."""
    words = ["zero", *load_yaml("common/tokens.yaml")["numbers"]]
    return words[n] if 0 <= n < len(words) else str(n)


def spoken_list(items: list[str]) -> str:
    """"fox", "fox and owl", "fox, owl and bear"."""
    if not items:
        return ""
    if len(items) == 1:
        return items[0]
    return ", ".join(items[:-1]) + " and " + items[-1]
