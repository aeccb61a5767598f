"""The phrases as Whisper writes them."""

from __future__ import annotations

from voicehost.words import NUMBER_WORDS, normalize


def spoken_forms(phrase: str) -> list[str]:
    """How Whisper would write `phrase`: sentence case, "I", and numbers also as digits."""
    words = ["I" if w == "i" else w for w in normalize(phrase).split()]
    forms = [words]
    if any(w in NUMBER_WORDS for w in words):
        forms.append([NUMBER_WORDS.get(w, w) for w in words])
    return [" " + (" ".join(f)[:1].upper() + " ".join(f)[1:]) for f in forms]
