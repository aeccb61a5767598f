"""The diagnostic commands: models, devices, doctor, say, hear."""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
import wave
from pathlib import Path

import numpy as np

from voicehost.door import (
    cannot_write,
    file_named,
    folder_there,
    players_allowed,
    refuse,
    settings_given,
)
from voicehost.host.table import settings_from
from voicehost.intents.grammar import Grammar, Intent
from voicehost.intents.understand import reading_of
from voicehost.registry import GAMES, deck_words, grammar_at
from voicehost.speech.base import recognize
from voicehost.speech.factory import AudioSettings
from voicehost.voice import SAMPLE_RATE


def read_wav(path: Path) -> bytes:
    """Any 16-bit PCM WAV → 16 kHz mono int16 bytes; anything else is refused, naming the
    file and what is wrong with it."""
    from voicehost.speech.devices import resample

    if path.is_dir():
        refuse(f"{path} is a folder, not a WAV file.")
    try:
        with wave.open(str(path), "rb") as wav:
            width = wav.getsampwidth()
            if width != 2:
                refuse(f"{path}: not a 16-bit PCM WAV ({8 * width}-bit samples).")
            rate, channels = wav.getframerate(), wav.getnchannels()
            samples = np.frombuffer(wav.readframes(wav.getnframes()), dtype=np.int16)
    except (wave.Error, EOFError) as problem:  # another format, or a file cut short
        refuse(f"{path}: not a 16-bit PCM WAV ({not_pcm(str(problem))}).")
    except OSError as problem:
        refuse(f"{path}: {problem.strerror or problem}.")
    if channels > 1:
        samples = samples.reshape(-1, channels).mean(axis=1).astype(np.int16)
    if rate != SAMPLE_RATE:
        samples = resample(samples, rate, SAMPLE_RATE)
    return samples.astype(np.int16).tobytes()


WAV_FORMATS = {"3": "floating-point samples", "6": "A-law samples", "7": "mu-law samples",
               "85": "MP3 inside"}  # the format codes of WAV files that are not PCM


def not_pcm(problem: str) -> str:
    """What the wave module found wrong, in words."""
    if problem.startswith("unknown format: "):
        code = problem.removeprefix("unknown format: ")
        return WAV_FORMATS.get(code, f"format code {code}")
    if problem == "file does not start with RIFF id":
        return "not a WAV file at all"
    return problem or "it ends too soon"


def hear_grammar(phrases: str | None, decision: str, players: int,
                 game: str = "secret-squad", pouch: int = 0) -> Grammar:
    """`--phrases "a|b"`: each phrase its own intent; else what `game` accepts at
    `decision`, with every command, exactly as the host would listen."""
    if phrases:
        return Grammar.build([(Intent("choose", p.strip()), [p.strip()])
                              for p in phrases.split("|") if p.strip()])
    return grammar_at(game, decision, players, pouch)


def run_hear(args: argparse.Namespace) -> int:
    from voicehost.speech.factory import make_recognizer

    pcm = read_wav(args.wav)
    try:
        grammar = hear_grammar(args.phrases, args.decision, args.players, args.game, args.pouch)
    except ValueError as wrong:
        refuse(f"--decision: {wrong}")
    except IndexError:
        refuse(f"--pouch {args.pouch}: {args.game} has no pouch pair {args.pouch}.")
    started = time.perf_counter()
    recognizer, _ = make_recognizer(args.engine, deck_words(), reading_of, args.model,
                                    whole_utterances=True)
    loaded = time.perf_counter()
    recognizer.set_phrases(grammar.phrases)
    hearing = recognize(recognizer, pcm)
    intent, snap = grammar.match(hearing.text)
    print(json.dumps({
        "text": hearing.text,
        "intent": None if intent is None else intent.name,
        "value": None if intent is None else intent.value,
        "confidence": round(hearing.confidence * snap, 3),
        "engine": recognizer.name,
        "raw_text": hearing.raw_text,
        "timings": {"load_seconds": round(loaded - started, 3),
                    "audio_seconds": round(hearing.audio_seconds, 3),
                    "decode_seconds": round(hearing.decode_seconds, 4),
                    "total_seconds": round(time.perf_counter() - started, 3)},
    }))
    return 0


