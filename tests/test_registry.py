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
from voicehost.host import (
    commands,
    confirmation,
    countdown,
    dialogue,
    grammars,
    host,
    listening,
    roll_call,
)
from voicehost.host.narrator import Narrator
from voicehost.host.questions import Questions
from voicehost.host.referee import Referee
from voicehost.host.secret_squad import SecretSquadTable, SquadNarrator
from voicehost.host.table import Seats, Table
from voicehost.registry import GAMES, PARTS, GameSpec, game_named, table_of

HOOKS = sorted(Table.__abstractmethods__)
PART_BASES = {"questions_type": Questions, "referee_type": Referee, "narrator_type": Narrator}
PART_HOOKS = sorted((kind, hook) for kind, base in PART_BASES.items()
                    for hook in base.__abstractmethods__)


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
    parts = {kind: getattr(SecretSquadTable, kind) for kind in PARTS}
    half = type("HalfTable", (Table,), {**given, **parts, "name": "half", "title": "Half",
                                        "deck_game": "half",
                                        "settings_type": secret_squad.Settings})
    with pytest.raises(TypeError, match=hook):
        GameSpec("half", half, secret_squad)
    whole = type("WholeTable", (half,), {hook: getattr(SecretSquadTable, hook)})
    assert GameSpec("half", whole, secret_squad).title == "Half"


@pytest.mark.parametrize(("kind", "hook"), PART_HOOKS)
def test_a_table_whose_words_lack_a_hook_the_host_needs_is_refused(kind: str, hook: str) -> None:
    base, squads = PART_BASES[kind], getattr(SecretSquadTable, kind)
    given = {name: getattr(squads, name) for name in base.__abstractmethods__ if name != hook}
    said = {"narrators": SquadNarrator.narrators} if base is Narrator else {}
    half_part = type("HalfPart", (base,), {**given, **said})
    half = type("HalfTable", (SecretSquadTable,), {kind: half_part})
    with pytest.raises(TypeError, match=hook):
        GameSpec("secret-squad", half, secret_squad)
    whole_part = type("WholePart", (half_part,), {hook: getattr(squads, hook)})
    whole = type("WholeTable", (SecretSquadTable,), {kind: whole_part})
    assert GameSpec("secret-squad", whole, secret_squad).title == SecretSquadTable.title


def test_a_table_that_names_no_words_is_refused() -> None:
    wordless = type("WordlessTable", (Table,), {
        **{name: getattr(SecretSquadTable, name) for name in HOOKS}, "name": "wordless",
        "title": "Wordless", "deck_game": "wordless", "settings_type": secret_squad.Settings})
    with pytest.raises(TypeError, match="narrator_type, questions_type, referee_type"):
        GameSpec("wordless", wordless, secret_squad)


def test_a_games_table_is_the_one_table_of_the_host_module_of_its_name() -> None:
    assert table_of(secret_squad) is SecretSquadTable
    tableless = types.ModuleType("voicehost.games.lines")  # voicehost/host/lines.py: no Table
    tableless.NAME = "lines"  # type: ignore[attr-defined]
    with pytest.raises(TypeError, match="voicehost.host.lines must define one Table, not 0"):
        table_of(tableless)


def test_a_table_must_come_from_the_table_base() -> None:
    with pytest.raises(TypeError, match="Table"):
        GameSpec("secret-squad", object, secret_squad)  # type: ignore[arg-type]


HOST = (dialogue, listening, commands, confirmation, roll_call, countdown, grammars, host)


def is_table(node: ast.expr) -> bool:
    return ((isinstance(node, ast.Attribute) and node.attr == "table")
            or (isinstance(node, ast.Name) and node.id == "table"))


def host_nodes() -> Iterator[ast.AST]:
    for module in HOST:
        yield from ast.walk(ast.parse(inspect.getsource(module)))


def table_attributes_the_host_uses() -> set[str]:
    """Every `self.table.<name>` and `table.<name>` in the host's dialogue and its driver."""
    return {node.attr for node in host_nodes()
            if isinstance(node, ast.Attribute) and is_table(node.value)}


def part_attributes_the_host_uses(part: str) -> set[str]:
    """Every `self.table.<part>.<name>` in the host's dialogue and its driver."""
    return {node.attr for node in host_nodes()
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute)
            and node.value.attr == part and is_table(node.value.value)}


def test_the_host_calls_declared_hooks_only() -> None:
    used = table_attributes_the_host_uses()
    assert {"questions", "referee", "narrator", "grammar", "secrets"} <= used
    undeclared = {name for name in used
                  if not hasattr(Table, name) and name not in Table.__annotations__}
    assert not undeclared, f"the host uses {undeclared}, which Table does not declare"
    assert {"prompt", "timer"} <= part_attributes_the_host_uses("questions")
    assert "narrate" in part_attributes_the_host_uses("narrator")
    for part, base in (("questions", Questions), ("referee", Referee), ("narrator", Narrator)):
        undeclared = {name for name in part_attributes_the_host_uses(part)
                      if not hasattr(base, name)}
        assert not undeclared, f"the host uses {undeclared}, which {base.__name__} lacks"
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
    assert spec.table.narrator_type.unnarrated((*spec.rules.EVENTS, *printed.EVENTS)) == []


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
    said = {event: narrator for event, narrator in SquadNarrator.narrators.items()
            if event is not secret_squad.RoundStarted}
    mute = type("MuteNarrator", (SquadNarrator,), {"narrators": said})
    with pytest.raises(TypeError, match="round_started"):
        GameSpec("secret-squad", type("MuteTable", (SecretSquadTable,), {"narrator_type": mute}),
                 secret_squad)
    hushed = type("HushedNarrator", (SquadNarrator,),
                  {"narrators": {**said, secret_squad.RoundStarted: None}})
    assert hushed.unnarrated([secret_squad.RoundStarted]) == []  # declared silent

    class Unheard(Event, kind="no_such_event"):
        """An event no table has heard of."""

    assert SquadNarrator.unnarrated([Unheard]) == ["no_such_event"]
