"""Templates → phrases → intents."""

from __future__ import annotations

from voicehost.host.grammars import decision_grammar
from voicehost.host.secret_operation import SecretOperationTable
from voicehost.host.secret_squad import SecretSquadTable
from voicehost.host.table import Seats
from voicehost.intents.grammar import Grammar, Intent, expand, fold

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


def test_accents_fold_to_the_letters_a_plain_keyboard_types() -> None:
    assert [fold(name) for name in ("zoë", "jürgen", "łukasz", "søren", "æsa", "straße",
                                    "đorđe", "anna")] == [
        "zoe", "jurgen", "lukasz", "soren", "aesa", "strasse", "dorde", "anna"]


def test_a_seat_named_with_accents_is_heard_without_them() -> None:
    table = SecretSquadTable(Seats(("zoë", "jürgen", "łukasz")), seed=0)
    grammar = decision_grammar(table, table.example_decision("point", 1))
    assert {"zoe", "lukasz", "i pointed at jurgen"} <= set(grammar.phrases)  # for recognizers
    heard = {said: grammar.match(said)[0] for said in (
        "zoe", "zoë", "i pointed at lukasz", "łukasz", "jurgen", "player three")}
    assert {said: intent.value if intent else None for said, intent in heard.items()} == {
        "zoe": "0", "zoë": "0", "i pointed at lukasz": "2", "łukasz": "2", "jurgen": "1",
        "player three": "2"}


def test_a_player_with_an_empty_hand_is_heard_by_their_name_without_accents() -> None:
    table = SecretOperationTable(Seats(("zoë", "jürgen", "łukasz", "søren")), seed=0)
    decision = table.example_decision("turn", 0)
    table.game.hands[2] = 0
    grammar = decision_grammar(table, decision)
    offered = {"lukasz adds to module two", "lukasz blocks soren", "lukasz discards energy"}
    assert offered <= set(grammar.phrases)  # a recognizer may write them
    assert grammar.match("lukasz adds to module two")[0] == Intent("choose", "2|add:2")
    assert grammar.match("lukasz blocks soren")[0] == Intent("choose", "2|block:3")