def run_models(args: argparse.Namespace) -> int:
    from voicehost.folders import models_dir
    from voicehost.speech.models import (
        WHISPER_NAME,
        ModelDownloadError,
        download,
        download_whisper,
    )

    try:
        path = (download_whisper(args.dir) if args.name == WHISPER_NAME
                else download(args.name, args.dir))
    except ModelDownloadError as problem:
        print(problem, file=sys.stderr)
        return 1
    except OSError as problem:  # the models folder cannot be made or written
        refuse(f"cannot put models in {args.dir or models_dir()}: "
               f"{problem.strerror or problem}.")
    print(f"Installed {path}")
    return 0


def run_devices(args: argparse.Namespace) -> int:
    from voicehost.speech.devices import AudioDeviceError, list_devices

    try:
        devices = list_devices()
    except AudioDeviceError as problem:
        print(problem, file=sys.stderr)
        return 1
    if not devices:
        print("No sound devices found.")
    for device in devices:
        marks = [m for m, on in (("default input", device.default_input),
                                 ("default output", device.default_output)) if on]
        print(f"{device.index:3d}  {device.name}  ({device.hostapi}; {device.inputs} in, "
              f"{device.outputs} out, {device.default_rate} Hz)"
              + (f"  [{', '.join(marks)}]" if marks else ""))
    return 0


def doctor_checks(settings: AudioSettings) -> list[tuple[str, bool | None, str]]:
    """(what, fine, what to do) for the microphone, the speaker, the engines and models; fine
    None: an engine that is not there, and not needed by the one in use."""
    from voicehost.speech import devices
    from voicehost.speech.engines import engine_checks

    checks: list[tuple[str, bool | None, str]] = []
    if settings.satellite:
        satellite = satellite_checks(settings.satellite)
        connected = satellite[0][1]  # a loud room still hears; a silent microphone does not
        checks += [*satellite, heard_through(pipeline_check(settings), satellite) if connected
                   else ("hearing", None, "not checked: it goes through the satellite, "
                         "which did not answer above")]
    else:
        microphone: list[tuple[str, bool, str]]
        try:
            microphone = microphone_checks("microphone", devices.record_input(2.0))
        except devices.AudioDeviceError as problem:
            microphone = [("microphone", False, str(problem))]
        checks += [*microphone, heard_through(pipeline_check(settings), microphone)]
        speaker = devices.check_speaker()
        checks.append((f"speaker {speaker.device}", speaker.ok,
                       "" if speaker.problem is None
                       else f"{speaker.problem.what} {speaker.problem.what_to_do}"))
    checks += service_checks(settings)
    checks += engine_checks(settings.reader, settings.model, engine=settings.engine)
    from voicehost.speech.mouth import Mouth, chosen_voice

    voice, fell_back = chosen_voice(settings.voice)
    if fell_back:
        checks.append(("the natural voice (piper joe)", False, fell_back))
    mouth = Mouth(voice=voice)
    try:
        mouth.render("ready")
        checks.append((f"the host's voice: {mouth.voice_name}", True, ""))
    except Exception as problem:  # noqa: BLE001
        checks.append((f"the host's voice: {mouth.voice_name}", False,
                       f"{problem}. On Debian/Ubuntu: apt-get install espeak-ng"))
    return checks


SILENT_MICROPHONE = "digital silence"  # in the level check's line when nothing is heard


def heard_through(pipeline: tuple[str, bool, str], microphone: list[tuple[str, bool, str]]
                  ) -> tuple[str, bool, str]:
    """The hearing pipeline's check, failed where the microphone checked before it hears
    nothing (digital silence, or none to open): a pipeline that loads hears nothing then."""
    what, fine, what_to_do = pipeline
    deaf = [name for name, ok, advice in microphone if not ok and (
        SILENT_MICROPHONE in advice or name in ("microphone", "satellite microphone"))]
    if not fine or not deaf:
        return pipeline
    return (what, False, f"it loads, but hears nothing: {deaf[0]} (above)")


def microphone_checks(what: str, samples: np.ndarray) -> list[tuple[str, bool, str]]:
    """A recording's level, and the room's noise in it."""
    from voicehost.speech import devices

    level = devices.level_dbfs(samples)
    problem = devices.input_level_problem(level)
    return [(f"{what} level {level:.0f} dBFS", problem is None,
             "" if problem is None else f"{problem.what} {problem.what_to_do}"),
            room_check(samples.tobytes())]


