"""Tabular MCCFR speed: hold'em iterations and nodes per second, 1 and 2 threads; Leduc against solvers/.

Hold'em: the betting tree of ``--menu`` (a Deep CFR or tabular config's ``hunl.bets``; default
the full menu of ``configs/hunl_default.yaml``) on the card abstraction ``--abstraction``
(default ``configs/abstraction_default.yaml``, found in or built into the cache). Each row
deals ``--iterations`` deals (nine cards, eight bucket lookups, a showdown) and traverses
them once per player: ``threads`` 1 is the bit-reproducible kernel, 2 the lock-free parallel
one. "nodes" counts every node a traversal enters. A warm-up run first compiles or loads the
kernels, so the rows are the steady state. The table's memory is the regrets plus the strategy
sums (float32 each).

Leduc: the same kernel with identity buckets against ``pokerai.solvers.MCCFRSolver`` (external
sampling, one traversal per player per iteration) at equal iterations: seconds, their ratio,
and each one's exact exploitability; then both exploitability curves, and the kernel's with the
first round's jack and queen merged (:data:`pokerai.tabular.leduc.MERGED_JQ`), measured in its
own abstract game and in Leduc.

    OMP_NUM_THREADS=1 python benchmarks/bench_mccfr.py
    OMP_NUM_THREADS=1 python benchmarks/bench_mccfr.py --menu configs/hunl_tiny.yaml \
        --abstraction configs/abstraction_tiny.yaml
"""

from __future__ import annotations

import argparse
import platform
import time

import numpy as np
import yaml

from pokerai.abstraction.cache import cached_abstraction
from pokerai.config import load_config
from pokerai.games import LeducPoker
from pokerai.games.holdem import HUNLSettings
from pokerai.solvers import MCCFRSolver, exploitability
from pokerai.solvers.best_response import tree_of
from pokerai.tabular.leduc import IDENTITY, MERGED_JQ, bucketed_leduc, leduc_deals, leduc_policy
from pokerai.tabular.mccfr import TabularMCCFR
from pokerai.tabular.trainer import deal_buckets
from pokerai.tabular.tree import hunl_betting_tree, leduc_betting_tree


