"""Full-tree CFR family against ground truth on Kuhn, Leduc and AKQ."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from pokerai.games import AKQGame, KuhnPoker, LeducPoker
from pokerai.solvers import VARIANTS, CFRSolver, expected_values, exploitability, nash_conv, solve, tree_of
from tests.solvers.reference import reference_cfr

FULL_TREE = list(VARIANTS)
KUHN_VALUE = -1 / 18
LEDUC_VALUE = -0.0856


@pytest.mark.parametrize("algorithm", FULL_TREE)
def test_kuhn_every_full_tree_solver_converges(algorithm: str) -> None:
    result = solve(KuhnPoker(), algorithm, 100_000, eval_every=100_000)
    assert result.exploitability < 1e-3
    assert result.game_value == pytest.approx(KUHN_VALUE, abs=1e-3)


def test_kuhn_vanilla_cfr_rate() -> None:
    """Exploitability of vanilla CFR falls like T^-1/2 (Zinkevich et al. 2007).

    Vanilla here is Zinkevich et al.'s CFR with simultaneous updates; with
    alternating updates the same code falls about like T^-1 on Kuhn.
    """
    solver = CFRSolver(KuhnPoker(), "cfr-simultaneous")
    checkpoints = np.unique(np.geomspace(100, 10_000, 25).astype(int))
    values = []
    for t in checkpoints:
        solver.run(int(t) - solver.iteration)
        values.append(exploitability(solver.average_policy()))
    slope = np.polyfit(np.log(checkpoints), np.log(values), 1)[0]
    assert -0.65 <= slope <= -0.35, slope


def test_kuhn_vanilla_cfr_matches_seed_figure() -> None:
    """Seed 000 reports 1.35e-3 at T = 1e5 for vanilla CFR on Kuhn: that is NashConv (2x ours)."""
    solver = CFRSolver(KuhnPoker(), "cfr-simultaneous")
    solver.run(100_000)
    assert nash_conv(solver.average_policy()) == pytest.approx(1.35e-3, abs=0.005e-3)


@pytest.mark.parametrize("algorithm", ["cfr+", "dcfr", "pcfr+"])
def test_leduc_fast_variants_reach_equilibrium(algorithm: str) -> None:
    result = solve(LeducPoker(), algorithm, 2_000, eval_every=2_000)
    assert result.exploitability < 1e-3
    assert result.game_value == pytest.approx(LEDUC_VALUE, abs=1e-3)


@pytest.mark.parametrize("algorithm", ["cfr", "cfr-simultaneous", "lcfr"])
def test_leduc_other_variants_decrease(algorithm: str) -> None:
    solver = CFRSolver(LeducPoker(), algorithm)
    values = []
    for t in (10, 30, 100, 300, 1000):
        solver.run(t - solver.iteration)
        values.append(exploitability(solver.average_policy()))
    assert all(later < 0.7 * earlier for earlier, later in itertools.pairwise(values))
    assert values[-1] < 0.05


@pytest.mark.parametrize("bet_size", [0.5, 1.0, 2.0])
@pytest.mark.parametrize("algorithm", ["cfr", "cfr+", "dcfr", "pcfr+"])
def test_akq_matches_closed_form(algorithm: str, bet_size: float) -> None:
    b = bet_size
    result = solve(AKQGame(b), algorithm, 20_000, eval_every=20_000)
    table = result.policy.to_dict()
    assert table["A:"]["bet"] == pytest.approx(1.0, abs=1e-2)
    assert table["Q:"]["bet"] == pytest.approx(b / (1 + b), abs=1e-2)
    assert table["K:b"]["call"] == pytest.approx(1 / (1 + b), abs=1e-2)
    assert result.game_value == pytest.approx(b / (2 * (1 + b)), abs=1e-3)


def test_vanilla_cfr_matches_textbook_reference() -> None:
    """The compiled two-pass CFR equals a recursive dict-based textbook CFR."""
    for game, iterations in ((KuhnPoker(), 50), (LeducPoker(), 3)):
        solver = CFRSolver(game, "cfr")
        solver.run(iterations)
        fast = solver.average_policy()
        slow = reference_cfr(game, iterations)
        tree = tree_of(game)
        for key, row in slow.items():
            for action, probability in row.items():
                assert fast.probabilities[tree.infoset_index(key), action] == pytest.approx(
                    probability, abs=1e-12
                )


# Measured with open-spiel 2.0.2 (benchmarks/bench_cfr_leduc.py): C++ pyspiel.CFRSolver and
# CFRPlusSolver, alternating updates, exploitability after 100 and 1,000 iterations.
OPENSPIEL_FIGURES = {
    ("kuhn", "cfr"): (0.008225977315915206, 0.0009376166469929614),
    ("kuhn", "cfr+"): (0.0011944041011116846, 8.736532252084928e-05),
    ("leduc", "cfr"): (0.09571635300459762, 0.011817810259786288),
    ("leduc", "cfr+"): (0.013415994970897835, 0.0002571516161564563),
}


@pytest.mark.parametrize(("game_name", "algorithm"), list(OPENSPIEL_FIGURES))
def test_same_exploitability_as_openspiel(game_name: str, algorithm: str) -> None:
    game = KuhnPoker() if game_name == "kuhn" else LeducPoker()
    solver = CFRSolver(game, algorithm)
    measured = []
    for t in (100, 1000):
        solver.run(t - solver.iteration)
        measured.append(exploitability(solver.average_policy()))
    np.testing.assert_allclose(measured, OPENSPIEL_FIGURES[game_name, algorithm], rtol=1e-9)


def test_runs_resume_exactly() -> None:
    """Iterating 30 then 70 gives the same tables as 100 at once (iteration numbering carries over)."""
    for name in ("dcfr", "pcfr+"):
        whole = CFRSolver(LeducPoker(), name)
        whole.run(100)
        parts = CFRSolver(LeducPoker(), name)
        parts.run(30)
        parts.run(70)
        np.testing.assert_array_equal(whole.cumulative_regret, parts.cumulative_regret)
        np.testing.assert_array_equal(whole.cumulative_strategy, parts.cumulative_strategy)


def test_regrets_are_float64_and_strategies_valid() -> None:
    solver = CFRSolver(LeducPoker(), "cfr")
    solver.run(10)
    assert solver.cumulative_regret.dtype == np.float64
    assert solver.cumulative_strategy.dtype == np.float64
    strategy = solver.current_policy().probabilities
    assert not np.isnan(strategy).any()
    np.testing.assert_allclose(strategy.sum(axis=1), 1.0)


def test_cfr_plus_keeps_regrets_non_negative() -> None:
    solver = CFRSolver(LeducPoker(), "cfr+")
    solver.run(50)
    assert solver.cumulative_regret.min() >= 0.0
    vanilla = CFRSolver(LeducPoker(), "cfr")
    vanilla.run(50)
    assert vanilla.cumulative_regret.min() < 0.0


def test_value_of_solution_is_game_value_not_self_play_noise() -> None:
    # The current strategy oscillates; the average is the answer.
    solver = CFRSolver(KuhnPoker(), "cfr")
    solver.run(5_000)
    assert exploitability(solver.average_policy()) < exploitability(solver.current_policy())
    assert expected_values(solver.average_policy())[0] == pytest.approx(KUHN_VALUE, abs=2e-3)


def test_unknown_variant() -> None:
    with pytest.raises(ValueError, match=r"unknown CFR variant 'cfr\+\+'"):
        CFRSolver(KuhnPoker(), "cfr++")
