"""The preflop all-in equity matrix that the street pipeline's and the all-in answer's terminals use."""

from __future__ import annotations

import numpy as np

from pokerai.engine.equity import runout_equity
from pokerai.search.combos import ALL_COMBOS, combo_index
from pokerai.search.preflop import _pair_scores, preflop_equity_matrix


def test_the_equity_matrix_agrees_with_run_outs_of_each_pair() -> None:
    valid, payoff = preflop_equity_matrix()
    assert valid.shape == payoff.shape == (1326, 1326)
    assert np.array_equal(payoff, -payoff.T)
    shared = np.array(
        [[bool(set(a.tolist()) & set(b.tolist())) for b in ALL_COMBOS[:60]] for a in ALL_COMBOS[:60]]
    )
    assert np.array_equal(valid[:60, :60] == 0, shared)
    assert not payoff[valid == 0].any()
    rng = np.random.default_rng(1)
    checked = 0
    while checked < 8:
        i, j = (int(x) for x in rng.choice(1326, size=2, replace=False))
        if valid[i, j] == 0:
            continue
        first, second = tuple(ALL_COMBOS[i].tolist()), tuple(ALL_COMBOS[j].tolist())
        # runout_equity samples 1,024 run-outs of its own (standard error about 0.016), the matrix
        # about 2,000 boards per pair (about 0.011).
        assert abs((payoff[i, j] + 1) / 2 - runout_equity(first, second, ())) < 0.07
        checked += 1
    # Aces against kings of other suits win about 82%.
    aces, kings = combo_index(48, 49), combo_index(46, 47)
    assert 0.79 < (payoff[aces, kings] + 1) / 2 < 0.85


def test_pair_scores_count_every_pair_as_a_direct_count_does() -> None:
    rng = np.random.default_rng(7)
    ranks = rng.integers(-1, 6, size=(40, 9)).astype(np.int32)  # -1: the hand holds a board card
    wins, counts = _pair_scores(ranks)
    for i in range(9):
        for j in range(9):
            both = (ranks[:, i] >= 0) & (ranks[:, j] >= 0)
            expected = 0 if i == j else both.sum()
            assert counts[i, j] == expected
            mine, theirs = ranks[both, i], ranks[both, j]
            expected_wins = 0.0 if i == j else (mine > theirs).sum() + 0.5 * (mine == theirs).sum()
            assert wins[i, j] == expected_wins
