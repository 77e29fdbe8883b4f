"""Logit QRE tracing, λ from 0 to 10⁴, on Kuhn and Leduc: pokerai against Gambit, in one run.

pokerai traces the agent logit QRE branch with its predictor–corrector
(``pokerai.solvers.qre.trace_logit_qre``); Gambit (pygambit) traces the same
behaviour-strategy logit QRE branch with ``pygambit.qre.logit_solve_lambda``.
Both are asked for the same λ values; the wall time of the whole trace is
timed (pokerai's kernel compilation and both games' construction are not).
For each λ the table also gives the largest difference between the two
policies and each side's exploitability.

    pip install -e ".[peers]"          # pygambit builds from source (about 7 minutes)
    python benchmarks/bench_qre.py                 # Kuhn and Leduc
    python benchmarks/bench_qre.py --games kuhn    # Kuhn only

Prints Markdown tables (pasted into docs/BENCHMARKS.md). Single process.
"""

from __future__ import annotations

import argparse
import platform
import time

import numpy as np

from pokerai.games import make_game
from pokerai.solvers import exploitability
from pokerai.solvers.gambit import gambit_policy, to_gambit
from pokerai.solvers.qre import trace_logit_qre

LAMBDAS = (1.0, 10.0, 100.0, 1000.0, 10_000.0)


def run(name: str) -> list[str]:
    game = make_game(name)
    trace_logit_qre(game, [0.1])  # compile the kernels outside the timing
    start = time.perf_counter()
    ours = trace_logit_qre(game, LAMBDAS)  # default tolerance 1e-9 at every returned point
    our_seconds = time.perf_counter() - start
    lines = [f"### {name}", ""]
    # Printed before Gambit starts: its Leduc trace can take many minutes.
    print(f"pokerai {name}: {our_seconds:.2f} s, {ours.steps} steps, residuals "
          f"{', '.join(f'{p.residual:.1e}' for p in ours.points)}", flush=True)  # fmt: skip
    try:
        import pygambit as gbt
    except ImportError:
        gbt = None
    if gbt is None:
        lines.append(f"pokerai: {our_seconds:.2f} s ({ours.steps} steps); pygambit is not installed.")
    else:
        gambit, order = to_gambit(game)
        start = time.perf_counter()
        theirs = gbt.qre.logit_solve_lambda(gambit, lam=list(LAMBDAS), use_strategic=False)
        their_seconds = time.perf_counter() - start
        lines += [
            "| implementation | seconds, λ 0 → 10⁴ | ratio |",
            "|---|---:|---:|",
            f"| pokerai ({ours.steps} steps) | {our_seconds:.2f} | 1.0x |",
            f"| Gambit {gbt.__version__} | {their_seconds:.2f} | {their_seconds / our_seconds:.1f}x |",
            "",
            "| λ | pokerai residual | pokerai exploitability | Gambit λ | Gambit exploitability "
            "| max \\|P_pokerai − P_Gambit\\| |",
            "|---:|---:|---:|---:|---:|---:|",
        ]
        for point, profile in zip(ours.points, theirs, strict=True):
            policy = gambit_policy(game, profile, order)
            gap = float(np.max(np.abs(policy.probabilities - point.policy.probabilities)))
            lines.append(f"| {point.rationality:g} | {point.residual:.1e} | {point.exploitability:.3g} | "
                         f"{profile.lam:.6g} | {exploitability(policy):.3g} | {gap:.1e} |")  # fmt: skip
    return [*lines, ""]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default="kuhn,leduc", help="comma-separated: kuhn, leduc")
    args = parser.parse_args()
    print(f"{platform.machine()}, Python {platform.python_version()}, numpy {np.__version__}\n")
    for name in args.games.split(","):
        print("\n".join(run(name)), flush=True)


if __name__ == "__main__":
    main()
