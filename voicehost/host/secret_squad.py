"""Secret Squad at the table: the rules engine plus the words for its decisions and events."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from voicehost.games.base import Action, Decision, Event, IllegalAction
from voicehost.games.secret_squad import ANSWERS, SQUADS, SecretSquad, Settings, squad_cards
from voicehost.host.lines import Lines, spoken_list
from voicehost.host.table import Seats, settings_from
from voicehost.intents.grammar import Intent
from voicehost.prompts_dir import load_yaml


def question_deck() -> list[dict[str, str]]:
    return load_yaml("secret_squad/questions.yaml")["cards"]


class SecretSquadTable:
    name = "secret_squad"
    title = "Secret Squad"

    def __init__(self, seats: Seats, seed: int, settings: Settings | None = None) -> None:
        self.seats = seats
        self.seed = seed
        self.settings = settings or Settings()
        self.deck = question_deck()
        self.lines = Lines("common/lines.yaml", "secret_squad/lines.yaml", seed=seed)
        self.game = self._new_game()

    @classmethod
    def from_options(cls, seats: Seats, seed: int, settings: dict[str, Any]) -> SecretSquadTable:
        return cls(seats, seed, settings_from(Settings, settings))

    @classmethod
    def from_setup(cls, record: dict[str, Any]) -> SecretSquadTable:
        return cls(Seats(tuple(record["names"])), record["seed"],
                   Settings(**record.get("settings", {})))

    def setup_record(self) -> dict[str, Any]:
        return {"type": "setup", "game": self.name, "names": list(self.seats.names),
                "seed": self.seed, "settings": vars(self.settings)}

    def _new_game(self) -> SecretSquad:
        return SecretSquad(len(self.seats.names), self.seed, len(self.deck), self.settings)

    def example_decision(self, kind: str, seat: int = 0) -> Decision:
        """The decision of `kind` as the host would ask it of `seat` (for `voicehost hear`)."""
        options = {"deal": ("ready",), "ready": ("ready",), "answer": ANSWERS,
                   "point": self.game.point_options(seat), "squad": SQUADS}
        if kind not in options:
            raise ValueError(f"Secret Squad has no decision {kind!r}; try: {', '.join(options)}")
        return Decision(kind, None if kind in ("deal", "ready") else seat, options[kind])

    def replay(self, actions: Sequence[Action]) -> None:
        self.game = self._new_game()
        for action in actions:
            self.game.apply(action)

    # -- words ----------------------------------------------------------------------------

    def name_of(self, seat: int) -> str:
        return self.seats.names[seat].title()

    def opening(self) -> list[str]:
        names = [self.name_of(seat) for seat in range(self.game.players)]
        return [self.lines("intro", names=spoken_list(names), rounds=self.settings.rounds,
                           cards=self.settings.cards_per_round)]

    def prompt(self, decision: Decision) -> str:
        line = self.lines
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

    def choices(self, decision: Decision) -> list[tuple[Intent, list[str]]]:
        if decision.kind in ("deal", "ready"):
            return [(Intent("choose", "ready"), t)
                    for t in load_yaml("common/intents.yaml")["ready"].values()]
        if decision.kind == "point":
            return self._point_choices(decision)
        templates = load_yaml("secret_squad/intents.yaml")[decision.kind]
        return [(Intent("choose", option), templates[option]) for option in decision.options]

    def _point_choices(self, decision: Decision) -> list[tuple[Intent, list[str]]]:
        common = load_yaml("common/intents.yaml")
        groups = []
        for option in decision.options:
            seat = int(option)
            targets = self.seats.templates(seat)
            if seat == decision.decider:
                targets = targets + common["self"]
            groups.append((Intent("choose", option),
                           [p.format(target=t) for p in common["pointed_at"] for t in targets]))
        return groups

    def options_spoken(self, decision: Decision) -> str:
        if decision.kind == "point":
            names = [self.name_of(int(o)) for o in decision.options]
            return self.lines("options_point", names=spoken_list(names))
        kind = "ready" if decision.kind == "deal" else decision.kind
        return self.lines(f"options_{kind}")

    def action_for(self, decision: Decision, value: str) -> Action:
        return Action(decision.kind, decision.decider, value)

    def describe_choice(self, decision: Decision, value: str) -> str:
        name = self.name_of(decision.decider)
        if decision.kind == "point":
            if int(value) == decision.decider:
                return self.lines("pointed_self", name=name)
            return self.lines("pointed", name=name, target=self.name_of(int(value)))
        return self.lines("squad_said", name=name, squad=value)

    def skip_action(self, decision: Decision) -> Action | None:
        return Action("skip_card", None) if decision.kind == "answer" else None

    def refusal(self, illegal: IllegalAction, decision: Decision) -> str:
        if illegal.reason == "too_many_in_squad":
            claimed = spoken_list([self.name_of(s) for s in illegal.facts["claimed"]])
            return self.lines("too_many", cards=illegal.facts["cards"],
                              squad=illegal.facts["squad"], claimed=claimed)
        return self.lines("options", options=self.options_spoken(decision))

    def narrate(self, events: Sequence[Event]) -> list[str]:
        said: list[str] = []
        for event in events:
            said += getattr(self, f"_say_{event.kind}", lambda facts: [])(event.facts)
        return said

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
        return [self.lines("reveal")]

    def _say_round_scored(self, facts: dict[str, Any]) -> list[str]:
        said = [self.lines("round_over", round=facts["round"])]
        for seat, award in enumerate(facts["awards"]):
            name = self.name_of(seat)
            if award["pick"] == 4:
                line = self.lines("alone", name=name, squad=facts["squads"][seat])
            elif award["pick"]:
                line = self.lines("found", name=name)
            else:
                line = self.lines("missed", name=name)
            said.append(line + (self.lines("bonus") if award["bonus"] else "") + ".")
        return said + [self.standings()]

    def _say_game_over(self, facts: dict[str, Any]) -> list[str]:
        winners = facts["winners"]
        key = "winner" if len(winners) == 1 else "winners"
        return [self.lines(key, winners=spoken_list([self.name_of(s) for s in winners]),
                           points=facts["scores"][winners[0]])]

    def _tally_line(self, tally: dict[str, Any]) -> str:
        def names(seats: list[int]) -> str:
            return spoken_list([self.name_of(s) for s in seats]) or self.lines("nobody")

        return self.lines("tally", index=tally["index"], yup=names(tally["yup"]),
                          nope=names(tally["nope"]))

    # -- what the table can ask for -------------------------------------------------------

    def context(self, decision: Decision) -> dict[str, Any]:
        return {"round": self.game.round, "card": len(self.game.cards)}

    def recap(self, decision: Decision) -> list[str]:
        if decision.kind != "answer":
            return []
        card = self.game.cards[-1]
        recap = self.narrate([Event("card_drawn", {"round": self.game.round,
                                                   "index": len(self.game.cards),
                                                   "card": card.number})])
        return recap + [self.lines("answered", name=self.name_of(seat), answer=answer)
                        for seat, answer in sorted(card.answers.items())]

    def help(self) -> str:
        return self.lines("help")

    def standings(self) -> str:
        order = sorted(range(self.game.players), key=lambda s: -self.game.scores[s])
        items = [self.lines("score_item", name=self.name_of(s), points=self.game.scores[s])
                 for s in order]
        return self.lines("standings", scores=", ".join(items))

    def tally(self) -> str:
        cards = self.game.cards
        done = [i for i, card in enumerate(cards) if len(card.answers) == self.game.players]
        if not done:
            return self.lines("no_tally")
        return " ".join(self._tally_line(self.game.tally(i)) for i in done)
