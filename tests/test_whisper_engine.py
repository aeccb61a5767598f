"""WhisperRecognizer on the real tiny.en model, hearing espeak-ng players as `voicehost hear` does.

The clips are a slice of the Secret Squad corpus (voicehost/lab/hearing_corpus.py): every
phrase the game accepts once, in one of the four VOICES in turn, clean and with white noise at
15 dB SNR, and every out-of-option utterance once plus the noise bursts. The bars sit a few
points under what the full corpus measured (the engine's module docstring and
docs/hearing.md), so a new command in prompts/ does not flip them; an engine that stops scoring the
phrases, or stops rejecting, falls far below them.
"""

from __future__ import annotations

import json
import math
import shutil
import time
from pathlib import Path

import numpy as np
import pytest
from tokenizers import Tokenizer

from voicehost.intents.grammar import Grammar
from voicehost.intents.understand import reading_of
from voicehost.lab.hearing_corpus import (
    OUT_OF_OPTION,
    Clip,
    condition,
    grammar_for,
    hear,
    noise_bursts,
    option_cases,
    synthesize,
)
from voicehost.lab.speakers import PLAIN, VOICES, Speaker, speak
from voicehost.speech.base import recognize
from voicehost.speech.features import log_mel
from voicehost.speech.whisper_decoder import BEAM_WIDTH
from voicehost.speech.whisper_engine import ENDS_INSIDE_CHANCE, WhisperRecognizer
from voicehost.speech.whisper_free import log_softmax
from voicehost.speech.whisper_model import (
    MODEL_SHA256,
    WhisperModelError,
    find_model,
    load_tokenizer,
    verify_model,
)
from voicehost.speech.whisper_scoring import PRUNE_NATS, Ranked
from voicehost.tools import hear_grammar
from voicehost.voice import SAMPLE_RATE
from voicehost.words import plain_words

MIN_RIGHT = {False: 0.75, True: 0.60}  # share of option clips given the right intent
MAX_WRONG_INTENT = 0.04
MAX_FALSE_ACCEPT = 0.06


@pytest.fixture(scope="module")
def engine() -> WhisperRecognizer:
    return WhisperRecognizer(reader=reading_of)


@pytest.fixture(scope="module")
def clips() -> list[Clip]:
    """Every option once clean and once noisy (other voices), every out-of-option utterance
    once (every other one noisy), then the noise bursts."""
    cases = option_cases()
    audio = synthesize([p for _, p, _ in cases] + list(OUT_OF_OPTION), VOICES)
    inside = [Clip(phrase, voice.name, noisy, key, intent,
                   condition(audio[(phrase, voice.name)], noisy))
              for i, (key, phrase, intent) in enumerate(cases) for noisy in (False, True)
              for voice in [VOICES[(i + 2 * noisy) % len(VOICES)]]]
    keys = [key for key, _, _ in cases]
    outside = [Clip(text, VOICES[i % len(VOICES)].name, i % 2 == 1, keys[i % len(keys)], None,
                    condition(audio[(text, VOICES[i % len(VOICES)].name)], i % 2 == 1))
               for i, text in enumerate(OUT_OF_OPTION)]
    outside += [Clip("noise burst", "none", False, keys[i], None, pcm)
                for i, pcm in enumerate(noise_bursts())]
    return inside + outside


@pytest.fixture(scope="module")
def heard(engine: WhisperRecognizer, clips: list[Clip]) -> list[tuple[Clip, object, float]]:
    grammars: dict[tuple[str, int], Grammar] = {}
    results = []
    for clip in clips:
        grammar = grammars.setdefault(clip.grammar, grammar_for(clip.grammar))
        hearing, intent = hear(engine, grammar, clip.pcm)
        results.append((clip, intent, hearing.decode_seconds))
    return results


def _share(pairs: list[tuple[Clip, object, float]], test) -> float:  # noqa: ANN001
    return sum(1 for pair in pairs if test(*pair)) / len(pairs)


@pytest.mark.parametrize("noisy", [False, True], ids=["clean", "noisy"])
def test_the_right_phrase_is_heard_among_the_options(heard: list, noisy: bool) -> None:
    options = [h for h in heard if h[0].expected is not None and h[0].noisy == noisy]
    rate = _share(options, lambda clip, intent, _: intent == clip.expected)
    wrong = [(c.text, i) for c, i, _ in options if i is not None and i != c.expected]
    print(f"\n{'noisy' if noisy else 'clean'}: {rate:.1%} right of {len(options)}; "
          f"wrong intent: {wrong}")
    assert rate >= MIN_RIGHT[noisy]
    assert len(wrong) / len(options) <= MAX_WRONG_INTENT


