"""Search at every street: one pipeline from the ranges to the strategy the agent plays.

At a decision of player ``p`` (the *searcher*) on any street, :func:`solve_street`
re-solves the whole street from its start, whatever the street:

1. **Ranges at the street's start.** The searcher's own range is what it
   actually played: for every combination, the product over its earlier
   decisions of the probability its played strategy gave the action it took
   (the caller keeps those strategies). The opponent's range comes by Bayes'
   rule from the blueprint over the earlier streets (:func:`opponent_range`),
   every action's probability floored at ``floor``: an opponent who is not the
   blueprint keeps every hand it could hold.
2. **The street's public tree** (:func:`build_street_tree`). From the street's
   start to its end on the blueprint's menu. The actions already taken on this
   street are on it at their exact sizes: an off-menu bet or all-in of the
   opponent is a child of its own, so no translation error carries into the
   searcher's decision. Every other branch follows the menu with at most
   ``max_raises`` raises inside it; along the actual path the menu is whole.
3. **Terminals and leaves** (one :class:`StreetPayoffs` per street). A fold pays
   the chips in; a showdown or a called all-in pays the chips in times the
   showdown sign (river) or the all-in equity (before it). Where the street's
   betting closes with chips behind and a card to come, a **depth-limited
   leaf** (Brown, Sandholm & Amos, "Depth-Limited Solving for
   Imperfect-Information Games", NeurIPS 2018): the opponent picks, for each of
   its hands, one of the continuation strategies -- the blueprint, or the
   blueprint biased towards folding, calling or raising -- while the searcher
   plays the blueprint over the next street. Each choice is valued by blueprint
   play over sampled next cards, one batched network call per rollout decision
   (:func:`rollout_matrices`); on the flop the turn's rollouts end in the
   river's check-down equity. Leaves are grouped by stack-to-pot ratio and
   share one rollout per group, scaled by the chips in. Preflop, a leaf is the
   equity on the pot (blueprint-free).
4. **Frozen own decisions, and the gadget.** The searcher's earlier decisions
   on this street are fixed at what it played (Brown & Sandholm, Pluribus,
   Science 2019), so the opponent's actions on this street come out of the
   solve: an opponent that bets more hands than the blueprint meets the
   answers an equilibrium would give. With ``safe`` the tree starts with the
   re-solving gadget (:func:`~pokerai.search.subgame.with_resolve_gadget`):
   the opponent may decline to enter with any hand, at its best-response value
   against the blueprint. With ``path_floor`` the opponent's own actions on
   the path to the decision keep a floor as well (:func:`path_trembles`): each
   is taken with at least that probability by every hand, so an opponent who
   bets or raises with more hands than the solve's opponent meets answers to
   that wider range.
5. **Solve.** CFR+ (:func:`~pokerai.search.subgame.solve`) for an iteration or
   time budget; the strategy at the current node for every combination
   (:class:`StreetSolution`), which the caller blends with the blueprint.

The solve depends only on the public state and the searcher's earlier played
strategies, which are themselves functions of the public states where they
were played, so one solve answers for every hand the searcher could hold.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import importlib
import itertools
import math
import time
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numba
import numpy as np
import numpy.typing as npt

from pokerai.abstraction.bets import CHECK_CALL_SLOT, FOLD_SLOT, BetAbstraction, legal_slot_amounts
from pokerai.deepcfr.encoding import NOT_DEALT
from pokerai.engine.cards import NUM_CARDS
from pokerai.engine.evaluator import rank_hands
from pokerai.engine.state import Action, ActionKind, HUNLState, Street
from pokerai.search.beliefs import (
    _history_probabilities,
    action_slots,
    combo_probabilities,
    state_record,
    threshold_probabilities,
)
from pokerai.search.combos import ALL_COMBOS, CARD_IN_COMBO, NUM_COMBOS, combos_holding
from pokerai.search.responses import (
    OVERBET,
    PathFloors,
    ResponseCounts,
    raise_fraction,
    street_response_strategies,
)
from pokerai.search.showdown import river_card_payoffs, river_pair_matrices
from pokerai.search.subgame import (
    SHARES_NO_CARD,
    CardPayoffs,
    Decision,
    Solution,
    Subgame,
    Terminal,
    solve,
    with_resolve_gadget,
)
from pokerai.search.tree import menu_children
from pokerai.tabular.blueprint import AnyBlueprint

VALID_MATRIX, SHOWDOWN_MATRIX = 0, 1
"""Indices of the two matrices every street subgame has: pairs that can meet, and the showdown
sign (river) or all-in equity (earlier streets) of hand ``i`` against hand ``j``."""

CONTINUATIONS: tuple[str, ...] = ("blueprint", "fold", "call", "raise")
"""The continuation strategies an opponent picks from at a depth-limited leaf."""


@dataclass(frozen=True)
class Exact:
    """The label of a tree child for an action taken at a size the menu lacks: raise to ``amount``."""

    amount: int


Label = int | Exact | str
"""A child's label: a menu slot, an :class:`Exact` raise, or a continuation's name at a leaf."""


@dataclass(frozen=True)
class LeafSettings:
    """How depth-limited leaves are valued.

    ``continuations``: the opponent's choices (a non-empty subset of :data:`CONTINUATIONS`;
    ``("blueprint",)`` is one fixed continuation). ``cards``: next cards sampled per rollout.
    ``rollout_raises``: raises in the rollout's betting. ``bias``: the factor on the
    favoured actions of a biased continuation. ``groups_per_doubling``: leaves whose
    stack-to-pot ratios lie within one ``2 ** (1 / groups_per_doubling)`` factor share a rollout.
    """

    continuations: tuple[str, ...] = CONTINUATIONS
    cards: int = 6
    rollout_raises: int | None = 1
    bias: float = 5.0
    groups_per_doubling: float = 1.0

    def __post_init__(self) -> None:
        if not self.continuations or any(name not in CONTINUATIONS for name in self.continuations):
            raise ValueError(
                f"continuations {list(self.continuations)} must be a non-empty subset of "
                f"{list(CONTINUATIONS)}"
            )
        if isinstance(self.cards, bool) or not isinstance(self.cards, int) or not 2 <= self.cards <= 48:
            raise ValueError(f"leaf cards {self.cards!r} must be a whole number from 2 to 48")
        if self.rollout_raises is not None and (
            isinstance(self.rollout_raises, bool)
            or not isinstance(self.rollout_raises, int)
            or self.rollout_raises < 0
        ):
            raise ValueError(f"rollout_raises {self.rollout_raises!r} is not a non-negative whole number")
        if not self.bias >= 1.0:
            raise ValueError(f"bias must be at least 1, got {self.bias!r}")
        if not self.groups_per_doubling > 0:
            raise ValueError(f"groups_per_doubling must be positive, got {self.groups_per_doubling!r}")


# ---------------------------------------------------------------------------- card helpers


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
def _sign_sums(
    ranks: npt.NDArray[np.int64],
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:  # pragma: no cover - numba
    """Over the rows of ``ranks`` ``[R, H]`` (−1: the hand holds a card of that board), the sum of
    sign(rank i − rank j) and the count of boards both hands can meet, ``[H, H]`` each."""
    boards, hands = ranks.shape
    sums = np.zeros((hands, hands))
    counts = np.zeros((hands, hands))
    for board in range(boards):
        row = ranks[board]
        for i in range(hands):
            rank_i = row[i]
            if rank_i < 0:
                continue
            for j in range(hands):
                rank_j = row[j]
                if rank_j < 0:
                    continue
                counts[i, j] += 1.0
                if rank_i > rank_j:
                    sums[i, j] += 1.0
                elif rank_i < rank_j:
                    sums[i, j] -= 1.0
    return sums, counts


@numba.njit(cache=True, nogil=True)
def _card_showdowns(
    ranks: npt.NDArray[np.int64], valid: npt.NDArray[np.float64]
) -> npt.NDArray[np.float32]:  # pragma: no cover - numba
    """float32 ``[K, H, H]``: per row of ``ranks`` ``[K, H]`` (−1: the hand holds that card), the
    showdown sign of each pair that shares no card (``valid``) and can meet the card; else 0."""
    cards, hands = ranks.shape
    result = np.zeros((cards, hands, hands), dtype=np.float32)
    for card in range(cards):
        row = ranks[card]
        for i in range(hands):
            rank_i = row[i]
            if rank_i < 0:
                continue
            for j in range(hands):
                rank_j = row[j]
                if rank_j < 0 or valid[i, j] == 0.0:
                    continue
                if rank_i > rank_j:
                    result[card, i, j] = 1.0
                elif rank_i < rank_j:
                    result[card, i, j] = -1.0
    return result


def _ranks_on(board: Sequence[int], hands: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
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


def _valid_pairs(hands: npt.NDArray[np.int64]) -> npt.NDArray[np.float64]:
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
        ranks = np.stack([_ranks_on((*board, turn, river), hands) for river in rivers])
        sums, counts = _sign_sums(ranks)
        total += sums
        count += counts
        if index < len(per_turn):
            per_turn[index] = np.where(counts > 0, sums / np.where(counts > 0, counts, 1.0), 0.0)
    valid = _valid_pairs(hands)
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
            ranks[river] = _ranks_on((*board, river), hands)
    sums, counts = _sign_sums(ranks)
    valid = _valid_pairs(hands)
    equity = np.where(counts > 0, sums / np.where(counts > 0, counts, 1.0), 0.0) * valid
    for array in (hands, valid, equity, ranks):
        array.flags.writeable = False
    return hands, valid, equity, ranks


# ---------------------------------------------------------------------------- rollouts


@dataclass
class _RolloutNode:
    """A node of a rollout's betting tree: a decision (state, player, child slots) or a terminal."""

    state: HUNLState | None = None
    player: int = -1
    slots: tuple[int, ...] = ()
    children: tuple[int, ...] = ()
    fold_scale: float | None = None
    showdown_scale: float | None = None


