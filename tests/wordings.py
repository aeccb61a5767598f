"""The host's lines as the tests match them: every wording of a key in prompts/*/lines.yaml.

The host picks one wording of a line at random (voicehost/host/lines.py), so a test never looks
for one wording's text. `said_line(key)` is a regex that matches any wording of the key, each
{fact} in it filled with the value given for it (matched literally), or with a pattern given
for it (a compiled regex, another `said_line` too), or else left a wildcard: a stretch of one
sentence (no ".", "?" or "!") that neither starts nor ends with a space; a plural `{x_s}` is
"s" or nothing, or follows a whole number given for `x`. `facts_of(match)` reads the facts a
match found, whichever wording it matched. `any_of`, `then` and `any_case` combine lines, and
`options_said(game)` is the host reading out the options of any of the game's decisions.

    said_line("undone", what="Fox's answer").search(text)
    takes = said_line("take_card", name=re.compile(r"\\w+"), letter=re.compile("[A-J]"))
    [facts_of(m) for m in takes.finditer(text)]  # [{"name": "Fox", "letter": "B"}, ...]
"""

from __future__ import annotations

import re
from functools import cache
from itertools import count
from string import Formatter

from voicehost.host.lines import Lines
from voicehost.prompts_dir import prompts_dir

WILDCARD = r"[^\s.?!](?:[^.?!]*?[^\s.?!])?"
PLURAL = "s?"
SEPARATOR = "__"  # a group is named <fact>__<n>, n new for every wording made a regex
NUMBERS = count()


def games() -> list[str]:
    """The games with lines of their own (prompts/<game>/lines.yaml)."""
    return sorted(path.parent.name for path in prompts_dir().glob("*/lines.yaml")
                  if path.parent.name not in ("common", "cards"))


@cache
def table(game: str) -> dict[str, list[str]]:
    """Every wording of every line `game`'s host has, as its table loads them."""
    return Lines("common/lines.yaml", f"{game}/lines.yaml", "cards/lines.yaml").table


def wordings(key: str, game: str | Lines | None = None) -> list[str]:
    """The wordings of `key`: in `game`'s lines (a game's name or a `Lines`), or in any game's
    when None."""
    if isinstance(game, Lines):
        return list(game.table[key])
    found: list[str] = []
    for name in [game] if game else games():
        found += [w for w in table(name).get(key, []) if w not in found]
    if not found:
        raise KeyError(key)
    return found


def said_line(key: str, game: str | Lines | None = None, /,
              **facts: str | int | re.Pattern[str]) -> re.Pattern[str]:
    """A regex matching any wording of `key` (see the module's docstring); unanchored, so
    `.search` finds it in a longer text and `.match` / `.fullmatch` anchor it."""
    plurals = {f"{name}_s": "" if value == 1 else "s" for name, value in facts.items()
               if isinstance(value, int) and not isinstance(value, bool)}
    filled = {**plurals, **facts}
    return re.compile("|".join(f"(?:{wording_pattern(w, next(NUMBERS), filled)})"
                               for w in wordings(key, game)))


def any_of(*lines: re.Pattern[str]) -> re.Pattern[str]:
    """Any one of `lines` (each a `said_line`, or a regex without named groups)."""
    return re.compile("|".join(f"(?:{renumbered(line.pattern)})" for line in lines))


def options_said(game: str) -> re.Pattern[str]:
    """The host reading out the options of any decision of `game` ("You can say yup or
    nope."): the `options` line with one of the game's `options_...` lines in it."""
    keys = sorted(key for key in table(game) if key.startswith("options_")) + ["deck_options"]
    return said_line("options", game, options=any_of(*(said_line(k, game) for k in keys)))


def any_case(line: re.Pattern[str]) -> re.Pattern[str]:
    """`line` matched in any case, e.g. in the host's line lowered."""
    return re.compile(line.pattern, line.flags | re.IGNORECASE)


def then(*lines: re.Pattern[str]) -> re.Pattern[str]:
    """Lines said one after the other, in one breath ("The microphone is back. Robin?")."""
    return re.compile(" ".join(f"(?:{renumbered(line.pattern)})" for line in lines))


def wording_pattern(wording: str, number: int,
                    facts: dict[str, str | int | re.Pattern[str]]) -> str:
    """One wording as a regex, its groups named <fact>__`number`."""
    parts: list[str] = []
    seen: set[str] = set()
    for literal, field, _, _ in Formatter().parse(wording):
        parts.append(re.escape(literal))
        if field is None:
            continue
        group = f"{field}{SEPARATOR}{number}"
        value = facts.get(field)
        if field in seen:
            parts.append(f"(?P={group})")
            continue
        seen.add(field)
        if isinstance(value, re.Pattern):
            shape = renumbered(value.pattern)
        elif value is not None:
            shape = re.escape(str(value))
        else:
            shape = PLURAL if field.endswith("_s") else WILDCARD
        parts.append(f"(?P<{group}>{shape})")
    return "".join(parts)


def renumbered(pattern: str) -> str:
    """`pattern` (a `said_line`, a wording's fact) with new numbers for its groups, so that
    the same line may fill a fact in every wording."""
    numbers: dict[str, int] = {}

    def new(match: re.Match[str]) -> str:
        number = numbers.setdefault(match[3], next(NUMBERS))
        return f"{match[1]}{match[2]}{SEPARATOR}{number}"

    return re.sub(rf"(\(\?P[<=])(\w+?){SEPARATOR}(\d+)(?=[>)])", new, pattern)


def facts_of(match: re.Match[str]) -> dict[str, str]:
    """The facts a match of `said_line(...)` found, by name, in the wording it matched."""
    return {group.rsplit(SEPARATOR, 1)[0]: value
            for group, value in match.groupdict().items() if value is not None}

