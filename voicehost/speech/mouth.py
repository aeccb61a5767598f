"""The mouth: piper (joe, the default voice: piper_voice.py) or pyttsx3 (libespeak-ng on Linux,
`--voice espeak`) renders speech, sounddevice plays it.

pyttsx3's espeak driver can only speak through `aplay` or write a WAV file, so the mouth
renders to a temporary WAV with `save_to_file` and plays the samples itself: that way it
knows exactly when the speaker has finished, and can keep the ears shut meanwhile.
"""

from __future__ import annotations

import contextlib
import io
import tempfile
import threading
import time
import wave
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from voicehost.speech.devices import DeviceSpec, Playback, play, sounddevice
from voicehost.speech.ears import Gate
from voicehost.speech.piper_voice import (
    DEFAULT_PIPER_VOICE,
    PIPER_VOICES,
    PiperRenderer,
    PiperVoiceError,
    installed_piper_voices,
)
from voicehost.speech.sounds import RATE as SOUND_RATE
from voicehost.speech.sounds import sound

SYNTHESIS_TIMEOUT_S = 30.0
ESPEAK = "espeak"  # the --voice that names espeak-ng's default voice
# Quieter than this, the start of a line is silence: the synthesizer's lead-in, or the closure
# of a first stop consonant ("Cheetah" opens on 44 ms of it). Played, it only delays the reply.
ONSET_LEVEL = 64  # int16 peak, -54 dBFS
ONSET_KEPT_S = 0.005  # of that silence kept before the first sound, so it starts smoothly
# pyttsx3 hands every mouth the same engine, and espeak is one per process: one at a time.
_ENGINE_LOCK = threading.Lock()


class SpeechSynthesisError(RuntimeError):
    """The text-to-speech engine failed or is missing."""


@dataclass(frozen=True)
class Spoken:
    """Timing of one `say`, in seconds from the call."""

    text: str
    audio_s: float  # length of the speech
    render_s: float  # text → samples
    first_audio_s: float  # call → first sample at the speaker
    total_s: float  # call → return (playback finished, tail not included)


def chosen_voice(setting: str | None) -> tuple[str, str]:
    """The voice a `--voice` setting speaks with, and a notice ("" when none). No setting is
    the default: joe (piper) where it can speak here, else espeak-ng's default voice, saying
    why."""
    if setting is not None:
        return setting, ""
    try:
        PiperRenderer(DEFAULT_PIPER_VOICE).load()
    except PiperVoiceError as problem:
        return ESPEAK, f"Speaking with espeak-ng: {problem}."
    return DEFAULT_PIPER_VOICE, ""


def without_lead_in(samples: np.ndarray, rate: int) -> np.ndarray:
    """`samples` from just before their first sound."""
    sound = np.flatnonzero(np.abs(samples.astype(np.int32)) > ONSET_LEVEL)
    if not len(sound):
        return samples
    return samples[max(0, int(sound[0]) - round(ONSET_KEPT_S * rate)):]


