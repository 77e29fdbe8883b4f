"""The hold'em engine (layer 0): cards, hand evaluation, equity, the HUNL state machine.

Imports numpy (and numba for compiled kernels) and nothing else of pokerai.
"""

from __future__ import annotations

from pokerai.engine.cards import (
    DECK,
    NUM_CARDS,
    RANKS,
    SUITS,
    format_card,
    format_cards,
    make_card,
    parse_card,
    parse_cards,
    rank_of,
    suit_of,
)

__all__ = [
    "DECK",
    "NUM_CARDS",
    "RANKS",
    "SUITS",
    "format_card",
    "format_cards",
    "make_card",
    "parse_card",
    "parse_cards",
    "rank_of",
    "suit_of",
]
