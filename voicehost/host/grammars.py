"""What the host accepts at each moment: a decision's options with every command, a yes or a
no (with corrections), the roll call's answer; and how a heard text is read against them."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from functools import cache
from typing import Any

from voicehost.games.base import Action, Decision
from voicehost.host.table import Choices, Table
from voicehost.intents.grammar import NO, Grammar, Intent, expand
from voicehost.prompts_dir import load_yaml
from voicehost.voice import Hearing
from voicehost.words import normalize, said_signs


def command_groups(names: tuple[str, ...] | None = None) -> list[tuple[Intent, list[str]]]:
    commands = load_yaml("common/intents.yaml")["commands"]
    return [(Intent(name), templates) for name, templates in commands.items()
            if names is None or name in names]


# The sections of common/intents.yaml players say (the rest tell the matcher how they say it).
SAID = ("commands", "confirm", "roll_call", "ready", "seat", "self", "pointed_at", "corrected")


def templates_in(tree: Any) -> Iterator[str]:
    """Every template in a parsed intents.yaml section (lists and mappings, at any depth),
    without its {placeholders}: what is left is said as it is."""
    if isinstance(tree, dict):
        for branch in tree.values():
            yield from templates_in(branch)
    elif isinstance(tree, list):
        for branch in tree:
            yield from templates_in(branch)
    elif (said := re.sub(r"\{\w+\}", " ", str(tree))).strip():
        yield said


@cache
def heard_phrases(game: str) -> frozenset[str]:
    """Every phrase players say as an answer or a command at `game` (its prompts folder:
    "secret_squad"), placeholders left out, and every number."""
    common = load_yaml("common/intents.yaml")
    said = [common[section] for section in SAID] + [load_yaml(f"{game}/intents.yaml")]
    return (frozenset(phrase for template in templates_in(said) for phrase in expand(template))
            | frozenset(load_yaml("common/tokens.yaml")["numbers"]))


def said_alone(game: str) -> frozenset[str]:
    """The `heard_phrases` of one word: answers and commands said alone ("three", "ready")."""
    return frozenset(phrase for phrase in heard_phrases(game) if " " not in phrase)


def heard_words(game: str) -> frozenset[str]:
    """Every word of `heard_phrases`: a seat named one of them is heard as an answer or a
    command."""
    return frozenset(word for phrase in heard_phrases(game) for word in phrase.split())


def decision_grammar(table: Table, decision: Decision) -> Grammar:
    """What the host accepts while `decision` is pending: its options and every command."""
    return table.grammar(decision, command_groups())


def heard_first(grammar: Grammar, groups: Choices) -> Grammar:
    """`grammar`, where the phrases of `groups` mean what `groups` say above all: the rest of
    a half move the host asked for ("energy"), or "stop" while a clock runs."""
    if not groups:
        return grammar
    return Grammar({**grammar.intents, **Grammar.build(groups).intents})


def timer_grammar(grammar: Grammar, choice: str) -> Grammar:
    """`grammar` while a clock runs: "stop" stops the clock (takes its `choice`), not the
    game."""
    stop = load_yaml("common/intents.yaml")["ready"]["timer"]
    return heard_first(grammar, [(Intent("choose", choice), stop)])


def wavering(grammar: Grammar, hearing: Hearing, decision: Decision | None
             ) -> tuple[Intent, ...]:
    """The decision's options the engine wavered between (best first), when there are two or
    more; else ()."""
    if decision is None:
        return ()
    options: dict[Intent, None] = {}
    for phrase, _ in hearing.alternatives:
        intent = grammar.intents.get(phrase)
        if intent is not None and intent.name == "choose" and intent.value in decision.options:
            options[intent] = None
    return tuple(options) if len(options) >= 2 else ()


def spell_numbers(text: str) -> str:
    """Typed digits as the words the phrases use: "player 3" is "player three". A sign or a
    decimal point is said too ("minus one", "one point five"): neither is a whole number."""
    words = {str(n): word for n, word in enumerate(load_yaml("common/tokens.yaml")["numbers"], 1)}
    return " ".join(words.get(token, token) for token in normalize(said_signs(text)).split())


def phrases_for(grammar: Grammar, options: tuple[str, ...]) -> dict[str, str]:
    """Each option's shortest phrase (what a display would show: "say owl"). An option is a
    choice's value, or, for a moment that only a command ends (paused), the command."""
    shortest: dict[str, str] = {}
    for phrase, intent in grammar.intents.items():
        option = intent.value if intent.name == "choose" else intent.name
        if option in options and len(phrase) < len(shortest.get(option, phrase + " ")):
            shortest[option] = phrase
    return {option: shortest[option] for option in options if option in shortest}


def confirm_grammar(corrections: Grammar | None = None) -> Grammar:
    """Yes or no, and every command: a question never stops the table asking for the rules,
    the scores, a pause or the end of the game. With `corrections` (the options of the choice
    read back), "no <option>" corrects it, the option said bare ("no bear", "no player
    three"); options that are themselves a yes or a no are not corrections."""
    confirm = load_yaml("common/intents.yaml")["confirm"]
    grammar = Grammar.build([(Intent("choose", answer), templates)
                             for answer, templates in confirm.items()] + command_groups())
    if corrections is None:
        return grammar
    options = Grammar({phrase: intent for phrase, intent in corrections.intents.items()
                       if intent.name == "choose" and grammar.match(phrase)[0] is None})
    no = grammar.spoken(NO)
    said = {f"{no} {phrase}": Intent("correct", intent.value)
            for phrase, intent in options.intents.items() if bare(phrase, options)}
    corrected = Grammar({**grammar.intents, **said})
    corrected.corrections = options
    return corrected


def gathering_grammar(table: Table, decision: Decision, gathering: Sequence[Action]
                      ) -> Grammar:
    """Yes or no to a gathering read back, and every command; "no" with a player and
    their answer changes that answer ("no, Husky named Robin", "no, player three Robin")."""
    grammar = confirm_grammar()
    no = grammar.spoken(NO)
    how = load_yaml("common/intents.yaml")["corrected"]
    said: dict[str, Intent] = {}
    for action in gathering:
        assert action.player is not None
        asked = Decision(decision.kind, action.player, decision.options)
        options = Grammar.build(table.referee.choices(asked))
        answers = [(phrase, intent) for phrase, intent in options.intents.items()
                   if bare(phrase, options) and grammar.match(phrase)[0] is None]
        for who in table.seats.targets(action.player, None):
            for template in how:
                for phrase, intent in answers:
                    for said_as in expand(template.format(player=who, answer=phrase)):
                        said[f"{no} {said_as}"] = Intent("correct",
                                                         f"{action.player} {intent.value}")
    return Grammar({**grammar.intents, **said})


def bare(phrase: str, grammar: Grammar) -> bool:
    """Whether `phrase` is no other phrase of its intent with words before it: "player three"
    and "bear", not "at player three" or "i pointed at bear"."""
    words, intent = phrase.split(), grammar.intents[phrase]
    return not any(grammar.intents.get(" ".join(words[at:])) == intent
                   for at in range(1, len(words)))


def roll_call_grammar() -> Grammar:
    """A seat answering the roll call, and every command."""
    answers = load_yaml("common/intents.yaml")["roll_call"]
    return Grammar.build([(Intent("choose", value), templates)
                          for value, templates in answers.items()] + command_groups())
