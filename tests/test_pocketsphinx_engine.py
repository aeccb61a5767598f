"""PocketsphinxRecognizer on real pocketsphinx, fed with espeak-ng players (tests/speakers.py).

The corpus here (the host's phrase sets and the table chatter it must reject) is also what
scripts/tune_rejection.py measures the engine's defaults on.
"""

from __future__ import annotations

import multiprocessing
import statistics
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
import pytest
from speakers import SPEAKERS, Speaker, add_noise, speak

from voicehost.speech.base import SAMPLE_RATE, Hearing, recognize
from voicehost.speech.pocketsphinx_engine import PocketsphinxRecognizer, missing_words

Groups = dict[str, tuple[str, ...]]

ANSWER: Groups = {"yes": ("yes", "yeah", "yep", "yup"), "no": ("no", "nah", "nope")}
COMMANDS: Groups = {
    "repeat": ("repeat", "say that again", "again"),
    "help": ("help", "rules"),
    "pause": ("pause",),
    "resume": ("resume", "continue"),
    "undo": ("undo", "go back"),
    "scores": ("scores", "score", "standings"),
    "skip": ("skip", "skip this one"),
    "quit": ("quit game", "stop the game"),
    "ready": ("ready", "we are ready"),
}
ICONS = ("fox", "owl", "bear", "frog", "whale", "tiger", "rabbit", "snake", "horse", "duck")
NUMBERS = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
POINT: Groups = {
    **{icon: (icon, f"i pointed at {icon}", f"at {icon}") for icon in ICONS},
    "myself": ("myself", "me"),
    **{f"seat {n + 1}": (f"player {number}",) for n, number in enumerate(NUMBERS)},
}
SQUAD: Groups = {"yellow": ("yellow", "i am yellow", "yellow squad"),
                 "red": ("red", "i am red", "red squad")}
CONFIRM: Groups = {"yes": ("yes", "yeah", "yep", "yup", "correct", "right"),
                   "no": ("no", "nah", "nope", "wrong")}
DECISIONS: dict[str, Groups] = {"answer": ANSWER, "point": POINT, "squad": SQUAD,
                                "confirm": CONFIRM}
COMMANDS_UNDER = "point"  # the commands are checked inside the biggest grammar

# Table talk that is none of the options: chatter, laughter, hesitation, and near misses.
OUT_OF_OPTION = (
    "did you see the game last night", "hello everyone", "ha ha ha", "hahaha", "he he he",
    "um", "uh", "hmm", "what", "who is it", "i don't know", "let me think", "wait a second",
    "that is so funny", "pass the chips please", "oh my god", "okay", "sure", "maybe",
    "whatever", "seriously", "come on", "it is your turn", "i think it was him",
    "are you kidding me", "good game everybody", "hold on", "where is my drink", "the cat",
    "my phone is ringing", "excuse me", "oops", "sandwich", "pizza", "banana", "window",
    "nobody", "yesterday", "cheek", "cope", "fax", "owls", "yellowish", "bread", "socks",
    "mellow", "rest", "hello", "yep yep yep maybe", "bread and butter",
)
NOISY_SNR_DB = 15.0
MAX_FALSE_ACCEPT = 0.05


def grammar(decision: str) -> Groups:
    """The host's grammar at a decision: its own phrases plus the always-available commands."""
    return {**DECISIONS[decision], **COMMANDS}


def phrases(groups: Groups) -> list[str]:
    return [phrase for group in groups.values() for phrase in group]


def meaning(groups: Groups, phrase: str) -> str | None:
    return next((name for name, group in groups.items() if phrase in group), None)


@dataclass(frozen=True)
class Clip:
    """One utterance of the corpus and the grammar it is heard under."""

    text: str
    speaker: str
    noisy: bool
    decision: str
    pcm: bytes


def in_option_cases() -> list[tuple[str, str]]:
    """(decision, phrase): every phrase of every set, each under its realistic grammar."""
    cases = [(d, p) for d in DECISIONS for p in phrases(DECISIONS[d])]
    return cases + [(COMMANDS_UNDER, p) for p in phrases(COMMANDS)]


def out_of_option_cases() -> list[tuple[str, str, Speaker, bool]]:
    """(decision, text, speaker, noisy): chatter in every voice, spread over the four grammars,
    every other voice noisy."""
    decisions = list(DECISIONS)
    return [(decisions[(i + j) % len(decisions)], text, speaker, j % 2 == 1)
            for i, text in enumerate(OUT_OF_OPTION) for j, speaker in enumerate(SPEAKERS)]


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


