"""While the host waits for a printed deck's number, every command still gets an answer."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from voicehost.games.printed import ASK, DECK_DECISION
from voicehost.host.events import EventStream
from voicehost.host.host import Host, command_groups
from voicehost.host.table import Seats
from voicehost.registry import GAMES
from voicehost.store.journal import Journal

# every command that answers and goes on (pause, quit and undo wait for more speech; repeat
# says again whatever was said last)
ANSWERED = ("help", "scores", "tally", "status", "resume", "skip")


@pytest.mark.parametrize("game", sorted(GAMES))
def test_commands_at_the_deck_number_are_answered(game: str, tmp_path: Path) -> None:
    spec = GAMES[game]
    table = spec.table.from_options(Seats.default(spec.players[0]), 5, {}, cards=ASK)
    host = Host(table, voice=None, journal=Journal(tmp_path / "game.jsonl"),  # type: ignore[arg-type]
                events=EventStream(io.StringIO()))
    decision = table.game.pending()
    assert decision.kind == DECK_DECISION
    assert set(ANSWERED) <= {intent.name for intent, _ in command_groups()}
    for command in ANSWERED:
        host.queued = []
        assert host.command(command, decision) is None
        assert all(line.strip() for line in host.queued), command
        assert host.queued[-1] in table.lines.table["deck_ask"], (command, host.queued)
