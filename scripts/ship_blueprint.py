#!/usr/bin/env python3
"""Make a shipped blueprint folder from a tabular run's snapshot: quantised strategy, config and the
card abstraction it plays on, deflated, so that the folder plays on any machine without the cache.

    python scripts/ship_blueprint.py runs/hunl_blueprint__mccfr__0__*/snapshots/000040000000 \\
        pokerai/checkpoints/hunl_blueprint

It reloads the written folder, checks that it plays the snapshot's strategy exactly, and prints
each file's size and the load time. An ``abstraction.npz`` already in the folder with the same
tables is kept byte for byte, so that shipping a later snapshot adds only its strategy to git.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from pokerai.abstraction.buckets import AbstractionError, CardAbstraction
from pokerai.tabular.blueprint import ABSTRACTION_FILE, TabularBlueprint, TabularBlueprintError


def same_abstraction(file: Path, abstraction: CardAbstraction) -> bool:
    """Whether ``file`` holds ``abstraction``'s tables (False when it is missing or unreadable)."""
    try:
        carried = CardAbstraction.load(file)
    except (AbstractionError, OSError):
        return False
    return carried.config == abstraction.config and all(
        np.array_equal(mine, theirs) for mine, theirs in zip(carried.tables, abstraction.tables, strict=True)
    )


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("snapshot", type=Path, help="a tabular blueprint folder (a run's snapshots/<deals>/)")
    parser.add_argument("dest", type=Path, help="the folder to write (e.g. pokerai/checkpoints/<name>)")
    args = parser.parse_args()
    try:
        blueprint = TabularBlueprint.load(args.snapshot)
    except TabularBlueprintError as error:
        parser.error(str(error))
    keep = same_abstraction(args.dest / ABSTRACTION_FILE, blueprint.abstraction)
    blueprint.save(args.dest, abstraction=not keep, quantised=True)
    started = time.perf_counter()
    shipped = TabularBlueprint.load(args.dest)
    seconds = time.perf_counter() - started
    if not np.array_equal(shipped.strategy, blueprint.strategy):
        print(f"{args.dest}: the reloaded strategy differs from {args.snapshot}", file=sys.stderr)
        return 1
    total = 0
    for file in sorted(args.dest.iterdir()):
        size = file.stat().st_size
        total += size
        print(f"{file}: {size / 1e6:.1f} MB")
    print(f"{args.dest}: {total / 1e6:.1f} MB in all, loaded in {seconds:.1f} s, plays the snapshot exactly")
    return 0


if __name__ == "__main__":
    sys.exit(main())
