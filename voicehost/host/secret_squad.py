"""Secret Squad at the table: the rules engine plus the words for its decisions and events."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from voicehost.games.base import Action, Decision, IllegalAction
from voicehost.games.deck import Deck, letters
from voicehost.games.layout import SQUAD_BOXES, squad_layout
from voicehost.games.secret_squad import (
    ANSWERS,
    LONE_SQUAD_POINTS,
    NAME,
    SQUADS,
    TITLE,
    Answered,
    CardDone,
    CardDrawn,
    CardSkipped,
    GameOver,
    PointNow,
    RevealNow,
    RoundScored,
    RoundStarted,
    SecretSquad,
    Settings,
    squad_cards,
)
from voicehost.host.exchange import Cue
from voicehost.host.lines import said_number
from voicehost.host.narrator import Narrator
from voicehost.host.questions import Questions
from voicehost.host.referee import Referee
from voicehost.host.table import Choices, Seats, Table
from voicehost.intents.grammar import Intent
from voicehost.prompts_dir import load_yaml


def question_deck() -> list[dict[str, str]]:
    return load_yaml("secret_squad/questions.yaml")["cards"]


class SquadQuestions(Questions["SecretSquadTable"]):
    """Asks the deal, the study, each answer, each pointing and each squad."""

    def opening(self) -> list[str]:
        table = self.table
        rounds = self.lines.count("rounds", table.settings.rounds)
        cards = self.lines.count("questions", table.settings.cards_per_round)
        if table.past.played:
            return [self.lines("intro_again", rounds=rounds, cards=cards)]
        return [self.lines("intro", names=self.seats.names_of(range(table.game.players)),
                           rounds=rounds, cards=cards)]

    def ask(self, decision: Decision) -> str:
        line, game = self.lines, self.table.game
        if decision.kind == "deal" and self.table.printed is not None:
            return self._printed_deal()
        if decision.kind == "deal":
            aside = line("aside") if game.players % 2 else ""
            return line("deal", round=game.round, each=said_number(squad_cards(game.players)),
                        aside=aside)
        if decision.kind == "ready":
            return line("study")
        name = self.seats.name_of(decision.decider)
        if decision.kind == "answer":
            first = not game.cards[-1].answers
            return line("answer_first" if first else "answer_next", name=name)
        if decision.kind == "point":
            first = all(target is None for target in game.pointed_at)
            return line("point_prompt" if first else "point_next", name=name)
        first = all(squad is None for squad in game.squads)
        return line("squad_prompt" if first else "squad_next", name=name)

    def _printed_deal(self) -> str:
        game = self.table.game
        box = self.table.box(game.round)
        if game.round > 1:
            return self.lines("printed_box", round=game.round, box=box)
        return self.lines("printed_deal", round=game.round, takes=self.takes(), box=box,
                          steps=self.fold_steps(), rule=self.lines("slip_rule_box"))

    def say_options(self, decision: Decision) -> str:
        if decision.kind == "point":
            return self.lines("options_point", names=self.lines.either(
                self.seats.named([int(o) for o in decision.options])))
        kind = "ready" if decision.kind == "deal" else decision.kind
        return self.lines(f"options_{kind}")

    def context(self, decision: Decision) -> dict[str, Any]:
        if self.table.waiting_for_deck():
            return {}
        return {"round": self.table.game.round, "card": len(self.table.game.cards)}


class SquadReferee(Referee["SecretSquadTable"]):
    """Hears yup or nope, whom a player points at, and the squad they claim."""

    def choices(self, decision: Decision) -> Choices:
        if decision.kind in ("deal", "ready"):
            return self.ready_choices()
        if decision.kind == "point":
            patterns = load_yaml("common/intents.yaml")["pointed_at"]
            return self.seats.choices(self._pointable(decision), patterns, decision.decider)
        templates = load_yaml("secret_squad/intents.yaml")[decision.kind]
        return [(Intent("choose", option), templates[option]) for option in decision.options]

    def _pointable(self, decision: Decision) -> tuple[str, ...]:
        """The seats a pointing may name: its options, and the pointer's own seat even where
        the rules forbid it, so "myself" is refused with the rule, not "not understood"."""
        own = str(decision.decider)
        return decision.options + (() if own in decision.options else (own,))

    def describe_choice(self, decision: Decision, value: str) -> str:
        name = self.seats.name_of(decision.decider)
        if decision.kind == "point":
            if int(value) == decision.decider:
                return self.lines("pointed_self", name=name)
            return self.lines("pointed", name=name, target=self.seats.name_of(int(value)))
        return self.lines("squad_said", name=name, squad=value)

    def gathered(self, decision: Decision) -> bool:
        return decision.kind in ("point", "squad")

    def closes_gathering(self, decision: Decision) -> bool:
        game = self.table.game
        given = game.pointed_at if decision.kind == "point" else game.squads
        return sum(answer is not None for answer in given) == game.players - 1

    def skip_action(self, decision: Decision) -> Action | None:
        return Action("skip_card", None) if decision.kind == "answer" else None

    def describe_action(self, action: Action) -> str:
        if action.kind == "point":  # the seat pointed at, by name
            action = Action(action.kind, action.player, self.seats.name_of(int(action.choice)))
        return super().describe_action(action)

    def refuse(self, illegal: IllegalAction, decision: Decision) -> str:
        if illegal.reason == "too_many_in_squad":
            claimed = self.seats.names_of(illegal.facts["claimed"])
            return self.lines("too_many", cards=illegal.facts["cards"],
                              squad=illegal.facts["squad"], claimed=claimed)
        if illegal.reason == "bad_point":  # the only seat heard that is no option: their own
            return self.lines("point_not_yourself", players=self.table.game.players)
        return super().refuse(illegal, decision)


class SquadNarrator(Narrator["SecretSquadTable"]):
    """Says each question, answer and tally, the reveal, who found their squad, and the
    scores."""

    def _say_answered(self, facts: dict[str, Any]) -> list[str]:
        return [self.lines("answered", name=self.seats.name_of(facts["player"]),
                           answer=facts["answer"])]

    def _say_card_drawn(self, facts: dict[str, Any]) -> list[str]:
        card = self.table.deck[facts["card"]]
        first = facts["round"] == 1 and facts["index"] == 1
        return [self.lines("card_first" if first else "card", index=facts["index"],
                           yellow=card["yellow"], red=card["red"])]

    def _say_card_done(self, facts: dict[str, Any]) -> list[str]:
        return [self._tally_line(facts)]

    def _say_card_skipped(self, facts: dict[str, Any]) -> list[str]:
        return [self.lines("skipped")]

    def _say_point_now(self, facts: dict[str, Any]) -> list[str]:
        return [self.lines("countdown")]

    def _say_reveal_now(self, facts: dict[str, Any]) -> list[str]:
        if self.table.printed is not None:
            return [Cue("sting"), self.lines("printed_reveal", box=self.table.box(facts["round"]))]
        return [Cue("sting"), self.lines("reveal")]

    def _say_round_scored(self, facts: dict[str, Any]) -> list[str]:
        """Who was in which squad (printed cards), who scored what in one breath, who leads;
        each award is for whoever asks for the scores."""
        self.last_scored = facts
        said = [self.lines("round_over", round=facts["round"])]
        if self.table.printed is not None:
            said.append(self._who_was_what(facts["squads"]))
        points = [award["pick"] + award["bonus"] for award in facts["awards"]]
        return [*said, self.points_said(points), self.leader(facts["scores"])]

    def explained(self) -> list[str]:
        facts = self.last_scored
        if facts is None:
            return []
        said = []
        for seat, award in enumerate(facts["awards"]):
            name = self.seats.name_of(seat)
            if award["pick"] == LONE_SQUAD_POINTS:
                line = self.lines("alone", name=name, squad=facts["squads"][seat])
            elif award["pick"]:
                line = self.lines("found", name=name)
            elif award["bonus"]:
                line = self.lines("missed_found", name=name)
            else:
                line = self.lines("missed", name=name)
            if award["bonus"] and award["pick"]:
                line += self.lines("bonus")
            said.append(line + ".")
        return said

    def _who_was_what(self, squads: list[str]) -> str:
        def members(squad: str) -> str:
            seats = [s for s, sq in enumerate(squads) if sq == squad]
            return self.seats.names_of(seats) or self.lines("nobody")

        return self.lines("printed_squads", yellow=members("yellow"), red=members("red"))

    def _say_game_over(self, facts: dict[str, Any]) -> list[str]:
        said = [Cue("fanfare"), self.winners_line(facts)]
        settings = self.table.settings
        next_box = self.table.box(settings.rounds + 1)
        if self.table.printed is not None and next_box + settings.rounds - 1 <= SQUAD_BOXES:
            said.append(self.lines("rematch", box=next_box))
        return said

    narrators = {
        Answered: _say_answered,
        CardDrawn: _say_card_drawn,
        CardDone: _say_card_done,
        CardSkipped: _say_card_skipped,
        PointNow: _say_point_now,
        RevealNow: _say_reveal_now,
        RoundScored: _say_round_scored,
        GameOver: _say_game_over,
        RoundStarted: None,  # the round's first question says it
    }

    def _tally_line(self, tally: dict[str, Any]) -> str:
        def names(seats: list[int]) -> str:
            return self.seats.names_of(seats) or self.lines("nobody")

        return self.lines("tally", index=tally["index"], yup=names(tally["yup"]),
                          nope=names(tally["nope"]))

    # -- where the game stands --------------------------------------------------------------

    def recap(self, decision: Decision) -> list[str]:
        game = self.table.game
        slip = self._slip_recap(decision)
        if decision.kind != "answer":
            return slip
        card = game.cards[-1]
        recap = self.narrate([CardDrawn(game.round, len(game.cards), card.number)])
        return slip + recap + [self.lines("answered", name=self.seats.name_of(seat),
                                          answer=answer)
                               for seat, answer in sorted(card.answers.items())]

    def _slip_recap(self, decision: Decision) -> list[str]:
        """Printed cards, past the deal: which box slip holds this round's squads (the deal's
        question names it; a resumed round has not heard it)."""
        if (self.table.printed is None
                or decision.kind not in ("ready", "answer", "point", "squad")):
            return []
        game = self.table.game
        return [self.lines("printed_recap", round=game.round, box=self.table.box(game.round))]

    def status(self) -> str:
        """Where the game stands: the round and card, then the scores."""
        if self.table.waiting_for_deck():
            return self.table.questions.deck_prompt()
        game = self.table.game
        where = [self.lines("recap_card", index=len(game.cards), round=game.round)
                 ] if game.cards else []
        return " ".join([*where, self.standings()])

    def tally(self) -> list[str]:
        if self.table.waiting_for_deck():
            return [self.lines("no_tally")]
        game = self.table.game
        done = [i for i, card in enumerate(game.cards) if len(card.answers) == game.players]
        if not done:
            return [self.lines("no_tally")]
        return [" ".join(self._tally_line(game.tally(i).facts) for i in done)]


class SecretSquadTable(Table):
    name = "secret_squad"
    title = TITLE
    deck_game = NAME
    decisions = ("deal", "ready", "answer", "point", "squad")
    settings_type = Settings
    questions_type = SquadQuestions
    referee_type = SquadReferee
    narrator_type = SquadNarrator

    def __init__(self, seats: Seats, seed: int, settings: Settings | None = None,
                 cards: str | None = None) -> None:
        settings = settings or Settings()
        self.deck = question_deck()
        super().__init__(seats, seed, settings, cards)

    def _boxed_game(self) -> Any:
        return SecretSquad(len(self.seats.names), self.seed, len(self.deck), self.settings,
                           recent=self.past.recent_cards)

    def cards_heard(self, actions: Sequence[Action]) -> list[int]:
        game, heard = self._new_game(), []
        for action in actions:
            heard += [event.card for event in game.apply(action) if isinstance(event, CardDrawn)]
        return heard

    # -- printed cards ----------------------------------------------------------------------

    def _check_printed(self, cards: str) -> None:
        """ValueError (a sentence for the table) when these cards cannot host this game."""
        last = self.settings.first_box + self.settings.rounds - 1
        if self.settings.first_box < 1 or last > SQUAD_BOXES:
            raise ValueError(f"printed cards have boxes 1 to {SQUAD_BOXES}; rounds "
                             f"{self.settings.first_box} to {last} do not fit (set first_box)")
        super()._check_printed(cards)

    def box(self, round_number: int) -> int:
        return self.settings.first_box + round_number - 1

    def _printed_game(self, deck: Deck) -> SecretSquad:
        layout = squad_layout(deck)
        cards = [letters(deck.players).index(letter) for letter in self.card_letters()]
        dealt = [[layout.boxes[self.box(r) - 1][card] for card in cards]
                 for r in range(1, self.settings.rounds + 1)]
        return SecretSquad(deck.players, self.seed, len(self.deck), self.settings, dealt=dealt,
                           recent=self.past.recent_cards)

    def printed_secrets(self, deck: Deck) -> dict[str, Any]:
        names = self.seats.names
        return {"rounds": [{"round": r, "box": self.box(r),
                            "squads": dict(zip(names, squads, strict=True))}
                           for r, squads in enumerate(self.game.dealt, 1)]}

    def example_decision(self, kind: str, which: int = 0) -> Decision:
        """The decision of `kind` as the host would ask it of `which` (for `voicehost hear`)."""
        options = {"deal": ("ready",), "ready": ("ready",), "answer": ANSWERS,
                   "point": self.game.point_options(which), "squad": SQUADS}
        if kind not in self.decisions:
            raise ValueError(f"Secret Squad has no decision {kind!r}; "
                             f"try: {', '.join(self.decisions)}")
        return Decision(kind, None if kind in ("deal", "ready") else which, options[kind])
