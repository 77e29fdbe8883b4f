"""Deep CFR on Leduc: pokerai against OpenSpiel's PyTorch ``DeepCFRSolver``, same clock, same traversals.

    pip install -e ".[dev,peers]"
    python benchmarks/bench_deepcfr_leduc.py                       # 40 s and 100 s budgets, ~8 minutes
    python benchmarks/bench_deepcfr_leduc.py --budgets 20 40 100 300
    python benchmarks/bench_deepcfr_leduc.py --budgets 40 100 600 --no-open-spiel --config my.yaml
    python benchmarks/bench_deepcfr_leduc.py --workers 1 2        # pokerai in process and on 2 Ray workers
    python benchmarks/bench_deepcfr_leduc.py --config configs/leduc_deepcfr_sampled.yaml --no-open-spiel
    python benchmarks/bench_deepcfr_leduc.py --budgets 40 100 --plot docs/img/leduc_deepcfr_vs_openspiel.png

Both solvers run in this process, one after the other, on the same CPU threads. Each runs
iteration by iteration; at every budget (seconds of training) the policy network is trained
(its time counts) and the exact exploitability of the policy network is computed (its time
does not count). OpenSpiel's loop is the body of ``DeepCFRSolver.solve`` driven one iteration
at a time, with the hyperparameters of its ``examples/deep_cfr_pytorch.py``; pokerai uses
``configs/leduc_deepcfr.yaml`` (chance enumerated in each traversal, grouped fits) unless ``--config`` names
others, e.g. ``configs/leduc_deepcfr_sampled.yaml`` (external sampling, as OpenSpiel does).
Exploitability is NashConv / 2 for both (chips per game). ``--plot PATH`` also draws each
solver's evaluation points (one per budget) as exploitability against training seconds.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import torch

from pokerai.deepcfr.trainer import DeepCFRTrainer, load_deepcfr_config, policy_exploitability

ROOT = Path(__file__).resolve().parents[1]


def run_pokerai(
    budgets: list[float], run_dir: Path, config_path: Path, workers: int = 1, label: str = "pokerai"
) -> list[dict[str, Any]]:
    """pokerai's rows; with ``workers`` > 1 the traversals run on a local Ray pool (started untimed)."""
    config = load_deepcfr_config(config_path)
    config = load_deepcfr_config({**_plain(config), "iterations": 10**6, "checkpoint_every": 10**6})
    pool = None
    if workers > 1:
        from pokerai.deepcfr.distributed import RayTraversalPool

        pool = RayTraversalPool(config, workers)
    try:
        return _run_pokerai(budgets, DeepCFRTrainer(config, run_dir, pool=pool), workers, label)
    finally:
        if pool is not None:
            pool.close()


def _run_pokerai(
    budgets: list[float], trainer: DeepCFRTrainer, workers: int, label: str
) -> list[dict[str, Any]]:
    solver = label if workers == 1 else f"{label}, {workers} Ray workers"
    rows = []
    clock = 0.0
    for budget in budgets:
        while clock < budget:
            start = time.perf_counter()
            trainer.run_iteration()
            clock += time.perf_counter() - start
        start = time.perf_counter()
        trainer.train_policies()
        clock += time.perf_counter() - start
        rows.append(
            {
                "solver": solver,
                "budget": budget,
                "seconds": clock,
                "iterations": trainer.iteration,
                "traversals": trainer.total_traversals // 2,
                "exploitability": policy_exploitability(trainer),
            }
        )
        print(f"pokerai: {rows[-1]}", file=sys.stderr, flush=True)
    return rows


def _plain(config: Any) -> dict[str, Any]:
    from pokerai.config import config_to_dict

    return config_to_dict(config)


def run_open_spiel(budgets: list[float]) -> list[dict[str, Any]]:
    import pyspiel
    from open_spiel.python import policy
    from open_spiel.python.algorithms import exploitability
    from open_spiel.python.pytorch import deep_cfr

    game = pyspiel.load_game("leduc_poker")
    solver = deep_cfr.DeepCFRSolver(
        game,
        policy_network_layers=(64,),
        advantage_network_layers=(64,),
        num_iterations=10**6,
        num_traversals=375,
        reinitialize_advantage_networks=True,
        learning_rate=1e-3,
        batch_size_advantage=256,
        batch_size_strategy=256,
        memory_capacity=100_000,
        policy_network_train_steps=2500,
        advantage_network_train_steps=375,
        seed=0,
    )
    rows = []
    clock = 0.0
    iterations = 0
    for budget in budgets:
        while clock < budget:
            start = time.perf_counter()
            for player in range(2):
                for _ in range(solver._num_traversals):
                    solver._traverse_game_tree(solver._root_node, player)
                solver._reinitialize_advantage_network(player)
                solver._learn_advantage_network(player)
            solver._iteration += 1
            iterations += 1
            clock += time.perf_counter() - start
        start = time.perf_counter()
        solver._reinitialize_policy_network()
        solver._learn_strategy_network()
        clock += time.perf_counter() - start
        average = policy.tabular_policy_from_callable(game, solver.action_probabilities)
        rows.append(
            {
                "solver": "open_spiel",
                "budget": budget,
                "seconds": clock,
                "iterations": iterations,
                "traversals": iterations * solver._num_traversals,
                "exploitability": float(exploitability.exploitability(game, average)),
            }
        )
    return rows


