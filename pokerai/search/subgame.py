"""A public subgame over both players' ranges, and a vectorised CFR+ that solves it.

Real-time search re-solves the part of the game that starts at the current
public state. Its tree is *public*: a node is a public action sequence, and
each player's private hand is not a branch but an index into a vector, so one
pass over the tree updates the strategy of every hand at once (the layout of
range-based solvers such as postflop-solver or DeepStack's re-solver).

Layout
------
* ``H`` private hands per player, indexed the same for both players (Leduc: the
  six cards; hold'em: the 1,326 two-card combinations).
* Nodes are stored parent before child and every node's children are
  consecutive (:meth:`Subgame.from_nested` lays out a nested description so).
* A decision node belongs to one player; its children are that player's actions.
* A terminal node has a payoff matrix ``matrices[m]`` (float ``[H, H]``,
  player 0's payoff per unit when player 0 holds hand ``i`` and player 1 hand
  ``j``, 0 for pairs that cannot occur together) times a scale. Folds, showdowns
  and the leaf values of depth-limited solving (one matrix per leaf and
  continuation strategy) are all terminals of this kind; zero-sum, so player
  1's payoff is the negative.
* ``reach`` ``[2, H]``: each player's beliefs at the root (probability of
  reaching the root holding each hand, up to a constant). Chance's part -- which
  hand pairs can occur together -- is in the matrices.

Solving
-------
:func:`solve` runs CFR+ (Tammelin 2014: regret-matching+, alternating updates,
linearly weighted average strategy) for an iteration budget and, optionally, a
time budget, and returns the average strategy of every decision node for every
hand. Counterfactual values at terminals are matrix products, batched over all
the terminals that share a matrix.

Hold'em river payoffs have structure that makes those products cheap
(:class:`CardPayoffs`): the fold matrix is "the two hands share no card" and
the showdown matrix is "compare the ranks" on top of it. Given the hands' cards
and ranks, :func:`solve` computes their products in time linear in ``H``
(hands sorted by rank, running sums per card take out the pairs that share a
card -- the card-removal sweep of Johanson et al., "Accelerating Best Response
Calculation in Large Extensive Games", IJCAI 2011) instead of ``H²``.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numba
import numpy as np
import numpy.typing as npt

from pokerai.solvers.postflop.kernel import fold_values, showdown_values

DECISION, TERMINAL = 0, 1


@dataclass(frozen=True)
class Terminal:
    """A terminal of a nested subgame description: ``scale × matrices[matrix]`` is player 0's payoff."""

    matrix: int
    scale: float = 1.0


@dataclass(frozen=True)
class Decision:
    """A decision of ``player`` in a nested subgame description; ``children`` are ``(label, node)`` pairs."""

    player: int
    children: Sequence[tuple[Any, Decision | Terminal]]


@dataclass(frozen=True, eq=False)
class Subgame:
    """A public tree in flat arrays (module docstring). All per-node arrays have length ``num_nodes``.

    Attributes:
        kind: int8, ``DECISION`` or ``TERMINAL``.
        player: int8, the acting player at decisions, -1 at terminals.
        first_child, num_children: int32; children are ``first_child .. first_child + num_children - 1``.
        matrix: int32, the payoff matrix index at terminals, -1 at decisions.
        scale: float64, the payoff scale at terminals, 0 at decisions.
        label: the label of the edge from the parent (an action; ``None`` at the root).
        matrices: float64 ``[H, H]`` payoff matrices of player 0.
        reach: float64 ``[2, H]``, the players' root beliefs.
    """

    kind: npt.NDArray[np.int8]
    player: npt.NDArray[np.int8]
    first_child: npt.NDArray[np.int32]
    num_children: npt.NDArray[np.int32]
    matrix: npt.NDArray[np.int32]
    scale: npt.NDArray[np.float64]
    label: tuple[Any, ...]
    matrices: tuple[npt.NDArray[np.float64], ...]
    reach: npt.NDArray[np.float64]
    decisions: npt.NDArray[np.int32] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "decisions", np.flatnonzero(self.kind == DECISION).astype(np.int32))
        num_hands = self.reach.shape[1]
        if self.reach.shape != (2, num_hands) or np.any(self.reach < 0):
            raise ValueError(f"root reach must be non-negative [2, H], got shape {self.reach.shape}")
        for index, matrix in enumerate(self.matrices):
            if matrix.shape != (num_hands, num_hands):
                raise ValueError(
                    f"payoff matrix {index} has shape {matrix.shape}, expected {(num_hands, num_hands)}"
                )
        used = self.matrix[self.kind == TERMINAL]
        if used.size and (used.min() < 0 or used.max() >= len(self.matrices)):
            raise ValueError("a terminal names a payoff matrix that does not exist")

    @property
    def num_nodes(self) -> int:
        return int(self.kind.shape[0])

    @property
    def num_hands(self) -> int:
        return int(self.reach.shape[1])

    def children(self, node: int) -> range:
        """The child node indices of ``node``."""
        first = int(self.first_child[node])
        return range(first, first + int(self.num_children[node]))

    def child_rows(self, node: int) -> slice:
        """The rows of ``node``'s children in a per-node array."""
        first = int(self.first_child[node])
        return slice(first, first + int(self.num_children[node]))

    @classmethod
    def from_nested(
        cls, root: Decision | Terminal, matrices: Sequence[npt.ArrayLike], reach: npt.ArrayLike
    ) -> Subgame:
        """Lay out a nested description breadth first (children consecutive, parents first)."""
        rows: list[tuple[int, int, int, int, int, float]] = []  # kind, player, children, matrix, scale
        labels: list[Any] = []
        queue: list[tuple[Decision | Terminal, Any]] = [(root, None)]
        for node, label in queue:  # the queue grows while it is read
            labels.append(label)
            if isinstance(node, Terminal):
                rows.append((TERMINAL, -1, -1, 0, int(node.matrix), float(node.scale)))
                continue
            if node.player not in (0, 1) or not node.children:
                raise ValueError(f"a decision needs player 0 or 1 and at least one child, got {node!r}")
            rows.append((DECISION, node.player, len(queue), len(node.children), -1, 0.0))
            queue.extend((child, child_label) for child_label, child in node.children)
        kind, player, first_child, num_children, matrix, scale = zip(*rows, strict=True)
        return cls(
            kind=np.asarray(kind, dtype=np.int8),
            player=np.asarray(player, dtype=np.int8),
            first_child=np.asarray(first_child, dtype=np.int32),
            num_children=np.asarray(num_children, dtype=np.int32),
            matrix=np.asarray(matrix, dtype=np.int32),
            scale=np.asarray(scale, dtype=np.float64),
            label=tuple(labels),
            matrices=tuple(np.asarray(m, dtype=np.float64) for m in matrices),
            reach=np.asarray(reach, dtype=np.float64),
        )


