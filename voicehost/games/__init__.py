"""The rules of each game, pure. RULES: every game, by its name, its rules module (NAME,
TITLE, DECK_CODE, MIN_PLAYERS and MAX_PLAYERS, Settings, EVENTS and the engine); what the
rest of voicehost knows of a game's title, deck code and player count comes from there."""

from types import ModuleType

from voicehost.games import ferret_out, secret_operation, secret_squad

RULES: dict[str, ModuleType] = {rules.NAME: rules
                                for rules in (secret_squad, ferret_out, secret_operation)}
PLAYER_RANGES: dict[str, tuple[int, int]] = {name: (rules.MIN_PLAYERS, rules.MAX_PLAYERS)
                                             for name, rules in RULES.items()}
