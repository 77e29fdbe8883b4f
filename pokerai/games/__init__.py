"""Games behind one protocol: Kuhn, Leduc and the AKQ game.

Heads-up no-limit hold'em follows the same protocol in :mod:`pokerai.games.hunl`, imported from
there: it needs the engine and the bet abstraction, which these small games do not.
"""

from __future__ import annotations

from pokerai.games.akq import AKQGame
from pokerai.games.kuhn import KuhnPoker
from pokerai.games.leduc import LeducPoker
from pokerai.games.protocol import CHANCE, TERMINAL, Game, State

GAME_NAMES = ("kuhn", "leduc", "akq")


def make_game(name: str, *, bet_size: float | None = None) -> Game:
    """The game called ``name`` (one of ``GAME_NAMES``).

    ``bet_size`` is the AKQ game's bet as a fraction of the pot (default 1); it
    is an error to pass it for the other games.
    """
    if name not in GAME_NAMES:
        raise ValueError(f"unknown game {name!r}; choose one of {', '.join(GAME_NAMES)}")
    if name == "akq":
        return AKQGame(1.0 if bet_size is None else bet_size)
    if bet_size is not None:
        raise ValueError(f"--bet-size only applies to the akq game, not {name}")
    return KuhnPoker() if name == "kuhn" else LeducPoker()


__all__ = [
    "CHANCE",
    "GAME_NAMES",
    "TERMINAL",
    "AKQGame",
    "Game",
    "KuhnPoker",
    "LeducPoker",
    "State",
    "make_game",
]
