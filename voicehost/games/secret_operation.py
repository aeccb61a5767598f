"""Secret Operation, the rules alone (docs/rules-secret-operation.md).

Theory of operation. The cards are physical and the host never sees them: identity cards are
dealt at the table (the engine knows how many impostors, not who), and component cards stay
face down in hands, in the deck and on the modules. So the engine keeps what the table can
know: how many cards are in the deck and in each hand, how many lie face down on each module,
who has a block in front of them, and every card that has been turned face up (the discard
pile, the assembled modules in the lab, the blocks in play). `status()` reads it all out.
The engine reads no files: the host loads prompts/secret_operation/boards.yaml, checks it with
`read_boards`, and passes `boards.robot(players, super_engineer)` as the module demands.

`pending()` names the next decision:

    first_player  who does the best broken robot impersonation → Decision("first_player", None,
                  seats + ("host_picks",)); "host_picks" draws the seat by lot (seeded)
    turn          the current player acts → Decision("turn", seat, ("add:1", ..., "discard:energy",
                  ..., "block:3", ...)); the player says what they did
    reveal        the player who placed a module's last card reads the cards out →
                  Decision("reveal", seat, ("mechanics,electronics,energy", ...)); one
                  option per multiset, listed in card order, but any order is accepted

After an action (and its reveal, if the card filled a module) the player draws if the deck has
cards and the turn passes left (seat + 1). Players who cannot act are skipped by the engine
itself, each with a `turn_skipped` event: a blocked player (the block goes to the discard pile
and the whole turn is lost, draw included) and a player with an empty hand.

Three rules keep it honest:
1. An action that breaks a rule raises IllegalAction with the rule's name and changes nothing.
2. The options are exactly the legal choices; the engine refuses a claim only when the cards
   already face up prove it false (an eleventh energy, a block from a hand never drawn to).
3. Card conservation: deck + hands + module cards + discard pile + lab + blocks in play
   = 44 - the cards set aside at setup, after every action.

Rulebook points left open, and how the engine decides them:
- The 8 cards set aside unseen in a 4-player game are out of the game and not in the
  discard pile (only face-up cards are in the pile).
- A block goes to another player who has no block in front of them: blocks do not stack.
  A player with an empty hand may still be blocked (the block is discarded at their turn).
- A blocked player skips the whole turn, the draw too.
- A player with an empty hand is skipped (turn_skipped, reason "empty_hand"). Hands stay at
  three cards while the deck lasts, so this happens only once the deck is empty.
- Play goes on after the deck runs out; the impostors win when the deck and every hand are
  empty with fewer than four modules assembled ("the cards in the game deck and player hands
  run out"). The engineers win the moment the fourth module is assembled.
- The player who fills a module reveals it before drawing.
- Any card may be added face down, a block too (the impostors' sabotage): it shows at the
  reveal and fails the module. A discard names its card, since it lands face up.
- Cards still face down on unfinished modules when the cards run out are never revealed.
- A reveal is read in any order; an exact match of the demand as a multiset assembles the
  module; anything else (a block among the cards included) fails and goes face up to the
  discard pile, and the module starts over.
- The engine knows sides, not seats: `winner` is "engineers" or "impostors" and `winners()`
  is empty; `scores` stay zero (the game has none).

Seats are 0-based; modules are numbered 1 to 4 as the host says them.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations_with_replacement
from typing import Any

from voicehost.games.base import Action, Decision, Event, IllegalAction, Phase, PhasedGame

COMPONENTS = ("mechanics", "electronics", "energy")
BLOCK = "block"
CARD_TYPES = (*COMPONENTS, BLOCK)
CARDS_IN_BOX = {"mechanics": 18, "electronics": 12, "energy": 10, BLOCK: 4}
ALL_CARDS = sum(CARDS_IN_BOX.values())
HAND_SIZE = 3
MODULES = 4
FOUR_PLAYER_SET_ASIDE = 8
NAME = "secret-operation"  # on the command line, in journals and deck numbers
TITLE = "Secret Operation"  # said aloud and printed
DECK_CODE = 3  # the first digit of its printed decks' numbers
MIN_PLAYERS, MAX_PLAYERS = 4, 10
SOURCES = ("rulebook", "voicehost")
HOST_PICKS = "host_picks"
ENGINEERS, IMPOSTORS = "engineers", "impostors"
ENGINEER, IMPOSTOR = "engineer", "impostor"  # one identity card

Demand = tuple[str, ...]


# -- what can happen: the events `apply` returns ---------------------------------------------

class FirstPlayer(Event, kind="first_player"):
    player: int
    by_lot: bool  # the host drew the first player


class CardAdded(Event, kind="card_added"):
    """A card went face down on `module` (1-based): `count` cards of its `demand` now."""

    player: int
    module: int
    count: int
    demand: int


class CardDiscarded(Event, kind="card_discarded"):
    player: int
    card: str


class BlockPlayed(Event, kind="block_played"):
    player: int
    target: int


class CardDrawn(Event, kind="card_drawn"):
    """`player` drew; `deck` cards are left."""

    player: int
    deck: int


class ModuleFull(Event, kind="module_full"):
    player: int
    module: int
    demand: list[str]


class ModuleAssembled(Event, kind="module_assembled"):
    module: int
    cards: list[str]
    assembled: int


class ModuleFailed(Event, kind="module_failed"):
    module: int
    cards: list[str]
    demand: list[str]


class TurnSkipped(Event, kind="turn_skipped"):
    player: int
    reason: str  # "blocked" or "empty_hand"


class GameOver(Event, kind="game_over"):
    """`winners`: the winning seats, known only with printed identity cards."""

    winner: str
    assembled: int
    winners: list[int] | None = None


EVENTS = (FirstPlayer, CardAdded, CardDiscarded, BlockPlayed, CardDrawn, ModuleFull,
          ModuleAssembled, ModuleFailed, TurnSkipped, GameOver)


# -- setup counts ---------------------------------------------------------------------------


def impostor_count(players: int) -> int:
    """Impostor identity cards in play: 1 at 4 players, 2 at 5 to 7, 3 at 8 to 10."""
    return 1 if players == 4 else 2 if players <= 7 else 3


def set_aside_count(players: int) -> int:
    """Cards taken unseen off the top of the deck at setup: 8 in a 4-player game."""
    return FOUR_PLAYER_SET_ASIDE if players == 4 else 0


def starting_deck(players: int) -> int:
    """Components left after dealing three each, plus the blocks, minus the set-aside."""
    components = sum(CARDS_IN_BOX[c] for c in COMPONENTS)
    return (components - HAND_SIZE * players + CARDS_IN_BOX[BLOCK]
            - set_aside_count(players))


# -- the robot's boards, as data --------------------------------------------------------------


class BoardError(ValueError):
    """The boards data breaks a rule; the message says where."""


@dataclass(frozen=True)
class Boards:
    """The four module demands for each player count, and the super-engineer modules."""

    robots: dict[int, tuple[Demand, ...]]
    challenge: tuple[Demand, ...]

    def robot(self, players: int, super_engineer: int = 0) -> tuple[Demand, ...]:
        """The modules for `players`, the first `super_engineer` swapped for challenge ones."""
        if players not in self.robots:
            raise BoardError(f"no robot for {players} players")
        if not 0 <= super_engineer <= len(self.challenge):
            raise BoardError(f"super_engineer must be 0 to {len(self.challenge)}")
        modules = list(self.robots[players])
        modules[:super_engineer] = self.challenge[:super_engineer]
        return tuple(modules)


def check_demand(demand: Any, where: str) -> Demand:
    """A module's demand: a non-empty list of component types (a block is not a component)."""
    if isinstance(demand, str) or not isinstance(demand, Sequence) or not demand:
        raise BoardError(f"{where}: demand must be a non-empty list of components")
    for component in demand:
        if component not in COMPONENTS:
            raise BoardError(f"{where}: {component!r} is not one of {', '.join(COMPONENTS)}")
    return tuple(demand)


