"""Heads-up all-in equity: exact enumeration or seeded Monte Carlo; hands or weighted ranges.

A hand is two card ids (see ``pokerai.engine.cards``); a board is 0 to 5 known cards. The
remaining ``5 - len(board)`` cards come uniformly from the cards that nobody holds, so
preflop there are C(48, 5) = 1,712,304 boards. A hand's equity is its share of the pot:
P(win) + P(tie) / 2.

- ``equity(hand_a, hand_b, board)`` enumerates every board (exact), or with ``samples=N``
  draws N boards from ``np.random.default_rng(seed)`` and reports the standard error.
- ``range_equity(range_a, range_b, board)`` does the same for weighted ranges: a range is a
  list of 2-card combos (``"AhKh"``, ``["Ah", "Kh"]`` or ``(50, 46)``) or an int array
  [M, 2], with optional weights. Card removal: combos that hold a board card are dropped,
  and a pair of combos that share a card never meets; the other pairs meet with
  probability proportional to the product of their weights. ``hand_vs_range`` is the case
  of a one-combo range.

Exact enumeration evaluates every board for every pair of combos, so exact range equity
preflop costs about 1.7 million hand evaluations per pair of combos; use ``samples`` there.
"""

from __future__ import annotations

import functools
import math
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, cast

import numpy as np
import numpy.typing as npt

from pokerai.engine.cards import NUM_CARDS, check_distinct, format_cards, parse_cards
from pokerai.engine.evaluator import key_sums, rank_hands, ranks_from_key_sums, tables

BOARD_CARDS = 5
_EVALUATIONS_PER_BATCH = 1 << 21
"""Showdowns evaluated per numpy batch: bounds memory at a few hundred MB."""

Cards = str | Sequence[str] | Sequence[int]
"""Cards as text (``"AhKh"``), a list of card names (``["Ah", "Kh"]``) or ids (``(50, 46)``)."""


@dataclass(frozen=True)
class EquityResult:
    """Equity of two hands (or two ranges) against each other.

    ``equity[i] = win[i] + tie / 2``. ``boards`` is how many boards were enumerated or
    sampled (summed over pairs of combos for ranges). ``standard_error`` is that of
    ``equity[0]`` (the same as of ``equity[1]``); 0 for exact results.
    """

    hands: tuple[str, str]
    board: str
    equity: tuple[float, float]
    win: tuple[float, float]
    tie: float
    boards: int
    exact: bool
    seconds: float
    standard_error: float
    pairs: int = 1
    """Pairs of combos that can meet (1 for two hands)."""

    def to_json(self) -> dict[str, Any]:
        return {
            "hands": list(self.hands),
            "board": self.board,
            "equity": list(self.equity),
            "win": list(self.win),
            "tie": self.tie,
            "boards": self.boards,
            "exact": self.exact,
            "seconds": self.seconds,
            "standard_error": self.standard_error,
        }


@functools.cache
def combinations(n: int, k: int) -> npt.NDArray[np.uint8]:
    """All k-subsets of range(n) in lexicographic order: uint8 [C(n, k), k], read-only, cached."""
    if k == 0:
        result = np.zeros((1, 0), dtype=np.uint8)
    elif k == 1:
        result = np.arange(n, dtype=np.uint8)[:, None]
    else:
        parts = []
        for first in range(n - k + 1):
            rest = combinations(n - first - 1, k - 1)
            part = np.empty((rest.shape[0], k), dtype=np.uint8)
            part[:, 0] = first
            np.add(rest, first + 1, out=part[:, 1:], dtype=np.uint8, casting="unsafe")
            parts.append(part)
        result = np.concatenate(parts) if parts else np.zeros((0, k), dtype=np.uint8)
    result.setflags(write=False)
    return result


def _card_list(cards: Cards) -> list[int]:
    """Card ids of ``"AhKh"``, ``["Ah", "Kh"]`` or ``[50, 46]``; bad or repeated cards name themselves."""
    if isinstance(cards, str):
        return parse_cards(cards)
    items = list(cards)
    if all(isinstance(card, str) for card in items):
        return parse_cards([str(card) for card in items])
    ids = cast("list[int]", items)
    check_distinct(ids)  # also rejects anything but card ids
    return [int(card) for card in ids]


def _parse_hand(hand: Cards, what: str) -> tuple[int, int]:
    try:
        cards = _card_list(hand)
    except ValueError as error:
        raise ValueError(f"{what}: {error}") from None
    if len(cards) != 2:
        raise ValueError(f"{what} must have 2 cards, got {len(cards)}")
    return cards[0], cards[1]


