"""Putting audio mode together: the engine (from the registry in engines.py) behind its front
end, the ears and the mouth, as `AudioSettings` ask."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from voicehost.folders import models_dir as models_home
from voicehost.speech.base import Reader, Recognizer
from voicehost.speech.engines import ENGINES
from voicehost.voice import Voice


@dataclass(frozen=True)
class AudioSettings:
    """What audio mode is asked for: how to hear, how to speak, through which devices."""

    engine: str = "auto"  # a name in engines.ENGINES
    model: Path | None = None  # the engine's model directory; None: the engine looks for one
    front_end: str = "none"  # one of frontend.FRONT_ENDS
    rate: int = 175  # speech rate, words per minute
    volume: float = 1.0  # 0 to 1
    # the host's voice (a piper voice's name or an espeak-ng id); None: the default, joe where
    # piper can speak (mouth.chosen_voice)
    voice: str | None = None
    silence: float = 0.5  # seconds of silence that end an answer
    input_device: str | None = None  # index or (part of a) name; None: the system default
    output_device: str | None = None
    satellite: str | None = None  # tcp://HOST:PORT of a Wyoming satellite: its microphone
    # and speaker instead of the devices
    asr: str | None = None  # tcp://HOST:PORT of a Wyoming speech-to-text service
    tts: str | None = None  # tcp://HOST:PORT of a Wyoming text-to-speech service
    captions: bool = True  # show on the console what the host says and what it heard
    sounds: bool = True  # the host's sounds (sounds.py) at a countdown, a reveal, the winner
    record: Path | None = None  # a WAV file that keeps everything the host plays
    deck_words: frozenset[str] = frozenset()  # the games' words said alone (auto's split)
    # how people say the offered phrases (voicehost.intents.understand.reading_of)
    reader: Reader = field(kw_only=True)


def make_recognizer(engine: str, deck_words: frozenset[str], reader: Reader,
                    model: Path | None = None, models_dir: Path | None = None, *,
                    whole_utterances: bool = False) -> tuple[Recognizer, str]:
    """The recognizer `engine` (a name in ENGINES) builds, and a notice ("" when none).
    `deck_words`: the games' words said alone (voicehost.registry.deck_words). `reader`: how
    people say the offered phrases (voicehost.intents.understand.reading_of). `models_dir`:
    where to look for models (None: the user's models folder). `whole_utterances`: each
    utterance is heard alone, as from a file (engines.Build)."""
    return ENGINES[engine].build(model, models_dir or models_home(), whole_utterances,
                                 deck_words, reader)


def make_pipeline(settings: AudioSettings, console: TextIO | None = None
                  ) -> tuple[Recognizer, str]:
    """The recognizer the settings name (or a Wyoming service, with it standing by), hearing
    through their front end (see frontend.py)."""
    recognizer, notice = make_recognizer(settings.engine, settings.deck_words, settings.reader,
                                         settings.model)
    if settings.asr:
        from voicehost.speech.remote import RemoteRecognizer

        recognizer = RemoteRecognizer(settings.asr, recognizer, settings.reader, console)
    if settings.front_end == "none":
        return recognizer, notice
    from voicehost.speech.frontend import FilteredRecognizer, make_front_end

    return FilteredRecognizer(make_front_end(settings.front_end), recognizer), notice


def describe_pipeline(settings: AudioSettings) -> str:
    """The pipeline `voicehost play` would use, in one line."""
    recognizer, _ = make_pipeline(settings)
    source = f"satellite {settings.satellite}" if settings.satellite else "microphone"
    return (f"{source} → energy endpointer with the room-level gate → {recognizer.name}"
            + (" (phrase scoring)" if recognizer.name.endswith("whisper") else "")
            + f" [--engine {settings.engine} --front-end {settings.front_end}]")


def audio_voice_or_notice(settings: AudioSettings, console: TextIO | None = None
                          ) -> tuple[Voice | None, str]:
    """The audio Voice, or None with one sentence saying why text mode it is. `console`: where
    the host's lines go while the speaker is lost (standard output by default). With a
    satellite, SatelliteError when it does not answer: a table that asked for one is not
    sitting at this machine's keyboard."""
    from voicehost.speech.audio_voice import AudioVoice
    from voicehost.speech.devices import AudioDeviceError, find_device
    from voicehost.speech.ears import Ears, Gate
    from voicehost.speech.endpoint import Endpointer, EndpointSettings
    from voicehost.speech.microphone import FrameSource, Microphone
    from voicehost.speech.mouth import Mouth, chosen_voice

    gate = Gate()
    voice, voice_notice = chosen_voice(settings.voice)
    if settings.satellite:  # asked before the recognizer loads: a wrong address fails fast
        from voicehost.speech.satellite import Satellite

        satellite = Satellite(settings.satellite)
        try:
            satellite.start()
        except AudioDeviceError:
            satellite.stop()
            raise
        microphone: FrameSource = satellite
        mouth = Mouth(settings.rate, settings.volume, voice, gate=gate,
                      speaker=satellite.play)
    else:
        microphone = Microphone(settings.input_device)
        try:
            microphone.start()
            find_device(settings.output_device, "output")
        except AudioDeviceError as problem:
            microphone.stop()  # no speaker: text mode must not keep the microphone open
            return None, f"{problem} Playing in text mode: type what the players say."
        mouth = Mouth(settings.rate, settings.volume, voice, settings.output_device,
                      gate)
    recorder = None
    if settings.record is not None:
        from voicehost.speech.recorder import Recorder

        try:
            recorder = Recorder(settings.record)
        except OSError as problem:
            raise ValueError(f"--record {settings.record}: "
                             f"{problem.strerror or problem}.") from None
        mouth.speaker = recorder.around(mouth.speaker)
    recognizer, notice = make_pipeline(settings, console)
    if settings.tts:
        from voicehost.speech.remote import RemoteVoice

        mouth.renderer = RemoteVoice(settings.tts, mouth.render_locally, mouth.voice_name,
                                     console).render
    mouth.warm_up()
    endpointer = Endpointer(EndpointSettings(trailing_silence_s=settings.silence))
    ears = Ears(microphone, endpointer, recognizer, gate)
    return AudioVoice(mouth, ears, console=console, captions=settings.captions,
                      sounds=settings.sounds, recorder=recorder), " ".join(
        n for n in (voice_notice, notice) if n)
