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
from typing import Any

import numba
import numpy as np
import numpy.typing as npt

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
        parent: int32, -1 at the root.
        first_child, num_children: int32; children are ``first_child .. first_child + num_children - 1``.
        matrix: int32, the payoff matrix index at terminals, -1 at decisions.
        scale: float64, the payoff scale at terminals, 0 at decisions.
        label: the label of the edge from the parent (an action; ``None`` at the root).
        matrices: float64 ``[H, H]`` payoff matrices of player 0.
        reach: float64 ``[2, H]``, the players' root beliefs.
    """

    kind: npt.NDArray[np.int8]
    player: npt.NDArray[np.int8]
    parent: npt.NDArray[np.int32]
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

    @classmethod
    def from_nested(
        cls, root: Decision | Terminal, matrices: Sequence[npt.ArrayLike], reach: npt.ArrayLike
    ) -> Subgame:
        """Lay out a nested description breadth first (children consecutive, parents first)."""
        kinds: list[int] = []
        players: list[int] = []
        parents: list[int] = []
        firsts: list[int] = []
        counts: list[int] = []
        matrix_ids: list[int] = []
        scales: list[float] = []
        labels: list[Any] = []
        queue: list[tuple[Decision | Terminal, int, Any]] = [(root, -1, None)]
        head = 0
        while head < len(queue):
            node, parent, label = queue[head]
            index = head
            head += 1
            parents.append(parent)
            labels.append(label)
            if isinstance(node, Terminal):
                kinds.append(TERMINAL)
                players.append(-1)
                firsts.append(-1)
                counts.append(0)
                matrix_ids.append(int(node.matrix))
                scales.append(float(node.scale))
                continue
            if node.player not in (0, 1) or not node.children:
                raise ValueError(f"a decision needs player 0 or 1 and at least one child, got {node!r}")
            kinds.append(DECISION)
            players.append(node.player)
            firsts.append(len(queue))
            counts.append(len(node.children))
            matrix_ids.append(-1)
            scales.append(0.0)
            queue.extend((child, index, child_label) for child_label, child in node.children)
        return cls(
            kind=np.asarray(kinds, dtype=np.int8),
            player=np.asarray(players, dtype=np.int8),
            parent=np.asarray(parents, dtype=np.int32),
            first_child=np.asarray(firsts, dtype=np.int32),
            num_children=np.asarray(counts, dtype=np.int32),
            matrix=np.asarray(matrix_ids, dtype=np.int32),
            scale=np.asarray(scales, dtype=np.float64),
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


@numba.njit(cache=True)
def _add_hands(r, order, start, stop, cards, per_card, total):
    """Add the weights ``r`` of hands ``order[start:stop]`` to ``per_card`` (per card held); the new total."""
    for q in range(start, stop):
        j = order[q]
        total += r[j]
        per_card[cards[j, 0]] += r[j]
        per_card[cards[j, 1]] += r[j]
    return total


@numba.njit(cache=True)
def _card_products(reach, kind, order, sorted_ranks, cards, out):
    """``out[t, i] = sum_j M[i, j] reach[t, j]`` for a card-structured ``M`` (:class:`CardPayoffs`).

    ``order`` lists the hands by ascending rank and ``sorted_ranks`` their ranks in that order.
    A hand's sum over the hands that share no card with it is the total less the sums over
    hands holding either of its cards (the hand itself, counted in both, is added back once).
    """
    rows, hands = reach.shape
    per_card = np.zeros(52)
    for t in range(rows):
        r = reach[t]
        if kind == 1:  # SHARES_NO_CARD
            per_card[:] = 0.0
            total = 0.0
            for j in range(hands):
                total += r[j]
                per_card[cards[j, 0]] += r[j]
                per_card[cards[j, 1]] += r[j]
            for i in range(hands):
                out[t, i] = total - per_card[cards[i, 0]] - per_card[cards[i, 1]] + r[i]
            continue
        # SHOWDOWN: (weight of weaker hands) - (weight of stronger hands), card-free pairs only.
        per_card[:] = 0.0
        total = 0.0
        start = 0
        while start < hands:  # ascending: hands of lower rank beaten
            stop = start
            while stop < hands and sorted_ranks[stop] == sorted_ranks[start]:
                stop += 1
            for q in range(start, stop):
                i = order[q]
                out[t, i] = total - per_card[cards[i, 0]] - per_card[cards[i, 1]]
            total = _add_hands(r, order, start, stop, cards, per_card, total)
            start = stop
        per_card[:] = 0.0
        total = 0.0
        stop = hands
        while stop > 0:  # descending: hands of higher rank lost to
            start = stop - 1
            while start > 0 and sorted_ranks[start - 1] == sorted_ranks[stop - 1]:
                start -= 1
            for q in range(start, stop):
                i = order[q]
                out[t, i] -= total - per_card[cards[i, 0]] - per_card[cards[i, 1]]
            total = _add_hands(r, order, start, stop, cards, per_card, total)
            stop = start


def _regret_matching(subgame: Subgame, regret: npt.NDArray[np.float64], out: npt.NDArray[np.float64]) -> None:
    """Each decision's regret-matching strategy over its children into ``out`` (uniform if no regret > 0)."""
    for node in subgame.decisions:
        first = int(subgame.first_child[node])
        last = first + int(subgame.num_children[node])
        positive = regret[first:last]
        total = positive.sum(axis=0)
        uniform = 1.0 / (last - first)
        out[first:last] = np.where(total > 0.0, positive / np.where(total > 0.0, total, 1.0), uniform)


