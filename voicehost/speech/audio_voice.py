"""Audio mode: the mouth speaks through the speaker, the ears listen through the microphone."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import replace

from voicehost.speech.base import recognize
from voicehost.speech.ears import Ears
from voicehost.speech.mouth import Mouth
from voicehost.voice import Hearing, Recording


class AudioVoice:
    """The host's Voice over real devices. Keeps the timings a benchmark needs."""

    def __init__(self, mouth: Mouth, ears: Ears, listen_timeout_s: float = 12.0) -> None:
        self.mouth = mouth
        self.ears = ears
        self.listen_timeout_s = listen_timeout_s
        self.last_speech_ended_at: float | None = None
        self.reply_latencies: list[float] = []  # player stopped → host's reply is audible
        self.response_times: list[float] = []  # player stopped → text and confidence ready

    def say(self, text: str) -> None:
        called = time.monotonic()
        spoken = self.mouth.say(text)
        if self.last_speech_ended_at is not None:
            first_audio_at = called + spoken.first_audio_s
            self.reply_latencies.append(first_audio_at - self.last_speech_ended_at)
            self.last_speech_ended_at = None

    def listen(self, phrases: Sequence[str], timeout_s: float | None = None) -> Hearing | None:
        heard = self.ears.listen(phrases, self.listen_timeout_s if timeout_s is None
                                 else timeout_s)
        if heard is None:
            return None
        self.last_speech_ended_at = heard.speech_ended_at
        self.response_times.append(heard.response_s)
        return replace(heard.hearing, response_seconds=heard.response_s, snr_db=heard.snr_db)

    def record(self, phrases: Sequence[str]) -> Recording | None:
        heard = self.ears.listen(phrases, self.listen_timeout_s, keep_audio=True)
        if heard is None:
            return None
        self.last_speech_ended_at = heard.speech_ended_at
        hearing = replace(heard.hearing, response_seconds=heard.response_s)
        recognizer = self.ears.recognizer
        if hearing.text or not getattr(recognizer, "open_vocabulary", False):
            return Recording(hearing, heard.pcm)
        recognizer.set_phrases(None)  # type: ignore[arg-type]  # open vocabulary (vosk)
        open_hearing = recognize(recognizer, heard.pcm)
        return Recording(hearing, heard.pcm, open_hearing.text, open_hearing.confidence)

    def play(self, pcm: bytes) -> None:
        self.mouth.play_pcm(pcm)

    def too_loud(self) -> bool:
        return self.ears.room.too_loud()

    def close(self) -> None:
        self.ears.close()
