"""Real-time search: re-solving each decision over the blueprint's beliefs (layer 5).

``subgame`` holds the game-independent part (public trees over hand vectors, CFR+, the safe
re-solving gadget, blending); ``leduc`` searches Leduc exactly. For hold'em, ``combos`` indexes
the 1,326 two-card combinations and ``beliefs`` gives both players' ranges from the blueprint.
``street`` re-solves any postflop street from its start, from five parts: ``tree`` (the
street's public tree), ``payoffs`` (its terminals and leaves), ``equity`` and ``showdown``
(the equity tables of the flop and turn, the river's showdowns), ``rollouts`` (the
depth-limited leaves' values) and ``buckets`` (hands that share a strategy). ``preflop``
holds the preflop all-in equities and ``allin`` answers an all-in off the menu; ``config``
holds the settings of :class:`pokerai.agents.search.SearchAgent`. The hold'em modules are
not imported here, so that importing the package stays light.
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
