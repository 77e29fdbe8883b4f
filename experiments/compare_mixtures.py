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

import argparse
import time
from typing import Any

import numpy as np
import numpy.typing as npt
import torch

from pokerai.agents.base import Observation
from pokerai.agents.blueprint import BlueprintAgent
from pokerai.agents.spec import make_agent
from pokerai.deepcfr.export import Blueprint
from pokerai.eval.duplicate import DuplicateResult, duplicate_match, mean_ci95
from pokerai.search.beliefs import threshold_probabilities


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
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("mixtures", nargs="+", metavar="PATH[,PATH...]", help="one mixture per argument")
    parser.add_argument(
        "--reference", required=True, metavar="SPEC", help="the agent each mixture is paired with"
    )
    parser.add_argument("--b", required=True, metavar="SPEC", help="the opponent")
    parser.add_argument("--threshold", type=float, default=0.3)
    parser.add_argument("--pairs", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args()
    torch.set_num_threads(1)

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
    own = mean_ci95(reference)
    interval = f"{own.mean:+,.0f} [{own.low:+,.0f}, {own.high:+,.0f}]"
    print(f"| `{args.reference}` | 1 | {interval} | – | {seconds:.0f} |")
    for text in args.mixtures:
        paths = [path for path in text.split(",") if path]
        agent = MixtureAgent([Blueprint.load(path) for path in paths], args.threshold)
        values, seconds = play(agent, "mixture")
        own, delta = mean_ci95(values), mean_ci95(values - reference)
        print(
            f"| {', '.join(paths)} | {len(paths)} | {own.mean:+,.0f} [{own.low:+,.0f}, {own.high:+,.0f}] "
            f"| {delta.mean:+,.0f} [{delta.low:+,.0f}, {delta.high:+,.0f}] | {seconds:.0f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
