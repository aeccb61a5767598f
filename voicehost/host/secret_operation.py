"""Secret Operation at the table: the rules engine plus the words for its decisions and events.

The cards never leave the players' hands, so the host is the table's memory: it says whose turn
it is, counts cards on the modules and in the deck, and checks a revealed module against its
demand. Moves the rules forbid are still heard ("add to module five", "block myself") so the
host can say why it refuses them; the engine refuses, and nothing changes.

Intent values are the engine's choices ("add:2", "discard:energy", "block:3", a reveal
"mechanics,energy,energy"). A player whose hand is empty may still speak up ("owl adds to
module two"): that is "<seat>|<choice>", so the engine refuses it for that player. Only
players with empty hands are heard this way: for everyone, "fox adds to module two" sounds
too much like "add to module two".
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import permutations, product
from typing import Any

from voicehost.games.base import Action, Decision, Event, IllegalAction, setting
from voicehost.games.deck import Deck, letters
from voicehost.games.layout import operation_layout
from voicehost.games.printed import DECK_DECISION, PrintedCards
from voicehost.games.secret_operation import (
    ALL_CARDS,
    BLOCK,
    CARD_TYPES,
    CARDS_IN_BOX,
    COMPONENTS,
    HOST_PICKS,
    MAX_PLAYERS,
    MIN_PLAYERS,
    NAME,
    TITLE,
    BlockPlayed,
    CardAdded,
    CardDiscarded,
    CardDrawn,
    FirstPlayer,
    GameOver,
    ModuleAssembled,
    ModuleFailed,
    ModuleFull,
    SecretOperation,
    TurnSkipped,
    impostor_count,
    in_card_order,
    read_boards,
    read_out,
    set_aside_count,
)
from voicehost.host.exchange import Cue
from voicehost.host.lines import said_number, spoken_list
from voicehost.host.narrator import Narrator
from voicehost.host.questions import Questions
from voicehost.host.referee import Referee
from voicehost.host.table import Choices, Seats, Table, TablePart
from voicehost.intents.grammar import Intent
from voicehost.prompts_dir import load_yaml

ACTOR = "|"  # "<seat>|<choice>": a move said by a named player


@dataclass(frozen=True)
class Settings:
    super_engineer: int = 0  # modules 1..N swapped for the harder challenge modules (the
    # boards file says how many there are)
    low_deck: int = setting(5, 0, ALL_CARDS)  # from this many cards down, the host says
    # how many are left


def capital(line: str) -> str:
    """A line that may start with a card's name starts a sentence all the same."""
    return line[:1].upper() + line[1:]


def card_word(card: str) -> str:
    return load_yaml("secret_operation/intents.yaml")["reveal"]["words"][card]


class OperationWords(TablePart["SecretOperationTable"]):
    """How the host says the operation's numbers: modules, cards, hands and the deck."""

    def number(self, n: int) -> str:
        return str(self.table.intents["module_numbers"][n - 1]) if 0 < n <= 6 else str(n)

    def cards_said(self, cards: Sequence[str]) -> str:
        return spoken_list([card_word(card) for card in cards])

    def counted(self, cards: Sequence[str]) -> str:
        """"2 mechanics, 1 energy and one block", in card order."""
        counts = Counter(cards)
        said = []
        for card in CARD_TYPES:
            if counts[card]:
                key = "count_block_one" if card == BLOCK and counts[card] == 1 else f"count_{card}"
                said.append(self.lines(key, count=counts[card]))
        return spoken_list(said)

    def hand(self, count: int) -> str:
        return self.lines("hand_one") if count == 1 else self.lines("hand_many", count=count)

    def deck_said(self, count: int) -> str:
        return (self.lines("cards_left_one") if count == 1
                else self.lines("cards_left_many", count=count))


