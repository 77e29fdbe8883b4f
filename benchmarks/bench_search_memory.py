"""Resident memory of a search agent over a long LBR match: flat, or growing hand by hand.

Plays ``--hands`` hands of local best response (Lisý & Bowling's menu: raises on the flop, turn
and river) against ``--spec``, each hand scored by AIVAT as ``compare_lbr.py --aivat`` does, in
one process (``lbr_match``), and prints the process's resident memory at each progress report
(every few hands). A search that freed its subgames only at the cyclic collector's full passes
grew by gigabytes within a few hundred hands here; run it with ``PYTHONPATH`` at a checkout of
the code before a change to compare.

    OMP_NUM_THREADS=1 python benchmarks/bench_search_memory.py --hands 150

Prints a Markdown table: hands played, seconds, resident GB now and at its highest so far.
Linux only (it reads ``/proc/self/statm``).
"""

from __future__ import annotations

import os
import resource
import time

from common import script_parser

from pokerai.agents.blueprint import BlueprintAgent
from pokerai.agents.spec import make_agent
from pokerai.eval.lbr import LBRConfig, lbr_match

PAGE = os.sysconf("SC_PAGE_SIZE")


def resident_gb() -> float:
    """This process's resident memory in GB."""
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * PAGE / 1e9


def highest_gb() -> float:
    """This process's highest resident memory so far in GB (Linux reports kilobytes)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / 1e9


def main() -> None:
    parser = script_parser(__doc__, hands=150, seed=764379)
    parser.add_argument("--spec", default="search:checkpoints/hunl_blueprint")
    args = parser.parse_args()
    target = make_agent(args.spec)
    if isinstance(target, BlueprintAgent):
        target.warm_up()
    print(f"{args.hands} LBR hands against {args.spec}, seed {args.seed}, AIVAT on\n")
    print("| hands | seconds | resident GB | highest GB |")
    print("|---:|---:|---:|---:|")
    print(f"| 0 | 0 | {resident_gb():.2f} | {highest_gb():.2f} |", flush=True)
    started = time.perf_counter()

    def report(done: int) -> None:
        seconds = time.perf_counter() - started
        print(f"| {done} | {seconds:.0f} | {resident_gb():.2f} | {highest_gb():.2f} |", flush=True)

    lbr_match(
        target, args.hands, seed=args.seed, lbr_config=LBRConfig(raise_streets=(1, 2, 3)),
        aivat=True, on_progress=report,
    )  # fmt: skip


if __name__ == "__main__":
    main()