@dataclass
class Solution:
    """What :func:`solve` returns.

    Attributes:
        average: float64 ``[num_nodes, H]``; at a non-root node ``c``, the
            probability that the player acting at ``c``'s parent takes the
            action into ``c`` holding hand ``h`` (rows of a decision's children
            sum to 1 for every hand). Root row is 1. Where a hand never
            reaches a decision under its own strategy the last iteration's
            strategy stands in (it has no average).
        current: the same layout for the last iteration's strategy.
        iterations: CFR+ iterations run.
        seconds: wall-clock time of the solve.
    """

    average: npt.NDArray[np.float64]
    current: npt.NDArray[np.float64]
    iterations: int
    seconds: float

    def strategy(self, subgame: Subgame, node: int) -> npt.NDArray[np.float64]:
        """The average strategy at decision ``node``: float64 ``[H, num_children]``."""
        children = subgame.children(node)
        return self.average[children.start : children.stop].T.copy()


NO_CARD_STRUCTURE, SHARES_NO_CARD, SHOWDOWN = 0, 1, 2
"""Kinds of payoff matrix for :class:`CardPayoffs`: dense; 1 where two hands share no card; the
sign of their rank difference where they share no card (0 on ties and shared cards)."""


@dataclass(frozen=True, eq=False)
class CardPayoffs:
    """Which of a subgame's payoff matrices are card-structured, and the hands' cards and ranks.

    Attributes:
        cards: int ``[H, 2]``, each hand's two cards (0..51).
        ranks: int ``[H]``, each hand's showdown rank (higher wins), ignored by
            ``SHARES_NO_CARD`` matrices.
        kinds: ``{matrix index: SHARES_NO_CARD or SHOWDOWN}``; matrices not named are dense.

    :func:`solve` checks each named matrix against the dense one on a random
    vector and raises ``ValueError`` if they differ.
    """

    cards: npt.NDArray[np.int64]
    ranks: npt.NDArray[np.int64]
    kinds: dict[int, int]

    def __post_init__(self) -> None:
        cards = np.ascontiguousarray(self.cards, dtype=np.int64)
        ranks = np.ascontiguousarray(self.ranks, dtype=np.int64)
        if cards.ndim != 2 or cards.shape[1] != 2 or ranks.shape != (cards.shape[0],):
            raise ValueError(f"cards must be [H, 2] and ranks [H], got {cards.shape} and {ranks.shape}")
        if cards.size and (cards.min() < 0 or cards.max() > 51 or np.any(cards[:, 0] == cards[:, 1])):
            raise ValueError("each hand's cards must be two different cards from 0 to 51")
        if any(kind not in (SHARES_NO_CARD, SHOWDOWN) for kind in self.kinds.values()):
            raise ValueError(f"matrix kinds must be SHARES_NO_CARD or SHOWDOWN, got {self.kinds}")
        object.__setattr__(self, "cards", cards)
        object.__setattr__(self, "ranks", ranks)


