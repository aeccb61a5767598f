"""The offered phrases as people say them, for the engines that hear more than the phrases.

An engine that scores the offered phrases against the audio (Whisper) also writes down what it
heard freely, and a Wyoming service writes down only that. What such a transcript says beside
the best phrase is decided here, with the matcher's own reading (`Talk`: words said for the
phrases' own, skip words dropped), so that the ears never hold a rule about seats, numbers or
cards: the engine is handed a `PhraseReading` for the phrases it offers (`reading_of`), and asks
it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

from voicehost.intents.grammar import Grammar, Intent, Talk
from voicehost.words import holds, normalize, plain_words, within


@dataclass(frozen=True)
class PhraseReading:
    """One decision's phrases, read the way the matcher reads answers."""

    phrases: tuple[str, ...]
    talk: Talk

    @cached_property
    def words(self) -> frozenset[str]:
        """Every word of every phrase."""
        return frozenset(word for phrase in self.phrases for word in normalize(phrase).split())

    @cached_property
    def readings(self) -> dict[tuple[str, ...], str]:
        """Every phrase as the matcher reads it → the phrase."""
        return {self.read(normalize(phrase).split()): phrase for phrase in self.phrases}

    def read(self, words: Sequence[str]) -> tuple[str, ...]:
        """`words` as the matcher reads them among these phrases."""
        return self.talk.read(words, self.words)

    def wraps(self, words: Sequence[str]) -> bool:
        """Whether `words` are only words people wrap answers in ("I think it's", "please")."""
        return bool(words) and not self.read(words)

    def ways(self, phrase: str) -> list[tuple[str, ...]]:
        """`phrase` and each way people say it with words said for its own that the matcher
        takes back as it ("throw away a block" for "discard a block")."""
        return [way for way in self.talk.ways(normalize(phrase).split(), self.words)
                if self.read(way)]

    def fillers(self) -> list[tuple[str, ...]]:
        """The skip phrases an answer may be heard wrapped in."""
        return self.talk.fillers()

    def held(self, words: Sequence[str]) -> list[str]:
        """The phrases whose reading `words` (plain words) hold as they are, longest first:
        the one they read as whole, then parts of it ("i'd see yes" holds "yes")."""
        reading = self.read(words)
        return [self.readings[r] for r in sorted(
            (r for r in self.readings if holds(reading, r)), key=len, reverse=True)]

    def around(self, reading: Sequence[str], phrase: str) -> bool:
        """Whether `reading` (a transcript as the matcher reads it) is `phrase` among nothing
        but the phrases' words: "yes i do" around "yes"."""
        own = self.read(normalize(phrase).split())
        return self.words.issuperset(reading) and holds(reading, own)

    def with_free(self, best: str, heard: str, free_text: str, looped: bool = False) -> str:
        """What the matcher is given, the free transcript read as the matcher reads answers
        (skip words dropped) beside the best phrase:
        - the transcript itself when it is nothing but the phrases' words around the best
          phrase's ("I think it's owl", "yes but no": the matcher reads it whole), unless the
          best phrase is under the floor and the transcript has none of its words, only words
          said for them ("A." for "eight" is no "one");
        - nothing when the transcript says a number with a sign or a decimal point ("minus
          one", "1.5"): no choice's number;
        - nothing when the transcript names a seat, a number or a card the best phrase does
          not, as a whole word ("at a module two and three"; not "one" of "one bat" for
          "wombat");
        - `heard` and the transcript together when the transcript is another whole phrase
          ("yeah" against "yup", "no" against "yes"): the matcher takes them only as one
          meaning;
        - else `heard`: the decoder, scoring the phrases against the audio, hears them better
          than its free transcript writes them ("this card" for "discard", "let's say do" for
          "let's say two", "yes, he is a bit" for "yes"). The same when the transcript
          `looped` over nothing but the best phrase's words, in whatever order (where it was
          cut says nothing of where the player began), unless it names a seat, a number or
          a card more often than the phrase ("2 mechanics and 2 energy" is not "two
          mechanics and one energy").
        `heard` is the best phrase when it was heard surely enough, else ""."""
        free = plain_words(free_text).split()
        reading = self.read(free)
        own = self.read(normalize(best).split())
        if self.talk.unwhole(free):
            return ""
        names_another = self.names_another(free, own)
        if looped and reading and set(own).issuperset(reading) and not names_another:
            return heard
        if reading and self.words.issuperset(reading) and holds(reading, own):
            return " ".join(free) if heard or set(own) & set(free) else ""
        if names_another:
            return ""
        if heard and reading in self.readings and not within(reading, own):
            return f"{heard} {' '.join(free)}"
        return heard

    def names_another(self, free: Sequence[str], own: Sequence[str]) -> bool:
        """Whether `free` (plain words) names a seat, number or card of the phrases that is
        not in `own`, or more often than `own` does ("two mechanics and two energy" against
        "two mechanics and one energy"), followed by nothing, a phrase's word or a skip
        word other than one written for a sound ("one that" may be "wombat"). A number the
        phrase has a word said like, and the transcript does not write that word, names nothing
        ("Big 4 Us" for "pick for us"; not "two" of "add to module 2 and 3")."""
        talk = self.talk
        left = Counter(own)
        unsaid = left - Counter(free)  # the phrase's words the transcript writes otherwise
        for at, word in enumerate(free):
            if word not in talk.named or word not in self.words:
                continue
            alike = [w for w in talk.like_numbers.get(word, ()) if unsaid[w] > 0]
            if alike and word not in own:
                unsaid[alike[0]] -= 1
                continue
            after = free[at + 1] if at + 1 < len(free) else None
            if after not in talk.like_no and (
                    after is None or after in self.words or not self.read([after])):
                left[word] -= 1
                if left[word] < 0:
                    return True
        return False

    @cached_property
    def _snap(self) -> Grammar:
        return Grammar({phrase: Intent("choose", phrase) for phrase in self.phrases})

    def snap(self, transcript: str) -> tuple[str, float]:
        """The phrase a free transcript is (or is with a slip in it), and how sure the match
        is; "" and 0 when it is none: a service that hears freely never makes the host guess."""
        intent, sure = self._snap.match(plain_words(transcript))
        return (intent.value, sure) if intent is not None else ("", 0.0)


def reading_of(phrases: Sequence[str]) -> PhraseReading:
    """The reading of one decision's phrases: what the host hands the engines as their
    `Reader`."""
    return PhraseReading(tuple(phrases), Talk.load())
