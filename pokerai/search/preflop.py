"""The preflop all-in equity of every pair of hands, for the preflop terminals of search.

:func:`preflop_equity_matrix` is each pair's all-in equity over seeded board run-outs
(built once per process, seconds, by a numba kernel that a warm-up thread may run). The
all-in answer (:mod:`pokerai.search.allin`) pays a called preflop shove by it.
"""

from __future__ import annotations

import functools
import threading

import numba
import numpy as np
import numpy.typing as npt

from pokerai.engine.evaluator import rank_hands
from pokerai.search.combos import ALL_COMBOS, CARD_IN_COMBO, NUM_COMBOS
from pokerai.search.equity import valid_pairs

EQUITY_BOARDS = 3000
"""Boards sampled for :func:`preflop_equity_matrix` (about 2,000 usable per pair: a standard error
of about 0.011 in each pair's equity)."""
EQUITY_SEED = 20261201
"""Seed of the boards of :func:`preflop_equity_matrix`, fixed so every process gets the same matrix."""


# nogil: a warm-up thread may build the matrix (seconds) while the main thread serves the table.
@numba.njit(cache=True, nogil=True)
def _pair_scores(ranks: npt.NDArray[np.int32]) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """For ranks ``[B, H]`` (-1 where a hand holds a board card): wins (ties 1/2) and boards per pair
    (a hand against itself: 0 and 0).

    Counted for ``i < j`` only: the boards of a pair are the same either way round, and
    ``wins[j, i] = counts[i, j] - wins[i, j]`` exactly (sums of halves are exact in float64).
    """
    boards, hands = ranks.shape
    wins = np.zeros((hands, hands))
    counts = np.zeros((hands, hands))
    for i in range(hands):
        # Slices that start at j = i + 1: LLVM vectorises a loop from 0 over them, not one from i + 1.
        row_wins, row_counts = wins[i, i + 1 :], counts[i, i + 1 :]
        for b in range(boards):
            mine = ranks[b, i]
            if mine < 0:
                continue
            theirs_row = ranks[b, i + 1 :]
            for k in range(hands - i - 1):
                theirs = theirs_row[k]
                if theirs < 0:
                    continue
                row_counts[k] += 1.0
                if mine > theirs:
                    row_wins[k] += 1.0
                elif mine == theirs:
                    row_wins[k] += 0.5
    for i in range(hands):
        for j in range(i + 1, hands):
            counts[j, i] = counts[i, j]
            wins[j, i] = counts[i, j] - wins[i, j]
    return wins, counts


PREFLOP_MATRIX_BUILT = threading.Event()
"""Set once :func:`preflop_equity_matrix` has built the table's matrix (its default boards and seed)."""
_EQUITY_MATRIX_LOCK = threading.Lock()
"""Held while :func:`preflop_equity_matrix` looks up or builds its matrix: a caller that arrives while
another thread (a warm-up) builds it waits for that build instead of starting a second one."""


def preflop_equity_matrix(
    boards: int = EQUITY_BOARDS, seed: int = EQUITY_SEED
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """The valid-pair and all-in payoff matrices of two preflop hands: float64 ``[1326, 1326]`` each.

    ``valid[i, j]`` is 1 where combinations ``i`` and ``j`` (indices into
    :data:`~pokerai.search.combos.ALL_COMBOS`) share no card, else 0.
    ``payoff[i, j] = 2·equity − 1`` for valid pairs (0 otherwise): the share of
    each player's stake that ``i`` wins from ``j`` when both are all-in preflop,
    with ``equity`` (ties counting half) estimated over ``boards`` five-card
    boards drawn uniformly with ``seed``; each pair uses the boards that hold
    neither hand's cards, which are uniform over the boards it can meet.
    ``payoff`` is antisymmetric. Cached per process (a few seconds to build), one build at a time.
    """
    with _EQUITY_MATRIX_LOCK:
        matrices = _preflop_equity_matrix(boards, seed)
    if (boards, seed) == (EQUITY_BOARDS, EQUITY_SEED):
        PREFLOP_MATRIX_BUILT.set()
    return matrices


@functools.lru_cache(maxsize=1)
def _preflop_equity_matrix(boards: int, seed: int) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    rng = np.random.default_rng(seed)
    drawn = np.argsort(rng.random((boards, 52)), axis=1)[:, :5].astype(np.int64)
    ranks = np.full((boards, NUM_COMBOS), -1, dtype=np.int32)
    combos = ALL_COMBOS.astype(np.int64)
    for index, board in enumerate(drawn):
        live = ~(CARD_IN_COMBO[board].any(axis=0))
        seven = np.concatenate([combos[live], np.broadcast_to(board, (int(live.sum()), 5))], axis=1)
        ranks[index, live] = rank_hands(seven, validate=False)
    valid, payoff = equity_payoffs(ranks, np.arange(NUM_COMBOS))
    for array in (valid, payoff):
        array.flags.writeable = False
    return valid, payoff


def equity_payoffs(
    ranks: npt.NDArray[np.int32], hands: npt.NDArray[np.int64]
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """The valid-pair and all-in payoff matrices ``[H, H]`` of ``hands`` from their showdown ranks
    ``[B, H]`` on ``B`` boards (-1 where a hand holds a board card): ``2·equity − 1`` over the boards
    each valid pair meets (0 where it meets none), exactly antisymmetric."""
    wins, counts = _pair_scores(ranks)
    valid = valid_pairs(hands)
    payoff = (2.0 * wins / np.maximum(counts, 1.0) - 1.0) * valid * (counts > 0)
    payoff = 0.5 * (payoff - payoff.T)  # each side's estimate counts half
    return valid, payoff


__all__ = [
    "EQUITY_BOARDS",
    "EQUITY_SEED",
    "PREFLOP_MATRIX_BUILT",
    "equity_payoffs",
    "preflop_equity_matrix",
]
