"""The `voicehost` command."""

from __future__ import annotations

import argparse
import itertools
import os
import random
import shutil
import sys
import time
from collections.abc import Callable
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import NoReturn, TextIO

from voicehost.door import (
    Parser,
    between,
    cannot_write,
    deck_number,
    file_named,
    folder_there,
    names_not_heard,
    players_allowed,
    refuse,
    settings_given,
    warn_sound_alikes,
    whole,
)
from voicehost.games.deck import SEEDS
from voicehost.games.printed import ASK
from voicehost.heap import give_back_big_blocks
from voicehost.host.dialogue import Outcome
from voicehost.host.events import EventStream
from voicehost.host.grammars import heard_words, said_alone
from voicehost.host.table import Seats
from voicehost.intents.grammar import fold, one_slip_apart
from voicehost.intents.understand import reading_of
from voicehost.prompts_dir import load_yaml
from voicehost.registry import GAMES, deck_words
from voicehost.session import (
    Listed,
    find_save,
    list_saves,
    new_journal,
    new_table,
    open_saved,
    past_of,
    reopen,
    resume,
    saved_game,
    saves_dir,
    start,
)
from voicehost.speech.engines import ENGINES
from voicehost.speech.factory import AudioSettings
from voicehost.speech.frontend import FRONT_ENDS
from voicehost.speech.text_voice import TextVoice
from voicehost.store.journal import Journal, JournalError
from voicehost.store.private import SaveWriteError, open_private
from voicehost.voice import Voice

AUDIO = AudioSettings(reader=reading_of)  # audio mode's defaults
VOICE_HELP = ("the host's voice: joe (piper, a natural voice; the default), espeak (espeak-ng's "
              "default voice) or another espeak-ng voice; --voice list names those installed")


class VoiceOption(argparse.Action):
    """--voice NAME; --voice list names every voice installed, as --version says the version."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 value: object, option: str | None = None) -> None:
        if value != "list":
            setattr(namespace, self.dest, value)
            return
        from voicehost.speech.mouth import Mouth

        for setting, what in Mouth().voices():
            print(f"{setting:<16} {what}")
        parser.exit()
RATE = whole("--rate", 80, 450, unit="words per minute")  # as espeak-ng can say
VOLUME = between("--volume", 0, 1)
SILENCE = between("--silence", 0, 5, above_low=True, unit="seconds")
PLAYERS = whole("--players")  # each game's own range is checked with the game
SEED = whole("--seed", 0)


def add_engine_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--engine", choices=tuple(ENGINES), default=AUDIO.engine)


def add_wyoming_options(parser: argparse.ArgumentParser, helps: dict[str, str]) -> None:
    """--satellite, --asr and --tts, each a Wyoming service's address, with its help."""
    for option in ("--satellite", "--asr", "--tts"):
        parser.add_argument(option, default=None, metavar="tcp://HOST:PORT",
                            help=helps[option])


def add_voice_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--io", choices=("audio", "text"), default="audio",
                        help="audio: microphone and speaker; text: stdin and stdout")
    add_engine_option(parser)
    parser.add_argument("--front-end", choices=FRONT_ENDS, default=AUDIO.front_end,
                        help="noise suppression before the recognizer")
    parser.add_argument("--model", type=Path, help="a vosk model directory")
    parser.add_argument("--rate", type=RATE, default=AUDIO.rate,
                        help="speech rate, 80 to 450 words per minute")
    parser.add_argument("--volume", type=VOLUME, default=AUDIO.volume,
                        help="speech volume, 0 to 1")
    parser.add_argument("--voice", default=None, action=VoiceOption, help=VOICE_HELP)
    parser.add_argument("--sounds", choices=("on", "off"), default="on",
                        help="the host's sounds: a ticking countdown, a sting before a reveal, "
                        "a fanfare for the winner")
    parser.add_argument("--silence", type=SILENCE, default=AUDIO.silence,
                        help="seconds of silence that end an answer (at most 5)")
    parser.add_argument("--input-device", default=None)
    parser.add_argument("--output-device", default=None)
    add_wyoming_options(parser, {
        "--satellite": "play through a Wyoming satellite's microphone and speaker "
                       "(wyoming-satellite, port 10700) instead of this machine's",
        "--asr": "hear through a Wyoming speech-to-text service (e.g. wyoming-faster-whisper, "
                 "port 10300); --engine stands by",
        "--tts": "speak through a Wyoming text-to-speech service (e.g. wyoming-piper, "
                 "port 10200); espeak-ng stands by"})
    parser.add_argument("--journal", type=Path, default=None,
                        help="the save file (default: a new one in "
                             "~/.local/share/voicehost/games/; see voicehost games)")
    parser.add_argument("--events", default=None,
                        help="write JSON Lines events here (- = stdout); they hold no secret "
                             "before its reveal")
    parser.add_argument("--secrets", type=Path, default=None,
                        help="write what the host knows from printed cards to this file "
                             "(for tests; never show it to the players)")
    parser.add_argument("--record", type=Path, default=None, metavar="FILE.wav",
                        help="audio mode: also keep everything the host says and plays in "
                             "this WAV file")
    parser.add_argument("--quiet", action="store_true",
                        help="audio mode: no captions on the console (what the host says and "
                             "what it heard)")


