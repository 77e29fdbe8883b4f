"""Card abstraction: build time and peak memory, bucket quality, lookup throughput.

    python benchmarks/bench_abstraction.py                  # tiny and default builds, ~8 minutes
    python benchmarks/bench_abstraction.py --skip-default   # tiny only, ~2 minutes
    python benchmarks/bench_abstraction.py --artifacts runs/abstraction_tiny.npz runs/abstraction_default.npz

* **Build**: each config is built by ``pokerai abstraction build`` in a fresh subprocess, which
  reports its own wall time and peak resident memory (``ru_maxrss``), numba compilation
  included on a cold cache.
* **Quality**, per street, on hands dealt uniformly at random (seeded): the mean EMD from
  each hand to its bucket's EMD centroid (the weighted coordinate-wise median of the bucket's
  CDFs), against the same for a random assignment with the same bucket sizes. Flop and turn
  hands are represented by their exact 50-bin equity histograms (every run-out), whatever
  the config sampled; preflop and river hands by a point mass at their exact equity /
  strength, for which the EMD is the absolute difference.
* **Lookups**: ``CardAbstraction.bucket`` on random hands (card checks, suit-isomorphic
  index, table gather), vectorised, per street.

Prints Markdown tables (pasted into docs/BENCHMARKS.md).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import numpy.typing as npt

from pokerai.abstraction.buckets import CardAbstraction
from pokerai.abstraction.clustering import histogram_cdfs, random_assignment, within_cluster_emd
from pokerai.abstraction.histograms import STRENGTH_SCALE, RiverStrength, equity_histograms, river_strength
from pokerai.abstraction.isomorphism import STREETS, street_indexer

ROOT = Path(__file__).resolve().parents[1]
_CHILD = """
import json, resource, sys, time
from pokerai.cli.main import main
start = time.perf_counter()
status = main(["abstraction", "build", "--config", sys.argv[1], "--out", sys.argv[2], "--json"])
print(json.dumps({"status": status, "wall": time.perf_counter() - start,
                  "peak_gib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20}))
"""


def build(config: Path, out: Path) -> dict[str, float]:
    """Build in a fresh process; returns wall seconds, peak GiB and the per-phase seconds."""
    completed = subprocess.run(
        [sys.executable, "-c", _CHILD, str(config), str(out)], capture_output=True, text=True, check=True
    )
    lines = completed.stdout.strip().splitlines()
    report, summary = json.loads(lines[0]), json.loads(lines[-1])
    assert summary["status"] == 0, completed.stderr
    return {"wall": summary["wall"], "peak_gib": summary["peak_gib"], **report["build_seconds"]}


def scalar_quality(
    values: npt.NDArray[np.float64], buckets: npt.NDArray[np.uint8], rng: np.random.Generator
) -> tuple[float, float]:
    """Mean |value - bucket median| for the real and a size-preserving random bucketing."""

    def spread(labels: npt.NDArray[np.integer]) -> float:
        total = 0.0
        for label in np.unique(labels):
            members = values[labels == label]
            total += float(np.abs(members - np.median(members)).sum())
        return total / values.size

    return spread(buckets), spread(random_assignment(buckets, rng))


def quality(
    abstraction: CardAbstraction, strength: RiverStrength, hands: int, seed: int
) -> dict[str, tuple[float, float]]:
    rng = np.random.default_rng(seed)
    result: dict[str, tuple[float, float]] = {}
    for street in range(4):
        indexer = street_indexer(street)
        deals = np.argsort(rng.random((hands, 52)), axis=1)[:, : indexer.num_cards].astype(np.uint8)
        indices = indexer.index(deals)
        buckets = abstraction.bucket_of_index(street, indices)
        if street == 0:
            values = strength.preflop_equity[indices]
            result[STREETS[street]] = scalar_quality(values, buckets, rng)
        elif street == 3:
            values = strength.numerators[indices].astype(np.float64) / STRENGTH_SCALE
            result[STREETS[street]] = scalar_quality(values, buckets, rng)
        else:
            cdfs = histogram_cdfs(equity_histograms(street, indices, strength.numerators, num_bins=50))
            weights = np.ones(hands)
            k = abstraction.num_buckets(street)
            real = within_cluster_emd(cdfs, weights, buckets.astype(np.int32), k)
            shuffled = within_cluster_emd(cdfs, weights, random_assignment(buckets, rng), k)
            result[STREETS[street]] = (real, shuffled)
    return result


def lookups(abstraction: CardAbstraction, hands: int, seed: int) -> dict[str, float]:
    rng = np.random.default_rng(seed)
    rates: dict[str, float] = {}
    for street in range(4):
        size = street_indexer(street).num_cards
        deals = np.argsort(rng.random((hands, 52)), axis=1)[:, :size].astype(np.uint8)
        hole, board = deals[:, :2], deals[:, 2:]
        abstraction.bucket(street, hole[:10], board[:10])  # compile / warm up
        best = float("inf")
        for _ in range(3):
            start = time.perf_counter()
            abstraction.bucket(street, hole, board)
            best = min(best, time.perf_counter() - start)
        rates[STREETS[street]] = hands / best
    return rates


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--skip-default", action="store_true", help="build only the tiny config")
    parser.add_argument("--artifacts", nargs="+", type=Path, help="measure these files instead of building")
    parser.add_argument("--hands", type=int, default=20_000, help="hands per street for quality")
    parser.add_argument("--lookups", type=int, default=2_000_000, help="hands per street for throughput")
    args = parser.parse_args()

    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs\n")
    artifacts: list[Path] = []
    with tempfile.TemporaryDirectory() as folder:
        if args.artifacts:
            artifacts = list(args.artifacts)
        else:
            names = ["tiny"] if args.skip_default else ["tiny", "default"]
            print("| config | wall time | peak memory | river strength | flop | turn |")
            print("|---|---:|---:|---:|---:|---:|")
            for name in names:
                out = Path(folder) / f"{name}.npz"
                figures = build(ROOT / "configs" / f"abstraction_{name}.yaml", out)
                print(
                    f"| {name} | {figures['wall']:.0f} s | {figures['peak_gib']:.2f} GiB "
                    f"| {figures['river_strength']:.0f} s | {figures['flop']:.0f} s "
                    f"| {figures['turn']:.0f} s |"
                )
                artifacts.append(out)
        print()
        strength = river_strength()
        for path in artifacts:
            abstraction = CardAbstraction.load(path)
            print(
                f"### {abstraction.config.name}: within-bucket mean EMD "
                f"({args.hands:,} random hands per street)\n"
            )
            print("| street | buckets | abstraction | random, same sizes | ratio | lookups/s |")
            print("|---|---:|---:|---:|---:|---:|")
            scores = quality(abstraction, strength, args.hands, seed=1)
            rates = lookups(abstraction, args.lookups, seed=2)
            for street, name in enumerate(STREETS):
                real, shuffled = scores[name]
                print(
                    f"| {name} | {abstraction.num_buckets(street)} | {real:.4f} | {shuffled:.4f} "
                    f"| {real / shuffled:.2f} | {rates[name] / 1e6:.1f} M |"
                )
            print()


if __name__ == "__main__":
    main()
