"""Would a richer AIVAT value function narrow the interval against `heuristic`?

Question: against `heuristic` AIVAT leaves about half of the duplicate estimate's variance
(docs/RESULTS.md, "AIVAT: an unbiased, lower-variance estimate"). Most of it sits in pots that
`heuristic` builds to all-in with a medium hand against a strong one of the bot's. The shipped
value function assumes the chips already in are all that is at stake. Does a value function that
expects the pot to grow, the more the stronger the unknown player's hand, remove more?
Answer: docs/RESULTS.md, same section.

AIVAT stays unbiased for any value function, and its terms are linear in it. So each extra
function ``φ_k`` added to the value gives a term ``C_k`` (the sum of its control variates over
the hand, averaged over the bot's candidate hands with AIVAT's weights) with mean 0, and the
best weights ``θ`` on them are a least-squares fit of the AIVAT result on the ``C_k``. Two
families are tried:

* ``decisions``: at each decision of the bot (the known seat), a child's value gains
  ``φ_k = s · (cap − c) · [street, bin of h]``, where ``s = 2e − 1`` is the candidate hand's
  check-down strength against `heuristic`'s real hand, ``c`` the contested chips after the
  action, ``cap`` the smaller stack, and ``h`` the equity of `heuristic`'s real hand against a
  uniform hand on the current board (five bins). So a bet is worth more the more room the
  pot has to grow, by street and by how strong the unknown hand is.
* ``board``: one term per hand, ``f(X, board) − E[f(X, board')]``, where ``X`` is
  `heuristic`'s hand, ``f`` a gradient-boosted fit of the AIVAT result on the ranks of
  ``X`` on the flop, turn and river and the board's own rank, and the mean is over 64 boards
  that miss ``X`` (a board is dealt uniformly whatever the players do, so the term has mean 0).

Every fit is scored on pairs it did not see (ten folds), and the ``decisions`` fit also on a
second seed. Run::

    OMP_NUM_THREADS=1 python experiments/aivat_value_basis.py --pairs 4000 --seeds 11 12   # 4 minutes
"""

from __future__ import annotations

import argparse
import multiprocessing
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from pokerai.agents.base import Observation
from pokerai.agents.spec import make_agent
from pokerai.engine.evaluator import rank_hands
from pokerai.engine.state import HUNLConfig, HUNLState
from pokerai.eval.aivat import ALL_HANDS, AIVATConfig, KnownDecision, child_contested, showdown_equities
from pokerai.eval.duplicate import _play_pairs

BOT = "blueprint:checkpoints/hunl_tiny?threshold=0.3&allin=solve"
EDGES = np.array([0.35, 0.5, 0.65, 0.8])
"""Bins of the unknown hand's equity against a uniform hand."""
NUM_BASIS = 4 * (len(EDGES) + 1)
FOLDS = 10
CHUNK = 100
BOARDS = 64


class BasisTerms:
    """Records the ``decisions`` basis terms of every hand AIVAT scores (``AIVATConfig.observer``):
    per known decision, the terms of each live candidate hand; per hand, their sums averaged with
    AIVAT's final weights."""

    def __init__(self) -> None:
        self.terms: list[npt.NDArray[np.float64]] = []
        self.basis: npt.NDArray[np.float64] | None = None
        self.equity: dict[int, float] = {}

    def unknown_equity(self, final: HUNLState, unknown: tuple[int, int], board: Sequence[int]) -> float:
        """The equity of the unknown seat's hand against a uniform hand on ``board``."""
        if len(board) not in self.equity:
            blocked = np.zeros(52, dtype=bool)
            blocked[[*unknown, *final.board]] = True
            hands = ALL_HANDS[~blocked[ALL_HANDS].any(axis=1)]
            mine = showdown_equities(hands, unknown, board, 96, np.random.default_rng(7))
            self.equity[len(board)] = 1.0 - float(mine.mean())
        return self.equity[len(board)]

    def decision(self, decision: KnownDecision) -> None:
        state, policy = decision.state, decision.policy
        if self.basis is None:
            self.basis = np.zeros((NUM_BASIS, decision.candidates))
        contested, folds = child_contested(state, policy)
        room = min(state.config.stacks) - contested
        row = policy.row(Observation.from_state(state), decision.action)
        expected = (room[~folds, None] * policy.probabilities[~folds]).sum(axis=0)
        happened = 0.0 if row is None or folds[row] else float(room[row])
        unknown = decision.final.hole_cards(1 - decision.imaginary)
        strong = int(np.searchsorted(EDGES, self.unknown_equity(decision.final, unknown, state.board)))
        row_index = state.street * (len(EDGES) + 1) + strong
        self.basis[row_index, decision.live] += decision.strength * (expected - happened)

    def finish(self, weights: npt.NDArray[np.float64]) -> None:
        terms = np.zeros(NUM_BASIS)
        if self.basis is not None:
            kept = weights > 0
            terms = (weights[kept] * self.basis[:, kept]).sum(axis=1) / weights[kept].sum()
        self.terms.append(terms)
        self.basis, self.equity = None, {}


