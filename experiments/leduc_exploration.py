"""What exploration costs in exact exploitability, on Leduc with identity buckets.

Question: the tabular kernel's ``explore`` draws the opponent's sampled action uniformly with
that probability and does not weight the values back, so the traverser learns answers to an
opponent that strays that often. How far from Leduc's equilibrium does that leave the average
strategy? Answer (mean of seeds 0-2 at 10,000, 100,000 and 300,000 iterations) in
docs/RESULTS.md, "A blueprint at the field's size":

    OMP_NUM_THREADS=1 python experiments/leduc_exploration.py
"""

from __future__ import annotations

import numpy as np

from pokerai.solvers import exploitability
from pokerai.tabular.leduc import IDENTITY, leduc_deals, leduc_policy
from pokerai.tabular.mccfr import MCCFRSettings, TabularMCCFR
from pokerai.tabular.tree import leduc_betting_tree

CHECKPOINTS = (10_000, 100_000, 300_000)


def main() -> None:
    tree = leduc_betting_tree()
    print("| explore | " + " | ".join(f"{count:,}" for count in CHECKPOINTS) + " |")
    print("|---:|" + "---:|" * len(CHECKPOINTS))
    for explore in (0.0, 0.05, 0.1, 0.2):
        gaps = np.zeros((3, len(CHECKPOINTS)))
        for seed in range(3):
            solver = TabularMCCFR(tree, IDENTITY.counts, seed=seed, settings=MCCFRSettings(explore=explore))
            rng = np.random.default_rng(seed)
            done = 0
            for column, target in enumerate(CHECKPOINTS):
                solver.run(*leduc_deals(rng, target - done, IDENTITY))
                done = target
                gaps[seed, column] = exploitability(leduc_policy(solver, IDENTITY))
        print(f"| {explore} | " + " | ".join(f"{gap:.4f}" for gap in gaps.mean(axis=0)) + " |", flush=True)


if __name__ == "__main__":
    main()