def parser() -> argparse.ArgumentParser:
    top = Parser(prog="voicehost", description="An offline voice game host.")
    top.add_argument("--version", action="version", version=f"voicehost {installed_version()}")
    commands = top.add_subparsers(dest="command", required=True)

    play = commands.add_parser("play", help="start a game")
    play.add_argument("game", choices=sorted(GAMES), nargs="?", default="secret-squad")
    play.add_argument("--players", type=PLAYERS, default=None,
                      help="how many play (default 4, or the count of the --cards deck)")
    play.add_argument("--cards", nargs="?", const=ASK, default=None, metavar="DECK",
                      help="play with printed cards (voicehost cards): their deck number, or "
                           "no number to have the host ask for it")
    play.add_argument("--names", default=None, help="comma-separated seat names")
    play.add_argument("--seed", type=SEED, default=None)
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

    games = commands.add_parser("games", help="list the saved games")
    tidy = games.add_mutually_exclusive_group()
    tidy.add_argument("--clean", action="store_true",
                      help="remove the saves of games that never got a move")
    tidy.add_argument("--remove", default=None, metavar="ID",
                      help="remove one save (its ID from the list, or the start of it)")

    models = commands.add_parser("models", help="manage recognizer models")
    models_commands = models.add_subparsers(dest="models_command", required=True)
    download = models_commands.add_parser(
        "download", help="fetch a vosk model, or whisper-tiny.en (the official conversion)")
    download.add_argument("name", nargs="?", default="vosk-model-small-en-us-0.15")
    download.add_argument("--dir", type=Path, default=None,
                          help="where to put it (default: ~/.local/share/voicehost/models, "
                               "where the engines look)")

    commands.add_parser("devices", help="list microphones and speakers")
    doctor = commands.add_parser("doctor", help="check microphone, speaker, engines, models")
    doctor.add_argument("--model", type=Path)
    add_engine_option(doctor)
    doctor.add_argument("--front-end", choices=FRONT_ENDS, default=AUDIO.front_end)
    doctor.add_argument("--voice", default=None, action=VoiceOption, help=VOICE_HELP)
    add_wyoming_options(doctor, {
        "--satellite": "check a Wyoming satellite instead of this machine's devices",
        "--asr": "check a Wyoming speech-to-text service",
        "--tts": "check a Wyoming text-to-speech service"})

    say = commands.add_parser("say", help="speak a line (or save it to a WAV)")
    say.add_argument("text")
    say.add_argument("--out", type=Path)
    say.add_argument("--rate", type=RATE, default=AUDIO.rate,
                     help="speech rate, 80 to 450 words per minute")
    say.add_argument("--volume", type=VOLUME, default=AUDIO.volume, help="0 to 1")
    say.add_argument("--voice", default=None, action=VoiceOption, help=VOICE_HELP)

    hear = commands.add_parser("hear", help="recognize a WAV file, print JSON")
    hear.add_argument("wav", type=Path)
    hear.add_argument("--phrases", default=None, help='e.g. "yup|nope|repeat"')
    add_engine_option(hear)
    hear.add_argument("--model", type=Path)
    hear.add_argument("--decision", default="answer",
                      help="listen as the host does for one of --game's decisions ("
                           + "; ".join(f"{name}: {', '.join(spec.table.decisions)}"
                                       for name, spec in GAMES.items())
                           + "), confirm, or deck_number (a group of three digits)")
    hear.add_argument("--players", type=whole("--players", 1), default=10)
    hear.add_argument("--game", choices=sorted(GAMES),
                      default="secret-squad", help="whose decisions --decision names")
    hear.add_argument("--pouch", type=whole("--pouch", 0), default=0,
                      help="Ferret Out guess: the pouch pair whose twelve words are offered")

    cards = commands.add_parser("cards", help="print private cards (PDF) for phone-free play")
    cards.add_argument("game", choices=sorted(GAMES))
    cards.add_argument("--players", type=PLAYERS, required=True)
    cards.add_argument("--seed", type=whole("--seed", 0, SEEDS - 1), default=None,
                       help=f"0 to {SEEDS - 1} (default: random)")
    cards.add_argument("--paper", choices=("a4", "letter"), default="a4")
    cards.add_argument("--out", type=Path, required=True, help="the PDF to write")
    cards.add_argument("--print", action="store_true",
                       help="also send it to the default printer, one-sided (CUPS lp), "
                            "without opening it")
    cards.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                       help="the settings you will play with (Ferret Out: end=15 or end=20 "
                            "prints more rows)")
    return top