def satellite_checks(uri: str) -> list[tuple[str, bool, str]]:
    """Connect to a Wyoming satellite, say what it reports about itself, record two seconds
    of its microphone and play a line through its speaker."""
    from voicehost.speech.devices import AudioDeviceError
    from voicehost.speech.mouth import Mouth
    from voicehost.speech.satellite import Satellite, SatelliteError

    try:
        link = Satellite(uri)
    except ValueError as wrong:
        return [("satellite", False, str(wrong))]
    try:
        link.start()
    except SatelliteError as problem:
        link.stop()
        return [(f"satellite at {uri}", False, str(problem))]
    try:
        about = link.info.get("satellite") or {}
        facts = ", ".join(f"{key} {about[key]}" for key in ("description", "area", "version")
                          if about.get(key))
        checks = [(f"satellite {link.name!r} at {link.address}" + (f" ({facts})" if facts
                                                                    else ""), True, "")]
        frames, deadline = [], time.monotonic() + 2.0
        while time.monotonic() < deadline:
            frame = link.read(0.2)
            if frame is not None:
                frames.append(frame.pcm)
        if not frames:
            return [*checks, ("satellite microphone", False,
                              "it sent no audio in 2 s: does it stream without a wake word?")]
        checks += microphone_checks("satellite microphone",
                                    np.frombuffer(b"".join(frames), dtype=np.int16))
        try:
            played = Mouth(speaker=link.play).say("This is voicehost, checking the speaker.")
            checks.append((f"satellite speaker: played {played.audio_s:.1f} s", True, ""))
        except AudioDeviceError as problem:
            checks.append(("satellite speaker", False, str(problem)))
        return checks
    finally:
        link.stop()


SERVICE_PROBE = "ready to play"


def service_checks(settings: AudioSettings) -> list[tuple[str, bool, str]]:
    """The Wyoming speech services asked for: what they say about themselves, a short
    utterance transcribed (espeak-ng saying SERVICE_PROBE) and a line synthesized."""
    from voicehost.speech.devices import resample
    from voicehost.speech.mouth import Mouth
    from voicehost.speech.remote import (
        ASR_PORT,
        TTS_PORT,
        ServiceError,
        describe_service,
        synthesize,
        transcribe,
    )
    from voicehost.speech.satellite import Address
    from voicehost.words import plain_words

    checks: list[tuple[str, bool, str]] = []
    for kind, uri, port in (("asr", settings.asr, ASR_PORT), ("tts", settings.tts, TTS_PORT)):
        if not uri:
            continue
        try:
            address = Address.parse(uri, default_port=port)
            info = describe_service(address)
            programs = info.asr if kind == "asr" else info.tts
            names = ", ".join(program.name for program in programs) or f"no {kind} program"
            if kind == "asr":
                spoken, rate = Mouth().render_locally(SERVICE_PROBE)
                heard = transcribe(address, resample(spoken, rate, SAMPLE_RATE).tobytes())
                # a service that hears most of a clear line works; one slip is not a fault
                said, words = SERVICE_PROBE.split(), plain_words(heard).split()
                right = sum(word in words for word in said)
                fine = 2 * right > len(said)
                checks.append((f"{kind} {address}: {names}; heard {heard!r} for "
                               f"{SERVICE_PROBE!r}", fine,
                               "" if fine else "it answered, but did not hear a clear line: "
                               "is it an English model?"))
            else:
                samples, rate = synthesize(address, "ready")
                checks.append((f"{kind} {address}: {names}; said 'ready' in "
                               f"{len(samples) / rate:.1f} s", len(samples) > 0, ""))
        except (OSError, TimeoutError, ServiceError, ValueError) as problem:
            checks.append((f"{kind} {uri}", False, f"{problem or type(problem).__name__}: is "
                           "the service running there, and reachable from here?"))
    return checks


def room_check(pcm: bytes) -> tuple[str, bool, str]:
    """How loud the room is right now, heard as the ears hear it between answers."""
    from voicehost.speech.ears import RoomLevel
    from voicehost.speech.endpoint import Endpointer

    endpointer = Endpointer()
    endpointer.feed(pcm)
    room = RoomLevel()
    room.noise_dbfs = endpointer.room_dbfs
    if room.noise_dbfs is None:
        return ("room noise", False, "nothing was recorded")
    what = (f"room noise {room.noise_dbfs:.0f} dBFS at its loud moments; a player at "
            f"{room.speech_dbfs:.0f} dBFS stands {room.speech_dbfs - room.noise_dbfs:.0f} dB "
            "above it")
    if room.too_loud():
        return (what, False, f"too loud to hear one player: players need {room.margin_db:.0f} "
                "dB over the room. Lower the music or the chatter, or move the microphone "
                "closer to the players.")
    return (what, True, "")