class OperationQuestions(Questions["SecretOperationTable"]):
    """Asks who goes first, each turn and each module's read-out, after the robot's briefing."""

    def __init__(self, table: SecretOperationTable) -> None:
        super().__init__(table)
        self.asked: set[tuple[int, bool]] = set()  # (seat, deck empty) asked their turn

    def opening(self) -> list[str]:
        players = len(self.seats.names)
        count = impostor_count(players)
        many = count > 1
        impostors = (self.lines("impostors_many", count=said_number(count)) if many
                     else self.lines("impostors_one"))
        said = [self.lines("intro_again" if self.table.past.played else "intro",
                           impostors=impostors)]
        if self.table.printed is None:  # printed identity cards are dealt once the deck is known
            cards = (self.lines("impostor_cards_many", count=said_number(count)) if many
                     else self.lines("impostor_cards_one"))
            said.append(self.lines("identities", impostors_cards=cards,
                                   engineers=said_number(players - count)))
        return said

    def table_setup(self) -> list[str]:
        said = [self.lines("robot")]
        harder = self._harder_said()
        if harder:
            said.append(self.lines("robot_harder", modules=harder))
        said.append(self.lines("deal"))
        aside = set_aside_count(len(self.seats.names))
        if aside:
            said.append(self.lines("set_aside", aside=said_number(aside)))
        return said

    def _harder_said(self) -> str:
        """The super-engineer challenge's extra card per module, or "" without it."""
        table, said = self.table, []
        for n in range(1, table.settings.super_engineer + 1):
            extra = Counter(table.robot[n - 1]) - Counter(table.plain_robot[n - 1])
            said.append(self.lines("module_harder", module=table.words.number(n),
                                   extra=card_word(next(iter(extra)))))
        return spoken_list(said)

    def ask(self, decision: Decision) -> str:
        if decision.kind == "first_player" and self.table.printed is not None:
            deal = self.lines("printed_deal", takes=self.takes(),
                              steps=self.fold_steps(), rule=self.lines("identity_rule"))
            return f"{deal} {self.lines('first_player')}"
        if decision.kind == "first_player":
            return self.lines("first_player")
        name = self.seats.name_of(decision.decider)
        if decision.kind == "reveal":
            module = self.table.game.revealing + 1 if self.table.game.revealing is not None else 0
            return self.lines("reveal_prompt", name=name, module=self.table.words.number(module),
                              cards=len(self.table.robot[module - 1]))
        # each player hears the whole question once (and once more when the deck runs out)
        empty = self.table.rules.deck == 0
        known = (decision.decider, empty) in self.asked
        self.asked.add((decision.decider, empty))
        if empty:
            return self.lines("turn_no_draw_later" if known else "turn_no_draw", name=name,
                              cards=self.table.words.hand(self.table.game.hands[decision.decider]))
        return self.lines("turn_later" if known else "turn", name=name)

    def say_options(self, decision: Decision) -> str:
        if decision.kind == "first_player":
            names = self.lines.either([*self.seats.named(range(self.table.game.players)),
                                       self.lines("you_pick")])
            return self.lines("options_first_player", names=names)
        if decision.kind == "reveal":
            return self.lines("options_reveal")
        verbs: dict[str, list[str]] = {}
        for option in decision.options:
            verb, _, target = option.partition(":")
            verbs.setdefault(verb, []).append(target)
        moves = []
        if "add" in verbs:
            modules = self.lines.either([self.table.words.number(int(n)) for n in verbs["add"]])
            moves.append(self.lines("option_add", modules=modules))
        if "discard" in verbs:
            moves.append(self.lines("option_discard"))
        if "block" in verbs:
            names = self.lines.either([self.seats.name_of(int(s)) for s in verbs["block"]])
            moves.append(self.lines("option_block", names=names))
        return self.lines("options_turn", moves="; ".join(moves))

    def context(self, decision: Decision) -> dict[str, Any]:
        if self.table.waiting_for_deck():
            return {}
        game = self.table.rules
        facts: dict[str, Any] = {
            "deck": game.deck, "hands": list(game.hands),
            "modules": [m.cards for m in game.modules],
            "assembled": [n for n, m in enumerate(game.modules, 1) if m.assembled],
            "blocked": sorted(game.blocked), "discard_pile": list(game.discard_pile)}
        if game.revealing is not None:
            facts["module"] = game.revealing + 1
        return facts


