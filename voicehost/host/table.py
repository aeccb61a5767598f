"""What the host needs from each game besides its rules: the words for its decisions and events.

A game's table builds its rules engine and holds three parts, each with one job: its
`Questions` (what the host asks), its `Referee` (what a heard choice means, read back or
refused) and its `Narrator` (what happened, and where the game stands). The hooks a game must
fill in are abstract (a game registered without one is refused, see registry.py); the rest have
defaults. The table owns the plumbing every game shares: seats and names, the printed deck's
number (its own decision, heard digit by digit), re-building the rules engine from the
journal, and the settings.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, fields
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

from voicehost.games.base import Action, Decision, Event, Game, setting_range
from voicehost.games.deck import Deck
from voicehost.games.printed import (
    DECK_DECISION,
    PrintedCards,
    check_deck,
    dealt_letters,
    known_deck,
)
from voicehost.host.deck_number import DeckNumberGrammar, first_groups
from voicehost.host.lines import Lines, spoken_list
from voicehost.intents.grammar import Grammar, Intent, fold
from voicehost.prompts_dir import load_yaml
from voicehost.store.journal import VERSION

if TYPE_CHECKING:
    from voicehost.host.narrator import Narrator
    from voicehost.host.questions import Questions
    from voicehost.host.referee import Referee

Choices = list[tuple[Intent, list[str]]]  # each option's intent and the phrases that say it


@dataclass(frozen=True)
class Seats:
    """How the table names its players: seat names (token icons or given names), as the host
    says them and as the players may say them."""

    names: tuple[str, ...]

    def __post_init__(self) -> None:
        if not all(isinstance(name, str) and name.strip() for name in self.names):
            raise ValueError("every seat's name must be a word")

    @classmethod
    def default(cls, players: int) -> Seats:
        return cls(tuple(load_yaml("common/tokens.yaml")["tokens"][:players]))

    def name_of(self, seat: int) -> str:
        return self.names[seat].title()

    def named(self, seats: Sequence[int]) -> list[str]:
        return [self.name_of(seat) for seat in seats]

    def names_of(self, seats: Sequence[int]) -> str:
        """"Fox, Owl and Bear"."""
        return spoken_list(self.named(seats))

    def spellings(self, seat: int) -> list[str]:
        """A seat's name as given, and without its accents when it has any ("zoë", "zoe")."""
        return list(dict.fromkeys((self.names[seat], fold(self.names[seat]))))

    def templates(self, seat: int) -> list[str]:
        """Every way to name a seat: its name (with or without accents), or "player
        <number>"."""
        number = load_yaml("common/tokens.yaml")["numbers"][seat]
        patterns = load_yaml("common/intents.yaml")["seat"]
        return list(dict.fromkeys(p.format(name=name, number=number)
                                  for p in patterns for name in self.spellings(seat)))

    def targets(self, seat: int, chooser: int | None) -> list[str]:
        """Every way to name `seat`, with "myself" when it is the chooser's own."""
        own = load_yaml("common/intents.yaml")["self"] if seat == chooser else []
        return self.templates(seat) + own

    def choices(self, options: Sequence[str], patterns: Sequence[str],
                chooser: int | None) -> Choices:
        """Seats as options: every pattern ("I point at {target}") with every way to name
        the seat, and "myself" for the chooser's own."""
        return [(Intent("choose", option),
                 [p.format(target=t) for p in patterns for t in self.targets(int(option), chooser)])
                for option in options]


@dataclass(frozen=True)
class Timer:
    """A decision that also ends by itself (a study timer): `choice` is taken when `seconds`
    have passed; each (seconds left, line) warning is said on the way."""

    seconds: float
    choice: str
    done: str  # said when time is up
    warnings: list[tuple[float, str]] = field(default_factory=list)


def settings_from(kind: type[Any], given: dict[str, Any]) -> Any:
    """A game's Settings dataclass from `--set key=value` strings; ValueError names the problem."""
    known = {f.name: f for f in fields(kind)}
    values: dict[str, Any] = {}
    for key, raw in given.items():
        if key not in known:
            raise ValueError(f"unknown setting {key!r}; this game has: {', '.join(known)}")
        default = known[key].default
        if isinstance(raw, str) and isinstance(default, int) and not isinstance(default, bool):
            try:
                raw = int(raw)
            except ValueError:
                raise ValueError(f"setting {key} wants a whole number, not {raw!r}") from None
        values[key] = raw
    settings = kind(**values)
    check_settings(settings)
    return settings