def _rollout_tree(leaf: HUNLState, abstraction: BetAbstraction, max_raises: int | None) -> list[_RolloutNode]:
    """The betting of ``leaf``'s street (parents first) on the menu, with at most ``max_raises`` raises.

    The street's end is a check-down terminal (its value comes from the next cards' matrices)."""
    nodes: list[_RolloutNode] = []
    street = leaf.street

    def add(current: HUNLState, raises: int) -> int:
        index = len(nodes)
        node = _RolloutNode()
        nodes.append(node)
        if current.is_over and current.folded is not None:
            node.fold_scale = float(current.returns()[0])
            return index
        if current.is_over or current.street != street:
            node.showdown_scale = float(current.committed[0])
            return index
        assert current.to_act is not None
        node.state, node.player = current, current.to_act
        slots: list[int] = []
        children: list[int] = []
        for slot, child, child_raises in menu_children(current, abstraction, raises, max_raises):
            slots.append(slot)
            children.append(add(child, child_raises))
        node.slots, node.children = tuple(slots), tuple(children)
        return index

    add(leaf, 0)
    return nodes


def _biased(
    rows: npt.NDArray[np.float64], slots: Sequence[int], continuation: str, bias: float
) -> npt.NDArray[np.float64]:
    """``rows`` ``[..., len(slots)]`` with the continuation's favoured slots times ``bias``, renormalised."""
    if continuation == "blueprint":
        return rows
    if continuation == "fold":
        favoured = [slot == FOLD_SLOT for slot in slots]
    elif continuation == "call":
        favoured = [slot == CHECK_CALL_SLOT for slot in slots]
    else:
        favoured = [slot not in (FOLD_SLOT, CHECK_CALL_SLOT) for slot in slots]
    biased = rows * np.where(favoured, bias, 1.0).astype(rows.dtype)
    total = biased.sum(axis=-1, keepdims=True)
    result: npt.NDArray[np.float64] = np.where(total > 0, biased / np.where(total > 0, total, 1.0), rows)
    return result


def avoid_hugepage_stalls() -> None:
    """Stop numpy asking the kernel for transparent huge pages for its large arrays.

    A street search allocates and frees arrays of tens of megabytes at every decision. On a
    kernel whose huge-page defragmentation is ``madvise`` (the default of many
    distributions), each such allocation may stall in memory compaction: on the 2-core
    development machine a flop or turn decision took 2–5 times longer (docs/BENCHMARKS.md).
    The environment variable ``NUMPY_MADVISE_HUGEPAGE=0`` does the same before start-up.
    """
    for name in ("numpy._core.multiarray", "numpy.core.multiarray"):  # numpy 2, numpy 1
        try:
            switch = getattr(importlib.import_module(name), "_set_madvise_hugepage", None)
        except ImportError:
            continue
        if switch is not None:
            switch(False)
            return


ROLLOUT_MIN_PROBABILITY = 1e-5
"""Blueprint probabilities below this play as 0 in a rollout (the rest renormalised)."""


