"""The host's dialogue on its own: no sound card, no journal file, no clock.

A script answers each of the dialogue's commands: a line for each Listen (None: nobody spoke,
LOST: the microphone went away), and the time from a clock that moves only as the script says
(a heard line takes a second, silence lasts as long as the host listened, the microphone is
away for `away_s`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest
from wordings import said_line

from voicehost.games.base import Decision
from voicehost.host.dialogue import Dialogue, Outcome
from voicehost.host.events import Quit, Saved
from voicehost.host.exchange import (
    Answer,
    Append,
    Command,
    Cue,
    Done,
    Emit,
    Heard,
    InputEnded,
    Listen,
    MicLost,
    Now,
    Say,
    Silence,
    Steps,
    Tick,
    WaitForMicrophone,
    spoken,
)
from voicehost.host.table import Seats, Table
from voicehost.registry import GAMES
from voicehost.voice import Hearing

LOST = "<the microphone is lost>"
SPEAKING_S = 1.0  # how long a heard line takes on the script's clock
PATIENCE_S = 10.0  # how long silence lasts when the host listens without a time limit


@dataclass
class Script:
    lines: list[str | None]
    away_s: float = 0.0  # how long a lost microphone stays away
    now: float = 1000.0
    commands: list[Command] = field(default_factory=list)
    heard_at: dict[str, float] = field(default_factory=dict)  # each line, when it was heard

    def run(self, dialogue: Dialogue, steps: Steps[Any]) -> Any:
        commands = dialogue.begin(steps)
        while True:
            for command in commands:
                if isinstance(command, Say):
                    self.say(command)
            self.commands += commands
            waiting = commands[-1]
            if isinstance(waiting, Done):
                return waiting.result
            commands = dialogue.receive(self.answer(waiting))

    def say(self, command: Say) -> None:
        """The host says `command`: on this clock, in no time."""

    def answer(self, command: Command) -> Answer:
        if isinstance(command, Now):
            return Tick(self.now)
        if isinstance(command, WaitForMicrophone):
            self.now += self.away_s
            return Tick(self.now)
        assert isinstance(command, Listen), command
        if not self.lines:
            return InputEnded(self.now)
        line = self.lines.pop(0)
        if line == LOST:
            return MicLost(self.now)
        if line is None:
            self.now += PATIENCE_S if command.timeout_s is None else command.timeout_s
            return Silence(self.now, False)
        self.now += SPEAKING_S
        self.heard_at[line] = self.now
        return Heard(self.now, False, Hearing(line, 0.9, SPEAKING_S, 0.01))

    def said(self) -> list[str]:
        return [" ".join(command.lines) for command in self.commands if isinstance(command, Say)]

    def moments(self) -> list[str]:
        return [command.event.decision for command in self.commands  # type: ignore[union-attr]
                if isinstance(command, Emit) and command.event.kind == "listen"]

    def journaled(self) -> list[dict[str, Any]]:
        return [command.record for command in self.commands if isinstance(command, Append)]


def squad() -> Table:
    """Secret Squad, 3 players (Cheetah, Robin, Husky), one round of one card."""
    return GAMES["secret-squad"].table.from_options(
        Seats.default(3), 4, {"rounds": "1", "cards_per_round": "1"})


TO_THE_POINTING = ["i'm in"] * 3 + ["ready", "yup", "nope", "yup", "ready"]


def at_the_pointing(*lines: str | None, away_s: float = 0.0) -> tuple[Dialogue, Script, Any]:
    dialogue, script = Dialogue(squad()), Script([*TO_THE_POINTING, *lines], away_s=away_s)
    return dialogue, script, script.run(dialogue, dialogue.game())


def points(script: Script) -> list[tuple[int, str]]:
    return [(record["action"]["player"], record["action"]["choice"])
            for record in script.journaled()
            if record["type"] == "action" and record["action"]["kind"] == "point"]


def standing_points(dialogue: Dialogue) -> list[tuple[int | None, str]]:
    return [(action.player, action.choice) for action in dialogue.actions
            if action.kind == "point"]


def test_the_pointings_are_read_back_together_and_the_last_journaled_once_confirmed() -> None:
    dialogue, script, _ = at_the_pointing("robin", "cheetah", "robin", "no",
                                          "no, husky pointed at cheetah", "yes")
    assert points(script) == [(0, "1"), (1, "0"), (2, "0")]  # the "no"s left nothing
    read_back = [line for line in script.said() if "pointed at" in line]
    assert len(read_back) == 3  # read back, asked again after the bare no, and corrected
    assert "Cheetah pointed at Robin, Robin pointed at Cheetah and Husky pointed at Robin" \
        in read_back[0]
    assert read_back[0].split(". ")[0] in read_back[1]
    assert "Husky pointed at Cheetah" in read_back[2]
    assert any(said_line("which_is_wrong").match(line) for line in script.said())
    assert script.moments()[8:] == ["point"] * 3 + ["confirm"] * 3 + ["squad"]
    last = script.commands.index(Append({"type": "action", "action": {
        "kind": "point", "player": 2, "choice": "0"}}))
    asked = [i for i, command in enumerate(script.commands) if isinstance(command, Listen)]
    assert asked[13] < last < asked[14]  # journaled once the last confirm was answered


def test_the_choice_is_journaled_before_anything_is_said_of_it() -> None:
    _, script, _ = at_the_pointing("robin", "cheetah", "robin", "yes")
    kinds = [type(command).__name__ for command in script.commands]
    appended = max(i for i, command in enumerate(script.commands)
                   if isinstance(command, Append))
    confirmed = max(i for i, command in enumerate(script.commands)
                    if isinstance(command, Emit) and command.event.kind == "heard")
    assert confirmed < appended < kinds.index("Say", appended)


def test_no_and_a_seat_corrects_an_earlier_pointing_and_reads_all_back_once_more() -> None:
    dialogue, script, _ = at_the_pointing("robin", "cheetah", "robin",
                                          "no, robin pointed at husky", "yes")
    assert standing_points(dialogue) == [(0, "1"), (1, "2"), (2, "1")]
    read_back = [line for line in script.said() if "pointed at" in line]
    assert len(read_back) == 2 and "Robin pointed at Husky" in read_back[1]
    assert {"type": "undo"} in script.journaled()


def test_pause_waits_for_resume_and_chatter_is_nobodys_business() -> None:
    dialogue, script, _ = at_the_pointing("pause", None, "yup", "resume", "robin", "yes")
    moments = script.moments()
    paused = moments.index("paused")
    assert moments[paused:paused + 3] == ["paused"] * 3  # silence and "yup" change nothing
    assert moments[paused + 3] == "point"
    assert any(said_line("resumed").match(line) for line in script.said())
    assert points(script) == [(0, "1")]


def test_quit_is_confirmed_and_the_game_stops_with_everything_journaled() -> None:
    _, script, outcome = at_the_pointing("robin", "yes", "quit game", "yes")
    assert outcome == Outcome(False, [0, 0, 0], [])
    assert Emit(Quit()) in script.commands
    assert points(script) == [(0, "1")]
    assert isinstance(script.commands[-1], Done)
    assert not any(isinstance(command, Listen) for command in
                   script.commands[script.commands.index(Emit(Quit())):])


def test_quit_answered_no_asks_the_question_again() -> None:
    _, script, outcome = at_the_pointing("quit game", "no", "robin", "yes")
    assert Emit(Quit()) not in script.commands
    assert points(script) == [(0, "1")]
    assert isinstance(outcome, Outcome) and not outcome.finished  # input ended after


def test_undo_takes_back_the_last_choice_and_asks_it_again() -> None:
    dialogue, script, _ = at_the_pointing("robin", "yes", "undo", "husky", "yes")
    assert script.journaled()[-3:] == [
        {"type": "action", "action": {"kind": "point", "player": 0, "choice": "1"}},
        {"type": "undo"},
        {"type": "action", "action": {"kind": "point", "player": 0, "choice": "2"}}]
    undone = said_line("undone", what="Cheetah pointing at Robin")
    assert any(undone.match(line) for line in script.said())
    assert [action.choice for action in dialogue.actions][-1] == "2"
    assert len(dialogue.actions) == 6  # the deal, three answers, ready, one pointing


def test_a_lost_microphone_is_said_waited_for_and_the_question_asked_again() -> None:
    _, script, _ = at_the_pointing(LOST, "robin", "yes", away_s=30.0)
    lost = next(i for i, command in enumerate(script.commands) if
                isinstance(command, Say) and "microphone" in " ".join(command.lines).lower())
    assert [type(command) for command in script.commands[lost + 1:lost + 3]] == [
        Now, WaitForMicrophone]
    back = next(command for command in script.commands[lost + 3:] if isinstance(command, Say))
    assert said_line("microphone_back").fullmatch(back.lines[0])
    assert said_line("point_prompt", "secret_squad", name="Cheetah").fullmatch(back.lines[-1])
    assert points(script) == [(0, "1")]  # the answer after the loss is taken


def test_input_ending_saves_the_game_and_says_how_to_resume() -> None:
    _, script, outcome = at_the_pointing()
    assert outcome == Outcome(False, [0, 0, 0], [])
    assert script.commands[-2] == Emit(Saved("end_of_input"))
    assert "resume" in script.said()[-1]


def study(seconds: int) -> tuple[Dialogue, Decision]:
    table = GAMES["ferret-out"].table.from_options(
        Seats.default(3), 2, {"study_seconds": str(seconds)})
    decision = table.game.pending()
    while decision.kind != "study":  # the number and the clues, straight to the study
        value = decision.options[0] if decision.options else "lantern"
        table.game.apply(table.referee.action_for(decision, value))
        decision = table.game.pending()
    dialogue = Dialogue(table)
    dialogue.called = True
    return dialogue, decision


@pytest.mark.parametrize(("lines", "away_s", "stopped_s"), [
    ([None] * 9, 0.0, 0.0),  # up to each warning, then each of the last 5 seconds
    (["pause", None, None, "resume", *[None] * 9], 0.0, 2 * PATIENCE_S + SPEAKING_S),
    ([LOST, *[None] * 9], 25.0, 25.0),
])
def test_the_study_clock_is_the_one_passed_in_and_stops_for_a_pause_or_a_lost_microphone(
        lines: list[str | None], away_s: float, stopped_s: float) -> None:
    dialogue, decision = study(60)
    script = Script(list(lines), away_s=away_s)
    assert script.run(dialogue, dialogue.take(decision))
    began = next(i for i, command in enumerate(script.commands) if isinstance(command, Now))
    assert script.commands.index(Append({"type": "action", "action": {
        "kind": "study", "player": None, "choice": "ready"}})) > began
    assert script.now - 1000.0 == pytest.approx(60.0 + stopped_s)
    warned = [line for line in script.said()  # a warning is said alone, not after "resume"
              if said_line("time_left", "ferret_out").fullmatch(line)]
    assert len(warned) == 2 and "30" in warned[0] and "10" in warned[1]
    ticks = [command.lines for command in script.commands if isinstance(command, Say)
             and any(isinstance(line, Cue) and line.sound == "tick" for line in command.lines)]
    assert len(ticks) == 5  # one for each of the last five seconds, and no words with them
    assert all(spoken(lines) == "" for lines in ticks)
    assert dialogue.speech.queued[0] in dialogue.lines.table["time_up"]


QUITTING = ["quit", "exit", "stop", "let's stop", "stop the game", "end game", "end the game",
            "quit game"]


@pytest.mark.parametrize("said", QUITTING)
def test_every_way_of_quitting_asks_first_then_stops(said: str) -> None:
    dialogue, script, outcome = at_the_pointing(said, "yes")
    assert script.said()[-2] in dialogue.lines.table["quit_confirm"]
    assert Emit(Quit()) in script.commands
    assert outcome == Outcome(False, [0, 0, 0], [])


@pytest.mark.parametrize("said", QUITTING)
def test_no_to_quitting_asks_the_pending_question_again(said: str) -> None:
    dialogue, script, _ = at_the_pointing(said, "no", "robin", "yes")
    asked = script.said()
    confirm = asked.index(dialogue.lines.table["quit_confirm"][0])
    assert said_line("point_prompt", "secret_squad", name="Cheetah").fullmatch(asked[confirm + 1])
    assert Emit(Quit()) not in script.commands
    assert points(script) == [(0, "1")]


def test_help_names_every_command() -> None:
    _, script, _ = at_the_pointing("help")
    helped = script.said()[-2]  # then input ends
    for command in ("repeat", "help", "scores", "read the answers", "undo", "skip", "pause",
                    "resume", "status", "quit"):
        assert command in helped, command


def test_stop_while_the_study_clock_runs_stops_the_clock_not_the_game() -> None:
    dialogue, decision = study(60)
    script = Script(["stop"])
    assert script.run(dialogue, dialogue.take(decision))
    assert Append({"type": "action", "action": {
        "kind": "study", "player": None, "choice": "ready"}}) in script.commands
    assert "confirm" not in script.moments()


def test_pointing_at_yourself_at_four_players_is_refused_with_the_rule() -> None:
    table = GAMES["secret-squad"].table.from_options(
        Seats.default(4), 4, {"rounds": "1", "cards_per_round": "1"})
    dialogue = Dialogue(table)
    script = Script(["i'm in"] * 4 + ["ready", "yup", "nope", "yup", "nope", "ready",
                                      "myself", "cheetah", "robin", "cheetah", "robin",
                                      "husky", "yes"])
    script.run(dialogue, dialogue.game())
    said = script.said()
    refused = [line for line in said if "can't point at yourself" in line]
    asked = said_line("point_prompt", "secret_squad", name="Cheetah")
    assert len(refused) == 2 and all(asked.search(line) for line in refused)
    assert not any("didn't" in line for line in said)
    assert points(script) == [(0, "1"), (1, "0"), (2, "1"), (3, "2")]


SAYING_S_PER_LETTER = 0.07  # a clock where saying a line takes as long as its words would
TICK_S = 0.05


@dataclass
class SpeakingScript(Script):
    """A Script whose clock also runs while the host speaks: each Say takes its audio's length.
    `said_at`: each Say's words (a tick: "<tick>") and when it began."""

    said_at: list[tuple[str, float]] = field(default_factory=list)

    def say(self, command: Say) -> None:
        for item in command.lines:
            if isinstance(item, Cue):
                self.said_at.append((f"<{item.sound}>", self.now))
                self.now += TICK_S
            else:
                self.said_at.append((item, self.now))
                self.now += SAYING_S_PER_LETTER * len(item)


