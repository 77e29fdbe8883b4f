"""Hand evaluator: the best 5-card hand of 5, 6 or 7 cards, one hand at a time or vectorised.

Rank convention
---------------
A hand's rank is an ``int`` from 1 to 7,462, one value per distinct 5-card hand class,
and **higher is better**: two hands tie exactly when their ranks are equal. 7,462 is a
royal flush and 1 is 7-5-4-3-2 of mixed suits. The categories are consecutive bands:

===================  ============  =======
category             ranks         classes
===================  ============  =======
high card            1..1277       1,277
pair                 1278..4137    2,860
two pair             4138..4995    858
three of a kind      4996..5853    858
straight             5854..5863    10
flush                5864..7140    1,277
full house           7141..7296    156
four of a kind       7297..7452    156
straight flush       7453..7462    10
===================  ============  =======

``hand_category(rank)`` names the band; ``hand_categories(ranks)`` is its vectorised form
(category indices into ``CATEGORIES``).

How it works
------------
No 5-card subsets are enumerated. Every card has an additive 64-bit key: a rank key in
the high bits and a 4-bit suit counter in the low 16 bits. The rank keys
(0, 1, 5, 22, 98, ...) are chosen greedily so that any multiset of up to seven ranks, at
most four of each, has a distinct sum (the idea of additive rank keys is known from
other evaluators; the keys are recomputed and checked here when the tables are built).
The sum of a hand's card keys therefore identifies its rank multiset, which indexes a
table of the best non-flush rank, and its suit counters show whether five or more cards
share a suit. Those few hands (about 3% of 7-card hands) look up the 13-bit mask of their
flush suit's ranks in a table over all 8,192 masks, which already accounts for straight
flushes. With 7 cards or fewer, a flush can never be beaten by the non-flush hand of the
same cards (a full house or quads next to a flush needs at least 8 cards).

Tables are built once per process with numpy (``build_seconds`` reports how long that took;
docs/BENCHMARKS.md has the time and size), and are cached with ``functools.cache``.
"""

from __future__ import annotations

import functools
import itertools
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from pokerai.engine.cards import NUM_CARDS, check_distinct

CATEGORIES = (
    "high card",
    "pair",
    "two pair",
    "three of a kind",
    "straight",
    "flush",
    "full house",
    "four of a kind",
    "straight flush",
)
"""Category names, weakest first; ``hand_categories`` returns indices into this tuple."""

CATEGORY_CLASSES = (1277, 2860, 858, 858, 10, 1277, 156, 156, 10)
"""How many distinct 5-card classes (ranks) each category has, in ``CATEGORIES`` order."""

CATEGORY_FIRST_RANK = tuple(int(x) for x in np.cumsum((1, *CATEGORY_CLASSES[:-1])))
"""The lowest rank of each category: 1, 1278, 4138, 4996, 5854, 5864, 7141, 7297, 7453."""

NUM_RANKS = 7462
"""Number of distinct 5-card hand classes; the best rank (a royal flush)."""

RANK_KEYS = (0, 1, 5, 22, 98, 453, 2031, 8698, 22854, 83661, 262349, 636345, 1479181)
"""Additive key of each card rank (2..A): sums over multisets of at most 7 ranks, at most 4
of each rank, are distinct for each multiset size. Checked when the tables are built."""

_SUIT_SHIFT = 16
_SUIT_MASK = (1 << _SUIT_SHIFT) - 1
# Adding 3 to every 4-bit suit counter sets its top bit exactly when the suit has 5 or more cards.
_FLUSH_BIAS = 0x3333
_FLUSH_TEST = 0x8888
_CARD_BIT = np.left_shift(np.uint64(1), np.arange(NUM_CARDS, dtype=np.uint64))
_STRAIGHT_MASKS = tuple([0x1F << low for low in range(8, -1, -1)] + [0x100F])
"""13-bit rank masks of the ten straights, best (A-high) first, the wheel (5-high) last."""


@dataclass(frozen=True)
class EvaluatorTables:
    """The lookup tables of the evaluator (all read-only numpy arrays).

    - ``card_key``: int64 ``[52]``, rank key << 16 | 1 << (4 * suit).
    - ``nonflush``: dict from hand size (5, 6, 7) to uint16 ``[max key + 1]``, the best rank
      of a rank multiset ignoring suits, indexed by the sum of its rank keys (0 elsewhere).
    - ``flush``: uint16 ``[8192]``, the best flush or straight-flush rank of a 13-bit mask of
      ranks in one suit (0 for masks with fewer than 5 ranks).
    - ``build_seconds``: how long building took.
    """

    card_key: npt.NDArray[np.int64]
    nonflush: dict[int, npt.NDArray[np.uint16]]
    flush: npt.NDArray[np.uint16]
    build_seconds: float


