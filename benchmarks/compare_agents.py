"""Several agents against one opponent on the same deals, with paired differences.

Each agent A_i plays a duplicate match against ``--b`` with the same seed and
number of pairs, so every A_i meets the same cards (and, with mirrored
randomness, the opponent's same random numbers). The difference between two
agents is then measured pair by pair, which removes most of the luck of the
deal: its 95% interval is usually far narrower than either agent's own.

    OMP_NUM_THREADS=1 python benchmarks/compare_agents.py --b heuristic --pairs 1000 --workers 2 \\
        blueprint:checkpoints/hunl_blueprint search:checkpoints/hunl_blueprint

Prints a Markdown table: each agent's mbb/hand against B with its 95% interval,
and its paired difference from the first agent (mbb/hand, 95% interval over
pairs, normal approximation), with the seconds each match took. With ``--aivat`` each
pair is also scored by AIVAT knowing A's policy only (:class:`Opaque` hides B's, whose
all-in solves would otherwise be asked for every hand), and those estimates are paired too.
"""

from __future__ import annotations

import time

import numpy as np
import numpy.typing as npt
from common import Opaque, aivat_cells, estimate_cell, paired_cell, parse_single_threaded, script_parser

from pokerai.agents.spec import make_agent
from pokerai.eval.duplicate import duplicate_match


def main() -> None:
    parser = script_parser(__doc__, pairs=1000, seed=0, workers=1)
    parser.add_argument("agents", nargs="+", metavar="SPEC", help="agents A; the first is the reference")
    parser.add_argument("--b", required=True, metavar="SPEC", help="the opponent of every A")
    parser.add_argument(
        "--aivat", action="store_true", help="also score every pair by AIVAT (A's policy known), paired"
    )
    args = parse_single_threaded(parser)

    print(f"{args.pairs} duplicate pairs against {args.b}, seed {args.seed}, {args.workers} workers\n")
    aivat_columns = " AIVAT, 95% CI | AIVAT minus the first, paired |" if args.aivat else ""
    header = "| agent A | mbb/hand for A, 95% CI | minus the first agent, paired 95% CI |"
    print(f"{header}{aivat_columns} seconds |")
    print(f"|---|---|---|{'---|---|' if args.aivat else ''}---:|")
    reference: npt.NDArray[np.float64] | None = None
    aivat_reference: npt.NDArray[np.float64] | None = None
    for spec in args.agents:
        started = time.perf_counter()
        opponent = Opaque(make_agent(args.b)) if args.aivat else make_agent(args.b)
        result = duplicate_match(
            make_agent(spec), opponent, args.pairs, seed=args.seed, workers=args.workers,
            names=(spec, args.b), aivat=args.aivat,
        )  # fmt: skip
        seconds = time.perf_counter() - started
        scale = 1000.0 / result.big_blind / result.hands_per_pair
        per_pair = result.a_results.sum(axis=1) * scale  # mbb/hand of each pair
        own = estimate_cell(result.estimate)
        difference, reference = paired_cell(per_pair, reference)
        aivat = ""
        if result.aivat_results is not None:
            aivat, aivat_reference = aivat_cells(result.aivat_results.sum(axis=1) * scale, aivat_reference)
        print(f"| `{spec}` | {own} | {difference} |{aivat} {seconds:.0f} |", flush=True)


if __name__ == "__main__":
    main()