@pytest.mark.parametrize("lines", [[None] * 20, ["pause", None, "resume", *[None] * 20]])
def test_the_study_clock_keeps_time_with_the_time_its_words_take(
        lines: list[str | None]) -> None:
    dialogue, decision = study(60)
    script = SpeakingScript(list(lines))
    assert script.run(dialogue, dialogue.take(decision))
    started = next(at for line, at in script.said_at if line.startswith(("Study", "Time to")))
    opening = next(line for line, at in script.said_at if at == started)
    end, stood, asked_again = script.now, 0.0, ""  # "time's up"; how long the clock stood
    if "pause" in lines:
        resumed = next(at for line, at in script.said_at
                       if dialogue.lines.table["resumed"].count(line))
        asked_again, at = next((line, at) for line, at in script.said_at if at > resumed
                               and "second" in line)
        went_on = at + SAYING_S_PER_LETTER * len(asked_again)
        stood = went_on - script.heard_at["pause"]
        left = int(asked_again.split()[0])
        assert not asked_again.startswith(("Study", "Time to"))  # not the full minute again
        assert end - went_on == pytest.approx(left, abs=0.5), asked_again
    assert end - stood - started - SAYING_S_PER_LETTER * len(opening) == pytest.approx(
        60.0, abs=0.05)
    warned = {int(line.split()[0]): at for line, at in script.said_at
              if said_line("time_left", "ferret_out").fullmatch(line) and line != asked_again}
    assert sorted(warned) == [10, 30]
    for seconds, at in warned.items():
        assert end - at == pytest.approx(seconds, abs=0.05), (seconds, end - at)
    ticks = [at for line, at in script.said_at if line == "<tick>"]
    assert [round(end - at, 2) for at in ticks] == pytest.approx([5, 4, 3, 2, 1], abs=0.05)


def test_a_correction_the_rules_refuse_is_refused_and_changes_nothing() -> None:
    table = GAMES["secret-squad"].table.from_options(
        Seats.default(4), 4, {"rounds": "1", "cards_per_round": "1"})
    dialogue = Dialogue(table)
    script = Script(["i'm in"] * 4 + ["ready", "yup", "nope", "yup", "nope", "ready",
                                      "robin", "cheetah", "robin", "husky",
                                      "no, robin pointed at robin", "yes"])
    script.run(dialogue, dialogue.game())
    said = script.said()
    refused = [i for i, line in enumerate(said) if "can't point at yourself" in line]
    read_back = [i for i, line in enumerate(said) if "Robin pointed at Cheetah" in line]
    assert len(refused) == 1 and len(read_back) == 2
    assert read_back[0] < refused[0] <= read_back[1]  # refused, then all read back again
    assert standing_points(dialogue) == [(0, "1"), (1, "0"), (2, "1"), (3, "2")]
    assert {"type": "undo"} not in script.journaled()
