"""How the host talks over whole seeded games at a tidy table (voicehost/lab/talk.py): lines
for the ear, one read-back a gathering, variety. docs/voice.md has the numbers."""

from __future__ import annotations

from pathlib import Path

import pytest

from voicehost.host.table import Seats
from voicehost.lab.talk import Talk, repeated, talk_of
from voicehost.lab.tidy_table import tidy_game

TABLES = [("ferret-out", 4), ("ferret-out", 5), ("ferret-out", 7), ("secret-squad", 3),
          ("secret-squad", 6), ("secret-squad", 10), ("secret-operation", 4),
          ("secret-operation", 5), ("secret-operation", 8)]
SEEDS = (1, 2, 3)


def names(players: int) -> frozenset[str]:
    return frozenset(name.lower() for name in Seats.default(players).names)


@pytest.fixture(scope="module")
def games(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, int, int], Talk]:
    folder = tmp_path_factory.mktemp("talk")
    played = {}
    for game, players in TABLES:
        for seed in SEEDS:
            table = tidy_game(game, players, seed, folder)
            played[game, players, seed] = talk_of(table, names(players))
            assert '"event": "game_over"' in table.events.getvalue(), (game, players, seed)
    return played


def test_every_sentence_fits_a_breath_and_every_stretch_a_minute_of_attention(
        games: dict[tuple[str, int, int], Talk]) -> None:
    for key, talk in games.items():
        assert max(talk.breaths) <= 25, key
        assert max(talk.stretches) <= 60, key


def test_no_sentence_of_four_words_or_more_is_said_more_than_six_times(
        games: dict[tuple[str, int, int], Talk]) -> None:
    for key, talk in games.items():
        assert talk.most_repeated[1] <= 6, (key, talk.most_repeated)


def test_ferret_out_asks_for_a_yes_at_most_three_times_a_round(
        games: dict[tuple[str, int, int], Talk]) -> None:
    for (game, players, seed), talk in games.items():
        if game == "ferret-out":
            assert talk.confirms_per_round and max(talk.confirms_per_round) <= 3, (players, seed)


def test_a_ferret_out_game_of_five_is_at_most_eight_minutes_of_talk(
        games: dict[tuple[str, int, int], Talk]) -> None:
    for seed in SEEDS:
        assert games["ferret-out", 5, seed].minutes <= 8.0, seed


def test_repeats_are_counted_with_names_and_numbers_aside() -> None:
    said = ["Robin, your turn: add, discard or block?", "Husky, your turn: add, discard or "
            "block?", "Module two: 3 of 4.", "Module one: one of three.", "Yes."]
    counted = repeated(said, frozenset({"robin", "husky"}))
    assert counted == {"your turn add discard or block": 2}
    assert repeated(["Module two: 3 of 4."], frozenset(), fewest=2) == {"module of": 1}


def test_the_talk_is_measured_from_what_was_said(tmp_path: Path) -> None:
    table = tidy_game("ferret-out", 4, 9, tmp_path)
    talk = talk_of(table, names(4))
    said = " ".join(s for s in table.said if not s.startswith("["))
    assert talk.words == len(said.split()) or abs(talk.words - len(said.split())) < 40
    assert len(talk.confirms_per_round) >= 8  # one count a round scored
    assert sum(talk.stretches) == talk.words
