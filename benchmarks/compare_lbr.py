"""Local best response against several agents on the same hands, with paired differences.

LBR's hand ``i`` is dealt from ``default_rng([seed, i])``, and both players'
random numbers come from the same generator (:func:`pokerai.eval.lbr.lbr_match`),
so with one seed every target meets the same cards and LBR the same run-outs.
Two targets that play alike in a hand give LBR the same result there; the
difference of LBR's winnings is then measured hand by hand, and its 95%
interval is far narrower than either figure's own (LBR is not duplicate, so a
single LBR figure over 1,000 hands is only known to a few thousand mbb/hand).

    OMP_NUM_THREADS=1 python benchmarks/compare_lbr.py --hands 1000 --workers 2 \\
        blueprint:checkpoints/hunl_blueprint search:checkpoints/hunl_blueprint

Prints a Markdown table: LBR's winnings against each target (mbb/hand, 95%
interval), and their paired difference from the first target's (negative: the
target is less exploited by LBR than the first one), with the seconds each took. With
``--aivat`` each hand is also scored by AIVAT with the target's seat known, and the AIVAT
estimates are paired the same way: most of the card luck of all-in pots is gone from them.

``--save FILE.npz`` keeps every target's per-hand results; ``--load FILE.npz`` puts a saved run's
targets first in the table, so a slow target measured once pairs with targets measured later on
the same hands (the seed, hands and LBR settings must match the saved run's):

    OMP_NUM_THREADS=1 python benchmarks/compare_lbr.py --hands 2000 --seed 5 --save d.npz "$D"
    OMP_NUM_THREADS=1 python benchmarks/compare_lbr.py --hands 2000 --seed 5 --load d.npz blueprint:...
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
from common import aivat_cells, estimate_cell, paired_cell, parse_single_threaded, script_parser

from pokerai.agents.spec import make_agent
from pokerai.eval.duplicate import mean_ci95
from pokerai.eval.lbr import STREET_NAMES, LBRConfig, lbr_match


def main() -> None:
    parser = script_parser(__doc__, hands=1000, seed=0, workers=1)
    parser.add_argument("targets", nargs="+", metavar="SPEC", help="targets; the first is the reference")
    parser.add_argument(
        "--raise-streets",
        nargs="+",
        choices=STREET_NAMES,
        default=list(STREET_NAMES),
        help="streets on which LBR may raise (default: all); give it before the targets, which follow it",
    )
    parser.add_argument("--no-allin", action="store_true", help="LBR does not consider going all-in")
    parser.add_argument(
        "--aivat",
        action="store_true",
        help="also score every hand with AIVAT (the target's seat known) and pair those estimates",
    )
    parser.add_argument("--save", metavar="FILE", help="write every target's per-hand results to FILE (.npz)")
    parser.add_argument("--load", metavar="FILE", help="put the targets of a --save FILE first, paired")
    args = parse_single_threaded(parser)
    config = LBRConfig(
        all_in=not args.no_allin,
        raise_streets=tuple(STREET_NAMES.index(street) for street in args.raise_streets),
    )

    print(
        f"LBR, {args.hands} hands, seed {args.seed}, {args.workers} workers, "
        f"raises on {', '.join(args.raise_streets)}{'' if config.all_in else ', no all-in'}"
        "\n"
    )
    aivat_columns = " AIVAT, 95% CI | AIVAT minus the first, paired |" if args.aivat else ""
    header = "| target | LBR wins, mbb/hand, 95% CI | minus the first target, paired 95% CI |"
    print(f"{header}{aivat_columns} seconds |")
    print(f"|---|---|---|{'---|---|' if args.aivat else ''}---:|")
    settings = np.array([args.seed, args.hands, int(config.all_in), *config.raise_streets], dtype=np.int64)
    rows = load_rows(args.load, settings, args.aivat) if args.load else []
    reference: npt.NDArray[np.float64] | None = None
    aivat_reference: npt.NDArray[np.float64] | None = None
    saved: list[Row] = []
    for spec in [*(row.spec for row in rows), *args.targets]:
        if rows and rows[0].spec == spec:
            row = rows.pop(0)
            saved.append(row)  # a --save file holds the loaded targets too
        else:
            started = time.perf_counter()
            result = lbr_match(
                make_agent(spec),
                args.hands,
                seed=args.seed,
                lbr_config=config,
                workers=args.workers,
                name=spec,
                aivat=args.aivat,
            )
            scale = 1000.0 / result.big_blind
            aivat_hands = None if result.aivat_results is None else result.aivat_results * scale
            row = Row(spec, result.exploiter_results.astype(np.float64) * scale, aivat_hands,
                      time.perf_counter() - started)  # fmt: skip
            saved.append(row)
            if args.save:
                save_rows(args.save, settings, saved)
        per_hand, seconds = row.per_hand, row.seconds
        own = estimate_cell(mean_ci95(per_hand))
        first = reference is None
        difference, reference = paired_cell(per_hand, reference)
        if not first:
            difference += f" ({int(np.count_nonzero(per_hand != reference))} hands differ)"
        aivat = ""
        if row.aivat is not None:
            aivat, aivat_reference = aivat_cells(row.aivat, aivat_reference)
        print(f"| `{spec}` | {own} | {difference} |{aivat} {seconds:.0f} |", flush=True)


@dataclass(frozen=True)
class Row:
    """One target's per-hand results (mbb), its AIVAT estimates (None without ``--aivat``), seconds."""

    spec: str
    per_hand: npt.NDArray[np.float64]
    aivat: npt.NDArray[np.float64] | None
    seconds: float


def save_rows(path: str, settings: npt.NDArray[np.int64], rows: list[Row]) -> None:
    """Write ``rows`` with the run's ``settings`` to ``path`` (replacing it whole)."""
    arrays: dict[str, npt.NDArray[Any]] = {"settings": settings, "specs": np.array([r.spec for r in rows])}
    arrays["seconds"] = np.array([r.seconds for r in rows])
    arrays["per_hand"] = np.stack([r.per_hand for r in rows])
    if all(r.aivat is not None for r in rows):
        arrays["aivat"] = np.stack([r.aivat for r in rows if r.aivat is not None])
    temporary = f"{path}.partial.npz"
    np.savez(temporary, allow_pickle=False, **arrays)
    os.replace(temporary, path)


def load_rows(path: str, settings: npt.NDArray[np.int64], aivat: bool) -> list[Row]:
    """The rows of a ``--save`` file, checked against this run's ``settings`` (and ``--aivat``)."""
    try:
        with np.load(path) as data:
            stored = {key: data[key] for key in data.files}
    except (OSError, ValueError) as error:
        raise SystemExit(f"cannot read the saved LBR results {path}: {error}") from error
    missing = {"settings", "specs", "seconds", "per_hand"} - stored.keys()
    if missing:
        raise SystemExit(f"{path} is not a compare_lbr --save file: it lacks {', '.join(sorted(missing))}")
    if "settings" not in stored or not np.array_equal(stored["settings"], settings):
        raise SystemExit(f"{path} was saved with another seed, hand count or LBR settings than this run")
    if aivat and "aivat" not in stored:
        raise SystemExit(f"{path} was saved without --aivat")
    return [
        Row(
            str(spec),
            stored["per_hand"][index],
            stored["aivat"][index] if aivat else None,
            float(stored["seconds"][index]),
        )
        for index, spec in enumerate(stored["specs"])
    ]


if __name__ == "__main__":
    main()