def test_chatter_and_noise_are_not_understood(heard: list) -> None:
    outside = [h for h in heard if h[0].expected is None]
    accepted = [(c.text, i) for c, i, _ in outside if i is not None]
    print(f"\nfalse accepts: {len(accepted)} of {len(outside)}: {accepted}")
    assert len(accepted) / len(outside) <= MAX_FALSE_ACCEPT
    bursts = [i for c, i, _ in outside if c.text == "noise burst"]
    assert bursts and all(i is None for i in bursts)


def test_runner_up_and_confidences_are_exposed(engine: WhisperRecognizer) -> None:
    pointing = grammar_for(("point", 10))
    hearing, _ = hear(engine, pointing, speak("player six", VOICES[0]))
    alternatives = engine.last_alternatives
    assert hearing.text == "player six" == alternatives[0][0]
    assert len(alternatives) >= 2 and alternatives[1][0] != "player six"
    confidences = [c for _, c in alternatives]
    assert confidences[1:] == sorted(confidences[1:], reverse=True)
    assert confidences[0] > max(confidences[1:])
    assert all(0.0 <= c <= 1.0 for c in confidences)
    assert hearing.confidence == alternatives[0][1] >= engine.floor


def test_the_caller_spelling_of_a_phrase_comes_back(engine: WhisperRecognizer) -> None:
    engine.set_phrases(["Fox", "Owl", "Bear", "Frog"])
    assert recognize(engine, speak("fox", VOICES[2])).text == "Fox"


def test_streamed_chunks_hear_like_one_block(engine: WhisperRecognizer) -> None:
    pcm = speak("skip this one", VOICES[1])
    engine.set_phrases(grammar_for(("answer", 4)).phrases)
    whole = recognize(engine, pcm)
    engine.start()
    for i in range(0, len(pcm), 333):
        engine.feed(pcm[i:i + 333])
    streamed = engine.finish()
    assert streamed.text == whole.text == "skip this one"
    assert streamed.confidence == pytest.approx(whole.confidence, abs=1e-6)
    assert streamed.audio_seconds == pytest.approx(len(pcm) / 2 / SAMPLE_RATE)


def test_silence_is_not_understood(engine: WhisperRecognizer) -> None:
    engine.set_phrases(grammar_for(("answer", 4)).phrases)
    assert recognize(engine, bytes(2 * SAMPLE_RATE)).text == ""


