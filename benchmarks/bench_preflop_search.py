"""Time preflop search (``search:PATH?preflop=1``): the equity matrix, then solves at three preflop spots.

The spots: the button's first decision, the big blind facing a pot-size open
(to 3 bb), and the button facing a pot-size 3-bet (to 9 bb). Each is solved
from scratch (no cache) with the given budget; the table gives the seconds,
the CFR+ iterations the budget allowed, and the tree's nodes and hands.

    OMP_NUM_THREADS=1 python benchmarks/bench_preflop_search.py --blueprint checkpoints/hunl_tiny_v1
"""

from __future__ import annotations

import argparse
import time

import torch

from pokerai.deepcfr.export import Blueprint
from pokerai.engine.state import Action, ActionKind, HUNLState
from pokerai.search.preflop import preflop_equity_matrix, solve_preflop

SPOTS = {
    "button, first decision": [],
    "big blind, facing an open to 3 bb": [(ActionKind.RAISE, 300)],
    "button, facing a 3-bet to 9 bb": [(ActionKind.RAISE, 300), (ActionKind.RAISE, 900)],
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blueprint", default="checkpoints/hunl_tiny_v1")
    parser.add_argument("--threshold", type=float, default=0.3)
    parser.add_argument("--budgets-ms", default="1000,5000", help="comma-separated solve budgets")
    parser.add_argument("--max-raises", type=int, default=2)
    args = parser.parse_args()
    torch.set_num_threads(1)
    blueprint = Blueprint.load(args.blueprint)
    started = time.perf_counter()
    preflop_equity_matrix()
    seconds = time.perf_counter() - started
    print(f"equity matrix: {seconds:.1f} s (once per process; numba compiles its kernel once, cached)\n")
    print("| spot | budget (ms) | seconds | iterations | nodes | hands |")
    print("|---|---:|---:|---:|---:|---:|")
    for budget in (float(text) for text in args.budgets_ms.split(",")):
        for name, actions in SPOTS.items():
            state = HUNLState.new(blueprint.game.config, 0, deck=list(range(9)))
            for kind, amount in actions:
                assert state.to_act is not None
                state.apply(Action(state.to_act, kind, amount))
            solution = solve_preflop(
                blueprint,
                state,
                iterations=100_000,
                time_budget_s=budget / 1000.0,
                threshold=args.threshold,
                max_raises=args.max_raises,
            )
            sizes = f"{solution.iterations} | {solution.num_nodes} | {solution.num_hands}"
            print(f"| {name} | {budget:g} | {solution.seconds:.2f} | {sizes} |")


if __name__ == "__main__":
    main()