def _reach(subgame: Subgame, strategy: npt.NDArray[np.float64], player: int) -> npt.NDArray[np.float64]:
    """``[num_nodes, H]``: ``player``'s reach of each node (root beliefs times its action probabilities)."""
    reach = np.empty((subgame.num_nodes, subgame.num_hands))
    reach[0] = subgame.reach[player]
    for node in subgame.decisions:
        rows = subgame.child_rows(node)
        reach[rows] = reach[node] * strategy[rows] if subgame.player[node] == player else reach[node]
    return reach


def _terminal_values(
    subgame: Subgame,
    opponent_reach: npt.NDArray[np.float64],
    player: int,
    groups: list[tuple[int, npt.NDArray[np.int64]]],
) -> npt.NDArray[np.float64]:
    """``[num_nodes, H]`` counterfactual values of ``player`` at the terminals (0 elsewhere)."""
    values = np.zeros((subgame.num_nodes, subgame.num_hands))
    sign = 1.0 if player == 0 else -1.0
    for matrix_index, nodes in groups:
        matrix = subgame.matrices[matrix_index]
        reach = opponent_reach[nodes]  # [T, H]
        # player 0: sum_j M[i, j] r1[j]; player 1: -sum_i M[i, j] r0[i].
        products = reach @ matrix.T if player == 0 else reach @ matrix
        values[nodes] = sign * subgame.scale[nodes, np.newaxis] * products
    return values


def counterfactual_values(
    subgame: Subgame, strategy: npt.NDArray[np.float64], player: int, *, best_response: bool = False
) -> npt.NDArray[np.float64]:
    """``[num_nodes, H]``: ``player``'s counterfactual value of every node for every hand under ``strategy``.

    ``strategy`` has the :attr:`Solution.average` layout. The root row is the
    player's value of the subgame for each hand, weighted by the opponent's
    root beliefs (not normalised). With ``best_response`` the player instead
    picks, at each of its decisions and for each hand, the child of highest
    value (a node and a hand form one of its information sets): its
    counterfactual best-response values against the opponent's ``strategy``.
    At the opponent's decisions a node is worth the sum of its children (the
    opponent's probabilities are in the reach).
    """
    groups = _terminal_groups(subgame)
    values = _terminal_values(subgame, _reach(subgame, strategy, 1 - player), player, groups)
    for node in subgame.decisions[::-1]:
        rows = subgame.child_rows(node)
        if subgame.player[node] != player:
            values[node] = values[rows].sum(axis=0)
        elif best_response:
            values[node] = values[rows].max(axis=0)
        else:
            values[node] = (strategy[rows] * values[rows]).sum(axis=0)
    return values


def _terminal_groups(subgame: Subgame) -> list[tuple[int, npt.NDArray[np.int64]]]:
    terminals = np.flatnonzero(subgame.kind == TERMINAL)
    return [(int(m), terminals[subgame.matrix[terminals] == m]) for m in np.unique(subgame.matrix[terminals])]


@numba.njit(cache=True)
def _sorted_card_values(opponent_reach, nodes, kind, sorted_ranks, cards, factor, values):
    """``values[nodes[t]] = factor[t] * M opponent_reach[nodes[t]]`` for a card-structured ``M``.

    Hands are in ascending rank order (``sorted_ranks``), the same list for both players: the
    postflop range solver's card-removal sweeps (:func:`~pokerai.solvers.postflop.kernel.fold_values`
    and :func:`~pokerai.solvers.postflop.kernel.showdown_values`) give each terminal's values in
    time linear in the hands.
    """
    hands = opponent_reach.shape[1]
    same = np.arange(hands)
    per_card = np.zeros(52)
    for t in range(nodes.shape[0]):
        reach = opponent_reach[nodes[t]]
        row = values[nodes[t]]
        if kind == 1:  # SHARES_NO_CARD
            fold_values(reach, cards, cards, same, hands, hands, factor[t], row, per_card)
        else:  # SHOWDOWN: (weight of weaker hands) - (weight of stronger hands), card-free pairs only
            showdown_values(
                same, sorted_ranks, cards, same, sorted_ranks, cards, reach, factor[t], row, per_card
            )


@numba.njit(cache=True)
def _normalize_children(weights, start, stop, totals, out):
    """Children ``start .. stop - 1`` of ``weights`` ``[num_nodes, H]`` scaled to sum to 1 per hand, into
    ``out``; uniform for a hand whose weights sum to 0. ``totals`` ``[H]`` is left holding the sums.

    With CFR+'s regrets (never negative) this is regret matching+; with the average-strategy sums,
    the average strategy.
    """
    hands = weights.shape[1]
    for hand in range(hands):
        totals[hand] = 0.0
    for child in range(start, stop):
        for hand in range(hands):
            totals[hand] += weights[child, hand]
    uniform = 1.0 / (stop - start)
    for child in range(start, stop):
        for hand in range(hands):
            total = totals[hand]
            out[child, hand] = weights[child, hand] / total if total > 0.0 else uniform


