"""Real-time search: re-solving each decision over the blueprint's beliefs (layer 5).

``subgame`` holds the game-independent part (public trees over hand vectors, CFR+, the safe
re-solving gadget, blending); ``leduc`` searches Leduc exactly. For hold'em, ``combos`` indexes
the 1,326 two-card combinations, ``beliefs`` gives both players' ranges from the blueprint,
``showdown`` the river's showdown tables and ``tree`` the public-tree helpers the streets share;
``river`` re-solves the river from the decision, ``street`` re-solves any street from its
start (the street pipeline, depth-limited leaves before the river), ``preflop`` holds the
preflop all-in equities and ``allin`` answers an all-in off the menu, ``responses`` is the
search side of the opponent models learnt during a match, and ``config`` holds the settings of
:class:`pokerai.agents.search.SearchAgent` and :class:`pokerai.agents.street.StreetSearchAgent`.
The hold'em modules are not imported here, so that importing the package stays light.
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
