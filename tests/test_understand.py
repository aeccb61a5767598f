"""What a free transcript says beside the best phrase (voicehost/intents/understand.py): the rules
Whisper's free transcript is read by, checked without a model."""

from __future__ import annotations

from voicehost.intents.understand import reading_of
from voicehost.words import plain_words


def test_the_free_transcript_refuses_the_best_phrase_only_when_it_says_otherwise() -> None:
    reading = reading_of(["yes", "yeah", "no", "add to module three", "module three",
                          "add to module five", "discard"])
    best = "add to module three"
    assert reading.with_free(best, best, "and to module 3.") == best  # a word lost
    assert reading.with_free(best, best, "Module 3.") == best
    assert reading.with_free(best, best, "Add to module 5.") == ""  # another move
    # another whole phrase goes to the matcher beside the best one: one meaning or none
    assert reading.with_free("yes", "yes", "No.") == "yes no"
    assert reading.with_free("yes", "yes", "Yeah.") == "yes yeah"
    assert reading.with_free("yes", "yes", "Yes, no.") == "yes no"  # the matcher refuses both
    # words no phrase has, or only some of a phrase's: the decoder's phrase scores decide
    assert reading.with_free("discard", "discard", "This card.") == "discard"
    assert reading.with_free("yes", "yes", "Yes, he is a bit.") == "yes"
    assert reading.with_free("yes", "", "Yes, he is a bit.") == ""
    assert reading.with_free("no", "", "No.") == "no"  # under the floor, the words agree
    # more answers than the best phrase's, beside words no phrase has: "at" for "add"
    assert reading.with_free(best, best, "At a module 3 and 5.") == ""
    assert reading.with_free(best, best, "At a module 3.") == best
    reading = reading_of(["block wombat", "block rabbit", "add to module one"])
    assert reading.with_free("block wombat", "block wombat", "I block one bat.") == (
        "block wombat")  # "one" is part of a word misheard, not a number said
    assert reading.with_free("block wombat", "block wombat", "Lock wombat, one.") == ""
    assert reading.with_free("block wombat", "block wombat", "") == "block wombat"
    # "that" is written for a sound ("not four" as "that four"): after "one", "wombat"'s end
    assert reading.with_free("block wombat", "block wombat", "Block one that.") == (
        "block wombat")
    assert reading.with_free("block wombat", "block wombat", "Block one, please.") == ""
    reading = reading_of(["pick for us", "two", "four"])
    # a number said like the phrase's own word names nothing; the phrase's other words do
    assert reading.with_free("pick for us", "pick for us", "Big 4 Us") == "pick for us"
    assert reading.with_free("pick for us", "pick for us", "Pick 4, 2.") == ""
    assert reading.with_free("two", "two", "4.") == ""
    reading = reading_of(["add to module three", "add to module two"])
    best = "add to module three"
    assert reading.with_free(best, best, "Add to module 2 and 3.") == ""  # "to" is written
    reading = reading_of(["one", "two", "three"])
    # a sign or a decimal point makes it no choice's number
    assert reading.with_free("one", "one", "Minus 1.") == ""
    assert reading.with_free("one", "one", "-1") == ""
    assert reading.with_free("one", "one", "1.5") == ""
    assert reading.with_free("one", "one", "One, please.") == "one please"
    # the transcript agrees with a phrase under the floor only through a word said for it
    assert reading.with_free("one", "", "A.") == ""
    assert reading.with_free("one", "one", "A.") == "a"
    assert reading.with_free("one", "", "I think it's one.") == "i think it's one"


def test_a_transcript_of_phrase_words_around_the_best_phrase_counts_for_it() -> None:
    reading = reading_of(["yes", "i do", "no", "add to module three"])

    def around(transcript: str, phrase: str) -> bool:
        return reading.around(reading.read(plain_words(transcript).split()), phrase)

    assert around("Yes, I do.", "yes")
    assert around("Um, yes please.", "yes")  # fillers are no words
    assert around("Add to module 3.", "add to module three")
    assert not around("Yes, I don't know.", "yes")  # words no phrase has
    assert not around("No, I do.", "yes")
    assert not around("To module 3.", "add to module three")  # only a part of it


def test_a_transcript_said_over_and_over_is_read_as_the_best_phrase() -> None:
    reading = reading_of(["yes", "no", "add to module two", "add to module three"])
    best = "add to module two"
    assert reading.with_free(best, best, "add to module two add", looped=True) == best
    assert reading.with_free(best, best, "add to module two add") == (
        "add to module two add")  # said twice: the matcher reads it whole
    # a loop over other words than the best phrase's is read as before: the matcher refuses it
    assert reading.with_free("yes", "yes", "yes no", looped=True) == "yes no"
    reading = reading_of(["two mechanics and one energy", "one mechanics and two energy",
                          "mechanics mechanics energy"])
    best = "two mechanics and one energy"
    # the transcript says a card count more often than the best phrase does
    assert reading.with_free(best, best, "2 mechanics and 2 energy", looped=True) == ""
    assert reading.with_free(best, best, "2 mechanics and 2 energy.") == ""
    assert reading.with_free(best, best, "2 mechanics and 1 energy", looped=True) == best


def test_the_phrases_a_transcript_holds_come_longest_first() -> None:
    reading = reading_of(["yes", "no", "discard a block", "block"])
    assert reading.held("i'd see yes".split()) == ["yes"]
    # "throw away" is said for "discard": the whole phrase, then its part
    assert reading.held("throw away a block please".split()) == ["discard a block", "block"]
    assert reading.wraps("i think it's".split()) and not reading.wraps("block".split())
    assert not reading.wraps([])


def test_a_free_transcript_snaps_to_a_phrase_or_to_nothing() -> None:
    reading = reading_of(["player three", "player five", "skip"])
    assert reading.snap("Player 3.") == ("player three", 1.0)
    assert reading.snap("I think it's player five") == ("player five", 1.0)
    assert reading.snap("the weather is nice") == ("", 0.0)
    assert reading_of([]).snap("player three") == ("", 0.0)
