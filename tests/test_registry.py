"""One registry of games, one declared table: a game the host cannot run is refused at the door."""

from __future__ import annotations

import ast
import inspect
import random

import pytest

from voicehost import cli
from voicehost.cards.pieces import TITLES
from voicehost.games import PLAYER_RANGES, RULES, secret_squad
from voicehost.games.base import Action, IllegalAction, PhasedGame
from voicehost.games.deck import GAME_CODES, Deck
from voicehost.host import host
from voicehost.host.secret_squad import SecretSquadTable
from voicehost.host.table import Seats, Table
from voicehost.registry import GAMES, GameSpec, game_named

HOOKS = sorted(Table.__abstractmethods__)


def test_every_registered_game_gives_every_hook_and_plays() -> None:
    assert sorted(GAMES) == ["ferret-out", "secret-operation", "secret-squad"]
    for spec in GAMES.values():
        assert not inspect.isabstract(spec.table)
        low, high = spec.players
        table = spec.table.from_options(Seats.default(low), seed=1, settings={})
        assert table.game.pending() is not None
        assert game_named(table.name) is spec  # a journal names the game by `name`
        with pytest.raises(ValueError):
            spec.table.from_options(Seats.default(high), seed=1, settings={"no_such": "1"})


def test_a_games_title_deck_code_and_players_come_from_its_rules_module() -> None:
    """The checklist of docs/building.md: a game's rules module says its name, title, deck
    code and player count once; the registry, the tables, the deck numbers and the printed
    cards read them there."""
    assert sorted(GAMES) == sorted(RULES)
    for name, spec in GAMES.items():
        rules = RULES[name]
        assert spec.rules is rules and rules.NAME == name == spec.table.deck_game
        assert spec.title == rules.TITLE == TITLES[name]
        assert spec.players == (rules.MIN_PLAYERS, rules.MAX_PLAYERS) == PLAYER_RANGES[name]
        assert GAME_CODES[name] == rules.DECK_CODE
        assert Deck.read(Deck(name, rules.MIN_PLAYERS, 7).number).game == name
    assert len(set(GAME_CODES.values())) == len(GAME_CODES)


@pytest.mark.parametrize("name", sorted(GAMES))
def test_a_table_declares_every_kind_of_decision_its_game_asks(name: str) -> None:
    """`decisions` (what `voicehost hear --decision` offers) is what the rules engine asks in
    seeded games played to the end, at the fewest and the most players."""
    spec = GAMES[name]
    asked: set[str] = set()
    for players in spec.players:
        for seed in range(3):
            table = spec.table.from_options(Seats.default(players), seed=seed, settings={})
            assert isinstance(table.game, PhasedGame)  # its phases declared, one apply
            rng = random.Random(seed)
            while (decision := table.game.pending()) is not None:
                asked.add(decision.kind)
                choices = list(decision.options or ("hint",))  # free speech: one word
                rng.shuffle(choices)
                for choice in choices:
                    try:
                        table.game.apply(Action(decision.kind, decision.decider, choice))
                        break
                    except IllegalAction:
                        continue
                else:
                    pytest.fail(f"no choice of {decision} is legal")
    assert sorted(asked) == sorted(spec.table.decisions)
    for kind in spec.table.decisions:
        table = spec.table.from_options(Seats.default(spec.players[0]), seed=0, settings={})
        assert table.example_decision(kind).kind == kind


@pytest.mark.parametrize("hook", HOOKS)
def test_a_table_without_a_hook_the_host_needs_is_refused(hook: str) -> None:
    given = {name: getattr(SecretSquadTable, name) for name in HOOKS if name != hook}
    narrators = {name: value for name, value in vars(SecretSquadTable).items()
                 if name.startswith("_say_") or name == "silent_events"}
    half = type("HalfTable", (Table,), {**given, **narrators, "name": "half", "title": "Half",
                                        "deck_game": "half",
                                        "settings_type": secret_squad.Settings})
    with pytest.raises(TypeError, match=hook):
        GameSpec("half", half, secret_squad)
    whole = type("WholeTable", (half,), {hook: getattr(SecretSquadTable, hook)})
    assert GameSpec("half", whole, secret_squad).title == "Half"


def test_a_table_must_come_from_the_table_base() -> None:
    with pytest.raises(TypeError, match="Table"):
        GameSpec("secret-squad", object, secret_squad)  # type: ignore[arg-type]


def table_attributes_the_host_uses() -> set[str]:
    """Every `self.table.<name>` and `table.<name>` in host.py."""
    def is_table(node: ast.expr) -> bool:
        return ((isinstance(node, ast.Attribute) and node.attr == "table")
                or (isinstance(node, ast.Name) and node.id == "table"))

    tree = ast.parse(inspect.getsource(host))
    return {node.attr for node in ast.walk(tree)
            if isinstance(node, ast.Attribute) and is_table(node.value)}


def test_the_host_calls_declared_hooks_only() -> None:
    used = table_attributes_the_host_uses()
    assert {"prompt", "grammar", "narrate", "secrets", "timer"} <= used
    undeclared = {name for name in used
                  if not hasattr(Table, name) and name not in Table.__annotations__}
    assert not undeclared, f"the host uses {undeclared}, which Table does not declare"
    assert "getattr(self.table" not in inspect.getsource(host)


def test_the_command_line_offers_the_registered_games() -> None:
    commands = cli.parser()._subparsers._group_actions[0].choices
    for command in ("play", "cards"):
        game = next(a for a in commands[command]._actions if a.dest == "game")
        assert sorted(game.choices) == sorted(GAMES)


def event_kinds_made(module: object) -> set[str]:
    """Every `Event("<kind>", ...)` a rules module makes, read from its source."""
    tree = ast.parse(inspect.getsource(module))
    return {node.args[0].value for node in ast.walk(tree)
            if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "Event"
            and node.args and isinstance(node.args[0], ast.Constant)}


@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_event_the_rules_make_is_declared_and_narrated_or_silent(name: str) -> None:
    from voicehost.games import printed

    spec = GAMES[name]
    assert event_kinds_made(spec.rules) == set(spec.rules.EVENTS)
    assert event_kinds_made(printed) == set(printed.EVENTS)
    assert spec.table.unnarrated((*spec.rules.EVENTS, *printed.EVENTS)) == []


def test_a_table_that_says_nothing_of_an_event_is_refused() -> None:
    mute = type("MuteTable", (SecretSquadTable,), {"silent_events": frozenset()})
    with pytest.raises(TypeError, match="round_started"):
        GameSpec("secret-squad", mute, secret_squad)
    forgetful = type("ForgetfulTable", (SecretSquadTable,), {"_say_answered": None})
    assert forgetful.unnarrated(["answered"]) == []  # an attribute of that name is a narrator
    assert SecretSquadTable.unnarrated(["no_such_event"]) == ["no_such_event"]
