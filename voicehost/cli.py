"""The `voicehost` command."""

from __future__ import annotations

import argparse
import itertools
import random
import sys
import time
from pathlib import Path
from typing import NoReturn, TextIO

from voicehost.door import refuse, settings_given
from voicehost.games.deck import SEEDS
from voicehost.games.printed import ASK
from voicehost.host.events import EventStream
from voicehost.host.host import command_groups
from voicehost.host.table import Seats
from voicehost.intents.grammar import Grammar, one_slip_apart
from voicehost.registry import GAMES
from voicehost.session import (
    find_save,
    list_saves,
    new_journal,
    new_table,
    open_saved,
    resume,
    start,
)
from voicehost.speech.engines import ENGINES, MODELS_DIR
from voicehost.speech.factory import AudioSettings
from voicehost.speech.frontend import FRONT_ENDS
from voicehost.speech.text_voice import TextVoice
from voicehost.store.journal import Journal, JournalError
from voicehost.voice import Voice

AUDIO = AudioSettings()  # audio mode's defaults


def add_engine_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--engine", choices=tuple(ENGINES), default=AUDIO.engine)


def add_voice_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--io", choices=("audio", "text"), default="audio",
                        help="audio: microphone and speaker; text: stdin and stdout")
    add_engine_option(parser)
    parser.add_argument("--front-end", choices=FRONT_ENDS, default=AUDIO.front_end,
                        help="noise suppression before the recognizer")
    parser.add_argument("--model", type=Path, help="a vosk model directory")
    parser.add_argument("--rate", type=int, default=AUDIO.rate,
                        help="speech rate, words per minute")
    parser.add_argument("--volume", type=float, default=AUDIO.volume,
                        help="speech volume, 0 to 1")
    parser.add_argument("--voice", default=None, help="text-to-speech voice (name or id)")
    parser.add_argument("--silence", type=float, default=AUDIO.silence,
                        help="seconds of silence that end an answer")
    parser.add_argument("--input-device", default=None)
    parser.add_argument("--output-device", default=None)
    parser.add_argument("--satellite", default=None, metavar="tcp://HOST:PORT",
                        help="play through a Wyoming satellite's microphone and speaker "
                             "(wyoming-satellite, port 10700) instead of this machine's")
    parser.add_argument("--asr", default=None, metavar="tcp://HOST:PORT",
                        help="hear through a Wyoming speech-to-text service (e.g. "
                             "wyoming-faster-whisper, port 10300); --engine stands by")
    parser.add_argument("--tts", default=None, metavar="tcp://HOST:PORT",
                        help="speak through a Wyoming text-to-speech service (e.g. "
                             "wyoming-piper, port 10200); espeak-ng stands by")
    parser.add_argument("--journal", type=Path, default=None,
                        help="the save file (default: a new one in "
                             "~/.local/share/voicehost/games/; see voicehost games)")
    parser.add_argument("--events", default=None, help="write JSON Lines events here (- = stdout)")


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="voicehost", description="An offline voice game host.")
    commands = top.add_subparsers(dest="command", required=True)

    play = commands.add_parser("play", help="start a game")
    play.add_argument("game", choices=sorted(GAMES), nargs="?", default="secret-squad")
    play.add_argument("--players", type=int, default=None,
                      help="how many play (default 4, or the count of the --cards deck)")
    play.add_argument("--cards", nargs="?", const=ASK, default=None, metavar="DECK",
                      help="play with printed cards (voicehost cards): their deck number, or "
                           "no number to have the host ask for it")
    play.add_argument("--names", default=None, help="comma-separated seat names")
    play.add_argument("--seed", type=int, default=None)
    play.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                      help="a game setting, e.g. rounds=3 (Secret Squad); see the README")
    play.add_argument("--resume", action="store_true",
                      help="carry on the latest unfinished game instead")
    play.set_defaults(save=None)
    add_voice_options(play)

    again = commands.add_parser("resume", help="carry on a saved game")
    again.add_argument("save", nargs="?", default=None, metavar="ID",
                       help="which (voicehost games lists them; default: the latest unfinished)")
    add_voice_options(again)

    commands.add_parser("games", help="list the saved games")

    models = commands.add_parser("models", help="manage recognizer models")
    models_commands = models.add_subparsers(dest="models_command", required=True)
    download = models_commands.add_parser(
        "download", help="fetch a vosk model, or whisper-tiny.en (the official conversion)")
    download.add_argument("name", nargs="?", default="vosk-model-small-en-us-0.15")
    download.add_argument("--dir", type=Path, default=MODELS_DIR)

    commands.add_parser("devices", help="list microphones and speakers")
    doctor = commands.add_parser("doctor", help="check microphone, speaker, engines, models")
    doctor.add_argument("--model", type=Path)
    add_engine_option(doctor)
    doctor.add_argument("--front-end", choices=FRONT_ENDS, default=AUDIO.front_end)
    doctor.add_argument("--satellite", default=None, metavar="tcp://HOST:PORT",
                        help="check a Wyoming satellite instead of this machine's devices")
    doctor.add_argument("--asr", default=None, metavar="tcp://HOST:PORT",
                        help="check a Wyoming speech-to-text service")
    doctor.add_argument("--tts", default=None, metavar="tcp://HOST:PORT",
                        help="check a Wyoming text-to-speech service")

    say = commands.add_parser("say", help="speak a line (or save it to a WAV)")
    say.add_argument("text")
    say.add_argument("--out", type=Path)
    say.add_argument("--rate", type=int, default=175)
    say.add_argument("--volume", type=float, default=1.0)
    say.add_argument("--voice", default=None)

    hear = commands.add_parser("hear", help="recognize a WAV file, print JSON")
    hear.add_argument("wav", type=Path)
    hear.add_argument("--phrases", default=None, help='e.g. "yup|nope|repeat"')
    add_engine_option(hear)
    hear.add_argument("--model", type=Path)
    hear.add_argument("--decision", default="answer",
                      help="listen as the host does for: answer, point, squad, ready, confirm, "
                           "deck_number (a group of three digits)")
    hear.add_argument("--players", type=int, default=10)
    hear.add_argument("--game", choices=sorted(GAMES),
                      default="secret-squad",
                      help="whose decisions --decision names (Ferret Out: number, accuse, "
                           "guess, weasel, guess_right, study; Secret Operation: "
                           "first_player, turn, reveal)")
    hear.add_argument("--pouch", type=int, default=0,
                      help="Ferret Out guess: the pouch pair whose twelve words are offered")

    cards = commands.add_parser("cards", help="print private cards (PDF) for phone-free play")
    cards.add_argument("game", choices=sorted(GAMES))
    cards.add_argument("--players", type=int, required=True)
    cards.add_argument("--seed", type=int, default=None,
                       help=f"0 to {SEEDS - 1} (default: random)")
    cards.add_argument("--paper", choices=("a4", "letter"), default="a4")
    cards.add_argument("--out", type=Path, required=True, help="the PDF to write")
    cards.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                       help="the settings you will play with (Ferret Out: end=15 or end=20 "
                            "prints more rows)")
    return top


