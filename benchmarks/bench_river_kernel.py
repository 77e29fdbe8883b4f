"""River CFR+ iteration speed: the card-removal sweep against dense payoff matrices, on the same subgames.

The river spots are the first ``--decisions`` river decisions of seeded
self-play of the Deep CFR blueprint (``common.river_spots``). At each
spot the beliefs at the river's start and the river's tree are built as the search agent builds them
(``threshold`` and ``max_raises`` as for the agent), then the same subgame is
solved for ``--iterations`` CFR+ iterations twice: with dense ``[H, H]`` matrix
products for the fold and showdown payoffs (BLAS), and with
:class:`~pokerai.search.subgame.CardPayoffs` (a linear sweep per terminal).
The two solves' average strategies are compared: the largest difference in any
hand, and the largest reach-weighted one (at each decision, the difference of
each hand weighted by the acting player's reach of it under the dense solve,
as a share of its root reach). Rounding differs between the two, and CFR+
amplifies it where a hand's reach is tiny; where hands carry weight they agree.

    OMP_NUM_THREADS=1 python benchmarks/bench_river_kernel.py

Prints a Markdown table of the median milliseconds per iteration of each and
their ratio per spot (median and range), with the subgames' median hands and
nodes. Single process, torch on one thread.
"""

from __future__ import annotations

import platform
import statistics
import time

import numpy as np
import torch
from common import add_river_spot_arguments, parse_single_threaded, river_spots, script_parser

from pokerai.search.beliefs import public_beliefs
from pokerai.search.payoffs import RiverPayoffs
from pokerai.search.showdown import river_card_payoffs
from pokerai.search.subgame import Solution, Subgame, _reach, solve
from pokerai.search.tree import build_street_tree, street_start


def reach_weighted_gap(subgame: Subgame, dense: Solution, sweep: Solution) -> float:
    """The largest reach-weighted difference between two solutions' average strategies (module docstring)."""
    gap = np.abs(dense.average - sweep.average)
    worst = 0.0
    for player in (0, 1):
        reach = _reach(subgame, dense.average, player)
        total = max(float(reach[0].sum()), 1e-300)
        for node in subgame.decisions:
            if subgame.player[node] == player:
                children = subgame.children(node)
                weighted = reach[node] / total * gap[children.start : children.stop].max(axis=0)
                worst = max(worst, float(weighted.sum()))
    return worst


def main() -> None:
    parser = script_parser(__doc__, seed=0)
    add_river_spot_arguments(parser, decisions=30)
    parser.add_argument("--iterations", type=int, default=50)
    parser.add_argument("--max-raises", type=int, default=2)
    args = parse_single_threaded(parser)
    blueprint, states = river_spots(args.blueprint, args.decisions, args.threshold, args.seed)
    dense_ms: list[float] = []
    sweep_ms: list[float] = []
    ratios: list[float] = []
    hands: list[int] = []
    nodes: list[int] = []
    largest_gap = 0.0
    largest_weighted_gap = 0.0
    for index, state in enumerate(states):
        beliefs = public_beliefs(blueprint, street_start(state), threshold=args.threshold)
        support = np.flatnonzero((beliefs[0] > 0) | (beliefs[1] > 0))
        payoffs = RiverPayoffs(tuple(state.board), support)
        river = build_street_tree(
            state, blueprint.game.bets, payoffs, beliefs[:, support], max_raises=args.max_raises
        )
        structure = river_card_payoffs(state.board, river.hands)
        if index == 0:  # compile both kernels' paths before timing
            solve(river.subgame, 2)
            solve(river.subgame, 2, card_payoffs=structure)
        started = time.perf_counter()
        dense = solve(river.subgame, args.iterations)
        dense_seconds = time.perf_counter() - started
        started = time.perf_counter()
        sweep = solve(river.subgame, args.iterations, card_payoffs=structure)
        sweep_seconds = time.perf_counter() - started
        largest_gap = max(largest_gap, float(np.abs(dense.average - sweep.average).max()))
        largest_weighted_gap = max(largest_weighted_gap, reach_weighted_gap(river.subgame, dense, sweep))
        dense_ms.append(1000.0 * dense_seconds / args.iterations)
        sweep_ms.append(1000.0 * sweep_seconds / args.iterations)
        ratios.append(dense_seconds / sweep_seconds)
        hands.append(river.subgame.num_hands)
        nodes.append(river.subgame.num_nodes)
    print(
        f"Python {platform.python_version()}, numpy {np.__version__}, torch {torch.__version__}, "
        f"{platform.machine()}, one process; {len(states)} river spots of {args.blueprint} self-play "
        f"(seed {args.seed}, threshold {args.threshold}), {args.iterations} CFR+ iterations each\n"
    )
    print("| payoffs | ms per iteration (median) | hands (median) | nodes (median) |")
    print("|---|---:|---:|---:|")
    print(f"| dense matrices | {statistics.median(dense_ms):.2f} | {statistics.median(hands):g} | "
          f"{statistics.median(nodes):g} |")  # fmt: skip
    print(f"| card sweep | {statistics.median(sweep_ms):.2f} | {statistics.median(hands):g} | "
          f"{statistics.median(nodes):g} |")  # fmt: skip
    print(
        f"\nSpeed-up per spot (dense time / sweep time): median {statistics.median(ratios):.1f}x, "
        f"range {min(ratios):.1f}x to {max(ratios):.1f}x. Largest difference between the two average "
        f"strategies: {largest_gap:.1e} in one hand, {largest_weighted_gap:.1e} weighted by reach."
    )


if __name__ == "__main__":
    main()