def _five_card_strength(counts: npt.NDArray[np.int64], flush: bool) -> npt.NDArray[np.int64]:
    """A sortable strength of each 5-card rank multiset ``counts`` [N, 13] (all flush or not).

    Strength = category * 13**5 + tie-break ranks in base 13, ranks ordered by (count, rank)
    descending; a straight's tie-break is its top rank (3 for the wheel).
    """
    n = counts.shape[0]
    ranks = np.arange(13)
    # Order ranks by count then rank, descending: the tie-break digits.
    order_key = counts * 16 + ranks  # [N, 13]
    order = np.argsort(-order_key, axis=1, kind="stable")
    sorted_counts = np.take_along_axis(counts, order, axis=1)
    digits = np.where(sorted_counts > 0, order, 0)[:, :5]
    tiebreak = np.zeros(n, dtype=np.int64)
    for column in range(5):
        tiebreak = tiebreak * 13 + digits[:, column]
    masks = (counts > 0).astype(np.int64) @ (1 << ranks)
    straight_top = np.full(n, -1, dtype=np.int64)
    for top, straight in zip(range(12, 2, -1), _STRAIGHT_MASKS, strict=True):
        straight_top = np.where((straight_top < 0) & (masks == straight), top, straight_top)
    first, second = sorted_counts[:, 0], sorted_counts[:, 1]
    category = np.select(
        [
            first == 4,
            (first == 3) & (second == 2),
            first == 3,
            (first == 2) & (second == 2),
            first == 2,
        ],
        [7, 6, 3, 2, 1],
        default=0,
    )
    is_straight = straight_top >= 0
    category = np.where(is_straight, 8, 5) if flush else np.where(is_straight, 4, category)
    tiebreak = np.where(is_straight, straight_top, tiebreak)
    return category * 13**5 + tiebreak


def _multisets(size: int) -> npt.NDArray[np.int64]:
    """Every multiset of ``size`` ranks with at most 4 of each, as sorted rows [M, size]."""
    # Multisets of k out of 13 are the k-subsets of 13 + k - 1 items, shifted down by 0..k-1.
    subsets = np.array(list(itertools.combinations(range(13 + size - 1), size)), dtype=np.int64)
    rows = subsets - np.arange(size)
    at_most_four = (rows[:, 4:] != rows[:, :-4]).all(axis=1) if size > 4 else np.ones(len(rows), bool)
    return rows[at_most_four]