def open_events(target: str | None) -> EventStream:
    if target is None:
        return EventStream(None)
    out: TextIO = sys.stdout if target == "-" else open(target, "a", encoding="utf-8")  # noqa: SIM115
    return EventStream(out)


def make_voice(args: argparse.Namespace, say_to: TextIO) -> Voice:
    if args.io == "text":
        for option in ("satellite", "asr", "tts"):
            if getattr(args, option):
                refuse(f"--{option} is for audio mode: it needs --io audio.")
        return TextVoice(sys.stdin, say_to)
    from voicehost.speech.devices import AudioDeviceError
    from voicehost.speech.factory import audio_voice_or_notice

    settings = AudioSettings(
        engine=args.engine, model=args.model, front_end=args.front_end, rate=args.rate,
        volume=args.volume, voice=args.voice, silence=args.silence,
        input_device=args.input_device, output_device=args.output_device,
        satellite=args.satellite, asr=args.asr, tts=args.tts)
    try:
        voice, notice = audio_voice_or_notice(settings, console=say_to)
    except (AudioDeviceError, ValueError) as problem:  # a satellite that does not answer
        refuse(str(problem))
    if notice:
        print(notice, file=sys.stderr, flush=True)
    return voice if voice is not None else TextVoice(sys.stdin, say_to)