def synthesize(texts: Sequence[str], effects: Sequence[str] = ()) -> dict[tuple[str, str], bytes]:
    """espeak-ng audio of every text in every SPEAKERS voice, keyed by (text, speaker)."""
    jobs = [(text, speaker) for text in dict.fromkeys(texts) for speaker in SPEAKERS]

    def one(job: tuple[str, Speaker]) -> bytes:
        return speak(job[0], job[1], *effects)

    with ThreadPoolExecutor(max_workers=4) as pool:
        audio = list(pool.map(one, jobs))
    return {(text, speaker.name): pcm for (text, speaker), pcm in zip(jobs, audio, strict=True)}


def condition(pcm: bytes, noisy: bool) -> bytes:
    return add_noise(pcm, NOISY_SNR_DB) if noisy else pcm


def build_corpus(effects: Sequence[str] = ()) -> tuple[list[Clip], list[Clip]]:
    """(in-option clips, out-of-option clips) for every speaker, clean and noisy."""
    cases, chatter = in_option_cases(), out_of_option_cases()
    audio = synthesize([p for _, p in cases] + [t for _, t, _, _ in chatter], effects)
    inside = [Clip(p, s.name, noisy, d, condition(audio[(p, s.name)], noisy))
              for d, p in cases for s in SPEAKERS for noisy in (False, True)]
    outside = [Clip(t, s.name, noisy, d, condition(audio[(t, s.name)], noisy))
               for d, t, s, noisy in chatter]
    decisions = list(DECISIONS)
    outside += [Clip("noise burst", "none", False, decisions[i % len(decisions)], pcm)
                for i, pcm in enumerate(noise_bursts())]
    return inside, outside


def hear_all(clips: Sequence[Clip], **engine_options: object) -> list[Hearing]:
    """Decode every clip in order with one recognizer, switching grammar as the host would."""
    engine = PocketsphinxRecognizer(**engine_options)  # type: ignore[arg-type]
    heard = []
    for clip in clips:
        engine.set_phrases(phrases(grammar(clip.decision)))
        heard.append(recognize(engine, clip.pcm))
    return heard


def hear_in_parallel(clips: Sequence[Clip], workers: int = 2,
                     **engine_options: object) -> list[Hearing]:
    """hear_all split over `workers` processes (one recognizer each), results in clip order."""
    shares = [list(clips[i::workers]) for i in range(workers)]
    context = multiprocessing.get_context("fork")
    with context.Pool(workers) as pool:
        parts = pool.starmap(_hear_share, [(share, engine_options) for share in shares])
    heard: list[Hearing] = [None] * len(clips)  # type: ignore[list-item]
    for i, part in enumerate(parts):
        heard[i::workers] = part
    return heard


def _hear_share(clips: list[Clip], engine_options: dict[str, object]) -> list[Hearing]:
    return hear_all(clips, **engine_options)


def voice_code(clip: Clip) -> str:
    """One letter per voice (L, D, H, C in SPEAKERS order), lower case when noisy."""
    letter = "LDHC"[[s.name for s in SPEAKERS].index(clip.speaker)]
    return letter.lower() if clip.noisy else letter


def understood(clip: Clip, hearing: Hearing) -> bool:
    """Heard as the phrase itself or as another phrase meaning the same."""
    groups = grammar(clip.decision)
    return bool(hearing.text) and meaning(groups, hearing.text) == meaning(groups, clip.text)


