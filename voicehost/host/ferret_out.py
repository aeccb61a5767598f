"""Ferret Out at the table: the rules engine plus the words for its decisions and events.

The players hold the sleeves, so the host knows no secret: it names the number, collects the
clues (free speech, kept as words or as recordings, see voicehost/host/clips.py), times the
study, hears whom everyone named and the guesses, asks the reveal, and scores aloud.

With printed cards (`cards`, see voicehost/cards/) the host knows each row's Weasel card and
words: it deals by voice, names the row and the number, skips the reveal questions and says
who was the Weasel and the Ferrets' word itself.

A guess is never listed aloud: the twelve words of a round are the Ferrets' row and the
Weasel's row, and hearing both would tell the Weasel the word they are guessing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from voicehost.games.base import Decision, IllegalAction, setting
from voicehost.games.deck import Deck, letters
from voicehost.games.ferret_out import (
    ENDINGS,
    NAME,
    NUMBERS,
    OTHER_WORD,
    ROLL,
    TITLE,
    YES_NO,
    AccusationsDone,
    ClueGiven,
    FerretOut,
    GameOver,
    NumberChosen,
    PouchPair,
    PrintedRound,
    RoundScored,
    RoundStarted,
    Settings,
    TieBreak,
    sleeve_for,
)
from voicehost.games.layout import FerretLayout, ferret_layout, row_cards_for
from voicehost.host.clips import Playback, Said
from voicehost.host.exchange import Cue
from voicehost.host.lines import Lines, said_number, spoken_list
from voicehost.host.narrator import Narrator
from voicehost.host.questions import Questions
from voicehost.host.referee import Referee
from voicehost.host.table import Choices, Seats, Table, Timer
from voicehost.intents.grammar import Intent
from voicehost.prompts_dir import load_yaml

ENDS = tuple(str(end) for end in ENDINGS)  # as `--set end=` gives them
LONGEST_CLUE = 30  # letters; "pneumonoultramicroscopicsilicovolcanoconiosis" can wait
LAST_CALL_S = 10  # besides half time, a long study timer warns this many seconds before the end
LONG_PROMPTS = ("number", "clue", "accuse", "guess")  # said in full once a round, then short


@dataclass(frozen=True)
class TableSettings:
    """`--set` settings: end=rounds|15|20; study_seconds=N (0: wait for "ready")."""

    end: str = "rounds"
    study_seconds: int = setting(60, 0, 600)  # ten minutes is a long look

    def __post_init__(self) -> None:
        if str(self.end) not in ENDS:
            raise ValueError(f"setting end wants one of {', '.join(ENDS)}, not {self.end!r}")
        object.__setattr__(self, "end", str(self.end))  # a journal may hold 15 as a number

    def rules(self) -> Settings:
        return Settings(end="rounds" if self.end == "rounds" else int(self.end))


def deck() -> list[PouchPair]:
    return [PouchPair.from_json(pair) for pair in load_yaml("ferret_out/pouches.yaml")["pouches"]]


def read_or_played(lines: Lines, said: Said, read: str, played: str, lost: str,
                   **facts: Any) -> str:
    """What a player said: line `read` when its words can be read out, else its recording,
    played after line `played` (line `lost` instead, if it is gone)."""
    if said.readable() or not said.clip:
        return lines(read, **facts)
    return Playback(lines(played, **facts), said.clip, lines(lost, **facts))


class FerretQuestions(Questions["FerretOutTable"]):
    """Asks the number (the round's start said with it), each clue, the study, each
    accusation and guess, the reveal, and whether the Weasel's guess was right."""

    def __init__(self, table: FerretOutTable) -> None:
        super().__init__(table)
        self.prompted: set[tuple[int, str]] = set()  # (round, kind) whose long prompt was said

    def opening(self) -> list[str]:
        end = self.table.settings.end
        ending = (self.lines("ending_rounds") if end == "rounds"
                  else self.lines("ending_points", points=int(end)))
        if self.table.past.played:
            return [self.lines("intro_again", ending=ending)]
        names = self.seats.names_of(range(self.table.game.players))
        return [self.lines("intro", names=names, ending=ending)]

    def _round_start(self) -> str:
        game = self.table.game
        if self.table.printed is not None:
            start = self.lines("printed_round_start", round=game.round,
                               cfo=self.seats.name_of(game.cfo))
            layout = self.table.layout()
            assert layout is not None  # a round starts once the deck number is known
            on_card = layout.on_row_card(layout.rows[game.round - 1].row_card)
            if game.round == 1:
                deal = [self.lines("printed_deal", takes=self.takes(),
                                   steps=self.fold_steps(),
                                   rule=self.lines("slip_rule_row"))]
                if layout.row_cards > 1:
                    deal.append(self.lines("printed_row_cards", cards=layout.row_cards,
                                           last=layout.rows[-1].round))
                return " ".join([*deal, start])
            if game.round == on_card[0].round:
                return " ".join([start, self.lines("printed_next_card", row=game.round,
                                                   last=on_card[-1].round)])
            return start
        sleeve = sleeve_for(game.round)
        key = ("tie_round" if game.round > 8 and game.settings.end == "rounds"
               else "round_later" if game.round > 1 else "round_start")
        return self.lines(key, round=game.round, cfo=self.seats.name_of(game.cfo),
                          sleeves=self.lines(f"sleeves_{sleeve.step}"))

    def _first_time(self, kind: str) -> bool:
        key = (self.table.game.round, kind)
        first = key not in self.prompted
        self.prompted.add(key)
        return first

    def ask(self, decision: Decision) -> str:
        line, game = self.lines, self.table.game
        long = decision.kind in LONG_PROMPTS and self._first_time(decision.kind)
        later = game.round > 1 or self.table.past.played  # the table knows how a round goes
        if decision.kind == "number":
            ask = line("number_later" if later else "number_prompt",
                       cfo=self.seats.name_of(game.cfo))
            return f"{self._round_start()} {ask}" if long else ask
        if decision.kind == "study":
            seconds = self.table.settings.study_seconds
            if not seconds:
                return line("study_ready")
            return line("study_later" if later else "study_timer", seconds=seconds)
        if decision.kind == "weasel":
            return line("reveal_round" if later else "reveal_prompt")
        if decision.kind == "guess_right":
            return self._weasels_guess()
        name = self.seats.name_of(decision.decider)
        if decision.kind == "clue":
            if long and not game.answers.clues:
                return line("clue_round" if later else "clue_first", name=name)
            return line("clue_next", name=name)
        if decision.kind == "accuse":
            if long and not game.answers.accusations:
                countdown = line("countdown_round" if later else "countdown")
                return f"{countdown} {line('accuse_prompt', name=name)}"
            return line("accuse_next" if game.answers.accusations else "accuse_prompt",
                        name=name)
        # how a guess is given is told the first round anyone guesses, unless the table knows
        known = self.table.past.played or any(
            kind == "guess" and round_ < game.round for round_, kind in self.prompted)
        if long and not game.answers.guesses and not known:
            return line("guess_first", name=name)
        return line("guess_round" if long and not game.answers.guesses else "guess_next",
                    name=name)

    def _weasels_guess(self) -> str:
        """Ask the Ferrets whether the Weasel's guess was their word: its words, or, when
        they were not heard for sure, its recording."""
        weasel = self.table.game.answers.weasel
        said = Said.parse(self.table.game.answers.guesses[weasel])
        return read_or_played(self.lines, said, "guess_right_prompt", "guess_right_played",
                                    "guess_right_lost", name=self.seats.name_of(weasel),
                                    word=said.words)

    def say_options(self, decision: Decision) -> str:
        kind, everyone = decision.kind, self.seats.named(range(self.table.game.players))
        if kind == "accuse":
            return self.lines("options_named",
                              names=self.lines.either([*everyone, self.lines("myself")]))
        if kind == "weasel":
            return self.lines("options_weasel", names=self.lines.either(everyone))
        if kind == "guess" and not decision.options:
            return self.lines("options_guess_any")
        return self.lines(f"options_{kind}")

    def timer(self, decision: Decision) -> Timer | None:
        seconds = self.table.settings.study_seconds
        if decision.kind != "study" or not seconds:
            return None
        marks = {seconds // 2} | ({LAST_CALL_S} if seconds > 2 * LAST_CALL_S else set())
        warnings = [(float(left), self.lines("time_left", seconds=left))
                    for left in sorted(marks) if left > 1]
        return Timer(float(seconds), "ready", self.lines("time_up"), warnings)

    def context(self, decision: Decision) -> dict[str, Any]:
        """Public facts for the event stream: the round and, once said aloud, the number."""
        if self.table.waiting_for_deck():
            return {}
        return {"round": self.table.game.round, "number": self.table.game.answers.number}


class FerretReferee(Referee["FerretOutTable"]):
    """Hears the number, whom a player names, the Weasel, a guess and yes or no."""

    def choices(self, decision: Decision) -> Choices:
        kind = decision.kind
        if kind == "clue" or not decision.options:
            return []  # free speech: a clue, or a guess of any word (the boxed sleeves)
        if kind == "study":
            return self.ready_choices()
        if kind == "number":
            return self._number_choices(decision)
        if kind in ("accuse", "weasel"):
            patterns = self.table.intents["named" if kind == "accuse" else "weasel"]
            chooser = decision.decider if kind == "accuse" else None
            return self.seats.choices(decision.options, patterns, chooser)
        if kind == "guess":
            return [(Intent("choose", o), self.table.intents["guess_other"] if o == OTHER_WORD
                     else [p.format(word=o) for p in self.table.intents["guess"]])
                    for o in decision.options]
        return [(Intent("choose", answer), templates)
                for answer, templates in load_yaml("common/intents.yaml")["confirm"].items()]

    def read_back(self, decision: Decision) -> bool:
        return decision.kind != "guess_right"

    def gathered(self, decision: Decision) -> bool:
        return decision.kind in ("accuse", "guess") and bool(decision.options)

    def closes_gathering(self, decision: Decision) -> bool:
        answers = self.table.game.answers
        if decision.kind == "accuse":
            return len(answers.accusations) == self.table.game.players - 1
        guessing = answers.named_themselves(self.table.game.speaking_order())
        return len(answers.guesses) == len(guessing) - 1

    def _number_choices(self, decision: Decision) -> Choices:
        """The numbers of the sleeve's words and roll; and the numbers past them, heard so
        that the rules refuse them and the host says the range."""
        said = [(Intent("choose", o), self.table.intents["number"][o]) for o in decision.options]
        numbers = enumerate(load_yaml("common/tokens.yaml")["numbers"], 1)
        return said + [(Intent("choose", str(n)),
                        [t.format(number=word) for t in self.table.intents["number_past"]])
                       for n, word in numbers if str(n) not in decision.options]

    def describe_choice(self, decision: Decision, value: str) -> str:
        if decision.kind == "weasel":
            return self.lines("weasel_was", name=self.seats.name_of(int(value)))
        if decision.kind == "guess_right":
            name = self.seats.name_of(self.table.game.answers.weasel)
            return self.lines("guess_was_right" if value == "yes" else "guess_was_wrong",
                              name=name)
        name = self.seats.name_of(decision.decider)
        if decision.kind == "accuse":
            if int(value) == decision.decider:
                return self.lines("named_self", name=name)
            return self.lines("named", name=name, target=self.seats.name_of(int(value)))
        if value == OTHER_WORD:
            return self.lines("guessed_other", name=name)
        return self.lines("guessed", name=name, word=value)

    def refuse(self, illegal: IllegalAction, decision: Decision) -> str:
        if illegal.reason in ("clue_is_one_word", "guess_is_one_word"):
            return self.lines("one_word")
        if illegal.reason == "bad_number":
            return self.lines("number_range")
        return super().refuse(illegal, decision)


class FerretNarrator(Narrator["FerretOutTable"]):
    """Says the number, echoes each clue and reads them back, who named themselves, each
    round's score and the winners."""

    def _say_number_chosen(self, facts: dict[str, Any]) -> list[str]:
        rolled = ([self.lines("rolled", number=said_number(facts["number"]))] if facts["rolled"]
                  else [])
        return rolled + [self._number_line(facts["round"], facts["number"])]

    def _number_line(self, round_number: int, number: int) -> str:
        if self.table.printed is not None:
            return self.lines("printed_number", number=number, row=round_number)
        return self.lines("number_later_chosen" if round_number > 1 else "number_chosen",
                          number=said_number(number))

    def _say_clue_given(self, facts: dict[str, Any]) -> list[str]:
        seat, said = facts["player"], Said.parse(facts["clue"])
        name = self.seats.name_of(seat)
        # each clue said back as heard (its recording, where its words could not be read),
        # for the table to check; "read the answers" says them all again
        if not said.readable() and not said.clip:
            return [self.lines("clue_recorded", name=name)]
        return [read_or_played(self.lines, said, "clue_echo", "clue_caption", "clue_lost",
                               name=name, clue=said.words)]

    def read_clues(self) -> list[str]:
        """Every clue of the round in speaking order: its words, or its recording played."""
        read: list[str] = []
        for seat in self.table.game.speaking_order():
            if seat not in self.table.game.answers.clues:
                continue
            said = Said.parse(self.table.game.answers.clues[seat])
            read.append(read_or_played(self.lines, said, "clue_line", "clue_caption", "clue_lost",
                                             name=self.seats.name_of(seat), clue=said.words))
        return read

    def _say_accusations_done(self, facts: dict[str, Any]) -> list[str]:
        # who named themselves was just read back; that nobody did says there are no guesses
        return [] if facts["named_themselves"] else [self.lines("nobody_self")]

    def _say_round_scored(self, facts: dict[str, Any]) -> list[str]:
        """The reveal, who scored what in one breath, and who leads; the reasons are for
        whoever asks for the scores."""
        self.last_scored = facts
        said = [Cue("sting"), self.lines("round_over", weasel=self.seats.name_of(facts["weasel"]))]
        layout = self.table.layout()
        if layout is not None:
            row = layout.rows[facts["round"] - 1]
            at = row.ferret_words.index(facts["ferret_word"])
            said.append(self.lines("printed_words", ferret=row.ferret_words[at],
                                   weasel=row.weasel_words[at]))
        return [*said, self.points_said(facts["points"]), self.leader(facts["scores"])]

    def explained(self) -> list[str]:
        """The last round's points, rule by rule: what "scores" adds to the standings."""
        facts = self.last_scored
        if facts is None:
            return []
        said = [self.lines("explained_round", round=facts["round"])]
        for seat, points in enumerate(facts["points"]):
            name = self.seats.name_of(seat)
            reasons = [self.lines(f"reason_{award['rule']}") for award in facts["breakdown"]
                       if award["seat"] == seat]
            said.append(self.lines("score_line", name=name, reasons=spoken_list(reasons),
                                   points=said_number(points)) if points
                        else self.lines("score_none", name=name))
        return said

    def _say_tie_break(self, facts: dict[str, Any]) -> list[str]:
        return [self.lines("tie_break")]

    def _say_game_over(self, facts: dict[str, Any]) -> list[str]:
        return [Cue("fanfare"), self.winners_line(facts)]

    narrators = {
        NumberChosen: _say_number_chosen,
        ClueGiven: _say_clue_given,
        AccusationsDone: _say_accusations_done,
        RoundScored: _say_round_scored,
        TieBreak: _say_tie_break,
        GameOver: _say_game_over,
        RoundStarted: None,  # the round's first question says it
    }

    def recap(self, decision: Decision) -> list[str]:
        if self.table.waiting_for_deck():
            return []
        if decision.kind == "number":
            return []  # the number's question starts with the round
        recap = [self.lines("recap_round", round=self.table.game.round)]
        if self.table.game.answers.number is not None:
            recap.append(self._number_line(self.table.game.round, self.table.game.answers.number))
        if self.table.game.answers.clues:
            recap += [self.lines("recap_clues"), *self.read_clues()]
        return recap

    def tally(self) -> list[str]:
        """This round's clues, read back (recordings played)."""
        if self.table.waiting_for_deck() or not self.table.game.answers.clues:
            return [self.lines("no_clues")]
        return [self.lines("clues_intro"), *self.read_clues()]

    def status(self) -> str:
        game = self.table.game
        if self.table.waiting_for_deck():
            return self.table.questions.deck_prompt()
        return " ".join([self.lines("status", round=game.round, cfo=self.seats.name_of(game.cfo),
                                    phase=self.lines(f"phase_{game.phase}")),
                         self.standings()])


class FerretOutTable(Table):
    name = "ferret_out"
    title = TITLE
    deck_game = NAME
    decisions = ("number", "clue", "study", "accuse", "guess", "weasel", "guess_right")
    settings_type = TableSettings
    # The guess offers the round's twelve words, paired: shown, they would tell the Weasel the
    # Ferrets' word at the number.
    secret_options = frozenset({"guess"})
    questions_type = FerretQuestions
    referee_type = FerretReferee
    narrator_type = FerretNarrator

    @classmethod
    def deck_words(cls) -> frozenset[str]:
        return frozenset(word for pair in deck() for word in pair.words())

    def __init__(self, seats: Seats, seed: int, settings: TableSettings | None = None,
                 cards: str | None = None) -> None:
        self.pouches = deck()
        self.intents = load_yaml("ferret_out/intents.yaml")
        super().__init__(seats, seed, settings or TableSettings(), cards)

    def _boxed_game(self) -> Any:
        return FerretOut(len(self.seats.names), self.seed, self.pouches,
                         self.settings.rules())

    # -- printed cards ----------------------------------------------------------------------

    def _seat_of_card(self, card: int) -> int:
        return self.card_letters().index(letters(len(self.seats.names))[card])

    def _layout_of(self, deck: Deck) -> FerretLayout:
        """The rows of every card the chosen ending has printed."""
        return ferret_layout(deck, self.pouches, row_cards_for(self.settings.end))

    def _printed_game(self, deck: Deck) -> FerretOut:
        rows = self._layout_of(deck).rows
        printed = [PrintedRound(self._seat_of_card(row.weasel), row.ferret_words)
                   for row in rows]
        return FerretOut(deck.players, deck.seed, self.pouches, self.settings.rules(), printed)

    def layout(self) -> FerretLayout | None:
        if self.printed is None or self.printed.deck is None:
            return None
        return self._layout_of(self.printed.deck)

    def printed_secrets(self, deck: Deck) -> dict[str, Any]:
        names = self.seats.names
        return {"rounds": [{"round": row.round, "row": row.round,
                            "weasel": names[self._seat_of_card(row.weasel)],
                            "ferret_words": list(row.ferret_words),
                            "weasel_words": list(row.weasel_words)}
                           for row in self._layout_of(deck).rows]}

    def example_decision(self, kind: str, which: int = 0) -> Decision:
        """The decision of `kind` as the host would ask it (for `voicehost hear`); a guess
        offers the twelve words of pouch pair `which`, as with printed cards."""
        words = self.pouches[which].words()
        options = {"number": NUMBERS + (ROLL,), "clue": (), "study": ("ready",),
                   "accuse": self.game.seats(), "guess": words + (OTHER_WORD,),
                   "weasel": self.game.seats(), "guess_right": YES_NO}
        if kind not in self.decisions:
            raise ValueError(f"Ferret Out has no decision {kind!r}; "
                             f"try: {', '.join(self.decisions)}")
        decider = None if kind in ("study", "weasel", "guess_right") else 0
        return Decision(kind, decider, options[kind],
                        scoring=kind not in ("number", "clue", "study"))

    # -- what the host hears ----------------------------------------------------------------

    def refuse_choice(self, decision: Decision, value: str) -> str | None:
        """A "word" longer than any word is refused (a typed line, not a clue). A clue on the
        player's own card is left to the table, as with the boxed sleeves: refusing it would
        tell everyone a word of that card."""
        if decision.kind in ("clue", "guess") and len(Said.parse(value).words) > LONGEST_CLUE:
            return self.lines("clue_too_long", letters=LONGEST_CLUE)
        return None
