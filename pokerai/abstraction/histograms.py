"""Exact river hand strength, preflop equities and equity histograms per street.

Everything here is built on one table: the **river hand strength** of every canonical
river hand (hole cards + 5-card board, 123,156,254 classes), i.e. its equity against a
uniformly random opponent hand drawn from the 45 unseen cards -- wins plus half the ties
over all 990 opponent hands. It is stored exactly, as the integer ``2 * wins + ties`` in
``0 .. 1980`` (uint16), so equity = numerator / 1980.

The table is filled board by board: for each of the 134,459 boards up to suit isomorphism
the 1,081 possible hole pairs are ranked once, sorted, and swept, with card removal by
inclusion--exclusion (hands that share a card with ours are taken out of the counts of
weaker and tied hands). So every (hole, board) pair is evaluated exactly once for *both*
players' purposes: a hand's strength is read off the same sorted list that serves all its
opponents: "both players from the same run-outs" taken to its exact limit.

From that table:

* **preflop equity** of each of the 169 classes, exact, is accumulated in the same pass
  (each board weighted by the number of raw boards it stands for);
* a **flop or turn equity histogram** is the distribution, over the run-outs to the river,
  of the river strength: ``num_bins`` equal bins on [0, 1]. With ``runouts = 0`` every run-out
  is enumerated (46 rivers from the turn, 1,081 turn-river pairs from the flop); otherwise
  ``runouts`` are drawn with replacement from a per-hand splitmix64 stream seeded by
  ``(seed, index)``, so a hand's histogram does not depend on batching or thread count.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from numba import njit, prange

from pokerai.abstraction.isomorphism import board_indexer, index_hand, street_indexer, unindex_hand
from pokerai.engine.evaluator import tables
from pokerai.rng import splitmix64

STRENGTH_SCALE = 1980
"""River strength numerators run from 0 (loses to every hand) to 1980 (beats every hand)."""
_HOLES_PER_BOARD = 1081  # C(47, 2)
_SUIT_SHIFT = 16
_SUIT_MASK = (1 << _SUIT_SHIFT) - 1


@njit(cache=True)
def _rank_with_board(
    first: int,
    second: int,
    board: npt.NDArray[np.uint8],
    board_key: int,
    card_key: npt.NDArray[np.int64],
    nonflush7: npt.NDArray[np.uint16],
    flush: npt.NDArray[np.uint16],
) -> int:
    """The evaluator rank (1..7462, higher better) of two hole cards with a 5-card board."""
    total = board_key + card_key[first] + card_key[second]
    rank = nonflush7[total >> _SUIT_SHIFT]
    flushed = ((total & _SUIT_MASK) + 0x3333) & 0x8888
    if flushed:
        suit = 0
        while not (flushed >> (4 * suit + 3)) & 1:
            suit += 1
        mask = 0
        if first & 3 == suit:
            mask |= 1 << (first >> 2)
        if second & 3 == suit:
            mask |= 1 << (second >> 2)
        for card in board:
            if card & 3 == suit:
                mask |= 1 << (card >> 2)
        rank = flush[mask]
    return rank


@njit(cache=True)
def _rank_river_holes(board, card_key, nonflush7, flush, holes, ranks):
    """Every hole pair off the 5-card ``board`` (uint8 [5]), in card order, into ``holes`` int64 [1081, 2]
    and its evaluator rank with the board into ``ranks`` int64 [1081]; returns how many (1081).

    ``card_key``, ``nonflush7`` and ``flush`` are the evaluator's tables (:func:`_rank_with_board`).
    """
    used = np.uint64(0)
    board_key = 0
    for card in board:
        used |= np.uint64(1) << np.uint64(card)
        board_key += card_key[card]
    count = 0
    for first in range(52):
        if (used >> np.uint64(first)) & np.uint64(1):
            continue
        for second in range(first + 1, 52):
            if (used >> np.uint64(second)) & np.uint64(1):
                continue
            holes[count, 0] = first
            holes[count, 1] = second
            ranks[count] = _rank_with_board(first, second, board, board_key, card_key, nonflush7, flush)
            count += 1
    return count


@njit(cache=True)
def _tie_group_end(ranks, order, position, count):
    """The end of the run of equal ranks that starts at ``order[position]`` (``ranks[order]`` ascending)."""
    end = position
    while end < count and ranks[order[end]] == ranks[order[position]]:
        end += 1
    return end


@njit(cache=True)
def _river_hand_indices(board, holes, count, river_tables, out):
    """The canonical river index of hole pair ``holes[h]`` with ``board`` into ``out[h]`` (int64),
    for h < ``count``."""
    hand = np.empty(7, dtype=np.uint8)
    hand[2:] = board
    for h in range(count):
        hand[0] = holes[h, 0]
        hand[1] = holes[h, 1]
        out[h] = index_hand(hand, *river_tables)


@njit(cache=True, parallel=True)
def _river_pass(
    first_board: int,
    num_boards: int,
    num_chunks: int,
    board_weight: npt.NDArray[np.int64],
    strength: npt.NDArray[np.uint16],
    strength_mass: npt.NDArray[np.float64],
    preflop_sum: npt.NDArray[np.float64],
    card_key: npt.NDArray[np.int64],
    nonflush7: npt.NDArray[np.uint16],
    flush: npt.NDArray[np.uint16],
    board_tables: tuple,
    river_tables: tuple,
    preflop_class: npt.NDArray[np.int64],
) -> None:
    for chunk in prange(num_chunks):
        board = np.empty(5, dtype=np.uint8)
        holes = np.empty((_HOLES_PER_BOARD, 2), dtype=np.int64)
        ranks = np.empty(_HOLES_PER_BOARD, dtype=np.int64)
        numerator = np.empty(_HOLES_PER_BOARD, dtype=np.int64)
        river_index = np.empty(_HOLES_PER_BOARD, dtype=np.int64)
        below_with = np.zeros(52, dtype=np.int64)
        tied_with = np.zeros(52, dtype=np.int64)
        start = first_board + chunk * num_boards // num_chunks
        stop = first_board + (chunk + 1) * num_boards // num_chunks
        for board_id in range(start, stop):
            unindex_hand(board_id, board, *board_tables)
            weight = board_weight[board_id]
            count = _rank_river_holes(board, card_key, nonflush7, flush, holes, ranks)
            order = np.argsort(ranks)
            below_with[:] = 0
            below_total = 0
            position = 0
            while position < count:
                end = _tie_group_end(ranks, order, position, count)
                tied_with[:] = 0
                for k in range(position, end):
                    tied_with[holes[order[k], 0]] += 1
                    tied_with[holes[order[k], 1]] += 1
                group = end - position
                for k in range(position, end):
                    h = order[k]
                    a = holes[h, 0]
                    b = holes[h, 1]
                    # Opponent hands must avoid both our cards: inclusion-exclusion on the counts.
                    wins = below_total - below_with[a] - below_with[b]
                    ties = group - tied_with[a] - tied_with[b] + 1
                    numerator[h] = 2 * wins + ties
                for k in range(position, end):
                    below_with[holes[order[k], 0]] += 1
                    below_with[holes[order[k], 1]] += 1
                below_total += group
                position = end
            _river_hand_indices(board, holes, count, river_tables, river_index)
            for h in range(count):
                strength[river_index[h]] = numerator[h]
                strength_mass[chunk, numerator[h]] += weight
                preflop_sum[chunk, preflop_class[holes[h, 0], holes[h, 1]]] += weight * numerator[h]


@njit(cache=True)
def _board_orbits(boards_size: int, board_tables: tuple) -> npt.NDArray[np.int64]:
    """How many raw 5-card boards each canonical board stands for."""
    weight = np.zeros(boards_size, dtype=np.int64)
    board = np.empty(5, dtype=np.uint8)
    for a in range(52):
        board[0] = a
        for b in range(a + 1, 52):
            board[1] = b
            for c in range(b + 1, 52):
                board[2] = c
                for d in range(c + 1, 52):
                    board[3] = d
                    for e in range(d + 1, 52):
                        board[4] = e
                        weight[index_hand(board, *board_tables)] += 1
    return weight


@functools.cache
def preflop_combos() -> npt.NDArray[np.int64]:
    """How many of the 1,326 hole-card pairs each of the 169 preflop classes holds (4, 6 or 12)."""
    first, second = np.triu_indices(52, k=1)
    holes = np.stack([first, second], axis=1).astype(np.uint8)
    combos = np.bincount(street_indexer(0).index(holes), minlength=street_indexer(0).size)
    combos.setflags(write=False)
    return combos


@dataclass(frozen=True)
class RiverStrength:
    """The exact river-strength table and what the same pass yields.

    ``numerators``: uint16 [123,156,254], river strength × 1980 per canonical river hand.
    ``mass``: float64 [1981], how many raw (hole, board) deals have each numerator.
    ``preflop_equity``: float64 [169], exact equity of each preflop class against a random hand.
    """

    numerators: npt.NDArray[np.uint16]
    mass: npt.NDArray[np.float64]
    preflop_equity: npt.NDArray[np.float64]


def river_strength(progress: Callable[[int, int], None] | None = None) -> RiverStrength:
    """Compute :class:`RiverStrength` (docs/BENCHMARKS.md has its time and memory).

    ``progress(done, total)`` is called after each batch of boards.
    """
    boards = board_indexer(5)
    river = street_indexer(3)
    preflop = street_indexer(0)
    built = tables()
    board_weight = _board_orbits(boards.size, boards.index_tables)
    numerators = np.zeros(river.size, dtype=np.uint16)
    num_chunks = 64
    mass = np.zeros((num_chunks, STRENGTH_SCALE + 1), dtype=np.float64)
    preflop_sum = np.zeros((num_chunks, preflop.size), dtype=np.float64)
    batch = 8192
    # The preflop class of every ordered pair of hole cards (the diagonal is never read).
    pairs = np.array([(a, b) for a in range(52) for b in range(52) if a != b], dtype=np.uint8)
    preflop_class = np.zeros((52, 52), dtype=np.int64)
    preflop_class[pairs[:, 0], pairs[:, 1]] = preflop.index(pairs)
    for first in range(0, boards.size, batch):
        count = min(batch, boards.size - first)
        _river_pass(
            first,
            count,
            num_chunks,
            board_weight,
            numerators,
            mass,
            preflop_sum,
            built.card_key,
            built.nonflush[7],
            built.flush,
            boards.unindex_tables,
            river.index_tables,
            preflop_class,
        )
        if progress is not None:
            progress(first + count, boards.size)
    # Each preflop class's raw deals: its hole combos times C(50, 5) boards.
    preflop_equity = preflop_sum.sum(axis=0) / (STRENGTH_SCALE * preflop_combos() * math.comb(50, 5))
    return RiverStrength(numerators, mass.sum(axis=0), preflop_equity)


@njit(cache=True, parallel=True)
def _histograms(
    indices: npt.NDArray[np.int64],
    board_size: int,
    num_bins: int,
    runouts: int,
    seed: int,
    numerators: npt.NDArray[np.uint16],
    street_tables: tuple,
    river_tables: tuple,
) -> npt.NDArray[np.uint16]:
    result = np.zeros((indices.shape[0], num_bins), dtype=np.uint16)
    missing = 5 - board_size
    for row in prange(indices.shape[0]):
        hand = np.empty(2 + board_size, dtype=np.uint8)
        unindex_hand(indices[row], hand, *street_tables)
        river_hand = np.empty(7, dtype=np.uint8)
        river_hand[: 2 + board_size] = hand
        live = np.empty(52, dtype=np.int64)
        num_live = 0
        for card in range(52):
            seen = False
            for k in range(2 + board_size):
                if hand[k] == card:
                    seen = True
            if not seen:
                live[num_live] = card
                num_live += 1
        if runouts == 0:
            if missing == 1:
                for i in range(num_live):
                    river_hand[6] = live[i]
                    value = numerators[index_hand(river_hand, *river_tables)]
                    result[row, min(num_bins - 1, value * num_bins // STRENGTH_SCALE)] += 1
            else:
                for i in range(num_live):
                    river_hand[5] = live[i]
                    for j in range(i + 1, num_live):
                        river_hand[6] = live[j]
                        value = numerators[index_hand(river_hand, *river_tables)]
                        result[row, min(num_bins - 1, value * num_bins // STRENGTH_SCALE)] += 1
        else:
            state = np.uint64(seed) * np.uint64(0x100000001B3) ^ np.uint64(indices[row])
            for _ in range(runouts):
                state, draw = splitmix64(state)
                i = np.int64(draw % np.uint64(num_live))
                river_hand[2 + board_size] = live[i]
                if missing == 2:
                    state, draw = splitmix64(state)
                    j = np.int64(draw % np.uint64(num_live - 1))
                    if j >= i:
                        j += 1
                    river_hand[6] = live[j]
                value = numerators[index_hand(river_hand, *river_tables)]
                result[row, min(num_bins - 1, value * num_bins // STRENGTH_SCALE)] += 1
    return result


def equity_histograms(
    street: int,
    indices: npt.ArrayLike,
    numerators: npt.NDArray[np.uint16],
    *,
    num_bins: int,
    runouts: int = 0,
    seed: int = 0,
) -> npt.NDArray[np.uint16]:
    """Equity histograms (uint16 counts [N, num_bins]) of canonical flop or turn hands.

    ``indices`` are the street's canonical indices; ``numerators`` is
    :attr:`RiverStrength.numerators`. ``runouts = 0`` enumerates all run-outs; otherwise that
    many are sampled per hand, reproducibly from ``(seed, index)``.
    """
    if street not in (1, 2):
        raise ValueError(f"equity histograms are built for the flop (1) and turn (2), got street {street}")
    if num_bins < 1:
        raise ValueError(f"num_bins must be at least 1, got {num_bins}")
    if runouts < 0:
        raise ValueError(f"runouts must be 0 (all) or positive, got {runouts}")
    indexer = street_indexer(street)
    array = np.asarray(indices, dtype=np.int64)
    if array.size and (array.min() < 0 or array.max() >= indexer.size):
        raise ValueError(f"indices must lie in 0 .. {indexer.size - 1}")
    return _histograms(
        array,
        indexer.num_cards - 2,
        num_bins,
        runouts,
        seed,
        numerators,
        indexer.unindex_tables,
        street_indexer(3).index_tables,
    )