def rollout_matrices(
    blueprint: AnyBlueprint,
    leaf: HUNLState,
    hands: npt.NDArray[np.int64],
    cards: Sequence[int],
    showdown: npt.NDArray[np.floating[Any]],
    chooser: int,
    settings: LeafSettings,
    threshold: float = 0.0,
) -> list[npt.NDArray[np.float32]]:
    """Player 0's expected chip result from the street-start ``leaf`` per pair of ``hands`` and continuation.

    ``leaf`` is an engine state at the first decision of a street with chips behind; its
    newest board card is a placeholder that ``cards`` replace. ``showdown`` float
    ``[len(cards), H, H]`` is the check-down value per chip at the end of that street for
    each card (0 where a pair cannot meet it). For each continuation, ``chooser`` plays the
    blueprint biased towards it and the other player the blueprint (both thresholded at
    ``threshold``) on the street's betting with at most ``settings.rollout_raises`` raises.
    Returns one float32 ``[H, H]`` matrix per continuation: the mean over the cards that
    neither hand holds (0 for pairs that share a card).
    """
    num_cards, num_hands = len(cards), len(hands)
    card_array = np.asarray(cards, dtype=np.int64)
    free = ~CARD_IN_COMBO[np.ix_(card_array, hands)]  # [K, H]
    valid = _valid_pairs(hands)
    free32 = free.astype(np.float32)
    valid32 = valid.astype(np.float32)
    count = (free32.T @ free32) * valid32  # the cards each pair can meet
    abstraction: BetAbstraction = blueprint.game.bets
    nodes = _rollout_tree(leaf, abstraction, settings.rollout_raises)
    chip_scale = blueprint.game.config.big_blind / leaf.config.big_blind
    card_slot = len(leaf.board) - 1
    # A hand that holds the card cannot be encoded with it: its rows ask about a stand-in
    # hand instead and are masked out of every value.
    hole_rows = np.tile(np.arange(num_hands), (num_cards, 1))
    stand_in = np.argmax(free, axis=1)
    hole_rows = np.where(free, hole_rows, stand_in[:, np.newaxis])
    holes = ALL_COMBOS[hands][hole_rows.reshape(-1)]
    probabilities: dict[int, npt.NDArray[np.float64]] = {}
    for index, node in enumerate(nodes):
        if node.state is None:
            continue
        state = node.state
        legal, _ = legal_slot_amounts(state, abstraction)
        mask = np.zeros(abstraction.num_slots, dtype=np.bool_)
        mask[list(legal)] = True
        records = np.empty(num_cards * num_hands, dtype=blueprint.encoder.record_dtype)
        records[:] = state_record(state, node.player, (0, 1), chip_scale)
        records["hole"] = holes
        records["board"][:, card_slot] = np.repeat(card_array, num_hands)
        if card_slot < 4:
            records["board"][:, card_slot + 1 :] = NOT_DEALT
        seat = 0 if node.player == state.button else 1
        raw = blueprint.probabilities_batch(records, np.broadcast_to(mask, (len(records), mask.size)), seat)
        kept = threshold_probabilities(raw, threshold)[:, list(node.slots)]
        # Dropping negligible probabilities keeps the float32 reach products clear of subnormal
        # numbers, on which x86 arithmetic is many times slower.
        kept = np.where(kept >= ROLLOUT_MIN_PROBABILITY, kept, 0.0)
        total = kept.sum(axis=1, keepdims=True)
        kept = np.where(total > 0, kept / np.where(total > 0, total, 1.0), 1.0 / len(node.slots))
        probabilities[index] = kept.reshape(num_cards, num_hands, len(node.slots)).astype(np.float32)
    fold_terminals = [(i, node.fold_scale) for i, node in enumerate(nodes) if node.fold_scale is not None]
    showdown_terminals = [
        (i, node.showdown_scale) for i, node in enumerate(nodes) if node.showdown_scale is not None
    ]
    results: list[npt.NDArray[np.float32]] = []
    fold_ids = [index for index, _ in fold_terminals]
    fold_scales = np.array([scale for _, scale in fold_terminals], dtype=np.float32)
    showdown_ids = [index for index, _ in showdown_terminals]
    showdown_scales = np.array([scale for _, scale in showdown_terminals], dtype=np.float32)
    showdown32 = showdown if showdown.dtype == np.float32 else showdown.astype(np.float32)
    for continuation in settings.continuations:
        reach = [np.ones((len(nodes), num_cards, num_hands), dtype=np.float32) for _ in range(2)]
        for index, node in enumerate(nodes):
            if node.state is None:
                continue
            strategy = probabilities[index]
            if node.player == chooser:
                strategy = _biased(strategy, node.slots, continuation, settings.bias)
            for position, child in enumerate(node.children):
                reach[node.player][child] = reach[node.player][index] * strategy[:, :, position]
                reach[1 - node.player][child] = reach[1 - node.player][index]
        total = np.zeros((num_hands, num_hands), dtype=np.float32)
        if fold_ids:
            # A fold's card mask factors into the two hands' masks: one product over terminals and cards.
            first = reach[0][fold_ids] * (fold_scales[:, np.newaxis, np.newaxis] * free32)  # [T, K, H]
            second = reach[1][fold_ids] * free32
            total += (first.reshape(-1, num_hands).T @ second.reshape(-1, num_hands)) * valid32
        if showdown_ids:
            first = reach[0][showdown_ids] * showdown_scales[:, np.newaxis, np.newaxis]
            second = reach[1][showdown_ids]
            for card in range(num_cards):
                outer = first[:, card, :].T @ second[:, card, :]  # summed over terminals: [H, H]
                outer *= showdown32[card]
                total += outer
        results.append(np.where(count > 0, total / np.where(count > 0, count, 1.0), np.float32(0.0)))
    return results


# ---------------------------------------------------------------------------- street payoffs


class StreetPayoffs(Protocol):
    """What a street contributes to the pipeline: its hands, matrices, terminals and leaves."""

    hands: npt.NDArray[np.int64]
    matrices: list[npt.NDArray[np.float64]]
    card_payoffs: CardPayoffs | None

    def terminal(self, state: HUNLState) -> Terminal:
        """The terminal of a state where the hand is over."""
        ...

    def leaf(self, state: HUNLState) -> Decision | Terminal:
        """The node for a state where the street's betting closed with chips behind."""
        ...


def _terminal(state: HUNLState) -> Terminal:
    """A fold pays the chips in on the valid-pair matrix; a showdown the chips in on the showdown one."""
    if state.folded is not None:
        return Terminal(VALID_MATRIX, float(state.returns()[0]))
    return Terminal(SHOWDOWN_MATRIX, float(min(state.committed)))


def _fold_structure(hands: npt.NDArray[np.int64]) -> CardPayoffs:
    """The valid-pair matrix as card-structured: fold terminals then cost time linear in the hands."""
    return CardPayoffs(
        cards=ALL_COMBOS[hands].astype(np.int64),
        ranks=np.zeros(len(hands), dtype=np.int64),
        kinds={VALID_MATRIX: SHARES_NO_CARD},
    )


def _select(
    hands: npt.NDArray[np.int64], all_hands: npt.NDArray[np.int64], *matrices: npt.NDArray[np.float64]
) -> tuple[npt.NDArray[np.int64], list[npt.NDArray[np.float64]]]:
    """The rows and blocks of ``matrices`` (over ``all_hands``) for the subset ``hands``."""
    rows = np.searchsorted(all_hands, hands)
    if np.any(rows >= len(all_hands)) or np.any(all_hands[np.minimum(rows, len(all_hands) - 1)] != hands):
        raise ValueError("subgame hands must be combinations free of the board")
    block = np.ix_(rows, rows)
    return rows, [np.ascontiguousarray(matrix[block]) for matrix in matrices]


ROLLOUT_CACHE_SIZE = 8
"""Stack-to-pot groups whose rollout values are kept, so that later decisions on a street reuse them."""
_ROLLOUTS: weakref.WeakKeyDictionary[Any, dict[tuple[Any, ...], list[npt.NDArray[np.float32]]]] = (
    weakref.WeakKeyDictionary()
)


