"""Ferret Out, the rules alone (docs/rules-ferret-out.md).

Theory of operation. Every player holds a Secrecy Sleeve that shows six words; a number picks
the secret word. All cards but one come from one pouch (the Ferrets), one card from the paired
pouch (the Weasel), so everyone shares the secret word except the Weasel. A round is seven
steps, and `pending()` names the decision the step waits for:

    number       the CFO names the secret number or asks   → Decision("number", cfo, "1".."6"
                 for a roll of the die                         and "roll")
    clue         each player says the clue on their easel   → Decision("clue", seat, ())  one word
    study        the timer runs; the table says ready       → Decision("study", None, ("ready",))
    accuse       each player says whom they named           → Decision("accuse", seat, every seat)
    guess        each player who named themself says their  → Decision("guess", seat, ())
                 guess of the Ferrets' word                    one word, as with a clue
    weasel       the reveal: who held the odd card          → Decision("weasel", None, every seat)
    guess_right  whether the Weasel's guess was the         → Decision("guess_right", None,
                 Ferrets' word (asked only if the Weasel       ("yes", "no"))
                 named themself: only then it scores)

With the boxed sleeves the engine knows the deck's structure, not the words on the retail cards:
a guess is any word, and the table says whether the Weasel's was the Ferrets'. With printed
cards (`printed`) it knows every word: a guess is one of the round's twelve words (or "other"),
and the reveal and the scoring need no question.

Clues, accusations and guesses are said in turn, starting with the CFO and going clockwise.
The CFO passes clockwise each round: seat (round - 1) % players. Before the number the host
reads `cfo` and `sleeve` to announce the round; the round_started event comes with the number.

Two rules keep it honest:
1. A choice outside the pending decision's options raises IllegalAction and changes nothing.
2. The engine never learns who the Weasel is before the reveal: the cards sit in the sleeves.

Sleeves. A card has four faces (front, front turned around, back, back turned around), each
showing one row of six words. A pouch pair of the deck (prompts/ferret_out/pouches.yaml) is one
such row for each of the two pouches, so one pouch set, the cards of four rounds, carries four
pouch pairs. `SLEEVE_SCHEDULE` says what the CFO does to the cards each round; after four rounds
come new pouches, and tie-break rounds go on with the same schedule. Which of the two pouches
gave the Weasel's card is the table's choice, so the engine learns the Ferrets' word at the
reveal, like everyone else.

Seats are 0-based numbers; a choice naming a seat is its number as a string ("0", "1", ...).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from voicehost.games.base import Action, Decision, Event, IllegalAction, Phase, PhasedGame

NAME = "ferret-out"  # on the command line, in journals and deck numbers
TITLE = "Ferret Out"  # said aloud and printed
DECK_CODE = 2  # the first digit of its printed decks' numbers
MIN_PLAYERS, MAX_PLAYERS = 3, 7
WORDS_PER_ROW = 6
NUMBERS = tuple(str(n) for n in range(1, WORDS_PER_ROW + 1))
ROLL = "roll"
OTHER_WORD = "other"  # a guess that is on no card: always wrong, but the host must accept it
YES_NO = ("yes", "no")
ROUNDS = 8
ENDINGS: tuple[str | int, ...] = ("rounds", 15, 20)


# -- what can happen: the events `apply` returns ---------------------------------------------

class RoundStarted(Event, kind="round_started"):
    """The CFO's sleeve for the round: its `orientation` step, and the pouch (box) on show."""

    round: int
    cfo: int
    orientation: str
    pouch_set: int
    face: int
    pouch: int


class NumberChosen(Event, kind="number_chosen"):
    round: int
    number: int
    rolled: bool


class ClueGiven(Event, kind="clue_given"):
    player: int
    clue: str


class AccusationsDone(Event, kind="accusations_done"):
    round: int
    accusations: list[int]
    named_themselves: list[int]


