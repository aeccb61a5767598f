"""Ferret Out's clue rule, "any word, except a word that appears on your card" (the rulebook), is
the table's to keep even where the host knows the cards: a refusal would give a card away."""

from __future__ import annotations

from pathlib import Path

from test_events import Typed

from voicehost.games.base import Action
from voicehost.games.deck import Deck, letters
from voicehost.games.layout import ferret_layout
from voicehost.host.events import EventStream
from voicehost.host.ferret_out import FerretOutTable, deck
from voicehost.host.host import Host
from voicehost.host.table import Seats
from voicehost.session import actions_of
from voicehost.store.journal import Journal, read_records


def test_a_clue_on_the_players_own_card_is_taken_without_a_word_about_the_card(
        tmp_path: Path) -> None:
    printed = Deck("ferret-out", 4, 17)
    table = FerretOutTable.from_options(Seats.default(4), 5, {"study_seconds": "0"},
                                        cards=printed.number)
    number = table.game.pending()
    table.game.apply(Action("number", number.decider, "3"))
    clue = table.game.pending()
    assert clue.kind == "clue"
    card = letters(4).index(table.card_letters()[clue.decider])
    row = ferret_layout(printed, deck()).rows[0]
    mine = row.words_on(card)[0]
    path = tmp_path / "game.jsonl"
    journal = Journal(path)
    journal.append(table.setup_record())
    voice = Typed(mine.upper())
    host = Host(table, voice, journal, EventStream(None))
    host.drive(host.dialogue.take(clue))
    journal.close()
    assert [a.choice for a in actions_of(read_records(path)) if a.kind == "clue"] == [mine]
    assert not any(mine.casefold() in line.casefold() and "card" in line for line in voice.said)


def test_a_clue_of_ten_thousand_letters_is_refused_not_read_aloud(tmp_path: Path) -> None:
    table = FerretOutTable.from_options(Seats.default(3), 5, {"study_seconds": "0"})
    number = table.game.pending()
    table.game.apply(Action("number", number.decider, "3"))
    clue = table.game.pending()
    path = tmp_path / "game.jsonl"
    journal = Journal(path)
    journal.append(table.setup_record())
    voice = Typed("x" * 10_000, "lantern")
    host = Host(table, voice, journal, EventStream(None))
    host.drive(host.dialogue.take(clue))
    journal.close()
    assert all("x" * 31 not in line for line in voice.said)  # was read out, all of it
    assert any("longer than any clue" in line for line in voice.said)
    assert [a.choice for a in actions_of(read_records(path)) if a.kind == "clue"] == ["lantern"]


def test_the_weasels_guess_is_asked_about_in_words_or_played_back() -> None:
    from voicehost.host.clips import Playback

    for guess, played in (("lantern", False), ("lantern?@clips/1-seat0.wav", True),
                          ("@clips/1-seat0.wav", True)):
        table = FerretOutTable.from_options(Seats.default(3), 5, {"study_seconds": "0"})
        game = table.game
        game.apply(Action("number", game.cfo, "3"))
        for seat in game.speaking_order():
            game.apply(Action("clue", seat, "hint"))
        game.apply(Action("study", None, "ready"))
        for seat in game.speaking_order():
            game.apply(Action("accuse", seat, "1"))  # all name seat 1, who guesses
        game.apply(Action("guess", 1, guess))
        game.apply(Action("weasel", None, "1"))
        decision = game.pending()
        assert decision.kind == "guess_right"
        asked = table.questions.prompt(decision)
        assert isinstance(asked, Playback) is played
        assert ("lantern" in asked) is not played  # an unsure word is played, not read
        if played:
            assert asked.clip == "clips/1-seat0.wav"