class _RolloutLeaves:
    """Depth-limited leaves shared by stack-to-pot group (module docstring, step 3).

    A group's values depend on the street's start (``key``), the hands, the cards and the
    settings, not on the ranges, so the last :data:`ROLLOUT_CACHE_SIZE` groups are kept
    and a later decision on the same street reuses them (with the stake of the leaf that
    first built them)."""

    def __init__(
        self,
        blueprint: AnyBlueprint,
        hands: npt.NDArray[np.int64],
        matrices: list[npt.NDArray[np.float64]],
        cards: Sequence[int],
        showdown: npt.NDArray[np.floating[Any]],
        chooser: int,
        settings: LeafSettings,
        threshold: float,
        key: object,
    ) -> None:
        self.blueprint, self.hands, self.matrices = blueprint, hands, matrices
        self.cards, self.showdown, self.chooser = cards, showdown, chooser
        self.settings, self.threshold = settings, threshold
        self.groups: dict[int, list[int]] = {}
        self.count = 0
        self.seconds = 0.0
        self.key = key

    def leaf(self, state: HUNLState) -> Decision | Terminal:
        self.count += 1
        stake = float(min(state.committed))
        behind = float(min(state.stacks))
        group = round(self.settings.groups_per_doubling * math.log2(max(behind, 1.0) / max(stake, 1.0)))
        if group not in self.groups:
            started = time.perf_counter()
            cache = _ROLLOUTS.setdefault(self.blueprint, {})
            start = (self.key, self.hands.tobytes(), self.cards, self.chooser)
            key = (*start, self.settings, self.threshold, group)
            per_chip = cache.get(key)
            if per_chip is None:  # values per chip of the stake in the leaf that builds them
                values = rollout_matrices(
                    self.blueprint, state, self.hands, self.cards, self.showdown, self.chooser,
                    self.settings, self.threshold,
                )  # fmt: skip
                per_chip = [matrix / np.float32(stake) for matrix in values]
                cache[key] = per_chip
                while len(cache) > ROLLOUT_CACHE_SIZE:
                    cache.pop(next(iter(cache)))
            indices = []
            for matrix in per_chip:
                self.matrices.append(matrix.astype(np.float64))
                indices.append(len(self.matrices) - 1)
            self.groups[group] = indices
            self.seconds += time.perf_counter() - started
        indices = self.groups[group]
        terminals: list[tuple[Any, Decision | Terminal]] = [
            (name, Terminal(index, stake))
            for name, index in zip(self.settings.continuations, indices, strict=True)
        ]
        if len(terminals) == 1:
            return terminals[0][1]
        return Decision(self.chooser, terminals)


class RiverPayoffs:
    """The river: folds and showdowns, no leaves; the solver applies both matrices by the card sweep."""

    def __init__(self, board: tuple[int, ...], hands: npt.NDArray[np.int64]) -> None:
        self.hands = hands
        valid, showdown = river_pair_matrices(board, hands, hands)
        self.matrices = [valid, showdown]
        self.card_payoffs: CardPayoffs | None = river_card_payoffs(board, hands)
        self.leaves = 0
        self.leaf_seconds = 0.0

    terminal = staticmethod(_terminal)

    def leaf(self, state: HUNLState) -> Decision | Terminal:
        raise AssertionError("the river has no leaves")


class _RolloutStreet:
    """A street whose depth-limited leaves are blueprint rollouts (:class:`_RolloutLeaves`)."""

    _leaves: _RolloutLeaves
    terminal = staticmethod(_terminal)

    def _take_hands(
        self,
        hands: npt.NDArray[np.int64],
        all_hands: npt.NDArray[np.int64],
        valid: npt.NDArray[np.float64],
        equity: npt.NDArray[np.float64],
    ) -> npt.NDArray[np.int64]:
        """Keep ``hands`` and their blocks of the street's valid-pair and equity matrices; their rows."""
        rows, self.matrices = _select(hands, all_hands, valid, equity)
        self.hands = hands
        self.card_payoffs: CardPayoffs | None = _fold_structure(hands)
        return rows

    def leaf(self, state: HUNLState) -> Decision | Terminal:
        return self._leaves.leaf(state)

    @property
    def leaves(self) -> int:
        """Leaves built so far."""
        return self._leaves.count

    @property
    def leaf_seconds(self) -> float:
        """Seconds spent on their rollouts."""
        return self._leaves.seconds


class TurnPayoffs(_RolloutStreet):
    """The turn: all-in equity over the river cards; leaves valued by river rollouts."""

    def __init__(
        self,
        blueprint: AnyBlueprint,
        board: tuple[int, ...],
        hands: npt.NDArray[np.int64],
        chooser: int,
        settings: LeafSettings,
        threshold: float,
        key: object,
    ) -> None:
        all_hands, valid, equity, ranks = turn_street_matrices(board)
        rows = self._take_hands(hands, all_hands, valid, equity)
        cards = next_cards(board, settings.cards, key)
        card_ranks = np.ascontiguousarray(ranks[np.asarray(cards)][:, rows])  # [K, H], −1: holds the card
        showdown = _card_showdowns(card_ranks, self.matrices[VALID_MATRIX])
        self._leaves = _RolloutLeaves(
            blueprint, hands, self.matrices, cards, showdown, chooser, settings, threshold, (board, key)
        )


class FlopPayoffs(_RolloutStreet):
    """The flop: all-in equity over sampled run-outs; leaves valued by turn rollouts ending in check-down."""

    def __init__(
        self,
        blueprint: AnyBlueprint,
        board: tuple[int, ...],
        hands: npt.NDArray[np.int64],
        chooser: int,
        settings: LeafSettings,
        threshold: float,
        key: object,
    ) -> None:
        all_hands, valid, equity, turns, per_turn = flop_matrices(board)
        rows = self._take_hands(hands, all_hands, valid, equity)
        count = min(settings.cards, len(per_turn))
        showdown = per_turn[:count][:, rows][:, :, rows] * self.matrices[VALID_MATRIX].astype(np.float32)
        self._leaves = _RolloutLeaves(
            blueprint, hands, self.matrices, turns[:count], showdown, chooser, settings, threshold,
            (board, key),
        )  # fmt: skip


class PreflopPayoffs:
    """Preflop: all-in equity from the preflop equity matrix; a closed preflop is the equity on the pot."""

    def __init__(self, hands: npt.NDArray[np.int64]) -> None:
        from pokerai.search.preflop import preflop_equity_matrix

        valid, payoff = preflop_equity_matrix()
        _, self.matrices = _select(hands, np.arange(NUM_COMBOS), valid, payoff)
        self.hands = hands
        self.card_payoffs: CardPayoffs | None = _fold_structure(hands)
        self.leaves = 0
        self.leaf_seconds = 0.0

    terminal = staticmethod(_terminal)

    def leaf(self, state: HUNLState) -> Decision | Terminal:
        self.leaves += 1
        return Terminal(SHOWDOWN_MATRIX, float(min(state.committed)))


# ---------------------------------------------------------------------------- ranges


def street_start(state: HUNLState) -> HUNLState:
    """The engine state at the first action of ``state``'s street (the same deal, the history before it)."""
    replay = HUNLState.new(state.config, state.button, deck=state.deal)
    for action in state.history[: state.street_starts[state.street]]:
        replay.apply(action)
    return replay