class OperationReferee(Referee["SecretOperationTable"]):
    """Hears a turn (add, discard, block; said by whoever plays), a module's read-out and who
    goes first, and says why the rules refused a move."""

    def choices(self, decision: Decision) -> Choices:
        if decision.kind == "first_player":
            return self._first_player_choices()
        if decision.kind == "reveal":
            return self._reveal_choices()
        return self._turn_choices(decision.decider)

    def _first_player_choices(self) -> Choices:
        said = self.table.intents["first_player"]
        seats = [str(seat) for seat in range(self.table.game.players)]
        return (self.seats.choices(seats, said["seat"], None)
                + [(Intent("choose", HOST_PICKS), said["host_picks"])])

    def _turn_choices(self, seat: int) -> list[tuple[Intent, list[str]]]:
        said, cards = self.table.intents["turn"], self.table.intents["cards"]
        modules = list(enumerate(self.table.intents["module_numbers"], 1))
        players = range(self.table.game.players)
        groups: list[tuple[Intent, list[str]]] = []
        for n, word in modules:
            groups.append((Intent("choose", f"add:{n}"),
                           [t.format(module=word) for t in said["add"]]))
        for card in CARD_TYPES:
            groups.append((Intent("choose", f"discard:{card}"),
                           [t.format(card=c) for t in said["discard"] for c in cards[card]]))
        for target in players:
            groups.append((Intent("choose", f"block:{target}"),
                           [t.format(target=w) for t in said["block"]
                            for w in self.seats.targets(target, seat)]))
        groups += [(Intent("choose", "add:"), said["add_which"]),
                   (Intent("choose", "discard:"), said["discard_which"]),
                   (Intent("choose", "block:"), said["block_whom"])]
        for actor in (s for s in players if not self.table.game.hands[s]):
            names = self.seats.spellings(actor)
            groups += [(Intent("choose", f"{actor}{ACTOR}add:{n}"),
                        [t.format(name=name, module=word) for t in said["named_add"]
                         for name in names])
                       for n, word in modules]
            groups += [(Intent("choose", f"{actor}{ACTOR}discard:{card}"),
                        [t.format(name=name, card=c) for t in said["named_discard"]
                         for name in names for c in cards[card]]) for card in CARD_TYPES]
            groups += [(Intent("choose", f"{actor}{ACTOR}block:{target}"),
                        [t.format(name=name, target=w) for t in said["named_block"]
                         for name in names for w in self.seats.targets(target, actor)])
                       for target in players]
        return groups

    def follow_ups(self, decision: Decision, half: str) -> Choices:
        """After "add", "discard" or "block" alone, the host asks for the rest: a module
        ("two"), a card ("energy") or a player ("tiger") said alone finishes the move."""
        verb, colon, rest = half.partition(":")
        if decision.kind != "turn" or not colon or rest or verb not in ("add", "discard", "block"):
            return []
        said = self.table.intents["turn"][f"{verb}_rest"]
        if verb == "add":
            return [(Intent("choose", f"add:{n}"), [t.format(module=word) for t in said])
                    for n, word in enumerate(self.table.intents["module_numbers"], 1)]
        if verb == "discard":
            return [(Intent("choose", f"discard:{card}"),
                     [t.format(card=c) for t in said for c in self.table.intents["cards"][card]])
                    for card in CARD_TYPES]
        return [(Intent("choose", f"block:{target}"),
                 [t.format(target=w) for t in said
                  for w in self.seats.targets(target, decision.decider)])
                for target in range(self.table.game.players)]

    def _reveal_choices(self) -> list[tuple[Intent, list[str]]]:
        """Every read-out of the full module's size, and one card short (refused aloud): the
        cards in any order, or their counts in any order ("two mechanics and one energy"), a
        single card's count said or not ("two mechanics and energy")."""
        said = self.table.intents["reveal"]
        size = len(self._revealing_demand())
        groups: dict[str, list[str]] = {}
        for length in (size, size - 1):
            for cards in product(CARD_TYPES, repeat=length):
                words = [said["words"][card] for card in cards]
                value = ",".join(in_card_order(cards))
                phrases = groups.setdefault(value, [])
                phrases.append(" ".join(words))
                if length > 1:
                    phrases.append(" ".join([*words[:-1], said["join"], words[-1]]))
        for value in list(groups):
            cards = read_out(value)
            counts = Counter(cards)
            # a single card may be said without its count: "energy and two mechanics"
            kinds = [[f"{said['counts'][counts[card] - 1]} "
                      f"{said['plural' if counts[card] > 1 else 'words'][card]}",
                      *([said["words"][card]] if counts[card] == 1 else [])]
                     for card in CARD_TYPES if counts[card]]
            groups[value] += [f" {said['join']} ".join(order) for parts in product(*kinds)
                              for order in permutations(parts)]
            if size == len(COMPONENTS) and counts == Counter(COMPONENTS):
                groups[value] += said["one_of_each"]
        return [(Intent("choose", value), phrases) for value, phrases in groups.items()]

    def _revealing_demand(self) -> tuple[str, ...]:
        index = self.table.game.revealing
        return self.table.robot[index] if index is not None else ()

    def action_for(self, decision: Decision, value: str) -> Action:
        if ACTOR in value:
            seat, _, choice = value.partition(ACTOR)
            return Action("turn", int(seat), choice)
        return Action(decision.kind, decision.decider, value)

    def describe_choice(self, decision: Decision, value: str) -> str:
        if decision.kind == "reveal":
            return self.lines("revealed", name=self.seats.name_of(decision.decider),
                              cards=self.table.words.cards_said(read_out(value)))
        return self.describe_action(self.action_for(decision, value))

    def describe_action(self, action: Action) -> str:
        """A past move in words, e.g. for "Undone: Fox added a card to module two"."""
        if action.kind == DECK_DECISION:
            return super().describe_action(action)
        if action.kind == "first_player" or action.player is None:
            if action.choice == HOST_PICKS:
                return self.lines("moved_first_lot")
            return self.lines("moved_first", name=self.seats.name_of(int(action.choice)))
        name = self.seats.name_of(action.player)
        if action.kind == "reveal":
            return self.lines("moved_reveal", name=name, cards=self.table.words.cards_said(
                read_out(action.choice)))
        verb, _, target = action.choice.partition(":")
        if verb == "add":
            return self.lines("moved_add", name=name, module=self.table.words.number(int(target)))
        if verb == "discard":
            return self.lines("moved_discard", name=name, card=self.lines(f"a_{target}"))
        return self.lines("moved_block", name=name, target=self.seats.name_of(int(target)))

    def refuse(self, illegal: IllegalAction, decision: Decision) -> str:
        facts, line = illegal.facts, self.lines
        name = self.seats.name_of(decision.decider) if decision.decider is not None else ""
        reason = illegal.reason
        if reason == "no_such_module":
            return (line("add_which") if not facts["got"]
                    else line("no_such_module", got=self.table.words.number(int(facts["got"]))))
        if reason == "module_assembled":
            return line("module_done", module=self.table.words.number(facts["module"]))
        if reason == "unknown_card" and decision.kind == "turn":
            return line("discard_which")
        if reason == "none_left":
            return line("none_left", total=CARDS_IN_BOX[facts["card"]],
                        card=card_word(facts["card"]))
        if reason == "no_such_seat" and decision.kind == "turn":
            return line("block_whom")
        if reason == "block_yourself":
            return line("block_yourself")
        if reason == "already_blocked":
            return line("already_blocked", target=self.seats.name_of(facts["target"]))
        if reason == "no_blocks_left":
            return line("no_blocks_left")
        if reason == "no_block_in_hand":
            return line("no_block_in_hand", name=self.seats.name_of(facts["player"]))
        if reason == "empty_hand":
            return line("empty_hand", player=self.seats.name_of(facts["player"]), name=name)
        if reason == "not_your_turn":
            return line("not_your_turn", name=name)
        if reason == "wrong_count":
            module = self.table.game.revealing + 1 if self.table.game.revealing is not None else 0
            return line("wrong_count", module=self.table.words.number(module), cards=facts["cards"])
        if reason == "more_than_the_game_has":
            card = facts["card"]
            return line("too_many_of", total=CARDS_IN_BOX[card], card=card_word(card),
                        seen=CARDS_IN_BOX[card] - facts["face_down"])
        return super().refuse(illegal, decision)


