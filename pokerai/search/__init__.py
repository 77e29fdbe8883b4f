"""Real-time search: re-solving each decision over the blueprint's beliefs (layer 5).

``subgame`` holds the game-independent part (public trees over hand vectors, CFR+, the safe
re-solving gadget, blending); ``leduc`` searches Leduc exactly; ``hunl`` re-solves the
hold'em river, ``turn`` the turn (depth-limited) and ``preflop`` the preflop betting for
:class:`pokerai.agents.search.SearchAgent` (they load torch, so they are not imported here).
"""

from pokerai.search.leduc import LeducSearch, LeducSearchConfig
from pokerai.search.subgame import Decision, Solution, Subgame, Terminal, blend, solve, with_resolve_gadget

__all__ = [
    "Decision",
    "LeducSearch",
    "LeducSearchConfig",
    "Solution",
    "Subgame",
    "Terminal",
    "blend",
    "solve",
    "with_resolve_gadget",
]