class RoundScored(Event, kind="round_scored"):
    """`breakdown`: each award behind the `points`, in the rulebook's order."""

    round: int
    weasel: int
    ferret_word: str | None  # None: the Weasel was not among those who guessed
    accusations: list[int]
    guesses: dict[int, str]
    points: list[int]
    breakdown: list[dict[str, Any]]
    scores: list[int]


class TieBreak(Event, kind="tie_break"):
    """The game's end was reached with the lead shared: one more round, `round`."""

    round: int
    leaders: list[int]


class GameOver(Event, kind="game_over"):
    scores: list[int]
    winners: list[int]


EVENTS = (RoundStarted, NumberChosen, ClueGiven, AccusationsDone, RoundScored, TieBreak,
          GameOver)


# What the CFO does to the cards before each round of a pouch set; round k of the set shows face k.
SLEEVE_SCHEDULE = ("insert", "rotate", "flip", "rotate")
FACES = len(SLEEVE_SCHEDULE)

POINTS = {
    # each Ferret
    "named_the_weasel": 1,
    "weasel_missed_the_word": 1,
    "every_ferret_named_the_weasel": 1,
    # the Weasel
    "a_ferret_missed": 1,
    "named_themself": 1,
    "guessed_the_ferret_word": 2,
}


@dataclass(frozen=True)
class PouchPair:
    """One face's words for the two paired pouches: word n of `ferrets` pairs with word n of
    `weasel`."""

    ferrets: tuple[str, ...]
    weasel: tuple[str, ...]

    @classmethod
    def from_json(cls, data: Mapping[str, Sequence[str]]) -> PouchPair:
        pair = cls(tuple(data["ferrets"]), tuple(data["weasel"]))
        words = pair.ferrets + pair.weasel
        if len(pair.ferrets) != WORDS_PER_ROW or len(pair.weasel) != WORDS_PER_ROW:
            raise IllegalAction("pouch_pair_shape", words=words)
        if len(set(words)) != len(words):
            raise IllegalAction("pouch_pair_repeats_a_word", words=words)
        return pair

    def words(self) -> tuple[str, ...]:
        return tuple(sorted(self.ferrets + self.weasel))

    def at(self, number: int) -> tuple[str, str]:
        """The two secret words a number picks: one is the Ferrets', the other the Weasel's."""
        return self.ferrets[number - 1], self.weasel[number - 1]


@dataclass(frozen=True)
class Sleeve:
    """Where a round stands in the sleeve schedule."""

    pouch_set: int  # 0 for rounds 1-4, 1 for rounds 5-8, 2 for the first tie-break rounds ...
    face: int
    step: str  # what the CFO does to the cards: insert, rotate or flip


def sleeve_for(round_number: int) -> Sleeve:
    pouch_set, face = divmod(round_number - 1, FACES)
    return Sleeve(pouch_set, face, SLEEVE_SCHEDULE[face])


def cfo_for(round_number: int, players: int) -> int:
    return (round_number - 1) % players


@dataclass(frozen=True)
class PrintedRound:
    """A round played with printed cards: the engine knows the Weasel and the Ferrets' row."""

    weasel: int  # a seat
    ferret_words: tuple[str, ...]


@dataclass(frozen=True)
class Settings:
    end: str | int = "rounds"  # "rounds": after 8 rounds; 15 or 20: once someone has that many


@dataclass(frozen=True)
class Award:
    """One line of a round's scoring, as the host reads it: who, by which rule, how much."""

    seat: int
    rule: str
    points: int

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "rule": self.rule, "points": self.points}


