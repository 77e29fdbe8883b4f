"""Decision time of search at every street: whole hands against an opponent, timed per street.

Each agent plays ``--hands`` seeded hands against ``--opponent`` (hand ``i`` dealt from
``default_rng([seed, i])``, the agent on the button in even hands) and every decision of the
agent is timed: ``agent.act(observation, rng)``, from the observation to the action, so the
street pipeline's solves of its own earlier decisions are cached as they are in play. The
search agent (``--spec``, by default the default bot, ``search:checkpoints/hunl_blueprint``) is
compared in the same run with the blueprint it searches from (``--peer``), on the same deals.

The solves stop on their iteration counts, as in a match (``drop_time_budgets``), so the table is
what a decision at those counts costs. With ``--timed`` they keep their time budgets, as in
``pokerai play``, and the table gives the iterations the budgets run: the defaults' counts are
their medians on 2 idle cores.

    OMP_NUM_THREADS=1 python benchmarks/bench_street_search.py --hands 40
    OMP_NUM_THREADS=1 python benchmarks/bench_street_search.py --hands 40 --timed
    OMP_NUM_THREADS=1 python benchmarks/bench_street_search.py --hands 40 --timed --opponent lbr

With ``--opponent lbr`` the opponent is local best response in Lisý & Bowling's menu, and the
iterations count every solve, LBR's questions included (the spots whose figures matter most).

Prints a Markdown table: per agent and street, the decisions timed, the median, 95th
percentile and largest milliseconds, and the 5th percentile and median CFR+ iterations of the
street pipeline's solves. One process, one torch thread.
"""

from __future__ import annotations

import argparse
import platform
import time
from collections import defaultdict

import numpy as np
import torch

from pokerai.agents.base import Agent, Observation
from pokerai.agents.blueprint import BlueprintAgent
from pokerai.agents.search import SearchAgent
from pokerai.agents.spec import make_agent
from pokerai.engine.state import HUNLState, Street
from pokerai.eval.lbr import LBR_MENUS, LocalBestResponse

DEFAULT_SPEC = "search:checkpoints/hunl_blueprint"
"""The default bot: the flop, turn and river searched within a budget over the shipped blueprint."""
DEFAULT_PEER = "blueprint:checkpoints/hunl_blueprint"
"""The shipped blueprint alone, which the default bot searches from."""


def play(agent: BlueprintAgent, opponent: Agent, hands: int, seed: int) -> dict[int, list[float]]:
    """Milliseconds of each of ``agent``'s decisions, by street, over ``hands`` seeded hands."""
    times: dict[int, list[float]] = defaultdict(list)
    for hand in range(hands):
        rng = np.random.default_rng([seed, hand])
        state = HUNLState.new(agent.blueprint.game.config, hand % 2, rng=rng)
        seat = 0
        agent.begin_hand(seat, hand % 2)
        opponent.begin_hand(1 - seat, hand % 2)
        while not state.is_over:
            observation = Observation.from_state(state)
            if state.to_act == seat:
                started = time.perf_counter()
                action = agent.act(observation, rng)
                times[state.street].append(1000.0 * (time.perf_counter() - started))
            else:
                action = opponent.act(observation, rng)
            state.apply(action)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--spec", default=DEFAULT_SPEC)
    parser.add_argument("--peer", default=DEFAULT_PEER)
    parser.add_argument("--opponent", default="heuristic", help="an agent spec, or lbr: local best response")
    parser.add_argument("--hands", type=int, default=40)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--timed", action="store_true", help="keep the solves' time budgets, as in play")
    args = parser.parse_args()
    torch.set_num_threads(1)
    print(
        f"Python {platform.python_version()}, numpy {np.__version__}, torch {torch.__version__} (1 thread), "
        f"{platform.machine()}; {args.hands} hands against {args.opponent}, seed {args.seed}\n"
    )
    print("| agent | street | decisions | median ms | p95 ms | max ms | p5 iterations | median iterations |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for label, spec in (("search", args.spec), ("peer", args.peer)):
        agent = make_agent(spec)
        if not isinstance(agent, BlueprintAgent):
            raise SystemExit(f"{spec} is not a blueprint or search agent")
        if not args.timed:
            agent.drop_time_budgets()
        agent.warm_up()
        opponent = (
            LocalBestResponse(agent, LBR_MENUS["lisy-bowling"])
            if args.opponent == "lbr"
            else make_agent(args.opponent)
        )
        times = play(agent, opponent, args.hands, args.seed)
        iterations: dict[int, list[int]] = defaultdict(list)
        if isinstance(agent, SearchAgent):
            for stat in agent.stats:
                iterations[stat.street].append(stat.iterations)
        for street in Street:
            values = times.get(street, [])
            if not values:
                continue
            counts = iterations[street]
            spread = f"{np.percentile(counts, 5):.0f} | {np.median(counts):.0f}" if counts else "– | –"
            print(
                f"| {label} | {street.name.lower()} | {len(values)} | {np.median(values):.0f} | "
                f"{np.percentile(values, 95):.0f} | {max(values):.0f} | {spread} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
