"""Full-tree CFR on Leduc: pokerai against OpenSpiel, in one run.

Measures iterations per second (iterations only; exploitability is evaluated
outside the timed region) and exploitability after 100 and 1,000 iterations
for vanilla CFR and CFR+ with alternating updates, in pokerai and in
OpenSpiel's C++ (pyspiel) and Python solvers; then the time pokerai's CFR+,
DCFR, PCFR+, LCFR and CFR need to reach exploitability 1e-3 and 1e-4.

    pip install -e ".[peers]"
    python benchmarks/bench_cfr_leduc.py            # about 5 minutes
    python benchmarks/bench_cfr_leduc.py --quick    # OpenSpiel Python: 100 iterations only
    python benchmarks/bench_cfr_leduc.py --plot docs/img/leduc_exploitability_vs_time.png

Prints Markdown tables (pasted into docs/BENCHMARKS.md). Single process, one core. With
``--plot`` it also draws exploitability against the seconds of iterations (both log scales):
OpenSpiel's solvers at the iteration counts of ``CURVE_CHECKPOINTS``, pokerai's from the
time-to-target runs (exploitability checked every 10 iterations).
"""

from __future__ import annotations

import argparse
import functools
import platform
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from pokerai.games import LeducPoker
from pokerai.solvers import CFRSolver, exploitability, solve

CHECKPOINTS = (100, 1000)
# Iteration counts at which the OpenSpiel and pokerai curves are evaluated (a superset of CHECKPOINTS).
CURVE_CHECKPOINTS = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000)

# One point of a convergence curve: (iterations, seconds of iterations, exploitability).
CurvePoint = tuple[int, float, float]


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


def pokerai_curve(algorithm: str) -> list[CurvePoint]:
    """Exploitability of pokerai's average policy at each of ``CURVE_CHECKPOINTS``, iterations timed."""
    solver = CFRSolver(LeducPoker(), algorithm)
    solver.run(0)  # load the compiled kernels outside the timing
    seconds, curve = 0.0, []
    for t in CURVE_CHECKPOINTS:
        start = time.perf_counter()
        solver.run(t - solver.iteration)
        seconds += time.perf_counter() - start
        curve.append((t, seconds, exploitability(solver.average_policy())))
    return curve


def openspiel_run(make: Callable[[], Any], checkpoints: tuple[int, ...], evaluate: Callable[[Any], float]
                  ) -> tuple[float, list[CurvePoint]]:  # fmt: skip
    """(iterations per second, curve at each checkpoint) of an OpenSpiel solver; evaluation untimed."""
    solver = make()
    done, seconds, curve = 0, 0.0, []
    for t in checkpoints:
        start = time.perf_counter()
        while done < t:
            solver.evaluate_and_update_policy()
            done += 1
        seconds += time.perf_counter() - start
        curve.append((t, seconds, float(evaluate(solver.average_policy()))))
    return done / seconds, curve


def at_checkpoints(curve: list[CurvePoint]) -> list[float]:
    """The exploitabilities of ``curve`` at the table's ``CHECKPOINTS`` that it reached."""
    by_iteration = {iterations: value for iterations, _, value in curve}
    return [by_iteration[t] for t in CHECKPOINTS if t in by_iteration]


def time_to_targets(
    algorithm: str, targets: tuple[float, ...], limit: int
) -> tuple[list[tuple[int, float] | None], list[CurvePoint]]:
    """(iterations, seconds) when exploitability, checked every 10 iterations, first reaches each
    target; and the whole curve of those checks."""
    result = solve(LeducPoker(), algorithm, limit, eval_every=10, target_exploitability=min(targets))
    reached: list[tuple[int, float] | None] = []
    for target in targets:
        hit = next(((i, s) for i, s, e in result.curve if e <= target), None)
        reached.append(hit)
    return reached, list(result.curve)


def plot_curves(curves: dict[str, list[CurvePoint]], path: Path, title: str) -> None:
    """Exploitability against seconds of iterations, both on log scales, one line per solver."""
    from plots import label_axes, new_figure, save_figure  # benchmarks/plots.py, beside this script

    figure, axes = new_figure()
    styles = {"pokerai": ("-", None), "OpenSpiel C++": ("--", "o"), "OpenSpiel Python": (":", "s")}
    for label, curve in curves.items():
        points = [(seconds, value) for _, seconds, value in curve if seconds > 0 and value > 0]
        if not points:
            continue
        linestyle, marker = next(style for name, style in styles.items() if label.startswith(name))
        axes.plot(*zip(*points, strict=True), linestyle=linestyle, marker=marker, markersize=4, label=label)
    axes.set_xscale("log")
    axes.set_yscale("log")
    label_axes(
        axes,
        "seconds of iterations (one core; exploitability evaluation not timed)",
        "exploitability (NashConv / 2, chips per game)",
        title,
    )
    save_figure(figure, path)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--quick", action="store_true", help="run OpenSpiel's Python solvers for 100 iterations only"
    )
    parser.add_argument("--repeats", type=int, default=5, help="timing repeats for pokerai (median)")
    parser.add_argument(
        "--plot", type=Path, metavar="PATH", help="also draw exploitability against seconds into this PNG"
    )
    args = parser.parse_args()

    import pyspiel
    from open_spiel.python.algorithms import cfr as openspiel_cfr
    from open_spiel.python.algorithms import exploitability as openspiel_exploitability

    game = pyspiel.load_game("leduc_poker")
    print(f"machine: {platform.processor() or platform.machine()}, Python {platform.python_version()}, "
          f"numpy {np.__version__}, open_spiel {getattr(pyspiel, '__version__', '?')}\n")  # fmt: skip

    rows = []
    curves: dict[str, list[CurvePoint]] = {}
    for algorithm, cpp, python in (
        ("cfr", pyspiel.CFRSolver, openspiel_cfr.CFRSolver),
        ("cfr+", pyspiel.CFRPlusSolver, openspiel_cfr.CFRPlusSolver),
    ):
        ours_rate = pokerai_rate(algorithm, 1000, args.repeats)
        ours_values = at_checkpoints(pokerai_curve(algorithm))
        cpp_rate, cpp_curve = openspiel_run(
            functools.partial(cpp, game), CURVE_CHECKPOINTS, functools.partial(pyspiel.exploitability, game)
        )
        python_checkpoints = tuple(t for t in CURVE_CHECKPOINTS if t <= (100 if args.quick else 1000))
        python_rate, python_curve = openspiel_run(
            functools.partial(python, game),
            python_checkpoints,
            functools.partial(openspiel_exploitability.exploitability, game),
        )
        cpp_values, python_values = at_checkpoints(cpp_curve), at_checkpoints(python_curve)
        curves[f"OpenSpiel C++ {algorithm.upper()}"] = cpp_curve
        curves[f"OpenSpiel Python {algorithm.upper()}"] = python_curve
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
        reached, curve = time_to_targets(algorithm, targets, limit=20_000)
        curves[f"pokerai {algorithm.upper()}"] = curve
        cells = []
        for hit in reached:
            cells += [f"{hit[0]:,}", f"{hit[1]:.3f}"] if hit else ["> 20,000", "-"]
        print(f"| {algorithm} | " + " | ".join(cells) + " |")

    if args.plot is not None:
        order = sorted(curves, key=lambda label: (not label.startswith("pokerai"), label))
        plot_curves(
            {label: curves[label] for label in order},
            args.plot,
            "Full-tree CFR on Leduc hold'em: pokerai against OpenSpiel (one run)",
        )


if __name__ == "__main__":
    main()
