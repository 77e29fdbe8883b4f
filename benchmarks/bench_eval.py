"""Evaluation speed: hands per second of a duplicate match and of local best response, one process.

* Duplicate match ``random`` against ``call`` (target: at least 5,000 hands/s
  on one core), and ``heuristic`` against ``call`` for scale.
  Each figure is the median of ``--repeats`` runs of ``--pairs`` deal pairs
  (``2 × pairs`` hands), after one warm-up run that builds the evaluator tables.
* LBR against ``call`` and ``random``: ``--lbr-hands`` hands, one run each.

    python benchmarks/bench_eval.py                      # about a minute
    python benchmarks/bench_eval.py --pairs 2000 --repeats 3 --lbr-hands 100

Prints a Markdown table (pasted into docs/BENCHMARKS.md). Single process, one core.
"""

from __future__ import annotations

import platform
import statistics

import numpy as np
from common import script_parser

from pokerai.agents.spec import make_agent
from pokerai.eval.duplicate import duplicate_match
from pokerai.eval.lbr import lbr_match


def duplicate_rate(a: str, b: str, pairs: int, repeats: int) -> tuple[float, float]:
    """(median hands/s, mbb/hand of the last run)."""
    duplicate_match(make_agent(a), make_agent(b), min(pairs, 200), seed=99)  # warm-up
    rates, mbb = [], 0.0
    for repeat in range(repeats):
        result = duplicate_match(make_agent(a), make_agent(b), pairs, seed=repeat)
        rates.append(result.hands_per_second)
        mbb = result.mbb_per_hand
    return statistics.median(rates), mbb


def main() -> None:
    parser = script_parser(__doc__, pairs=5000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--heuristic-pairs", type=int, default=500)
    parser.add_argument("--lbr-hands", type=int, default=300)
    args = parser.parse_args()

    print(f"Python {platform.python_version()}, numpy {np.__version__}, {platform.machine()}, one process\n")
    print("| match | hands | hands/s (median) | mbb/hand (last run) |")
    print("|---|---:|---:|---:|")
    for a, b, pairs in (("random", "call", args.pairs), ("heuristic", "call", args.heuristic_pairs)):
        rate, mbb = duplicate_rate(a, b, pairs, args.repeats)
        print(f"| duplicate {a} vs {b} | {2 * pairs:,} | {rate:,.0f} | {mbb:+,.1f} |", flush=True)
    for target in ("call", "random", "raise", "allin"):
        result = lbr_match(make_agent(target), args.lbr_hands, seed=0)
        print(
            f"| LBR vs {target} | {args.lbr_hands:,} | {result.hands_per_second:,.1f} | "
            f"{result.mbb_per_hand:+,.1f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
