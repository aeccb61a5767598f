"""While the host waits for a printed deck's number, every command still gets an answer."""

from __future__ import annotations

import pytest

from voicehost.games.printed import ASK, DECK_DECISION
from voicehost.host.dialogue import Dialogue
from voicehost.host.exchange import Done
from voicehost.host.grammars import command_groups
from voicehost.host.table import Seats
from voicehost.registry import GAMES

# every command that answers and goes on (pause, quit and undo wait for more speech; repeat
# says again whatever was said last)
ANSWERED = ("help", "scores", "tally", "status", "resume", "skip")


@pytest.mark.parametrize("game", sorted(GAMES))
def test_commands_at_the_deck_number_are_answered(game: str) -> None:
    spec = GAMES[game]
    table = spec.table.from_options(Seats.default(spec.players[0]), 5, {}, cards=ASK)
    dialogue = Dialogue(table)
    decision = table.game.pending()
    assert decision.kind == DECK_DECISION
    assert set(ANSWERED) <= {intent.name for intent, _ in command_groups()}
    speech = dialogue.speech
    for command in ANSWERED:
        speech.queued = []
        assert dialogue.begin(dialogue.commands.handle(command, decision)) == [Done(None)]
        assert all(line.strip() for line in speech.queued), command
        assert speech.queued[-1] in table.lines.table["deck_ask"], (command, speech.queued)
