"""Monte Carlo CFR samplers."""

from __future__ import annotations

import numpy as np
import pytest

from pokerai.games import KuhnPoker, LeducPoker
from pokerai.solvers import MCCFRSolver, exploitability, solve

# Iteration budgets (one traversal per player each) for exploitability < 1e-2 on Kuhn.
KUHN_BUDGET = {"mccfr-chance": 20_000, "mccfr-external": 50_000, "mccfr-outcome": 200_000}


@pytest.mark.parametrize("algorithm", list(KUHN_BUDGET))
def test_kuhn_sampling_solvers_converge(algorithm: str) -> None:
    result = solve(KuhnPoker(), algorithm, KUHN_BUDGET[algorithm], seed=3,
                   eval_every=KUHN_BUDGET[algorithm])  # fmt: skip
    assert result.exploitability < 1e-2
    assert result.game_value == pytest.approx(-1 / 18, abs=1e-2)


@pytest.mark.parametrize("sampler", ["chance", "external"])
def test_leduc_sampling_solvers_make_progress(sampler: str) -> None:
    solver = MCCFRSolver(LeducPoker(), sampler, seed=5)
    solver.run(2_000)
    early = exploitability(solver.average_policy())
    solver.run(48_000)
    late = exploitability(solver.average_policy())
    assert late < 0.5 * early
    assert late < 0.15


@pytest.mark.parametrize("sampler", ["chance", "external", "outcome"])
def test_seeded_runs_are_reproducible(sampler: str) -> None:
    runs = []
    for seed in (11, 11, 12):
        solver = MCCFRSolver(KuhnPoker(), sampler, seed=seed)
        solver.run(500)
        runs.append(solver.cumulative_regret.copy())
    np.testing.assert_array_equal(runs[0], runs[1])
    assert not np.array_equal(runs[0], runs[2])


def test_bad_sampler_arguments() -> None:
    with pytest.raises(ValueError, match="unknown MCCFR sampler 'average'"):
        MCCFRSolver(KuhnPoker(), "average")
    with pytest.raises(ValueError, match="epsilon must be in"):
        MCCFRSolver(KuhnPoker(), "outcome", epsilon=0.0)
