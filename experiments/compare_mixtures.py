"""Mixtures of independent blueprints against one opponent, paired with a reference agent on the same deals.

Question: does averaging independent blueprints' policies beat the runs alone?
Answer: docs/RESULTS.md, "Deep CFR on hold'em" > "What did not make the first blueprint stronger"
(mixtures) and "A short policy fit beats a long one".

A mixture plays, at each decision, the mean of its blueprints' probabilities
(each blueprint's average strategy counts equally), then thresholds the mean
as ``blueprint:PATH?threshold=T`` does. Every mixture and the reference meet
the same deals, so the difference from the reference is measured pair by pair
(as in ``benchmarks/compare_agents.py``).

    OMP_NUM_THREADS=1 python experiments/compare_mixtures.py --b heuristic --pairs 3000 --seed 1 \\
        --workers 2 --reference "blueprint:checkpoints/hunl_tiny?threshold=0.3" \\
        RUN_A/blueprint,RUN_B/blueprint

Each positional argument is one mixture: blueprint folders separated by commas.
The blueprints must share the game (blinds, stacks, bet menu); network sizes
and encodings may differ.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from pokerai.agents.base import Observation
from pokerai.agents.blueprint import BlueprintAgent
from pokerai.agents.spec import make_agent
from pokerai.deepcfr.export import Blueprint
from pokerai.eval.duplicate import DuplicateResult, duplicate_match, mean_ci95
from pokerai.search.beliefs import threshold_probabilities

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from common import estimate_cell, paired_cell, parse_single_threaded, script_parser


class MixtureAgent(BlueprintAgent):
    """Plays the mean of several blueprints' probabilities, thresholded at ``threshold``."""

    name = "mixture"

    def __init__(self, blueprints: list[Blueprint], threshold: float) -> None:
        super().__init__(blueprints[0], threshold=0.0)
        names = {blueprint.game.name for blueprint in blueprints}
        if len(names) != 1:
            raise SystemExit(f"the blueprints of a mixture must share one game, got {sorted(names)}")
        self.blueprints = blueprints
        self.mixture_threshold = threshold

    def decision(self, observation: Observation) -> tuple[npt.NDArray[np.float64], list[Any]]:
        total: npt.NDArray[np.float64] | None = None
        actions: list[Any] = []
        for blueprint in self.blueprints:
            self.blueprint = blueprint
            probabilities, actions = BlueprintAgent.decision(self, observation)
            total = probabilities if total is None else total + probabilities
        assert total is not None
        return threshold_probabilities(total / len(self.blueprints), self.mixture_threshold)[0], actions


def _per_pair(result: DuplicateResult) -> npt.NDArray[np.float64]:
    """mbb/hand of each deal pair for agent A."""
    scale = 1000.0 / result.big_blind / result.hands_per_pair
    values: npt.NDArray[np.float64] = result.a_results.sum(axis=1) * scale
    return values


def main() -> None:
    parser = script_parser(__doc__, pairs=1000, seed=0, workers=1)
    parser.add_argument("mixtures", nargs="+", metavar="PATH[,PATH...]", help="one mixture per argument")
    parser.add_argument(
        "--reference", required=True, metavar="SPEC", help="the agent each mixture is paired with"
    )
    parser.add_argument("--b", required=True, metavar="SPEC", help="the opponent")
    parser.add_argument("--threshold", type=float, default=0.3)
    args = parse_single_threaded(parser)

    def play(agent: Any, label: str) -> tuple[npt.NDArray[np.float64], float]:
        started = time.perf_counter()
        result = duplicate_match(
            agent, make_agent(args.b), args.pairs, seed=args.seed, workers=args.workers, names=(label, args.b)
        )
        return _per_pair(result), time.perf_counter() - started

    print(f"{args.pairs} duplicate pairs against {args.b}, seed {args.seed}, threshold {args.threshold}\n")
    print("| agent | blueprints | mbb/hand, 95% CI | minus the reference, paired 95% CI | seconds |")
    print("|---|---:|---|---|---:|")
    reference, seconds = play(make_agent(args.reference), args.reference)
    print(f"| `{args.reference}` | 1 | {estimate_cell(mean_ci95(reference))} | – | {seconds:.0f} |")
    for text in args.mixtures:
        paths = [path for path in text.split(",") if path]
        agent = MixtureAgent([Blueprint.load(path) for path in paths], args.threshold)
        values, seconds = play(agent, "mixture")
        own, difference = estimate_cell(mean_ci95(values)), paired_cell(values, reference)[0]
        print(f"| {', '.join(paths)} | {len(paths)} | {own} | {difference} | {seconds:.0f} |", flush=True)


if __name__ == "__main__":
    main()
