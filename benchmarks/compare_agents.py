"""Several agents against one opponent on the same deals, with paired differences.

Each agent A_i plays a duplicate match against ``--b`` with the same seed and
number of pairs, so every A_i meets the same cards (and, with mirrored
randomness, the opponent's same random numbers). The difference between two
agents is then measured pair by pair, which removes most of the luck of the
deal: its 95% interval is usually far narrower than either agent's own.

    OMP_NUM_THREADS=1 python benchmarks/compare_agents.py --b heuristic --pairs 1000 --workers 2 \\
        "blueprint:checkpoints/hunl_tiny?threshold=0.3" "search:checkpoints/hunl_tiny?threshold=0.3"

Prints a Markdown table: each agent's mbb/hand against B with its 95% interval,
and its paired difference from the first agent (mbb/hand, 95% interval over
pairs, normal approximation), with the seconds each match took.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import numpy.typing as npt
import torch

from pokerai.agents.spec import make_agent
from pokerai.eval.duplicate import duplicate_match, mean_ci95


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("agents", nargs="+", metavar="SPEC", help="agents A; the first is the reference")
    parser.add_argument("--b", required=True, metavar="SPEC", help="the opponent of every A")
    parser.add_argument("--pairs", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args()
    torch.set_num_threads(1)

    print(f"{args.pairs} duplicate pairs against {args.b}, seed {args.seed}, {args.workers} workers\n")
    print("| agent A | mbb/hand for A, 95% CI | minus the first agent, paired 95% CI | seconds |")
    print("|---|---|---|---:|")
    reference: npt.NDArray[np.float64] | None = None
    for spec in args.agents:
        started = time.perf_counter()
        result = duplicate_match(
            make_agent(spec), make_agent(args.b), args.pairs, seed=args.seed, workers=args.workers,
            names=(spec, args.b),
        )  # fmt: skip
        seconds = time.perf_counter() - started
        scale = 1000.0 / result.big_blind / result.hands_per_pair
        per_pair = result.a_results.sum(axis=1) * scale  # mbb/hand of each pair
        estimate = result.estimate
        own = f"{estimate.mean:+,.0f} [{estimate.low:+,.0f}, {estimate.high:+,.0f}]"
        if reference is None:
            reference = per_pair
            difference = "–"
        else:
            delta = mean_ci95(per_pair - reference)
            difference = f"{delta.mean:+,.0f} [{delta.low:+,.0f}, {delta.high:+,.0f}]"
        print(f"| `{spec}` | {own} | {difference} | {seconds:.0f} |", flush=True)


if __name__ == "__main__":
    main()
