"""The recognition corpus: every phrase Secret Squad accepts, and speech that is none of them.

Phrases and their intents come from the same place `voicehost hear` takes them
(`voicehost.registry.grammar_at`, i.e. the prompts' templates as the host expands them), so a
phrase added to `prompts/` is measured and tested without touching this file. Each clip goes
through the steps `voicehost hear` takes (set the grammar's phrases, recognize, match an
intent), but by one streaming engine that hears clip after clip, as the host's ears hear a
game; `voicehost hear` hears each file alone (whole-utterance decoding from a cold start).
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from voicehost.intents.grammar import Grammar, Intent
from voicehost.lab.speakers import Speaker, add_noise, speak
from voicehost.registry import grammar_at
from voicehost.speech.base import Recognizer, recognize
from voicehost.speech.pocketsphinx_engine import PocketsphinxRecognizer
from voicehost.voice import SAMPLE_RATE, Hearing

# (decision, players) as given to `voicehost hear --decision D --players N`. Pointing is asked
# of seat 1: at 10 players it offers seats 2-10, at 3 players seats 1-3 and "me"/"myself",
# so together every seat name and every "player N" is heard.
GRAMMARS: tuple[tuple[str, int], ...] = (
    ("answer", 4), ("point", 10), ("point", 3), ("squad", 4), ("confirm", 4), ("ready", 4),
)
COMMANDS_UNDER = ("answer", 4)  # commands are the same in every grammar: heard under this one
NOISY_SNR_DB = 15.0

# Table talk that is none of the options: chatter, laughter, hesitation, near misses of the
# options' words, and names that are not seats.
OUT_OF_OPTION = (
    "did you see the game last night", "hello everyone", "ha ha ha", "hahaha", "he he he",
    "um", "uh", "hmm", "what", "who is it", "i don't know", "let me think", "wait a second",
    "that is so funny", "pass the chips please", "oh my god", "okay", "sure", "maybe",
    "whatever", "seriously", "come on", "it is your turn", "i think it was him",
    "are you kidding me", "good game everybody", "hold on", "where is my drink", "the cat",
    "my phone is ringing", "excuse me", "oops", "sandwich", "pizza", "banana", "window",
    "nobody", "yesterday", "cheek", "teeth", "cope", "fax", "owls", "yellowish", "bread",
    "socks", "mellow", "rest", "hello", "yep yep yep maybe", "bread and butter", "peach",
    "fog", "pear", "dog", "mouse", "lion", "monkey", "bed", "head", "knock", "nap",
    "great", "alright", "anna", "charlie", "oliver", "sophia", "scorpion", "helpful",
    "we are not ready", "seven up", "at the door",
)


@dataclass(frozen=True)
class Clip:
    """One utterance, the grammar it is heard under, and the intent it should give
    (None: it must not be understood)."""

    text: str
    speaker: str
    noisy: bool
    grammar: tuple[str, int]
    expected: Intent | None
    pcm: bytes


@dataclass(frozen=True)
class ClipHeard:
    text: str
    raw_text: str
    intent: Intent | None
    confidence: float
    decode_seconds: float


def grammar_for(key: tuple[str, int]) -> Grammar:
    return grammar_at("secret-squad", key[0], key[1])


def option_cases() -> list[tuple[tuple[str, int], str, Intent]]:
    """(grammar, phrase, intent): every phrase the game accepts, each once."""
    cases: dict[str, tuple[tuple[str, int], str, Intent]] = {}
    for key in GRAMMARS:
        for phrase, intent in grammar_for(key).intents.items():
            if intent.name == "choose" or key == COMMANDS_UNDER:
                cases.setdefault(f"{key}|{phrase}", (key, phrase, intent))
    return list(cases.values())


def synthesize(texts: Sequence[str], voices: Sequence[Speaker]) -> dict[tuple[str, str], bytes]:
    """espeak-ng audio of every text in every voice, keyed by (text, voice name)."""
    jobs = [(text, voice) for text in dict.fromkeys(texts) for voice in voices]
    with ThreadPoolExecutor(max_workers=4) as pool:
        audio = list(pool.map(lambda job: speak(job[0], job[1]), jobs))
    return {(text, voice.name): pcm for (text, voice), pcm in zip(jobs, audio, strict=True)}


def condition(pcm: bytes, noisy: bool) -> bytes:
    return add_noise(pcm, NOISY_SNR_DB) if noisy else pcm


def noise_bursts(count: int = 8, seed: int = 7) -> list[bytes]:
    """Coughs and table knocks: short shaped noise bursts inside 0.3 s of silence each side."""
    rng = np.random.default_rng(seed)
    pad = np.zeros(int(0.3 * SAMPLE_RATE))
    bursts = []
    for _ in range(count):
        length = int(rng.uniform(0.12, 0.45) * SAMPLE_RATE)
        envelope = np.exp(-np.linspace(0.0, rng.uniform(3.0, 8.0), length))
        noise = rng.normal(0.0, 1.0, length)
        smoothed = np.convolve(noise, np.ones(int(rng.integers(1, 6))), mode="same")
        burst = smoothed / np.max(np.abs(smoothed)) * rng.uniform(6000, 16000) * envelope
        bursts.append(np.concatenate([pad, burst, pad]).astype(np.int16).tobytes())
    return bursts


def build_corpus(voices: Sequence[Speaker]) -> tuple[list[Clip], list[Clip]]:
    """(option clips, out-of-option clips): every option in every voice, clean and noisy;
    every out-of-option sentence in every voice, under each grammar in turn, every other
    clip noisy."""
    cases = option_cases()
    audio = synthesize([p for _, p, _ in cases] + list(OUT_OF_OPTION), voices)
    inside = [Clip(phrase, v.name, noisy, key, intent, condition(audio[(phrase, v.name)], noisy))
              for key, phrase, intent in cases for v in voices for noisy in (False, True)]
    return inside, out_of_option_clips(voices, audio)


def out_of_option_clips(voices: Sequence[Speaker],
                        audio: dict[tuple[str, str], bytes] | None = None) -> list[Clip]:
    """Every out-of-option sentence in every voice, under each grammar in turn, every other
    clip noisy, then the noise bursts (`audio`: already synthesized, see `synthesize`)."""
    audio = audio if audio is not None else synthesize(OUT_OF_OPTION, voices)
    outside = [Clip(text, v.name, (i + j) % 2 == 1, GRAMMARS[(i + j) % len(GRAMMARS)], None,
                    condition(audio[(text, v.name)], (i + j) % 2 == 1))
               for i, text in enumerate(OUT_OF_OPTION) for j, v in enumerate(voices)]
    outside += [Clip("noise burst", "none", False, GRAMMARS[i % len(GRAMMARS)], None, pcm)
                for i, pcm in enumerate(noise_bursts())]
    return outside


def hear(recognizer: Recognizer, grammar: Grammar, pcm: bytes) -> tuple[Hearing, Intent | None]:
    """What `voicehost hear` does with a WAV's audio (voicehost/tools.py run_hear), given
    the engine."""
    recognizer.set_phrases(grammar.phrases)
    hearing = recognize(recognizer, pcm)
    intent, _ = grammar.match(hearing.text)
    return hearing, intent


def hear_all(clips: Sequence[Clip], **engine_options: object) -> list[ClipHeard]:
    engine = PocketsphinxRecognizer(**engine_options)  # type: ignore[arg-type]
    grammars: dict[tuple[str, int], Grammar] = {}
    heard = []
    for clip in clips:
        grammar = grammars.setdefault(clip.grammar, grammar_for(clip.grammar))
        hearing, intent = hear(engine, grammar, clip.pcm)
        heard.append(ClipHeard(hearing.text, hearing.raw_text, intent, hearing.confidence,
                           hearing.decode_seconds))
    return heard


def hear_in_parallel(clips: Sequence[Clip], workers: int = 2,
                     **engine_options: object) -> list[ClipHeard]:
    """hear_all split over `workers` processes (one recognizer each), results in clip order."""
    shares = [list(clips[i::workers]) for i in range(workers)]
    # forkserver: a fork of a process that already runs threads (a test session's engines)
    # can hang on a lock one of them held
    with multiprocessing.get_context("forkserver").Pool(workers) as pool:
        parts = pool.starmap(_hear_share, [(share, engine_options) for share in shares])
    heard: list[ClipHeard] = [None] * len(clips)  # type: ignore[list-item]
    for i, part in enumerate(parts):
        heard[i::workers] = part
    return heard


def _hear_share(clips: list[Clip], engine_options: dict[str, object]) -> list[ClipHeard]:
    return hear_all(clips, **engine_options)


def right(clip: Clip, heard: ClipHeard) -> bool:
    """The clip gave the intent it should (None for out-of-option speech)."""
    return heard.intent == clip.expected
