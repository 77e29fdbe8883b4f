"""Full-tree counterfactual regret minimisation and its variants.

One solver, several update rules (``CFRVariant``):

* ``cfr`` -- vanilla CFR (Zinkevich, Johanson, Bowling & Piccione, "Regret
  Minimization in Games with Incomplete Information", NeurIPS 2007), with
  alternating updates; ``cfr-simultaneous`` updates both players from the same
  traversal, as in the original paper;
* ``cfr+`` -- CFR+ (Tammelin, "Solving Large Imperfect Information Games Using
  CFR+", 2014): regrets floored at 0 every iteration,
  linear averaging, alternating updates;
* ``lcfr`` -- linear CFR (Brown & Sandholm, "Solving Imperfect-Information Games
  via Discounted Regret Minimization", AAAI 2019): iteration t's regrets and
  average contribution weighted by t (DCFR with alpha = beta = gamma = 1);
* ``dcfr`` -- discounted CFR (Brown & Sandholm 2019), alpha = 1.5, beta = 0,
  gamma = 2 by default;
* ``pcfr+`` -- predictive CFR+ (Farina, Kroer & Sandholm, "Faster Game Solving via
  Predictive Blackwell Approachability: Connecting Regret Matching and Mirror
  Descent", AAAI 2021): regret
  matching+ on cumulative regret plus a prediction (the last iteration's
  instantaneous regret), quadratic averaging.

Each iteration makes three passes over the compiled tree per updating player:
forwards (parents before children) for the reach probabilities, backwards for
the expected values, then over the decision nodes in depth-first order for
the counterfactual regrets and the reach-weighted strategy sums. The
counterfactual regret of information set I weights each history by pi_{-i},
the reach of the opponent and chance -- never the acting player's own reach;
the average strategy is weighted by the acting player's own reach pi_i
(Zinkevich et al. 2007). DCFR's multiplying the running average by
(t / (t + 1))^gamma after each iteration is implemented, equivalently after
normalisation, as weighting iteration t's contribution by t^gamma.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import NamedTuple

import numpy as np
from numba import njit

from pokerai.games.protocol import Game
from pokerai.solvers.best_response import fill_node_values, tree_of
from pokerai.solvers.policy import TabularPolicy, normalize_rows
from pokerai.solvers.regret import discount_and_floor, regret_matching
from pokerai.solvers.tree import CHANCE_NODE, TERMINAL_NODE, GameTree


@dataclass(frozen=True)
class CFRVariant:
    """The update rule of one member of the CFR family.

    Attributes:
        name: the algorithm's name on the command line.
        alternating: update one player per traversal, the other seeing the
            new strategy (True), or both from one traversal (False).
        floor_regrets: clamp cumulative regrets at 0 after every iteration (CFR+).
        discount: apply DCFR's discounts to the cumulative regrets.
        alpha: exponent of the discount of positive regrets, ``t^a / (t^a + 1)``.
        beta: exponent of the discount of negative regrets.
        average_exponent: iteration t's average-strategy contribution is weighted by ``t^gamma``.
        predictive: regret-match on cumulative regret plus the last instantaneous regret.
    """

    name: str
    alternating: bool = True
    floor_regrets: bool = False
    discount: bool = False
    alpha: float = 1.0
    beta: float = 1.0
    average_exponent: float = 0.0
    predictive: bool = False


VARIANTS: dict[str, CFRVariant] = {
    "cfr": CFRVariant("cfr"),
    "cfr-simultaneous": CFRVariant("cfr-simultaneous", alternating=False),
    "cfr+": CFRVariant("cfr+", floor_regrets=True, average_exponent=1.0),
    "lcfr": CFRVariant("lcfr", discount=True, alpha=1.0, beta=1.0, average_exponent=1.0),
    "dcfr": CFRVariant("dcfr", discount=True, alpha=1.5, beta=0.0, average_exponent=2.0),
    "pcfr+": CFRVariant("pcfr+", floor_regrets=True, predictive=True, average_exponent=2.0),
}


def dcfr_variant(alpha: float = 1.5, beta: float = 0.0, gamma: float = 2.0) -> CFRVariant:
    """Discounted CFR with the given exponents (the defaults are Brown & Sandholm's)."""
    return replace(VARIANTS["dcfr"], alpha=alpha, beta=beta, average_exponent=gamma)


class _KernelTree(NamedTuple):
    """The arrays of a ``GameTree`` that the CFR kernels read (the fields of the same names), and
    ``player_bounds`` int64 [3]: player p's information sets are ``player_bounds[p] .. [p + 1] - 1``."""

    kind: np.ndarray
    player: np.ndarray
    infoset: np.ndarray
    first_child: np.ndarray
    num_children: np.ndarray
    action: np.ndarray
    chance_probability: np.ndarray
    utility: np.ndarray
    depth_first_decisions: np.ndarray
    legal_mask: np.ndarray
    player_bounds: np.ndarray


class _Rule(NamedTuple):
    """A ``CFRVariant``'s update rule as the kernel reads it (floats as float)."""

    alternating: bool
    floor_regrets: bool
    discount: bool
    alpha: float
    beta: float
    average_exponent: float
    predictive: bool


class _Tables(NamedTuple):
    """The solver's float64 tables (``CFRSolver``'s attributes) and the kernel's scratch arrays."""

    strategy: np.ndarray
    cumulative_regret: np.ndarray
    instant_regret: np.ndarray
    cumulative_strategy: np.ndarray
    reach: np.ndarray
    values: np.ndarray


@njit(cache=True)
def _traverse(tree, tables, update_0, update_1, average_weight):
    """One full-tree CFR pass for the players flagged by ``update_0`` / ``update_1``.

    Adds each flagged player's counterfactual regrets of this iteration to
    ``cumulative_regret`` and to ``instant_regret``, and
    ``average_weight * pi_i * sigma`` to ``cumulative_strategy``. ``reach``
    ([3, num_nodes]: player 0, player 1, chance) and ``values`` (player 0's
    expected return per node) are scratch.

    The updates are added history by history in depth-first order -- the
    order of a recursive implementation such as OpenSpiel's -- so that the
    float64 sums are bit-for-bit those of the textbook algorithm.
    """
    (kind, player, infoset, first_child, num_children, action, chance_probability, utility,
     depth_first_decisions, _, _) = tree  # fmt: skip
    strategy, cumulative_regret, instant_regret, cumulative_strategy, reach, values = tables
    num_nodes = kind.shape[0]
    reach[0, 0] = 1.0
    reach[1, 0] = 1.0
    reach[2, 0] = 1.0
    for node in range(num_nodes):
        if kind[node] == TERMINAL_NODE:
            continue
        start = first_child[node]
        stop = start + num_children[node]
        reach_0 = reach[0, node]
        reach_1 = reach[1, node]
        reach_chance = reach[2, node]
        if kind[node] == CHANCE_NODE:
            for child in range(start, stop):
                reach[0, child] = reach_0
                reach[1, child] = reach_1
                reach[2, child] = reach_chance * chance_probability[child]
        else:
            info = infoset[node]
            acting_0 = player[node] == 0
            for child in range(start, stop):
                probability = strategy[info, action[child]]
                reach[0, child] = reach_0 * probability if acting_0 else reach_0
                reach[1, child] = reach_1 if acting_0 else reach_1 * probability
                reach[2, child] = reach_chance
    fill_node_values(kind, infoset, first_child, num_children, action, chance_probability, utility,
                     strategy, values)  # fmt: skip
    for node in depth_first_decisions:
        acting = player[node]
        if not ((acting == 0 and update_0) or (acting == 1 and update_1)):
            continue
        info = infoset[node]
        own_reach = reach[acting, node]
        counterfactual_reach = reach[1 - acting, node] * reach[2, node]
        sign = 1.0 if acting == 0 else -1.0
        start = first_child[node]
        for child in range(start, start + num_children[node]):
            a = action[child]
            regret = counterfactual_reach * sign * (values[child] - values[node])
            cumulative_regret[info, a] += regret
            instant_regret[info, a] += regret
            cumulative_strategy[info, a] += average_weight * own_reach * strategy[info, a]


@njit(cache=True)
def _run(iterations, first_iteration, tree, rule, tables):
    """Run ``iterations`` CFR iterations numbered from ``first_iteration`` (1-based)."""
    legal_mask, player_bounds, alternating = tree.legal_mask, tree.player_bounds, rule.alternating
    cumulative_regret, instant_regret = tables.cumulative_regret, tables.instant_regret
    num_infosets = legal_mask.shape[0]
    for step in range(iterations):
        t = first_iteration + step
        weight = float(t) ** rule.average_exponent
        for p in range(2 if alternating else 1):
            low = player_bounds[p] if alternating else 0
            high = player_bounds[p + 1] if alternating else num_infosets
            instant_regret[low:high] = 0.0
            _traverse(tree, tables, p == 0 or not alternating, p == 1 or not alternating, weight)
            discount_and_floor(cumulative_regret, legal_mask, low, high, t, rule.floor_regrets,
                               rule.discount, rule.alpha, rule.beta)  # fmt: skip
            regret_matching(cumulative_regret, instant_regret, rule.predictive, legal_mask, low,
                            high, tables.strategy)  # fmt: skip


class CFRSolver:
    """Full-tree CFR family solver on a compiled game.

    State (all float64 ``[num_infosets, num_actions]``, rows in the tree's
    information-set order): ``cumulative_regret``; ``cumulative_strategy``
    (weighted sums of own-reach times strategy); ``current_strategy`` (the
    strategy the next iteration plays); ``instant_regret`` (the last
    iteration's counterfactual regrets, PCFR+'s prediction).

    Kuhn poker's first player loses 1/18 of a chip a game at equilibrium:

    >>> from pokerai.games import KuhnPoker
    >>> from pokerai.solvers import expected_values, exploitability
    >>> solver = CFRSolver(KuhnPoker(), "cfr+")
    >>> solver.run(1000)
    >>> policy = solver.average_policy()
    >>> round(expected_values(policy)[0], 4), round(-1 / 18, 4), exploitability(policy) < 1e-4
    (-0.0556, -0.0556, True)
    """

    def __init__(self, game: Game | GameTree, variant: CFRVariant | str = "cfr") -> None:
        if isinstance(variant, str):
            if variant not in VARIANTS:
                raise ValueError(f"unknown CFR variant {variant!r}; choose one of {', '.join(VARIANTS)}")
            variant = VARIANTS[variant]
        self.variant = variant
        self.tree = tree_of(game)
        shape = (self.tree.num_infosets, self.tree.num_actions)
        self.cumulative_regret = np.zeros(shape)
        self.instant_regret = np.zeros(shape)
        self.cumulative_strategy = np.zeros(shape)
        self.current_strategy = normalize_rows(np.ones(shape), self.tree.legal_mask)
        self.iteration = 0
        self._reach = np.zeros((3, self.tree.num_nodes))
        self._values = np.zeros(self.tree.num_nodes)
        slices = self.tree.player_slices
        self._player_bounds = np.array([0, slices[0].stop, slices[1].stop], dtype=np.int64)

    def run(self, iterations: int) -> None:
        """Run ``iterations`` more iterations."""
        if iterations < 0:
            raise ValueError(f"iterations must be >= 0, got {iterations}")
        tree, variant = self.tree, self.variant
        kernel_tree = _KernelTree(tree.kind, tree.player, tree.infoset, tree.first_child,
                                  tree.num_children, tree.action, tree.chance_probability, tree.utility,
                                  tree.depth_first_decisions, tree.legal_mask,
                                  self._player_bounds)  # fmt: skip
        rule = _Rule(variant.alternating, variant.floor_regrets, variant.discount, float(variant.alpha),
                     float(variant.beta), float(variant.average_exponent), variant.predictive)  # fmt: skip
        tables = _Tables(self.current_strategy, self.cumulative_regret, self.instant_regret,
                         self.cumulative_strategy, self._reach, self._values)  # fmt: skip
        _run(iterations, self.iteration + 1, kernel_tree, rule, tables)
        self.iteration += iterations

    def average_policy(self) -> TabularPolicy:
        """The average strategy: the solver's answer (uniform where never reached)."""
        return TabularPolicy.from_weights(self.tree, self.cumulative_strategy)

    def current_policy(self) -> TabularPolicy:
        """The strategy the next iteration will play (oscillates; not the answer)."""
        return TabularPolicy(self.tree, self.current_strategy.copy())
