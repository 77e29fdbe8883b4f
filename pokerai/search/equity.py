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


def _sample_seed(*parts: object) -> int:
    """A seed from the text of ``parts``: the same public state always draws the same cards."""
    digest = hashlib.sha256("|".join(str(part) for part in parts).encode()).digest()
    return int.from_bytes(digest[:8], "little")


def next_cards(board: Sequence[int], count: int, *parts: object) -> tuple[int, ...]:
    """``count`` distinct cards off ``board`` (all if fewer remain), seeded by the board and ``parts``."""
    remaining = [card for card in range(NUM_CARDS) if card not in set(board)]
    if count >= len(remaining):
        return tuple(remaining)
    rng = np.random.default_rng(_sample_seed(sorted(board), *parts))
    return tuple(sorted(int(card) for card in rng.choice(remaining, size=count, replace=False)))


@numba.njit(cache=True, nogil=True)
def _add_signs(
    row: npt.NDArray[np.int64],
    valid: npt.NDArray[np.float64],
    signs: npt.NDArray[np.floating],
    counts: npt.NDArray[np.float64],
) -> None:  # pragma: no cover - numba
    """On one board (``row`` ``[H]``: each hand's rank, −1 where it holds a board card), add to
    ``signs`` ``[H, H]`` sign(rank i − rank j) of every pair that ``valid`` lets meet, and 1 to
    ``counts`` there."""
    hands = row.shape[0]
    for i in range(hands):
        rank_i = row[i]
        if rank_i < 0:
            continue
        for j in range(hands):
            rank_j = row[j]
            if rank_j < 0 or valid[i, j] == 0.0:
                continue
            counts[i, j] += 1.0
            if rank_i > rank_j:
                signs[i, j] += 1.0
            elif rank_i < rank_j:
                signs[i, j] -= 1.0


@numba.njit(cache=True, nogil=True)
def _sign_sums(
    ranks: npt.NDArray[np.int64],
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:  # pragma: no cover - numba
    """Over the rows of ``ranks`` ``[R, H]`` (−1: the hand holds a card of that board), the sum of
    sign(rank i − rank j) and the count of boards both hands can meet, ``[H, H]`` each."""
    boards, hands = ranks.shape
    sums = np.zeros((hands, hands))
    counts = np.zeros((hands, hands))
    anyone = np.ones((hands, hands))
    for board in range(boards):
        _add_signs(ranks[board], anyone, sums, counts)
    return sums, counts


@numba.njit(cache=True, nogil=True)
def card_showdowns(
    ranks: npt.NDArray[np.int64], valid: npt.NDArray[np.float64]
) -> npt.NDArray[np.float32]:  # pragma: no cover - numba
    """float32 ``[K, H, H]``: per row of ``ranks`` ``[K, H]`` (−1: the hand holds that card), the
    showdown sign of each pair that shares no card (``valid``) and can meet the card; else 0."""
    cards, hands = ranks.shape
    result = np.zeros((cards, hands, hands), dtype=np.float32)
    met = np.zeros((hands, hands))
    for card in range(cards):
        _add_signs(ranks[card], valid, result[card], met)
    return result


def ranks_on(board: Sequence[int], hands: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """The showdown rank of each of ``hands`` on the five-card ``board`` (−1: it holds a board card)."""
    ranks = np.full(len(hands), -1, dtype=np.int64)
    free = ~CARD_IN_COMBO[list(board)][:, hands].any(axis=0)
    if free.any():
        seven = np.concatenate(
            [
                ALL_COMBOS[hands[free]],
                np.broadcast_to(np.asarray(board, dtype=np.int64), (int(free.sum()), 5)),
            ],
            axis=1,
        )
        ranks[free] = rank_hands(seven, validate=False)
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
    total = np.zeros((len(hands), len(hands)))
    count = np.zeros((len(hands), len(hands)))
    per_turn = np.zeros((min(FLOP_LEAF_TURNS, len(turns)), len(hands), len(hands)), dtype=np.float32)
    for index, turn in enumerate(turns):
        rivers = next_cards((*board, turn), FLOP_RIVERS_PER_TURN, "river")
        ranks = np.stack([ranks_on((*board, turn, river), hands) for river in rivers])
        sums, counts = _sign_sums(ranks)
        total += sums
        count += counts
        if index < len(per_turn):
            per_turn[index] = np.where(counts > 0, sums / np.where(counts > 0, counts, 1.0), 0.0)
    valid = valid_pairs(hands)
    equity = np.where(count > 0, total / np.where(count > 0, count, 1.0), 0.0) * valid
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
    ranks = np.full((NUM_CARDS, len(hands)), -1, dtype=np.int64)
    for river in range(NUM_CARDS):
        if river not in board:
            ranks[river] = ranks_on((*board, river), hands)
    sums, counts = _sign_sums(ranks)
    valid = valid_pairs(hands)
    equity = np.where(counts > 0, sums / np.where(counts > 0, counts, 1.0), 0.0) * valid
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
    "ranks_on",
    "turn_street_matrices",
    "valid_pairs",
]