def _parse_board(board: Cards) -> list[int]:
    try:
        cards = _card_list(board)
    except ValueError as error:
        raise ValueError(f"the board: {error}") from None
    if len(cards) > BOARD_CARDS:
        raise ValueError(f"a board has at most 5 cards, got {len(cards)}")
    return cards


def parse_range(combos: str | Iterable[Cards] | npt.NDArray[np.integer]) -> npt.NDArray[np.int64]:
    """A range as an int64 array [M, 2] of card ids; a bad combo is a ``ValueError`` naming it.

    ``combos`` is a string of combos (``"AhKh QsQd"``), a list of combos, or an int array [M, 2].
    """
    if isinstance(combos, np.ndarray):
        if combos.ndim != 2 or combos.shape[1] != 2 or not np.issubdtype(combos.dtype, np.integer):
            raise ValueError(
                f"a range array must be integers of shape [M, 2], got {combos.dtype} {combos.shape}"
            )
        rows = [_parse_hand(row, f"combo {row}") for row in combos.tolist()]
    else:
        items = combos.replace(",", " ").split() if isinstance(combos, str) else list(combos)
        rows = [_parse_hand(combo, f"combo {combo!r}") for combo in items]
    if not rows:
        raise ValueError("a range needs at least one combo")
    return np.array(rows, dtype=np.int64).reshape(-1, 2)


def _weights(weights: npt.ArrayLike | None, size: int, name: str) -> npt.NDArray[np.float64]:
    if weights is None:
        return np.ones(size)
    array = np.asarray(weights, dtype=np.float64)
    if array.shape != (size,):
        raise ValueError(f"{name} must have one weight per combo ({size}), got shape {array.shape}")
    if not np.isfinite(array).all() or (array < 0).any():
        raise ValueError(f"{name} must be finite and non-negative")
    return array


def equity(
    hand_a: Cards,
    hand_b: Cards,
    board: Cards = (),
    *,
    samples: int | None = None,
    seed: int | None = 0,
) -> EquityResult:
    """Equity of two hands: exact over every board, or Monte Carlo over ``samples`` boards.

    Cards are strings (``"AhKh"``) or ids. Malformed, repeated or shared cards are a
    ``ValueError`` naming the card.

    >>> preflop = equity("AhKh", "QsQd")  # every one of the C(48, 5) boards
    >>> preflop.boards, round(preflop.equity[0], 6)
    (1712304, 0.462145)
    >>> flop = equity("AhKh", "QsQd", board="Ks7d2c")
    >>> flop.boards, round(flop.equity[0], 4), flop.exact
    (990, 0.9121, True)
    """
    first, second = _parse_hand(hand_a, "the first hand"), _parse_hand(hand_b, "the second hand")
    known = _parse_board(board)
    check_distinct([*first, *second, *known])
    return _range_equity(np.array([first]), np.array([second]), np.ones(1), np.ones(1), known, samples, seed)


def hand_vs_range(
    hand: Cards,
    villain: str | Iterable[Cards] | npt.NDArray[np.integer],
    board: Cards = (),
    *,
    weights: npt.ArrayLike | None = None,
    samples: int | None = None,
    seed: int | None = 0,
) -> EquityResult:
    """Equity of ``hand`` against a weighted range, with card removal."""
    return range_equity([_parse_hand(hand, "the hand")], villain, board, weights_b=weights,
                        samples=samples, seed=seed)  # fmt: skip


def range_equity(
    range_a: str | Iterable[Cards] | npt.NDArray[np.integer],
    range_b: str | Iterable[Cards] | npt.NDArray[np.integer],
    board: Cards = (),
    *,
    weights_a: npt.ArrayLike | None = None,
    weights_b: npt.ArrayLike | None = None,
    samples: int | None = None,
    seed: int | None = 0,
) -> EquityResult:
    """Equity of two weighted ranges, with card removal (see the module docstring)."""
    combos_a, combos_b = parse_range(range_a), parse_range(range_b)
    known = _parse_board(board)
    return _range_equity(combos_a, combos_b, _weights(weights_a, len(combos_a), "weights_a"),
                         _weights(weights_b, len(combos_b), "weights_b"), known, samples, seed)  # fmt: skip


