"""Wyoming speech services on another machine (voicehost/speech/remote.py): `--asr`
hears through a speech-to-text service and snaps its transcript onto the moment's phrases,
`--tts` speaks through a text-to-speech service, and either falls back to the local engine,
saying so once, when the service is slow or gone.

The services are the test bench's (voicehost/lab/services.py): the `wyoming` library's own
server classes answering with Whisper tiny.en's free transcription and the piper voice, run as
processes of their own.
"""

from __future__ import annotations

import io
import time
from collections.abc import Iterator

import numpy as np
import pytest

from voicehost.intents.understand import reading_of
from voicehost.lab.room import GrammarSphinx, envelope_match
from voicehost.lab.satellite import free_port
from voicehost.lab.services import ServiceProcess, piper_render
from voicehost.lab.speakers import Speaker, speak
from voicehost.speech.devices import resample
from voicehost.speech.factory import AudioSettings
from voicehost.speech.mouth import Mouth
from voicehost.speech.remote import REMOTE_TIMEOUT_S, RemoteRecognizer, RemoteVoice
from voicehost.tools import service_checks
from voicehost.voice import SAMPLE_RATE

PLAYER = Speaker("player", "en-us", 50, 165)
POINTS = ["player one", "player two", "player three", "owl", "fox", "myself"]
LINE = "Fox, is that right? Say yes or no."


@pytest.fixture(scope="module")
def asr() -> Iterator[ServiceProcess]:
    service = ServiceProcess("asr")
    yield service
    service.stop()


@pytest.fixture(scope="module")
def tts() -> Iterator[ServiceProcess]:
    service = ServiceProcess("tts")
    yield service
    service.stop()


def hear(recognizer: RemoteRecognizer, said: str, phrases: list[str]) -> str:
    recognizer.set_phrases(phrases)
    recognizer.start()
    recognizer.feed(speak(said, PLAYER))
    return recognizer.finish().text


def test_a_transcript_is_snapped_onto_the_moments_phrases(asr: ServiceProcess) -> None:
    console = io.StringIO()
    recognizer = RemoteRecognizer(asr.uri, GrammarSphinx(), reading_of, console)
    assert hear(recognizer, "player three", POINTS) == "player three"
    assert hear(recognizer, "myself", POINTS) == "myself"
    # heard right by the service, but not an option now: not understood, never the nearest
    assert hear(recognizer, "player three", ["player one", "player two"]) == ""
    assert recognizer.fallback.failures == 0 and console.getvalue() == ""


def test_a_slow_service_is_replaced_by_the_local_engine_and_said_once() -> None:
    slow = ServiceProcess("asr", delay_s=REMOTE_TIMEOUT_S + 3)
    try:
        console = io.StringIO()
        recognizer = RemoteRecognizer(slow.uri, GrammarSphinx(), reading_of, console)
        began = time.monotonic()
        assert hear(recognizer, "player three", POINTS) == "player three"  # pocketsphinx
        assert time.monotonic() - began < REMOTE_TIMEOUT_S + 1.5
        began = time.monotonic()
        assert hear(recognizer, "player two", POINTS) == "player two"
        assert time.monotonic() - began < 1.0  # the slow service is not waited for again
        assert console.getvalue().count("did not answer in time") == 1
        assert "hearing with pocketsphinx" in console.getvalue()
    finally:
        slow.stop()


def test_no_service_at_all_is_the_local_engine_at_once() -> None:
    console = io.StringIO()
    recognizer = RemoteRecognizer(f"tcp://127.0.0.1:{free_port()}", GrammarSphinx(), reading_of,
                                  console)
    began = time.monotonic()
    assert hear(recognizer, "myself", POINTS) == "myself"
    assert time.monotonic() - began < 2.0
    assert console.getvalue().count("did not answer in time") == 1


def test_the_hosts_lines_are_spoken_by_the_service(tts: ServiceProcess) -> None:
    mouth = Mouth()
    voice = RemoteVoice(tts.uri, mouth.render_locally, mouth.voice_name)
    samples, rate = voice.render(LINE)
    served = resample(samples, rate, SAMPLE_RATE)
    piper, piper_rate = piper_render(LINE)
    espeak, espeak_rate = mouth.render_locally(LINE)
    heard = np.concatenate([served, np.zeros(SAMPLE_RATE, np.int16)]).tobytes()
    like_piper = envelope_match(heard, resample(piper, piper_rate, SAMPLE_RATE))
    like_espeak = envelope_match(heard, resample(espeak, espeak_rate, SAMPLE_RATE))
    assert like_piper > 0.95 and like_espeak < 0.8, (like_piper, like_espeak)
    assert voice.fallback.failures == 0


def test_a_silent_tts_service_leaves_the_host_speaking_its_own_voice() -> None:
    console = io.StringIO()
    mouth = Mouth(voice="joe")
    voice = RemoteVoice(f"tcp://127.0.0.1:{free_port()}", mouth.render_locally,
                        mouth.voice_name, console)
    mouth.renderer = voice.render
    samples, rate = mouth.render(LINE)
    assert len(samples) / rate > 1.0  # joe said it
    assert "speaking with piper joe" in console.getvalue()


def test_doctor_checks_the_services(asr: ServiceProcess, tts: ServiceProcess) -> None:
    checks = service_checks(AudioSettings(reader=reading_of, asr=asr.uri, tts=tts.uri))
    assert [fine for _, fine, _ in checks] == [True, True], checks
    assert checks[0][0].startswith(f"asr {asr.uri}: voicehost-whisper; heard ")
    assert checks[0][0].endswith(" for 'ready to play'")
    assert checks[1][0].startswith(f"tts {tts.uri}: voicehost-piper; said 'ready' in")
    gone = service_checks(AudioSettings(reader=reading_of, asr=f"tcp://127.0.0.1:{free_port()}"))
    assert len(gone) == 1 and not gone[0][1] and "is the service running" in gone[0][2]


@pytest.mark.parametrize(("heard", "fine"), [("Ready to play.", True), ("ready to pay", True),
                                             ("play your free", False), ("", False)])
def test_doctor_passes_a_service_that_hears_most_of_its_line(
        asr: ServiceProcess, monkeypatch: pytest.MonkeyPatch, heard: str, fine: bool) -> None:
    from voicehost.speech import remote

    monkeypatch.setattr(remote, "transcribe", lambda address, pcm: heard)
    [(what, passed, what_to_do)] = service_checks(AudioSettings(reader=reading_of, asr=asr.uri))
    assert passed is fine and f"heard {heard!r} for 'ready to play'" in what
    assert ("English model" in what_to_do) is not fine