def opponent_range(
    blueprint: AnyBlueprint,
    state: HUNLState,
    opponent: int,
    *,
    threshold: float = 0.0,
    floor: float = 0.0,
    until: int | None = None,
) -> npt.NDArray[np.float64]:
    """The range of ``opponent`` at ``state``'s street start: float64 ``[1326]`` summing to 1.

    Bayes' rule from the blueprint over the opponent's actions before the street (or before
    history index ``until``): each multiplies the range by ``floor + (1 − floor)·p``, ``p`` the
    blueprint's probability of the action (thresholded at ``threshold``) holding each
    combination. An off-menu raise counts through its translation. With ``floor`` 0 an action
    no hand in the range would take leaves the range as it was (never empty). Combinations
    that hold a board card get 0.
    """
    if not 0.0 <= floor < 1.0:
        raise ValueError(f"floor {floor!r} must lie in [0, 1)")
    end = state.street_starts[state.street] if until is None else until
    abstraction: BetAbstraction = blueprint.game.bets
    live = np.flatnonzero(~combos_holding(state.board))
    weights = np.zeros(NUM_COMBOS)
    weights[live] = 1.0
    replay = HUNLState.new(state.config, state.button, deck=state.deal)
    for action in state.history[:end]:
        if action.player == opponent:
            candidates = live[weights[live] > 0]
            legal, amounts, raw = _history_probabilities(blueprint, replay, candidates)
            pairs = action_slots(replay, action, legal, amounts, abstraction)
            if pairs:
                for probabilities in (threshold_probabilities(raw, threshold), raw):
                    likelihood = sum(weight * probabilities[:, slot] for slot, weight in pairs)
                    updated = weights[candidates] * (floor + (1.0 - floor) * likelihood)
                    if updated.sum() > 0:
                        weights[candidates] = updated / updated.max()
                        break
        replay.apply(action)
    result: npt.NDArray[np.float64] = weights / weights.sum()
    return result


# ---------------------------------------------------------------------------- the street's tree


@dataclass(frozen=True, eq=False)
class StreetTree:
    """A street's public tree (module docstring, step 2) and how it maps back to the game.

    Attributes:
        subgame: the tree; subgame player ``p`` is engine player ``p``.
        root: the nested description it was laid out from.
        hands: int64 ``[H]``, the :data:`~pokerai.search.combos.ALL_COMBOS` index of each hand.
        decision_states: the engine state at each betting decision, by node index (the
            continuation choices at leaves are not betting decisions and are not in it).
        path: the node index of each decision on the street's actual path, in order; the
            last is the current decision.
        path_actions: the history index of the action taken at each path node but the last.
    """

    subgame: Subgame
    root: Decision
    hands: npt.NDArray[np.int64]
    decision_states: dict[int, HUNLState]
    path: tuple[int, ...]
    path_actions: tuple[int, ...]

    @property
    def current(self) -> int:
        """The node index of the current decision."""
        return self.path[-1]


def action_label(state: HUNLState, action: Action, abstraction: BetAbstraction) -> Label:
    """The child label of ``action`` at ``state``: its menu slot, or :class:`Exact` for an off-menu raise."""
    if action.kind is ActionKind.FOLD:
        return FOLD_SLOT
    if action.kind is not ActionKind.RAISE:
        return CHECK_CALL_SLOT
    legal, amounts = legal_slot_amounts(state, abstraction)
    for slot in legal:
        if slot not in (FOLD_SLOT, CHECK_CALL_SLOT) and amounts[slot] == action.amount:
            return slot
    return Exact(int(action.amount))


def build_street_tree(
    state: HUNLState,
    abstraction: BetAbstraction,
    payoffs: StreetPayoffs,
    reach: npt.ArrayLike,
    *,
    max_raises: int | None,
) -> StreetTree:
    """The public tree of ``state``'s street from its start, through the actions taken, to its end.

    ``reach`` float ``[2, H]`` (by engine player, over ``payoffs.hands``) is the reach at
    the street's start. Decisions on the actual path offer the whole menu plus the action
    actually taken if the menu lacks its size; elsewhere at most ``max_raises`` raises
    (None: no cap) follow a path node. Terminals and leaves come from ``payoffs``.
    """
    if state.to_act is None:
        raise ValueError("street search needs a decision, and the hand is over")
    start = street_start(state)
    first = state.street_starts[state.street]
    actions = state.history[first:]
    states: dict[int, HUNLState] = {}
    on_path: dict[int, int] = {}

    def node(current: HUNLState, raises: int, depth: int | None) -> Decision | Terminal:
        if current.is_over:
            return payoffs.terminal(current)
        if current.street != state.street:
            return payoffs.leaf(current)
        player = current.to_act
        assert player is not None
        taken: Label | None = None
        if depth is not None and depth < len(actions):
            taken = action_label(current, actions[depth], abstraction)
        children: list[tuple[Any, Decision | Terminal]] = []
        menu = (
            menu_children(current, abstraction, 0, None)
            if depth is not None
            else menu_children(current, abstraction, raises, max_raises)
        )
        for slot, child, child_raises in menu:
            follows = depth is not None and slot == taken
            children.append(
                (slot, node(child, child_raises, depth + 1 if follows and depth is not None else None))
            )
        if isinstance(taken, Exact):
            assert depth is not None
            child = current.clone()
            child.apply(actions[depth])
            children.append((taken, node(child, 0, depth + 1)))
        decision = Decision(player, children)
        states[id(decision)] = current
        if depth is not None:
            on_path[id(decision)] = depth
        return decision

    root = node(start, 0, 0)
    if not isinstance(root, Decision):
        raise ValueError("the street's tree has no decision at its start")
    subgame = Subgame.from_nested(root, payoffs.matrices, reach)
    order: list[Decision | Terminal] = [root]
    for nested in order:
        if isinstance(nested, Decision):
            order.extend(child for _, child in nested.children)
    index_of = {id(nested): index for index, nested in enumerate(order)}
    path = sorted(on_path, key=on_path.__getitem__)
    if len(path) != len(actions) + 1:
        raise ValueError("the street's actions do not replay on its tree")
    return StreetTree(
        subgame=subgame,
        root=root,
        hands=payoffs.hands,
        decision_states={index_of[key]: value for key, value in states.items()},
        path=tuple(index_of[key] for key in path),
        path_actions=tuple(range(first, first + len(actions))),
    )


def _children_rows(
    probabilities: npt.NDArray[np.float64],
    labels: Sequence[Label],
    state: HUNLState,
    legal: Sequence[int],
    amounts: Sequence[int],
    abstraction: BetAbstraction,
) -> npt.NDArray[np.float64]:
    """``probabilities`` ``[H, num_slots]`` over a decision's children ``[children, H]``, renormalised.

    An :class:`Exact` child gets the probability of its translation into menu slots (without
    double counting the slots that are also children)."""
    rows = np.zeros((len(labels), probabilities.shape[0]))
    for position, label in enumerate(labels):
        if isinstance(label, Exact):
            pairs = translate_pairs(state, label.amount, legal, amounts, abstraction)
            rows[position] = sum(weight * probabilities[:, slot] for slot, weight in pairs)
        else:
            rows[position] = probabilities[:, int(label)]
    totals = rows.sum(axis=0)
    result: npt.NDArray[np.float64] = np.where(
        totals > 0, rows / np.where(totals > 0, totals, 1.0), 1.0 / len(labels)
    )
    return result


