"""The rules of each game, pure. RULES is the one list of the games voicehost hosts: by its
name, each game's rules module (NAME, TITLE, DECK_CODE, MIN_PLAYERS and MAX_PLAYERS, Settings,
EVENTS and the engine). The registry finds each game's table by the module's name, and what
the rest of voicehost knows of a game's title, deck code and player count comes from here."""

from types import ModuleType

from voicehost.games import ferret_out, secret_operation, secret_squad

RULES: dict[str, ModuleType] = {rules.NAME: rules
                                for rules in (secret_squad, ferret_out, secret_operation)}
PLAYER_RANGES: dict[str, tuple[int, int]] = {name: (rules.MIN_PLAYERS, rules.MAX_PLAYERS)
                                             for name, rules in RULES.items()}