def _play(task: tuple[int, int, int]) -> tuple[npt.NDArray[Any], npt.NDArray[Any], npt.NDArray[Any]]:
    seed, start, stop = task
    observer = BasisTerms()
    chunk = _play_pairs(
        make_agent(BOT), make_agent("heuristic"), HUNLConfig(), seed, start, stop, True, False,
        aivat=AIVATConfig(observer=observer),
    )  # fmt: skip
    assert chunk.aivat_results is not None
    terms = np.array(observer.terms).reshape(stop - start, 2, NUM_BASIS)
    return chunk.a_results.astype(np.float64), chunk.aivat_results, terms


def play(seed: int, pairs: int, workers: int) -> tuple[npt.NDArray[Any], npt.NDArray[Any], npt.NDArray[Any]]:
    """Per hand of ``pairs`` duplicate pairs: the plain result, AIVAT's, and the basis terms."""
    tasks = [(seed, start, min(start + CHUNK, pairs)) for start in range(0, pairs, CHUNK)]
    with multiprocessing.get_context("fork").Pool(workers) as pool:
        parts = pool.map(_play, tasks)
    plain, estimates, terms = (np.concatenate([part[i] for part in parts]) for i in range(3))
    return plain, estimates, terms


def fit(estimates: npt.NDArray[np.float64], terms: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """The weights on the pairs' summed terms that minimise the variance of the pair sums."""
    target = estimates.sum(axis=1)
    design = terms.sum(axis=1)
    design = design - design.mean(axis=0)
    theta, *_ = np.linalg.lstsq(design, -(target - target.mean()), rcond=None)
    return np.asarray(theta, dtype=np.float64)


def share(plain: npt.NDArray[np.float64], estimates: npt.NDArray[np.float64]) -> float:
    """The variance of the pair sums of ``estimates`` as a share of the plain pair sums'."""
    return float(estimates.sum(axis=1).var(ddof=1) / plain.sum(axis=1).var(ddof=1))


def board_term(seed: int, estimates: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """The ``board`` family's term for every hand, fitted on the other nine folds."""
    from sklearn.ensemble import HistGradientBoostingRegressor

    pairs = len(estimates)
    unknown = np.zeros((pairs, 2, 2), dtype=np.int64)
    boards = np.zeros((pairs, 5), dtype=np.int64)
    for pair in range(pairs):
        deck = np.random.default_rng([seed, pair]).permutation(52)[:9]
        unknown[pair, 0], unknown[pair, 1], boards[pair] = deck[2:4], deck[0:2], deck[4:9]
    holes = unknown.reshape(-1, 2)
    dealt = np.repeat(boards, 2, axis=0)

    def features(hole: npt.NDArray[np.int64], board: npt.NDArray[np.int64]) -> npt.NDArray[np.float64]:
        cards = np.concatenate([hole, board], axis=1)
        ranks = [rank_hands(cards[:, :n], validate=False) for n in (5, 6, 7)]
        return np.stack([*ranks, rank_hands(board, validate=False)], axis=1).astype(np.float64)

    rng = np.random.default_rng([seed, 0xB0A2D])
    others = np.zeros((len(holes), BOARDS, 5), dtype=np.int64)
    for index, hole in enumerate(holes):
        deck = np.setdiff1d(np.arange(52), hole)
        for draw in range(BOARDS):
            others[index, draw] = rng.choice(deck, 5, replace=False)
    seen = features(holes, dealt)
    alternatives = features(np.repeat(holes, BOARDS, axis=0), others.reshape(-1, 5)).reshape(
        len(holes), BOARDS, -1
    )
    target = estimates.reshape(-1)
    fold = (np.arange(len(holes)) // 2) % FOLDS
    term = np.zeros(len(holes))
    for part in range(FOLDS):
        train, test = fold != part, np.flatnonzero(fold == part)
        model = HistGradientBoostingRegressor(
            max_iter=200, learning_rate=0.05, max_leaf_nodes=15, min_samples_leaf=40
        ).fit(seen[train], target[train])
        mean = model.predict(alternatives[test].reshape(-1, seen.shape[1])).reshape(len(test), BOARDS)
        term[test] = model.predict(seen[test]) - mean.mean(axis=1)
    return term.reshape(pairs, 2)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--pairs", type=int, default=4000)
    parser.add_argument("--seeds", type=int, nargs="+", default=[11, 12])
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    runs = {seed: play(seed, args.pairs, args.workers) for seed in args.seeds}
    print(f"{args.pairs} pairs against heuristic; variance left, as a share of the plain pair sums'")
    for seed, (plain, estimates, terms) in runs.items():
        print(f"seed {seed}: AIVAT {share(plain, estimates):.3f}")
        theta = fit(estimates, terms)
        in_sample = share(plain, estimates + terms @ theta)
        print(f"  decisions, fitted on these pairs (in sample): {in_sample:.3f}")
        folds = np.arange(len(estimates)) % FOLDS
        crossed = estimates.copy()
        for part in range(FOLDS):
            theta = fit(estimates[folds != part], terms[folds != part])
            crossed[folds == part] += terms[folds == part] @ theta
        print(f"  decisions, ten folds: {share(plain, crossed):.3f}")
        for other, (_, other_estimates, other_terms) in runs.items():
            if other != seed:
                theta = fit(other_estimates, other_terms)
                print(f"  decisions, fitted on seed {other}: {share(plain, estimates + terms @ theta):.3f}")
        print(f"  board, ten folds: {share(plain, estimates - board_term(seed, estimates)):.3f}")


if __name__ == "__main__":
    main()
