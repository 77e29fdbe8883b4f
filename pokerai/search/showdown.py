"""River showdowns over the combinations: ranks and a river subgame's two payoff matrices.

On a five-card board, :func:`river_ranks` ranks the 1,081 combinations free of the board. Every river
subgame's terminals share two payoff matrices over those combinations
(:func:`river_matrices`, or the blocks a search needs by :func:`river_pair_matrices`):
"valid pair" (1 where the two hands share no card) for folds (:data:`FOLD_MATRIX`) and
the showdown sign matrix for showdowns (:data:`SHOWDOWN_MATRIX`), each scaled by the
chips at stake. The solve applies both by a card-removal sweep linear in the hands
(:func:`river_card_payoffs`, :class:`~pokerai.search.subgame.CardPayoffs`) rather than as
``[H, H]`` products.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from pokerai.engine.evaluator import rank_hands
from pokerai.search.combos import ALL_COMBOS, COMBO_BITS, combo_rows, combos_holding
from pokerai.search.subgame import SHARES_NO_CARD, SHOWDOWN, CardPayoffs

FOLD_MATRIX, SHOWDOWN_MATRIX = 0, 1
"""Indices of the two payoff matrices every river subgame shares."""


@functools.lru_cache(maxsize=8)
def river_ranks(board: tuple[int, ...]) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """The combinations free of the five-card ``board`` and their showdown ranks (higher wins).

    Returns ``hands`` int64 ``[H]`` (indices in :data:`~pokerai.search.combos.ALL_COMBOS`,
    ascending; H = 1,081) and ``ranks`` int64 ``[H]``. Cached for the last few boards (read-only arrays).
    """
    if len(board) != 5 or len(set(board)) != 5:
        raise ValueError(f"a river board is five distinct cards, got {list(board)}")
    hands = np.flatnonzero(~combos_holding(board)).astype(np.int64)
    cards = ALL_COMBOS[hands]
    seven = np.concatenate(
        [cards, np.broadcast_to(np.asarray(board, dtype=np.int64), (len(hands), 5))], axis=1
    )
    ranks = rank_hands(seven, validate=False).astype(np.int64)
    for array in (hands, ranks):
        array.flags.writeable = False
    return hands, ranks


def river_pair_matrices(
    board: tuple[int, ...], rows: npt.NDArray[np.int64], columns: npt.NDArray[np.int64]
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """The valid-pair and showdown blocks of :func:`river_matrices` for ``rows`` against ``columns``.

    ``rows`` and ``columns`` are combinations free of the five-card ``board`` (indices in
    :data:`~pokerai.search.combos.ALL_COMBOS`, ascending or not). Returns float64
    ``[len(rows), len(columns)]`` blocks, computed from the card bits and the showdown ranks
    directly, without the whole board's ``[1081, 1081]`` matrices. ValueError if a combination
    holds a board card.
    """
    possible, ranks = river_ranks(board)
    indices = [combo_rows(possible, hands) for hands in (rows, columns)]
    valid = (COMBO_BITS[rows][:, np.newaxis] & COMBO_BITS[columns][np.newaxis, :]) == 0
    row_ranks, column_ranks = ranks[indices[0]], ranks[indices[1]]
    wins = np.greater.outer(row_ranks, column_ranks).astype(np.int8)
    showdown = wins - np.less.outer(row_ranks, column_ranks)
    return valid.astype(np.float64), np.where(valid, showdown, 0).astype(np.float64)


@functools.lru_cache(maxsize=8)
def river_matrices(
    board: tuple[int, ...],
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """The hands and the two shared payoff matrices of a river subgame on the five-card ``board``.

    Returns ``hands`` int64 ``[H]`` (as :func:`river_ranks`) and float64 ``[H, H]``
    matrices: the valid-pair matrix (1 where the two hands share no card, else 0) and the
    showdown matrix (+1 where hand ``i`` beats hand ``j``, −1 where it loses, 0 on ties and
    invalid pairs). Cached for the last few boards (read-only arrays). The river search
    builds only the blocks it needs (:func:`river_pair_matrices`).
    """
    hands, _ = river_ranks(board)
    valid, showdown = river_pair_matrices(board, hands, hands)
    for array in (valid, showdown):
        array.flags.writeable = False
    return hands, valid, showdown


def river_card_payoffs(board: Sequence[int], hands: npt.NDArray[np.int64]) -> CardPayoffs:
    """The card structure of a river subgame's fold and showdown matrices over ``hands``.

    ``hands`` are the subgame's combinations (indices in :data:`~pokerai.search.combos.ALL_COMBOS`,
    free of the board). :func:`~pokerai.search.subgame.solve` then applies those two matrices in
    time linear in the hands instead of quadratic.
    """
    possible, ranks = river_ranks(tuple(board))
    rows = np.searchsorted(possible, hands)
    return CardPayoffs(
        cards=ALL_COMBOS[hands].astype(np.int64),
        ranks=ranks[rows],
        kinds={FOLD_MATRIX: SHARES_NO_CARD, SHOWDOWN_MATRIX: SHOWDOWN},
    )


__all__ = [
    "FOLD_MATRIX",
    "SHOWDOWN_MATRIX",
    "river_card_payoffs",
    "river_matrices",
    "river_pair_matrices",
    "river_ranks",
]