class OperationNarrator(Narrator["SecretOperationTable"]):
    """Says each move and draw, the modules assembled or failed, who won, and the state of the
    modules, the deck, the hands and the discard pile."""

    def narrate(self, events: Sequence[Event]) -> list[str]:
        said: list[str] = []
        sitting_out: list[int] = []  # empty hands skipped in a row: said in one line
        for event in events:
            if event.kind == "turn_skipped" and event.facts["reason"] == "empty_hand":
                sitting_out.append(event.facts["player"])
                continue
            said += self._sit_out(sitting_out)
            sitting_out = []
            said += self.say(event)
        return said + self._sit_out(sitting_out)

    def _sit_out(self, seats: list[int]) -> list[str]:
        if not seats:
            return []
        names = self.seats.names_of(seats)
        return [self.lines("skipped_empty_one" if len(seats) == 1 else "skipped_empty",
                           names=names)]

    def _say_first_player(self, facts: dict[str, Any]) -> list[str]:
        key = "first_by_lot" if facts["by_lot"] else "first_is"
        return [self.lines(key, name=self.seats.name_of(facts["player"]))]

    def _say_card_added(self, facts: dict[str, Any]) -> list[str]:
        return [self.lines("card_added", name=self.seats.name_of(facts["player"]),
                           module=self.table.words.number(facts["module"]), count=facts["count"],
                           demand=facts["demand"])]

    def _say_module_full(self, facts: dict[str, Any]) -> list[str]:
        return [Cue("sting"), self.lines("module_full", name=self.seats.name_of(facts["player"]),
                           module=self.table.words.number(facts["module"]),
                           cards=len(facts["demand"]))]

    def _say_module_assembled(self, facts: dict[str, Any]) -> list[str]:
        return [capital(self.lines("module_assembled",
                                   cards=self.table.words.cards_said(facts["cards"]),
                                   module=self.table.words.number(facts["module"]),
                                   assembled=facts["assembled"]))]

    def _say_module_failed(self, facts: dict[str, Any]) -> list[str]:
        return [capital(self.lines("module_failed",
                                   cards=self.table.words.cards_said(facts["cards"]),
                                   module=self.table.words.number(facts["module"]),
                                   demand=self.table.words.cards_said(facts["demand"])))]

    def _say_card_discarded(self, facts: dict[str, Any]) -> list[str]:
        card = self.lines(f"a_{facts['card']}")
        return [capital(self.lines("card_discarded", name=self.seats.name_of(facts["player"]),
                                   card=card))]

    def _say_block_played(self, facts: dict[str, Any]) -> list[str]:
        return [self.lines("block_played", name=self.seats.name_of(facts["player"]),
                           target=self.seats.name_of(facts["target"]))]

    def _say_card_drawn(self, facts: dict[str, Any]) -> list[str]:
        name, left = self.seats.name_of(facts["player"]), facts["deck"]
        if left == 0:
            return [self.lines("draw_last", name=name)]
        if left <= self.table.settings.low_deck:
            return [self.lines("draw_low", name=name, left=self.table.words.deck_said(left))]
        return [self.lines("draw", name=name)]

    def _say_turn_skipped(self, facts: dict[str, Any]) -> list[str]:
        return [self.lines("skipped_blocked", name=self.seats.name_of(facts["player"]))]

    def _say_game_over(self, facts: dict[str, Any]) -> list[str]:
        key = f"{facts['winner']}_win" + ("_none" if facts["assembled"] == 0 else "")
        if "winners" not in facts:
            return [Cue("fanfare"), self.lines(key, assembled=facts["assembled"])]
        impostors = self.seats.names_of(self.table.game.impostor_seats())
        return [Cue("fanfare"), self.lines(f"printed_{key}", assembled=facts["assembled"]),
                self.lines("printed_impostors", names=impostors,
                           winners=self.seats.names_of(facts["winners"]))]

    narrators = {
        FirstPlayer: _say_first_player,
        CardAdded: _say_card_added,
        ModuleFull: _say_module_full,
        ModuleAssembled: _say_module_assembled,
        ModuleFailed: _say_module_failed,
        CardDiscarded: _say_card_discarded,
        BlockPlayed: _say_block_played,
        CardDrawn: _say_card_drawn,
        TurnSkipped: _say_turn_skipped,
        GameOver: _say_game_over,
    }

    def recap(self, decision: Decision) -> list[str]:
        return [] if self.table.waiting_for_deck() else [self.status()]

    def standings(self) -> str:
        if self.table.waiting_for_deck():
            return self.table.questions.deck_prompt()
        game = self.table.rules
        if game.winner is not None:
            return self.lines(f"progress_over_{game.winner}", assembled=game.assembled())
        return self.lines("progress", assembled=game.assembled(),
                          deck=self.table.words.deck_said(game.deck))

    def tally(self) -> list[str]:
        return [self._discard_pile()]

    def _discard_pile(self) -> str:
        if self.table.waiting_for_deck():
            return self.lines("discard_pile_empty")
        pile = self.table.game.discard_pile
        return (self.lines("discard_pile", cards=self.table.words.counted(pile)) if pile
                else self.lines("discard_pile_empty"))

    def status(self) -> str:
        """The modules, the deck, the hands, the blocks, and whose turn it is."""
        if self.table.waiting_for_deck():
            return self.standings()
        game, line = self.table.rules, self.lines
        if game.winner is not None:
            return self.standings()
        modules = [line("status_module_done", module=self.table.words.number(n)) if m.assembled
                   else line("status_module", module=self.table.words.number(n), count=m.cards,
                             demand=len(m.demand))
                   for n, m in enumerate(game.modules, 1)]
        said = [line("status_intro"), line("status_modules", modules="; ".join(modules)),
                line("status_deck", deck=self.table.words.deck_said(game.deck)) if game.deck
                else line("status_deck_empty")]
        if len(set(game.hands)) == 1:
            said.append(line("status_hands_same", cards=self.table.words.hand(game.hands[0])))
        else:
            hands = [line("status_hand", name=self.seats.name_of(s), count=n)
                     for s, n in enumerate(game.hands)]
            said.append(line("status_hands", hands=", ".join(hands)))
        if game.blocked:
            said.append(line("status_blocked",
                             names=self.seats.names_of(sorted(game.blocked))))
        said.append(self._discard_pile())
        if game.turn is not None:
            if game.revealing is not None:
                said.append(line("status_reveal", name=self.seats.name_of(game.turn),
                                 module=self.table.words.number(game.revealing + 1)))
            else:
                said.append(line("status_turn", name=self.seats.name_of(game.turn)))
        return " ".join(said)