def check_robot(modules: Any, where: str = "robot") -> tuple[Demand, ...]:
    """Four module demands that the box holds enough components to build together."""
    if isinstance(modules, str) or not isinstance(modules, Sequence):
        raise BoardError(f"{where}: expected a list of {MODULES} modules")
    if len(modules) != MODULES:
        raise BoardError(f"{where}: a robot has {MODULES} modules, got {len(modules)}")
    robot = tuple(check_demand(d, f"{where} module {n}") for n, d in enumerate(modules, 1))
    needed = Counter(component for demand in robot for component in demand)
    for component, count in needed.items():
        if count > CARDS_IN_BOX[component]:
            raise BoardError(f"{where}: needs {count} {component}, the box has "
                             f"{CARDS_IN_BOX[component]}")
    return robot


def _read_module(entry: Any, where: str) -> Demand:
    if not isinstance(entry, Mapping):
        raise BoardError(f"{where}: expected a mapping with demand, source and why")
    if entry.get("source") not in SOURCES:
        raise BoardError(f"{where}: source must be one of {', '.join(SOURCES)}")
    why = entry.get("why")
    if not isinstance(why, str) or not why.strip():
        raise BoardError(f"{where}: say why in one line")
    return check_demand(entry.get("demand"), where)


def read_boards(data: Any) -> Boards:
    """Check the boards data (as loaded from boards.yaml) and return the demands it holds."""
    if not isinstance(data, Mapping) or not isinstance(data.get("robots"), Mapping):
        raise BoardError("boards: expected a mapping with robots and challenge")
    counts = {int(players): modules for players, modules in data["robots"].items()}
    if sorted(counts) != list(range(MIN_PLAYERS, MAX_PLAYERS + 1)):
        raise BoardError(f"robots: need exactly the counts {MIN_PLAYERS} to {MAX_PLAYERS}")
    robots: dict[int, tuple[Demand, ...]] = {}
    for players, modules in sorted(counts.items()):
        where = f"robots.{players}"
        if not isinstance(modules, list):
            raise BoardError(f"{where}: expected a list of {MODULES} modules")
        demands = [_read_module(m, f"{where}.{n}") for n, m in enumerate(modules, 1)]
        robots[players] = check_robot(demands, where)
    challenge_data = data.get("challenge")
    if not isinstance(challenge_data, list) or not 1 <= len(challenge_data) <= MODULES:
        raise BoardError(f"challenge: expected a list of 1 to {MODULES} modules")
    challenge = tuple(_read_module(m, f"challenge.{n}") for n, m in enumerate(challenge_data, 1))
    boards = Boards(robots, challenge)
    for players, robot in robots.items():
        for n, harder in enumerate(challenge):
            if len(harder) <= len(robot[n]):
                raise BoardError(f"challenge.{n + 1}: must demand more than module {n + 1} "
                                 f"for {players} players")
        check_robot(boards.robot(players, len(challenge)), f"challenge robot for {players}")
    return boards