def check_settings(settings: Any) -> None:
    """ValueError naming the first setting outside its range."""
    for one in fields(settings):
        allowed = setting_range(type(settings), one.name)
        value = getattr(settings, one.name)
        if allowed is not None and not allowed[0] <= value <= allowed[1]:
            raise ValueError(f"setting {one.name} wants {allowed[0]} to {allowed[1]}, "
                             f"not {value}")


@dataclass(frozen=True)
class Past:
    """What a household's earlier games of this title tell a new one: whether the table has
    played it (the short opening, no rules it knows) and the question cards it heard lately
    (dealt last)."""

    played: bool = False
    recent_cards: tuple[int, ...] = ()

    def record(self) -> dict[str, Any]:
        return {"played": self.played, "recent_cards": list(self.recent_cards)}

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> Past:
        return cls(bool(record.get("played", False)),
                   tuple(int(card) for card in record.get("recent_cards", ())))


class Table(ABC):
    """One game as the host sees it. `game` is the pure rules engine (wrapped in PrintedCards
    while a printed deck's number is being read), rebuilt by `replay`; `questions`, `referee`
    and `narrator` are the game's words, built from the types its table names.

    A game's table sets what its own words need, then calls `Table.__init__`, which checks
    printed cards and builds the engine. The journal's setup record holds exactly the
    constructor's arguments, so a table rebuilds from it."""

    name: ClassVar[str]  # in the journal and prompts/<name>/
    title: ClassVar[str]  # said aloud
    deck_game: ClassVar[str]  # the game's name on the command line and in deck numbers
    decisions: ClassVar[tuple[str, ...]]  # the kinds of decision the players make
    settings_type: ClassVar[type[Any]]
    questions_type: ClassVar[type[Questions[Any]]]
    referee_type: ClassVar[type[Referee[Any]]]
    narrator_type: ClassVar[type[Narrator[Any]]]
    secret_options: ClassVar[frozenset[str]] = frozenset()  # decisions whose options a
    # display must not show (they would give a secret away)
    score_events: ClassVar[tuple[str, ...]] = ()  # rules events streamed as "score" events
    seats: Seats
    seed: int
    settings: Any  # the game's settings_type
    cards: str | None  # None: the boxed game; "ask", or a deck number: printed cards
    lines: Lines
    game: Any  # the rules engine (a Game), or PrintedCards around it
    questions: Questions[Any]
    referee: Referee[Any]
    narrator: Narrator[Any]

    seated_by_deck: bool = False  # the printed deck's number tells how many play
    past: Past = Past()

    @classmethod
    def deck_words(cls) -> frozenset[str]:
        """Words of the game's deck that players say alone, as a list's one word (Ferret Out's
        guesses): the recognizer "auto" hears a decision naming one with pocketsphinx first
        (speech/split.py). None by default."""
        return frozenset()

    def __init__(self, seats: Seats, seed: int, settings: Any, cards: str | None) -> None:
        check_settings(settings)
        self.seats = seats
        self.seed = seed
        self.settings = settings
        self.cards = cards
        self.lines = Lines("common/lines.yaml", f"{self.name}/lines.yaml", "cards/lines.yaml",
                           seed=seed)
        if cards is not None:
            self._check_printed(cards)
        self.game = self._new_game()
        self.questions = self.questions_type(self)
        self.referee = self.referee_type(self)
        self.narrator = self.narrator_type(self)

    @classmethod
    def from_options(cls, seats: Seats, seed: int, settings: dict[str, Any],
                     cards: str | None = None) -> Table:
        return cls(seats, seed, settings_from(cls.settings_type, settings), cards)

    @classmethod
    def from_setup(cls, record: dict[str, Any]) -> Table:
        settings = cls.settings_type(**record.get("settings", {}))
        if record.get("seated_by_deck"):
            table = cls.seated_by(record["seed"], settings, record.get("cards"))
        else:
            table = cls(Seats(tuple(record["names"])), record["seed"], settings,
                        record.get("cards"))
        return table.knowing(Past.from_record(record["past"])) if "past" in record else table

    def knowing(self, past: Past) -> Table:
        """This table, told of the household's earlier games (its engine built again)."""
        self.past = past
        self.game = self._new_game()
        return self

    def cards_heard(self, actions: Sequence[Action]) -> list[int]:
        """The question cards read out in a game of these `actions` (none for a game without
        a question deck)."""
        return []

    @classmethod
    def seated_by(cls, seed: int, settings: Any, cards: str | None, players: int = 4,
                  ) -> Table:
        """A table whose printed deck, still to be read, tells how many play: seated for
        `players` (any count the game allows) until then. See `reseated`."""
        if cards is None:
            raise ValueError("only a printed deck can tell how many play")
        table = cls(Seats.default(players), seed, settings, cards)
        table.seated_by_deck = True
        table.game = table._new_game()
        return table

    def reseated(self, actions: Sequence[Action]) -> Table:
        """This table, or, once `actions` have read a deck number for other players than the
        provisional seats, a table seated for them with `actions` replayed."""
        if not self.seated_by_deck:
            return self
        reading = self._new_game()
        for action in actions:  # the deck's digits come before any other move
            if reading.deck is not None or action.kind != DECK_DECISION:
                break
            reading.apply(action)
        if reading.deck is None or reading.deck.players == len(self.seats.names):
            return self
        table = type(self).seated_by(self.seed, self.settings, self.cards, reading.deck.players)
        table.knowing(self.past).replay(actions)
        return table

    def setup_record(self) -> dict[str, Any]:
        record = {"type": "setup", "version": VERSION, "game": self.name,
                  "names": [] if self.seated_by_deck else list(self.seats.names),
                  "seed": self.seed, "settings": asdict(self.settings)}
        if self.seated_by_deck:
            record["seated_by_deck"] = True
        if self.past != Past():
            record["past"] = self.past.record()
        return record if self.cards is None else {**record, "cards": self.cards}

    def replay(self, actions: Sequence[Action]) -> list[Event]:
        """The game as `actions` leave it, from a new one; the last action's events (what a
        finished game says again when it is resumed)."""
        self.game = self._new_game()
        events: list[Event] = []
        for action in actions:
            events = self.game.apply(action)
        return events

    # -- the rules engine, boxed or printed -------------------------------------------------

    @abstractmethod
    def _boxed_game(self) -> Game:
        """The rules engine for the game's own boxed cards."""

    @abstractmethod
    def _printed_game(self, deck: Deck) -> Game:
        """The rules engine once the printed deck is known."""

    def _new_game(self) -> Any:
        if self.cards is None:
            return self._boxed_game()
        return PrintedCards(self.deck_game, len(self.seats.names), known_deck(self.cards),
                            self._printed_game, self.seated_by_deck)

    def _check_printed(self, cards: str) -> None:
        """ValueError (a sentence for the table) when these cards cannot host this game."""
        check_deck(cards, self.deck_game, len(self.seats.names), self.lines)

    @property
    def printed(self) -> PrintedCards | None:
        return self.game if isinstance(self.game, PrintedCards) else None

    def waiting_for_deck(self) -> bool:
        return self.printed is not None and self.printed.inner is None

    def card_letters(self) -> tuple[str, ...]:
        """The card each seat takes, seat by seat: shuffled by the game's seed."""
        return dealt_letters(self.seed, len(self.seats.names))

    def secrets(self) -> dict[str, Any] | None:
        """What the host knows and the table must not hear before each reveal (for the event
        stream, marked secret); None while the cards are the boxed ones or not known yet."""
        if self.printed is None or self.printed.deck is None:
            return None
        deck = self.printed.deck
        return {"deck": deck.number,
                "cards": dict(zip(self.seats.names, self.card_letters(), strict=True)),
                **self.printed_secrets(deck)}

    def printed_secrets(self, deck: Deck) -> dict[str, Any]:
        """The game's own secrets on printed cards (who is in which squad, ...)."""
        return {}

    @abstractmethod
    def example_decision(self, kind: str, which: int = 0) -> Decision:
        """The decision of `kind` as the host would ask it, for `voicehost hear`: `which` is
        the seat asked (Ferret Out: the pouch pair whose words a guess offers). May move this
        table's game to a moment where `kind` is pending."""

    # -- what the host hears ----------------------------------------------------------------

    def grammar(self, decision: Decision, commands: Choices) -> Grammar:
        """What the host accepts while `decision` is pending: its options and every command.
        The deck number is heard digit by digit."""
        if decision.kind == DECK_DECISION:
            first = None if self.game.heard else first_groups(self.deck_game)
            return DeckNumberGrammar(commands, first)
        return Grammar.build(self.referee.choices(decision) + commands)

    def refuse_choice(self, decision: Decision, value: str) -> str | None:
        """Why a choice breaks a rule the rules engine cannot judge (it never reads what a
        player said, only the choice), for the table; None when it does not."""
        return None


GameTable = TypeVar("GameTable", bound=Table)


class TablePart(ABC, Generic[GameTable]):
    """One of a table's parts: it speaks with the table's lines and names its seats."""

    def __init__(self, table: GameTable) -> None:
        self.table = table
        self.lines = table.lines
        self.seats = table.seats
