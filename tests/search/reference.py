"""A plain numpy CFR+ over a public subgame: the oracle for the numba kernel of ``search.subgame.solve``."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from pokerai.search.subgame import Subgame, _reach, _terminal_groups, _terminal_values
from pokerai.solvers.policy import normalize_rows_or


def solve_reference(
    subgame: Subgame, iterations: int
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """(cumulative regrets, average-strategy sums) after ``iterations`` CFR+ iterations, node by node."""
    shape = (subgame.num_nodes, subgame.num_hands)
    regret = np.zeros(shape)
    strategy = np.ones(shape)
    average_sum = np.zeros(shape)
    groups = _terminal_groups(subgame)
    for t in range(1, iterations + 1):
        for player in (0, 1):
            for node in subgame.decisions:
                children = subgame.children(int(node))
                rows = regret[children.start : children.stop].T
                strategy[children.start : children.stop] = normalize_rows_or(rows, 1.0 / len(children)).T
            opponent_reach = _reach(subgame, strategy, 1 - player)
            own_reach = _reach(subgame, strategy, player)
            values = _terminal_values(subgame, opponent_reach, player, groups)
            for node in subgame.decisions[::-1]:
                first = int(subgame.first_child[node])
                last = first + int(subgame.num_children[node])
                if subgame.player[node] == player:
                    node_value = (strategy[first:last] * values[first:last]).sum(axis=0)
                    values[node] = node_value
                    regret[first:last] = np.maximum(regret[first:last] + values[first:last] - node_value, 0.0)
                    average_sum[first:last] += t * own_reach[node] * strategy[first:last]
                else:
                    values[node] = values[first:last].sum(axis=0)
    return regret, average_sum