# -- the game -----------------------------------------------------------------------------------


@dataclass
class Module:
    demand: Demand
    cards: int = 0  # face down on the board
    assembled: bool = False


def read_out(choice: str) -> list[str]:
    """The cards a player reads out: "energy, mechanics,block" → energy, mechanics, block."""
    return [card.strip() for card in choice.split(",")]


def in_card_order(cards: Sequence[str]) -> list[str]:
    """Mechanics, electronics, energy, block: the one order a read-out is listed in."""
    return sorted(cards, key=CARD_TYPES.index)


class Moves:
    """Which moves the cards allow now: a turn's add, discard or block, and a full module's
    read-out. A move that breaks a rule raises IllegalAction naming the rule; the options are
    exactly the moves that break none."""

    def __init__(self, game: SecretOperation) -> None:
        self.game = game

    def turn_options(self) -> tuple[str, ...]:
        candidates = [f"add:{n}" for n in range(1, MODULES + 1)]
        candidates += [f"discard:{card}" for card in CARD_TYPES]
        candidates += [f"block:{seat}" for seat in range(self.game.players)]
        return self._legal(self.check_turn, candidates)

    def reveal_options(self) -> tuple[str, ...]:
        size = len(self.game.revealing_module().demand)
        candidates = [",".join(cards) for cards in combinations_with_replacement(CARD_TYPES, size)]
        return self._legal(self.check_reveal, candidates)

    def _legal(self, check: Callable[[str, dict[str, int]], object],
               candidates: list[str]) -> tuple[str, ...]:
        face_down = self.game.face_down()
        legal = []
        for choice in candidates:
            try:
                check(choice, face_down)
            except IllegalAction:
                continue
            legal.append(choice)
        return tuple(legal)

    def check_turn(self, choice: str, face_down: dict[str, int]) -> tuple[str, str]:
        """The move named by `choice`, or IllegalAction naming the rule it breaks."""
        verb, _, target = choice.partition(":")
        if verb == "add":
            self._check_add(target)
        elif verb == "discard":
            self._check_discard(target, face_down)
        elif verb == "block":
            self._check_block(target, face_down)
        else:
            raise IllegalAction("bad_turn", got=choice, moves=("add", "discard", "block"))
        return verb, target

    def _check_add(self, target: str) -> None:
        if target not in (str(n) for n in range(1, MODULES + 1)):
            raise IllegalAction("no_such_module", got=target, modules=MODULES)
        if self.game.modules[int(target) - 1].assembled:
            raise IllegalAction("module_assembled", module=int(target))

    def _check_discard(self, card: str, face_down: dict[str, int]) -> None:
        if card not in CARD_TYPES:
            raise IllegalAction("unknown_card", got=card, cards=CARD_TYPES)
        if card == BLOCK:
            self._check_block_in_hand(face_down)
        elif face_down[card] == 0:
            raise IllegalAction("none_left", card=card, face_up=CARDS_IN_BOX[card])

    def _check_block(self, target: str, face_down: dict[str, int]) -> None:
        seat = self.game.mover()
        if target not in (str(other) for other in range(self.game.players)):
            raise IllegalAction("no_such_seat", got=target, players=self.game.players)
        if int(target) == seat:
            raise IllegalAction("block_yourself", player=seat)
        if int(target) in self.game.blocked:
            raise IllegalAction("already_blocked", target=int(target))
        self._check_block_in_hand(face_down)

    def _check_block_in_hand(self, face_down: dict[str, int]) -> None:
        if face_down[BLOCK] == 0:
            raise IllegalAction("no_blocks_left", face_up=CARDS_IN_BOX[BLOCK])
        if self.game.drawn[self.game.mover()] == 0:
            raise IllegalAction("no_block_in_hand", player=self.game.mover())

    def check_reveal(self, choice: str, face_down: dict[str, int]) -> list[str]:
        module = self.game.revealing_module()
        cards = read_out(choice)
        if len(cards) != len(module.demand):
            raise IllegalAction("wrong_count", got=len(cards), cards=len(module.demand))
        for card in cards:
            if card not in CARD_TYPES:
                raise IllegalAction("unknown_card", got=card, cards=CARD_TYPES)
        for card, count in Counter(cards).items():
            if count > face_down[card]:
                raise IllegalAction("more_than_the_game_has", card=card, claimed=count,
                                    face_down=face_down[card])
        return cards