class SecretOperationTable(Table):
    name = "secret_operation"
    title = TITLE
    deck_game = NAME
    decisions = ("first_player", "turn", "reveal")
    settings_type = Settings
    score_events = ("module_assembled", "module_failed")
    questions_type = OperationQuestions
    referee_type = OperationReferee
    narrator_type = OperationNarrator

    def __init__(self, seats: Seats, seed: int, settings: Settings | None = None,
                 cards: str | None = None) -> None:
        players = len(seats.names)
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise ValueError(f"Secret Operation is for {MIN_PLAYERS} to {MAX_PLAYERS} players, "
                             f"not {players}.")
        settings = settings or Settings()
        self.board_data = boards = load_yaml("secret_operation/boards.yaml")
        self.plain_robot = read_boards(boards).robot(players)
        self.robot = read_boards(boards).robot(players, settings.super_engineer)
        harder = settings.super_engineer
        self.boards = [m["board"] for m in boards["challenge"][:harder]]
        self.boards += [m["board"] for m in boards["robots"][players][harder:]]
        self.intents = load_yaml("secret_operation/intents.yaml")
        super().__init__(seats, seed, settings, cards)
        self.words = OperationWords(self)

    def _boxed_game(self) -> Any:
        return SecretOperation(len(self.seats.names), self.seed, self.robot)

    # -- printed cards ----------------------------------------------------------------------

    def _printed_game(self, deck: Deck) -> SecretOperation:
        on_card = operation_layout(deck, self.board_data).identities
        cards = letters(deck.players)
        identities = [on_card[cards.index(letter)] for letter in self.card_letters()]
        return SecretOperation(deck.players, self.seed, self.robot, identities)

    @property
    def rules(self) -> SecretOperation:
        """The rules engine itself (with printed cards, `game.deck` is the printed deck)."""
        return self.game.inner if isinstance(self.game, PrintedCards) else self.game

    def printed_secrets(self, deck: Deck) -> dict[str, Any]:
        return {"identities": dict(zip(self.seats.names, self.game.identities, strict=True))}

    def example_decision(self, kind: str, which: int = 0) -> Decision:
        """The decision of `kind` as the host would ask it (for `voicehost hear`); sets the
        game to a moment where it is pending: the start, `which`'s first turn, or `which`
        reading out module one."""
        if kind not in self.decisions:
            raise ValueError(f"Secret Operation has no decision {kind!r}; "
                             f"try: {', '.join(self.decisions)}")
        players = self.game.players
        actions = [] if kind == "first_player" else [Action("first_player", None, str(which))]
        if kind == "reveal":
            cards = len(self.robot[0])
            first = (which - cards + 1) % players  # module one fills up at seat which's add
            actions = [Action("first_player", None, str(first))]
            actions += [Action("turn", (first + i) % players, "add:1") for i in range(cards)]
        self.replay(actions)
        decision = self.game.pending()
        assert decision is not None and decision.kind == kind
        return decision