def score_lines(
    accusations: Sequence[int],
    weasel: int,
    guesses: Mapping[int, str],
    ferret_word: str | None,
) -> list[Award]:
    """Every award of one round, in seat order. `accusations[seat]` is whom seat named;
    `guesses` holds the words said by players who named themselves; `ferret_word` may be None
    when the Weasel made no guess."""
    ferrets = [seat for seat in range(len(accusations)) if seat != weasel]
    found_by = [seat for seat in ferrets if accusations[seat] == weasel]
    weasel_named_themself = accusations[weasel] == weasel
    weasel_guess = guesses.get(weasel) if weasel_named_themself else None
    if weasel_guess is not None and ferret_word is None:
        raise ValueError("the Ferrets' word is needed to score the Weasel's guess")
    weasel_got_the_word = weasel_guess is not None and same_word(weasel_guess, ferret_word or "")

    awards = []
    for seat in range(len(accusations)):
        if seat == weasel:
            earned = {
                "a_ferret_missed": len(found_by) < len(ferrets),
                "named_themself": weasel_named_themself,
                "guessed_the_ferret_word": weasel_got_the_word,
            }
        else:
            earned = {
                "named_the_weasel": seat in found_by,
                "weasel_missed_the_word": not weasel_got_the_word,
                "every_ferret_named_the_weasel": found_by == ferrets,
            }
        awards += [Award(seat, rule, POINTS[rule]) for rule, won in earned.items() if won]
    return awards


def score_round(accusations: Sequence[int], weasel: int, guesses: Mapping[int, str],
                ferret_word: str | None) -> list[int]:
    """Each player's points for one round, by the rulebook's six scoring lines."""
    points = [0] * len(accusations)
    for award in score_lines(accusations, weasel, guesses, ferret_word):
        points[award.seat] += award.points
    return points


def same_word(said: str, word: str) -> bool:
    return said.strip().casefold() == word.strip().casefold()


def leaders(scores: Sequence[int]) -> list[int]:
    best = max(scores)
    return [seat for seat, score in enumerate(scores) if score == best]


def end_reached(round_number: int, scores: Sequence[int], end: str | int) -> bool:
    """Whether the chosen ending has come, a tie for the lead aside."""
    if end == "rounds":
        return round_number >= ROUNDS
    return max(scores) >= int(end)


class PouchShelf:
    """The pouch pairs on the shelf: which pairs each pouch set holds, face by face, drawn by
    the seed alone, so the cards of every set can be printed before the game."""

    def __init__(self, pairs: int, seed: int) -> None:
        self.pairs = pairs  # how many pouch pairs the box holds
        self.rng = random.Random(seed)
        self.left: list[int] = []  # the pairs still on the shelf, in the order they come
        self.sets: list[tuple[int, ...]] = []

    def pouch_set(self, index: int) -> tuple[int, ...]:
        """The pouch pairs (indexes into the game's `pouches`) of pouch set `index`, face by
        face."""
        while len(self.sets) <= index:
            self.sets.append(self._draw())
        return self.sets[index]

    def _draw(self) -> tuple[int, ...]:
        if len(self.left) < FACES:
            last = self.sets[-1] if self.sets else ()
            unused = [p for p in range(self.pairs) if p not in self.left + list(last)]
            again = [p for p in last if p not in self.left]
            self.rng.shuffle(unused)
            self.rng.shuffle(again)
            self.left += unused + again  # the set just played comes back last
        drawn, self.left = self.left[:FACES], self.left[FACES:]
        return tuple(drawn)


@dataclass
class RoundAnswers:
    """What the table said in one round: the number, each clue, whom each player named, the
    guesses of those who named themselves, and the reveal (the Weasel, the Ferrets' word)."""

    number: int | None = None
    clues: dict[int, str] = field(default_factory=dict)
    accusations: dict[int, int] = field(default_factory=dict)
    guesses: dict[int, str] = field(default_factory=dict)
    weasel: int | None = None
    ferret_word: str | None = None

    def named_themselves(self, order: Sequence[int]) -> list[int]:
        """The seats of `order` that named themselves."""
        return [seat for seat in order if self.accusations.get(seat) == seat]

    def accusations_by_seat(self, players: int) -> list[int]:
        return [self.accusations[seat] for seat in range(players)]

    def secret_words(self, pair: PouchPair) -> tuple[str, ...]:
        """The two words of `pair` the chosen number points at, once it is chosen."""
        if self.number is None:
            return ()
        return tuple(sorted(pair.at(self.number)))


