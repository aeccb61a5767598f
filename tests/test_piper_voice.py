"""The host's neural voice (voicehost/speech/piper_voice.py): piper with the bundled joe voice,
heard back by the real Whisper engine, and its files' pinning."""

from __future__ import annotations

import subprocess
import sys
import time
import wave
from pathlib import Path

import numpy as np
import pytest
import soxr

from voicehost.intents.understand import reading_of
from voicehost.lab.room import Room, RoomRecording
from voicehost.speech import piper_voice
from voicehost.speech.base import recognize
from voicehost.speech.mouth import Mouth, chosen_voice
from voicehost.speech.piper_voice import PiperRenderer, PiperVoiceError
from voicehost.speech.whisper_engine import WhisperRecognizer
from voicehost.voice import SAMPLE_RATE


def heard(samples: np.ndarray, rate: int) -> str:
    """What Whisper writes freely for the line."""
    engine = WhisperRecognizer(reader=reading_of)
    engine.set_phrases(None)
    pcm = soxr.resample(samples.astype(np.float32) / 32768.0, rate, SAMPLE_RATE)
    return recognize(engine, (pcm * 32767).astype("<i2").tobytes()).raw_text


def heard_among(samples: np.ndarray, rate: int, phrases: list[str]) -> str:
    """Which of `phrases` Whisper hears in the line, as the host hears an answer ("" if none
    passes its confidence floor)."""
    engine = WhisperRecognizer(reader=reading_of)
    engine.set_phrases(phrases)
    pcm = soxr.resample(samples.astype(np.float32) / 32768.0, rate, SAMPLE_RATE)
    return recognize(engine, (pcm * 32767).astype("<i2").tobytes()).text


