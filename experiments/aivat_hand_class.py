"""Does the unknown player's preflop hand explain what AIVAT leaves against `heuristic`?

Question: against `heuristic`, whose policy is not known, AIVAT removes about half of the
duplicate estimate's variance (docs/RESULTS.md, "AIVAT: an unbiased, lower-variance estimate").
The imaginary seat is the bot's, so the luck of `heuristic`'s cards stays. A control variate on
its hole cards keeps the estimate unbiased for any function ``f`` of them: ``f(X) − E[f]``,
where ``X`` is its hand and ``E[f]`` the mean of ``f`` over all 1,326 hands (the deal is
uniform). How much does the best such ``f`` of the 169 preflop classes remove?
Answer: docs/RESULTS.md, same section.

``f`` is each class's mean AIVAT result, shrunk towards the overall mean, fitted on nine tenths
of the pairs and applied to the other tenth (ten folds, so no pair is scored with an ``f`` fitted
on it). Input: the per-hand results that ``bench_aivat.py --save`` writes::

    OMP_NUM_THREADS=1 python benchmarks/bench_aivat.py \\
        --a "blueprint:checkpoints/hunl_tiny?threshold=0.3&allin=solve" --b heuristic \\
        --pairs 4000 --seed 11 --workers 2 --no-timing --save runs/aivat_seed11.npz
    python experiments/aivat_hand_class.py runs/aivat_seed11.npz --seed 11
"""

from __future__ import annotations

import argparse

import numpy as np
import numpy.typing as npt

from pokerai.abstraction.histograms import preflop_combos
from pokerai.abstraction.isomorphism import street_indexer

FOLDS = 10
SHRINK = 20.0
"""Pairs' worth of weight on the overall mean in each class's fitted value."""


def opponent_hands(seed: int, pairs: int) -> npt.NDArray[np.int64]:
    """int64 ``[pairs, 2, 2]``: agent B's hole cards in each hand of each pair of a duplicate match
    (as ``pokerai.eval.duplicate`` deals them: A is player 0 in the first hand, player 1 in the second)."""
    hands = np.zeros((pairs, 2, 2), dtype=np.int64)
    for pair in range(pairs):
        deck = np.random.default_rng([seed, pair]).permutation(52)[:9]
        hands[pair, 0], hands[pair, 1] = deck[2:4], deck[0:2]
    return hands


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("results", help="the .npz of bench_aivat.py --save (duplicate mode)")
    parser.add_argument("--seed", type=int, required=True, help="the match's seed")
    args = parser.parse_args()
    saved = np.load(args.results)
    plain, aivat = saved["plain"].astype(np.float64), saved["aivat"]
    pairs = len(aivat)
    hands = opponent_hands(args.seed, pairs)
    classes = street_indexer(0).index(hands.reshape(-1, 2).astype(np.uint8)).reshape(pairs, 2)
    weights = preflop_combos().astype(np.float64)
    fold_of = np.arange(pairs) % FOLDS
    plain_variance = plain.sum(axis=1).var(ddof=1)
    print(f"{pairs} pairs; variance of the pair sums as a share of the plain estimate's:")
    print(f"  AIVAT: {aivat.sum(axis=1).var(ddof=1) / plain_variance:.3f}")
    for name, target in (("AIVAT", aivat), ("plain", plain)):
        corrected = np.empty_like(target)
        for fold in range(FOLDS):
            train, test = fold_of != fold, fold_of == fold
            sums, counts = np.zeros(len(weights)), np.zeros(len(weights))
            np.add.at(sums, classes[train].ravel(), target[train].ravel())
            np.add.at(counts, classes[train].ravel(), 1.0)
            fitted = (sums + SHRINK * target[train].mean()) / (counts + SHRINK)
            expected = (fitted * weights).sum() / weights.sum()
            corrected[test] = target[test] - (fitted[classes[test]] - expected)
        share = corrected.sum(axis=1).var(ddof=1) / plain_variance
        ratio = np.sqrt(share)
        print(f"  {name} with the hand-class control variate: {share:.3f} (half-width ratio {ratio:.3f})")


if __name__ == "__main__":
    main()
