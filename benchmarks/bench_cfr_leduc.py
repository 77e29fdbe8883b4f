"""Full-tree CFR on Leduc: pokerai against OpenSpiel, in one run.

Measures iterations per second (iterations only; exploitability is evaluated
outside the timed region) and exploitability after 100 and 1,000 iterations
for vanilla CFR and CFR+ with alternating updates, in pokerai and in
OpenSpiel's C++ (pyspiel) and Python solvers; then the time pokerai's CFR+,
DCFR and PCFR+ need to reach exploitability 1e-3 and 1e-4.

    pip install -e ".[peers]"
    python benchmarks/bench_cfr_leduc.py            # about 5 minutes
    python benchmarks/bench_cfr_leduc.py --quick    # OpenSpiel Python: 100 iterations only

Prints Markdown tables (pasted into docs/BENCHMARKS.md). Single process, one core.
"""

from __future__ import annotations

import argparse
import functools
import platform
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from pokerai.games import LeducPoker
from pokerai.solvers import CFRSolver, exploitability, solve

CHECKPOINTS = (100, 1000)


def pokerai_rate(algorithm: str, iterations: int, repeats: int) -> float:
    """Median iterations per second of ``repeats`` fresh runs of ``iterations`` iterations."""
    rates = []
    for _ in range(repeats):
        solver = CFRSolver(LeducPoker(), algorithm)
        solver.run(0)  # load the compiled kernels outside the timing
        start = time.perf_counter()
        solver.run(iterations)
        rates.append(iterations / (time.perf_counter() - start))
    return statistics.median(rates)


def pokerai_curve(algorithm: str) -> list[float]:
    solver = CFRSolver(LeducPoker(), algorithm)
    values = []
    for t in CHECKPOINTS:
        solver.run(t - solver.iteration)
        values.append(exploitability(solver.average_policy()))
    return values


def openspiel_run(make: Callable[[], Any], checkpoints: tuple[int, ...], evaluate: Callable[[Any], float]
                  ) -> tuple[float, list[float]]:  # fmt: skip
    """(iterations per second, exploitability at each checkpoint) of an OpenSpiel solver."""
    solver = make()
    done, seconds, values = 0, 0.0, []
    for t in checkpoints:
        start = time.perf_counter()
        while done < t:
            solver.evaluate_and_update_policy()
            done += 1
        seconds += time.perf_counter() - start
        values.append(evaluate(solver.average_policy()))
    return done / seconds, values


def time_to_targets(algorithm: str, targets: tuple[float, ...], limit: int) -> list[tuple[int, float] | None]:
    """(iterations, seconds) when exploitability, checked every 10 iterations, first reaches each target."""
    result = solve(LeducPoker(), algorithm, limit, eval_every=10, target_exploitability=min(targets))
    reached: list[tuple[int, float] | None] = []
    for target in targets:
        hit = next(((i, s) for i, s, e in result.curve if e <= target), None)
        reached.append(hit)
    return reached


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--quick", action="store_true", help="run OpenSpiel's Python solvers for 100 iterations only"
    )
    parser.add_argument("--repeats", type=int, default=5, help="timing repeats for pokerai (median)")
    args = parser.parse_args()

    import pyspiel
    from open_spiel.python.algorithms import cfr as openspiel_cfr
    from open_spiel.python.algorithms import exploitability as openspiel_exploitability

    game = pyspiel.load_game("leduc_poker")
    print(f"machine: {platform.processor() or platform.machine()}, Python {platform.python_version()}, "
          f"numpy {np.__version__}, open_spiel {getattr(pyspiel, '__version__', '?')}\n")  # fmt: skip

    rows = []
    for algorithm, cpp, python in (
        ("cfr", pyspiel.CFRSolver, openspiel_cfr.CFRSolver),
        ("cfr+", pyspiel.CFRPlusSolver, openspiel_cfr.CFRPlusSolver),
    ):
        ours_rate = pokerai_rate(algorithm, 1000, args.repeats)
        ours_values = pokerai_curve(algorithm)
        cpp_rate, cpp_values = openspiel_run(
            functools.partial(cpp, game), CHECKPOINTS, functools.partial(pyspiel.exploitability, game)
        )
        python_checkpoints = CHECKPOINTS[:1] if args.quick else CHECKPOINTS
        python_rate, python_values = openspiel_run(
            functools.partial(python, game),
            python_checkpoints,
            functools.partial(openspiel_exploitability.exploitability, game),
        )
        rows.append((algorithm, "pokerai", ours_rate, ours_values, 1.0))
        rows.append((algorithm, "OpenSpiel C++", cpp_rate, cpp_values, ours_rate / cpp_rate))
        rows.append((algorithm, "OpenSpiel Python", python_rate, python_values, ours_rate / python_rate))

    print("| algorithm | implementation | iterations/s | pokerai speed-up | exploitability @100 | @1,000 |")
    print("|---|---|---:|---:|---:|---:|")
    for algorithm, name, rate, values, ratio in rows:
        cells = [f"{v:.12g}" for v in values] + ["(not run)"] * (len(CHECKPOINTS) - len(values))
        print(f"| {algorithm} | {name} | {rate:,.1f} | {ratio:,.1f}x | {cells[0]} | {cells[1]} |")
    for algorithm in ("cfr", "cfr+"):
        ours = next(r[3] for r in rows if r[0] == algorithm and r[1] == "pokerai")
        cpp = next(r[3] for r in rows if r[0] == algorithm and r[1] == "OpenSpiel C++")
        diffs = [abs(a - b) / b for a, b in zip(ours, cpp, strict=True)]
        print(f"\n{algorithm}: largest relative difference from OpenSpiel C++: {max(diffs):.1e}", end="")
    print("\n")

    targets = (1e-3, 1e-4)
    print("| algorithm | iterations to 1e-3 | seconds to 1e-3 | iterations to 1e-4 | seconds to 1e-4 |")
    print("|---|---:|---:|---:|---:|")
    for algorithm in ("cfr+", "dcfr", "pcfr+", "lcfr", "cfr"):
        reached = time_to_targets(algorithm, targets, limit=20_000)
        cells = []
        for hit in reached:
            cells += [f"{hit[0]:,}", f"{hit[1]:.3f}"] if hit else ["> 20,000", "-"]
        print(f"| {algorithm} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