def pipeline_check(settings: AudioSettings) -> tuple[str, bool, str]:
    """Which hearing pipeline `voicehost play` would use, and whether it loads."""
    from voicehost.speech.factory import describe_pipeline

    try:
        return (f"hearing: {describe_pipeline(settings)}", True, "")
    except SystemExit as problem:
        return ("hearing", False, str(problem))


def run_doctor(args: argparse.Namespace) -> int:
    checks = doctor_checks(AudioSettings(engine=args.engine, model=args.model,
                                         front_end=args.front_end, voice=args.voice,
                                         satellite=args.satellite, asr=args.asr, tts=args.tts,
                                         deck_words=deck_words(), reader=reading_of))
    marks = {True: "ok ", False: "NO ", None: "-- "}
    for what, fine, what_to_do in checks:
        print(f"{marks[fine]} {what}" + (f": {what_to_do}" if what_to_do else ""))
    return 1 if any(fine is False for _, fine, _ in checks) else 0


def run_say(args: argparse.Namespace) -> int:
    from voicehost.speech.devices import AudioDeviceError
    from voicehost.speech.mouth import Mouth, chosen_voice

    voice, notice = chosen_voice(args.voice)
    if notice:
        print(notice, file=sys.stderr)
    mouth = Mouth(args.rate, args.volume, voice)
    new_file = False
    if args.out:
        folder_there("--out", args.out)
        file_named("--out", args.out, ".wav", "the line is saved as a WAV")
        new_file = not args.out.exists()
        try:  # opened here: the wave module leaves a stack trace behind when it cannot
            args.out.open("ab").close()
        except OSError as problem:
            cannot_write("--out", args.out, problem)
    try:
        if args.out:
            mouth.save(args.text, args.out)
        else:
            mouth.say(args.text)
    except AudioDeviceError as problem:
        print(f"voicehost: error: {problem} (--out FILE.wav saves the line instead.)",
              file=sys.stderr, flush=True)
        return 1
    except ValueError as problem:  # no voice by that name
        if new_file:
            args.out.unlink()
        refuse(f"--voice: {problem}")
    return 0


def run_cards(args: argparse.Namespace) -> int:
    import random

    from voicehost.cards.render import private_count, render
    from voicehost.games.deck import SEEDS, Deck

    folder_there("--out", args.out)
    if args.out.is_dir():
        refuse(f"--out {args.out} is a folder: name the PDF to write in it.")
    file_named("--out", args.out, ".pdf", "the cards are a PDF")
    players_allowed(args.game, args.players)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(SEEDS)
    deck = Deck(args.game, args.players, seed)  # both checked at the door
    try:
        settings = settings_from(GAMES[args.game].table.settings_type, settings_given(args))
    except ValueError as wrong:
        refuse(str(wrong))
    sheet = render(deck, args.paper, settings)
    try:
        sheet.output(str(args.out))
    except OSError as problem:
        cannot_write("--out", args.out, problem)
    pages = f"{sheet.page} page{'' if sheet.page == 1 else 's'}"
    print(f"Deck number {deck.printed}: {private_count(sheet)}, {pages} in {args.out}")
    if args.print:
        send_to_printer(args.out)
    print("Print it one-sided, without opening it (--print does). Take the pages from the "
          "printer as they lie, face down, and fold them as page 1 says before turning any over.")
    given = "".join(f" --set {item}" for item in args.set)
    print(f"Play with: voicehost play {args.game} --cards {deck.number}{given}")
    return 0


def send_to_printer(pdf: Path) -> None:
    """The PDF to the default printer, one-sided, through CUPS's `lp`; refused in one line
    when it cannot be."""
    lp = shutil.which("lp")
    if lp is None:
        refuse(f"--print: this machine has no lp (CUPS: sudo apt install cups-client); {pdf} "
               "is written: print it one-sided.")
    done = subprocess.run([lp, "-o", "sides=one-sided", str(pdf)], capture_output=True,
                          text=True, timeout=60)
    if done.returncode != 0:
        why = (done.stderr.strip().splitlines() or ["it failed"])[-1]
        refuse(f"--print: lp could not print {pdf} ({why}); it is written: print it "
               "one-sided.")
    print(f"Sent to the printer: {done.stdout.strip() or pdf}")


def run(args: argparse.Namespace) -> int:
    handlers = {"hear": run_hear, "models": run_models, "devices": run_devices,
                "doctor": run_doctor, "say": run_say, "cards": run_cards}
    return handlers[args.command](args)