def test_phrase_sets_are_prepared_once(engine: WhisperRecognizer,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    answers, pointing = grammar_for(("answer", 4)).phrases, grammar_for(("point", 10)).phrases
    engine.set_phrases(answers)
    engine.set_phrases(pointing)
    prepared = engine._phrases
    calls = []
    monkeypatch.setattr(engine.scorer, "phrase_set",
                        lambda phrases, reading: calls.append(phrases))
    began = time.perf_counter()
    for _ in range(100):
        engine.set_phrases(answers)
        engine.set_phrases(list(reversed(pointing)))
    assert calls == [] and engine._phrases is prepared
    assert (time.perf_counter() - began) / 200 < 0.002


def test_open_vocabulary_transcribes_but_is_not_offered(engine: WhisperRecognizer) -> None:
    # Free transcription works for plain sentences, but single clue words came out right only
    # 216 of 528 times: the host must not read them aloud (AudioVoice.record checks this flag).
    assert engine.open_vocabulary is False
    engine.set_phrases(None)
    heard = recognize(engine, speak("did you see the game last night", VOICES[0]))
    assert heard.raw_text.startswith("did you see the game last")
    engine.set_phrases(["yes", "no"])
    assert recognize(engine, speak("yes", PLAIN)).text == "yes"


def test_the_installed_model_matches_the_pinned_hashes() -> None:
    verify_model(find_model())
    assert set(MODEL_SHA256) == {"config.json", "model.bin", "tokenizer.json", "vocabulary.txt"}


@pytest.mark.parametrize("damaged", ["model.bin", "tokenizer.json"])
def test_a_corrupted_copy_is_refused(tmp_path: Path, damaged: str) -> None:
    for name in MODEL_SHA256:
        if name == damaged:
            shutil.copyfile(find_model() / name, tmp_path / name)
        else:
            (tmp_path / name).symlink_to(find_model() / name)
    with open(tmp_path / damaged, "r+b") as f:
        f.seek(-1, 2)
        last = f.read(1)
        f.seek(-1, 2)
        f.write(bytes([last[0] ^ 1]))
    with pytest.raises(WhisperModelError, match=damaged):
        WhisperRecognizer(tmp_path, reader=reading_of)


def test_a_missing_model_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(WhisperModelError, match="config.json"):
        WhisperRecognizer(tmp_path, reader=reading_of)
    models = tmp_path / "models"
    (models / "whisper-tiny.en").mkdir(parents=True)
    assert find_model(None, models) == models / "whisper-tiny.en"


def test_features_have_whisper_shape_and_scale() -> None:
    tone = speak("hello", PLAIN)
    import numpy as np

    audio = np.frombuffer(tone, dtype="<i2") / 32768.0
    features = log_mel(audio, 300)
    assert features.shape == (80, 300)
    assert features.max() <= 2.5 and features.max() - features.min() <= 2.0 + 1e-6


def test_wavering_pairs_the_two_best_only_when_together_they_are_sure(
        engine: WhisperRecognizer) -> None:
    pointing = grammar_for(("point", 10))
    hearing, _ = hear(engine, pointing, speak("player six", VOICES[1]))
    # the pair's confidence sets the runner-up aside: never below the best phrase's own
    assert engine.last_ranked is not None
    assert engine.last_ranked.pair_confidence >= hearing.confidence > 0.0
    ranked = [("owl", 0.3), ("bear", 0.25), ("fox", 0.01)]
    floor = engine.floor
    assert Ranked(ranked, None, 0.9).wavering(floor) == (("owl", 0.3), ("bear", 0.25))
    accepted = floor + 0.05
    assert Ranked([("owl", accepted), ("bear", 0.2)], None, 0.9).wavering(floor) == (
        )  # the best was taken
    assert Ranked(ranked, None, 0.2).wavering(floor) == ()  # not surely either of them


def test_the_missing_first_merge_is_put_back(tmp_path: Path) -> None:
    # The multilingual conversions ship a tokenizer.json without GPT-2's first merge (Ġ t):
    # " two" would be scored as " " + "two", a spelling Whisper never writes.
    spec = json.loads((find_model() / "tokenizer.json").read_text(encoding="utf-8"))
    merges = spec["model"]["merges"]
    assert merges[0] in ("Ġ t", ["Ġ", "t"])
    del merges[0]
    broken = tmp_path / "tokenizer.json"
    broken.write_text(json.dumps(spec), encoding="utf-8")

    def spelled(tokenizer: Tokenizer) -> list[str]:
        return tokenizer.encode(" two", add_special_tokens=False).tokens

    assert spelled(Tokenizer.from_file(str(broken))) == ["Ġ", "two"]
    assert spelled(load_tokenizer(broken)) == ["Ġtwo"]
    assert spelled(load_tokenizer(find_model() / "tokenizer.json")) == ["Ġtwo"]


def test_a_transcript_is_compared_in_the_grammars_words() -> None:
    # Whisper writes numbers as digits; a code said digit by digit comes out as one number.
    assert plain_words("Go forward 10 meters.") == "go forward ten meters"
    assert plain_words("29340") == "two nine three four zero"
    assert plain_words("I pick 4!") == "i pick four"


def test_a_long_list_pruned_in_its_trie_is_heard_as_if_scored_whole(
        engine: WhisperRecognizer) -> None:
    turn = hear_grammar(None, "turn", 10, "secret-operation")  # 201 phrases
    said = ["add to module three", "i add it to one", "block player five", "discard mechanics",
            "where are we"]
    scored = {}
    try:
        for nats in (math.inf, PRUNE_NATS):
            engine.scorer.prune_nats = nats
            engine.scorer.beam_width = 10_000 if nats == math.inf else BEAM_WIDTH
            for phrase in said:
                hearing, _ = hear(engine, turn, speak(phrase, PLAIN))
                assert engine.last_scores is not None
                scored[nats, phrase] = (hearing.text, hearing.confidence,
                                        int(np.isfinite(engine.last_scores.phrase_scores).sum()))
    finally:
        engine.scorer.prune_nats, engine.scorer.beam_width = PRUNE_NATS, BEAM_WIDTH
    assert engine._phrases is not None
    for phrase in said:
        whole, pruned = scored[math.inf, phrase], scored[PRUNE_NATS, phrase]
        assert whole[2] == len(engine._phrases.phrases)
        assert pruned[0] == whole[0]
        assert turn.match(pruned[0])[0] == turn.intents[phrase]
        assert pruned[1] == pytest.approx(whole[1], abs=0.01)
    assert sum(scored[PRUNE_NATS, p][2] for p in said) * 4 < sum(scored[math.inf, p][2]
                                                                 for p in said)


def test_the_trie_scores_each_phrase_as_ctranslate2_forces_it() -> None:
    # The numpy decoder against CTranslate2's own, both in float32, on one utterance: the
    # log-probability of each written form and of the end after it.
    engine = WhisperRecognizer(reader=reading_of, compute_type="float32")
    engine.set_phrases(["add to module two", "add to module three", "discard mechanics",
                        "block player two", "yes"])
    audio = np.frombuffer(speak("add to module two", PLAIN), dtype="<i2") / 32768.0
    encoded = engine.encode(audio, engine.pad_seconds)
    cross = engine._decoder.attend(np.asarray(encoded)[0])
    assert engine._phrases is not None
    sequences = engine._phrases.tokens
    trie = engine._decoder.score_trie(cross, engine._decoder.start(cross, engine._prefix),
                                      sequences, engine._end_ids, prune_nats=math.inf,
                                      prune_after=0)
    forced = []
    for tokens in sequences:
        result = engine._model.generate(
            encoded, [engine._prefix + list(tokens)], beam_size=1, suppress_blank=False,
            max_length=2 * (len(tokens) + 1) + len(engine._prefix) - 2,
            return_logits_vocab=True)[0]
        steps = log_softmax(np.stack([np.asarray(x) for x in result.logits[0]]))
        forced.append(float(steps[np.arange(len(tokens)), list(tokens)].sum()
                            + np.logaddexp.reduce(steps[len(tokens), engine._end_ids])))
    assert trie == pytest.approx(forced, abs=1e-3)
    start = engine._decoder.start(cross, engine._prefix)
    for tokens, total in zip(sequences, trie, strict=True):
        steps = engine._decoder.along(cross, start, tokens)
        assert steps.shape[0] == len(tokens) + 1
        assert float(steps[np.arange(len(tokens)), list(tokens)].sum() + np.logaddexp.reduce(
            steps[len(tokens), engine._end_ids])) == pytest.approx(total, abs=1e-3)
    phrases = engine._phrases
    assert phrases.phrases[phrases.owner[int(np.argmax(trie))]] == "add to module two"


def test_a_transcript_said_over_and_over_is_cut(engine: WhisperRecognizer) -> None:
    looped = engine._tokenizer.encode(" and to module two add to module two add",
                                       add_special_tokens=False).ids
    cut, repeated = engine.free.first_sentence(looped)
    assert repeated and engine._tokenizer.decode(list(cut)) == " and to module two add"
    once = engine._tokenizer.encode(" add to module two.", add_special_tokens=False).ids
    assert engine.free.first_sentence(once) == (tuple(once), False)

    def first_sentence(transcript: str) -> tuple[str, bool]:
        tokens = engine._tokenizer.encode(transcript, add_special_tokens=False).ids
        cut, repeated = engine.free.first_sentence(tokens)
        return engine._tokenizer.decode(list(cut)), repeated

    # a word said twice is no loop; two words in a row said again are, and so is the start
    assert first_sentence(" 2 mechanics and 2 energy 2 mechanics and") == (
        " 2 mechanics and 2 energy", True)
    assert first_sentence(" 2 mechanics and 2 energy") == (" 2 mechanics and 2 energy", False)
    assert first_sentence(" Mechanics Electronics Energy Mechanics") == (
        " Mechanics Electronics Energy", True)
    assert first_sentence(" 1 1 1 1") == (" 1", True)
    # a point before a digit is a decimal point, not the end of the sentence
    assert first_sentence(" 1.5 1.5") == (" 1.5", True)
    assert first_sentence(" 2.0. 2.0.") == (" 2.0.", False)
    assert first_sentence(" 2. Yes.") == (" 2.", False)


def previewed(engine: WhisperRecognizer, pcm: bytes) -> bool:
    """Whether the engine calls `pcm` a whole answer once it has heard it in a preview."""
    engine.start()
    engine.feed(pcm)
    engine.preview()
    assert engine._preview is not None
    engine._preview.result()
    whole = engine.complete()
    engine.finish()
    return whole


@pytest.mark.parametrize("voice", VOICES[:2], ids=lambda v: v.name)
def test_an_answer_cut_off_by_a_pause_is_not_whole(engine: WhisperRecognizer,
                                                   voice: Speaker) -> None:
    # Forced scoring hears "at player" as the likeliest phrase it opens, but its text likely
    # ends after "player".
    engine.set_phrases(hear_grammar(None, "point", 10).phrases)
    pause = bytes(int(0.15 * SAMPLE_RATE) * 2)
    assert not previewed(engine, speak("i pointed at player", voice) + pause)
    assert engine.last_scores is not None
    assert engine.last_scores.ends_inside > math.log(ENDS_INSIDE_CHANCE)
    assert previewed(engine, speak("i pointed at player seven", voice) + pause)
    assert engine.last_alternatives[0][0] == "i pointed at player seven"
    assert engine.last_scores.ends_inside < math.log(ENDS_INSIDE_CHANCE)
