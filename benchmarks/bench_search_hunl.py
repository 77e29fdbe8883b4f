"""River search decision time: the search agent at a few time budgets against the blueprint it refines.

The river decisions come from seeded hands of the blueprint against itself
(``--threshold`` applied, sampled actions): every river decision of those
hands until ``--decisions`` are collected. Each agent answers every decision
once, from a fresh agent (so every search decision runs a solve); the time is
that of ``agent.decision(observation)``, the whole decision (replay, beliefs,
tree, solve and blend for search; replay and one network call for the
blueprint). One warm-up decision per agent is not timed.

    OMP_NUM_THREADS=1 python benchmarks/bench_search_hunl.py        # about 1 minute
    OMP_NUM_THREADS=1 python benchmarks/bench_search_hunl.py --budgets 75,300,1000 --decisions 60
    OMP_NUM_THREADS=1 python benchmarks/bench_search_hunl.py --budgets 65,300 --decisions 60 --safe

Prints a Markdown table: median and 95th-percentile milliseconds per decision,
the median CFR+ iterations a solve ran and the median subgame size (nodes, and
hands: the combinations either player may hold). Single process; torch runs
``--threads`` threads (default 1) and ``OMP_NUM_THREADS=1`` keeps numpy's
matrix products on one core too. (On a busy two-core machine a batched network
call with two torch threads was measured 25 times slower than with one.)
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time

import numpy as np
import torch

from pokerai.agents.base import Observation
from pokerai.agents.blueprint import BlueprintAgent
from pokerai.agents.search import SearchAgent
from pokerai.deepcfr.export import Blueprint
from pokerai.engine.state import HUNLState, Street
from pokerai.search.config import RiverSearch, SearchConfig


def street_decisions(
    blueprint: Blueprint, count: int, threshold: float, seed: int, street: int = Street.RIVER
) -> list[Observation]:
    """The first ``count`` decisions on ``street`` (the river by default) of seeded blueprint self-play."""
    agent = BlueprintAgent(blueprint, threshold=threshold)
    observations: list[Observation] = []
    hand = 0
    while len(observations) < count:
        rng = np.random.default_rng([seed, hand])
        state = HUNLState.new(blueprint.game.config, hand % 2, rng=rng)
        hand += 1
        while not state.is_over and len(observations) < count:
            observation = Observation.from_state(state)
            if state.street == street:
                observations.append(observation)
            state.apply(agent.act(observation, rng))
    return observations


def percentile(values: list[float], fraction: float) -> float:
    return float(np.percentile(np.asarray(values), 100.0 * fraction))


def time_agent(
    agent: BlueprintAgent, observations: list[Observation]
) -> tuple[list[float], list[int], list[int], list[int]]:
    """Milliseconds per decision, and for a search agent the iterations, nodes and hands of each solve."""
    agent.decision(observations[0])  # warm-up: evaluator tables, torch kernels
    milliseconds: list[float] = []
    iterations: list[int] = []
    nodes: list[int] = []
    hands: list[int] = []
    for observation in observations:
        started = time.perf_counter()
        agent.decision(observation)
        milliseconds.append(1000.0 * (time.perf_counter() - started))
        if isinstance(agent, SearchAgent):
            solution = agent.river_solution(observation)  # cached: the solve just run
            iterations.append(solution.iterations)
            nodes.append(solution.num_nodes)
            hands.append(solution.num_hands)
    return milliseconds, iterations, nodes, hands


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--blueprint", default="checkpoints/hunl_tiny_v1")
    parser.add_argument("--decisions", type=int, default=40)
    parser.add_argument("--budgets", default="75,300,1000", help="search time budgets in ms, comma-separated")
    defaults = SearchConfig().river
    parser.add_argument("--iterations", type=int, default=defaults.iterations)
    parser.add_argument("--max-raises", type=int, default=defaults.max_raises)
    parser.add_argument("--threshold", type=float, default=0.3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=1, help="torch threads")
    parser.add_argument("--safe", action="store_true", help="also time the safe (gadget) search")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)

    blueprint = Blueprint.load(args.blueprint)
    observations = street_decisions(blueprint, args.decisions, args.threshold, args.seed)
    print(
        f"Python {platform.python_version()}, numpy {np.__version__}, torch {torch.__version__} "
        f"({args.threads} thread), {platform.machine()}, one process; "
        f"{len(observations)} river decisions, threshold {args.threshold}, max_raises {args.max_raises}\n"
    )
    print("| agent | iterations | budget ms | median ms | p95 ms | iterations run (median) | nodes | hands |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    milliseconds, *_ = time_agent(BlueprintAgent(blueprint, threshold=args.threshold), observations)
    print(
        f"| blueprint | - | - | {statistics.median(milliseconds):.1f} | "
        f"{percentile(milliseconds, 0.95):.1f} | - | - | - |",
        flush=True,
    )
    budgets = [float(text) for text in args.budgets.split(",")]
    settings = [(False, budget) for budget in budgets] + [(True, budget) for budget in budgets if args.safe]
    for safe, budget in settings:
        river = RiverSearch(iterations=args.iterations, budget_ms=budget, max_raises=args.max_raises)
        agent = SearchAgent(blueprint, SearchConfig(river=river, safe=safe), threshold=args.threshold)
        milliseconds, iterations, nodes, hands = time_agent(agent, observations)
        name = "search, safe" if safe else "search"
        print(
            f"| {name} | {args.iterations} | {budget:g} | {statistics.median(milliseconds):.1f} | "
            f"{percentile(milliseconds, 0.95):.1f} | {statistics.median(iterations):g} | "
            f"{statistics.median(nodes):g} | {statistics.median(hands):g} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