# Option clips pocketsphinx does not understand at the default floor, measured and printed by
# `scripts/tune_rejection.py --failures`: (decision, phrase) → the voices that fail, one letter
# each (L low-man, D deep-man, H high-woman, C child-like; lower case = noisy). The brief asks
# for 100%; the bundled US-English model is far from that on these espeak-ng voices, so every
# miss is listed here instead of being hidden by a lower bar. Any clip not listed must be
# understood, and a listed clip that starts being understood must be taken off the list.
KNOWN_UNRELIABLE: dict[tuple[str, str], str] = {
    ('answer', 'yes'): 'dhc',
    ('answer', 'yeah'): 'd',
    ('answer', 'yup'): 'lDdc',
    ('answer', 'no'): 'LldHC',
    ('answer', 'nah'): 'LDdHhC',
    ('answer', 'nope'): 'ldC',
    ('point', 'fox'): 'lDdHhc',
    ('point', 'i pointed at fox'): 'DdhC',
    ('point', 'at fox'): 'lDdHhCc',
    ('point', 'owl'): 'LlDHhCc',
    ('point', 'i pointed at owl'): 'C',
    ('point', 'at owl'): 'LDdHhCc',
    ('point', 'bear'): 'LlDdHhCc',
    ('point', 'i pointed at bear'): 'DhCc',
    ('point', 'at bear'): 'LlDdHhCc',
    ('point', 'frog'): 'DdHhCc',
    ('point', 'i pointed at frog'): 'Cc',
    ('point', 'at frog'): 'DdHhCc',
    ('point', 'at whale'): 'd',
    ('point', 'tiger'): 'DHhCc',
    ('point', 'i pointed at tiger'): 'C',
    ('point', 'at tiger'): 'DdHCc',
    ('point', 'rabbit'): 'DdHhCc',
    ('point', 'i pointed at rabbit'): 'dC',
    ('point', 'at rabbit'): 'DdHhCc',
    ('point', 'snake'): 'lDdHhCc',
    ('point', 'i pointed at snake'): 'C',
    ('point', 'at snake'): 'lDdhCc',
    ('point', 'horse'): 'DdhCc',
    ('point', 'i pointed at horse'): 'dhCc',
    ('point', 'at horse'): 'DdhCc',
    ('point', 'duck'): 'LlDdHhCc',
    ('point', 'i pointed at duck'): 'DhCc',
    ('point', 'at duck'): 'LlDdHhCc',
    ('point', 'myself'): 'hCc',
    ('point', 'me'): 'LlDd',
    ('point', 'player one'): 'C',
    ('point', 'player two'): 'DHhCc',
    ('point', 'player three'): 'hC',
    ('point', 'player four'): 'DHhCc',
    ('point', 'player five'): 'DHhCc',
    ('point', 'player six'): 'lDdHhCc',
    ('point', 'player seven'): 'LDHhCc',
    ('point', 'player eight'): 'lDdHhCc',
    ('point', 'player nine'): 'DdHC',
    ('point', 'player ten'): 'DHhCc',
    ('squad', 'yellow'): 'c',
    ('squad', 'i am yellow'): 'DC',
    ('squad', 'yellow squad'): 'c',
    ('squad', 'red'): 'LlDdHhCc',
    ('squad', 'i am red'): 'DC',
    ('squad', 'red squad'): 'DdHhCc',
    ('confirm', 'yeah'): 'L',
    ('confirm', 'yup'): 'LlDdc',
    ('confirm', 'correct'): 'LlDdHhCc',
    ('confirm', 'right'): 'dhCc',
    ('confirm', 'no'): 'LldHC',
    ('confirm', 'nah'): 'LlDdHhC',
    ('confirm', 'nope'): 'ldC',
    ('confirm', 'wrong'): 'HhC',
    ('point', 'say that again'): 'DCc',
    ('point', 'again'): 'LlDC',
    ('point', 'help'): 'LlDdHhCc',
    ('point', 'rules'): 'dHhCc',
    ('point', 'pause'): 'd',
    ('point', 'resume'): 'lHhCc',
    ('point', 'undo'): 'LHhCc',
    ('point', 'go back'): 'DdHCc',
    ('point', 'scores'): 'LlDdHhCc',
    ('point', 'score'): 'LlDdHhCc',
    ('point', 'standings'): 'LlDdhCc',
    ('point', 'skip'): 'LlDdHhCc',
    ('point', 'skip this one'): 'HCc',
    ('point', 'quit game'): 'dhCc',
    ('point', 'stop the game'): 'DC',
    ('point', 'ready'): 'LdHhCc',
    ('point', 'we are ready'): 'hc',
}


@pytest.fixture(scope="session")
def corpus() -> tuple[list[Clip], list[Clip]]:
    return build_corpus()


@pytest.fixture(scope="session")
def heard(corpus: tuple[list[Clip], list[Clip]]) -> tuple[list[Hearing], list[Hearing]]:
    inside, outside = corpus
    hearings = hear_in_parallel([*inside, *outside])
    return hearings[: len(inside)], hearings[len(inside):]


@pytest.fixture(scope="session")
def fox() -> bytes:
    return speak("fox", SPEAKERS[0])


def test_every_option_is_understood_except_the_listed_ones(
        corpus: tuple[list[Clip], list[Clip]],
        heard: tuple[list[Hearing], list[Hearing]]) -> None:
    failing: dict[tuple[str, str], str] = {}
    for clip, hearing in zip(corpus[0], heard[0], strict=True):
        if not understood(clip, hearing):
            key = (clip.decision, clip.text)
            failing[key] = failing.get(key, "") + voice_code(clip)
    misses = sum(map(len, failing.values()))
    print(f"\noptions understood: {1 - misses / len(corpus[0]):.1%} of {len(corpus[0])} clips")
    new = {k: v for k, v in failing.items() if set(v) - set(KNOWN_UNRELIABLE.get(k, ""))}
    fixed = {k: v for k, v in KNOWN_UNRELIABLE.items() if set(v) - set(failing.get(k, ""))}
    assert not new, f"options no longer understood (phrase: voices): {new}"
    assert not fixed, f"now understood, take these voices off KNOWN_UNRELIABLE: {fixed}"