def translate_pairs(
    state: HUNLState, amount: int, legal: Sequence[int], amounts: Sequence[int], abstraction: BetAbstraction
) -> list[tuple[int, float]]:
    """The menu slots that stand for a raise to ``amount`` at ``state``, as (slot, weight) pairs."""
    return action_slots(
        state, Action(int(state.to_act or 0), ActionKind.RAISE, amount), legal, amounts, abstraction
    )


def street_blueprint(
    blueprint: AnyBlueprint, tree: StreetTree, threshold: float = 0.0
) -> npt.NDArray[np.float64]:
    """The blueprint in :attr:`~pokerai.search.subgame.Solution.average` layout for ``tree``.

    One batched network call per betting decision over the tree's hands; at a leaf's
    continuation choice the opponent takes ``"blueprint"``.
    """
    subgame = tree.subgame
    abstraction: BetAbstraction = blueprint.game.bets
    strategy = np.ones((subgame.num_nodes, subgame.num_hands))
    for node in subgame.decisions:
        children = subgame.children(int(node))
        labels = [subgame.label[child] for child in children]
        node_state = tree.decision_states.get(int(node))
        if node_state is None:
            strategy[children.start : children.stop] = 0.0
            strategy[children.start + labels.index("blueprint")] = 1.0
            continue
        legal, amounts, probabilities = combo_probabilities(blueprint, node_state, tree.hands, threshold)
        strategy[children.start : children.stop] = _children_rows(
            probabilities, labels, node_state, legal, amounts, abstraction
        )
    return strategy


# ---------------------------------------------------------------------------- one street's solve


@dataclass(frozen=True)
class StreetSolution:
    """The searcher's strategy at the current decision, solved for every combination.

    Attributes:
        strategy: float64 ``[1326, num_slots]``; rows of combinations outside the subgame are 0.
        iterations: CFR+ iterations run.
        seconds: wall-clock time of the whole search (ranges excluded).
        leaf_seconds: the part spent on leaf rollouts.
        num_nodes, num_hands, leaves: the size of the subgame.
    """

    strategy: npt.NDArray[np.float64]
    iterations: int
    seconds: float
    leaf_seconds: float = 0.0
    num_nodes: int = 0
    num_hands: int = 0
    leaves: int = 0


def make_payoffs(
    blueprint: AnyBlueprint,
    state: HUNLState,
    hands: npt.NDArray[np.int64],
    chooser: int,
    leaf: LeafSettings,
    threshold: float,
) -> RiverPayoffs | TurnPayoffs | FlopPayoffs | PreflopPayoffs:
    """The :class:`StreetPayoffs` of ``state``'s street over ``hands``."""
    board = tuple(state.board)
    if state.street == Street.RIVER:
        return RiverPayoffs(board, hands)
    key = ";".join(str(action) for action in state.history[: state.street_starts[state.street]])
    if state.street == Street.TURN:
        return TurnPayoffs(blueprint, board, hands, chooser, leaf, threshold, key)
    if state.street == Street.FLOP:
        return FlopPayoffs(blueprint, board, hands, chooser, leaf, threshold, key)
    return PreflopPayoffs(hands)


def hand_buckets(
    subgame: Subgame,
    fixed: Mapping[int, tuple[float, npt.NDArray[np.float64]]],
    count: int,
    seed: int = 0,
) -> npt.NDArray[np.int64]:
    """Group the subgame's hands into at most ``count`` buckets that play alike: int64 ``[H]`` labels.

    Each hand is described by its value per chip against the other player's root range under
    every payoff matrix of the subgame but the valid-pair one (for either player holding
    it), and by the strategies frozen at ``fixed`` decisions; k-means groups the
    standardised descriptions (seeded). With ``count`` at least the number of hands, every
    hand is its own bucket.
    """
    num_hands = subgame.num_hands
    if count >= num_hands:
        return np.arange(num_hands, dtype=np.int64)
    from sklearn.cluster import KMeans  # scikit-learn loads slowly; only bucketed solves need it

    valid = subgame.matrices[VALID_MATRIX]
    columns: list[npt.NDArray[np.float64]] = []
    for player in (0, 1):
        other = subgame.reach[1 - player]
        met = valid @ other if player == 0 else valid.T @ other
        met = np.where(met > 0, met, 1.0)
        for index, matrix in enumerate(subgame.matrices):
            if index != VALID_MATRIX:
                columns.append((matrix @ other if player == 0 else matrix.T @ other) / met)
    for _, rows in fixed.values():
        columns.extend(rows.T)
    features = np.stack(columns, axis=1)
    spread = features.std(axis=0)
    features = features[:, spread > 1e-12] / spread[spread > 1e-12]
    if features.shape[1] == 0:
        return np.arange(num_hands, dtype=np.int64) % count
    labels = KMeans(n_clusters=count, n_init=1, random_state=seed).fit_predict(features)
    # Renumber so that every label from 0 to the number of buckets used occurs.
    _, compact = np.unique(labels, return_inverse=True)
    return compact.astype(np.int64)


def _bucket_rows(
    rows: npt.NDArray[np.float64], labels: npt.NDArray[np.int64], weights: npt.NDArray[np.float64]
) -> npt.NDArray[np.float64]:
    """Columns of ``rows`` ``[..., H]`` averaged per bucket with ``weights`` (uniform where those are 0)."""
    count = int(labels.max()) + 1
    totals = np.bincount(labels, weights, minlength=count)
    used = np.where(totals[labels] > 0, weights, 1.0)
    membership = np.zeros((len(labels), count))
    membership[np.arange(len(labels)), labels] = 1.0
    sums = (rows * used) @ membership
    result: npt.NDArray[np.float64] = sums / np.bincount(labels, used, minlength=count)
    return result


def bucketed_subgame(subgame: Subgame, labels: npt.NDArray[np.int64]) -> Subgame:
    """``subgame`` with the hands of each bucket merged into one (the game where they share a strategy).

    A bucket pair's payoff is the mean over its hand pairs weighted by both players' root
    reach, and a bucket's root reach is its hands' sum. As long as the hands of a bucket
    play one strategy, their reach keeps those proportions through the tree, so the merged
    game gives every bucket the reach-weighted mean of its hands' values: the same game.
    """
    count = int(labels.max()) + 1
    order = np.argsort(labels, kind="stable")
    starts = np.searchsorted(labels[order], np.arange(count))
    weights = []
    for player in (0, 1):
        reach = subgame.reach[player]
        totals = np.bincount(labels, reach, minlength=count)
        weights.append(np.where(totals[labels] > 0, reach, 1.0))
    norms = [np.bincount(labels, weight, minlength=count) for weight in weights]
    matrices = []
    for matrix in subgame.matrices:
        weighted = (weights[0][:, np.newaxis] * matrix * weights[1][np.newaxis, :])[np.ix_(order, order)]
        summed = np.add.reduceat(np.add.reduceat(weighted, starts, axis=0), starts, axis=1)
        matrices.append(summed / np.outer(norms[0], norms[1]))
    reach = np.stack([np.bincount(labels, subgame.reach[player], minlength=count) for player in (0, 1)])
    return dataclasses.replace(subgame, matrices=tuple(matrices), reach=reach)