def installed_version() -> str:
    try:
        return version("voicehost")
    except PackageNotFoundError:  # run from a checkout that was never installed
        return "(not installed)"


def open_events(target: str | None, secrets: Path | None = None) -> EventStream:
    """The event stream `--events` asks for and the secrets file `--secrets` names, their files
    opened now (created private, 0600): refused when they cannot be."""
    stream = EventStream(None)
    if target == "-":
        stream.out = sys.stdout
    elif target is not None:
        stream.out = open_private_file("--events", Path(target))
    if secrets is not None:
        stream.secrets = open_private_file("--secrets", secrets)
    return stream


def open_private_file(option: str, path: Path) -> TextIO:
    folder_there(option, path)
    if path.is_dir():
        refuse(f"{option} {path} is a folder: name a file in it.")
    try:
        return open_private(path)
    except OSError as problem:
        cannot_write(option, path, problem)


def make_voice(args: argparse.Namespace, say_to: TextIO) -> Voice:
    if args.io == "text":
        for option in ("satellite", "asr", "tts", "record"):
            if getattr(args, option):
                refuse(f"--{option} is for audio mode: it needs --io audio.")
        return TextVoice(sys.stdin, say_to)
    if args.record is not None:
        folder_there("--record", args.record)
        file_named("--record", args.record, ".wav", "it is a WAV file")
    from voicehost.speech.devices import AudioDeviceError
    from voicehost.speech.factory import audio_voice_or_notice

    settings = AudioSettings(
        engine=args.engine, model=args.model, front_end=args.front_end, rate=args.rate,
        volume=args.volume, voice=args.voice, silence=args.silence,
        input_device=args.input_device, output_device=args.output_device,
        satellite=args.satellite, asr=args.asr, tts=args.tts, captions=not args.quiet,
        sounds=args.sounds == "on", record=args.record,
        deck_words=deck_words(), reader=reading_of)
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
        typed = [fold(n) for n in names]  # zoë and zoe are one name to a keyboard or an ear
        twice = sorted({n for n in typed if typed.count(n) > 1})
        if twice:
            refuse(f"--names: {', '.join(twice)} twice; every player needs a name of their own.")
        alike = [(a, b) for a, b in itertools.combinations(typed, 2)
                 if one_slip_apart(a, b) or one_slip_apart(b, a)]
        if alike:
            refuse(f"--names: {alike[0][0]} and {alike[0][1]} sound too alike to tell apart "
                   "by ear; pick names further apart.")
        prompts = GAMES[args.game].table.name
        names_not_heard(names, heard_words(prompts))
        warn_sound_alikes(names, said_alone(prompts))
        faint = hard_to_hear(names)
        if faint:
            print(f"voicehost: {' and '.join(faint)} may be misheard: the engines often miss "
                  f"{'it' if len(faint) == 1 else 'them'} (docs/seat-names.md); "
                  "names of two or more syllables are heard best.", file=sys.stderr, flush=True)
        return Seats(names)
    return Seats.default(args.players)


SHORTEST_HEARD = 3  # letters: a shorter name is one short sound, lost in a cough or a "hm"