def plot_rows(rows: list[dict[str, Any]], path: Path) -> None:
    """One line per solver through its evaluation points: exploitability (log) against training seconds."""
    from plots import label_axes, new_figure, save_figure  # benchmarks/plots.py, beside this script

    figure, axes = new_figure()
    for solver in dict.fromkeys(row["solver"] for row in rows):
        points = sorted((row["seconds"], row["exploitability"], row["iterations"]) for row in rows
                        if row["solver"] == solver)  # fmt: skip
        seconds, values, _ = zip(*points, strict=True)
        label = "OpenSpiel DeepCFRSolver (PyTorch)" if solver == "open_spiel" else f"{solver} Deep CFR"
        axes.plot(seconds, values, marker="o", label=label)
        for x, y, count in points:
            axes.annotate(f"{count:,} it.", (x, y), textcoords="offset points", xytext=(5, 5), fontsize=8)
    axes.set_yscale("log")
    label_axes(
        axes,
        "training seconds (traversals, network fits, policy fit; evaluation not timed)",
        "exploitability of the policy network (NashConv / 2)",
        "Deep CFR on Leduc hold'em: pokerai against OpenSpiel (one run)",
    )
    save_figure(figure, path)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--budgets", type=float, nargs="+", default=[40.0, 100.0], help="seconds of training")
    parser.add_argument("--run-dir", type=Path, default=Path("/tmp/pokerai_bench_deepcfr"))
    parser.add_argument(
        "--config",
        type=Path,
        nargs="+",
        default=[ROOT / "configs" / "leduc_deepcfr.yaml"],
        help="one pokerai run per config (and per --workers value)",
    )
    parser.add_argument("--no-open-spiel", action="store_true", help="run pokerai only")
    parser.add_argument(
        "--workers", type=int, nargs="+", default=[1], help="one pokerai run per value: its traversal workers"
    )
    parser.add_argument(
        "--plot", type=Path, metavar="PATH", help="also draw exploitability against seconds into this PNG"
    )
    args = parser.parse_args()
    budgets = sorted(args.budgets)
    if not args.no_open_spiel:
        # Fail before the pokerai runs, not after them, when the peer is missing (".[peers]").
        import open_spiel.python.pytorch.deep_cfr  # noqa: F401
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads\n")
    rows = []
    for config in args.config:
        label = "pokerai" if len(args.config) == 1 else f"pokerai ({config.stem})"
        for workers in args.workers:
            run_dir = args.run_dir / f"{config.stem}_workers{workers}"
            rows += run_pokerai(budgets, run_dir, config, workers, label)
    if not args.no_open_spiel:
        rows += run_open_spiel(budgets)
    print("| solver | budget | training seconds | iterations | traversals per player | exploitability |")
    print("|---|---:|---:|---:|---:|---:|")
    for row in sorted(rows, key=lambda row: (row["budget"], row["solver"])):
        print(
            f"| {row['solver']} | {row['budget']:.0f} s | {row['seconds']:.1f} | {row['iterations']:,} "
            f"| {row['traversals']:,} | {row['exploitability']:.4f} |"
        )
    by_budget: dict[float, dict[str, float]] = {}
    for row in rows:
        by_budget.setdefault(row["budget"], {})[row["solver"]] = row["exploitability"]
    print()
    for budget, values in sorted(by_budget.items()):
        if "open_spiel" not in values:
            continue
        for solver, value in sorted(values.items()):
            if solver != "open_spiel":
                ratio = values["open_spiel"] / value
                print(f"- at {budget:.0f} s: OpenSpiel / {solver} exploitability = {ratio:.2f}")
    if args.plot is not None:
        plot_rows(rows, args.plot)


if __name__ == "__main__":
    main()