class Mouth:
    """Speaks text aloud; `say` blocks until the speaker has played all of it.

    rate is in words per minute, volume 0..1, voice a piper voice's name ("joe") or an
    espeak-ng voice id or part of its name (an espeak variant such as "+f3" may follow); None
    and "espeak" are espeak-ng's default voice (`chosen_voice` picks the game's default). The
    pyttsx3 engine is created once and reused. While speaking, `gate` is closed, and it stays
    closed `tail_s` after playback.
    """

    def __init__(self, rate: int = 175, volume: float = 1.0, voice: str | None = None,
                 device: DeviceSpec = None, gate: Gate | None = None,
                 tail_s: float = 0.25,
                 speaker: Callable[[np.ndarray, int], Playback] | None = None) -> None:
        if not 0.0 <= volume <= 1.0:
            raise ValueError("volume must be between 0 and 1")
        if rate <= 0 or tail_s < 0:
            raise ValueError("rate must be positive and tail_s not negative")
        # "espeak": espeak-ng's own default voice, named outright
        self.rate, self.volume = rate, volume
        self.voice = None if voice == ESPEAK else voice
        self.device = device
        # where the samples play: the output device, or a satellite's speaker
        self.speaker = speaker or (lambda samples, rate: play(samples, rate, device))
        self._local = speaker is None
        # what turns a line into samples: espeak-ng here, or a Wyoming service (remote.py)
        self.renderer: Callable[[str], tuple[np.ndarray, int]] = self.render_locally
        self.gate = gate or Gate()
        self.tail_s = tail_s
        self._engine: Any = None
        self._voice_id = ("", "")  # (setting, engine voice id) last resolved
        self._errors: list[BaseException] = []
        self._finished = threading.Event()
        self._espeak: Any = None  # pyttsx3's libespeak-ng binding, on Linux
        self._piper = (PiperRenderer(voice, rate, volume) if voice in PIPER_VOICES else None)

    @property
    def voice_name(self) -> str:
        """The voice that speaks, in words: "piper joe", "espeak-ng en-us+f3"."""
        if self._piper is not None:
            return f"piper {self._piper.name}"
        return f"espeak-ng {self.voice or '(its default voice)'}"

    def warm_up(self) -> None:
        """Start the engine and PortAudio now rather than on the first sentence; a voice
        espeak-ng does not have is a ValueError now, not once the game has begun."""
        if self._piper is not None:
            self._piper.load()
        else:
            with _ENGINE_LOCK:
                self._get_engine()
                if self.voice:
                    self._voice_id = (self.voice, self._resolve_voice(self.voice))
        if self._local:
            sounddevice()

    def voices(self) -> list[tuple[str, str]]:
        """(setting, what it is) of every voice installed: the piper voices, then espeak-ng's."""
        with _ENGINE_LOCK:
            espeak = [(v.id.rsplit("/", 1)[-1], f"espeak-ng, {v.name}")
                      for v in self._get_engine().getProperty("voices")]
        return ([(name, "piper, a natural voice"
                  + (" (the default)" if name == DEFAULT_PIPER_VOICE else ""))
                 for name in installed_piper_voices()]
                + [(ESPEAK, "espeak-ng, its default voice")] + espeak)

    def voice_id(self) -> str | None:
        """The engine's id for the `voice` setting (None: the engine's default voice)."""
        with _ENGINE_LOCK:
            self._get_engine()
            return self._voice_for_setting()

    def render(self, text: str) -> tuple[np.ndarray, int]:
        """Speech for `text` as int16 mono samples and their sample rate."""
        if not text.strip():
            return np.zeros(0, dtype=np.int16), 22050
        samples, rate = self.renderer(text)
        return without_lead_in(samples, rate), rate

    def render_locally(self, text: str) -> tuple[np.ndarray, int]:
        """Speech for `text` from piper or pyttsx3 (espeak-ng), as the voice setting says."""
        if not text.strip():
            return np.zeros(0, dtype=np.int16), 22050
        if self._piper is not None:
            return self._piper.render(text)
        with tempfile.TemporaryDirectory(prefix="voicehost-mouth-") as tmp:
            path = Path(tmp) / "speech.wav"
            self._synthesize(text, path)
            with wave.open(str(path)) as wav:
                rate, width = wav.getframerate(), wav.getsampwidth()
                raw = wav.readframes(wav.getnframes())
        if width != 2:
            raise SpeechSynthesisError(f"the engine wrote {8 * width}-bit audio, not 16-bit")
        return np.frombuffer(raw, dtype=np.int16).copy(), rate

    def save(self, text: str, wav_path: str | Path) -> Path:
        """Write the speech for `text` to a WAV file (for `voicehost say TEXT --out WAV`)."""
        samples, rate = self.render(text)
        path = Path(wav_path)
        with wave.open(str(path), "wb") as wav:
            wav.setnchannels(1)
            wav.setsampwidth(2)
            wav.setframerate(rate)
            wav.writeframes(samples.tobytes())
        return path

    def say(self, text: str) -> Spoken:
        """Speak `text`; returns once it has been heard in full. The ears stay shut meanwhile.
        piper's lines play a sentence at a time, each next one rendered while one plays."""
        called = time.monotonic()
        with self.gate.closed(self.tail_s):
            if self._piper is not None and self.renderer == self.render_locally:
                return self._say_by_sentence(text, called)
            samples, rate = self.render(text)
            rendered = time.monotonic()
            if len(samples) == 0:
                return Spoken(text, 0.0, rendered - called, 0.0, rendered - called)
            playback = self.speaker(samples, rate)
        return Spoken(text, playback.seconds, rendered - called,
                      playback.first_audio_at - called, time.monotonic() - called)

    def _say_by_sentence(self, text: str, called: float) -> Spoken:
        assert self._piper is not None
        rate, sentences = self._piper.sample_rate, self._piper.sentences(text)
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="mouth") as renderer:
            upcoming = renderer.submit(next, sentences, None)
            first: tuple[float, float] | None = None  # rendered, first audio
            seconds = 0.0
            while (samples := upcoming.result()) is not None:
                upcoming = renderer.submit(next, sentences, None)
                rendered = time.monotonic()
                if first is None:
                    samples = without_lead_in(samples, rate)
                playback = self.speaker(samples, rate)
                first = first or (rendered - called, playback.first_audio_at - called)
                seconds += playback.seconds
        if first is None:
            return Spoken(text, 0.0, time.monotonic() - called, 0.0, time.monotonic() - called)
        return Spoken(text, seconds, first[0], first[1], time.monotonic() - called)

    def play_sound(self, name: str) -> None:
        """Play one of the host's sounds (sounds.py) with the ears shut meanwhile."""
        with self.gate.closed(self.tail_s):
            self.speaker((sound(name) * self.volume).astype(np.int16), SOUND_RATE)

    def play_pcm(self, pcm: bytes, rate: int = 16000) -> None:
        """Play recorded int16 mono audio (a player's clue) with the ears shut meanwhile."""
        samples = np.frombuffer(pcm, dtype=np.int16)
        with self.gate.closed(self.tail_s):
            if len(samples):
                self.speaker(samples, rate)

    def _synthesize(self, text: str, path: Path) -> None:
        with _ENGINE_LOCK:
            engine = self._get_engine()
            # Settings go straight to the driver: queued through the engine they reach espeak
            # asynchronously, and runAndWait's stop() may cancel them before they apply.
            driver = engine.proxy._driver
            self._wait_until_idle()
            driver.setProperty("rate", self.rate)
            driver.setProperty("volume", self.volume)
            voice_id = self._voice_for_setting()
            if voice_id:
                driver.setProperty("voice", voice_id)
            self._wait_until_idle()
            self._errors.clear()
            self._finished.clear()
            engine.save_to_file(text, str(path))
            # The espeak driver prints "Audio saved to ..." for every file.
            with contextlib.redirect_stdout(io.StringIO()):
                engine.runAndWait()
                # runAndWait returns once synthesis has *started*; the WAV is written later
                # from espeak's own thread, right before "finished-utterance".
                finished = self._finished.wait(SYNTHESIS_TIMEOUT_S)
            if self._errors:
                raise SpeechSynthesisError(f"speech engine failed: {self._errors[0]}")
            if not finished:
                raise SpeechSynthesisError(f"speech engine did not finish {text!r}")
        if not path.exists() or path.stat().st_size <= 44:
            raise SpeechSynthesisError(f"speech engine wrote no audio for {text!r}")

    def _voice_for_setting(self) -> str | None:
        if not self.voice:  # the engine is shared: undo another mouth's voice
            return getattr(self._engine.proxy._driver, "_defaultVoice", None) or None
        if self._voice_id[0] != self.voice:
            self._voice_id = (self.voice, self._resolve_voice(self.voice))
        return self._voice_id[1]

    def _wait_until_idle(self) -> None:
        """Wait for espeak's command queue to drain (it runs commands on its own thread)."""
        if self._espeak is None:
            return
        deadline = time.monotonic() + SYNTHESIS_TIMEOUT_S
        while self._espeak.IsPlaying():
            if time.monotonic() > deadline:
                raise SpeechSynthesisError("speech engine stays busy")
            time.sleep(0.001)

    def _get_engine(self) -> Any:
        if self._engine is None:
            try:
                import pyttsx3

                engine = pyttsx3.init()
            except Exception as exc:  # ImportError, or RuntimeError from a missing libespeak
                raise SpeechSynthesisError(
                    f"could not start the speech engine ({exc}); "
                    "install espeak-ng (apt-get install espeak-ng)") from exc
            engine.connect("error", lambda name=None, exception=None: self._errors.append(
                exception or RuntimeError("unknown error")))
            engine.connect("finished-utterance", lambda **_: self._finished.set())
            if engine.driver_name == "espeak":
                from pyttsx3.drivers import _espeak

                self._espeak = _espeak
            self._engine = engine
        return self._engine

    def _resolve_voice(self, wanted: str) -> str:
        base, plus, variant = wanted.partition("+")
        key = base.strip().lower()
        voices = [(v.id, v.name) for v in self._engine.getProperty("voices")]
        for match in (
            lambda i, n: i.lower() == key or n.lower() == key,
            lambda i, n: i.lower().rsplit("/", 1)[-1] == key,
            lambda i, n: key in n.lower() or key in i.lower(),
        ):
            found = [i for i, n in voices if match(i, n)]
            if found:
                return found[0] + plus + variant
        raise ValueError(f"no voice matches {wanted!r}; try one of: "
                         + ", ".join([*PIPER_VOICES, *(n for _, n in voices[:12])]) + ", ... "
                         "(--voice list names them all)")