def path_trembles(
    tree: StreetTree, searcher: int, path_floor: float, learnt: PathFloors | None = None
) -> dict[int, tuple[float, npt.NDArray[np.float64]]]:
    """The opponent's decisions on the street's path, each taking its action with at least a floor.

    Each entry is ``(floor, rows)`` for :func:`~pokerai.search.subgame.solve`'s ``fixed``,
    ``rows`` ``[H, children]`` all on the action taken: the opponent's strategy there becomes
    ``floor·[the action taken] + (1 − floor)·(its own)``. So every hand the opponent holds
    reaches the decision with at least ``floor`` times its reach at the street's start: the
    floor of :func:`opponent_range`, on the actions of the street being solved, whose
    probabilities otherwise come out of the solve. The floor is ``path_floor``, or where
    larger the ``learnt`` one for the action's kind (a raise, or not; a raise of more than
    :data:`~pokerai.search.responses.OVERBET` pots, or not) and context (nothing to call, or a
    bet to call) on the flop, turn and river. An empty dict when every floor is 0.
    """
    if not 0.0 <= path_floor < 1.0:
        raise ValueError(f"path_floor {path_floor!r} must lie in [0, 1)")
    subgame = tree.subgame
    trembles: dict[int, tuple[float, npt.NDArray[np.float64]]] = {}
    for node, taken in itertools.pairwise(tree.path):
        if int(subgame.player[node]) == searcher:
            continue
        floor = path_floor
        state = tree.decision_states[node]
        if learnt is not None and state.street != Street.PREFLOP:
            label = subgame.label[taken]
            aggressive = isinstance(label, Exact) or int(label) not in (FOLD_SLOT, CHECK_CALL_SLOT)
            overbet = False
            if aggressive:
                player = int(subgame.player[node])
                after = tree.decision_states[int(taken)]
                overbet = raise_fraction(state, after.bets[player]) > OVERBET
            floor = max(floor, learnt.floor(int(state.call_amount > 0), aggressive, overbet))
        if not 0.0 <= floor < 1.0:
            raise ValueError(f"a path floor {floor!r} must lie in [0, 1)")
        if floor == 0.0:
            continue
        children = subgame.children(node)
        rows = np.zeros((subgame.num_hands, len(children)))
        rows[:, taken - children.start] = 1.0
        trembles[node] = (floor, rows)
    return trembles


def mix_fixed(
    first: tuple[float, npt.NDArray[np.float64]], second: tuple[float, npt.NDArray[np.float64]]
) -> tuple[float, npt.NDArray[np.float64]]:
    """One ``fixed`` entry for a node with two: ``second`` mixed over ``first`` mixed over the solve.

    The strategy ``(1 − w₂)·((1 − w₁)·own + w₁·rows₁) + w₂·rows₂`` is ``(1 − w)·own + w·rows``
    with ``w = 1 − (1 − w₁)(1 − w₂)`` and ``rows = ((1 − w₂)·w₁·rows₁ + w₂·rows₂) / w``.
    """
    (w1, rows1), (w2, rows2) = first, second
    weight = 1.0 - (1.0 - w1) * (1.0 - w2)
    return weight, ((1.0 - w2) * w1 * rows1 + w2 * rows2) / weight


@dataclass(frozen=True, eq=False)
class PreparedStreet:
    """A street's search before the solve: the tree, its payoffs, the frozen decisions and the game solved.

    Attributes:
        tree: the street's tree.
        payoffs: its :class:`StreetPayoffs`.
        fixed: the searcher's frozen decisions for :func:`~pokerai.search.subgame.solve`, in
            ``game``'s node indices.
        game: the subgame to solve: ``tree.subgame``, or the gadget around it with ``safe``.
        layout: the blueprint in ``tree.subgame``'s layout (frozen decisions as played), with
            ``safe``; else None.
        searcher: the engine player to act.
        labels: each hand's bucket in ``game`` (int64 ``[H]``), or None when ``game``'s hands
            are the tree's.
    """

    tree: StreetTree
    payoffs: RiverPayoffs | TurnPayoffs | FlopPayoffs | PreflopPayoffs
    fixed: dict[int, tuple[float, npt.NDArray[np.float64]]]
    game: Subgame
    layout: npt.NDArray[np.float64] | None
    searcher: int
    labels: npt.NDArray[np.int64] | None = None


def prepare_street(
    blueprint: AnyBlueprint,
    state: HUNLState,
    own: npt.ArrayLike,
    opponent: npt.ArrayLike,
    played: Mapping[int, npt.NDArray[np.float64]],
    *,
    max_raises: int | None = 2,
    safe: bool = True,
    leaf: LeafSettings = LeafSettings(),
    threshold: float = 0.0,
    uniform_weight: float = 0.5,
    buckets: int | None = None,
    opponent_responses: ResponseCounts | None = None,
    path_floor: float = 0.0,
    path_floors: PathFloors | None = None,
) -> PreparedStreet:
    """Steps 1 to 4 of the module docstring at the decision ``state`` (arguments as :func:`solve_street`)."""
    searcher = state.to_act
    if searcher is None:
        raise ValueError("street search needs a decision, and the hand is over")
    ranges = np.stack([np.asarray(own, dtype=np.float64), np.asarray(opponent, dtype=np.float64)])
    if ranges.shape != (2, NUM_COMBOS) or not np.all(ranges >= 0):
        raise ValueError(f"ranges must be non-negative vectors of {NUM_COMBOS} combinations")
    live = ~combos_holding(state.board)
    hands = np.flatnonzero(live & ((ranges[0] > 0) | (ranges[1] > 0))).astype(np.int64)
    if ranges[0, hands].sum() <= 0 or ranges[1, hands].sum() <= 0:
        raise ValueError("a range is empty at the street's start")
    reach = np.zeros((2, len(hands)))
    reach[searcher] = ranges[0, hands] / ranges[0, hands].sum()
    reach[1 - searcher] = ranges[1, hands] / ranges[1, hands].sum()
    payoffs = make_payoffs(blueprint, state, hands, 1 - searcher, leaf, threshold)
    tree = build_street_tree(state, blueprint.game.bets, payoffs, reach, max_raises=max_raises)
    subgame = tree.subgame
    fixed: dict[int, tuple[float, npt.NDArray[np.float64]]] = {}
    for node, history_index in zip(tree.path[:-1], tree.path_actions, strict=True):
        if int(subgame.player[node]) != searcher:
            continue
        if history_index not in played:
            raise ValueError(f"the strategy played at history index {history_index} is missing")
        children = subgame.children(node)
        labels = [subgame.label[child] for child in children]
        if any(isinstance(label, Exact) for label in labels):
            raise ValueError("the searcher's own earlier action is not on the menu")
        columns = np.array([int(label) for label in labels], dtype=np.int64)
        rows = np.asarray(played[history_index], dtype=np.float64)[np.ix_(hands, columns)]
        totals = rows.sum(axis=1, keepdims=True)
        fixed[node] = (1.0, np.where(totals > 0, rows / np.where(totals > 0, totals, 1.0), 1.0 / len(labels)))
    if opponent_responses is not None:
        if safe:
            raise ValueError("opponent_responses does not work with the safe gadget")
        fixed.update(street_response_strategies(tree, state.board, searcher, opponent_responses))
    for node, tremble in path_trembles(tree, searcher, path_floor, path_floors).items():
        fixed[node] = tremble if node not in fixed else mix_fixed(fixed[node], tremble)
    bucket_of = None
    inner = subgame
    if buckets is not None and buckets < subgame.num_hands:
        bucket_of = hand_buckets(subgame, fixed, buckets)
        inner = bucketed_subgame(subgame, bucket_of)
        fixed = {
            node: (weight, _bucket_rows(rows.T, bucket_of, subgame.reach[searcher]).T)
            for node, (weight, rows) in fixed.items()
        }
    if not safe:
        return PreparedStreet(tree, payoffs, fixed, inner, None, searcher, bucket_of)
    layout = street_blueprint(blueprint, tree, threshold)
    frozen = {node: value for node, value in fixed.items() if int(subgame.player[node]) == searcher}
    for node, (_, rows) in frozen.items():
        children = subgame.children(node)
        if bucket_of is None:
            layout[children.start : children.stop] = rows.T
    if bucket_of is not None:
        acting = np.zeros(subgame.num_nodes, dtype=np.int64)
        for node in subgame.decisions:
            acting[subgame.children(int(node))] = subgame.player[node]
        merged = np.ones((subgame.num_nodes, int(bucket_of.max()) + 1))
        for player in (0, 1):
            rows_of = acting == player
            merged[rows_of] = _bucket_rows(layout[rows_of], bucket_of, subgame.reach[player])
        merged[0] = 1.0
        for node, (_, rows) in frozen.items():
            children = subgame.children(node)
            merged[children.start : children.stop] = rows.T
        layout = merged
    game = with_resolve_gadget(
        tree.root, inner, layout, searcher, valid=VALID_MATRIX, uniform_weight=uniform_weight
    )
    # The gadget puts the street's root at node 1 and every other node two places later.
    shifted = {(1 if node == 0 else node + 2): value for node, value in fixed.items()}
    return PreparedStreet(tree, payoffs, shifted, game, layout, searcher, bucket_of)