class _Tree(NamedTuple):
    """The arrays a solve reads (numba takes a named tuple of arrays as one argument).

    ``player``, ``first_child``, ``num_children``, ``decisions`` and ``scale`` are the
    :class:`Subgame` fields (int64); terminals come grouped by payoff matrix
    (``group_nodes[group_offsets[g]:group_offsets[g + 1]]`` use matrix ``group_matrix[g]`` of
    ``matrices``, float64 ``[M, H, H]``, and of its transpose ``matrices_transposed``), or, where
    ``group_kind[g]`` names a card structure, the linear sweep over hands in ascending rank order
    (:func:`_sorted_card_values` with ``sorted_ranks`` and ``cards``). ``root_reach`` ``[2, H]``;
    ``fixed_weight`` ``[num_nodes]`` and ``fixed_strategy`` ``[num_nodes, H]`` (:func:`solve`).
    """

    player: npt.NDArray[np.int64]
    first_child: npt.NDArray[np.int64]
    num_children: npt.NDArray[np.int64]
    decisions: npt.NDArray[np.int64]
    group_nodes: npt.NDArray[np.int64]
    group_offsets: npt.NDArray[np.int64]
    group_matrix: npt.NDArray[np.int64]
    group_kind: npt.NDArray[np.int64]
    sorted_ranks: npt.NDArray[np.int64]
    cards: npt.NDArray[np.int64]
    scale: npt.NDArray[np.float64]
    matrices: npt.NDArray[np.float64]
    matrices_transposed: npt.NDArray[np.float64]
    root_reach: npt.NDArray[np.float64]
    fixed_weight: npt.NDArray[np.float64]
    fixed_strategy: npt.NDArray[np.float64]


class _Sums(NamedTuple):
    """What CFR+ accumulates, float64 ``[num_nodes, H]`` each: the cumulative regrets, the average
    strategy's sums, the current strategy and, at decisions with a fixed part, the free part's own
    regret-matching strategy (``free`` is ``[1, 1]`` where no decision has one)."""

    regret: npt.NDArray[np.float64]
    average_sum: npt.NDArray[np.float64]
    strategy: npt.NDArray[np.float64]
    free: npt.NDArray[np.float64]


@numba.njit(cache=True)
def _match_regrets(tree, sums, node, totals):
    """Regret matching+ at decision ``node`` into ``sums.strategy``; where ``fixed_weight[node] > 0`` the
    strategy is ``(1 - w) * regret matching + w * fixed_strategy`` (``w = fixed_weight[node]``) and the
    regret-matching part is kept in ``sums.free``."""
    start = tree.first_child[node]
    stop = start + tree.num_children[node]
    strategy = sums.strategy
    _normalize_children(sums.regret, start, stop, totals, strategy)
    weight = tree.fixed_weight[node]
    if weight > 0.0:
        for child in range(start, stop):
            for hand in range(strategy.shape[1]):
                sums.free[child, hand] = strategy[child, hand]
                strategy[child, hand] = (1.0 - weight) * strategy[child, hand] + (
                    weight * tree.fixed_strategy[child, hand]
                )


@numba.njit(cache=True)
def _fill_reach(tree, strategy, updating, own_reach, opponent_reach):
    """Both players' reach of every node, parents before children, for the pass of player ``updating``."""
    num_hands = strategy.shape[1]
    for hand in range(num_hands):
        opponent_reach[0, hand] = tree.root_reach[1 - updating, hand]
        own_reach[0, hand] = tree.root_reach[updating, hand]
    for node in tree.decisions:
        start = tree.first_child[node]
        stop = start + tree.num_children[node]
        if tree.player[node] == updating:
            for child in range(start, stop):
                for hand in range(num_hands):
                    own_reach[child, hand] = own_reach[node, hand] * strategy[child, hand]
                    opponent_reach[child, hand] = opponent_reach[node, hand]
        else:
            for child in range(start, stop):
                for hand in range(num_hands):
                    own_reach[child, hand] = own_reach[node, hand]
                    opponent_reach[child, hand] = opponent_reach[node, hand] * strategy[child, hand]


@numba.njit(cache=True)
def _fill_terminal_values(tree, opponent_reach, updating, values):
    """Player ``updating``'s values at the terminals: player 0 gets ``M r1``, player 1 ``-M^T r0``."""
    num_hands = opponent_reach.shape[1]
    sign = 1.0 if updating == 0 else -1.0
    for group in range(tree.group_matrix.shape[0]):
        nodes = tree.group_nodes[tree.group_offsets[group] : tree.group_offsets[group + 1]]
        if tree.group_kind[group] != 0:
            factor = np.empty(nodes.shape[0])
            # The showdown matrix is antisymmetric (M^T = -M), the fold matrix symmetric.
            flip = -1.0 if updating == 1 and tree.group_kind[group] == 2 else 1.0
            for row in range(nodes.shape[0]):
                factor[row] = flip * sign * tree.scale[nodes[row]]
            _sorted_card_values(
                opponent_reach, nodes, tree.group_kind[group], tree.sorted_ranks, tree.cards, factor, values
            )
            continue
        gathered = np.empty((nodes.shape[0], num_hands))
        for row in range(nodes.shape[0]):
            gathered[row] = opponent_reach[nodes[row]]
        if updating == 0:
            products = np.dot(gathered, tree.matrices_transposed[tree.group_matrix[group]])
        else:
            products = np.dot(gathered, tree.matrices[tree.group_matrix[group]])
        for row in range(nodes.shape[0]):
            values[nodes[row]] = sign * tree.scale[nodes[row]] * products[row]


