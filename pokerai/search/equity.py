"""Equity tables of the flop and turn subgames: hands, valid pairs, all-in equity and check-down signs.

A street's subgame is played over the combinations that hold no board card. Its payoffs
need, per pair of hands, whether the two can meet (they share no card), and what a called
all-in or a check-down is worth: the mean showdown sign over the cards to come.
:func:`flop_matrices` samples seeded run-outs (the same board, the same run-outs);
:func:`turn_street_matrices` takes every river card. Both are cached for the last few
boards, since every decision of a street asks for the same ones. :func:`card_showdowns`
gives the showdown sign per next card, which the depth-limited leaves' rollouts end in
(:mod:`pokerai.search.rollouts`); the all-in answer (:mod:`pokerai.search.allin`) reuses the
turn's table.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Sequence

import numba
import numpy as np
import numpy.typing as npt

from pokerai.engine.cards import NUM_CARDS
from pokerai.engine.evaluator import rank_hands
from pokerai.search.combos import ALL_COMBOS, CARD_IN_COMBO, combos_holding


def sample_seed(*parts: object) -> int:
    """A seed from the text of ``parts``: the same public state always draws the same cards."""
    digest = hashlib.sha256("|".join(str(part) for part in parts).encode()).digest()
    return int.from_bytes(digest[:8], "little")


def next_cards(board: Sequence[int], count: int, *parts: object) -> tuple[int, ...]:
    """``count`` distinct cards off ``board`` (all if fewer remain), seeded by the board and ``parts``."""
    remaining = [card for card in range(NUM_CARDS) if card not in set(board)]
    if count >= len(remaining):
        return tuple(remaining)
    rng = np.random.default_rng(sample_seed(sorted(board), *parts))
    return tuple(sorted(int(card) for card in rng.choice(remaining, size=count, replace=False)))


@numba.njit(cache=True, nogil=True)
def _runout_equities(
    ranks: npt.NDArray[np.int64], keep: int
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float32]]:  # pragma: no cover - numba
    """From ``ranks`` ``[T, R, H]`` (T turn cards, R river cards each; −1: the hand holds a card of
    that run-out): the mean showdown sign of each pair over all the run-outs both can meet
    (``[H, H]``, 0 where none), and float32 ``[keep, H, H]``, the same mean over each of the first
    ``keep`` turn cards' rivers. Row by row: the inner loops run along a run-out's ranks of all
    hands, which the compiler vectorises."""
    turns, rivers, hands = ranks.shape
    small = ranks.astype(np.int32)
    equity = np.zeros((hands, hands))
    per_turn = np.zeros((keep, hands, hands), dtype=np.float32)
    sign = np.empty(hands, dtype=np.int32)
    met = np.empty(hands, dtype=np.int32)
    sign_total = np.empty(hands, dtype=np.int32)
    met_total = np.empty(hands, dtype=np.int32)
    for i in range(hands):
        sign_total[:] = 0
        met_total[:] = 0
        for turn in range(turns):
            sign[:] = 0
            met[:] = 0
            for river in range(rivers):
                row = small[turn, river]
                rank_i = row[i]
                if rank_i < 0:
                    continue
                for j in range(hands):
                    rank_j = row[j]
                    meet = np.int32(rank_j >= 0)
                    met[j] += meet
                    sign[j] += meet * (np.int32(rank_i > rank_j) - np.int32(rank_i < rank_j))
            if turn < keep:
                for j in range(hands):
                    if met[j] > 0:
                        per_turn[turn, i, j] = sign[j] / met[j]
            for j in range(hands):
                sign_total[j] += sign[j]
                met_total[j] += met[j]
        for j in range(hands):
            if met_total[j] > 0:
                equity[i, j] = sign_total[j] / met_total[j]
    return equity, per_turn


def card_showdowns(ranks: npt.NDArray[np.int64], valid: npt.NDArray[np.float64]) -> npt.NDArray[np.float32]:
    """float32 ``[K, H, H]``: per row of ``ranks`` ``[K, H]`` (−1: the hand holds that card), the
    showdown sign of each pair that shares no card (``valid``) and can meet the card; else 0."""
    _, per_card = _runout_equities(ranks[:, np.newaxis, :], ranks.shape[0])
    return np.where(valid > 0, per_card, np.float32(0.0))


def ranks_on_boards(boards: Sequence[Sequence[int]], hands: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """int64 ``[len(boards), len(hands)]``: the showdown rank of each of ``hands`` on each five-card
    board (−1 where the hand holds a card of that board), ranked in one batch."""
    board_array = np.asarray(boards, dtype=np.int64).reshape(-1, 5)
    ranks = np.full((len(board_array), len(hands)), -1, dtype=np.int64)
    free = ~CARD_IN_COMBO[board_array][:, :, hands].any(axis=1)
    rows, columns = np.nonzero(free)
    if len(rows):
        seven = np.concatenate([ALL_COMBOS[hands[columns]], board_array[rows]], axis=1)
        ranks[rows, columns] = rank_hands(seven, validate=False)
    return ranks


def valid_pairs(hands: npt.NDArray[np.int64]) -> npt.NDArray[np.float64]:
    """float64 ``[H, H]``: 1 where two of ``hands`` share no card."""
    membership = CARD_IN_COMBO[:, hands].astype(np.float64)
    result: npt.NDArray[np.float64] = (membership.T @ membership == 0).astype(np.float64)
    return result


FLOP_TURN_CARDS = 16
"""Turn cards of the run-outs that value a called all-in on the flop."""
FLOP_RIVERS_PER_TURN = 10
"""River cards per turn card in those run-outs (160 run-outs in all)."""
FLOP_LEAF_TURNS = 8
"""The most turn cards a flop leaf's rollout may use (the first of the run-outs' turn cards)."""


@functools.lru_cache(maxsize=4)
def flop_matrices(
    board: tuple[int, ...],
) -> tuple[
    npt.NDArray[np.int64],
    npt.NDArray[np.float64],
    npt.NDArray[np.float64],
    tuple[int, ...],
    npt.NDArray[np.float32],
]:
    """The hands and matrices of a flop subgame on the three-card ``board``.

    Returns ``hands`` (combinations free of the board, ascending), the valid-pair matrix,
    the all-in equity matrix (the mean showdown sign over :data:`FLOP_TURN_CARDS` seeded
    turn cards times :data:`FLOP_RIVERS_PER_TURN` seeded river cards each, over the
    run-outs both hands can meet), the turn cards, and float32 ``[FLOP_LEAF_TURNS, H, H]``:
    for each of the first turn cards, the check-down equity over its river cards (what a
    leaf's rollout ends in). Cached for the last few boards.
    """
    if len(board) != 3 or len(set(board)) != 3:
        raise ValueError(f"a flop board is three distinct cards, got {list(board)}")
    hands = np.flatnonzero(~combos_holding(board)).astype(np.int64)
    turns = next_cards(board, FLOP_TURN_CARDS, "turn")
    boards = [
        (*board, turn, river)
        for turn in turns
        for river in next_cards((*board, turn), FLOP_RIVERS_PER_TURN, "river")
    ]
    ranks = ranks_on_boards(boards, hands).reshape(len(turns), -1, len(hands))
    means, per_turn = _runout_equities(ranks, min(FLOP_LEAF_TURNS, len(turns)))
    valid = valid_pairs(hands)
    equity = means * valid
    for array in (hands, valid, equity, per_turn):
        array.flags.writeable = False
    return hands, valid, equity, turns, per_turn


@functools.lru_cache(maxsize=4)
def turn_street_matrices(
    board: tuple[int, ...],
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.int64]]:
    """The hands, valid-pair matrix, all-in equity (over all 44 river cards both hands can meet)
    and the river ranks ``[52, H]`` (−1 where the card is on the board or in the hand) of a turn
    subgame on the four-card ``board``. Cached."""
    if len(board) != 4 or len(set(board)) != 4:
        raise ValueError(f"a turn board is four distinct cards, got {list(board)}")
    hands = np.flatnonzero(~combos_holding(board)).astype(np.int64)
    rivers = [river for river in range(NUM_CARDS) if river not in board]
    ranks = np.full((NUM_CARDS, len(hands)), -1, dtype=np.int64)
    ranks[rivers] = ranks_on_boards([(*board, river) for river in rivers], hands)
    means, _ = _runout_equities(ranks[np.newaxis], 0)
    valid = valid_pairs(hands)
    equity = means * valid
    for array in (hands, valid, equity, ranks):
        array.flags.writeable = False
    return hands, valid, equity, ranks


__all__ = [
    "FLOP_LEAF_TURNS",
    "FLOP_RIVERS_PER_TURN",
    "FLOP_TURN_CARDS",
    "card_showdowns",
    "flop_matrices",
    "next_cards",
    "ranks_on_boards",
    "sample_seed",
    "turn_street_matrices",
    "valid_pairs",
]
