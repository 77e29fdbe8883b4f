"""Card and action abstraction (layer 1): suit isomorphism, equity histograms, EMD buckets, bet menus.

* :mod:`~pokerai.abstraction.isomorphism` -- a perfect index of hands up to suit relabelling;
* :mod:`~pokerai.abstraction.histograms` -- exact river strength, preflop equity, equity histograms;
* :mod:`~pokerai.abstraction.clustering` -- EMD (1-D Wasserstein) k-medians and percentile buckets;
* :mod:`~pokerai.abstraction.buckets` -- building, saving, loading and looking up bucket tables;
* :mod:`~pokerai.abstraction.bets` -- bet menus as fixed action slots and off-tree translation.
"""

from pokerai.abstraction.bets import (
    BetAbstraction,
    BetMenu,
    pseudo_harmonic,
    slot_actions,
    slot_names,
    translate,
)
from pokerai.abstraction.buckets import (
    AbstractionConfig,
    AbstractionError,
    CardAbstraction,
    build_abstraction,
    load_abstraction_config,
)
from pokerai.abstraction.isomorphism import HandIndexer, street_indexer

__all__ = [
    "AbstractionConfig",
    "AbstractionError",
    "BetAbstraction",
    "BetMenu",
    "CardAbstraction",
    "HandIndexer",
    "build_abstraction",
    "load_abstraction_config",
    "pseudo_harmonic",
    "slot_actions",
    "slot_names",
    "street_indexer",
    "translate",
]
