"""How alike two words sound: each word's phonemes as espeak-ng says them, then an edit distance
over the phonemes in which a swap costs as much as the two sounds differ (where in the mouth,
how, voiced or not): "tree" for "three" (t for θ) is nearer than "ben" for "ten" (b for t)."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Sequence
from functools import cache

ESPEAK = "espeak-ng"
VOICE = "en-us"  # the accent the recognizers' models were trained on
MARKS = "ˈˌ.‿-"  # stress, syllable and linking marks: not sounds
LONG = "ː"

# Consonants: (place, manner, voiced). Places run from the lips back to the throat.
LIPS, LIP_TEETH, TEETH, RIDGE, BEHIND_RIDGE, PALATE, VELUM, THROAT = range(8)
CONSONANTS: dict[str, tuple[int, str, bool]] = {
    "p": (LIPS, "stop", False), "b": (LIPS, "stop", True), "m": (LIPS, "nasal", True),
    "w": (LIPS, "glide", True), "f": (LIP_TEETH, "fricative", False),
    "v": (LIP_TEETH, "fricative", True), "θ": (TEETH, "fricative", False),
    "ð": (TEETH, "fricative", True), "t": (RIDGE, "stop", False), "d": (RIDGE, "stop", True),
    "ɾ": (RIDGE, "stop", True), "n": (RIDGE, "nasal", True), "s": (RIDGE, "fricative", False),
    "z": (RIDGE, "fricative", True), "l": (RIDGE, "liquid", True),
    "ɹ": (BEHIND_RIDGE, "liquid", True), "r": (RIDGE, "liquid", True),
    "ʃ": (BEHIND_RIDGE, "fricative", False), "ʒ": (BEHIND_RIDGE, "fricative", True),
    "tʃ": (BEHIND_RIDGE, "affricate", False), "dʒ": (BEHIND_RIDGE, "affricate", True),
    "j": (PALATE, "glide", True), "k": (VELUM, "stop", False), "ɡ": (VELUM, "stop", True),
    "g": (VELUM, "stop", True), "ŋ": (VELUM, "nasal", True), "x": (VELUM, "fricative", False),
    "h": (THROAT, "fricative", False), "ʔ": (THROAT, "stop", False),
}
# Vowels: (height from open 0 to close 3, backness from front 0 to back 2, rounded).
VOWELS: dict[str, tuple[float, float, bool]] = {
    "i": (3, 0, False), "ɪ": (2.5, 0.3, False), "ᵻ": (2.5, 1, False), "e": (2, 0, False),
    "ɛ": (1, 0, False), "æ": (0.5, 0, False), "a": (0, 0.5, False), "ɐ": (0.5, 1, False),
    "ə": (1.5, 1, False), "ɚ": (1.5, 1, False), "ɜ": (1, 1, False), "ʌ": (1, 1.5, False),
    "ɑ": (0, 2, False), "ɒ": (0, 2, True), "ɔ": (1, 2, True), "o": (2, 2, True),
    "ʊ": (2.5, 1.7, True), "u": (3, 2, True),
}
TWO_LETTERS = ("tʃ", "dʒ", "eɪ", "aɪ", "ɔɪ", "oʊ", "əʊ", "aʊ", "ɪə", "eə", "ʊə")
DIPHTHONG_GLIDE = 0.5  # a diphthong against one of its own vowels: half a swap
PLACE_STEP = 1 / 3  # a consonant one place further back or forward (t for θ)
NEAR_MANNER = 0.5  # a stop for a fricative or an affricate (t for θ, t for s)
OBSTRUENT = {"stop", "fricative", "affricate"}
VOICING = 0.75  # the same sound, voiced or not (d for t): at a word's start, heard well apart
ROUNDING = 0.25  # the same vowel, lips rounded or not


def phoneme_list(ipa: str) -> tuple[str, ...]:
    """espeak-ng's IPA as phonemes: stress and length marks dropped, two-letter sounds
    (affricates, diphthongs) kept whole."""
    text = "".join(c for c in ipa if c not in MARKS and c != LONG and not c.isspace())
    sounds: list[str] = []
    at = 0
    while at < len(text):
        pair = text[at:at + 2]
        size = 2 if pair in TWO_LETTERS else 1
        sounds.append(text[at:at + size])
        at += size
    return tuple(sounds)


def said_by_espeak(words: Sequence[str]) -> list[tuple[str, ...]] | None:
    """Each of `words` as phonemes, or None where espeak-ng is not installed."""
    if shutil.which(ESPEAK) is None:
        return None
    read = subprocess.run([ESPEAK, "-q", "--ipa", "-v", VOICE], input="\n".join(words),
                          capture_output=True, text=True, timeout=60, check=True)
    lines = read.stdout.splitlines()
    if len(lines) != len(words):  # espeak-ng split or joined a line: one word at a time
        return [phoneme_list(_said_alone(word)) for word in words]
    return [phoneme_list(line) for line in lines]


@cache
def _said_alone(word: str) -> str:
    return subprocess.run([ESPEAK, "-q", "--ipa", "-v", VOICE], input=word,
                          capture_output=True, text=True, timeout=30,
                          check=True).stdout.replace("\n", " ")


def vowel_parts(sound: str) -> tuple[str, ...] | None:
    """A vowel's parts (one, or two for a diphthong), or None for a consonant."""
    parts = tuple(sound)
    return parts if all(part in VOWELS for part in parts) else None


