"""The hold'em engine (layer 0): cards, hand evaluation, equity, the HUNL state machine, histories.

Imports numpy and nothing else of pokerai.
"""

from __future__ import annotations

from pokerai.engine.cards import (
    BOARD_SIZES,
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
from pokerai.engine.equity import EquityResult, equity, hand_vs_range, parse_range, range_equity
from pokerai.engine.evaluator import (
    CATEGORIES,
    NUM_RANKS,
    hand_categories,
    hand_category,
    rank_hand,
    rank_hands,
)
from pokerai.engine.history import ACPCLine, format_history, parse_acpc, to_acpc
from pokerai.engine.state import Action, ActionKind, HUNLConfig, HUNLState, Street

__all__ = [
    "BOARD_SIZES",
    "CATEGORIES",
    "DECK",
    "NUM_CARDS",
    "NUM_RANKS",
    "RANKS",
    "SUITS",
    "ACPCLine",
    "Action",
    "ActionKind",
    "EquityResult",
    "HUNLConfig",
    "HUNLState",
    "Street",
    "equity",
    "format_card",
    "format_cards",
    "format_history",
    "hand_categories",
    "hand_category",
    "hand_vs_range",
    "make_card",
    "parse_acpc",
    "parse_card",
    "parse_cards",
    "parse_range",
    "range_equity",
    "rank_hand",
    "rank_hands",
    "rank_of",
    "suit_of",
    "to_acpc",
]