def next_to_answer(order: Sequence[int], answered: Mapping[int, object]) -> int:
    """The first seat of `order` that has not answered yet."""
    return next(seat for seat in order if seat not in answered)


class FerretOut(PhasedGame):
    """A game of Ferret Out, round by round: it asks each step's decision, keeps the round's
    answers and scores the round at the reveal."""

    def __init__(
        self,
        players: int,
        seed: int,
        pouches: Sequence[PouchPair],
        settings: Settings | None = None,
        printed: Sequence[PrintedRound] | None = None,
    ) -> None:
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise IllegalAction("player_count", low=MIN_PLAYERS, high=MAX_PLAYERS, got=players)
        if len(pouches) < FACES:
            raise IllegalAction("too_few_pouches", needed=FACES, got=len(pouches))
        self.settings = settings or Settings()
        if self.settings.end not in ENDINGS:
            raise IllegalAction("bad_end", options=ENDINGS, got=self.settings.end)
        self.players = players
        self.pouches = tuple(pouches)
        # Printed cards: the secrets are known, the reveal asks nothing and the game ends at
        # the last printed row at the latest (a tie there is shared).
        self.printed = None if printed is None else tuple(printed)
        self.shelf = PouchShelf(len(self.pouches), seed)
        # The die has its own stream so the pouches of later sets don't depend on the rolls.
        self.die = random.Random(f"{seed}/die")
        self.scores = [0] * players
        self.round = 1
        self.phase = "number"
        self.history: list[list[Award]] = []
        self.answers = RoundAnswers()

    # -- the sleeves --------------------------------------------------------------------------

    @property
    def sleeve(self) -> Sleeve:
        return sleeve_for(self.round)

    @property
    def pouch_pair(self) -> PouchPair:
        sleeve = self.sleeve
        return self.pouches[self.shelf.pouch_set(sleeve.pouch_set)[sleeve.face]]

    @property
    def cfo(self) -> int:
        return cfo_for(self.round, self.players)

    def speaking_order(self) -> list[int]:
        """Clockwise from the CFO."""
        return [(self.cfo + step) % self.players for step in range(self.players)]

    # -- the host's question ------------------------------------------------------------------

    def _ask_number(self) -> Decision:
        return Decision("number", self.cfo, NUMBERS + (ROLL,))

    def _ask_clue(self) -> Decision:
        seat = next_to_answer(self.speaking_order(), self.answers.clues)
        return Decision("clue", seat, ())  # free speech: one word

    def _ask_accuse(self) -> Decision:
        seat = next_to_answer(self.speaking_order(), self.answers.accusations)
        return Decision("accuse", seat, self.seats(), scoring=True)

    def _ask_guess(self) -> Decision:
        """Any word with the boxed sleeves (their words are not known); with printed cards,
        the pouch pair's words."""
        words = () if self.printed is None else self.pouch_pair.words() + (OTHER_WORD,)
        guessing = self.answers.named_themselves(self.speaking_order())
        return Decision("guess", next_to_answer(guessing, self.answers.guesses), words,
                        scoring=True)

    def seats(self) -> tuple[str, ...]:
        return tuple(str(seat) for seat in range(self.players))

    # -- moves --------------------------------------------------------------------------------

    def _on_number(self, action: Action) -> list[Event]:
        rolled = action.choice == ROLL
        self.answers.number = self.die.randint(1, WORDS_PER_ROW) if rolled else int(action.choice)
        self.phase = "clue"
        sleeve = self.sleeve
        return [
            RoundStarted(self.round, self.cfo, sleeve.step, sleeve.pouch_set, sleeve.face,
                         self.shelf.pouch_set(sleeve.pouch_set)[sleeve.face]),
            NumberChosen(self.round, self.answers.number, rolled),
        ]

    def _on_clue(self, action: Action) -> list[Event]:
        clue = action.choice.strip()
        self.answers.clues[action.player] = clue
        if len(self.answers.clues) == self.players:
            self.phase = "study"
        return [ClueGiven(action.player, clue)]

    def _on_study(self, action: Action) -> list[Event]:
        self.phase = "accuse"
        return []

    def _on_accuse(self, action: Action) -> list[Event]:
        answers = self.answers
        answers.accusations[action.player] = int(action.choice)
        if len(answers.accusations) < self.players:
            return []
        selves = answers.named_themselves(self.speaking_order())
        self.phase = "guess" if selves else "weasel"
        done = [AccusationsDone(self.round, answers.accusations_by_seat(self.players),
                                sorted(selves))]
        return done + (self._printed_reveal() if self.phase == "weasel" else [])

    def _on_guess(self, action: Action) -> list[Event]:
        answers = self.answers
        answers.guesses[action.player] = action.choice
        if len(answers.guesses) == len(answers.named_themselves(self.speaking_order())):
            self.phase = "weasel"
            return self._printed_reveal()
        return []

    def _printed_reveal(self) -> list[Event]:
        """With printed cards the engine knows the secrets: it scores without asking."""
        if self.printed is None:
            return []
        assert self.answers.number is not None
        row = self.printed[self.round - 1]
        self.answers.weasel = row.weasel
        self.answers.ferret_word = row.ferret_words[self.answers.number - 1]
        return self._score_round()

    def _on_weasel(self, action: Action) -> list[Event]:
        self.answers.weasel = int(action.choice)
        if self.answers.weasel in self.answers.guesses:
            self.phase = "guess_right"
            return []
        return self._score_round()

    def _on_guess_right(self, action: Action) -> list[Event]:
        # "" is no word: a wrong guess is scored against nothing it could match
        answers = self.answers
        answers.ferret_word = answers.guesses[answers.weasel] if action.choice == "yes" else ""
        return self._score_round()

    PHASES = {
        "number": Phase(_ask_number, _on_number),
        "clue": Phase(_ask_clue, _on_clue),
        "study": Phase(lambda game: Decision("study", None, ("ready",)), _on_study),
        "accuse": Phase(_ask_accuse, _on_accuse),
        "guess": Phase(_ask_guess, _on_guess),
        "weasel": Phase(lambda game: Decision("weasel", None, game.seats(), scoring=True),
                        _on_weasel),
        "guess_right": Phase(lambda game: Decision("guess_right", None, YES_NO, scoring=True),
                             _on_guess_right),
    }

    # -- round bookkeeping --------------------------------------------------------------------

    def _score_round(self) -> list[Event]:
        answers = self.answers
        assert answers.weasel is not None
        accusations = answers.accusations_by_seat(self.players)
        awards = score_lines(accusations, answers.weasel, answers.guesses, answers.ferret_word)
        points = score_round(accusations, answers.weasel, answers.guesses, answers.ferret_word)
        for seat, gained in enumerate(points):
            self.scores[seat] += gained
        self.history.append(awards)
        events = [RoundScored(
            self.round, answers.weasel, answers.ferret_word, accusations,
            dict(sorted(answers.guesses.items())), points, [award.to_json() for award in awards],
            list(self.scores))]
        last_row = self.printed is not None and self.round >= len(self.printed)
        if end_reached(self.round, self.scores, self.settings.end) or last_row:
            if len(leaders(self.scores)) == 1 or last_row:
                self.phase = "over"
                return events + [GameOver(list(self.scores), self.winners())]
            events.append(TieBreak(self.round + 1, leaders(self.scores)))
        self.round += 1
        self.phase = "number"
        self.answers = RoundAnswers()
        return events

    # -- what the table can ask ---------------------------------------------------------------

    def winners(self) -> list[int]:
        return leaders(self.scores)
