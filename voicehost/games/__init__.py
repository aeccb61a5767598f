"""The rules of each game, pure. PLAYER_RANGES: how many may play each, as its rules say."""

from voicehost.games import ferret_out, secret_operation, secret_squad

PLAYER_RANGES: dict[str, tuple[int, int]] = {
    "secret-squad": (secret_squad.MIN_PLAYERS, secret_squad.MAX_PLAYERS),
    "ferret-out": (ferret_out.MIN_PLAYERS, ferret_out.MAX_PLAYERS),
    "secret-operation": (secret_operation.MIN_PLAYERS, secret_operation.MAX_PLAYERS),
}