def hard_to_hear(names: tuple[str, ...]) -> list[str]:
    """The names the engines were measured to rarely hear (prompts/common/tokens.yaml
    `hard_to_hear`), or too short to hear."""
    measured = set(load_yaml("common/tokens.yaml")["hard_to_hear"])
    return [n for n in names if n in measured or len(n.replace(" ", "")) < SHORTEST_HEARD]


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


def open_journal(path: Path | None, game: str) -> Journal:
    """The new game's journal: `--journal PATH` (in a folder that is there, a file that is
    not), or a new save in the games folder."""
    if path is None:
        try:
            return new_journal(game)
        except OSError as problem:
            refuse(f"cannot save games in {saves_dir()}: {problem.strerror or problem} "
                   "(the folder comes from XDG_DATA_HOME, else ~/.local/share).")
    folder_there("--journal", path)
    if path.is_dir():
        refuse(f"--journal {path} is a folder: name the save file to write in it.")
    if path.exists():
        journal_taken(path)
    try:
        return Journal(path, new=True)
    except FileExistsError:
        journal_taken(path)
    except OSError as problem:
        cannot_write("--journal", path, problem)


def run_play(args: argparse.Namespace) -> int:
    if args.resume:
        return run_resume(args)
    if args.cards not in (None, ASK):
        deck_number(args.cards)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(10**6)
    by_deck = args.cards == ASK and args.players is None and args.names is None
    if args.players is None:
        args.players = players_on_cards(args.cards) or 4
    players_allowed(args.game, args.players)
    try:
        table = new_table(args.game, seats_for(args), seed, settings_given(args), args.cards,
                          seated_by_deck=by_deck)
    except ValueError as problem:
        refuse(str(problem))
    if args.journal is None:  # a game in the games folder knows the household's others
        table.knowing(past_of(args.game))
    journal = open_journal(args.journal, args.game)  # before the satellite is asked
    written = [Path(args.events)] if args.events not in (None, "-") else []
    written += [args.secrets] if args.secrets is not None else []
    new_files = [path for path in written if not path.exists()]
    say_to = sys.stderr if args.events == "-" else sys.stdout
    try:
        events = open_events(args.events, args.secrets)
        voice = make_voice(args, say_to)
    except BaseException:  # refused or stopped: the game never started, so it leaves nothing
        journal.close()
        journal.path.unlink()
        for path in new_files:
            if path.exists():
                path.unlink()
        raise

    def game() -> Outcome:
        try:
            return start(table, voice, journal, events)
        finally:
            journal.close()
            voice.close()
            events.close()

    return played(game, resume_command(args, journal.path), say_to)


def played(game: Callable[[], Outcome], carry_on: str, say_to: TextIO) -> int:
    """Play `game` out. A game left unfinished (quit, or input ended) ends with how to carry
    it on, `carry_on`; Ctrl-C ends with that line alone, on standard error, exit status 130."""
    try:
        outcome = game()
    except KeyboardInterrupt:
        print(f"voicehost: stopped. {saved_line(carry_on)}", file=sys.stderr, flush=True)
        raise SystemExit(130) from None
    except SaveWriteError as problem:
        print(f"voicehost: {problem}. Every answer before it is saved: free some space or "
              f"fix the folder's permissions, then {carry_on} carries it on.",
              file=sys.stderr, flush=True)
        raise SystemExit(1) from None
    if not outcome.finished:
        print(saved_line(carry_on), file=say_to, flush=True)
    return 0


def saved_line(carry_on: str) -> str:
    return f"The game is saved: {carry_on} carries it on."


def resume_command(args: argparse.Namespace, save: Path) -> str:
    """The command that carries on the game saved in `save`, as this one was played."""
    which = save.stem if save.parent == saves_dir() else f"--journal {save}"
    return f"{program()} resume {which}" + (" --io text" if args.io == "text" else "")


def program() -> str:
    """How to start this voicehost from a shell: `voicehost` when that name on PATH is this
    program, else the path it was started by (`.venv/bin/voicehost` after scripts/setup.sh),
    or `python -m voicehost`."""
    started = Path(sys.argv[0])
    on_path = shutil.which("voicehost")
    if started.name == "voicehost":  # the installed script
        if on_path is not None and Path(on_path).resolve() == started.resolve():
            return "voicehost"
        return sys.argv[0]
    if on_path is not None and Path(on_path).parent == Path(sys.executable).parent:
        return "voicehost"
    return f"{sys.executable} -m voicehost"


