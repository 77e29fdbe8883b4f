"""Turn search decision time: depth-limited turn solves on the shipped blueprint, by setting.

The turn decisions come from seeded hands of the blueprint against itself
(``--threshold`` applied, sampled actions): every turn decision of those hands
until ``--decisions`` are collected. Each setting answers every decision once
with a fresh agent; the public states are all distinct, so every decision runs a solve; the time is that of
``agent.decision(observation)``: replay, beliefs, the turn tree, the leaf
rollouts, the solve and the blend. One warm-up decision per setting is not
timed.

    OMP_NUM_THREADS=1 python benchmarks/bench_turn_search.py                  # about 3 minutes
    OMP_NUM_THREADS=1 python benchmarks/bench_turn_search.py --decisions 40 --turn-budgets 250,1000

Prints a Markdown table: median and 95th-percentile milliseconds per decision,
the median milliseconds spent building the subgame (the tree, its leaf rollouts and, for a new
board, the shared matrices), CFR+ iterations run, leaves,
subgame nodes and hands. Single process, one torch thread by default.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time

import numpy as np
import torch
from bench_search_hunl import percentile, street_decisions  # benchmarks/ is on the path of a script

from pokerai.agents.search import SearchAgent
from pokerai.deepcfr.export import Blueprint
from pokerai.engine.state import Street
from pokerai.search.config import SearchConfig, TurnLeaves, TurnSearch
from pokerai.search.turn import TurnSolution


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--blueprint", default="checkpoints/hunl_tiny_v1")
    parser.add_argument("--decisions", type=int, default=30)
    parser.add_argument("--turn-budgets", default="1000", help="turn solve budgets in ms, comma-separated")
    parser.add_argument("--threshold", type=float, default=0.3)
    parser.add_argument("--river-cards", type=int, default=8)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=1, help="torch threads")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)

    blueprint = Blueprint.load(args.blueprint)
    observations = street_decisions(blueprint, args.decisions, args.threshold, args.seed, Street.TURN)
    print(
        f"Python {platform.python_version()}, numpy {np.__version__}, torch {torch.__version__} "
        f"({args.threads} thread), {platform.machine()}, one process; {len(observations)} turn decisions, "
        f"threshold {args.threshold}, {args.river_cards} river cards per leaf\n"
    )
    print(
        "| leaves | safe | turn budget ms | median ms | p95 ms | tree and leaves ms (median) "
        "| iterations (median) | leaves | nodes | hands |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for budget in [float(text) for text in args.turn_budgets.split(",")]:
        settings: tuple[tuple[TurnLeaves, bool], ...] = (
            ("depth_limited", False),
            ("blueprint", False),
            ("depth_limited", True),
        )
        for leaves, safe in settings:
            # The turn searched with the river's iterations (as the spec's turn=1 does).
            turn = TurnSearch(
                iterations=SearchConfig().river.iterations,
                budget_ms=budget,
                leaves=leaves,
                river_cards=args.river_cards,
            )
            config = SearchConfig(turn=turn, safe=safe)
            # A warm-up: tables, torch kernels.
            SearchAgent(blueprint, config, threshold=args.threshold).decision(observations[0])
            agent = SearchAgent(blueprint, config, threshold=args.threshold)
            milliseconds: list[float] = []
            solutions: list[TurnSolution] = []
            for observation in observations:
                started = time.perf_counter()
                agent.decision(observation)
                milliseconds.append(1000.0 * (time.perf_counter() - started))
                solutions.append(agent.turn_solution(observation))  # the solve just timed, cached
            assert agent.turn_solves == len(observations), "every decision ran exactly one solve"
            print(
                f"| {leaves} | {'yes' if safe else 'no'} | {budget:g} | "
                f"{statistics.median(milliseconds):.0f} | {percentile(milliseconds, 0.95):.0f} | "
                f"{1000 * statistics.median(s.leaf_seconds for s in solutions):.0f} | "
                f"{statistics.median(s.iterations for s in solutions):g} | "
                f"{statistics.median(s.leaves for s in solutions):g} | "
                f"{statistics.median(s.num_nodes for s in solutions):g} | "
                f"{statistics.median(s.num_hands for s in solutions):g} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
