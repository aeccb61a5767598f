"""Audio mode: the mouth speaks through the speaker, the ears listen through the microphone.

The devices can come and go. A lost microphone is MicrophoneLost for the host (which says so
and waits in `wait_for_microphone`); a lost speaker is no reason to stop: its lines go to the
console until it plays again.
"""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TextIO

from voicehost.speech.base import recognize
from voicehost.speech.devices import AudioDeviceError
from voicehost.speech.ears import Ears
from voicehost.speech.mouth import Mouth
from voicehost.speech.recorder import Recorder
from voicehost.voice import SAMPLE_RATE, SAMPLE_WIDTH, Hearing, Recording

# A lost speaker is tried again after this long: a try can cost seconds (a speaker that
# stopped taking audio is waited for), a line every few seconds must not.
SPEAKER_RETRY_S = 30.0


class AudioVoice:
    """The host's Voice over real devices."""

    typed = False

    def __init__(self, mouth: Mouth, ears: Ears, listen_timeout_s: float = 12.0,
                 console: TextIO | None = None, captions: bool = False,
                 sounds: bool = True, recorder: Recorder | None = None) -> None:
        self.mouth = mouth
        self.recorder = recorder  # --record: closed with the voice
        self.sounds = sounds  # False: --sounds off
        self.ears = ears
        self.listen_timeout_s = listen_timeout_s
        self.console = console or sys.stdout  # where the lines go while the speaker is lost
        self.captions = captions  # the console also shows every line said and what was heard
        self.speaker_lost_at: float | None = None  # monotonic time of the last failure

    def say(self, text: str) -> None:
        self._to_speaker(lambda: self.mouth.say(text), text)

    def listen(self, phrases: Sequence[str], timeout_s: float | None = None) -> Hearing | None:
        heard = self.ears.listen(phrases, self.listen_timeout_s if timeout_s is None
                                 else timeout_s)
        self._caption_heard(heard.hearing.text if heard is not None else None)
        if heard is None:
            return None
        return replace(heard.hearing, response_seconds=heard.response_s, snr_db=heard.snr_db)

    def record(self, phrases: Sequence[str]) -> Recording | None:
        heard = self.ears.listen(phrases, self.listen_timeout_s, keep_audio=True)
        if heard is None:
            self._caption_heard(None)
            return None
        hearing = replace(heard.hearing, response_seconds=heard.response_s)
        recognizer = self.ears.recognizer
        if hearing.text or not getattr(recognizer, "open_vocabulary", False):
            self._caption_heard(hearing.text)
            return Recording(hearing, heard.pcm)
        recognizer.set_phrases(None)  # type: ignore[arg-type]  # open vocabulary (vosk)
        open_hearing = recognize(recognizer, heard.pcm)
        self._caption_heard(open_hearing.text)
        return Recording(hearing, heard.pcm, open_hearing.text, open_hearing.confidence)

    def play(self, pcm: bytes) -> None:
        seconds = len(pcm) / SAMPLE_WIDTH / SAMPLE_RATE
        self._to_speaker(lambda: self.mouth.play_pcm(pcm),
                         f"[a recording would play here, {seconds:.1f} s]")

    def sound(self, name: str) -> None:
        """Play the sound; none while the speaker is lost (the next line says so), and no
        caption: the captions are the words."""
        if not self.sounds or self.speaker_lost_at is not None:
            return
        with contextlib.suppress(AudioDeviceError):
            self.mouth.play_sound(name)

    def too_loud(self) -> bool:
        return self.ears.room.too_loud()

    def wait_for_microphone(self) -> None:
        self.ears.microphone.reopen()
        self.speaker_lost_at = None  # a satellite's speaker comes back with its microphone

    def close(self) -> None:
        self.ears.close()
        if self.recorder is not None:
            self.recorder.close()

    def _to_speaker(self, speak: Callable[[], object], text: str) -> None:
        """`speak()`, or `text` on the console while the speaker is lost."""
        lost_at = self.speaker_lost_at
        if lost_at is not None and time.monotonic() - lost_at < SPEAKER_RETRY_S:
            self._show(text)
            return
        if self.captions:
            self._show(text)
        try:
            speak()
        except AudioDeviceError as problem:
            if lost_at is None:
                self._show(f"(The speaker is lost: {problem.problem} The host's lines are "
                           "shown here until it plays again.)")
            self.speaker_lost_at = time.monotonic()
            if not self.captions:
                self._show(text)
            return
        if lost_at is not None:
            self.speaker_lost_at = None
            self._show("(The speaker plays again.)")

    def _caption_heard(self, text: str | None) -> None:
        if self.captions:
            self._show(f"  (heard: {text})" if text else "  (heard nothing)")

    def _show(self, text: str) -> None:
        print(text, file=self.console, flush=True)
