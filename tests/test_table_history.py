"""A table that has played before: a game in the games folder knows the household's earlier
games of its title (their saves), opens shorter and deals last the question cards it heard in
the last three."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from voicehost.cli import main
from voicehost.host.secret_squad import question_deck
from voicehost.host.table import Past, Seats
from voicehost.lab.tidy_table import tidy_game
from voicehost.registry import GAMES
from voicehost.session import RECENT_GAMES, open_saved, past_of, saves_dir
from voicehost.store.journal import read_records


@pytest.fixture
def data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    saves_dir().mkdir(parents=True)
    return tmp_path


def played_in_the_games_folder(game: str, players: int, seed: int) -> set[int]:
    """A whole tidy game of `game` saved in the games folder, told of the saves before it;
    the question cards it read out."""
    table = GAMES[game].table.from_options(Seats.default(players), seed, {})
    table.knowing(past_of(game))
    tidy_game(game, players, seed, saves_dir(), table=table)
    saved = max(saves_dir().glob(f"{game}-*.jsonl"), key=lambda path: path.stat().st_mtime_ns)
    opened = open_saved(saved)
    return set(opened.table.cards_heard(opened.actions))


@pytest.mark.parametrize("game", list(GAMES))
def test_a_second_game_of_a_title_opens_shorter(data: Path, game: str) -> None:
    first = GAMES[game].table.from_options(Seats.default(5), 1, {})
    assert past_of(game) == Past()
    played_in_the_games_folder(game, 5, 1)
    past = past_of(game)
    assert past.played
    second = GAMES[game].table.from_options(Seats.default(5), 2, {}).knowing(past)
    said_first = " ".join(first.questions.opening())
    said_second = " ".join(second.questions.opening())
    assert len(said_second.split()) < len(said_first.split()), (said_first, said_second)
    assert second.lines.table["intro_again"]  # the short opening is the title's own
    other = next(name for name in GAMES if name != game)
    assert not past_of(other).played  # another title's saves tell it nothing


def test_no_question_card_of_the_last_three_games_comes_back_while_the_deck_has_others(
        data: Path) -> None:
    deck = len(question_deck())
    heard: list[set[int]] = []
    for seed in range(1, 6):
        recent = set().union(*heard[-RECENT_GAMES:])
        cards = played_in_the_games_folder("secret-squad", 6, seed)
        assert cards and len(recent) + len(cards) <= deck  # the deck still had others
        assert not cards & recent, (seed, cards & recent)
        heard.append(cards)
    assert set().union(*heard[-RECENT_GAMES:]) == set(past_of("secret-squad").recent_cards)


def test_the_past_is_in_the_setup_record_and_a_resumed_game_keeps_its_deck(data: Path) -> None:
    first = played_in_the_games_folder("secret-squad", 4, 7)
    table = GAMES["secret-squad"].table.from_options(Seats.default(4), 8, {})
    table.knowing(past_of("secret-squad"))
    record = table.setup_record()
    assert record["past"] == {"played": True, "recent_cards": sorted(
        record["past"]["recent_cards"], key=list(past_of("secret-squad").recent_cards).index)}
    again = type(table).from_setup(json.loads(json.dumps(record)))
    assert again.past == table.past and again.game.deck == table.game.deck
    assert set(table.game.deck[-len(first):]) == first  # heard lately: dealt last


def test_voicehost_play_in_the_games_folder_opens_shorter_the_second_time(
        data: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    said = []
    for seed in ("1", "2"):
        monkeypatch.setattr(sys, "stdin", io.StringIO("i'm in\n" * 4 + "ready\nyup\n"))
        assert main(["play", "secret-squad", "--players", "4", "--seed", seed,
                     "--io", "text"]) == 0
        said.append(capsys.readouterr().out.splitlines()[0])
    assert "Tonight's players" in said[0] or "Playing tonight" in said[0]
    intro_again = GAMES["secret-squad"].table.from_options(Seats.default(4), 1, {}).lines.table[
        "intro_again"]
    assert any(said[1].startswith(wording.split("!")[0]) for wording in intro_again), said[1]
    setups = [read_records(save)[0] for save in saves_dir().glob("*.jsonl")]
    assert sorted(setup.get("past", {}).get("played", False) for setup in setups) == [
        False, True]  # the first knew of no game before it, the second of the first
