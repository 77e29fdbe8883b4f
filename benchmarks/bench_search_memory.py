"""Resident memory of a search agent over a long LBR match: flat, or growing hand by hand.

Plays ``--hands`` hands of local best response (Lisý & Bowling's menu: raises on the flop, turn
and river) against ``--spec``, each hand scored by AIVAT as ``compare_lbr.py --aivat`` does, in
one process, and prints the process's resident memory every ``--every`` hands. A search that
freed its subgames only at the cyclic collector's full passes grew by gigabytes within a few
hundred hands here; run it from a checkout of the code before a change to compare.

    OMP_NUM_THREADS=1 python benchmarks/bench_search_memory.py --hands 150

Prints a Markdown table: hands played, seconds, resident GB now and at its highest so far.
Linux only (it reads ``/proc/self/statm``).
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from pokerai.agents.blueprint import BlueprintAgent
from pokerai.agents.spec import make_agent
from pokerai.engine.state import HUNLConfig
from pokerai.eval.aivat import AIVATConfig, hand_aivat
from pokerai.eval.duplicate import AIVAT_STREAM
from pokerai.eval.lbr import LBRConfig, LocalBestResponse, play_lbr_hand

PAGE = os.sysconf("SC_PAGE_SIZE")


def resident_gb() -> float:
    """This process's resident memory in GB."""
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * PAGE / 1e9


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--spec", default="search:checkpoints/hunl_blueprint")
    parser.add_argument("--hands", type=int, default=150)
    parser.add_argument("--every", type=int, default=25)
    parser.add_argument("--seed", type=int, default=764379)
    args = parser.parse_args()
    target = make_agent(args.spec)
    if isinstance(target, BlueprintAgent):
        target.warm_up()
    exploiter = LocalBestResponse(target, LBRConfig(raise_streets=(1, 2, 3)))
    config, aivat = HUNLConfig(), AIVATConfig()
    print(f"{args.hands} LBR hands against {args.spec}, seed {args.seed}, AIVAT on\n")
    print("| hands | seconds | resident GB | highest GB |")
    print("|---:|---:|---:|---:|")
    started, highest = time.perf_counter(), resident_gb()
    print(f"| 0 | 0 | {highest:.2f} | {highest:.2f} |", flush=True)
    for hand in range(args.hands):
        state, me, agents = play_lbr_hand(target, exploiter, config, args.seed, hand)
        hand_aivat(state, me, agents, np.random.default_rng([args.seed, hand, AIVAT_STREAM]), aivat)
        now = resident_gb()
        highest = max(highest, now)
        if (hand + 1) % args.every == 0 or hand + 1 == args.hands:
            seconds = time.perf_counter() - started
            print(f"| {hand + 1} | {seconds:.0f} | {now:.2f} | {highest:.2f} |", flush=True)


if __name__ == "__main__":
    main()
