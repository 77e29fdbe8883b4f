"""What ``terminal_responses: expected`` does to a traversal: the spread of its values and its cost.

Question: how much variance does ``terminal_responses: expected`` remove from a traversal?
Answer: docs/RESULTS.md, "Deep CFR on hold'em" > "What did not make the first blueprint stronger".

    OMP_NUM_THREADS=1 python experiments/terminal_responses_variance.py      # about 15 seconds

Runs the same seeded traversals with uniform play for both players (no networks), once
sampling one opponent reply (``sample``, external sampling) and once valuing the replies
that end the hand exactly (``expected``). Prints, per game and mode, the standard deviation
of the traverser's root values and of its advantage targets (legal slots), the decision
nodes visited and the seconds taken. The two modes draw the same slots, so they visit the
same nodes and keep the same samples, with the same expected values: they differ only in
the spread of the values.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from pokerai.deepcfr.encoding import make_encoder
from pokerai.deepcfr.traversal import run_traversals
from pokerai.games.hunl import HUNLGame
from pokerai.games.leduc import LeducPoker

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from common import script_parser


def uniform(player: int, records: npt.NDArray[Any], masks: npt.NDArray[np.bool_]) -> npt.NDArray[np.float64]:
    result: npt.NDArray[np.float64] = masks / masks.sum(axis=1, keepdims=True)
    return result


def main() -> None:
    parser = script_parser(__doc__, seed=5)
    parser.add_argument("--leduc-traversals", type=int, default=2000)
    parser.add_argument("--hunl-traversals", type=int, default=300)
    args = parser.parse_args()
    print("| game | replies | traversals | root value sd | advantage target sd | nodes | seconds |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for game, count in ((LeducPoker(), args.leduc_traversals), (HUNLGame(), args.hunl_traversals)):
        encoder = make_encoder(game)
        for expected in (False, True):
            started = time.perf_counter()
            samples = run_traversals(
                game, encoder, uniform, traverser=0, count=count, iteration=1, seed=args.seed,
                terminal_responses=expected,
            )  # fmt: skip
            seconds = time.perf_counter() - started
            targets = samples.advantage_targets[samples.advantage_masks]
            print(
                f"| {type(game).__name__} | {'expected' if expected else 'sample'} | {count} | "
                f"{samples.root_values.std():.2f} | {targets.std():.3f} | {samples.nodes} | {seconds:.2f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