def hold_em(menu: str, abstraction_path: str, iterations: int) -> None:
    with open(menu) as stream:
        settings = load_config(yaml.safe_load(stream)["hunl"], HUNLSettings)
    game = settings.game()
    started = time.perf_counter()
    tree = hunl_betting_tree(game.config, game.bets)
    tree_seconds = time.perf_counter() - started
    abstraction, path, built = cached_abstraction(abstraction_path)
    counts = tuple(abstraction.num_buckets(street) for street in range(4))
    print(
        f"menu {menu}: {tree.num_nodes:,} nodes, {len(tree.decisions):,} decisions "
        f"(built in {tree_seconds:.2f} s)"
    )
    print(f"abstraction {abstraction_path} ({'built' if built else 'cached'}: {path}), buckets {counts}")
    print()
    print(
        "| threads | iterations | seconds | iterations/s | nodes/s | nodes/s per thread | deals | table MB |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for threads in (1, 2):
        solver = TabularMCCFR(tree, counts, seed=0)
        warm_buckets, warm_results = deal_buckets(abstraction, np.random.default_rng(99), 1_000)
        solver.run(warm_buckets, warm_results, threads=threads)  # compile or load the kernel
        solver = TabularMCCFR(tree, counts, seed=0)
        rng = np.random.default_rng(0)
        dealing = traversing = 0.0
        touched = 0
        done = 0
        while done < iterations:
            count = min(50_000, iterations - done)
            started = time.perf_counter()
            buckets, results = deal_buckets(abstraction, rng, count)
            dealt = time.perf_counter()
            touched += solver.run(buckets, results, threads=threads)
            traversing += time.perf_counter() - dealt
            dealing += dealt - started
            done += count
        total = dealing + traversing
        megabytes = (solver.regrets.nbytes + solver.strategy_sum.nbytes) / 2**20
        print(
            f"| {threads} | {iterations:,} | {total:.1f} | {iterations / total:,.0f} | "
            f"{touched / traversing:,.0f} | {touched / traversing / threads:,.0f} | {dealing / total:.0%} | "
            f"{megabytes:,.1f} |"
        )


CURVE = (1_000, 3_000, 10_000, 30_000, 100_000, 300_000)


def leduc(iterations: int) -> None:
    print()
    print(f"Leduc, {iterations:,} iterations (one traversal per player each), seed 0")
    print()
    print("| solver | seconds | exploitability |")
    print("|---|---:|---:|")
    tree = leduc_betting_tree()
    warm = TabularMCCFR(tree, IDENTITY.counts)
    warm.run(*leduc_deals(np.random.default_rng(1), 100, IDENTITY))
    started = time.perf_counter()
    solver = TabularMCCFR(tree, IDENTITY.counts, seed=0)
    solver.run(*leduc_deals(np.random.default_rng(0), iterations, IDENTITY))
    tabular_seconds = time.perf_counter() - started
    tabular_gap = exploitability(leduc_policy(solver, IDENTITY))
    print(f"| pokerai.tabular (deals included) | {tabular_seconds:.2f} | {tabular_gap:.4f} |")
    MCCFRSolver(LeducPoker(), "external", seed=1).run(100)
    started = time.perf_counter()
    reference = MCCFRSolver(LeducPoker(), "external", seed=0)
    reference.run(iterations)
    reference_seconds = time.perf_counter() - started
    reference_gap = exploitability(reference.average_policy())
    print(f"| pokerai.solvers mccfr-external | {reference_seconds:.2f} | {reference_gap:.4f} |")
    print()
    print(f"time ratio solvers / tabular: {reference_seconds / tabular_seconds:.2f}")


def leduc_curve(seeds: int) -> None:
    """Exploitability against iterations, mean over ``seeds`` seeds: the tabular kernel with identity
    buckets and the solvers' external sampling on Leduc; the tabular kernel with J and Q merged in the
    first round, measured in that abstract game and in Leduc."""
    abstract = tree_of(bucketed_leduc(MERGED_JQ))
    rows = {name: np.zeros(len(CURVE)) for name in ("tabular", "solvers", "merged_abstract", "merged_real")}
    for seed in range(seeds):
        exact = TabularMCCFR(leduc_betting_tree(), IDENTITY.counts, seed=seed)
        merged = TabularMCCFR(leduc_betting_tree(), MERGED_JQ.counts, seed=seed)
        reference = MCCFRSolver(LeducPoker(), "external", seed=seed)
        rng = np.random.default_rng(seed)
        done = 0
        for column, target in enumerate(CURVE):
            exact.run(*leduc_deals(rng, target - done, IDENTITY))
            merged.run(*leduc_deals(rng, target - done, MERGED_JQ))
            reference.run(target - done)
            done = target
            rows["tabular"][column] += exploitability(leduc_policy(exact, IDENTITY)) / seeds
            rows["solvers"][column] += exploitability(reference.average_policy()) / seeds
            rows["merged_abstract"][column] += (
                exploitability(leduc_policy(merged, MERGED_JQ, abstract)) / seeds
            )
            rows["merged_real"][column] += exploitability(leduc_policy(merged, MERGED_JQ)) / seeds
    print()
    print(f"Leduc exploitability (chips per game), mean over seeds 0..{seeds - 1}")
    print()
    print("| iterations | " + " | ".join(f"{target:,}" for target in CURVE) + " |")
    print("|---|" + "---:|" * len(CURVE))
    names = {
        "tabular": "pokerai.tabular, identity buckets",
        "solvers": "pokerai.solvers mccfr-external",
        "merged_abstract": "pokerai.tabular, J = Q preflop, in its abstract game",
        "merged_real": "pokerai.tabular, J = Q preflop, in Leduc",
    }
    for key, name in names.items():
        print(f"| {name} | " + " | ".join(f"{value:.4f}" for value in rows[key]) + " |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--menu", default="configs/hunl_default.yaml")
    parser.add_argument("--abstraction", default="configs/abstraction_default.yaml")
    parser.add_argument("--iterations", type=int, default=200_000)
    parser.add_argument("--leduc-iterations", type=int, default=100_000)
    parser.add_argument("--curve-seeds", type=int, default=3, help="seeds of the Leduc curve (0: skip it)")
    parser.add_argument("--skip-holdem", action="store_true")
    args = parser.parse_args()
    print(f"{platform.processor() or platform.machine()}, Python {platform.python_version()}")
    if not args.skip_holdem:
        hold_em(args.menu, args.abstraction, args.iterations)
    leduc(args.leduc_iterations)
    if args.curve_seeds:
        leduc_curve(args.curve_seeds)


if __name__ == "__main__":
    main()