@numba.njit(cache=True)
def _update_regrets(tree, sums, updating, t, own_reach, values, node_value, baseline):
    """Values of the decisions, children before parents, and player ``updating``'s regret and
    average-strategy updates of iteration ``t``."""
    num_hands = values.shape[1]
    regret, strategy = sums.regret, sums.strategy
    for index in range(tree.decisions.shape[0] - 1, -1, -1):
        node = tree.decisions[index]
        start = tree.first_child[node]
        stop = start + tree.num_children[node]
        if tree.player[node] != updating:
            for hand in range(num_hands):
                values[node, hand] = 0.0
            for child in range(start, stop):
                for hand in range(num_hands):
                    values[node, hand] += values[child, hand]
            continue
        for hand in range(num_hands):
            node_value[hand] = 0.0
        for child in range(start, stop):
            for hand in range(num_hands):
                node_value[hand] += strategy[child, hand] * values[child, hand]
        if tree.fixed_weight[node] > 0.0:
            # Regrets are those of the free part (its own regret-matching strategy), not of
            # the mix: the model's share is not its choice.
            for hand in range(num_hands):
                baseline[hand] = 0.0
            for child in range(start, stop):
                for hand in range(num_hands):
                    baseline[hand] += sums.free[child, hand] * values[child, hand]
        else:
            for hand in range(num_hands):
                baseline[hand] = node_value[hand]
        for child in range(start, stop):
            for hand in range(num_hands):
                updated = regret[child, hand] + values[child, hand] - baseline[hand]
                regret[child, hand] = updated if updated > 0.0 else 0.0
                sums.average_sum[child, hand] += t * own_reach[node, hand] * strategy[child, hand]
        for hand in range(num_hands):
            values[node, hand] = node_value[hand]


@numba.njit(cache=True)
def _cfr_plus_iterations(tree, sums, first, count):
    """CFR+ iterations ``first .. first + count - 1`` on ``sums`` in place (alternating updates, weights t).

    ``sums.strategy`` carries the current strategy from one call to the next: a decision's
    regret-matching strategy is recomputed only after its player's regrets change. At a
    decision with a fixed part (:func:`_match_regrets`) the node's value is the mix's, while its
    regrets are measured against the free part's own value.
    """
    num_nodes, num_hands = sums.regret.shape
    opponent_reach = np.empty((num_nodes, num_hands))
    own_reach = np.empty((num_nodes, num_hands))
    values = np.zeros((num_nodes, num_hands))
    totals = np.empty(num_hands)
    node_value = np.empty(num_hands)
    baseline = np.empty(num_hands)
    for t in range(first, first + count):
        for updating in range(2):
            # Regret matching+ where the regrets changed: the other player's decisions, updated
            # by the pass before this one (every decision before a call's first pass).
            for node in tree.decisions:
                if tree.player[node] != updating or (t == first and updating == 0):
                    _match_regrets(tree, sums, node, totals)
            _fill_reach(tree, sums.strategy, updating, own_reach, opponent_reach)
            _fill_terminal_values(tree, opponent_reach, updating, values)
            _update_regrets(tree, sums, updating, t, own_reach, values, node_value, baseline)


@numba.njit(cache=True)
def _final_strategies(tree, sums, average):
    """The current strategy at every decision into ``sums.strategy`` (:func:`_match_regrets`), and the
    average strategy into ``average``: where a hand accumulated no average (it never reaches the
    decision under its own strategy) the current strategy stands in."""
    totals = np.empty(sums.regret.shape[1])
    for node in tree.decisions:
        _match_regrets(tree, sums, node, totals)
        start = tree.first_child[node]
        stop = start + tree.num_children[node]
        _normalize_children(sums.average_sum, start, stop, totals, average)
        for hand in range(totals.shape[0]):
            if totals[hand] <= 0.0:
                for child in range(start, stop):
                    average[child, hand] = sums.strategy[child, hand]


