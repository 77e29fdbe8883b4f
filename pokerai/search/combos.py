"""Hole-card combinations: the 1,326 two-card hands every hold'em search is vectorised over.

Ranges, beliefs and strategies are arrays over the combinations in the order of
:data:`ALL_COMBOS` (lower card first, lexicographic), and a subgame's hands are int64
indices into it. The tables here map two cards to their index (:data:`COMBO_INDEX`,
:func:`combo_index`), a card to the combinations that hold it (:data:`CARD_IN_COMBO`,
:func:`combos_holding`) and a combination to its two cards as bits (:data:`COMBO_BITS`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from pokerai.engine.cards import NUM_CARDS

NUM_COMBOS = NUM_CARDS * (NUM_CARDS - 1) // 2
"""Two-card combinations: 1,326."""

ALL_COMBOS: npt.NDArray[np.int64] = np.array(
    [(first, second) for first in range(NUM_CARDS) for second in range(first + 1, NUM_CARDS)], dtype=np.int64
)
"""The 1,326 hole-card combinations, int64 ``[1326, 2]``, lower card first, in lexicographic order
(local best response uses the same array)."""

COMBO_INDEX: npt.NDArray[np.int64] = np.full((NUM_CARDS, NUM_CARDS), -1, dtype=np.int64)
"""int64 ``[52, 52]``: the index in :data:`ALL_COMBOS` of the combination of two cards (either order);
-1 on the diagonal."""
COMBO_INDEX[ALL_COMBOS[:, 0], ALL_COMBOS[:, 1]] = np.arange(NUM_COMBOS)
COMBO_INDEX[ALL_COMBOS[:, 1], ALL_COMBOS[:, 0]] = np.arange(NUM_COMBOS)

CARD_IN_COMBO: npt.NDArray[np.bool_] = np.zeros((NUM_CARDS, NUM_COMBOS), dtype=np.bool_)
"""bool ``[52, 1326]``: whether card ``c`` is one of combination ``k``'s two cards."""
CARD_IN_COMBO[ALL_COMBOS[:, 0], np.arange(NUM_COMBOS)] = True
CARD_IN_COMBO[ALL_COMBOS[:, 1], np.arange(NUM_COMBOS)] = True


def combo_index(first: int, second: int) -> int:
    """The index in :data:`ALL_COMBOS` of the two distinct cards ``first`` and ``second`` (either order)."""
    if not (0 <= first < NUM_CARDS and 0 <= second < NUM_CARDS) or first == second:
        raise ValueError(f"cards ({first}, {second}) are not two distinct card ids 0..{NUM_CARDS - 1}")
    return int(COMBO_INDEX[first, second])


def combos_holding(cards: Sequence[int]) -> npt.NDArray[np.bool_]:
    """bool ``[1326]``: the combinations that hold at least one of ``cards``."""
    if len(cards) == 0:
        return np.zeros(NUM_COMBOS, dtype=np.bool_)
    return np.asarray(CARD_IN_COMBO[list(cards)].any(axis=0), dtype=np.bool_)


def combo_rows(table: npt.NDArray[np.int64], hands: npt.ArrayLike) -> npt.NDArray[np.int64]:
    """The positions of ``hands`` in ``table``, an ascending array of combinations; ValueError if one
    is not in it (a hand that holds a board card, where ``table`` holds the combinations free of it)."""
    rows = np.searchsorted(table, hands)
    if np.any(rows >= len(table)) or np.any(table[np.minimum(rows, len(table) - 1)] != hands):
        raise ValueError(f"hands {np.asarray(hands).tolist()} are not all combinations free of board cards")
    return rows


COMBO_BITS: npt.NDArray[np.uint64] = (np.uint64(1) << ALL_COMBOS[:, 0].astype(np.uint64)) | (
    np.uint64(1) << ALL_COMBOS[:, 1].astype(np.uint64)
)
"""uint64 ``[1326]``: each combination's two cards as bits (two combinations share a card where the
bitwise and of theirs is not 0)."""


__all__ = [
    "ALL_COMBOS",
    "CARD_IN_COMBO",
    "COMBO_BITS",
    "COMBO_INDEX",
    "NUM_COMBOS",
    "combo_index",
    "combo_rows",
    "combos_holding",
]