def _range_equity(
    combos_a: npt.NDArray[np.int64],
    combos_b: npt.NDArray[np.int64],
    weights_a: npt.NDArray[np.float64],
    weights_b: npt.NDArray[np.float64],
    board: list[int],
    samples: int | None,
    seed: int | None,
) -> EquityResult:
    start = time.perf_counter()
    if samples is not None and samples < 2:
        raise ValueError(f"samples must be at least 2 for a standard error, got {samples}")
    board_bits = sum(1 << card for card in board)
    bits_a = (1 << combos_a[:, 0]) | (1 << combos_a[:, 1])
    bits_b = (1 << combos_b[:, 0]) | (1 << combos_b[:, 1])
    # Pairs that can meet: no shared card with each other or the board, positive weight.
    meet = ((bits_a[:, None] & bits_b[None, :]) == 0) & ((bits_a & board_bits) == 0)[:, None]
    meet &= ((bits_b & board_bits) == 0)[None, :]
    pair_weight = np.where(meet, weights_a[:, None] * weights_b[None, :], 0.0)
    index_a, index_b = np.nonzero(pair_weight > 0)
    if index_a.size == 0:
        raise ValueError("no pair of combos can meet: every pair shares a card with each other or the board")
    weight = pair_weight[index_a, index_b]
    holes_a, holes_b = combos_a[index_a], combos_b[index_b]
    deck_left = NUM_CARDS - len(board) - 4
    to_come = BOARD_CARDS - len(board)
    if samples is None:
        per_pair = math.comb(deck_left, to_come)
        wins_a, wins_b, ties = _exact_counts(holes_a, holes_b, board, combinations(deck_left, to_come))
        total = weight.sum() * per_pair
        win = (float(weight @ wins_a / total), float(weight @ wins_b / total))
        tie = float(weight @ ties / total)
        boards, standard_error, exact = per_pair * index_a.size, 0.0, True
    else:
        rng = np.random.default_rng(seed)
        runouts = combinations(deck_left, to_come)
        wins, losses = 0, 0
        for first in range(0, samples, _EVALUATIONS_PER_BATCH):
            size = min(_EVALUATIONS_PER_BATCH, samples - first)
            positions = runouts[rng.integers(0, len(runouts), size)]
            if index_a.size == 1:  # two hands: the same hole cards in every sample
                rank_a, rank_b = _showdown_ranks(holes_a, holes_b, board, positions)
            else:
                chosen = rng.choice(index_a.size, size=size, p=weight / weight.sum())
                rank_a, rank_b = _showdown_ranks(holes_a[chosen], holes_b[chosen], board, positions)
            wins += int(np.count_nonzero(rank_a > rank_b))
            losses += int(np.count_nonzero(rank_a < rank_b))
        win = (wins / samples, losses / samples)
        tie = (samples - wins - losses) / samples
        # Each sample's share of the pot is 1, 1/2 or 0; the standard error of their mean.
        mean = win[0] + tie / 2
        variance = (win[0] + tie / 4 - mean**2) * samples / (samples - 1)
        standard_error = math.sqrt(max(variance, 0.0) / samples)
        boards, exact = samples, False
    if len(combos_a) == 1 and len(combos_b) == 1:
        hands = (format_cards(combos_a[0]), format_cards(combos_b[0]))
    else:
        hands = (f"range of {len(combos_a)} combos", f"range of {len(combos_b)} combos")
    return EquityResult(
        hands=hands,
        board=format_cards(board),
        equity=(win[0] + tie / 2, win[1] + tie / 2),
        win=win,
        tie=tie,
        boards=boards,
        exact=exact,
        seconds=time.perf_counter() - start,
        standard_error=standard_error,
        pairs=int(index_a.size),
    )


