"""Would a turn solve to the river's end, with every card and no buckets, fit the search's budget?

Question: the default bot's turn search stops at depth-limited leaves valued by blueprint rollouts
over 8 river cards, merges hands into 200 buckets and cannot raise a bet. The spot solver
(``pokerai spot``, Discounted CFR over the whole turn and river, every river card, every hand)
needs none of that. How long does it take on the turns the default bot meets, with the
blueprint's menu (a third of the pot, the pot, two pots and all-in, up to ``--raise-cap`` bets a
street)?

The spots are LBR's first pot-size turn bets in an ``experiments/lbr_leaks.py`` file (as
``bet_defence.py`` finds them). At each, the searcher's range at the turn's start (what it played)
and the opponent's (the blueprint's model, floored as the search floors it) go to
:func:`~pokerai.solvers.postflop.spot.build_spot` as per-combination weights, with the pot and
stacks at the turn's start; the solve runs until ``--target`` % of the pot (checked every 10
iterations) on ``--threads`` threads.

    OMP_NUM_THREADS=1 python experiments/turn_spot_timing.py --leaks L.jsonl --spots 10 --raise-cap 2

Prints, per spot, the tree's nodes, the memory, the iterations run (at most ``--max-iterations``),
the exploitability reached, the seconds, and the default bot's turn solve time at the same spot
(700 CFR+ iterations, one thread).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
import numpy.typing as npt

from pokerai.agents.search import SearchAgent
from pokerai.agents.spec import make_agent
from pokerai.engine.cards import format_card, rank_of
from pokerai.engine.state import HUNLState
from pokerai.search.beliefs import history_prefix, opponent_range
from pokerai.search.combos import ALL_COMBOS
from pokerai.solvers.postflop.spot import SpotConfig, build_spot, format_bytes, solve_spot

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from bet_defence import BASE, spots
from common import parse_single_threaded, script_parser


def range_text(weights: npt.NDArray[np.float64]) -> str:
    """``weights`` over the 1,326 combinations as a range of single combos (largest weight 1)."""
    scaled = weights / weights.max()
    items = []
    for index in np.flatnonzero(scaled >= 1e-4):
        first, second = (int(card) for card in ALL_COMBOS[index])
        if rank_of(second) > rank_of(first):
            first, second = second, first
        items.append(f"{format_card(first)}{format_card(second)}:{scaled[index]:.4f}")
    return ",".join(items)


def turn_config(agent: SearchAgent, state: HUNLState, raise_cap: int, bets: str, raises: str) -> SpotConfig:
    """The spot of ``state``'s turn from its start: ranges, pot, stack and the blueprint's menu."""
    start = history_prefix(state, state.street_starts[state.street])
    searcher = state.to_act
    assert searcher is not None
    own, _ = agent.own_range(state)
    threshold, floor = agent.config.opponent_threshold, agent.config.floor
    opponent = opponent_range(agent.blueprint, state, 1 - searcher, threshold=threshold, floor=floor)
    ranges = {searcher: own, 1 - searcher: opponent}
    out_of_position = 1 - state.button  # the big blind acts first after the flop
    return SpotConfig(
        board="".join(format_card(card) for card in start.board),
        oop=range_text(ranges[out_of_position]),
        ip=range_text(ranges[1 - out_of_position]),
        pot=int(start.pot),
        stack=int(min(start.stacks)),
        bets=bets,
        raises=raises,
        raise_cap=raise_cap,
    )


def main() -> None:
    parser = script_parser(__doc__)
    parser.add_argument("--leaks", required=True, type=Path, help="a file that lbr_leaks.py wrote")
    parser.add_argument("--spots", type=int, default=10)
    parser.add_argument("--raise-cap", type=int, default=2, help="most bets and raises a street")
    parser.add_argument("--target", type=float, default=0.5, help="exploitability target, % of the pot")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--max-iterations", type=int, default=300)
    parser.add_argument("--bets", default="33%,100%,200%,a", help="postflop-solver's bet sizes")
    parser.add_argument("--raises", default="33%,100%,200%,a", help="postflop-solver's raise sizes")
    args = parse_single_threaded(parser)
    agent = make_agent(BASE)
    assert isinstance(agent, SearchAgent)
    agent.drop_time_budgets()
    print("| spot | board | pot | stack | nodes | memory | iterations | exploit., % pot | s | search, s |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for number, state in enumerate(spots(args.leaks, args.spots, "turn")):
        config = turn_config(agent, state, args.raise_cap, args.bets, args.raises)
        spot = build_spot(config, threads=args.threads)
        print(f"spot {number}: {spot.num_nodes:,} nodes, {format_bytes(spot.memory_bytes)}", flush=True)
        solution = solve_spot(
            spot, target_pct=args.target, max_iterations=args.max_iterations, threads=args.threads
        )
        fresh = make_agent(BASE)
        assert isinstance(fresh, SearchAgent)
        fresh.drop_time_budgets()
        fresh.own_range(state)  # the earlier streets' solves, not timed
        started = time.perf_counter()
        fresh.policy(state)
        searched = time.perf_counter() - started
        print(
            f"| {number} | {config.board} | {config.pot} | {config.stack} | {spot.num_nodes:,} | "
            f"{format_bytes(spot.memory_bytes)} | {solution.iterations} | "
            f"{solution.exploitability_pct:.2f} | {solution.seconds:.1f} | {searched:.2f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