class SecretOperation(PhasedGame):
    """The game's state as the table can know it, moved on by each decision; `Moves` judges
    what the cards allow."""

    def __init__(self, players: int, seed: int, modules: Sequence[Sequence[str]],
                 identities: Sequence[str] | None = None) -> None:
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise IllegalAction("player_count", low=MIN_PLAYERS, high=MAX_PLAYERS, got=players)
        self.players = players
        self.rng = random.Random(seed)
        self.impostors = impostor_count(players)
        # Printed identity cards: seat by seat, "engineer" or "impostor"; then the engine knows
        # the seats of each side and `winners()` names them.
        self.identities = None if identities is None else tuple(identities)
        if self.identities is not None and (
                len(self.identities) != players
                or self.identities.count(IMPOSTOR) != self.impostors
                or self.identities.count(ENGINEER) != players - self.impostors):
            raise IllegalAction("bad_identities", identities=self.identities)
        self.modules = [Module(demand) for demand in check_robot(modules)]
        self.set_aside = set_aside_count(players)
        self.deck = starting_deck(players)
        self.hands = [HAND_SIZE] * players
        self.drawn = [0] * players  # dealt hands hold no block: blocks join the deck after
        self.blocked: set[int] = set()
        self.discard_pile: list[str] = []
        self.phase = "first_player"
        self.turn: int | None = None
        self.revealing: int | None = None  # index of the full module being read out
        self.winner: str | None = None
        self.scores = [0] * players

    # -- what the table can know --------------------------------------------------------------

    def face_up(self) -> Counter[str]:
        """Every card turned face up: the discard pile, the lab, the blocks in play."""
        seen = Counter(self.discard_pile)
        seen.update(c for module in self.modules if module.assembled for c in module.demand)
        seen[BLOCK] += len(self.blocked)
        return seen

    def face_down(self) -> dict[str, int]:
        """Cards of each type never seen face up: in hands, the deck, on modules, set aside."""
        seen = self.face_up()
        return {card: CARDS_IN_BOX[card] - seen[card] for card in CARD_TYPES}

    def assembled(self) -> int:
        return sum(module.assembled for module in self.modules)

    def status(self) -> dict[str, Any]:
        seen = self.face_up()
        return {
            "players": self.players,
            "impostors": self.impostors,
            "engineers": self.players - self.impostors,
            "phase": self.phase,
            "turn": self.turn,
            "revealing": None if self.revealing is None else self.revealing + 1,
            "deck": self.deck,
            "set_aside": self.set_aside,
            "hands": list(self.hands),
            "blocked": sorted(self.blocked),
            "modules": [{"module": n, "demand": list(m.demand), "cards": m.cards,
                         "assembled": m.assembled} for n, m in enumerate(self.modules, 1)],
            "assembled": self.assembled(),
            "discard_pile": list(self.discard_pile),
            "face_up": {card: seen[card] for card in CARD_TYPES},
            "winner": self.winner,
        }

    # -- the host's question ------------------------------------------------------------------

    def _ask_first_player(self) -> Decision:
        seats = tuple(str(seat) for seat in range(self.players))
        return Decision("first_player", None, (*seats, HOST_PICKS))

    # -- moves --------------------------------------------------------------------------------

    def over_facts(self) -> dict[str, Any]:
        return {"winner": self.winner}

    def check_choice(self, action: Action, decision: Decision) -> None:
        """Only who moves: a move the rules forbid is refused by its phase's rule, which names
        the rule it breaks."""
        if (action.kind == "turn" and action.player in range(self.players)
                and self.hands[action.player] == 0):
            raise IllegalAction("empty_hand", player=action.player)
        self.check_mover(action, decision)

    def _first_player_rule(self, action: Action) -> None:
        if action.choice != HOST_PICKS and action.choice not in (str(seat) for seat
                                                                  in range(self.players)):
            raise IllegalAction("no_such_seat", got=action.choice, players=self.players)

    def _on_first_player(self, action: Action) -> list[Event]:
        if action.choice == HOST_PICKS:
            seat = self.rng.randrange(self.players)
        else:
            seat = int(action.choice)
        self.phase = "turn"
        self.turn = seat
        return [FirstPlayer(seat, action.choice == HOST_PICKS)]






    def _on_turn(self, action: Action) -> list[Event]:
        verb, target = Moves(self).check_turn(action.choice, self.face_down())
        seat = self.mover()
        self.hands[seat] -= 1
        if verb == "discard":
            self.discard_pile.append(target)
            return [CardDiscarded(seat, target),
                    *self._end_turn()]
        if verb == "block":
            self.blocked.add(int(target))
            return [BlockPlayed(seat, int(target)),
                    *self._end_turn()]
        return self._add_card(seat, int(target) - 1)

    def _add_card(self, seat: int, index: int) -> list[Event]:
        module = self.modules[index]
        module.cards += 1
        events = [CardAdded(seat, index + 1, module.cards, len(module.demand))]
        if module.cards < len(module.demand):
            return events + self._end_turn()
        self.phase = "reveal"
        self.revealing = index
        return events + [ModuleFull(seat, index + 1, list(module.demand))]


    def _on_reveal(self, action: Action) -> list[Event]:
        cards = Moves(self).check_reveal(action.choice, self.face_down())
        module = self.revealing_module()
        index = self.modules.index(module)
        self.revealing = None
        self.phase = "turn"
        module.cards = 0
        revealed = in_card_order(cards)
        if Counter(cards) == Counter(module.demand):
            module.assembled = True
            events = [ModuleAssembled(index + 1, revealed, self.assembled())]
            if self.assembled() == MODULES:
                return events + [self._game_over(ENGINEERS)]
            return events + self._end_turn()
        self.discard_pile.extend(revealed)
        return [ModuleFailed(index + 1, revealed, list(module.demand)), *self._end_turn()]

    PHASES = {
        "first_player": Phase(_ask_first_player, _on_first_player, _first_player_rule),
        "turn": Phase(lambda game: Decision("turn", game.turn, Moves(game).turn_options()),
                      _on_turn,
                      lambda game, action: Moves(game).check_turn(action.choice, game.face_down())),
        "reveal": Phase(lambda game: Decision("reveal", game.turn, Moves(game).reveal_options(),
                                              scoring=True), _on_reveal,
                        lambda game, action: Moves(game).check_reveal(action.choice,
                                                                     game.face_down())),
    }

    # -- turn bookkeeping ---------------------------------------------------------------------

    def _end_turn(self) -> list[Event]:
        """Draw if the deck has cards, then pass left to the next player who can act."""
        seat = self.mover()
        events = []
        if self.deck:
            self.deck -= 1
            self.hands[seat] += 1
            self.drawn[seat] += 1
            events.append(CardDrawn(seat, self.deck))
        return events + self._pass_turn(seat)

    def _pass_turn(self, seat: int) -> list[Event]:
        if self.deck == 0 and not any(self.hands):
            return [self._game_over(IMPOSTORS)]
        events = []
        while True:  # someone holds a card (hands stay full while the deck lasts): this ends
            seat = (seat + 1) % self.players
            if seat in self.blocked:
                self.blocked.remove(seat)
                self.discard_pile.append(BLOCK)
                events.append(TurnSkipped(seat, "blocked"))
            elif self.hands[seat] == 0:
                events.append(TurnSkipped(seat, "empty_hand"))
            else:
                self.turn = seat
                return events

    def mover(self) -> int:
        """The seat whose turn it is; asked only while a turn or a reveal is pending."""
        if self.turn is None:
            raise RuntimeError("no player's turn outside a turn or a reveal")
        return self.turn

    def revealing_module(self) -> Module:
        if self.revealing is None:
            raise RuntimeError("no module is being revealed")
        return self.modules[self.revealing]

    def _game_over(self, side: str) -> Event:
        self.phase = "over"
        self.turn = None
        self.winner = side
        return GameOver(side, self.assembled(),
                        None if self.identities is None else self.winners())

    def impostor_seats(self) -> list[int]:
        """With printed identity cards, who the impostors are; else empty."""
        return [s for s, who in enumerate(self.identities or ()) if who == IMPOSTOR]

    def winners(self) -> list[int]:
        """The winning side's seats with printed identity cards; with physical ones the seats
        are unknown to the engine (see `winner`) and this is empty."""
        if self.identities is None or self.winner is None:
            return []
        side = IMPOSTOR if self.winner == IMPOSTORS else ENGINEER
        return [s for s, who in enumerate(self.identities) if who == side]
