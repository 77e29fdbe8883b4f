"""External-sampling MCCFR on a betting tree with bucketed cards, in flat float32 tables.

Lanctot, Waugh, Zinkevich & Bowling, "Monte Carlo Sampling for Regret Minimization in
Extensive Games" (NeurIPS 2009), with the two changes that Pluribus's blueprint used
(Brown & Sandholm, "Superhuman AI for multiplayer poker", Science 2019):

* **Discounting over the first iterations** (linear CFR, Brown & Sandholm, AAAI 2019):
  after every ``discount_every`` iterations up to ``discount_until``, the regrets and
  the strategy sums are multiplied by ``d / (d + 1)`` with ``d`` the number of such
  intervals so far, so early, poor iterations weigh less.
* **Negative-regret pruning** after ``prune_after`` iterations (0: never): in a share
  ``prune_probability`` of the iterations, the traverser skips actions whose regret is
  below ``prune_threshold`` (chips), except actions that end the hand. Regrets are
  floored at ``regret_floor`` so that a pruned action can come back.

* **Exploration** (``explore``, 0 by default): at the other player's decisions, with this
  probability the sampled action is drawn uniformly instead of from the current strategy, so
  the traverser's answers to lines the opponent seldom plays (a bet it rarely makes) are
  trained against every hand rather than only the hands that play them. It is not weighted
  back: the traverser learns to answer an opponent that strays that often, a more defensive
  game than hold'em itself. The average strategy still gains the current strategy.

One iteration deals the cards (the caller gives every player's bucket on every street
and the showdown result), then traverses the tree once for each player. At the
traverser's decisions every action is walked and its regret updated; at the other
player's decisions one action is sampled from the current strategy (regret matching),
and that player's average-strategy sum gains the strategy there.

Information set = (tree node, bucket of the player to act on the node's street); the
tables are flat, node ``n`` with bucket ``b`` at ``offset[n] + b * num_actions[n]``
(:meth:`~pokerai.tabular.tree.BettingTree.offsets`).

Randomness is a splitmix64 stream per iteration, seeded by ``(seed, iteration)``, so a
run is reproducible and can resume at any iteration. With ``threads > 1`` iterations run
in parallel (numba ``prange``) and update the shared tables without locks: the
occasional lost update is the price of speed, and such runs are not bit-reproducible.
The traversal is a loop over an explicit stack, not recursion, so numba caches it on disk.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np
import numpy.typing as npt
from numba import njit, prange

from pokerai.rng import GAMMA as _GOLDEN
from pokerai.rng import MIX_1 as _MIX_1
from pokerai.rng import mix64 as _mix
from pokerai.rng import next_uniform as _uniform
from pokerai.solvers.policy import normalize_rows_or
from pokerai.tabular.tree import FOLD_NODE, BettingTree


@njit(cache=True)
def _regret_matching(regrets, start, count, out):
    total = 0.0
    for a in range(count):
        value = regrets[start + a]
        out[a] = value if value > 0.0 else 0.0
        total += out[a]
    if total > 0.0:
        for a in range(count):
            out[a] /= total
    else:
        for a in range(count):
            out[a] = 1.0 / count


@njit(cache=True)
def _traverse(traverser, buckets, result, player, street, num_actions, children, amount, offsets,
              regrets, strategy_sum, prune, prune_threshold, regret_floor, explore, rng_state,
              node_at, next_action, strategy, values, explored):  # fmt: skip
    """One external-sampling traversal for ``traverser``; returns (its value, nodes touched)."""
    depth = 0
    node_at[0] = 0
    touched = 0
    returning = False
    value = 0.0
    while True:
        if returning:
            if depth < 0:
                return value, touched
            values[depth, next_action[depth]] = value
            next_action[depth] += 1
            returning = False
        else:
            node = node_at[depth]
            touched += 1
            actor = player[node]
            if actor < 0:
                value = amount[node] if actor == FOLD_NODE else amount[node] * result
                if traverser == 1:
                    value = -value
                depth -= 1
                returning = True
                continue
            count = num_actions[node]
            start = offsets[node] + buckets[actor, street[node]] * count
            _regret_matching(regrets, start, count, strategy[depth])
            if actor != traverser:
                for a in range(count):
                    strategy_sum[start + a] += strategy[depth, a]
                u = _uniform(rng_state)
                chosen = count - 1
                if u < explore:  # exploration: an action drawn uniformly (module docstring)
                    chosen = min(int(u / explore * count), count - 1)
                else:
                    u = (u - explore) / (1.0 - explore)
                    cumulative = 0.0
                    for a in range(count):
                        cumulative += strategy[depth, a]
                        if u < cumulative:
                            chosen = a
                            break
                node_at[depth] = children[node, chosen]
                continue
            for a in range(count):
                explored[depth, a] = not (
                    prune and regrets[start + a] < prune_threshold and player[children[node, a]] >= 0
                )
            next_action[depth] = 0
        # The traverser's decision at ``depth``: walk its next unexplored action, or finish.
        node = node_at[depth]
        count = num_actions[node]
        a = next_action[depth]
        while a < count and not explored[depth, a]:
            a += 1
        if a < count:
            next_action[depth] = a
            node_at[depth + 1] = children[node, a]
            depth += 1
            continue
        start = offsets[node] + buckets[player[node], street[node]] * count
        total = 0.0
        for a in range(count):
            if explored[depth, a]:
                total += strategy[depth, a] * values[depth, a]
        for a in range(count):
            if explored[depth, a]:
                updated = regrets[start + a] + (values[depth, a] - total)
                regrets[start + a] = updated if updated > regret_floor else regret_floor
        value = total
        depth -= 1
        returning = True


@njit(cache=True)
def _iteration(first, index, seed, buckets, results, pruned, player, street, num_actions, children,
               amount, offsets, regrets, strategy_sum, prune_threshold, regret_floor, explore, scratch_nodes,
               scratch_next, scratch_strategy, scratch_values, scratch_explored):  # fmt: skip
    rng_state = np.empty(1, dtype=np.uint64)
    rng_state[0] = _mix(np.uint64(seed) * _GOLDEN + np.uint64(first + index))
    touched = 0
    for traverser in range(2):
        _, count = _traverse(traverser, buckets[index], results[index], player, street, num_actions,
                             children, amount, offsets, regrets, strategy_sum, pruned[index],
                             prune_threshold, regret_floor, explore, rng_state, scratch_nodes, scratch_next,
                             scratch_strategy, scratch_values, scratch_explored)  # fmt: skip
        touched += count
    return touched


@njit(cache=True)
def _run_serial(first, seed, buckets, results, pruned, player, street, num_actions, children, amount,
                offsets, regrets, strategy_sum, prune_threshold, regret_floor, explore, depth,
                width):  # fmt: skip
    nodes = np.empty(depth, dtype=np.int64)
    next_action = np.empty(depth, dtype=np.int64)
    strategy = np.empty((depth, width))
    values = np.empty((depth, width))
    explored = np.empty((depth, width), dtype=np.bool_)
    touched = 0
    for index in range(buckets.shape[0]):
        touched += _iteration(first, index, seed, buckets, results, pruned, player, street, num_actions,
                              children, amount, offsets, regrets, strategy_sum, prune_threshold,
                              regret_floor, explore, nodes, next_action, strategy, values,
                              explored)  # fmt: skip
    return touched


@njit(cache=True, parallel=True)
def _run_parallel(first, seed, buckets, results, pruned, player, street, num_actions, children, amount,
                  offsets, regrets, strategy_sum, prune_threshold, regret_floor, explore, depth,
                  width):  # fmt: skip
    count = buckets.shape[0]
    touched = np.zeros(count, dtype=np.int64)
    for index in prange(count):
        nodes = np.empty(depth, dtype=np.int64)
        next_action = np.empty(depth, dtype=np.int64)
        strategy = np.empty((depth, width))
        values = np.empty((depth, width))
        explored = np.empty((depth, width), dtype=np.bool_)
        touched[index] = _iteration(first, index, seed, buckets, results, pruned, player, street,
                                    num_actions, children, amount, offsets, regrets, strategy_sum,
                                    prune_threshold, regret_floor, explore, nodes, next_action, strategy,
                                    values, explored)  # fmt: skip
    return touched.sum()


@dataclass(frozen=True)
class MCCFRSettings:
    """Discounting and pruning (module docstring); iterations count deals."""

    discount_every: int = 0
    discount_until: int = 0
    prune_after: int = 0
    prune_probability: float = 0.95
    prune_threshold: float = -3.0e8
    regret_floor: float = -3.1e8
    explore: float = 0.0

    def __post_init__(self) -> None:
        if not 0.0 <= self.explore < 1.0:
            raise ValueError(f"explore {self.explore!r} is not in [0, 1)")
        for name in ("discount_every", "discount_until", "prune_after"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
                raise ValueError(f"{name} {value!r} is not a whole number >= 0")
        if not 0.0 <= self.prune_probability <= 1.0:
            raise ValueError(f"prune_probability {self.prune_probability!r} is not in [0, 1]")
        if not self.regret_floor <= self.prune_threshold < 0:
            raise ValueError(
                f"need regret_floor <= prune_threshold < 0, got {self.regret_floor} "
                f"and {self.prune_threshold}"
            )


class TabularMCCFR:
    """The regret and strategy tables of one MCCFR run on ``tree`` with ``buckets[s]`` buckets on
    street ``s`` (module docstring). ``iteration`` counts the deals traversed so far."""

    def __init__(
        self,
        tree: BettingTree,
        buckets: tuple[int, ...],
        *,
        seed: int = 0,
        settings: MCCFRSettings | None = None,
    ) -> None:
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
            raise ValueError(f"seed {seed!r} is not a whole number >= 0")
        self.tree = tree
        self.buckets = tuple(int(count) for count in buckets)
        self.seed = int(seed)
        self.settings = settings if settings is not None else MCCFRSettings()
        self.offsets, size = tree.offsets(self.buckets)
        self.regrets = np.zeros(size, dtype=np.float32)
        self.strategy_sum = np.zeros(size, dtype=np.float32)
        self.iteration = 0
        self.nodes_touched = 0
        self._depth = _tree_depth(tree) + 2
        self._width = int(max(tree.num_actions.max(), 1))

    @property
    def table_size(self) -> int:
        """Entries of each table (regrets, strategy sums)."""
        return int(self.regrets.size)

    def run(
        self,
        deal_buckets: npt.ArrayLike,
        deal_results: npt.ArrayLike,
        prune: npt.ArrayLike | None = None,
        *,
        threads: int = 1,
    ) -> int:
        """Traverse one deal per row: ``deal_buckets`` ints ``[N, 2, streets]`` (each player's bucket on
        each street), ``deal_results`` ``[N]`` (+1 player 0 wins the showdown, 0 tie, -1 loses),
        ``prune`` bool ``[N]`` (which iterations prune; by default those that
        :meth:`prune_draws` would pick from the settings). Applies the discounts that fall
        inside the rows. Returns the nodes touched."""
        buckets = np.ascontiguousarray(deal_buckets, dtype=np.int64)
        results = np.ascontiguousarray(deal_results, dtype=np.float64)
        count = buckets.shape[0]
        if buckets.ndim != 3 or buckets.shape[1] != 2 or buckets.shape[2] < len(self.buckets):
            raise ValueError(
                f"buckets must have shape [N, 2, {len(self.buckets)}], got {list(buckets.shape)}"
            )
        if results.shape != (count,):
            raise ValueError(f"results must have shape [{count}], got {list(results.shape)}")
        limits = np.asarray(self.buckets, dtype=np.int64)
        if count and (buckets.min() < 0 or np.any(buckets[:, :, : limits.size].max(axis=(0, 1)) >= limits)):
            raise ValueError(f"a bucket lies outside the streets' bucket counts {list(self.buckets)}")
        pruned = np.ascontiguousarray(self.prune_draws(count) if prune is None else prune, dtype=np.bool_)
        if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
            raise ValueError(f"threads {threads!r} is not a whole number >= 1")
        touched = 0
        done = 0
        while done < count:
            stop = min(count, done + self._until_discount())
            touched += self._run_rows(buckets[done:stop], results[done:stop], pruned[done:stop], threads)
            self.iteration += stop - done
            done = stop
            self._maybe_discount()
        self.nodes_touched += touched
        return touched

    def prune_draws(self, count: int) -> npt.NDArray[np.bool_]:
        """Which of the next ``count`` iterations prune: past ``prune_after``, each with
        ``prune_probability``, drawn from ``(seed, iteration)`` so that a resumed run draws the same."""
        settings = self.settings
        if settings.prune_after <= 0:
            return np.zeros(count, dtype=np.bool_)
        iterations = self.iteration + np.arange(count, dtype=np.uint64)
        mixed = _mix(np.uint64(self.seed + 1) * _MIX_1 + iterations)
        uniforms = (mixed >> np.uint64(11)).astype(np.float64) / 9007199254740992.0
        return (iterations >= settings.prune_after) & (uniforms < settings.prune_probability)

    def _until_discount(self) -> int:
        every, until = self.settings.discount_every, self.settings.discount_until
        if every <= 0 or self.iteration >= until:
            return 1 << 62
        return every - self.iteration % every

    def _maybe_discount(self) -> None:
        every, until = self.settings.discount_every, self.settings.discount_until
        if every > 0 and 0 < self.iteration <= until and self.iteration % every == 0:
            intervals = self.iteration // every
            factor = np.float32(intervals / (intervals + 1))
            self.regrets *= factor
            self.strategy_sum *= factor

    def _run_rows(
        self,
        buckets: npt.NDArray[np.int64],
        results: npt.NDArray[np.float64],
        pruned: npt.NDArray[np.bool_],
        threads: int,
    ) -> int:
        tree = self.tree
        arguments = (
            self.iteration, self.seed, buckets, results, pruned, tree.player, tree.street,
            tree.num_actions, tree.children, tree.amount, self.offsets, self.regrets,
            self.strategy_sum, float(self.settings.prune_threshold), float(self.settings.regret_floor),
            float(self.settings.explore),
            self._depth, self._width,
        )  # fmt: skip
        if threads == 1:
            return int(_run_serial(*arguments))
        previous = numba.get_num_threads()
        numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
        try:
            return int(_run_parallel(*arguments))
        finally:
            numba.set_num_threads(previous)

    def average_strategy(self, node: int, buckets: npt.ArrayLike) -> npt.NDArray[np.float64]:
        """The average strategy at decision ``node`` for each of ``buckets``: float64
        ``[len(buckets), num_actions[node]]`` over the node's actions (uniform where never updated)."""
        count = int(self.tree.num_actions[node])
        if self.tree.player[node] < 0:
            raise ValueError(f"node {node} is not a decision")
        rows = self.offsets[node] + np.asarray(buckets, dtype=np.int64)[:, None] * count + np.arange(count)
        weights = self.strategy_sum[rows].astype(np.float64)
        return normalize_rows_or(weights, 1.0 / weights.shape[-1])


def _tree_depth(tree: BettingTree) -> int:
    """The most decisions on any path from the root (the traversal stack's size)."""
    depth = np.zeros(tree.num_nodes, dtype=np.int64)
    decisions = tree.decisions
    children = tree.children[decisions]
    valid = np.arange(children.shape[1])[None, :] < tree.num_actions[decisions][:, None]
    while True:  # a merged node may be a child of a later node: relax until nothing changes
        below = np.where(valid, depth[np.maximum(children, 0)], 0).max(axis=1)
        updated = depth.copy()
        updated[decisions] = 1 + below
        if np.array_equal(updated, depth):
            return int(depth.max()) if depth.size else 0
        depth = updated


__all__ = ["MCCFRSettings", "TabularMCCFR"]
