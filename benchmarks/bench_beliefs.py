"""Time of the river search's beliefs: every past decision asked afresh, against cached preflop answers.

``public_beliefs`` replays the public history and asks the blueprint's policy
network, once per past decision, for the acting player's probabilities over the
hands still in its range. A preflop decision does not depend on the board, so
its answers for all 1,326 combinations are kept per preflop history
(``pokerai.search.beliefs.PREFLOP_CACHE_SIZE`` of them) and reused by later hands.
This script times both ways on the same river decisions, in the same run:

* **fresh**: every past decision is a network call over the hands still in the
  range, with no cache;
* **cached**: the search agent's way, the cache shared across the decisions, as
  in a match (the first hand of each preflop history fills it). Each cached pass
  starts from an empty cache and prints its misses.

The passes run fresh, cached, cached, fresh, so neither way always goes first, and
the script checks that all give the same beliefs. Self-play meets the blueprint's
own preflop sizes, often repeated; an opponent with off-menu sizes meets more
distinct histories, so fewer hits. The river decisions come from
seeded self-play of the Deep CFR blueprint (``common.river_spots``).

    OMP_NUM_THREADS=1 python benchmarks/bench_beliefs.py        # about 10 seconds
    OMP_NUM_THREADS=1 python benchmarks/bench_beliefs.py --decisions 200 --seed 3
"""

from __future__ import annotations

import platform
import statistics
import time
from typing import Any
from unittest import mock

import numpy as np
import numpy.typing as npt
import torch
from common import add_river_spot_arguments, parse_single_threaded, river_spots, script_parser

from pokerai.deepcfr.export import Blueprint
from pokerai.search import beliefs as belief_module
from pokerai.search.combos import NUM_COMBOS


def main() -> None:
    parser = script_parser(__doc__, seed=11)
    add_river_spot_arguments(parser, decisions=100)
    args = parse_single_threaded(parser)
    blueprint, states = river_spots(args.blueprint, args.decisions, args.threshold, args.seed)

    original = belief_module.combo_probabilities
    misses = [0]  # network calls over all 1,326 combinations: preflop histories not in the cache

    def fresh(model: Blueprint, state: Any, candidates: npt.NDArray[np.int64]) -> Any:
        return original(model, state, candidates, 0.0)

    def counted(model: Blueprint, state: Any, combos: npt.NDArray[np.int64], threshold: float = 0.0) -> Any:
        misses[0] += len(combos) == NUM_COMBOS
        return original(model, state, combos, threshold)

    def timed(cached: bool) -> tuple[list[float], list[npt.NDArray[np.float64]], int]:
        """One pass over the decisions; a cached pass starts from an empty cache."""
        milliseconds: list[float] = []
        beliefs: list[npt.NDArray[np.float64]] = []
        way = belief_module._history_probabilities if cached else fresh
        with mock.patch.object(belief_module, "_history_probabilities", way):
            # A warm-up: torch's kernels.
            belief_module.public_beliefs(blueprint, states[0], threshold=args.threshold)
            belief_module._PREFLOP_PROBABILITIES.pop(blueprint, None)
            misses[0] = 0
            for state in states:
                started = time.perf_counter()
                beliefs.append(belief_module.public_beliefs(blueprint, state, threshold=args.threshold))
                milliseconds.append(1000.0 * (time.perf_counter() - started))
        return milliseconds, beliefs, misses[0]

    passes = []
    with mock.patch.object(belief_module, "combo_probabilities", counted):
        for cached in (False, True, True, False):  # both orders, so neither way always runs first
            passes.append((cached, *timed(cached)))
    reference = passes[0][2]
    gap = max(
        float(np.abs(a - b).max())
        for _, _, beliefs, _ in passes
        for a, b in zip(beliefs, reference, strict=True)
    )
    actions = statistics.median(len(state.history) for state in states)
    print(
        f"Python {platform.python_version()}, numpy {np.__version__}, torch {torch.__version__} (1 thread), "
        f"{platform.machine()}, one process; {len(states)} river decisions of {args.blueprint}, "
        f"threshold {args.threshold}, seed {args.seed}; a median of {actions:g} past actions\n"
    )
    print("| pass | beliefs | median ms | mean ms | p95 ms | preflop cache misses |")
    print("|---:|---|---:|---:|---:|---:|")
    for number, (cached, values, _, missed) in enumerate(passes, start=1):
        name = "cached preflop answers" if cached else "fresh network calls"
        print(
            f"| {number} | {name} | {statistics.median(values):.1f} | {statistics.mean(values):.1f} | "
            f"{np.percentile(values, 95):.1f} | {missed if cached else '-'} |"
        )
    fresh_ms = [value for cached, values, _, _ in passes if not cached for value in values]
    cached_ms = [value for cached, values, _, _ in passes if cached for value in values]
    print(f"\nlargest difference between any pass's beliefs and the first's: {gap:.3g}")
    speedup = statistics.median(fresh_ms) / statistics.median(cached_ms)
    print(f"median speed-up over both passes of each: {speedup:.2f}x")


if __name__ == "__main__":
    main()