def _exact_counts(
    holes_a: npt.NDArray[np.int64],
    holes_b: npt.NDArray[np.int64],
    board: list[int],
    positions: npt.NDArray[np.uint8],
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """(wins of a, wins of b, ties) [P] of each pair over every runout ``positions`` [C, k]."""
    pairs, runouts = holes_a.shape[0], positions.shape[0]
    wins_a, wins_b, ties = (np.zeros(pairs, dtype=np.int64) for _ in range(3))
    pairs_per_batch = max(1, _EVALUATIONS_PER_BATCH // runouts)
    for first in range(0, pairs, pairs_per_batch):
        batch = slice(first, min(pairs, first + pairs_per_batch))
        size = batch.stop - batch.start
        if size == 1:  # one pair against every runout: its hole cards broadcast
            rank_a, rank_b = _showdown_ranks(holes_a[batch], holes_b[batch], board, positions)
            wins_a[first] = np.count_nonzero(rank_a > rank_b)
            wins_b[first] = np.count_nonzero(rank_a < rank_b)
            ties[first] = runouts - wins_a[first] - wins_b[first]
            continue
        pair_index = np.repeat(np.arange(size), runouts)
        tiled = np.tile(positions, (size, 1))
        rank_a, rank_b = _showdown_ranks(holes_a[batch][pair_index], holes_b[batch][pair_index], board, tiled)
        wins_a[batch] = np.bincount(pair_index, rank_a > rank_b, minlength=size)
        wins_b[batch] = np.bincount(pair_index, rank_a < rank_b, minlength=size)
        ties[batch] = np.bincount(pair_index, rank_a == rank_b, minlength=size)
    return wins_a, wins_b, ties


def _showdown_ranks(
    holes_a: npt.NDArray[np.int64],
    holes_b: npt.NDArray[np.int64],
    board: list[int],
    positions: npt.NDArray[np.uint8],
) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int32]]:
    """Ranks of both players on N showdowns.

    Hole cards are [N, 2] each, or [1, 2] for the same hands in every showdown; ``positions``
    [N, k] index, in ascending order, the deck without the board and the four hole cards.
    """
    built = tables()
    count = positions.shape[0]
    board_array = np.array(board, dtype=np.uint8)
    if holes_a.shape[0] == 1:
        dead = np.concatenate([holes_a[0], holes_b[0], board_array])
        remaining = np.setdiff1d(np.arange(NUM_CARDS), dead).astype(np.uint8)
        runouts = remaining[positions]
    else:
        # Position p is the p-th card left; step over each dead card in ascending order.
        dead_cards = np.hstack([holes_a, holes_b, np.broadcast_to(board_array, (count, len(board)))])
        excluded = np.sort(dead_cards, axis=1).astype(np.uint8)
        runouts = positions.astype(np.uint8)
        for column in range(excluded.shape[1]):
            runouts = runouts + (runouts >= excluded[:, column : column + 1])
    shared = int(built.card_key[board_array].sum()) if board else 0
    if runouts.shape[1]:
        shared_keys = key_sums(runouts, built.card_key) + shared
    else:
        shared_keys = np.full(count, shared, dtype=np.int64)

    def ranks(holes: npt.NDArray[np.int64]) -> npt.NDArray[np.int32]:
        total = shared_keys + (built.card_key[holes[:, 0]] + built.card_key[holes[:, 1]])

        def flush_cards(rows: npt.NDArray[np.intp]) -> npt.NDArray[np.int64]:
            hole_rows = np.broadcast_to(holes, (count, 2))[rows]
            known = np.broadcast_to(board_array, (rows.size, len(board)))
            return np.hstack([hole_rows, known, runouts[rows]]).astype(np.int64)

        return ranks_from_key_sums(total, 2 + BOARD_CARDS, flush_cards)

    return ranks(holes_a), ranks(holes_b)


def describe(result: EquityResult) -> str:
    """The human-readable report of ``pokerai equity``."""
    if result.exact:
        method = "every board (exact)"
    else:
        method = f"sampled boards (Monte Carlo, standard error {result.standard_error:.4%})"
    lines = [f"board    {result.board or '(none)'}", f"boards   {result.boards:,} {method}", ""]
    lines.append(f"{'hand':<8}{'equity':>9}{'win':>9}{'tie':>9}")
    for hand, share, win in zip(result.hands, result.equity, result.win, strict=True):
        lines.append(f"{hand:<8}{share:>9.4%}{win:>9.4%}{result.tie:>9.4%}")
    lines.append(f"\nseconds  {result.seconds:.3f}")
    return "\n".join(lines)


# ---------------------------------------------------------------------- equity against a random hand

PREFLOP_TABLE_SAMPLES = 6000
"""Monte Carlo showdowns per starting-hand class for the preflop table (standard error < 0.007)."""
PREFLOP_TABLE_SEED = 20_240_601


def hand_class(hole_cards: tuple[int, int]) -> tuple[int, int]:
    """The 169-class cell of two hole cards in a 13x13 grid (ranks 0..12, 2..A).

    Pairs lie on the diagonal ``(r, r)``, suited hands at ``(high, low)`` and
    offsuit hands at ``(low, high)``.
    """
    first, second = hole_cards
    high, low = max(first >> 2, second >> 2), min(first >> 2, second >> 2)
    if (first & 3) == (second & 3):
        return high, low
    return low, high