def _reach(subgame: Subgame, strategy: npt.NDArray[np.float64], player: int) -> npt.NDArray[np.float64]:
    """``[num_nodes, H]``: ``player``'s reach of each node (root beliefs times its action probabilities)."""
    reach = np.empty((subgame.num_nodes, subgame.num_hands))
    reach[0] = subgame.reach[player]
    for node in subgame.decisions:
        first = int(subgame.first_child[node])
        last = first + int(subgame.num_children[node])
        if subgame.player[node] == player:
            reach[first:last] = reach[node] * strategy[first:last]
        else:
            reach[first:last] = reach[node]
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
    """
    groups = _terminal_groups(subgame)
    values = _terminal_values(subgame, _reach(subgame, strategy, 1 - player), player, groups)
    back_up_values(subgame, values, player, None if best_response else strategy)
    return values


def back_up_values(
    subgame: Subgame, values: npt.NDArray[np.float64], player: int, strategy: npt.NDArray[np.float64] | None
) -> None:
    """Fill the decision rows of ``values`` (``[num_nodes, columns]``, terminal rows set) children first.

    At ``player``'s decisions a node is worth its children weighted by
    ``strategy`` (:attr:`Solution.average` layout), or their maximum when
    ``strategy`` is None (a best response); at the opponent's decisions, the
    sum of its children (the opponent's probabilities are in the reach).
    """
    for node in subgame.decisions[::-1]:
        first = int(subgame.first_child[node])
        last = first + int(subgame.num_children[node])
        if subgame.player[node] != player:
            values[node] = values[first:last].sum(axis=0)
        elif strategy is None:
            values[node] = values[first:last].max(axis=0)
        else:
            values[node] = (strategy[first:last] * values[first:last]).sum(axis=0)


def _terminal_groups(subgame: Subgame) -> list[tuple[int, npt.NDArray[np.int64]]]:
    terminals = np.flatnonzero(subgame.kind == TERMINAL)
    return [(int(m), terminals[subgame.matrix[terminals] == m]) for m in np.unique(subgame.matrix[terminals])]


@numba.njit(cache=True)
def _add_hands_batched(reach, start, stop, cards, per_card, total):
    """Add hands ``start .. stop - 1`` (rows of ``reach`` ``[H, T]``) to every terminal's running sums:
    ``total`` ``[T]`` and ``per_card`` ``[52, T]`` (per card held); :func:`_add_hands`, batched."""
    for q in range(start, stop):
        first, second = cards[q, 0], cards[q, 1]
        for t in range(reach.shape[1]):
            weight = reach[q, t]
            total[t] += weight
            per_card[first, t] += weight
            per_card[second, t] += weight


@numba.njit(cache=True)
def _sorted_card_values(opponent_reach, nodes, kind, sorted_ranks, cards, factor, values):
    """``values[nodes[t]] = factor[t] * M opponent_reach[nodes[t]]`` for a card-structured ``M``.

    Hands are in ascending rank order (``sorted_ranks``), so one pass over them serves every
    terminal of the group at once: the running sums (in total and per card held) are kept per
    terminal, and a hand's sum over the hands that share no card with it is the total less the
    sums over hands holding either of its cards (:func:`_card_products`, batched).
    """
    terminals = nodes.shape[0]
    hands = opponent_reach.shape[1]
    reach = np.empty((hands, terminals))
    for t in range(terminals):
        row = opponent_reach[nodes[t]]
        for q in range(hands):
            reach[q, t] = row[q]
    out = np.empty((hands, terminals))
    per_card = np.zeros((52, terminals))
    total = np.zeros(terminals)
    if kind == 1:  # SHARES_NO_CARD
        _add_hands_batched(reach, 0, hands, cards, per_card, total)
        for q in range(hands):
            first, second = cards[q, 0], cards[q, 1]
            for t in range(terminals):
                out[q, t] = total[t] - per_card[first, t] - per_card[second, t] + reach[q, t]
    else:  # SHOWDOWN: (weight of weaker hands) - (weight of stronger hands), card-free pairs only
        start = 0
        while start < hands:  # ascending: hands of lower rank beaten
            stop = start
            while stop < hands and sorted_ranks[stop] == sorted_ranks[start]:
                stop += 1
            for q in range(start, stop):
                first, second = cards[q, 0], cards[q, 1]
                for t in range(terminals):
                    out[q, t] = total[t] - per_card[first, t] - per_card[second, t]
            _add_hands_batched(reach, start, stop, cards, per_card, total)
            start = stop
        per_card[:] = 0.0
        total[:] = 0.0
        stop = hands
        while stop > 0:  # descending: hands of higher rank lost to
            start = stop - 1
            while start > 0 and sorted_ranks[start - 1] == sorted_ranks[stop - 1]:
                start -= 1
            for q in range(start, stop):
                first, second = cards[q, 0], cards[q, 1]
                for t in range(terminals):
                    out[q, t] -= total[t] - per_card[first, t] - per_card[second, t]
            _add_hands_batched(reach, start, stop, cards, per_card, total)
            stop = start
    for t in range(terminals):
        row = values[nodes[t]]
        scale = factor[t]
        for q in range(hands):
            row[q] = scale * out[q, t]


@numba.njit(cache=True)
def _regret_matching_rows(regret, strategy, start, stop, totals):
    """Regret matching+ over children ``start .. stop - 1`` into ``strategy`` (uniform if no regret > 0)."""
    hands = regret.shape[1]
    for hand in range(hands):
        totals[hand] = 0.0
    for child in range(start, stop):
        for hand in range(hands):
            totals[hand] += regret[child, hand]
    uniform = 1.0 / (stop - start)
    for child in range(start, stop):
        for hand in range(hands):
            total = totals[hand]
            strategy[child, hand] = regret[child, hand] / total if total > 0.0 else uniform


@numba.njit(cache=True)
def _cfr_plus_iterations(
    kind, player, first_child, num_children, decisions, group_nodes, group_offsets, group_matrix,
    group_kind, sorted_ranks, cards,
    scale, matrices, matrices_transposed, root_reach, regret, average_sum, strategy,
    fixed_weight, fixed_strategy, first, count,
):  # fmt: skip
    """CFR+ iterations ``first .. first + count - 1`` in place (alternating updates, weights t).

    Where ``fixed_weight[node] > 0`` the strategy at that decision is
    ``(1 - w) * regret matching + w * fixed_strategy`` (rows of its children), with
    ``w = fixed_weight[node]``: a strategy held in part or in whole (see :func:`solve`). The node's
    value is the mix's, while its regrets are measured against the free part's own value.

    Array arguments are the :class:`Subgame` fields; terminals come grouped by
    payoff matrix (``group_nodes[group_offsets[g]:group_offsets[g + 1]]`` use
    matrix ``group_matrix[g]``) so each group's values are one BLAS product, or,
    where ``group_kind[g]`` names a card-structured matrix, one linear sweep over hands
    in ascending rank order (:func:`_sorted_card_values` with ``sorted_ranks`` and ``cards``).
    ``strategy`` carries the current strategy from one call to the next: a decision's
    regret-matching strategy is recomputed only after its player's regrets change.
    """
    num_nodes, num_hands = regret.shape
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
            for node in decisions:
                if player[node] == updating and not (t == first and updating == 0):
                    continue
                start = first_child[node]
                stop = start + num_children[node]
                _regret_matching_rows(regret, strategy, start, stop, totals)
                weight = fixed_weight[node]
                if weight > 0.0:
                    for child in range(start, stop):
                        for hand in range(num_hands):
                            strategy[child, hand] = (1.0 - weight) * strategy[child, hand] + (
                                weight * fixed_strategy[child, hand]
                            )
            # Reach of both players, parents before children.
            for hand in range(num_hands):
                opponent_reach[0, hand] = root_reach[1 - updating, hand]
                own_reach[0, hand] = root_reach[updating, hand]
            for node in decisions:
                start = first_child[node]
                stop = start + num_children[node]
                if player[node] == updating:
                    for child in range(start, stop):
                        for hand in range(num_hands):
                            own_reach[child, hand] = own_reach[node, hand] * strategy[child, hand]
                            opponent_reach[child, hand] = opponent_reach[node, hand]
                else:
                    for child in range(start, stop):
                        for hand in range(num_hands):
                            own_reach[child, hand] = own_reach[node, hand]
                            opponent_reach[child, hand] = opponent_reach[node, hand] * strategy[child, hand]
            # Terminal values: player 0 gets M r1, player 1 gets -M^T r0.
            sign = 1.0 if updating == 0 else -1.0
            for group in range(group_matrix.shape[0]):
                nodes = group_nodes[group_offsets[group] : group_offsets[group + 1]]
                if group_kind[group] != 0:
                    factor = np.empty(nodes.shape[0])
                    # The showdown matrix is antisymmetric (M^T = -M), the fold matrix symmetric.
                    flip = -1.0 if updating == 1 and group_kind[group] == 2 else 1.0
                    for row in range(nodes.shape[0]):
                        factor[row] = flip * sign * scale[nodes[row]]
                    _sorted_card_values(
                        opponent_reach, nodes, group_kind[group], sorted_ranks, cards, factor, values
                    )
                    continue
                gathered = np.empty((nodes.shape[0], num_hands))
                for row in range(nodes.shape[0]):
                    gathered[row] = opponent_reach[nodes[row]]
                if updating == 0:
                    products = np.dot(gathered, matrices_transposed[group_matrix[group]])
                else:
                    products = np.dot(gathered, matrices[group_matrix[group]])
                for row in range(nodes.shape[0]):
                    values[nodes[row]] = sign * scale[nodes[row]] * products[row]
            # Values and regrets, children before parents.
            for index in range(decisions.shape[0] - 1, -1, -1):
                node = decisions[index]
                start = first_child[node]
                stop = start + num_children[node]
                if player[node] != updating:
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
                if fixed_weight[node] > 0.0:
                    # Regrets are those of the free part (its own regret-matching strategy),
                    # not of the mix: the model's share is not its choice.
                    for hand in range(num_hands):
                        totals[hand] = 0.0
                        baseline[hand] = 0.0
                    for child in range(start, stop):
                        for hand in range(num_hands):
                            totals[hand] += regret[child, hand]
                    uniform = 1.0 / (stop - start)
                    for child in range(start, stop):
                        for hand in range(num_hands):
                            total = totals[hand]
                            free = regret[child, hand] / total if total > 0.0 else uniform
                            baseline[hand] += free * values[child, hand]
                else:
                    for hand in range(num_hands):
                        baseline[hand] = node_value[hand]
                for child in range(start, stop):
                    for hand in range(num_hands):
                        updated = regret[child, hand] + values[child, hand] - baseline[hand]
                        regret[child, hand] = updated if updated > 0.0 else 0.0
                        average_sum[child, hand] += t * own_reach[node, hand] * strategy[child, hand]
                for hand in range(num_hands):
                    values[node, hand] = node_value[hand]


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
    for matrix, kind in card_payoffs.kinds.items():
        if not 0 <= matrix < len(subgame.matrices):
            raise ValueError(f"card payoffs name matrix {matrix}, the subgame has {len(subgame.matrices)}")
        fast = np.empty((1, num_hands))
        _card_products(probe, kind, order, sorted_ranks, card_payoffs.cards, fast)
        if not np.allclose(fast[0], subgame.matrices[matrix] @ probe[0], rtol=1e-9, atol=1e-9):
            raise ValueError(f"payoff matrix {matrix} is not the card-structured matrix of kind {kind}")
    group_kind = np.array(
        [card_payoffs.kinds.get(int(m), NO_CARD_STRUCTURE) for m in group_matrix], dtype=np.int64
    )
    return group_kind, order, sorted_ranks, card_payoffs.cards


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
    if isinstance(iterations, bool) or not isinstance(iterations, int) or iterations < 0:
        raise ValueError(f"iterations must be a non-negative int, got {iterations!r}")
    if time_budget_s is not None and not time_budget_s >= 0:
        raise ValueError(f"time budget must be a non-negative number of seconds, got {time_budget_s!r}")
    start = time.perf_counter()
    shape = (subgame.num_nodes, subgame.num_hands)
    regret = np.zeros(shape)
    strategy = np.ones(shape)
    average_sum = np.zeros(shape)
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
    # With card payoffs the kernel works on the hands in ascending rank order (its sweeps then
    # read memory in order); the results are put back in the subgame's order below.
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
    matrices_transposed = np.ascontiguousarray(matrices.transpose(0, 2, 1))
    arrays = (
        subgame.kind, subgame.player.astype(np.int64), subgame.first_child.astype(np.int64),
        subgame.num_children.astype(np.int64), subgame.decisions.astype(np.int64),
        group_nodes.astype(np.int64), group_offsets, stacked_index, group_kind, sorted_ranks, cards,
        subgame.scale, matrices, matrices_transposed, reach, regret, average_sum, strategy,
        fixed_weight, fixed_strategy,
    )  # fmt: skip
    done = 0
    chunk = 1
    while done < iterations:
        count = min(chunk, iterations - done)
        _cfr_plus_iterations(*arrays, done + 1, count)
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
    if permute:
        back = np.argsort(order)
        regret, average_sum = regret[:, back], average_sum[:, back]
        if fixed:
            fixed_strategy = fixed_strategy[:, back]
    _regret_matching(subgame, regret, strategy)
    for node in np.flatnonzero(fixed_weight > 0):
        rows = subgame.children(int(node))
        weight = fixed_weight[node]
        strategy[rows] = (1.0 - weight) * strategy[rows] + weight * fixed_strategy[rows]
    average = np.ones(shape)
    _regret_matching(subgame, average_sum, average)
    # A hand that never reaches a node under the player's own strategy accumulates no
    # average there; its regrets are still right (they do not depend on its own
    # reach), so it plays the last regret-matching strategy instead of uniform.
    for node in subgame.decisions:
        first = int(subgame.first_child[node])
        last = first + int(subgame.num_children[node])
        unreached = average_sum[first:last].sum(axis=0) <= 0.0
        average[first:last, unreached] = strategy[first:last, unreached]
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


def with_resolve_gadget(
    root: Decision | Terminal,
    inner: Subgame,
    blueprint: npt.NDArray[np.float64],
    searcher: int,
    *,
    valid: int,
    uniform_weight: float = 0.5,
    possible: npt.NDArray[np.bool_] | None = None,
) -> Subgame:
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
    In the returned subgame the searcher's decision is node 1.
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
    return Subgame.from_nested(gadget, matrices, reach)


def inner_solution(solution: Solution, inner: Subgame) -> Solution:
    """A solution of :func:`with_resolve_gadget` of ``inner`` with its average in ``inner``'s layout.

    Breadth first, the gadget puts "enter" (the inner root) at node 1 and
    "opt-out" at node 2, then the inner tree's other nodes in their own order.
    The returned :attr:`Solution.average` has ``inner``'s rows (its root row is
    1); ``current`` stays in the gadget's layout.
    """
    average = np.ones((inner.num_nodes, inner.num_hands))
    average[1:] = solution.average[3 : 3 + inner.num_nodes - 1]
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
    "Solution",
    "Subgame",
    "Terminal",
    "back_up_values",
    "blend",
    "counterfactual_values",
    "inner_solution",
    "opt_out_matrix",
    "solve",
    "with_resolve_gadget",
]
