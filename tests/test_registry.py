"""One registry of games, one declared table: a game the host cannot run is refused at the door."""

from __future__ import annotations

import ast
import inspect
import json
import random
import types
from collections.abc import Iterator

import pytest

from voicehost import cli
from voicehost.cards.pieces import TITLES
from voicehost.games import PLAYER_RANGES, RULES, printed, secret_squad
from voicehost.games.base import Action, Decision, Event, IllegalAction, PhasedGame
from voicehost.games.deck import GAME_CODES, Deck
from voicehost.host import dialogue, grammars, host
from voicehost.host.secret_squad import SecretSquadTable
from voicehost.host.table import Seats, Table
from voicehost.registry import GAMES, GameSpec, game_named, table_of

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


def seeded_games(spec: GameSpec) -> Iterator[tuple[Decision, list[Event]]]:
    """Each decision of seeded games played to the end, at the fewest and the most players,
    and the events its choice made."""
    for players in spec.players:
        for seed in range(3):
            table = spec.table.from_options(Seats.default(players), seed=seed, settings={})
            assert isinstance(table.game, PhasedGame)  # its phases declared, one apply
            rng = random.Random(seed)
            while (decision := table.game.pending()) is not None:
                choices = list(decision.options or ("hint",))  # free speech: one word
                rng.shuffle(choices)
                for choice in choices:
                    try:
                        events = table.game.apply(Action(decision.kind, decision.decider, choice))
                        break
                    except IllegalAction:
                        continue
                else:
                    pytest.fail(f"no choice of {decision} is legal")
                yield decision, events


@pytest.mark.parametrize("name", sorted(GAMES))
def test_a_table_declares_every_kind_of_decision_its_game_asks(name: str) -> None:
    """`decisions` (what `voicehost hear --decision` offers) is what the rules engine asks."""
    spec = GAMES[name]
    asked = {decision.kind for decision, _ in seeded_games(spec)}
    assert sorted(asked) == sorted(spec.table.decisions)
    for kind in spec.table.decisions:
        table = spec.table.from_options(Seats.default(spec.players[0]), seed=0, settings={})
        assert table.example_decision(kind).kind == kind


@pytest.mark.parametrize("hook", HOOKS)
def test_a_table_without_a_hook_the_host_needs_is_refused(hook: str) -> None:
    given = {name: getattr(SecretSquadTable, name) for name in HOOKS if name != hook}
    narrators = {"narrators": SecretSquadTable.narrators}
    half = type("HalfTable", (Table,), {**given, **narrators, "name": "half", "title": "Half",
                                        "deck_game": "half",
                                        "settings_type": secret_squad.Settings})
    with pytest.raises(TypeError, match=hook):
        GameSpec("half", half, secret_squad)
    whole = type("WholeTable", (half,), {hook: getattr(SecretSquadTable, hook)})
    assert GameSpec("half", whole, secret_squad).title == "Half"


def test_a_games_table_is_the_one_table_of_the_host_module_of_its_name() -> None:
    assert table_of(secret_squad) is SecretSquadTable
    tableless = types.ModuleType("voicehost.games.lines")  # voicehost/host/lines.py: no Table
    tableless.NAME = "lines"  # type: ignore[attr-defined]
    with pytest.raises(TypeError, match="voicehost.host.lines must define one Table, not 0"):
        table_of(tableless)


def test_a_table_must_come_from_the_table_base() -> None:
    with pytest.raises(TypeError, match="Table"):
        GameSpec("secret-squad", object, secret_squad)  # type: ignore[arg-type]


HOST = (dialogue, grammars, host)


def table_attributes_the_host_uses() -> set[str]:
    """Every `self.table.<name>` and `table.<name>` in the host's dialogue and its driver."""
    def is_table(node: ast.expr) -> bool:
        return ((isinstance(node, ast.Attribute) and node.attr == "table")
                or (isinstance(node, ast.Name) and node.id == "table"))

    return {node.attr for module in HOST for node in ast.walk(ast.parse(inspect.getsource(module)))
            if isinstance(node, ast.Attribute) and is_table(node.value)}


def test_the_host_calls_declared_hooks_only() -> None:
    used = table_attributes_the_host_uses()
    assert {"prompt", "grammar", "narrate", "secrets", "timer"} <= used
    undeclared = {name for name in used
                  if not hasattr(Table, name) and name not in Table.__annotations__}
    assert not undeclared, f"the host uses {undeclared}, which Table does not declare"
    assert not any("getattr(self.table" in inspect.getsource(module) for module in HOST)


def test_the_command_line_offers_the_registered_games() -> None:
    commands = cli.parser()._subparsers._group_actions[0].choices
    for command in ("play", "cards"):
        game = next(a for a in commands[command]._actions if a.dest == "game")
        assert sorted(game.choices) == sorted(GAMES)


def events_defined(module: object) -> set[type[Event]]:
    """Every kind of event a rules module defines."""
    return {thing for thing in vars(module).values() if inspect.isclass(thing)
            and issubclass(thing, Event) and thing.__module__ == module.__name__}


@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_event_the_rules_make_is_declared_and_narrated_or_silent(name: str) -> None:
    spec = GAMES[name]
    assert events_defined(spec.rules) == set(spec.rules.EVENTS)
    assert events_defined(printed) == set(printed.EVENTS)
    assert spec.table.unnarrated((*spec.rules.EVENTS, *printed.EVENTS)) == []


@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_event_reads_back_from_its_json(name: str) -> None:
    made = [event for _, events in seeded_games(GAMES[name]) for event in events]
    assert len({type(event) for event in made}) >= 6
    for event in made:
        record = event.to_json()
        json.dumps(record)
        assert record["kind"] == event.kind
        assert type(event).from_json(record) == event
    refused = printed.DeckRefused("123456", "deck_check", {"digit": 6})
    assert refused.facts == {"number": "123456", "reason": "deck_check", "digit": 6}
    assert printed.DeckRefused.from_json(refused.to_json()) == refused
    with pytest.raises(ValueError, match="not a deck_read event"):
        printed.DeckRead.from_json(refused.to_json())


def test_a_table_that_says_nothing_of_an_event_is_refused() -> None:
    said = {event: narrator for event, narrator in SecretSquadTable.narrators.items()
            if event is not secret_squad.RoundStarted}
    mute = type("MuteTable", (SecretSquadTable,), {"narrators": said})
    with pytest.raises(TypeError, match="round_started"):
        GameSpec("secret-squad", mute, secret_squad)
    hushed = type("HushedTable", (SecretSquadTable,),
                  {"narrators": {**said, secret_squad.RoundStarted: None}})
    assert hushed.unnarrated([secret_squad.RoundStarted]) == []  # declared silent

    class Unheard(Event, kind="no_such_event"):
        """An event no table has heard of."""

    assert SecretSquadTable.unnarrated([Unheard]) == ["no_such_event"]