@functools.cache
def tables() -> EvaluatorTables:
    """Build (once per process) and return the evaluator's lookup tables."""
    start = time.perf_counter()
    rank_keys = np.array(RANK_KEYS, dtype=np.int64)
    # All 7,462 classes: 6,175 non-flush rank multisets and 1,287 flush rank sets.
    five = _multisets(5)
    five_counts = np.zeros((five.shape[0], 13), dtype=np.int64)
    np.add.at(five_counts, (np.arange(five.shape[0])[:, None], five), 1)
    distinct = (five_counts <= 1).all(axis=1)
    flush_counts = five_counts[distinct]
    strengths = np.concatenate(
        [_five_card_strength(five_counts, flush=False), _five_card_strength(flush_counts, flush=True)]
    )
    unique_strengths, class_index = np.unique(strengths, return_inverse=True)
    assert unique_strengths.size == NUM_RANKS, unique_strengths.size
    class_rank = (class_index + 1).astype(np.uint16)
    nonflush_rank5 = class_rank[: five.shape[0]]
    flush_rank5 = class_rank[five.shape[0] :]

    # Flush table over 13-bit masks: 5-rank masks first, then the best 5-subset of larger masks.
    flush = np.zeros(1 << 13, dtype=np.uint16)
    flush[flush_counts @ (1 << np.arange(13))] = flush_rank5
    all_masks = np.arange(1 << 13)
    popcount = np.bitwise_count(all_masks.astype(np.uint16)).astype(np.int64)
    for size in range(6, 14):
        masks = all_masks[popcount == size]
        best = np.zeros(masks.size, dtype=np.uint16)
        for bit in range(13):
            has = (masks >> bit) & 1 == 1
            best[has] = np.maximum(best[has], flush[masks[has] & ~(1 << bit)])
        flush[masks] = best

    # Non-flush tables indexed by the rank-key sum of 5, 6 and 7 ranks.
    nonflush: dict[int, npt.NDArray[np.uint16]] = {}
    table5 = np.zeros(int(rank_keys[five].sum(axis=1).max()) + 1, dtype=np.uint16)
    five_sums = rank_keys[five].sum(axis=1)
    assert np.unique(five_sums).size == five_sums.size, "rank keys collide on 5 ranks"
    table5[five_sums] = nonflush_rank5
    nonflush[5] = table5
    for size in (6, 7):
        multisets = _multisets(size)
        sums = rank_keys[multisets].sum(axis=1)
        assert np.unique(sums).size == sums.size, f"rank keys collide on {size} ranks"
        best = np.zeros(multisets.shape[0], dtype=np.uint16)
        for subset in itertools.combinations(range(size), 5):
            best = np.maximum(best, table5[rank_keys[multisets[:, subset]].sum(axis=1)])
        table = np.zeros(int(sums.max()) + 1, dtype=np.uint16)
        table[sums] = best
        nonflush[size] = table

    cards = np.arange(NUM_CARDS)
    card_key = (rank_keys[cards >> 2] << _SUIT_SHIFT) | (1 << (4 * (cards & 3)))
    for array in (card_key, flush, *nonflush.values()):
        array.setflags(write=False)
    return EvaluatorTables(card_key, nonflush, flush, time.perf_counter() - start)


@functools.cache
def _scalar_tables() -> tuple[tuple[int, ...], dict[int, npt.NDArray[np.uint16]], tuple[int, ...]]:
    built = tables()
    return tuple(int(k) for k in built.card_key), built.nonflush, tuple(int(r) for r in built.flush)


def rank_hand(cards: Sequence[int]) -> int:
    """The rank (1..7462, higher is better) of the best 5-card hand among 5, 6 or 7 cards.

    Cards are ids 0..51 (see ``pokerai.engine.cards``); a bad or repeated card is a
    ``ValueError`` that names it.

    >>> from pokerai.engine.cards import parse_cards
    >>> rank_hand(parse_cards("AsKsQsJsTs")), rank_hand(parse_cards("7c5d4h3s2c"))
    (7462, 1)
    >>> hand_category(rank_hand(parse_cards("AcAdKhKs2c7d9h")))
    'two pair'
    """
    count = len(cards)
    if count not in (5, 6, 7):
        raise ValueError(f"a hand has 5, 6 or 7 cards, got {count}")
    card_key, nonflush, flush = _scalar_tables()
    try:
        total = 0
        for card in cards:
            total += card_key[card] if card >= 0 else -1 << 60
        valid = total >= 0 and len(set(cards)) == count
    except (IndexError, TypeError):
        valid = False
    if not valid:
        check_distinct(cards)  # raises, naming the bad card
    suits = (total & _SUIT_MASK) + _FLUSH_BIAS
    if suits & _FLUSH_TEST:
        suit = (suits & _FLUSH_TEST).bit_length() // 4 - 1
        mask = 0
        for card in cards:
            if card & 3 == suit:
                mask |= 1 << (card >> 2)
        return flush[mask]
    return int(nonflush[count][total >> _SUIT_SHIFT])


def hand_category(rank: int) -> str:
    """The category name of a rank, e.g. ``hand_category(7462) == "straight flush"``."""
    if not 1 <= rank <= NUM_RANKS:
        raise ValueError(f"{rank!r} is not a hand rank (1..{NUM_RANKS})")
    for index in range(len(CATEGORIES) - 1, -1, -1):
        if rank >= CATEGORY_FIRST_RANK[index]:
            return CATEGORIES[index]
    raise AssertionError("unreachable")


def hand_categories(ranks: npt.ArrayLike) -> npt.NDArray[np.int8]:
    """Vectorised category: int8 indices into ``CATEGORIES`` for an array of ranks (same shape)."""
    array = np.asarray(ranks)
    if array.size and (array.min() < 1 or array.max() > NUM_RANKS):
        raise ValueError(f"hand ranks must lie in 1..{NUM_RANKS}")
    return (np.searchsorted(np.array(CATEGORY_FIRST_RANK), array, side="right") - 1).astype(np.int8)


