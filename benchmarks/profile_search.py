"""Where a search decision's time goes: equity, tree and leaves, buckets, CFR+, the rest, by street.

Plays ``--hands`` seeded hands of the search agent (``--spec``, by default the default bot)
against ``--opponent`` as ``bench_street_search.py`` does, its solves stopping on their iteration
counts, and times the phases of every street solve by wrapping the functions that
:func:`pokerai.search.street.prepare_street` and :func:`~pokerai.search.street.solve_street` call:

* ``equity``: the check-down matrices of the street and of its leaves' next cards (``make_payoffs``);
* ``leaves``: the leaf rollouts, valued by blueprint play over sampled next cards;
* ``tree``: building the street's tree, leaves excluded;
* ``buckets``: merging hands into buckets (k-means) and the bucketed game;
* ``CFR+``: the iterations (``solve``);
* ``rest``: the ranges, the blend and everything else of the decision.

    OMP_NUM_THREADS=1 python benchmarks/profile_search.py --hands 30 --seed 5

Prints a Markdown table: per street, the solves, the median seconds of a decision's search and
each phase's share of the total. One process, one torch thread.
"""

from __future__ import annotations

import argparse
import time
from collections import defaultdict
from collections.abc import Callable
from typing import Any

import numpy as np
import torch

import pokerai.search.payoffs as payoffs_module
import pokerai.search.street as street_module
from pokerai.agents.base import Observation
from pokerai.agents.search import SearchAgent
from pokerai.agents.spec import make_agent
from pokerai.engine.state import HUNLState, Street

PHASES = ("equity", "leaves", "tree", "buckets", "CFR+", "rest")
DEFAULT_SPEC = "search:checkpoints/hunl_blueprint"

_spent: dict[str, float] = defaultdict(float)


def timed(name: str, function: Callable[..., Any]) -> Callable[..., Any]:
    """``function``, adding its seconds to phase ``name``."""

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            _spent[name] += time.perf_counter() - started

    return wrapper


def instrument() -> None:
    """Wrap the phases' functions where :mod:`pokerai.search.street` and the payoffs look them up."""
    street_module.make_payoffs = timed("equity+", street_module.make_payoffs)
    street_module.build_street_tree = timed("tree+", street_module.build_street_tree)
    payoffs_module.RolloutPayoffs.leaf = timed("leaves", payoffs_module.RolloutPayoffs.leaf)  # type: ignore[method-assign]
    street_module.hand_buckets = timed("buckets", street_module.hand_buckets)
    street_module.bucketed_subgame = timed("buckets", street_module.bucketed_subgame)
    street_module.solve = timed("CFR+", street_module.solve)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--spec", default=DEFAULT_SPEC)
    parser.add_argument("--opponent", default="heuristic")
    parser.add_argument("--hands", type=int, default=30)
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args()
    torch.set_num_threads(1)
    agent = make_agent(args.spec)
    if not isinstance(agent, SearchAgent):
        raise SystemExit(f"{args.spec} is not a search agent")
    agent.drop_time_budgets()
    agent.warm_up()
    instrument()
    opponent = make_agent(args.opponent)
    phases: dict[int, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    totals: dict[int, list[float]] = defaultdict(list)
    for hand in range(args.hands):
        rng = np.random.default_rng([args.seed, hand])
        state = HUNLState.new(agent.blueprint.game.config, hand % 2, rng=rng)
        while not state.is_over:
            observation = Observation.from_state(state)
            if state.to_act != 0:
                state.apply(opponent.act(observation, rng))
                continue
            _spent.clear()
            searches = agent.searches_run
            started = time.perf_counter()
            action = agent.act(observation, rng)
            seconds = time.perf_counter() - started
            if agent.searches_run > searches:
                spent = phases[state.street]
                spent["leaves"] += _spent["leaves"]
                spent["equity"] += _spent["equity+"]
                spent["tree"] += _spent["tree+"] - _spent["leaves"]
                spent["buckets"] += _spent["buckets"]
                spent["CFR+"] += _spent["CFR+"]
                named = sum(_spent[name] for name in ("equity+", "tree+", "buckets", "CFR+"))
                spent["rest"] += seconds - named
                totals[state.street].append(seconds)
            state.apply(action)
    print(f"{args.spec}, {args.hands} hands against {args.opponent}, seed {args.seed}\n")
    print("| street | searches | median s | " + " | ".join(PHASES) + " |")
    print("|---|---:|---:|" + "---:|" * len(PHASES))
    for street in (Street.FLOP, Street.TURN, Street.RIVER):
        if not totals[street]:
            continue
        whole = sum(totals[street])
        shares = " | ".join(f"{phases[street][name] / whole:.0%}" for name in PHASES)
        print(
            f"| {street.name.lower()} | {len(totals[street])} | {np.median(totals[street]):.2f} | {shares} |"
        )


if __name__ == "__main__":
    main()
