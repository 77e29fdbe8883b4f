"""The two classic CFR bugs (Zinkevich et al. 2007 get both right) and why our tests would catch them.

A small recursive CFR written here, independent of the production kernels,
can be switched into either bug: weighting counterfactual regrets by the
acting player's own reach too, or averaging strategies without the own-reach
weight. On Leduc both buggy variants stall -- from 1,000 to 3,000 iterations
their exploitability barely moves -- while the correct variant, which
reproduces the production solver, keeps falling. In the production code
either bug would also break ``test_vanilla_cfr_matches_textbook_reference``
(exact agreement with a dict-based textbook CFR) and the convergence
thresholds of ``test_cfr.py``.
"""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from pokerai.games import LeducPoker
from pokerai.solvers import CFRSolver, TabularPolicy, exploitability, tree_of
from pokerai.solvers.policy import normalize_rows
from pokerai.solvers.tree import CHANCE_NODE, TERMINAL_NODE


@njit
def _walk(node, updating, reach_0, reach_1, reach_chance, own_reach_bug, unweighted_average,
          kind, player, infoset, first_child, num_children, action, chance_probability, utility,
          strategy, regret, strategy_sum):  # fmt: skip
    """Recursive CFR pass; returns player 0's value at ``node`` under ``strategy``."""
    if kind[node] == TERMINAL_NODE:
        return utility[node]
    start = first_child[node]
    stop = start + num_children[node]
    if kind[node] == CHANCE_NODE:
        total = 0.0
        for child in range(start, stop):
            p = chance_probability[child]
            total += p * _walk(child, updating, reach_0, reach_1, reach_chance * p, own_reach_bug,
                               unweighted_average, kind, player, infoset, first_child,
                               num_children, action, chance_probability, utility, strategy,
                               regret, strategy_sum)  # fmt: skip
        return total
    info = infoset[node]
    acting = player[node]
    child_values = np.empty(stop - start)
    total = 0.0
    for i in range(stop - start):
        child = start + i
        p = strategy[info, action[child]]
        if acting == 0:
            child_values[i] = _walk(child, updating, reach_0 * p, reach_1, reach_chance,
                                    own_reach_bug, unweighted_average, kind, player, infoset,
                                    first_child, num_children, action, chance_probability,
                                    utility, strategy, regret, strategy_sum)  # fmt: skip
        else:
            child_values[i] = _walk(child, updating, reach_0, reach_1 * p, reach_chance,
                                    own_reach_bug, unweighted_average, kind, player, infoset,
                                    first_child, num_children, action, chance_probability,
                                    utility, strategy, regret, strategy_sum)  # fmt: skip
        total += p * child_values[i]
    if acting == updating:
        own = reach_0 if acting == 0 else reach_1
        weight = (reach_1 if acting == 0 else reach_0) * reach_chance
        if own_reach_bug:
            weight *= own  # the bug: pi instead of pi_{-i}
        sign = 1.0 if acting == 0 else -1.0
        for i in range(stop - start):
            a = action[start + i]
            regret[info, a] += weight * sign * (child_values[i] - total)
            strategy_sum[info, a] += strategy[info, a] if unweighted_average else own * strategy[info, a]
    return total


CHECKPOINTS = (100, 300, 1000, 3000)


def recursive_cfr(own_reach_bug: bool = False, unweighted_average: bool = False) -> list[float]:
    """Vanilla CFR (simultaneous updates, as in Zinkevich et al.) on Leduc.

    Returns the exploitability of the average strategy at ``CHECKPOINTS``.
    With simultaneous updates the current strategy keeps oscillating, so only
    a correctly weighted average converges.
    """
    tree = tree_of(LeducPoker())
    regret = np.zeros(tree.legal_mask.shape)
    strategy_sum = np.zeros(tree.legal_mask.shape)
    strategy = normalize_rows(np.ones(tree.legal_mask.shape), tree.legal_mask)
    curve = []
    for t in range(1, CHECKPOINTS[-1] + 1):
        for updating in (0, 1):  # both players against the same strategy
            _walk(0, updating, 1.0, 1.0, 1.0, own_reach_bug, unweighted_average, tree.kind,
                  tree.player, tree.infoset, tree.first_child, tree.num_children, tree.action,
                  tree.chance_probability, tree.utility, strategy, regret, strategy_sum)  # fmt: skip
        strategy = normalize_rows(np.maximum(regret, 0.0), tree.legal_mask)
        if t in CHECKPOINTS:
            curve.append(exploitability(TabularPolicy.from_weights(tree, strategy_sum)))
    return curve


@pytest.fixture(scope="module")
def correct_curve() -> list[float]:
    solver = CFRSolver(LeducPoker(), "cfr-simultaneous")
    curve = []
    for t in CHECKPOINTS:
        solver.run(t - solver.iteration)
        curve.append(exploitability(solver.average_policy()))
    return curve


@pytest.mark.slow  # about 10 s: the module's reference curve, which the slow tests below share
def test_correct_reference_equals_production_solver(correct_curve: list[float]) -> None:
    reference = recursive_cfr()
    # Bit-for-bit: the production kernel adds regrets in the recursive (depth-first)
    # order. That matters -- regret matching's kink at 0 amplifies rounding: a 1e-15
    # nudge of the initial regrets moves the 3,000-iteration exploitability by ~0.4%.
    np.testing.assert_allclose(reference, correct_curve, rtol=1e-12)
    assert correct_curve[-1] < 0.6 * correct_curve[-2]  # still improving


@pytest.mark.slow  # about 8 s: each runs a buggy CFR for 3,000 iterations
def test_own_reach_in_counterfactual_value_stalls(correct_curve: list[float]) -> None:
    buggy = recursive_cfr(own_reach_bug=True)
    # Regrets still move, but the average stops approaching equilibrium.
    assert buggy[-1] > 0.9 * buggy[-2]
    assert buggy[-1] > 10 * correct_curve[-1]


@pytest.mark.slow  # about 8 s: each runs a buggy CFR for 3,000 iterations
def test_unweighted_average_stalls(correct_curve: list[float]) -> None:
    buggy = recursive_cfr(unweighted_average=True)
    assert buggy[-1] > 0.8 * buggy[-2]
    assert buggy[-1] > 3 * correct_curve[-1]
