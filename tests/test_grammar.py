"""Templates → phrases → intents."""

from __future__ import annotations

from voicehost.intents.grammar import Grammar, Intent, expand

YES, ZOE = Intent("choose", "yes"), Intent("choose", "zoe")


def test_templates_expand_to_every_phrase() -> None:
    assert set(expand("[i pointed at|at] fox")) == {"fox", "at fox", "i pointed at fox"}


def test_phrases_keep_letters_of_any_script() -> None:
    grammar = Grammar.build([(YES, ["네"]), (ZOE, ["Zoë!"])])
    assert grammar.phrases == ["네", "zoë"]
    assert grammar.match("네") == (YES, 1.0)


def test_near_misses_snap_only_above_the_threshold() -> None:
    grammar = Grammar.build([(YES, ["(yes|yup)"]), (ZOE, ["i pointed at zoe"])])
    assert grammar.match("i pointed at zoey")[0] == ZOE
    assert grammar.match("cheek") == (None, 0.0)
    assert grammar.match("") == (None, 0.0)
