"""AIVAT against the plain estimates on the same hands: interval widths, agreement, and cost.

Duplicate mode plays the same pairs twice in this run, without and with AIVAT, and
prints both intervals, the ratio of their half-widths (the goal: at most 0.5, four
times fewer hands for the same precision), whether the two means agree (the 95%
interval of their paired difference covers 0), and the wall time AIVAT adds (the
goal: at most 30%)::

    OMP_NUM_THREADS=1 python benchmarks/bench_aivat.py \\
        --a blueprint:checkpoints/hunl_blueprint --b heuristic \\
        --pairs 2000 --seed 20261202 --workers 2

LBR mode (``--lbr MENU``) scores LBR against ``--a`` over ``--hands`` hands with
AIVAT on, and prints the same comparison against the plain interval over hands.
"""

from __future__ import annotations

import json
import time

import numpy as np
from common import script_parser

from pokerai.agents.spec import make_agent
from pokerai.eval.aivat import AIVATConfig
from pokerai.eval.duplicate import DuplicateResult, duplicate_match, mean_ci95
from pokerai.eval.lbr import LBR_MENUS, lbr_match


def _difference(plain: np.ndarray, corrected: np.ndarray, scale: float) -> tuple[float, float, float]:
    """The paired difference plain - AIVAT over the same units, with its 95% interval (mbb/hand)."""
    estimate = mean_ci95(plain.astype(np.float64) - corrected, scale)
    return estimate.mean, estimate.low, estimate.high


def main() -> None:
    parser = script_parser(__doc__, pairs=2000, seed=20261202, workers=2)
    parser.add_argument("--a", required=True, help="agent A (duplicate) or the LBR target")
    parser.add_argument("--b", help="agent B (duplicate mode)")
    parser.add_argument("--lbr", choices=sorted(LBR_MENUS), help="LBR mode with this menu")
    parser.add_argument("--hands", type=int, default=1000, help="hands of an LBR run")
    parser.add_argument(
        "--no-timing", action="store_true", help="skip the run without AIVAT (duplicate mode)"
    )
    parser.add_argument(
        "--lookahead", type=int, default=AIVATConfig().lookahead, help="AIVATConfig.lookahead (0: off)"
    )
    parser.add_argument("--save", help="write the per-hand plain and AIVAT results to this .npz file")
    args = parser.parse_args()
    config = AIVATConfig(lookahead=args.lookahead)

    if args.lbr is not None:
        result = lbr_match(
            make_agent(args.a),
            args.hands,
            seed=args.seed,
            lbr_config=LBR_MENUS[args.lbr],
            workers=args.workers,
            aivat=config,
        )
        plain, aivat = result.estimate, result.aivat
        assert aivat is not None and result.aivat_results is not None, "the target's policy must be known"
        difference = _difference(result.exploiter_results, result.aivat_results, 1000.0 / result.big_blind)
        rows = {"mode": f"lbr:{args.lbr}", "hands": result.hands, "seconds": result.seconds}
        if args.save:
            np.savez(args.save, plain=result.exploiter_results, aivat=result.aivat_results)
    else:
        if args.b is None:
            parser.error("duplicate mode needs --b")

        def timed_match(aivat: AIVATConfig | bool) -> tuple[DuplicateResult, float]:
            """The duplicate match of ``--a`` against ``--b``, with or without AIVAT, and its seconds."""
            started = time.perf_counter()
            result = duplicate_match(
                make_agent(args.a), make_agent(args.b), args.pairs, seed=args.seed, workers=args.workers,
                aivat=aivat,
            )  # fmt: skip
            return result, time.perf_counter() - started

        plain_seconds = None if args.no_timing else timed_match(False)[1]
        result_d, aivat_seconds = timed_match(config)
        plain, aivat = result_d.estimate, result_d.aivat
        assert aivat is not None and result_d.aivat_results is not None
        difference = _difference(
            result_d.a_results.sum(axis=1),
            result_d.aivat_results.sum(axis=1),
            1000.0 / result_d.big_blind / result_d.hands_per_pair,
        )
        if args.save:
            np.savez(args.save, plain=result_d.a_results, aivat=result_d.aivat_results)
        rows = {
            "mode": "duplicate",
            "pairs": args.pairs,
            "hands": result_d.hands,
            "seconds_without_aivat": plain_seconds,
            "seconds_with_aivat": aivat_seconds,
            "aivat_overhead": None if plain_seconds is None else aivat_seconds / plain_seconds - 1.0,
        }
    plain_triple = (plain.mean, plain.low, plain.high)
    aivat_triple = (aivat.mbb_per_hand, *aivat.ci95)
    half_ratio = (aivat.ci95[1] - aivat.ci95[0]) / (plain.high - plain.low)
    rows.update(
        {
            "a": args.a,
            "b": args.b,
            "seed": args.seed,
            "workers": args.workers,
            "plain": plain_triple,
            "aivat": aivat_triple,
            "half_width_ratio": half_ratio,
            "variance_removed": aivat.variance_reduction,
            "difference": difference,
            "means_agree": difference[1] <= 0.0 <= difference[2],
        }
    )
    print(
        f"{rows['mode']}: plain {plain.mean:+,.1f} [{plain.low:+,.1f}, {plain.high:+,.1f}] "
        f"(±{plain.half_width:,.1f}); AIVAT {aivat.mbb_per_hand:+,.1f} [{aivat.ci95[0]:+,.1f}, "
        f"{aivat.ci95[1]:+,.1f}] (±{(aivat.ci95[1] - aivat.ci95[0]) / 2:,.1f}); half-width ratio "
        f"{half_ratio:.3f}; variance removed {aivat.variance_reduction:.1%}"
    )
    print(
        f"plain - AIVAT, paired: {difference[0]:+,.1f} [{difference[1]:+,.1f}, {difference[2]:+,.1f}]; "
        f"means agree: {rows['means_agree']}"
    )
    if rows.get("aivat_overhead") is not None:
        print(
            f"wall time without AIVAT {rows['seconds_without_aivat']:.1f} s, with "
            f"{rows['seconds_with_aivat']:.1f} s: +{rows['aivat_overhead']:.1%}"
        )
    print(json.dumps(rows))


if __name__ == "__main__":
    main()
