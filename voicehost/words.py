"""Written text as the words said: what a recognizer, a typist and the matcher all compare.
Below the ears and the matcher alike, so neither needs the other to read a transcript."""

from __future__ import annotations

import re

from voicehost.prompts_dir import load_yaml


def normalize(text: str) -> str:
    """Lower-case words of letters, digits and apostrophes, in any script; single-spaced. A
    typographic apostrophe ("I’m", as phones and word processors type it) is the plain one."""
    words = re.sub(r"[^\w' ]+|_", " ", text.lower().replace("’", "'")).split()
    return " ".join(words)


def said_signs(text: str) -> str:
    """A typed or written sign or decimal point as the word said for it: "-1" is "minus 1",
    "1.5" is "1 point 5"."""
    spoken = load_yaml("common/intents.yaml")["number_signs"]
    text = re.sub(r"(?<![\w.])-(?=\d)", f" {spoken['minus']} ", text)
    return re.sub(r"(?<![\w.])(\d{1,2})[.,](\d{1,2})(?![\w.])", rf"\1 {spoken['point']} \2", text)
