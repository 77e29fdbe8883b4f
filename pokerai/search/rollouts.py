"""Depth-limited leaves valued by blueprint rollouts over sampled next cards.

Where a street's betting closes with chips behind and a card to come, the street's subgame
ends in a depth-limited leaf (Brown, Sandholm & Amos, "Depth-Limited Solving for
Imperfect-Information Games", NeurIPS 2018): the opponent picks, for each of its hands, one
of the continuation strategies -- the blueprint, or the blueprint biased towards folding,
calling or raising -- while the searcher plays the blueprint over the next street.
:func:`rollout_matrices` values each choice by blueprint play over sampled next cards, one
batched blueprint call per rollout decision, ending in the next street's check-down.
:class:`RolloutLeaves` groups a street's leaves by stack-to-pot ratio, so that leaves of one
group share one rollout scaled by the chips in, and keeps the last groups' values for the
street's later decisions.
"""

from __future__ import annotations

import math
import time
import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from pokerai.abstraction.bets import CHECK_CALL_SLOT, FOLD_SLOT, BetAbstraction, slot_actions
from pokerai.engine.state import HUNLState
from pokerai.games.holdem import Blueprint
from pokerai.search.beliefs import threshold_probabilities
from pokerai.search.combos import ALL_COMBOS, CARD_IN_COMBO
from pokerai.search.equity import valid_pairs
from pokerai.search.subgame import Decision, Terminal, is_count
from pokerai.search.tree import menu_children
from pokerai.solvers.policy import normalize_rows_or

CONTINUATIONS: tuple[str, ...] = ("blueprint", "fold", "call", "raise")
"""The continuation strategies an opponent picks from at a depth-limited leaf."""


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
        if not is_count(self.cards, 2) or self.cards > 48:
            raise ValueError(f"leaf cards {self.cards!r} must be a whole number from 2 to 48")
        if self.rollout_raises is not None and not is_count(self.rollout_raises):
            raise ValueError(f"rollout_raises {self.rollout_raises!r} is not a non-negative whole number")
        if not self.bias >= 1.0:
            raise ValueError(f"bias must be at least 1, got {self.bias!r}")
        if not self.groups_per_doubling > 0:
            raise ValueError(f"groups_per_doubling must be positive, got {self.groups_per_doubling!r}")


@dataclass
class _RolloutNode:
    """A node of a rollout's betting tree: a decision (state, player, child slots) or a terminal."""

    state: HUNLState | None = None
    player: int = -1
    slots: tuple[int, ...] = ()
    children: tuple[int, ...] = ()
    fold_scale: float | None = None
    showdown_scale: float | None = None


def _add_rollout_node(
    nodes: list[_RolloutNode],
    current: HUNLState,
    raises: int,
    street: int,
    abstraction: BetAbstraction,
    max_raises: int | None,
) -> int:
    """Appends the subtree at ``current`` to ``nodes`` (parents first) and returns its index: the betting
    of ``street`` on the menu, with at most ``max_raises`` raises; the street's end is a check-down
    terminal (its value comes from the next cards' matrices). (A module function, not a closure that
    calls itself: such a closure is a reference cycle, freed only by the cyclic collector.)"""
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
        children.append(_add_rollout_node(nodes, child, child_raises, street, abstraction, max_raises))
    node.slots, node.children = tuple(slots), tuple(children)
    return index


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
    result: npt.NDArray[np.float64] = normalize_rows_or(biased, rows)
    return result


ROLLOUT_MIN_PROBABILITY = 1e-5
"""Blueprint probabilities below this play as 0 in a rollout (the rest renormalised)."""


def rollout_matrices(
    blueprint: Blueprint,
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
    valid = valid_pairs(hands)
    free32 = free.astype(np.float32)
    valid32 = valid.astype(np.float32)
    count = (free32.T @ free32) * valid32  # the cards each pair can meet
    abstraction: BetAbstraction = blueprint.game.bets
    nodes: list[_RolloutNode] = []
    _add_rollout_node(nodes, leaf, 0, leaf.street, abstraction, settings.rollout_raises)
    # A hand that holds the card cannot be dealt it: its rows ask about a stand-in hand instead and
    # are masked out of every value.
    hole_rows = np.tile(np.arange(num_hands), (num_cards, 1))
    stand_in = np.argmax(free, axis=1)
    hole_rows = np.where(free, hole_rows, stand_in[:, np.newaxis])
    holes = ALL_COMBOS[hands][hole_rows.reshape(-1)]
    boards = np.tile(np.asarray(leaf.board, dtype=np.int64), (len(holes), 1))
    boards[:, -1] = np.repeat(card_array, num_hands)  # the newest card is the placeholder
    probabilities: dict[int, npt.NDArray[np.float64]] = {}
    for index, node in enumerate(nodes):
        if node.state is None:
            continue
        mask, _ = slot_actions(node.state, abstraction)
        raw = blueprint.hand_probabilities(node.state, holes, mask, boards)
        kept = threshold_probabilities(raw, threshold)[:, list(node.slots)]
        # Dropping negligible probabilities keeps the float32 reach products clear of subnormal
        # numbers, on which x86 arithmetic is many times slower.
        kept = np.where(kept >= ROLLOUT_MIN_PROBABILITY, kept, 0.0)
        kept = normalize_rows_or(kept, 1.0 / len(node.slots))
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


ROLLOUT_CACHE_SIZE = 8
"""Stack-to-pot groups whose rollout values are kept, so that later decisions on a street reuse them."""
_ROLLOUTS: weakref.WeakKeyDictionary[Any, dict[tuple[Any, ...], list[npt.NDArray[np.float32]]]] = (
    weakref.WeakKeyDictionary()
)


class RolloutLeaves:
    """Depth-limited leaves shared by stack-to-pot group (module docstring, step 3).

    A group's values depend on the street's start (``key``), the hands, the cards and the
    settings, not on the ranges, so the last :data:`ROLLOUT_CACHE_SIZE` groups are kept
    and a later decision on the same street reuses them (with the stake of the leaf that
    first built them)."""

    def __init__(
        self,
        blueprint: Blueprint,
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


__all__ = [
    "CONTINUATIONS",
    "ROLLOUT_CACHE_SIZE",
    "ROLLOUT_MIN_PROBABILITY",
    "LeafSettings",
    "RolloutLeaves",
    "rollout_matrices",
]
