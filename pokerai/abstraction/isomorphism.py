"""Suit isomorphism: a perfect index of hold'em hands up to suit relabelling.

Two deals are *isomorphic* when a permutation of the four suits maps one onto the other
(hole cards to hole cards, board to board). They have the same equity against a random
hand on every run-out, so card abstraction needs only one entry per class. A
:class:`HandIndexer` maps every hand onto ``0 .. size-1`` such that isomorphic hands get the
same index and non-isomorphic ones different indices, and maps an index back to one
canonical hand of its class. Tables of buckets are then flat arrays, not dicts.

The cards are dealt in *rounds* (groups whose order inside does not matter): the street
indexers use ``(2,)`` preflop, ``(2, 3)`` flop, ``(2, 4)`` turn and ``(2, 5)`` river, i.e. the
hole cards and the board as a set. Their sizes are 169, 1,286,792, 13,960,050 and
123,156,254 (Waugh 2013).

The algorithm follows the idea of K. Waugh, *A Fast and Optimal Hand Isomorphism
Algorithm* (AAAI workshop 2013):

* Per suit, the cards of each round form a rank set. A suit's *shape* is the tuple of
  the sizes of its rank sets per round. Given its shape, a suit's rank sets are indexed
  by a mixed-radix number whose digit for round ``r`` is the colex rank of that round's set
  among the ranks the suit's earlier rounds left free.
* A permutation of suits can only reorder whole suits, so a hand's class is the multiset
  of (shape, suit index) pairs. The suits are sorted by shape; the multiset of shapes (a
  *configuration*) selects a block of indices, and inside it each group of suits with the
  same shape contributes the colex rank of its sorted multiset of suit indices.

All kernels are numba-compiled and vectorised over many hands.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Sequence
from math import comb

import numpy as np
import numpy.typing as npt
from numba import njit, prange

from pokerai.engine.cards import BOARD_SIZES, NUM_CARDS

NUM_SUITS = 4
NUM_RANKS = 13
STREETS = ("preflop", "flop", "turn", "river")
_SHAPE_BITS = 3  # a round holds at most 7 cards of one suit, so 3 bits per round
_MAX_ROUNDS = 4
_CODE_LIMIT = 1 << (_SHAPE_BITS * _MAX_ROUNDS)


def _small_binomials() -> npt.NDArray[np.int64]:
    table = np.zeros((64, 8), dtype=np.int64)
    for n in range(64):
        for k in range(8):
            table[n, k] = comb(n, k)
    return table


_BINOMIAL = _small_binomials()


def _mask_tables() -> npt.NDArray[np.int64]:
    """Per 13-bit rank mask: [0] its size, [1] its colex rank among all 13 ranks, [2] its lowest rank."""
    table = np.zeros((3, 1 << NUM_RANKS), dtype=np.int64)
    for mask in range(1, 1 << NUM_RANKS):
        ranks = [rank for rank in range(NUM_RANKS) if (mask >> rank) & 1]
        table[0, mask] = len(ranks)
        table[1, mask] = sum(comb(rank, position + 1) for position, rank in enumerate(ranks))
        table[2, mask] = ranks[0]
    return table


_MASK_TABLES = _mask_tables()


@njit(cache=True)
def _binomial(n: int, k: int) -> int:
    """C(n, k) for k <= 4 and n up to ~1e5 (exact in int64), 0 when n < k."""
    if n < k or k < 0:
        return 0
    result = 1
    for i in range(k):
        result = result * (n - i) // (i + 1)
    return result


@njit(cache=True, inline="always")
def _suit_shape(
    packed: int, num_rounds: int, binomial: npt.NDArray[np.int64], mask_tables: npt.NDArray[np.int64]
) -> tuple[int, int]:
    """(shape code, suit index) of one suit whose round-r rank set sits in bits 13r .. 13r+12."""
    first = packed & 0x1FFF
    count = mask_tables[0, first]
    value = mask_tables[1, first]
    multiplier = binomial[NUM_RANKS, count]
    free = NUM_RANKS - count
    code = count
    used = first
    for r in range(1, num_rounds):
        mask = (packed >> (NUM_RANKS * r)) & 0x1FFF
        count = 0
        digit = 0
        remaining = mask
        while remaining:
            low = remaining & -remaining
            # The rank's position among the ranks this suit's earlier rounds left free.
            compressed = mask_tables[2, low] - mask_tables[0, used & (low - 1)]
            count += 1
            digit += binomial[compressed, count]
            remaining ^= low
        value += multiplier * digit
        multiplier *= binomial[free, count]
        free -= count
        used |= mask
        code = (code << _SHAPE_BITS) | count
    return code, value


@njit(cache=True, inline="always")
def _ordered(code_a: int, value_a: int, code_b: int, value_b: int) -> tuple[int, int, int, int]:
    """The two (code, value) pairs in canonical order: code descending, then value ascending."""
    if code_a < code_b or (code_a == code_b and value_a > value_b):
        return code_b, value_b, code_a, value_a
    return code_a, value_a, code_b, value_b


@njit(cache=True)
def index_hand(
    cards: npt.NDArray[np.integer],
    rounds: npt.NDArray[np.int64],
    config_keys: npt.NDArray[np.int64],
    config_offsets: npt.NDArray[np.int64],
    config_codes: npt.NDArray[np.int64],
    shape_sizes: npt.NDArray[np.int64],
    binomial: npt.NDArray[np.int64],
    mask_tables: npt.NDArray[np.int64],
) -> int:
    """The index of one hand (card ids in round order). Callable from other numba kernels.

    Allocation-free (scalars only), so that kernels can call it hundreds of millions of times.
    """
    num_rounds = rounds.shape[0]
    packed0 = 0
    packed1 = 0
    packed2 = 0
    packed3 = 0
    position = 0
    for r in range(num_rounds):
        for _ in range(rounds[r]):
            card = np.int64(cards[position])
            bit = np.int64(1) << (NUM_RANKS * r + (card >> 2))
            suit = card & 3
            if suit == 0:
                packed0 |= bit
            elif suit == 1:
                packed1 |= bit
            elif suit == 2:
                packed2 |= bit
            else:
                packed3 |= bit
            position += 1
    c0, v0 = _suit_shape(packed0, num_rounds, binomial, mask_tables)
    c1, v1 = _suit_shape(packed1, num_rounds, binomial, mask_tables)
    c2, v2 = _suit_shape(packed2, num_rounds, binomial, mask_tables)
    c3, v3 = _suit_shape(packed3, num_rounds, binomial, mask_tables)
    # A sorting network for four (code, value) pairs.
    c0, v0, c1, v1 = _ordered(c0, v0, c1, v1)
    c2, v2, c3, v3 = _ordered(c2, v2, c3, v3)
    c0, v0, c2, v2 = _ordered(c0, v0, c2, v2)
    c1, v1, c3, v3 = _ordered(c1, v1, c3, v3)
    c1, v1, c2, v2 = _ordered(c1, v1, c2, v2)
    codes = (c0, c1, c2, c3)
    values = (v0, v1, v2, v3)
    key = ((c0 * _CODE_LIMIT + c1) * _CODE_LIMIT + c2) * _CODE_LIMIT + c3
    config = np.searchsorted(config_keys, key)
    index = 0
    multiplier = 1
    start = 0
    while start < NUM_SUITS:
        end = start + 1
        while end < NUM_SUITS and codes[end] == codes[start]:
            end += 1
        group = end - start
        choices = shape_sizes[codes[start]]
        rank_in_group = 0
        for i in range(group):
            rank_in_group += _binomial(values[start + i] + i, i + 1)
        index += multiplier * rank_in_group
        multiplier *= _binomial(choices + group - 1, group)
        start = end
    return config_offsets[config] + index


@njit(cache=True)
def _largest_below(rank: int, count: int, upper: int) -> int:
    """The largest w in [count-1, upper) with C(w, count) <= rank (binary search)."""
    low = count - 1
    high = upper - 1
    while low < high:
        middle = (low + high + 1) // 2
        if _binomial(middle, count) <= rank:
            low = middle
        else:
            high = middle - 1
    return low


@njit(cache=True)
def unindex_hand(
    index: int,
    out: npt.NDArray[np.uint8],
    rounds: npt.NDArray[np.int64],
    config_offsets: npt.NDArray[np.int64],
    config_codes: npt.NDArray[np.int64],
    shape_sizes: npt.NDArray[np.int64],
    binomial: npt.NDArray[np.int64],
) -> None:
    """Write the canonical hand of ``index`` into ``out`` (cards in round order, each round sorted)."""
    num_rounds = rounds.shape[0]
    config = np.searchsorted(config_offsets, index, side="right") - 1
    remainder = index - config_offsets[config]
    codes = config_codes[config]
    suit_index = np.zeros(NUM_SUITS, dtype=np.int64)
    start = 0
    while start < NUM_SUITS:
        end = start + 1
        while end < NUM_SUITS and codes[end] == codes[start]:
            end += 1
        group = end - start
        choices = shape_sizes[codes[start]]
        radix = _binomial(choices + group - 1, group)
        rank_in_group = remainder % radix
        remainder //= radix
        for i in range(group - 1, -1, -1):
            w = _largest_below(rank_in_group, i + 1, choices + group)
            rank_in_group -= _binomial(w, i + 1)
            suit_index[start + i] = w - i
        start = end
    # Round-major output: count the cards placed per round so far.
    round_start = np.zeros(num_rounds, dtype=np.int64)
    for r in range(1, num_rounds):
        round_start[r] = round_start[r - 1] + rounds[r - 1]
    filled = np.zeros(num_rounds, dtype=np.int64)
    masks = np.zeros((NUM_SUITS, num_rounds), dtype=np.int64)
    for suit in range(NUM_SUITS):
        code = codes[suit]
        value = suit_index[suit]
        used = 0
        free = NUM_RANKS
        for r in range(num_rounds):
            count = (code >> (_SHAPE_BITS * (num_rounds - 1 - r))) & ((1 << _SHAPE_BITS) - 1)
            radix = binomial[free, count]
            digit = value % radix
            value //= radix
            # Colex unrank ``digit`` into ``count`` positions among the free ranks.
            chosen = 0
            for k in range(count, 0, -1):
                w = k - 1
                while binomial[w + 1, k] <= digit:
                    w += 1
                digit -= binomial[w, k]
                # The w-th free rank (0-based) of this suit.
                seen = -1
                for rank in range(NUM_RANKS):
                    if not (used >> rank) & 1:
                        seen += 1
                        if seen == w:
                            chosen |= 1 << rank
                            break
            masks[suit, r] = chosen
            used |= chosen
            free -= count
    for r in range(num_rounds):
        # Each round's cards in ascending card id order.
        for card in range(NUM_CARDS):
            if (masks[card & 3, r] >> (card >> 2)) & 1:
                out[round_start[r] + filled[r]] = card
                filled[r] += 1


@njit(cache=True, parallel=True)
def _index_many(cards: npt.NDArray[np.uint8], tables: tuple) -> npt.NDArray[np.int64]:
    result = np.empty(cards.shape[0], dtype=np.int64)
    for row in prange(cards.shape[0]):
        result[row] = index_hand(cards[row], *tables)
    return result


@njit(cache=True)
def index_hands_serial(cards: npt.NDArray[np.uint8], tables: tuple) -> npt.NDArray[np.int64]:
    """Indices (int64 [N]) of hands ``cards`` [N, k] with an indexer's ``index_tables``, on one thread.

    Unlike :meth:`HandIndexer.index`, whose parallel kernel starts numba's OpenMP pool (which
    raises the OpenMP thread count torch shares to the number of cores), and unchecked.
    """
    result = np.empty(cards.shape[0], dtype=np.int64)
    for row in range(cards.shape[0]):
        result[row] = index_hand(cards[row], *tables)
    return result


@njit(cache=True, parallel=True)
def _unindex_many(indices: npt.NDArray[np.int64], num_cards: int, tables: tuple) -> npt.NDArray[np.uint8]:
    out = np.empty((indices.shape[0], num_cards), dtype=np.uint8)
    for row in prange(indices.shape[0]):
        unindex_hand(indices[row], out[row], *tables)
    return out


class HandIndexer:
    """A perfect index of hands dealt in ``rounds`` (card counts per round) up to suit isomorphism.

    ``index(cards)`` takes card ids [N, sum(rounds)] (or one hand) in round order and returns
    int64 indices in ``0 .. size-1``; ``unindex(indices)`` returns the canonical hands, uint8
    [N, sum(rounds)], each round's cards in ascending id order. ``canonical(cards)`` is their
    composition. ``tables`` are the arrays the numba kernels :func:`index_hand` and
    :func:`unindex_hand` take after the cards, for callers that index inside their own kernels.
    """

    def __init__(self, rounds: Sequence[int]) -> None:
        rounds = tuple(int(count) for count in rounds)
        if not 1 <= len(rounds) <= _MAX_ROUNDS or any(count < 1 for count in rounds):
            raise ValueError(f"rounds must be 1 to {_MAX_ROUNDS} positive card counts, got {rounds}")
        if sum(rounds) > 7:
            raise ValueError(f"at most 7 cards can be indexed, got {sum(rounds)}")
        self.rounds = rounds
        self.num_cards = sum(rounds)

        # Every shape one suit can take: rank-set sizes per round.
        shapes = [
            shape
            for shape in itertools.product(*(range(count + 1) for count in rounds))
            if sum(shape) <= NUM_RANKS
        ]
        shape_sizes = np.zeros(_CODE_LIMIT, dtype=np.int64)
        code_of: dict[tuple[int, ...], int] = {}
        for shape in shapes:
            code = 0
            free = NUM_RANKS
            ways = 1
            for count in shape:
                code = (code << _SHAPE_BITS) | count
                ways *= comb(free, count)
                free -= count
            code_of[shape] = code
            shape_sizes[code] = ways
        # Configurations: four suit shapes sorted by code, descending, whose sizes add up per round.
        configurations = []
        by_code = sorted(shapes, key=lambda shape: code_of[shape], reverse=True)
        for combo in itertools.combinations_with_replacement(by_code, NUM_SUITS):
            if all(sum(shape[r] for shape in combo) == rounds[r] for r in range(len(rounds))):
                configurations.append(tuple(code_of[shape] for shape in combo))
        keys = []
        for codes in configurations:
            key = 0
            for code in codes:
                key = key * _CODE_LIMIT + code
            keys.append(key)
        order = np.argsort(keys)
        config_codes = np.array([configurations[i] for i in order], dtype=np.int64)
        config_sizes = []
        for codes in config_codes:
            size = 1
            for code, group in itertools.groupby(codes):
                multiplicity = len(list(group))
                size *= comb(int(shape_sizes[code]) + multiplicity - 1, multiplicity)
            config_sizes.append(size)
        self._rounds_array = np.array(rounds, dtype=np.int64)
        self._config_keys = np.array(keys, dtype=np.int64)[order]
        self._config_offsets = np.concatenate([[0], np.cumsum(config_sizes)]).astype(np.int64)
        self._config_codes = config_codes
        self._shape_sizes = shape_sizes
        self.size = int(self._config_offsets[-1])

    @property
    def index_tables(self) -> tuple[npt.NDArray[np.int64], ...]:
        """Arguments of :func:`index_hand` after ``cards``."""
        return (
            self._rounds_array,
            self._config_keys,
            self._config_offsets,
            self._config_codes,
            self._shape_sizes,
            _BINOMIAL,
            _MASK_TABLES,
        )

    @property
    def unindex_tables(self) -> tuple[npt.NDArray[np.int64], ...]:
        """Arguments of :func:`unindex_hand` after ``index`` and ``out``."""
        return (self._rounds_array, self._config_offsets, self._config_codes, self._shape_sizes, _BINOMIAL)

    def _check_cards(self, cards: npt.ArrayLike) -> tuple[npt.NDArray[np.uint8], bool]:
        array = np.asarray(cards)
        single = array.ndim == 1
        if single:
            array = array[None, :]
        if array.ndim != 2 or array.shape[1] != self.num_cards:
            raise ValueError(
                f"expected hands of {self.num_cards} cards (rounds {self.rounds}), got an array of shape "
                f"{np.asarray(cards).shape}"
            )
        if array.size and (
            not np.issubdtype(array.dtype, np.integer) or array.min() < 0 or array.max() >= 52
        ):
            raise ValueError("card ids must be integers from 0 to 51")
        array = array.astype(np.uint8)
        if array.size:
            seen = np.zeros(array.shape[0], dtype=np.uint64)
            for column in array.T:
                seen |= np.left_shift(np.uint64(1), column.astype(np.uint64))
            bad = np.flatnonzero(np.bitwise_count(seen) != self.num_cards)
            if bad.size:
                raise ValueError(f"hand {array[bad[0]].tolist()} repeats a card")
        return array, single

    def index(self, cards: npt.ArrayLike) -> npt.NDArray[np.int64]:
        """Indices (int64 [N], or a 0-d array for one hand) of hands given as card ids."""
        array, single = self._check_cards(cards)
        result = _index_many(array, self.index_tables)
        return result[0] if single else result

    def unindex(self, indices: npt.ArrayLike) -> npt.NDArray[np.uint8]:
        """Canonical hands (uint8 [N, num_cards], or [num_cards] for a scalar index)."""
        array = np.asarray(indices)
        single = array.ndim == 0
        array = np.atleast_1d(array)
        if array.size and (
            not np.issubdtype(array.dtype, np.integer) or array.min() < 0 or array.max() >= self.size
        ):
            raise ValueError(f"indices must be integers from 0 to {self.size - 1}")
        hands = _unindex_many(array.astype(np.int64), self.num_cards, self.unindex_tables)
        return hands[0] if single else hands

    def canonical(self, cards: npt.ArrayLike) -> npt.NDArray[np.uint8]:
        """The canonical representative of each hand's isomorphism class."""
        return self.unindex(self.index(cards))

    def __repr__(self) -> str:
        return f"HandIndexer(rounds={self.rounds}, size={self.size:,})"


@functools.cache
def street_indexer(street: int) -> HandIndexer:
    """The indexer of a street (0 preflop .. 3 river): hole cards, then the board as a set."""
    if street not in (0, 1, 2, 3):
        raise ValueError(f"street must be 0 (preflop) to 3 (river), got {street!r}")
    return HandIndexer((2,) if street == 0 else (2, BOARD_SIZES[street]))


@functools.cache
def board_indexer(num_cards: int) -> HandIndexer:
    """An indexer of boards alone (one round of ``num_cards`` cards)."""
    return HandIndexer((num_cards,))