def solve_street(
    blueprint: AnyBlueprint,
    state: HUNLState,
    own: npt.ArrayLike,
    opponent: npt.ArrayLike,
    played: Mapping[int, npt.NDArray[np.float64]],
    *,
    iterations: int,
    time_budget_s: float | None = None,
    max_raises: int | None = 2,
    safe: bool = True,
    leaf: LeafSettings = LeafSettings(),
    threshold: float = 0.0,
    uniform_weight: float = 0.5,
    buckets: int | None = None,
    opponent_responses: ResponseCounts | None = None,
    path_floor: float = 0.0,
    path_floors: PathFloors | None = None,
) -> StreetSolution:
    """Re-solve ``state``'s street from its start for the player to act (module docstring).

    ``own`` and ``opponent`` float ``[1326]`` are the searcher's and the opponent's ranges at
    the street's start; ``played`` maps the history index of each of the searcher's earlier
    actions on this street to the strategy it played there, float ``[1326, num_slots]``.
    ``max_raises`` caps the raises off the actual path (None: no cap); ``safe`` adds the
    gadget, whose opponent reach is ``uniform_weight`` uniform; ``threshold`` applies to the
    blueprint in the leaves and the gadget. ``time_budget_s`` bounds the whole search, but
    the leaves are built whatever it says. With 0 iterations nothing is built and the
    strategy is all zeros. ``opponent_responses`` (flop, turn or river; not with ``safe``) mixes
    the modelled answers to the searcher's first bet of the street into the opponent's strategy
    (:func:`~pokerai.search.responses.street_response_strategies`). ``path_floor`` in [0, 1)
    is the least probability of each action the opponent took on this street before the
    decision, for every hand (:func:`path_trembles`); ``path_floors``, learnt from the
    opponent's aggression (:class:`~pokerai.agents.opponent.Aggression`), raises it by the
    action's kind and context.
    """
    started = time.perf_counter()
    num_slots = blueprint.game.bets.num_slots
    if isinstance(iterations, bool) or not isinstance(iterations, int) or iterations < 0:
        raise ValueError(f"iterations {iterations!r} is not a non-negative whole number")
    if time_budget_s is not None and not time_budget_s >= 0:
        raise ValueError(f"time budget {time_budget_s!r} is not a non-negative number of seconds")
    if iterations == 0:
        return StreetSolution(np.zeros((NUM_COMBOS, num_slots)), 0, time.perf_counter() - started)
    prepared = prepare_street(
        blueprint, state, own, opponent, played, max_raises=max_raises, safe=safe, leaf=leaf,
        threshold=threshold, uniform_weight=uniform_weight, buckets=buckets,
        opponent_responses=opponent_responses, path_floor=path_floor, path_floors=path_floors,
    )  # fmt: skip
    tree, payoffs = prepared.tree, prepared.payoffs
    labels = prepared.labels
    remaining = None if time_budget_s is None else max(0.0, time_budget_s - (time.perf_counter() - started))
    solution: Solution = solve(
        prepared.game, iterations, time_budget_s=remaining,
        card_payoffs=payoffs.card_payoffs if labels is None else None, fixed=prepared.fixed or None,
    )  # fmt: skip
    subgame = tree.subgame
    average = solution.average
    if safe:
        average = average[np.r_[0, 3 : 3 + subgame.num_nodes - 1]]  # the gadget's layout to the tree's
    if labels is not None:
        average = average[:, labels]
    children = subgame.children(tree.current)
    slots = np.array([int(subgame.label[child]) for child in children], dtype=np.int64)
    strategy = np.zeros((NUM_COMBOS, num_slots))
    strategy[np.ix_(tree.hands, slots)] = average[children.start : children.stop].T
    return StreetSolution(
        strategy,
        solution.iterations,
        time.perf_counter() - started,
        payoffs.leaf_seconds,
        subgame.num_nodes,
        subgame.num_hands,
        payoffs.leaves,
    )


__all__ = [
    "CONTINUATIONS",
    "SHOWDOWN_MATRIX",
    "VALID_MATRIX",
    "Exact",
    "FlopPayoffs",
    "LeafSettings",
    "PreflopPayoffs",
    "PreparedStreet",
    "RiverPayoffs",
    "StreetPayoffs",
    "StreetSolution",
    "StreetTree",
    "TurnPayoffs",
    "action_label",
    "avoid_hugepage_stalls",
    "bucketed_subgame",
    "build_street_tree",
    "flop_matrices",
    "hand_buckets",
    "make_payoffs",
    "mix_fixed",
    "next_cards",
    "opponent_range",
    "path_trembles",
    "prepare_street",
    "rollout_matrices",
    "solve_street",
    "street_blueprint",
    "street_start",
    "turn_street_matrices",
]