def rank_hands(cards: npt.ArrayLike, *, validate: bool = True) -> npt.NDArray[np.int32]:
    """Vectorised ``rank_hand``: an int array ``[N, 5|6|7]`` of card ids -> int32 ranks ``[N]``.

    With ``validate`` (the default) card ids outside 0..51 and repeated cards in a row are a
    ``ValueError``; hot paths that build their own valid hands pass ``validate=False`` (ids are
    still range-checked, a repeated card then gives a meaningless rank).
    """
    array = np.asarray(cards)
    if array.ndim != 2 or array.shape[1] not in (5, 6, 7):
        raise ValueError(f"expected an array of shape [N, 5|6|7], got shape {array.shape}")
    if not np.issubdtype(array.dtype, np.integer):
        raise ValueError(f"card ids must be integers, got dtype {array.dtype}")
    if array.shape[0] == 0:
        return np.zeros(0, dtype=np.int32)
    if array.max() >= NUM_CARDS or (array.dtype != np.uint8 and array.min() < 0):
        raise ValueError("card ids must lie in 0..51")
    # Gathering from whole contiguous columns is about twice as fast as strided ones or a row sum.
    columns = np.ascontiguousarray(array.T, dtype=np.uint8)
    if validate:
        _check_rows_distinct(columns, array)
    built = tables()
    return _ranks_from_keys(_column_key_sums(columns, built.card_key), array, built)


def key_sums(cards: npt.NDArray[np.integer], card_key: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """The sum of ``card_key`` over each row of ``cards`` [N, k] (ids 0..51) -> int64 [N]."""
    return _column_key_sums(np.ascontiguousarray(cards.T, dtype=np.uint8), card_key)


def _column_key_sums(
    columns: npt.NDArray[np.uint8], card_key: npt.NDArray[np.int64]
) -> npt.NDArray[np.int64]:
    total = np.take(card_key, columns[0])
    for column in columns[1:]:
        total += np.take(card_key, column)
    return total


def _check_rows_distinct(columns: npt.NDArray[np.uint8], cards: npt.NDArray[np.integer]) -> None:
    """Raise ``ValueError`` naming a repeated card if a hand repeats one; ``columns`` is ``cards.T``."""
    seen = np.take(_CARD_BIT, columns[0])
    for column in columns[1:]:
        seen |= np.take(_CARD_BIT, column)
    bad = np.flatnonzero(np.bitwise_count(seen) != columns.shape[0])
    if bad.size:
        check_distinct([int(card) for card in cards[bad[0]]])  # raises, naming the card
        raise AssertionError("unreachable")


def _ranks_from_keys(
    total: npt.NDArray[np.int64], cards: npt.NDArray[np.integer], built: EvaluatorTables
) -> npt.NDArray[np.int32]:
    """Ranks of hands given their key sums ``total`` [N] and cards [N, k] (read for flushes only)."""
    return ranks_from_key_sums(total, cards.shape[1], lambda rows: cards[rows])


def ranks_from_key_sums(
    total: npt.NDArray[np.int64],
    num_cards: int,
    flush_cards: Callable[[npt.NDArray[np.intp]], npt.NDArray[np.integer]],
) -> npt.NDArray[np.int32]:
    """Ranks of ``num_cards``-card hands from the sums of their ``tables().card_key`` [N].

    For the engine's hot paths (equity) that add up keys of shared cards once:
    ``flush_cards(rows)`` returns the cards [M, num_cards] of the hands at ``rows``; it is
    called only for the few hands with five or more cards of one suit.
    """
    built = tables()
    ranks = built.nonflush[num_cards][total >> _SUIT_SHIFT].astype(np.int32)
    flushed = ((total & _SUIT_MASK) + _FLUSH_BIAS) & _FLUSH_TEST
    rows = np.flatnonzero(flushed)
    if rows.size:
        cards = flush_cards(rows).astype(np.int64)
        # The flush suit's test bit is 0x8 << 4 * suit; at most one suit can hold 5 of 7 cards.
        suit = (np.log2(flushed[rows]).astype(np.int64) - 3) // 4
        masks = np.where((cards & 3) == suit[:, None], 1 << (cards >> 2), 0).sum(axis=1)
        ranks[rows] = built.flush[masks]
    return ranks