def test_out_of_option_speech_is_rejected(corpus: tuple[list[Clip], list[Clip]],
                                          heard: tuple[list[Hearing], list[Hearing]]) -> None:
    accepted = [(c.text, h.text) for c, h in zip(corpus[1], heard[1], strict=True) if h.text]
    rate = len(accepted) / len(corpus[1])
    print(f"\nfalse accepts: {rate:.1%} of {len(corpus[1])} out-of-option clips: {accepted}")
    assert rate <= MAX_FALSE_ACCEPT
    assert all(0.0 <= h.confidence <= 1.0 for h in heard[1])
    assert all(h.raw_text for h in heard[1][:10]), "the nearest option is kept for diagnostics"


def test_end_of_speech_to_text_is_fast(heard: tuple[list[Hearing], list[Hearing]]) -> None:
    latency = sorted(h.decode_seconds for h in [*heard[0], *heard[1]])
    median, p95 = statistics.median(latency), latency[int(0.95 * (len(latency) - 1))]
    print(f"\ndecode latency: median {median * 1000:.1f} ms, p95 {p95 * 1000:.1f} ms")
    assert p95 < 0.1


def test_confidence_separates_options_from_chatter(
        corpus: tuple[list[Clip], list[Clip]],
        heard: tuple[list[Hearing], list[Hearing]]) -> None:
    right = [h.confidence for c, h in zip(corpus[0], heard[0], strict=True) if understood(c, h)]
    chatter = [h.confidence for h in heard[1]]
    assert statistics.median(right) > 0.8 > 0.2 > statistics.median(chatter)


def test_missing_words_are_named() -> None:
    assert missing_words(["Fox", "i pointed at zorblax", "zorblax qwfp fox"]) == ["zorblax",
                                                                                 "qwfp"]
    assert missing_words(["yes", "say that again"]) == []
    engine = PocketsphinxRecognizer()
    with pytest.raises(ValueError, match="zorblax, qwfp"):
        engine.set_phrases(["fox", "zorblax qwfp"])
    with pytest.raises(ValueError):
        engine.set_phrases(["  "])


def test_switching_phrase_sets_between_utterances(fox: bytes) -> None:
    engine = PocketsphinxRecognizer()
    pointing, yes_no = phrases(grammar("point")), phrases(ANSWER)
    engine.set_phrases(pointing)
    assert recognize(engine, fox).text == "fox"
    engine.set_phrases(yes_no)
    hearing = recognize(engine, fox)
    assert hearing.text == "", "fox is neither yes nor no"
    assert hearing.raw_text in yes_no and hearing.confidence < engine.floor
    engine.set_phrases(pointing)
    assert recognize(engine, fox).text == "fox"


def test_the_caller_spelling_of_a_phrase_comes_back(fox: bytes) -> None:
    engine = PocketsphinxRecognizer()
    engine.set_phrases(["Fox", "Owl", "Bear", "Frog"])
    assert recognize(engine, fox).text == "Fox"


@pytest.mark.parametrize("chunk_bytes", [640, 333])
def test_streaming_in_chunks_hears_the_same_as_one_block(fox: bytes, chunk_bytes: int) -> None:
    whole, streamed = PocketsphinxRecognizer(), PocketsphinxRecognizer()
    for engine in (whole, streamed):
        engine.set_phrases(phrases(grammar("point")))
    expected = recognize(whole, fox)
    streamed.start()
    for i in range(0, len(fox), chunk_bytes):
        streamed.feed(fox[i:i + chunk_bytes])
    got = streamed.finish()
    assert (got.text, got.raw_text) == (expected.text, expected.raw_text) == ("fox", "fox")
    assert got.confidence == pytest.approx(expected.confidence, abs=1e-6)
    assert got.audio_seconds == pytest.approx(len(fox) / 2 / SAMPLE_RATE)


def test_digital_silence_alone_is_not_understood() -> None:
    engine = PocketsphinxRecognizer()
    engine.set_phrases(phrases(grammar("answer")))
    hearing = recognize(engine, bytes(SAMPLE_RATE * 2))
    assert hearing.text == ""