def test_say_speaks_with_joe_by_default_and_whisper_hears_the_line(tmp_path: Path) -> None:
    out = tmp_path / "line.wav"
    done = subprocess.run([sys.executable, "-m", "voicehost.cli", "say",
                           "Cheetah, yes or no?", "--out", str(out)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert chosen_voice(None) == ("joe", "")
    with wave.open(str(out)) as wav:
        rate = wav.getframerate()
        samples = np.frombuffer(wav.readframes(wav.getnframes()), dtype=np.int16)
    assert rate == 22050 and 0.8 < len(samples) / rate < 3.0
    # among lines of its length, as the host hears: tiny.en's free transcript of one line of
    # joe's varies with piper's noise ("yes we're now" in about one render in eight)
    assert heard_among(samples, rate, ["cheetah yes or no", "robin it is your turn",
                                       "the scores please", "player three you pick"]
                       ) == "cheetah yes or no"


def test_the_rate_and_volume_settings_reach_piper() -> None:
    line = "Player three, it is your turn."
    slow, rate = Mouth(rate=110, voice="joe").render(line)
    fast, _ = Mouth(rate=260, voice="joe").render(line)
    assert len(slow) > 1.5 * len(fast)  # pauses are capped alike at any rate
    quiet, _ = Mouth(volume=0.25, voice="joe").render(line)
    normal, _ = Mouth(voice="joe").render(line)
    assert np.abs(quiet).max() < 0.4 * np.abs(normal).max()
    assert "your turn" in heard(normal, rate)


def test_a_changed_voice_file_is_refused(monkeypatch: pytest.MonkeyPatch,
                                         tmp_path: Path) -> None:
    package, pinned = piper_voice.PIPER_VOICES["joe"]
    for changed in pinned:
        wrong = dict(pinned, **{changed: "0" * 64})
        monkeypatch.setitem(piper_voice.PIPER_VOICES, "joe", (package, wrong))
        monkeypatch.setenv("VOICEHOST_MODELS", str(tmp_path))  # no 8-bit form made yet
        piper_voice._loaded.cache_clear()
        try:
            with pytest.raises(PiperVoiceError, match=f"{changed} does not match"):
                PiperRenderer("joe").render("hello")
        finally:
            piper_voice._loaded.cache_clear()
    assert not list(tmp_path.rglob("*.onnx"))


def test_the_8bit_form_is_made_once_and_made_again_when_changed(tmp_path: Path) -> None:
    made = piper_voice.eight_bit_model("joe", tmp_path)
    stamp = made.with_name(made.name + ".sha256")
    first, when = stamp.read_text(), made.stat().st_mtime_ns
    assert made.stat().st_size < 0.45 * piper_voice._bundle("joe")[0].stat().st_size
    assert piper_voice.eight_bit_model("joe", tmp_path) == made
    assert made.stat().st_mtime_ns == when  # checked, not made again
    with made.open("r+b") as f:
        f.seek(made.stat().st_size // 2)
        f.write(b"\0" * 64)
    piper_voice.eight_bit_model("joe", tmp_path)
    assert stamp.read_text() == first  # made again, the same bytes as before
    assert sorted(p.name for p in tmp_path.iterdir()) == [made.name, stamp.name]


def test_without_piper_the_default_voice_is_espeak_saying_why(
        monkeypatch: pytest.MonkeyPatch) -> None:
    _, pinned = piper_voice.PIPER_VOICES["joe"]
    monkeypatch.setitem(piper_voice.PIPER_VOICES, "joe", ("no_such_voice_package", pinned))
    piper_voice._loaded.cache_clear()
    try:
        voice, notice = chosen_voice(None)
        assert voice == "espeak"
        assert notice == ("Speaking with espeak-ng: the piper voice joe is not installed "
                          "(no_such_voice_package is missing; scripts/setup.sh installs it).")
        assert chosen_voice("joe") == ("joe", "")  # asked for by name: its own error, later
    finally:
        piper_voice._loaded.cache_clear()


@pytest.mark.parametrize("text", [
    "Everyone, pull your card out of its sleeve and compare it with your neighbours' cards, "
    "then look around the table carefully, because one of you had a different card.",
    "Cheetah, yup or nope?",
    "Red squad: answer nope if you would rather stay at home than go to a party with "
    "strangers tonight",
])
def test_a_sentence_is_rendered_in_pieces_cut_between_words(text: str) -> None:
    voice = piper_voice._loaded("joe")
    for sentence in voice.phonemize(text):
        cut = piper_voice.pieces(sentence)
        assert all(0 < len(piece) <= piper_voice.MOST_PHONEMES for piece in cut)
        assert all(piece[0] != " " and piece[-1] != " " for piece in cut)
        assert " ".join("".join(piece) for piece in cut) == "".join(sentence)
        if len(sentence) <= piper_voice.MOST_PHONEMES:
            assert cut == [sentence]


def test_a_cut_prefers_a_comma_in_the_second_half() -> None:
    words = list("aaaa bbbb cccc dddd, eeee ffff gggg hhhh iiii jjjj")
    assert ["".join(p) for p in piper_voice.pieces(words, 30)] == [
        "aaaa bbbb cccc dddd,", "eeee ffff gggg hhhh iiii jjjj"]
    early = list("aa, bbbb cccc dddd eeee ffff gggg hhhh iiii jjjj")
    assert ["".join(p) for p in piper_voice.pieces(early, 30)] == [
        "aa, bbbb cccc dddd eeee", "ffff gggg hhhh iiii jjjj"]


def test_voice_list_names_joe_first_and_the_espeak_voices() -> None:
    done = subprocess.run([sys.executable, "-m", "voicehost.cli", "say", "--voice", "list"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    rows = done.stdout.splitlines()
    assert rows[0].split() == ["joe", "piper,", "a", "natural", "voice", "(the", "default)"]
    assert rows[1].split()[:2] == ["espeak", "espeak-ng,"]
    assert any(row.startswith("en-us ") and "espeak-ng" in row for row in rows)


def test_an_unknown_voice_is_one_line_naming_joe(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "voicehost.cli", "say", "--voice", "no-such",
                           "hello", "--out", str(tmp_path / "x.wav")],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert "joe" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "x.wav").exists()


@pytest.mark.room
def test_joe_speaks_into_the_room_a_sentence_at_a_time(room: Room) -> None:
    """The first sentence plays while the rest renders: the first sound comes as soon as the
    first sentence is rendered, and the whole line is heard, no sentence lost or doubled."""
    line = ("Round two. Cheetah, it is your turn. Add a card to a module, discard one, "
            "or block a player.")
    mouth = Mouth(device=room.device, voice="joe")
    mouth.warm_up()
    whole, rate = mouth.render(line)
    with RoomRecording() as recording:
        spoken = mouth.say(line)
        time.sleep(0.3)
    assert spoken.audio_s == pytest.approx(len(whole) / rate, rel=0.1)  # piper's pace varies
    assert spoken.render_s < 0.5 * spoken.audio_s  # the first sentence, not the whole line
    assert spoken.total_s < spoken.audio_s + 0.6  # no long gap between the sentences
    loud = recording.loud()
    assert loud and loud[-1] - loud[0] == pytest.approx(spoken.audio_s, abs=0.6)


def test_voice_espeak_is_espeak_ngs_default_voice() -> None:
    named, default = Mouth(voice="espeak"), Mouth()
    assert named.voice_name == default.voice_name == "espeak-ng (its default voice)"
    assert named.voice_id() == default.voice_id() != Mouth(voice="en-us+f3").voice_id()
    samples, rate = named.render("Cheetah, yes or no?")
    assert "yes or no" in heard(samples, rate)


def host_sentences(folder: Path, longest: int = 24, others: int = 12) -> list[str]:
    """Distinct sentences the host says in a seeded game of each title: the longest, and a
    few others."""
    import random

    from voicehost.lab.talk import breaths
    from voicehost.lab.tidy_table import tidy_game

    said = {b for game in ("ferret-out", "secret-squad", "secret-operation")
            for text in tidy_game(game, 5, 1, folder).said if not text.startswith("[")
            for b in breaths(text)}
    ordered = sorted(said, key=lambda s: (-len(s.split()), s))
    return ordered[:longest] + random.Random(1).sample(ordered[longest:], others)


def inner_pauses(samples: np.ndarray, rate: int) -> list[float]:
    """Each silence between a line's first and last sound, in seconds: its 10 ms frames 40 dB
    or more under its loudest."""
    size = rate // 100
    frames = samples[:len(samples) // size * size].astype(np.float64).reshape(-1, size)
    power = (frames ** 2).mean(axis=1) + 1e-9
    quiet = power < power.max() * 1e-4
    sounding = np.flatnonzero(~quiet)
    pauses, run = [], 0
    for frame in quiet[sounding[0]:sounding[-1] + 1]:
        if frame:
            run += 1
        elif run:
            pauses.append(run / 100)
            run = 0
    return pauses


def test_joe_says_each_sentence_as_one_without_seams(tmp_path: Path) -> None:
    """Every sentence of seeded games: no silence inside it over 120 ms, its pieces within
    2 dB of each other, no sample over -1 dBFS."""
    renderer = PiperRenderer("joe")
    rate, worst = renderer.sample_rate, (0.0, 0.0, -120.0)
    for sentence in host_sentences(tmp_path):
        pieces = list(renderer.sentences(sentence))
        whole = np.concatenate(pieces)
        levels = [piper_voice.speech_level(p.astype(np.float64) / 32768.0, rate)
                  for p in pieces if len(p) >= rate // 10]
        pause = max(inner_pauses(whole, rate), default=0.0)
        spread = max(levels) - min(levels) if levels else 0.0
        peak = 20 * np.log10(np.abs(whole.astype(np.float64)).max() / 32768.0)
        assert pause <= 0.12, (sentence, pause)
        assert spread < 2.0, (sentence, levels)
        assert peak <= -1.0, (sentence, peak)
        worst = (max(worst[0], pause), max(worst[1], spread), max(worst[2], peak))
    print(f"\njoe: longest inner pause {worst[0] * 1000:.0f} ms, level spread "
          f"{worst[1]:.2f} dB, peak {worst[2]:.2f} dBFS")


def test_the_seam_check_hears_a_long_pause_and_a_step_in_level() -> None:
    rate = 22050
    tone = np.sin(np.arange(rate // 2) * 2 * np.pi * 220 / rate) * 8000
    gap = np.zeros(rate // 5)
    assert max(inner_pauses(np.concatenate([tone, gap, tone]), rate)) == pytest.approx(0.2,
                                                                                     abs=0.02)
    assert inner_pauses(tone, rate) == []
    loud, soft = tone / 32768.0, tone / 32768.0 * 10 ** (-3 / 20)
    step = piper_voice.speech_level(loud, rate) - piper_voice.speech_level(soft, rate)
    assert step == pytest.approx(3.0, abs=0.01)
