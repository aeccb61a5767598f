"""Secret Squad at the table: the rules engine plus the words for its decisions and events."""

from __future__ import annotations

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
from voicehost.host.table import Choices, Seats, Table
from voicehost.intents.grammar import Intent
from voicehost.prompts_dir import load_yaml


def question_deck() -> list[dict[str, str]]:
    return load_yaml("secret_squad/questions.yaml")["cards"]


class SecretSquadTable(Table):
    name = "secret_squad"
    title = TITLE
    deck_game = NAME
    decisions = ("deal", "ready", "answer", "point", "squad")
    settings_type = Settings

    def __init__(self, seats: Seats, seed: int, settings: Settings | None = None,
                 cards: str | None = None) -> None:
        settings = settings or Settings()
        self.deck = question_deck()
        super().__init__(seats, seed, settings, cards)

    def _boxed_game(self) -> Any:
        return SecretSquad(len(self.seats.names), self.seed, len(self.deck), self.settings)

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
        return SecretSquad(deck.players, self.seed, len(self.deck), self.settings, dealt=dealt)

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

    # -- words ----------------------------------------------------------------------------

    def opening(self) -> list[str]:
        return [self.lines("intro", names=self.names_of(range(self.game.players)),
                           rounds=self.lines.count("rounds", self.settings.rounds),
                           cards=self.lines.count("questions", self.settings.cards_per_round))]

    def ask(self, decision: Decision) -> str:
        line = self.lines
        if decision.kind == "deal" and self.printed is not None:
            return self._printed_deal()
        if decision.kind == "deal":
            aside = line("aside") if self.game.players % 2 else ""
            return line("deal", round=self.game.round, each=squad_cards(self.game.players),
                        aside=aside)
        if decision.kind == "ready":
            return line("study")
        name = self.name_of(decision.decider)
        if decision.kind == "answer":
            first = not self.game.cards[-1].answers
            return line("answer_first" if first else "answer_next", name=name)
        if decision.kind == "point":
            return line("point_prompt", name=name)
        return line("squad_prompt", name=name)

    def _printed_deal(self) -> str:
        box = self.box(self.game.round)
        if self.game.round > 1:
            return self.lines("printed_box", round=self.game.round, box=box)
        return self.lines("printed_deal", round=self.game.round, takes=self.takes(), box=box,
                          steps=self.fold_steps(), rule=self.lines("slip_rule_box"))

    def choices(self, decision: Decision) -> Choices:
        if decision.kind in ("deal", "ready"):
            return self.ready_choices()
        if decision.kind == "point":
            patterns = load_yaml("common/intents.yaml")["pointed_at"]
            return self.seat_choices(self._pointable(decision), patterns, decision.decider)
        templates = load_yaml("secret_squad/intents.yaml")[decision.kind]
        return [(Intent("choose", option), templates[option]) for option in decision.options]

    def say_options(self, decision: Decision) -> str:
        if decision.kind == "point":
            return self.lines("options_point", names=self.names_or(
                [int(o) for o in decision.options]))
        kind = "ready" if decision.kind == "deal" else decision.kind
        return self.lines(f"options_{kind}")

    def describe_choice(self, decision: Decision, value: str) -> str:
        name = self.name_of(decision.decider)
        if decision.kind == "point":
            if int(value) == decision.decider:
                return self.lines("pointed_self", name=name)
            return self.lines("pointed", name=name, target=self.name_of(int(value)))
        return self.lines("squad_said", name=name, squad=value)

    def skip_action(self, decision: Decision) -> Action | None:
        return Action("skip_card", None) if decision.kind == "answer" else None

    def describe_action(self, action: Action) -> str:
        if action.kind == "point":  # the seat pointed at, by name
            action = Action(action.kind, action.player, self.name_of(int(action.choice)))
        return super().describe_action(action)

    def _pointable(self, decision: Decision) -> tuple[str, ...]:
        """The seats a pointing may name: its options, and the pointer's own seat even where
        the rules forbid it, so "myself" is refused with the rule, not "not understood"."""
        own = str(decision.decider)
        return decision.options + (() if own in decision.options else (own,))

    def refuse(self, illegal: IllegalAction, decision: Decision) -> str:
        if illegal.reason == "too_many_in_squad":
            claimed = self.names_of(illegal.facts["claimed"])
            return self.lines("too_many", cards=illegal.facts["cards"],
                              squad=illegal.facts["squad"], claimed=claimed)
        if illegal.reason == "bad_point":  # the only seat heard that is no option: their own
            return self.lines("point_not_yourself", players=self.game.players)
        return self.lines("options", options=self.options_spoken(decision))

    def _say_answered(self, facts: dict[str, Any]) -> list[str]:
        return [self.lines("answered", name=self.name_of(facts["player"]),
                           answer=facts["answer"])]

    def _say_card_drawn(self, facts: dict[str, Any]) -> list[str]:
        card = self.deck[facts["card"]]
        return [self.lines("card", index=facts["index"], yellow=card["yellow"], red=card["red"])]

    def _say_card_done(self, facts: dict[str, Any]) -> list[str]:
        return [self._tally_line(facts)]

    def _say_card_skipped(self, facts: dict[str, Any]) -> list[str]:
        return [self.lines("skipped")]

    def _say_point_now(self, facts: dict[str, Any]) -> list[str]:
        return [self.lines("countdown")]

    def _say_reveal_now(self, facts: dict[str, Any]) -> list[str]:
        if self.printed is not None:
            return [self.lines("printed_reveal", box=self.box(facts["round"]))]
        return [self.lines("reveal")]

    def _say_round_scored(self, facts: dict[str, Any]) -> list[str]:
        said = [self.lines("round_over", round=facts["round"])]
        if self.printed is not None:
            said.append(self._who_was_what(facts["squads"]))
        for seat, award in enumerate(facts["awards"]):
            name = self.name_of(seat)
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
        return said + [self.standings()]

    def _who_was_what(self, squads: list[str]) -> str:
        def members(squad: str) -> str:
            seats = [s for s, sq in enumerate(squads) if sq == squad]
            return self.names_of(seats) or self.lines("nobody")

        return self.lines("printed_squads", yellow=members("yellow"), red=members("red"))

    def _say_game_over(self, facts: dict[str, Any]) -> list[str]:
        said = [self.winners_line(facts)]
        next_box = self.box(self.settings.rounds + 1)
        if self.printed is not None and next_box + self.settings.rounds - 1 <= SQUAD_BOXES:
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
            return self.names_of(seats) or self.lines("nobody")

        return self.lines("tally", index=tally["index"], yup=names(tally["yup"]),
                          nope=names(tally["nope"]))

    # -- what the table can ask for -------------------------------------------------------

    def context(self, decision: Decision) -> dict[str, Any]:
        if self.waiting_for_deck():
            return {}
        return {"round": self.game.round, "card": len(self.game.cards)}

    def recap(self, decision: Decision) -> list[str]:
        slip = self._slip_recap(decision)
        if decision.kind != "answer":
            return slip
        card = self.game.cards[-1]
        recap = self.narrate([CardDrawn(self.game.round, len(self.game.cards), card.number)])
        return slip + recap + [self.lines("answered", name=self.name_of(seat), answer=answer)
                               for seat, answer in sorted(card.answers.items())]

    def _slip_recap(self, decision: Decision) -> list[str]:
        """Printed cards, past the deal: which box slip holds this round's squads (the deal's
        question names it; a resumed round has not heard it)."""
        if self.printed is None or decision.kind not in ("ready", "answer", "point", "squad"):
            return []
        return [self.lines("printed_recap", round=self.game.round, box=self.box(self.game.round))]

    def status(self) -> str:
        """Where the game stands: the round and card, then the scores."""
        if self.waiting_for_deck():
            return self.deck_prompt()
        where = [self.lines("recap_card", index=len(self.game.cards), round=self.game.round)
                 ] if self.game.cards else []
        return " ".join([*where, self.standings()])

    def tally(self) -> list[str]:
        if self.waiting_for_deck():
            return [self.lines("no_tally")]
        cards = self.game.cards
        done = [i for i, card in enumerate(cards) if len(card.answers) == self.game.players]
        if not done:
            return [self.lines("no_tally")]
        return [" ".join(self._tally_line(self.game.tally(i).facts) for i in done)]