def _card_structure(
    subgame: Subgame, group_matrix: npt.NDArray[np.int64], card_payoffs: CardPayoffs | None
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """The kernel's ``group_kind``, ``order``, ``sorted_ranks`` and ``cards`` for ``card_payoffs``.

    Each named matrix is checked against its dense form on one random vector (an ``H²``
    product, once per solve), so a structure that does not describe the subgame is an error.
    """
    num_hands = subgame.num_hands
    if card_payoffs is None:
        empty = np.zeros(0, dtype=np.int64)
        return np.zeros(len(group_matrix), dtype=np.int64), empty, empty, np.zeros((0, 2), dtype=np.int64)
    if card_payoffs.cards.shape[0] != num_hands:
        raise ValueError(
            f"card payoffs describe {card_payoffs.cards.shape[0]} hands, the subgame has {num_hands}"
        )
    order = np.argsort(card_payoffs.ranks, kind="stable").astype(np.int64)
    sorted_ranks = np.ascontiguousarray(card_payoffs.ranks[order])
    probe = np.random.default_rng(0).random((1, num_hands))
    sorted_probe = np.ascontiguousarray(probe[:, order])
    sorted_cards = np.ascontiguousarray(card_payoffs.cards[order])
    row, unit = np.zeros(1, np.int64), np.ones(1)
    for matrix, kind in card_payoffs.kinds.items():
        if not 0 <= matrix < len(subgame.matrices):
            raise ValueError(f"card payoffs name matrix {matrix}, the subgame has {len(subgame.matrices)}")
        fast = np.empty((1, num_hands))
        _sorted_card_values(sorted_probe, row, kind, sorted_ranks, sorted_cards, unit, fast)
        if not np.allclose(fast[0], (subgame.matrices[matrix] @ probe[0])[order], rtol=1e-9, atol=1e-9):
            raise ValueError(f"payoff matrix {matrix} is not the card-structured matrix of kind {kind}")
    group_kind = np.array(
        [card_payoffs.kinds.get(int(m), NO_CARD_STRUCTURE) for m in group_matrix], dtype=np.int64
    )
    return group_kind, order, sorted_ranks, card_payoffs.cards


def _kernel_tree(
    subgame: Subgame,
    card_payoffs: CardPayoffs | None,
    fixed: dict[int, tuple[float, npt.NDArray[np.float64]]] | None,
) -> tuple[_Tree, npt.NDArray[np.int64] | None]:
    """The kernel's arrays for ``subgame``, and the order of the hands in them (None: the subgame's).

    With card payoffs the kernel works on the hands in ascending rank order (its sweeps then
    read memory in order).
    """
    groups = _terminal_groups(subgame)
    group_nodes = np.concatenate([nodes for _, nodes in groups]) if groups else np.zeros(0, np.int64)
    group_offsets = np.cumsum([0, *(len(nodes) for _, nodes in groups)]).astype(np.int64)
    group_matrix = np.array([matrix for matrix, _ in groups], dtype=np.int64)
    group_kind, order, sorted_ranks, cards = _card_structure(subgame, group_matrix, card_payoffs)
    # Only dense matrices are stacked (card-structured ones are never multiplied); a group's
    # matrix index is its place in that stack.
    dense = [m for m in range(len(subgame.matrices)) if card_payoffs is None or m not in card_payoffs.kinds]
    place = {m: index for index, m in enumerate(dense)}
    stacked_index = np.array([place.get(int(m), 0) for m in group_matrix], dtype=np.int64)
    fixed_weight, fixed_strategy = _fixed_arrays(subgame, fixed)
    reach = subgame.reach
    permute = card_payoffs is not None and bool(np.any(order != np.arange(order.size)))
    if permute:
        reach = np.ascontiguousarray(reach[:, order])
        cards = np.ascontiguousarray(cards[order])
        if fixed:
            fixed_strategy = np.ascontiguousarray(fixed_strategy[:, order])
    if dense:
        stack = [subgame.matrices[m][np.ix_(order, order)] if permute else subgame.matrices[m] for m in dense]
        matrices = np.ascontiguousarray(np.stack(stack))
    else:
        matrices = np.zeros((1, 1, 1))
    tree = _Tree(
        subgame.player.astype(np.int64), subgame.first_child.astype(np.int64),
        subgame.num_children.astype(np.int64), subgame.decisions.astype(np.int64),
        group_nodes.astype(np.int64), group_offsets, stacked_index, group_kind, sorted_ranks, cards,
        subgame.scale, matrices, np.ascontiguousarray(matrices.transpose(0, 2, 1)), reach,
        fixed_weight, fixed_strategy,
    )  # fmt: skip
    return tree, order if permute else None


def solve(
    subgame: Subgame,
    iterations: int,
    *,
    time_budget_s: float | None = None,
    card_payoffs: CardPayoffs | None = None,
    fixed: dict[int, tuple[float, npt.NDArray[np.float64]]] | None = None,
) -> Solution:
    """Run CFR+ on ``subgame`` for ``iterations`` iterations, or until ``time_budget_s`` has passed.

    Each iteration updates player 0 then player 1 (alternating updates); the
    average strategy weights iteration ``t`` by ``t`` (as CFR+ does). With a
    time budget at least one iteration runs when ``iterations >= 1``; the
    clock is read every few iterations (a numba kernel runs them in chunks).
    Deterministic for a given number of iterations. With ``card_payoffs`` the matrices it
    names are applied by the linear card-removal sweep (module docstring) instead of dense
    products: the same values up to rounding, much faster for hold'em's ``H``.

    ``fixed`` maps a decision node to ``(weight, strategy)``, ``strategy`` float
    ``[H, num_children]`` (rows summing to 1) and ``weight`` in (0, 1]: at that node
    every iteration plays ``weight`` times this strategy plus ``1 - weight`` times
    its regret-matching one. Weight 1 freezes the decision (the searcher's earlier
    decisions of a street); a smaller one mixes a given strategy in while the free
    part's regrets are measured against its own value, as a data-biased response
    does (Johanson & Bowling, AISTATS 2009), per node rather than per information set.
    """
    if not is_count(iterations):
        raise ValueError(f"iterations must be a non-negative int, got {iterations!r}")
    if time_budget_s is not None and not time_budget_s >= 0:
        raise ValueError(f"time budget must be a non-negative number of seconds, got {time_budget_s!r}")
    start = time.perf_counter()
    tree, order = _kernel_tree(subgame, card_payoffs, fixed)
    shape = (subgame.num_nodes, subgame.num_hands)
    sums = _Sums(np.zeros(shape), np.zeros(shape), np.ones(shape), np.zeros(tree.fixed_strategy.shape))
    done = 0
    chunk = 1
    while done < iterations:
        count = min(chunk, iterations - done)
        _cfr_plus_iterations(tree, sums, done + 1, count)
        done += count
        elapsed = time.perf_counter() - start
        if time_budget_s is not None:
            if elapsed >= time_budget_s:
                break
            # Read the clock about every 5% of the budget.
            per_iteration = elapsed / done
            chunk = max(1, min(64, int(0.05 * time_budget_s / max(per_iteration, 1e-9))))
        else:
            chunk = iterations
    average = np.ones(shape)
    _final_strategies(tree, sums, average)
    strategy = sums.strategy
    if order is not None:
        back = np.argsort(order)
        strategy, average = strategy[:, back], average[:, back]
    average[0] = 1.0
    strategy[0] = 1.0
    return Solution(average=average, current=strategy, iterations=done, seconds=time.perf_counter() - start)


def _fixed_arrays(
    subgame: Subgame, fixed: dict[int, tuple[float, npt.NDArray[np.float64]]] | None
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """The kernel's ``fixed_weight`` ``[num_nodes]`` and ``fixed_strategy`` ``[num_nodes, H]``."""
    weights = np.zeros(subgame.num_nodes)
    strategy = np.zeros((subgame.num_nodes, subgame.num_hands) if fixed else (1, 1))
    for node, (weight, rows) in (fixed or {}).items():
        if not (
            isinstance(node, (int, np.integer))
            and not isinstance(node, bool)
            and 0 <= node < subgame.num_nodes
            and subgame.kind[node] != TERMINAL
        ):
            raise ValueError(f"fixed node {node!r} is not a decision of the subgame")
        if isinstance(weight, bool) or not isinstance(weight, (int, float)) or not 0.0 < weight <= 1.0:
            raise ValueError(f"the weight of fixed node {node} must lie in (0, 1], got {weight!r}")
        children = subgame.children(node)
        rows = np.asarray(rows, dtype=np.float64)
        if rows.shape != (subgame.num_hands, len(children)):
            raise ValueError(
                f"the fixed strategy of node {node} must have shape [{subgame.num_hands}, {len(children)}], "
                f"got {list(rows.shape)}"
            )
        if np.any(rows < 0) or not np.allclose(rows.sum(axis=1), 1.0):
            raise ValueError(f"the fixed strategy of node {node} is not a distribution for every hand")
        weights[node] = weight
        strategy[children.start : children.stop] = rows.T
    return weights, strategy


def is_count(value: object, least: int = 0) -> bool:
    """Whether ``value`` is an ``int`` (a ``bool`` is not one) of at least ``least``."""
    return isinstance(value, int) and not isinstance(value, bool) and value >= least


def opt_out_matrix(
    alternative_values: npt.NDArray[np.float64],
    opponent: int,
    searcher_reach: npt.NDArray[np.float64],
    valid: npt.NDArray[np.float64],
) -> npt.NDArray[np.float64]:
    """The payoff matrix of an opt-out terminal of the re-solving gadget (Burch, Johanson & Bowling 2014).

    In *safe* re-solving the opponent first chooses, for each of its hands,
    whether to enter the subgame or to take ``alternative_values[hand]`` -- its
    counterfactual value of the subgame under the blueprint. An opponent that
    can always take the blueprint's value cannot gain from the searcher's new
    strategy, so the re-solved strategy is no more exploitable than the
    blueprint's as far as the subgame can tell.

    Returns player 0's payoff matrix ``[H, H]`` whose counterfactual value for
    ``opponent`` holding ``h``, weighted by ``searcher_reach`` (the searcher's
    root reach) over the ``valid`` pairs, is exactly ``alternative_values[h]``.
    Hands that meet no searcher hand get 0.
    """
    if opponent == 1:
        weight = searcher_reach @ valid  # [H]: sum_i r0[i] valid[i, j]
        safe = np.where(weight > 0.0, weight, 1.0)
        matrix = -valid * np.where(weight > 0.0, alternative_values / safe, 0.0)[np.newaxis, :]
    else:
        weight = valid @ searcher_reach  # [H]: sum_j valid[i, j] r1[j]
        safe = np.where(weight > 0.0, weight, 1.0)
        matrix = valid * np.where(weight > 0.0, alternative_values / safe, 0.0)[:, np.newaxis]
    result: npt.NDArray[np.float64] = matrix
    return result


class Gadget(NamedTuple):
    """A subgame inside the re-solving gadget (:func:`with_resolve_gadget`).

    ``game`` is the subgame to solve. ``nodes`` int64 ``[inner.num_nodes]`` is the node in
    ``game`` of each node of the inner subgame: breadth first, the gadget puts "enter" (the
    inner root) at node 1 and "opt-out" at node 2, then the inner tree's other nodes in their
    own order.
    """

    game: Subgame
    nodes: npt.NDArray[np.int64]

    def node(self, inner_node: int) -> int:
        """The node in ``game`` of the inner subgame's node ``inner_node``."""
        return int(self.nodes[inner_node])


def with_resolve_gadget(
    root: Decision | Terminal,
    inner: Subgame,
    blueprint: npt.NDArray[np.float64],
    searcher: int,
    *,
    valid: int,
    uniform_weight: float = 0.5,
    possible: npt.NDArray[np.bool_] | None = None,
) -> Gadget:
    """The safe version of ``inner`` (laid out from ``root``): the opponent may opt out at the top.

    ``blueprint`` is the blueprint strategy in :attr:`Solution.average`
    layout for ``inner``; the opponent's alternative for each hand is its
    counterfactual best-response value against the blueprint in ``inner``
    (the "Resolve" gadget with the alternative payoffs of Brown & Sandholm,
    "Safe and Nested Subgame Solving for Imperfect-Information Games", NeurIPS
    2017). ``valid`` is the index of the matrix of pairs that can meet.

    The opponent's root reach becomes ``(1 − uniform_weight)·beliefs +
    uniform_weight·uniform`` over the ``possible`` hands: a hand the blueprint
    never brings here still gets weight, so its opt-out constraint binds --
    an opponent who deviates earlier is exactly the one who arrives with it.
    Returns the game and where ``inner``'s nodes are in it (:class:`Gadget`).
    """
    if not 0.0 <= uniform_weight <= 1.0:
        raise ValueError(f"uniform_weight must be in [0, 1], got {uniform_weight!r}")
    opponent = 1 - searcher
    alternative = counterfactual_values(inner, blueprint, opponent, best_response=True)[0]
    valid_pairs = inner.matrices[valid]
    matrices = [*inner.matrices, opt_out_matrix(alternative, opponent, inner.reach[searcher], valid_pairs)]
    gadget = Decision(opponent, [("enter", root), ("opt-out", Terminal(len(matrices) - 1))])
    reach = inner.reach.copy()
    mask = np.ones(inner.num_hands, dtype=bool) if possible is None else np.asarray(possible, dtype=bool)
    uniform = mask / mask.sum()
    beliefs = inner.reach[opponent] / max(float(inner.reach[opponent].sum()), 1e-300)
    reach[opponent] = (1.0 - uniform_weight) * beliefs + uniform_weight * uniform
    nodes = np.concatenate([[1], np.arange(3, inner.num_nodes + 2)]).astype(np.int64)
    return Gadget(Subgame.from_nested(gadget, matrices, reach), nodes)


def inner_solution(solution: Solution, gadget: Gadget) -> Solution:
    """A solution of ``gadget``'s game with its average in the inner subgame's layout.

    The returned :attr:`Solution.average` has the inner subgame's rows (its root row is
    1); ``current`` stays in the gadget's layout.
    """
    average = solution.average[gadget.nodes]
    average[0] = 1.0
    return Solution(average, solution.current, solution.iterations, solution.seconds)


def blend(
    blueprint: npt.NDArray[np.float64], local: npt.NDArray[np.float64], iterations: int, full_iterations: int
) -> npt.NDArray[np.float64]:
    """``(1 − b)·blueprint + b·local`` with ``b = min(iterations / full_iterations, 1)``.

    With 0 iterations the blueprint comes back exactly.
    """
    if full_iterations <= 0:
        raise ValueError(f"full_iterations must be positive, got {full_iterations}")
    weight = min(iterations / full_iterations, 1.0)
    if weight == 0.0:
        return np.array(blueprint, dtype=np.float64, copy=True)
    return (1.0 - weight) * np.asarray(blueprint, dtype=np.float64) + weight * np.asarray(
        local, dtype=np.float64
    )


__all__ = [
    "DECISION",
    "NO_CARD_STRUCTURE",
    "SHARES_NO_CARD",
    "SHOWDOWN",
    "TERMINAL",
    "CardPayoffs",
    "Decision",
    "Gadget",
    "Solution",
    "Subgame",
    "Terminal",
    "blend",
    "counterfactual_values",
    "inner_solution",
    "is_count",
    "opt_out_matrix",
    "solve",
    "with_resolve_gadget",
]