def swap_cost(a: str, b: str) -> float:
    """What saying `b` for `a` costs: 0 for the same sound, 1 for a sound as unlike as a
    sound dropped, 2 for a consonant for a vowel."""
    if a == b:
        return 0.0
    if a in CONSONANTS and b in CONSONANTS:
        (place_a, how_a, voiced_a), (place_b, how_b, voiced_b) = CONSONANTS[a], CONSONANTS[b]
        manner = 0.0 if how_a == how_b else NEAR_MANNER if {how_a, how_b} <= OBSTRUENT else 1.0
        return min(abs(place_a - place_b) * PLACE_STEP + manner + VOICING * (voiced_a != voiced_b),
                   1.0)
    vowels_a, vowels_b = vowel_parts(a), vowel_parts(b)
    if vowels_a and vowels_b:
        if len(vowels_a) != len(vowels_b):
            return DIPHTHONG_GLIDE if set(vowels_a) & set(vowels_b) else 1.0
        return min(sum(vowel_gap(x, y) for x, y in zip(vowels_a, vowels_b, strict=True)), 1.0)
    return 2.0


def vowel_gap(a: str, b: str) -> float:
    """How far apart two vowels are said: a step of height or backness is half a swap."""
    (high_a, back_a, round_a), (high_b, back_b, round_b) = VOWELS[a], VOWELS[b]
    return (abs(high_a - high_b) + abs(back_a - back_b)) / 2 + ROUNDING * (round_a != round_b)


def distance(a: Sequence[str], b: Sequence[str]) -> float:
    """The cheapest way to turn phonemes `a` into `b`: a sound added or dropped costs 1, a
    sound swapped `swap_cost`."""
    row = [float(j) for j in range(len(b) + 1)]
    for i, sound in enumerate(a, 1):
        previous, row[0] = row[0], float(i)
        for j, other in enumerate(b, 1):
            previous, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1,
                                           previous + swap_cost(sound, other))
    return row[-1]


SOUND_ALIKE = 1.0  # less apart than one sound dropped or swapped for an unlike one


def sound_alikes(names: Sequence[str], words: Sequence[str]) -> list[tuple[str, str]]:
    """(name, word) for each name that sounds like one of `words` (the nearest), by espeak-ng;
    [] where espeak-ng is not installed."""
    said = said_by_espeak([*names, *words])
    if said is None:
        return []
    heard = dict(zip(words, said[len(names):], strict=True))
    alike = []
    for name, sounds in zip(names, said, strict=False):
        gap, word = min((distance(sounds, heard[word]), word) for word in words)
        if gap < SOUND_ALIKE:
            alike.append((name, word))
    return alike
