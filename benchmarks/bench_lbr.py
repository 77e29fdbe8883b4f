"""Local best response speed against the blueprint: one ``range_policy`` call against one call per hand.

LBR asks the target for its strategy over the 1,326 hole-card pairs once per target action and
once per raise of its menu (the target's fold probability after it). A target with
``Agent.range_policy`` answers in one batched call; wrapped so that it has none, it is asked
one pair at a time (``action_probability``), the path every agent had before. Both paths play
the same hands from the same seed and must give the same per-hand results (checked here).

Targets (``--targets``): by default the shipped blueprint alone,
``blueprint:checkpoints/hunl_blueprint``; the figures of ``docs/BENCHMARKS.md`` are of the Deep CFR
blueprint, ``blueprint:checkpoints/hunl_tiny?threshold=0.3`` with and without ``allin=solve``.
Menus: the named LBR menus (``pokerai.eval.lbr.LBR_MENUS``).
Before the timed runs a few hands are played in this process, so the per-process tables (hand
ranks, equity matrices, the compiled kernels) are built once and inherited by the forked
workers of every run alike: the figures are the steady state, not the start-up.

    OMP_NUM_THREADS=1 python benchmarks/bench_lbr.py --hands 60 --workers 2

Prints a Markdown table: hands/s of each path, their ratio, LBR's mbb/hand and whether the two
paths' per-hand results are identical.
"""

from __future__ import annotations

import inspect
import platform
from typing import Any

import numpy as np
import torch
from common import Opaque, parse_single_threaded, script_parser

from pokerai.agents.base import Observation
from pokerai.agents.spec import make_agent
from pokerai.engine.state import Action
from pokerai.eval.lbr import LBR_MENUS, LBRResult, lbr_match

TARGETS = ("blueprint:checkpoints/hunl_blueprint",)


class PerCombination(Opaque):
    """``inner`` without ``range_policy``: LBR asks it one hole-card pair at a time."""

    def action_probability(self, observation: Observation, action: Action) -> float | None:
        return self.agent.action_probability(observation, action)


def run(spec: str, menu: str, hands: int, workers: int, seed: int, per_combination: bool) -> LBRResult:
    """LBR against a fresh ``spec`` agent (no solution cached from an earlier run)."""
    target = make_agent(spec)
    options: dict[str, Any] = {}
    if "aivat" in inspect.signature(lbr_match).parameters:
        options["aivat"] = False  # LBR alone: AIVAT would score only the target that has a range_policy
    return lbr_match(
        PerCombination(target) if per_combination else target,
        hands,
        seed=seed,
        lbr_config=LBR_MENUS[menu],
        workers=workers,
        **options,
    )


def main() -> None:
    parser = script_parser(__doc__, hands=60, seed=0, workers=2)
    parser.add_argument("--targets", nargs="+", metavar="SPEC", default=list(TARGETS))
    parser.add_argument("--menus", nargs="+", choices=sorted(LBR_MENUS), default=sorted(LBR_MENUS))
    parser.add_argument("--warmup-hands", type=int, default=4, help="hands played first, in this process")
    args = parse_single_threaded(parser)
    for spec in args.targets:
        for menu in args.menus:
            run(spec, menu, args.warmup_hands, 1, 10**6, per_combination=False)

    print(
        f"Python {platform.python_version()}, numpy {np.__version__}, torch {torch.__version__}, "
        f"{args.hands} hands, seed {args.seed}, {args.workers} workers\n"
    )
    print(
        "| target | LBR menu | range_policy (hands/s) | per pair (hands/s) | ratio | mbb/hand | same hands |"
    )
    print("|---|---|---:|---:|---:|---:|---|")
    for spec in args.targets:
        for menu in args.menus:
            batched = run(spec, menu, args.hands, args.workers, args.seed, per_combination=False)
            one_by_one = run(spec, menu, args.hands, args.workers, args.seed, per_combination=True)
            same = np.array_equal(batched.exploiter_results, one_by_one.exploiter_results)
            ratio = batched.hands_per_second / one_by_one.hands_per_second
            print(
                f"| `{spec}` | {menu} | {batched.hands_per_second:,.2f} | "
                f"{one_by_one.hands_per_second:,.2f} | {ratio:,.1f}x | {batched.mbb_per_hand:+,.0f} | "
                f"{'yes' if same else 'NO'} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