@functools.cache
def preflop_equity_table() -> npt.NDArray[np.float64]:
    """Equity of each starting-hand class against a random hand: float64 [13, 13], cells as in
    :func:`hand_class`. Monte Carlo with a fixed seed, computed once per process; read-only."""
    rng = np.random.default_rng(PREFLOP_TABLE_SEED)
    table = np.zeros((13, 13))
    for row in range(13):
        for column in range(13):
            if row == column:
                hole = (4 * row, 4 * row + 1)
            elif row > column:
                hole = (4 * row, 4 * column)  # suited (both clubs): high rank row, low rank column
            else:
                hole = (4 * column, 4 * row + 1)  # offsuit: high rank column, low rank row
            table[row, column] = sampled_equity(hole, (), rng, PREFLOP_TABLE_SAMPLES)
    table.setflags(write=False)
    return table


def unseen_cards(known: tuple[int, ...]) -> npt.NDArray[np.uint8]:
    """The card ids not in ``known``, ascending, as uint8."""
    mask = np.ones(NUM_CARDS, dtype=bool)
    mask[list(known)] = False
    return np.flatnonzero(mask).astype(np.uint8)


def showdown_equity(mine: npt.NDArray[np.uint8], theirs: npt.NDArray[np.uint8]) -> float:
    """The share of the pot of hands ``mine`` against ``theirs``, row by row ([N, 7] card ids)."""
    ours, others = rank_hands(mine, validate=False), rank_hands(theirs, validate=False)
    return float(np.mean(ours > others) + 0.5 * np.mean(ours == others))


def sampled_equity(
    hole_cards: tuple[int, int], board: tuple[int, ...], rng: np.random.Generator, samples: int
) -> float:
    """Monte Carlo equity against a random hand: ``samples`` draws of its cards and the run-out."""
    unseen = unseen_cards((*hole_cards, *board))
    needed = 2 + 5 - len(board)
    # The ``needed`` smallest of uniform keys are a uniform draw without replacement.
    picks = np.argpartition(rng.random((samples, unseen.size)), needed - 1, axis=1)[:, :needed]
    drawn = unseen[picks]
    full_board = np.concatenate([np.broadcast_to(np.array(board, np.uint8), (samples, len(board))),
                                 drawn[:, 2:]], axis=1)  # fmt: skip
    mine = np.concatenate([np.broadcast_to(np.array(hole_cards, np.uint8), (samples, 2)), full_board], axis=1)
    theirs = np.concatenate([drawn[:, :2], full_board], axis=1)
    return showdown_equity(mine, theirs)


RUNOUT_EXACT_LIMIT = 2000
"""``runout_equity`` enumerates the run-outs when there are at most this many (the flop's 990
and the turn's 44); preflop it samples ``RUNOUT_SAMPLES`` of the 1,712,304."""
RUNOUT_SAMPLES = 1024


def runout_equity(
    first: tuple[int, int], second: tuple[int, int], board: tuple[int, ...], seed: int = 0
) -> float:
    """The first hand's share of the pot against the second over the rest of ``board``'s run-outs.

    Exact when there are at most ``RUNOUT_EXACT_LIMIT`` run-outs (a flop or turn board, or a
    full one), else the mean over ``RUNOUT_SAMPLES`` run-outs drawn with
    ``np.random.default_rng([seed, *cards])``, so the same cards and seed give the same
    number. No checks: the cards are assumed distinct ids (the hot path of all-in values in
    Deep CFR traversals).
    """
    known = (*first, *second, *board)
    missing = BOARD_CARDS - len(board)
    unseen = unseen_cards(known)
    fixed = np.array(board, dtype=np.uint8)
    if math.comb(unseen.size, missing) <= RUNOUT_EXACT_LIMIT:
        drawn = unseen[combinations(unseen.size, missing)]
    else:
        rng = np.random.default_rng([seed, *known])
        keys = rng.random((RUNOUT_SAMPLES, unseen.size))
        drawn = unseen[np.argpartition(keys, missing - 1, axis=1)[:, :missing]]
    count = drawn.shape[0]
    full_board = np.concatenate([np.broadcast_to(fixed, (count, fixed.size)), drawn], axis=1)
    mine = np.concatenate([np.broadcast_to(np.array(first, np.uint8), (count, 2)), full_board], axis=1)
    theirs = np.concatenate([np.broadcast_to(np.array(second, np.uint8), (count, 2)), full_board], axis=1)
    return showdown_equity(mine, theirs)


__all__ = [
    "EquityResult",
    "combinations",
    "describe",
    "equity",
    "hand_class",
    "hand_vs_range",
    "parse_range",
    "preflop_equity_table",
    "range_equity",
    "runout_equity",
    "sampled_equity",
    "showdown_equity",
    "unseen_cards",
]
