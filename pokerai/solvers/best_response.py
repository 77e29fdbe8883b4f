"""Exact expected values, best responses and exploitability on a compiled game tree.

Everything here enumerates the whole tree, so it is for games small enough to
compile (Kuhn, Leduc, AKQ); the per-node work runs in numba-compiled loops over
the tree's flat arrays.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass

import numpy as np
from numba import njit

from pokerai.games.protocol import Game
from pokerai.solvers.policy import TabularPolicy
from pokerai.solvers.tree import CHANCE_NODE, DECISION_NODE, TERMINAL_NODE, GameTree, compile_tree

_TREE_CACHE: weakref.WeakKeyDictionary[object, GameTree] = weakref.WeakKeyDictionary()
_ORDER_CACHE: weakref.WeakKeyDictionary[GameTree, tuple[tuple[np.ndarray, np.ndarray], ...]] = (
    weakref.WeakKeyDictionary()
)


def tree_of(game_or_tree: Game | GameTree) -> GameTree:
    """The compiled tree of a game (compiled once per game object and cached)."""
    if isinstance(game_or_tree, GameTree):
        return game_or_tree
    tree = _TREE_CACHE.get(game_or_tree)
    if tree is None:
        tree = compile_tree(game_or_tree)
        _TREE_CACHE[game_or_tree] = tree
    return tree


@njit(cache=True)
def node_value(node, kind, infoset, first_child, num_children, action, chance_probability,
               strategy, values):  # fmt: skip
    """Expectation of ``values`` over the children of a chance or decision node.

    Children are weighted by their chance probability or by ``strategy`` at
    the node's information set, summed in action order.
    """
    total = 0.0
    start = first_child[node]
    for child in range(start, start + num_children[node]):
        if kind[node] == CHANCE_NODE:
            total += chance_probability[child] * values[child]
        else:
            total += strategy[infoset[node], action[child]] * values[child]
    return total


@njit(cache=True)
def fill_node_values(kind, infoset, first_child, num_children, action, chance_probability, utility,
                     strategy, values):  # fmt: skip
    """Write player 0's expected return at every node, following ``strategy``, into ``values``.

    Nodes are valued from the last to the first, so children (which follow their parent in
    the tree's breadth-first order) are valued before their parent.
    """
    for node in range(kind.shape[0] - 1, -1, -1):
        if kind[node] == TERMINAL_NODE:
            values[node] = utility[node]
        else:
            values[node] = node_value(node, kind, infoset, first_child, num_children, action,
                                      chance_probability, strategy, values)  # fmt: skip


@njit(cache=True)
def expected_node_values(kind, player, infoset, first_child, num_children, action,
                    chance_probability, utility, strategy):  # fmt: skip
    """Player 0's expected return at every node when both players follow ``strategy``."""
    values = np.zeros(kind.shape[0])
    fill_node_values(kind, infoset, first_child, num_children, action, chance_probability, utility,
                     strategy, values)  # fmt: skip
    return values


@njit(cache=True)
def _best_response(kind, player, infoset, first_child, num_children, action,
                   chance_probability, utility, strategy, responder, order, level_starts,
                   num_infosets, num_actions):  # fmt: skip
    """Value of ``responder``'s best response to ``strategy`` and its chosen action per infoset.

    ``order`` lists the nodes sorted by (number of the responder's own actions
    on the path, depth), deepest first, and ``level_starts`` marks where that
    own-action count changes. Within one level, the children of the
    responder's decisions all lie in earlier levels, so each information set's
    action values are complete before its best action is chosen.
    """
    num_nodes = kind.shape[0]
    # Reach of everyone but the responder (opponent and chance): pi_{-i}.
    reach = np.empty(num_nodes)
    reach[0] = 1.0
    for node in range(num_nodes):
        start = first_child[node]
        for child in range(start, start + num_children[node]):
            if kind[node] == CHANCE_NODE:
                reach[child] = reach[node] * chance_probability[child]
            elif player[node] == responder:
                reach[child] = reach[node]
            else:
                reach[child] = reach[node] * strategy[infoset[node], action[child]]
    sign = 1.0 if responder == 0 else -1.0
    values = np.zeros(num_nodes)
    action_values = np.zeros((num_infosets, num_actions))
    best_action = np.full(num_infosets, -1, dtype=np.int32)
    for level in range(level_starts.shape[0] - 1):
        low, high = level_starts[level], level_starts[level + 1]
        for i in range(low, high):
            node = order[i]
            if kind[node] == DECISION_NODE and player[node] == responder:
                start = first_child[node]
                for child in range(start, start + num_children[node]):
                    action_values[infoset[node], action[child]] += reach[node] * values[child]
        for i in range(low, high):
            node = order[i]
            if kind[node] == DECISION_NODE and player[node] == responder:
                info = infoset[node]
                if best_action[info] < 0:
                    start = first_child[node]
                    best = action[start]
                    for child in range(start + 1, start + num_children[node]):
                        if action_values[info, action[child]] > action_values[info, best]:
                            best = action[child]
                    best_action[info] = best
        for i in range(low, high):
            node = order[i]
            if kind[node] == TERMINAL_NODE:
                values[node] = sign * utility[node]
                continue
            start = first_child[node]
            if kind[node] == DECISION_NODE and player[node] == responder:
                for child in range(start, start + num_children[node]):
                    if action[child] == best_action[infoset[node]]:
                        values[node] = values[child]
                continue
            values[node] = node_value(node, kind, infoset, first_child, num_children, action,
                                      chance_probability, strategy, values)  # fmt: skip
    return values[0], best_action


def _response_orders(tree: GameTree) -> tuple[tuple[np.ndarray, np.ndarray], ...]:
    """Per player, the node order and level boundaries ``_best_response`` needs."""
    cached = _ORDER_CACHE.get(tree)
    if cached is not None:
        return cached
    orders = []
    for responder in (0, 1):
        own_actions = np.zeros(tree.num_nodes, dtype=np.int64)
        is_own = (tree.kind == DECISION_NODE) & (tree.player == responder)
        # Breadth-first order: a parent's count is final before its children read it.
        for node in range(1, tree.num_nodes):
            parent = tree.parent[node]
            own_actions[node] = own_actions[parent] + is_own[parent]
        order = np.lexsort((-tree.depth, -own_actions)).astype(np.int32)
        counts = own_actions[order]
        starts = np.flatnonzero(np.diff(counts)) + 1
        level_starts = np.concatenate(([0], starts, [tree.num_nodes])).astype(np.int64)
        orders.append((order, level_starts))
    result = tuple(orders)
    _ORDER_CACHE[tree] = result
    return result


def _tree_arrays(tree: GameTree) -> tuple[np.ndarray, ...]:
    return (tree.kind, tree.player, tree.infoset, tree.first_child, tree.num_children,
            tree.action, tree.chance_probability, tree.utility)  # fmt: skip


def expected_values(policy: TabularPolicy) -> tuple[float, float]:
    """Each player's expected return when both play ``policy``."""
    value = float(expected_node_values(*_tree_arrays(policy.tree), policy.probabilities)[0])
    return value, -value


@dataclass(frozen=True)
class BestResponse:
    """A best response of ``player`` to the other player's part of a policy."""

    player: int
    value: float
    """The responder's expected return against the policy."""
    actions: dict[str, int]
    """The chosen action id at each of the responder's information sets."""


def best_response(policy: TabularPolicy, player: int) -> BestResponse:
    """Exact best response of ``player`` (0 or 1) to the other player's strategy in ``policy``."""
    if player not in (0, 1):
        raise ValueError(f"player must be 0 or 1, got {player!r}")
    tree = policy.tree
    order, level_starts = _response_orders(tree)[player]
    value, chosen = _best_response(*_tree_arrays(tree), policy.probabilities, player, order,
                                   level_starts, tree.num_infosets, tree.num_actions)  # fmt: skip
    own = range(tree.num_infosets)[tree.player_slices[player]]
    return BestResponse(player, float(value), {tree.infoset_keys[i]: int(chosen[i]) for i in own})


def nash_conv(policy: TabularPolicy) -> float:
    """Sum over both players of what a best response gains over the policy's own value."""
    game_value, _ = expected_values(policy)
    gain_0 = best_response(policy, 0).value - game_value
    gain_1 = best_response(policy, 1).value + game_value
    return gain_0 + gain_1


def exploitability(policy: TabularPolicy) -> float:
    """Exploitability: the **mean** over the two players of the best-response gain.

    For player p the gain is ``BR_p(sigma_-p) - u_p(sigma)``: how much more p
    would win by switching to a best response against the other player's part
    of ``policy``. In a two-player zero-sum game the two gains add up to
    ``BR_0 + BR_1`` (the game value cancels), so this is ``NashConv / 2``;
    it is 0 exactly at a Nash equilibrium. Units are the game's chips per game.

    Uniform play of Kuhn poker has NashConv 11/12 (OpenSpiel's figure):

    >>> from fractions import Fraction
    >>> from pokerai.games import KuhnPoker
    >>> from pokerai.solvers import TabularPolicy, compile_tree
    >>> uniform = TabularPolicy.uniform(compile_tree(KuhnPoker()))
    >>> Fraction(exploitability(uniform)).limit_denominator(100)
    Fraction(11, 24)
    """
    return nash_conv(policy) / 2.0
