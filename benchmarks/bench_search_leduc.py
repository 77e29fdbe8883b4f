"""Real-time search on Leduc: exact exploitability of the search agent's policy against its blueprint's.

    python benchmarks/bench_search_leduc.py                      # CFR+ blueprints, ~3 minutes
    python benchmarks/bench_search_leduc.py --deep-cfr 100       # also a 100-iteration Deep CFR blueprint
    python benchmarks/bench_search_leduc.py --blueprints 10 30 --iterations 0 30 100
    python benchmarks/bench_search_leduc.py --blueprints 10 30 --deep-cfr 100 --iterations 100 \
        --settings safe_dl_blend --root decision round --floor 0 0.05   # round-start roots, floors

For each blueprint (tabular CFR+ after a few iterations: deliberately weak ones, and a
near-equilibrium one) and each search setting, the search runs at every public decision state
of Leduc (:meth:`pokerai.search.leduc.LeducSearch.policy`), and the exact exploitability
(NashConv / 2, chips per game) of the assembled policy is printed with the median and 95th
percentile time of one decision. Settings: safe (re-solving gadget) or unsafe root,
depth-limited (four continuation strategies) or blueprint (one) leaves at the end of the first
round, and the blend's denominator (``full_iterations``): twice the iterations run (the
default of ``LeducSearchConfig``: half search, half blueprint) or equal to them (pure search).
``--settings`` picks some of them by name. Each runs at every ``--root`` (the subgame rooted at
the decision, or at the start of its round with the searcher's earlier decisions in the round
frozen) and every ``--floor`` (the least factor an opponent's action puts on its range).
"""

from __future__ import annotations

import argparse
import itertools
import json
from pathlib import Path

import numpy as np

from pokerai.games.leduc import LeducPoker
from pokerai.search.leduc import ROOTS, LeducSearch, LeducSearchConfig
from pokerai.solvers import CFRSolver, TabularPolicy, exploitability

ROOT = Path(__file__).resolve().parents[1]
SETTINGS = {
    # name: (label, safe root, leaves, blend denominator as a multiple of the iterations)
    "safe_dl_blend": ("safe, depth-limited, blend 1/2", True, "depth_limited", 2),
    "safe_dl": ("safe, depth-limited", True, "depth_limited", 1),
    "safe_bp": ("safe, blueprint leaves", True, "blueprint", 1),
    "unsafe_dl": ("unsafe, depth-limited", False, "depth_limited", 1),
    "unsafe_bp": ("unsafe, blueprint leaves", False, "blueprint", 1),
}


def cfr_plus_blueprint(iterations: int) -> TabularPolicy:
    solver = CFRSolver(LeducPoker(), "cfr+")
    solver.run(iterations)
    return solver.average_policy()


def deep_cfr_blueprint(iterations: int) -> TabularPolicy:
    """The policy networks of ``configs/leduc_deepcfr_sampled.yaml`` after ``iterations`` iterations."""
    import tempfile

    from pokerai.deepcfr.trainer import DeepCFRTrainer, load_deepcfr_config, policy_table

    config = load_deepcfr_config(ROOT / "configs" / "leduc_deepcfr_sampled.yaml")
    with tempfile.TemporaryDirectory() as run_dir:
        trainer = DeepCFRTrainer(config, run_dir=Path(run_dir))
        for _ in range(iterations):
            trainer.run_iteration()
        trainer.train_policies()
        return policy_table(trainer)


def evaluate(
    blueprint: TabularPolicy,
    name: str,
    iterations: list[int],
    settings: list[str],
    roots: list[str],
    floors: list[float],
) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    base = float(exploitability(blueprint))
    print(f"\n{name}: exploitability {base:.4f}")
    print(
        f"  {'setting':30s} {'root':>8s} {'floor':>6s} {'iterations':>10s}"
        f" {'exploitability':>15s} {'median ms':>10s} {'p95 ms':>8s}"
    )
    for setting in settings:
        label, safe, leaves, blend = SETTINGS[setting]
        for root in roots:
            for floor, count in itertools.product(floors, iterations):
                if count == 0:
                    continue
                config = LeducSearchConfig(
                    iterations=count,
                    full_iterations=blend * count,
                    leaves=leaves,
                    safe=safe,
                    root=root,  # type: ignore[arg-type]
                    floor=floor,
                )
                search = LeducSearch(blueprint, config)
                policy = search.policy()
                times = np.array([solution.seconds for solution in search.solutions]) * 1000.0
                value = float(exploitability(policy))
                row = {
                    "blueprint": name,
                    "blueprint_exploitability": base,
                    "setting": label,
                    "root": root,
                    "floor": floor,
                    "iterations": count,
                    "exploitability": value,
                    "median_ms": float(np.median(times)),
                    "p95_ms": float(np.percentile(times, 95)),
                }
                rows.append(row)
                print(
                    f"  {label:30s} {root:>8s} {floor:6.3f} {count:10d} {value:15.4f}"
                    f" {row['median_ms']:10.1f} {row['p95_ms']:8.1f}",
                    flush=True,
                )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--blueprints", type=int, nargs="+", default=[10, 20, 30, 1000],
                        help="CFR+ iterations of each tabular blueprint")  # fmt: skip
    parser.add_argument("--iterations", type=int, nargs="+", default=[10, 30, 100, 300],
                        help="search iterations per decision")  # fmt: skip
    parser.add_argument("--deep-cfr", type=int, default=0, metavar="ITERATIONS",
                        help="also a Deep CFR blueprint after this many iterations (0: skip)")  # fmt: skip
    parser.add_argument("--settings", nargs="+", choices=list(SETTINGS), default=list(SETTINGS),
                        help="search settings to run (default: all)")  # fmt: skip
    parser.add_argument("--root", nargs="+", choices=list(ROOTS), default=["decision"],
                        help="where each subgame is rooted: the decision, or its round's start")  # fmt: skip
    parser.add_argument("--floor", type=float, nargs="+", default=[0.0],
                        help="least factor an opponent's action puts on its range, in [0, 1)")  # fmt: skip
    parser.add_argument("--json", type=Path, help="write the rows here")
    args = parser.parse_args()
    for floor in args.floor:
        if not 0.0 <= floor < 1.0:
            parser.error(f"--floor {floor} is not in [0, 1)")
    grid = (args.iterations, args.settings, args.root, args.floor)
    rows: list[dict[str, object]] = []
    for count in args.blueprints:
        rows += evaluate(cfr_plus_blueprint(count), f"CFR+ {count} iterations", *grid)
    if args.deep_cfr > 0:
        rows += evaluate(deep_cfr_blueprint(args.deep_cfr), f"Deep CFR {args.deep_cfr} iterations", *grid)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main()