def run_resume(args: argparse.Namespace) -> int:
    if args.journal is not None and not args.journal.exists():
        refuse(f"--journal {args.journal}: no saved game there. voicehost play starts one.")
    try:
        path = args.journal or find_save(args.save)
    except JournalError as problem:
        refuse(str(problem))
    try:
        saved = open_saved(path)
    except JournalError as problem:
        refuse(f"{problem} It is kept as it is.")
    try:
        journal = reopen(saved)
    except SaveWriteError as problem:
        refuse(f"{problem}: make it writable (chmod u+w) to carry the game on. It is kept as "
               "it is.")
    events = open_events(args.events, args.secrets)
    say_to = sys.stderr if args.events == "-" else sys.stdout
    voice = make_voice(args, say_to)

    def game() -> Outcome:
        try:
            return resume(saved, voice, events, journal)
        finally:
            journal.close()
            voice.close()
            events.close()

    return played(game, resume_command(args, path), say_to)


def plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def run_games(args: argparse.Namespace) -> int:
    """The saves, newest first: ID, when, game, players, moves, finished or not. `--clean`
    removes the saves of games that never got a move; `--remove ID` removes that one."""
    if args.remove is not None:
        return remove_game(args.remove)
    saves = list_saves()
    if args.clean:
        unplayed = [listed for listed in saves if listed.unplayed]
        for listed in unplayed:
            remove_save(listed.path)
        print(f"Removed {plural(len(unplayed), 'saved game')} with no moves.")
        return 0
    shown = [listed for listed in saves if not listed.unplayed]
    if not saves:
        print("No saved games. voicehost play starts one.")
    for listed in shown:
        print(f"{listed.id}  {modified(listed.path)}  {listed_as(listed)}")
    unplayed = len(saves) - len(shown)
    if unplayed:
        print(f"({plural(unplayed, 'game')} set up and never played: voicehost games --clean "
              f"removes {'it' if unplayed == 1 else 'them'}.)")
    return 0


def modified(path: Path) -> str:
    try:
        return time.strftime("%Y-%m-%d %H:%M", time.localtime(path.stat().st_mtime))
    except OSError:
        return "(gone)"


def listed_as(listed: Listed) -> str:
    """A save as `voicehost games` lists it, after its ID and date."""
    if listed.saved is None:
        return f"damaged: {listed.problem}"
    table, actions = listed.saved.table, listed.saved.actions
    over = table.game.pending() is None
    state = ("finished" if listed.finished else
             "over, its end not yet said: voicehost resume says it" if over else "unfinished")
    return (f"{table.title}, {len(table.seats.names)} players ({', '.join(table.seats.names)}), "
            f"{plural(len(actions), 'move')}, {state}")


def remove_save(path: Path) -> None:
    """Remove one save; refused in one line when the games folder cannot be written."""
    try:
        path.unlink()
    except OSError as problem:
        refuse(f"cannot remove {path}: {problem.strerror or problem} (the games folder must be "
               "writable).")


def remove_game(game_id: str) -> int:
    """`voicehost games --remove ID`: the one save ID names, whatever is in it."""
    try:
        listed = saved_game(game_id)
    except JournalError as problem:
        refuse(str(problem))
    remove_save(listed.path)
    what = ("damaged" if listed.saved is None
            else f"{listed.saved.table.title}, {plural(len(listed.saved.actions), 'move')}")
    print(f"Removed {listed.id} ({what}).")
    return 0


def run(argv: list[str] | None) -> int:
    given = sys.argv[1:] if argv is None else argv
    if not given:  # a bare `voicehost`: what it can do
        parser().print_help()
        return 2
    args = parser().parse_args(given)
    if args.command == "play":
        return run_play(args)
    if args.command == "resume":
        return run_resume(args)
    if args.command == "games":
        return run_games(args)
    from voicehost import tools

    return tools.run(args)


def main(argv: list[str] | None = None) -> int:
    give_back_big_blocks()
    try:
        status = run(argv)
        sys.stdout.flush()  # here, where a reader gone away can be caught
    except KeyboardInterrupt:  # Ctrl-C before a game began, or in another command
        print("voicehost: stopped.", file=sys.stderr, flush=True)
        return 130
    except BrokenPipeError:  # voicehost games | head -1: the reader has all it wants
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # the exit's own flush then has nowhere to fail
        return 0
    return status


if __name__ == "__main__":
    sys.exit(main())
