"""Answers wrapped in the words people say around them, spoken by an espeak-ng voice, heard by
the default engine limited to the moment's phrases (which hold no fillers), then read by the
host's matcher: "yes please" is a yes, "I think it's <seat>" is that seat
(voicehost/lab/spoken_phrasings.py, docs/phrasings.md "Heard aloud")."""

from __future__ import annotations

from pathlib import Path

import pytest

from voicehost.intents.understand import reading_of
from voicehost.lab.phrasings import REFUSED, Phrasing, load
from voicehost.lab.speakers import PLAIN, speak
from voicehost.lab.spoken_phrasings import hear, moment_of, spoken_audio
from voicehost.lab.voices import TUNE
from voicehost.prompts_dir import load_yaml
from voicehost.registry import deck_words
from voicehost.speech.factory import make_recognizer
from voicehost.words import normalize

CORPUS = Path(__file__).parent / "data" / "phrasings.yaml"
NAMES = load_yaml("common/tokens.yaml")["tokens"]  # seat 0 is the first name
ANSWER = {"game": "secret-squad", "decision": "answer"}
POINT = {"game": "secret-squad", "decision": "point", "seat": 0}
CONFIRM = {"game": "secret-squad", "decision": "confirm", "of": "point"}

WRAPPED = (
    Phrasing("yes_no", ANSWER, "yes please", "yup"),
    Phrasing("yes_no", ANSWER, "definitely no", "nope"),
    Phrasing("point", POINT, f"I think it's {NAMES[1]}", "1"),
    Phrasing("point", POINT, f"I pick {NAMES[3]}", "3"),
    Phrasing("confirm", CONFIRM, "yes, that's right", "yes"),
)
# said, but not one answer: the engine hears a phrase in each ("yes", "i don't"), the host
# must not take it
NOT_ONE_ANSWER = (
    Phrasing("yes_no", ANSWER, "yes but no", "REFUSED"),
    Phrasing("yes_no", ANSWER, "I don't know", "REFUSED"),
    Phrasing("confirm", CONFIRM, "yes no", "REFUSED"),
)


@pytest.fixture(scope="module")
def engine():  # type: ignore[no-untyped-def]
    return make_recognizer("auto", deck_words(), reading_of)[0]


@pytest.mark.takes_seconds(40)
def test_wrapped_answers_are_taken_aloud(engine) -> None:  # type: ignore[no-untyped-def]
    heard_as = {}
    for phrasing in WRAPPED:
        moment = moment_of(phrasing)
        assert normalize(phrasing.say) not in moment.grammar.phrases  # no phrase offered says it
        got, heard, _ = hear(engine, moment, speak(phrasing.say, PLAIN))
        heard_as[phrasing.say] = (got, heard.raw_text, round(heard.confidence, 2))
    # one voice, one clip each: a clip may fall under the floor (docs/phrasings.md measures
    # the corpus), but none may be taken as another answer
    assert all(got in (p.want, REFUSED) for p, (got, _, _) in zip(WRAPPED, heard_as.values(),
                                                                   strict=True)), heard_as
    assert sum(got == p.want for p, (got, _, _) in zip(WRAPPED, heard_as.values(),
                                                       strict=True)) >= 4, heard_as


@pytest.mark.takes_seconds(15)
@pytest.mark.parametrize("phrasing", NOT_ONE_ANSWER, ids=lambda p: p.say)
def test_not_one_answer_is_refused_aloud(engine, phrasing: Phrasing) -> None:  # type: ignore[no-untyped-def]
    moment = moment_of(phrasing)
    assert normalize(phrasing.say) not in moment.grammar.phrases
    got, heard, _ = hear(engine, moment, speak(phrasing.say, PLAIN))
    assert got == REFUSED, f"heard {heard.text!r} (free {heard.raw_text!r}, {heard.confidence:.2f})"


def corpus_phrasing(kind: str, say: str) -> Phrasing:
    return next(p for p in load(CORPUS) if (p.kind, p.say) == (kind, say))


# Tune-half phrasings whose best phrase alone scored too low against the fillers around it or
# between its words, or said in other words ("can go first"): heard again as a phrase wrapped in
# fillers and said any way the matcher reads as it (WordGraph.wrapped), each is taken. The
# phrases tried are the best one, the one the free transcript reads as, and those whose words
# the transcript holds ("I'd see yes" holds "yes").
FILLED = (("turn", "I'll block cheetah please", "espeak-scottish"),
          ("first_player", "cheetah can go first", "flite-kal16"),
          ("ready", "ok we're ready", "flite-awb"),
          ("confirm", "no that's not it", "espeak-scottish"),
          ("yes_no", "uh, nope", "espeak-scottish"),
          ("confirm", "no, I'm pointing at tiger", "espeak-caribbean"),
          ("yes_no", "I'd say yes", "festival-kal"),
          ("point", "I pick myself", "espeak-scottish"),
          ("command", "how are the scores", "festival-kal"))
# A "no" or "not" that Whisper may write as a filler ("now cheetah", "oh yes"): never taken.
DENIED = (("point", "not cheetah", "flite-kal16"), ("yes_no", "no yes", "flite-kal16"))


@pytest.mark.takes_seconds(20)
def test_answers_heard_wrapped_in_fillers(engine) -> None:  # type: ignore[no-untyped-def]
    voices = {voice.name: voice for voice in TUNE}
    for kind, say, voice in FILLED + DENIED:
        phrasing = corpus_phrasing(kind, say)
        got, heard, _ = hear(engine, moment_of(phrasing), spoken_audio(say, voices[voice],
                                                                       cache=None))
        assert got == phrasing.want, (say, heard.text, heard.raw_text, heard.confidence)


@pytest.mark.takes_seconds(5)
def test_a_correction_by_the_seats_number_is_heard(engine) -> None:  # type: ignore[no-untyped-def]
    phrasing = corpus_phrasing("confirm", "no, player three")
    voice = next(voice for voice in TUNE if voice.name == "festival-kal")
    got, heard, _ = hear(engine, moment_of(phrasing), spoken_audio(phrasing.say, voice, cache=None))
    assert got == phrasing.want == "no:2", (heard.text, heard.raw_text, heard.confidence)
