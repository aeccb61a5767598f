"""A scripted Ferret Out table: answers each `listen` event the host emits from a seeded plan,
and knows, by the rulebook's scoring alone, the final scores and the journal it must leave."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from voicehost.games.ferret_out import end_reached, leaders, score_round
from voicehost.host.ferret_out import deck
from voicehost.host.table import Seats

NUMBER_WORDS = ["one", "two", "three", "four", "five", "six"]
# Clues that a recognizer's command grammar will not take for a command.
CLUES = ["sunny", "furry", "crunchy", "loud", "tiny", "orange", "wooden", "salty", "noisy",
         "sticky", "frozen", "sweet", "shiny", "heavy", "quick", "purple", "spicy", "green"]
RIGHT, WRONG, OTHER = "right", "wrong", "other"
# With the boxed sleeves the host does not know the words: a guess is any word, and the Ferrets
# say whether it was theirs. The script's words for the three kinds of guess:
BOXED_GUESSES = {RIGHT: "purple", WRONG: "frozen", OTHER: "sticky"}  # among CLUES
# What the whole table says at the moments no plan decides
ROUTINE = {"confirm": "yes", "roll_call": "i'm in", "study": "ready"}


@dataclass
class RoundPlan:
    number: str  # "1".."6" or "roll"
    clues: list[str]
    weasel: int
    accusations: list[int]
    guesses: dict[int, str]  # seat → RIGHT, WRONG or OTHER, for those who named themselves


class FerretScript:
    def __init__(self, players: int, seed: int, end: str = "rounds", rounds: int = 16) -> None:
        rng = random.Random(seed)
        self.players = players
        self.names = list(Seats.default(players).names)
        self.end = end
        self.pairs = deck()
        self.plans = [self._plan(rng) for _ in range(rounds)]
        self.rng = rng

    def _plan(self, rng: random.Random) -> RoundPlan:
        players = self.players
        weasel = rng.randrange(players)
        accusations = []
        for seat in range(players):
            roll = rng.random()
            others = [s for s in range(players) if s != seat]
            if seat == weasel:
                target = seat if roll < 0.4 else rng.choice(others)
            elif roll < 0.65:
                target = weasel
            elif roll < 0.75:
                target = seat
            else:
                target = rng.choice([s for s in range(players) if s not in (seat, weasel)])
            accusations.append(target)
        guesses = {seat: rng.choice((RIGHT, WRONG, OTHER))
                   for seat in range(players) if accusations[seat] == seat}
        number = rng.choice(["roll", "1", "2", "3", "4", "5", "6"])
        return RoundPlan(number, rng.sample(CLUES, players), weasel, accusations, guesses)

    # -- the table's answers ----------------------------------------------------------------

    def plan(self, listen: dict[str, Any]) -> RoundPlan:
        return self.plans[listen["round"] - 1]

    def words_at(self, listen: dict[str, Any]) -> tuple[str, str]:
        """(the Ferrets' word, the Weasel's word) at the round's number: the script's cards
        hold the `ferrets` row of the pouch pair for everyone but the Weasel."""
        words = set(listen["options"])
        pair = next(p for p in self.pairs if set(p.words()) <= words)
        return pair.at(listen["number"])

    def choice(self, listen: dict[str, Any]) -> str:
        """What the table means to say: a word, a seat name, "myself", "ready", ..."""
        decision, player = listen["decision"], listen["player"]
        if decision in ROUTINE:
            return ROUTINE[decision]
        plan = self.plan(listen)
        if decision == "number":
            return "roll" if plan.number == "roll" else NUMBER_WORDS[int(plan.number) - 1]
        if decision == "clue":
            return plan.clues[player]
        if decision == "accuse":
            target = plan.accusations[player]
            return "myself" if target == player else self.names[target]
        if decision == "guess":
            guess = plan.guesses[player]
            if not listen["options"]:
                return BOXED_GUESSES[guess]
            if guess == OTHER:
                return "something else"
            ferrets, weasel = self.words_at(listen)
            return ferrets if guess == RIGHT else weasel
        if decision == "weasel":
            return self.names[plan.weasel]
        if decision == "guess_right":
            return "yes" if plan.guesses[plan.weasel] == RIGHT else "no"
        raise AssertionError(f"unexpected decision {listen}")

    def reply(self, listen: dict[str, Any]) -> str:
        """A typed reply, phrased the way players talk."""
        said = self.choice(listen)
        if listen["decision"] == "accuse" and said != "myself":
            return self.rng.choice([said, f"i named {said}", f"i wrote {said}"])
        if listen["decision"] == "number" and said != "roll":
            return self.rng.choice([said, f"number {said}", f"i pick {said}"])
        return said

    # -- what the rules must give -----------------------------------------------------------

    def rounds_played(self) -> int:
        scores = [0] * self.players
        for index, plan in enumerate(self.plans, start=1):
            for seat, gained in enumerate(self._points(plan)):
                scores[seat] += gained
            end = "rounds" if self.end == "rounds" else int(self.end)
            if end_reached(index, scores, end) and len(leaders(scores)) == 1:
                return index
        raise AssertionError("the plan has too few rounds for this game to end")

    def _points(self, plan: RoundPlan) -> list[int]:
        words = {seat: {RIGHT: "R", WRONG: "W", OTHER: "other"}[g]
                 for seat, g in plan.guesses.items()}
        weasel_guessed = plan.accusations[plan.weasel] == plan.weasel
        return score_round(plan.accusations, plan.weasel, words, "R" if weasel_guessed else None)

    def round_points(self) -> list[list[int]]:
        return [self._points(plan) for plan in self.plans[: self.rounds_played()]]

    def expected_scores(self) -> list[int]:
        totals = [0] * self.players
        for points in self.round_points():
            totals = [t + p for t, p in zip(totals, points, strict=True)]
        return totals

    def expected_actions(self) -> int:
        """How many actions the journal must hold once the game is over."""
        count = 0
        for plan in self.plans[: self.rounds_played()]:
            weasel_guessed = plan.accusations[plan.weasel] == plan.weasel
            count += 1 + self.players + 1 + self.players + len(plan.guesses) + 1
            count += 1 if weasel_guessed else 0
        return count

    def expected_clues(self) -> dict[tuple[int, int], str]:
        return {(r, seat): clue for r, plan in enumerate(self.plans[: self.rounds_played()], 1)
                for seat, clue in enumerate(plan.clues)}
