"""A scripted Secret Squad table: answers each `listen` event the host emits, from a seeded
plan, and knows the final scores the rules must give; and what a journal kept of a game."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from voicehost.games.secret_squad import award_round, deal_squads
from voicehost.host.secret_squad import SecretSquadTable
from voicehost.prompts_dir import load_yaml
from voicehost.session import actions_of
from voicehost.store.journal import read_records

TOKENS = load_yaml("common/tokens.yaml")["tokens"]
YES = ["yup", "yes", "yeah", "yep"]
NO = ["nope", "no", "nah"]
Answered = tuple[int, int, int]  # (round, card, player)


class SecretSquadScript:
    def __init__(self, players: int, seed: int, rounds: int = 3) -> None:
        rng = random.Random(seed)
        self.names = TOKENS[:players]
        self.squads = [deal_squads(players, rng)[0] for _ in range(rounds)]
        self.answers = {(r, c, p): rng.choice(("yup", "nope"))
                        for r in range(1, rounds + 1) for c in range(1, 4)
                        for p in range(players)}
        self.points = [[self._pick(rng, seat, players) for seat in range(players)]
                       for _ in range(rounds)]
        self.rng = rng

    @staticmethod
    def _pick(rng: random.Random, seat: int, players: int) -> int:
        others = [s for s in range(players) if s != seat or players == 3]
        return rng.choice(others)

    def reply(self, listen: dict[str, Any]) -> str:
        """What the table says to the host's question."""
        decision, player = listen["decision"], listen["player"]
        if decision in ("deal", "ready"):
            return "ready"
        if decision == "confirm":
            return "yes"
        if decision == "roll_call":
            return "i'm in"
        round_ = listen["round"]
        if decision == "answer":
            said = self.answers[(round_, listen["card"], player)]
            return self.rng.choice(YES if said == "yup" else NO)
        if decision == "point":
            target = self.points[round_ - 1][player]
            return "myself" if target == player else self.names[target]
        if decision == "squad":
            return self.squads[round_ - 1][player]
        raise AssertionError(f"unexpected decision {listen}")

    def expected_scores(self) -> list[int]:
        totals = [0] * len(self.names)
        for squads, points in zip(self.squads, self.points, strict=True):
            for seat, award in enumerate(award_round(points, squads)):
                totals[seat] += award["pick"] + award["bonus"]
        return totals


def answers_in_journal(journal: Path) -> dict[Answered, tuple[str, int]]:
    """(round, card, player) → (the answer the journal kept after undos, its question card)."""
    records = read_records(journal)
    table = SecretSquadTable.from_setup(records[0])
    kept: dict[Answered, tuple[str, int]] = {}
    for action in actions_of(records):
        if action.kind == "answer":
            game = table.game
            kept[(game.round, len(game.cards), action.player)] = (action.choice,
                                                                  game.cards[-1].number)
        table.game.apply(action)
    return kept


def answers_only(kept: dict[Answered, tuple[str, int]]) -> dict[Answered, str]:
    """The answers without their question cards, as `SecretSquadScript.answers` holds them."""
    return {key: answer for key, (answer, _) in kept.items()}
