"""Monte Carlo CFR on a compiled game tree.

Lanctot, Waugh, Zinkevich & Bowling, "Monte Carlo Sampling for Regret Minimization
in Extensive Games", NeurIPS 2009.

Three samplers, each an alternating traversal per player per iteration:

* ``chance`` -- chance sampling: one outcome at each chance node, every
  action of both players walked; regrets weighted by the opponent's reach
  (chance cancels with its own sampling probability).
* ``external`` -- external sampling: chance and the opponent's actions are
  sampled, every action of the traversing player is walked; the sampled
  counterfactual values need no weights. The opponent's average strategy is
  updated where it was sampled (visits already occur in proportion to its
  reach).
* ``outcome`` -- outcome sampling: one path to a terminal, the traverser's
  actions drawn from an epsilon-exploring mix of its strategy; regrets and the
  average are importance-weighted by the sampling probability.

All three give unbiased estimates of the counterfactual regrets; they trade
cost per iteration for variance. Randomness comes from an explicit seed
(a splitmix64 stream inside the compiled code, never global state), so a run
is reproducible. The traversals are loops over explicit node lists rather
than recursion, so that numba can cache them on disk.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from pokerai.games.protocol import Game
from pokerai.rng import next_uniform as _uniform
from pokerai.solvers.best_response import tree_of
from pokerai.solvers.policy import TabularPolicy
from pokerai.solvers.regret import regret_matching
from pokerai.solvers.tree import CHANCE_NODE, TERMINAL_NODE, GameTree

SAMPLERS = ("chance", "external", "outcome")


@njit(cache=True)
def _sample_chance(node, first_child, num_children, chance_probability, rng_state):
    start = first_child[node]
    last = start + num_children[node] - 1
    u = _uniform(rng_state)
    for child in range(start, last):
        u -= chance_probability[child]
        if u < 0.0:
            return child
    return last


@njit(cache=True)
def _sample_action(node, info, first_child, num_children, action, strategy, rng_state):
    start = first_child[node]
    last = start + num_children[node] - 1
    u = _uniform(rng_state)
    for child in range(start, last):
        u -= strategy[info, action[child]]
        if u < 0.0:
            return child
    return last


@njit(cache=True)
def _sampled_tree_pass(traverser, sample_opponent, kind, player, infoset, first_child,
                       num_children, action, chance_probability, utility, legal_mask,
                       cumulative_regret, cumulative_strategy, strategy, rng_state, visited,
                       sampled_child, own_reach, opponent_reach, values):  # fmt: skip
    """One chance-sampling (``sample_opponent`` False) or external-sampling traversal.

    Walks forwards from the root through the sampled part of the tree -- one
    outcome at each chance node; one action at each opponent decision when
    ``sample_opponent``, all of them otherwise; every action of the traverser
    -- recording the nodes in ``visited`` (parents before children), then
    backwards over that list for values and updates. The other arrays are
    per-node scratch, indexed by node id.

    Chance sampling weights the regret by the opponent's reach and the
    average by the traverser's own reach. External sampling samples the
    opponent by its own strategy, so the sampled counterfactual values need no
    weights and the opponent's average is updated with weight 1 where it was
    sampled (visits already occur in proportion to its reach).
    """
    visited[0] = 0
    own_reach[0] = 1.0
    opponent_reach[0] = 1.0
    count = 1
    head = 0
    while head < count:
        node = visited[head]
        head += 1
        if kind[node] == TERMINAL_NODE:
            continue
        start = first_child[node]
        stop = start + num_children[node]
        if kind[node] == CHANCE_NODE:
            child = _sample_chance(node, first_child, num_children, chance_probability, rng_state)
            sampled_child[node] = child
            own_reach[child] = own_reach[node]
            opponent_reach[child] = opponent_reach[node]
            visited[count] = child
            count += 1
            continue
        info = infoset[node]
        regret_matching(cumulative_regret, cumulative_regret, False, legal_mask, info, info + 1,
                        strategy)  # fmt: skip
        if player[node] != traverser and sample_opponent:
            for child in range(start, stop):
                cumulative_strategy[info, action[child]] += strategy[info, action[child]]
            child = _sample_action(node, info, first_child, num_children, action, strategy, rng_state)
            sampled_child[node] = child
            visited[count] = child
            count += 1
            continue
        for child in range(start, stop):
            probability = strategy[info, action[child]]
            if player[node] == traverser:
                own_reach[child] = own_reach[node] * probability
                opponent_reach[child] = opponent_reach[node]
            else:
                own_reach[child] = own_reach[node]
                opponent_reach[child] = opponent_reach[node] * probability
            visited[count] = child
            count += 1
    sign = 1.0 if traverser == 0 else -1.0
    for i in range(count - 1, -1, -1):
        node = visited[i]
        if kind[node] == TERMINAL_NODE:
            values[node] = sign * utility[node]
            continue
        if kind[node] == CHANCE_NODE or (player[node] != traverser and sample_opponent):
            values[node] = values[sampled_child[node]]
            continue
        info = infoset[node]
        start = first_child[node]
        stop = start + num_children[node]
        value = 0.0
        for child in range(start, stop):
            value += strategy[info, action[child]] * values[child]
        values[node] = value
        if player[node] != traverser:
            continue
        regret_weight = 1.0 if sample_opponent else opponent_reach[node]
        for child in range(start, stop):
            a = action[child]
            cumulative_regret[info, a] += regret_weight * (values[child] - value)
            if not sample_opponent:
                cumulative_strategy[info, a] += own_reach[node] * strategy[info, a]


@njit(cache=True)
def _outcome_pass(traverser, epsilon, kind, player, infoset, first_child, num_children, action,
                  chance_probability, utility, legal_mask, cumulative_regret, cumulative_strategy,
                  strategy, rng_state, path, path_chosen, path_opponent_reach):  # fmt: skip
    """One outcome-sampling traversal: a single sampled path from the root to a terminal z.

    Going down, the traverser's actions are drawn from an epsilon-exploring
    mix of its strategy and everything else from its own distribution, and
    the traverser's average gets the stochastically weighted
    ``pi_i(h) / q(h) * sigma(I)``. Going back up, its regrets get the
    importance-weighted sampled regret ``w * (pi(ha, z) - pi(h, z))`` for the
    sampled a and ``-w * pi(h, z)`` otherwise, with
    ``w = u(z) * pi_{-i}(h) / q(z)``. Chance appears in neither pi nor q: it is
    sampled by its own probabilities and cancels.
    """
    node = 0
    length = 0
    own_reach = 1.0
    opponent_reach = 1.0
    sample_reach = 1.0
    while kind[node] != TERMINAL_NODE:
        if kind[node] == CHANCE_NODE:
            node = _sample_chance(node, first_child, num_children, chance_probability, rng_state)
            continue
        info = infoset[node]
        regret_matching(cumulative_regret, cumulative_regret, False, legal_mask, info, info + 1,
                        strategy)  # fmt: skip
        start = first_child[node]
        count = num_children[node]
        if player[node] == traverser:
            for child in range(start, start + count):
                a = action[child]
                cumulative_strategy[info, a] += own_reach / sample_reach * strategy[info, a]
            u = _uniform(rng_state)
            chosen = start + count - 1
            for child in range(start, start + count):
                u -= epsilon / count + (1.0 - epsilon) * strategy[info, action[child]]
                if u < 0.0:
                    chosen = child
                    break
            probability = strategy[info, action[chosen]]
            sample_reach *= epsilon / count + (1.0 - epsilon) * probability
        else:
            chosen = _sample_action(node, info, first_child, num_children, action, strategy,
                                    rng_state)  # fmt: skip
            probability = strategy[info, action[chosen]]
            sample_reach *= probability
        path[length] = node
        path_chosen[length] = chosen
        path_opponent_reach[length] = opponent_reach
        length += 1
        if player[node] == traverser:
            own_reach *= probability
        else:
            opponent_reach *= probability
        node = chosen
    weighted_utility = (utility[node] if traverser == 0 else -utility[node]) / sample_reach
    tail = 1.0  # pi(h a, z): both players' probability from below the node to z
    for i in range(length - 1, -1, -1):
        node = path[i]
        info = infoset[node]
        chosen = path_chosen[i]
        probability = strategy[info, action[chosen]]
        if player[node] == traverser:
            weight = weighted_utility * path_opponent_reach[i]
            start = first_child[node]
            for child in range(start, start + num_children[node]):
                a = action[child]
                if child == chosen:
                    cumulative_regret[info, a] += weight * tail * (1.0 - probability)
                else:
                    cumulative_regret[info, a] -= weight * tail * probability
        tail *= probability


@njit(cache=True)
def _run(iterations, sampler, epsilon, kind, player, infoset, first_child, num_children, action,
         chance_probability, utility, legal_mask, cumulative_regret, cumulative_strategy,
         strategy, rng_state, visited, sampled_child, own_reach, opponent_reach, values,
         path_opponent_reach):  # fmt: skip
    for _ in range(iterations):
        for traverser in range(2):
            if sampler == 2:
                _outcome_pass(traverser, epsilon, kind, player, infoset, first_child,
                              num_children, action, chance_probability, utility, legal_mask,
                              cumulative_regret, cumulative_strategy, strategy, rng_state,
                              visited, sampled_child, path_opponent_reach)  # fmt: skip
            else:
                _sampled_tree_pass(traverser, sampler == 1, kind, player, infoset, first_child,
                                   num_children, action, chance_probability, utility, legal_mask,
                                   cumulative_regret, cumulative_strategy, strategy, rng_state,
                                   visited, sampled_child, own_reach, opponent_reach,
                                   values)  # fmt: skip


class MCCFRSolver:
    """Monte Carlo CFR with ``sampler`` in ``SAMPLERS``; one iteration = one traversal per player.

    ``seed`` fixes every random choice; ``epsilon`` is outcome sampling's
    exploration probability at the traverser's decisions (0.6, as in
    Lanctot et al. 2009). Regrets and strategy sums are float64
    ``[num_infosets, num_actions]`` tables in the tree's information-set order.
    """

    def __init__(self, game: Game | GameTree, sampler: str = "external", *, seed: int = 0,
                 epsilon: float = 0.6) -> None:  # fmt: skip
        if sampler not in SAMPLERS:
            raise ValueError(f"unknown MCCFR sampler {sampler!r}; choose one of {', '.join(SAMPLERS)}")
        if int(seed) < 0:
            raise ValueError(f"seed must be a non-negative whole number, got {seed}")
        if not 0.0 < epsilon <= 1.0:
            raise ValueError(f"outcome-sampling exploration epsilon must be in (0, 1], got {epsilon}")
        self.sampler = sampler
        self.epsilon = float(epsilon)
        self.seed = int(seed)
        self.tree = tree_of(game)
        shape = (self.tree.num_infosets, self.tree.num_actions)
        self.cumulative_regret = np.zeros(shape)
        self.cumulative_strategy = np.zeros(shape)
        self._strategy = np.zeros(shape)
        self._rng_state = np.random.SeedSequence(self.seed).generate_state(1, dtype=np.uint64)
        self.iteration = 0
        nodes = self.tree.num_nodes
        self._visited = np.zeros(nodes, dtype=np.int32)
        self._sampled_child = np.zeros(nodes, dtype=np.int32)
        self._own_reach = np.zeros(nodes)
        self._opponent_reach = np.zeros(nodes)
        self._values = np.zeros(nodes)
        self._path_opponent_reach = np.zeros(int(self.tree.depth.max()) + 1)

    def run(self, iterations: int) -> None:
        """Run ``iterations`` more iterations."""
        if iterations < 0:
            raise ValueError(f"iterations must be >= 0, got {iterations}")
        tree = self.tree
        _run(iterations, SAMPLERS.index(self.sampler), self.epsilon, tree.kind, tree.player,
             tree.infoset, tree.first_child, tree.num_children, tree.action,
             tree.chance_probability, tree.utility, tree.legal_mask, self.cumulative_regret,
             self.cumulative_strategy, self._strategy, self._rng_state, self._visited,
             self._sampled_child, self._own_reach, self._opponent_reach, self._values,
             self._path_opponent_reach)  # fmt: skip
        self.iteration += iterations

    def average_policy(self) -> TabularPolicy:
        """The average strategy (uniform at information sets never updated)."""
        return TabularPolicy.from_weights(self.tree, self.cumulative_strategy)