def seats_for(args: argparse.Namespace) -> Seats:
    if args.names:
        names = tuple(n.strip().lower() for n in args.names.split(",") if n.strip())
        if len(names) != args.players:
            refuse(f"--names gives {len(names)} names for {args.players} players.")
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            refuse(f"--names: {', '.join(twice)} twice; every player needs a name of their own.")
        alike = [(a, b) for a, b in itertools.combinations(names, 2)
                 if one_slip_apart(a, b) or one_slip_apart(b, a)]
        if alike:
            refuse(f"--names: {alike[0][0]} and {alike[0][1]} sound too alike to tell apart "
                   "by ear; pick names further apart.")
        commands = set(Grammar.build(command_groups()).phrases)
        taken = [n for n in names if n in commands]
        if taken:
            refuse(f"--names: {taken[0]!r} is a command anyone can say to the host; "
                   "pick another name.")
        return Seats(names)
    return Seats.default(args.players)


def players_on_cards(cards: str | None) -> int | None:
    """The player count a deck number was printed for (None when there is none to read)."""
    from voicehost.games.deck import Deck, DeckNumberError

    if cards is None or cards == ASK:
        return None
    try:
        return Deck.read(cards).players
    except DeckNumberError:
        return None  # the table refuses the number with a sentence


def journal_taken(path: Path) -> NoReturn:
    refuse(f"--journal {path} holds a saved game already: voicehost resume --journal {path} "
           "carries it on; pick another file for a new game.")


def run_play(args: argparse.Namespace) -> int:
    if args.resume:
        return run_resume(args)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(10**6)
    if args.players is None:
        args.players = players_on_cards(args.cards) or 4
    low, high = GAMES[args.game].players
    if not low <= args.players <= high:
        refuse(f"{args.game} is for {low} to {high} players, not {args.players}.")
    try:
        table = new_table(args.game, seats_for(args), seed, settings_given(args), args.cards)
    except ValueError as problem:
        refuse(str(problem))
    if args.journal is not None and args.journal.exists():  # before the satellite is asked
        journal_taken(args.journal)
    voice = make_voice(args, sys.stderr if args.events == "-" else sys.stdout)
    try:
        journal = Journal(args.journal, new=True) if args.journal else new_journal(args.game)
    except FileExistsError:
        voice.close()
        journal_taken(args.journal)
    events = open_events(args.events)
    try:
        start(table, voice, journal, events)
    finally:
        journal.close()
        voice.close()
        events.close()
    return 0


def run_resume(args: argparse.Namespace) -> int:
    if args.journal is not None and not args.journal.exists():
        raise SystemExit(f"No saved game at {args.journal}. Start one with: voicehost play")
    try:
        path = args.journal or find_save(args.save)
    except JournalError as problem:
        refuse(str(problem))
    try:
        saved = open_saved(path)
    except JournalError as problem:
        refuse(f"{problem} It is kept as it is.")
    events = open_events(args.events)
    say_to = sys.stderr if args.events == "-" else sys.stdout
    voice = make_voice(args, say_to)
    try:
        resume(saved, voice, events)
    finally:
        voice.close()
        events.close()
    return 0


def run_games(args: argparse.Namespace) -> int:
    """The saves, newest first: ID, when, game, players, moves, finished or not."""
    saves = list_saves()
    if not saves:
        print("No saved games. voicehost play starts one.")
    for listed in saves:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(listed.path.stat().st_mtime))
        if listed.saved is None:
            print(f"{listed.id}  {when}  damaged: {listed.problem}")
            continue
        table = listed.saved.table
        state = "finished" if listed.finished else "unfinished"
        print(f"{listed.id}  {when}  {table.title}, {len(table.seats.names)} players "
              f"({', '.join(table.seats.names)}), {len(listed.saved.actions)} moves, {state}")
    return 0


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if args.command == "play":
        return run_play(args)
    if args.command == "resume":
        return run_resume(args)
    if args.command == "games":
        return run_games(args)
    from voicehost import tools

    return tools.run(args)


if __name__ == "__main__":
    sys.exit(main())
