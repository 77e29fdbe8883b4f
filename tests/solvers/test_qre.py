"""Agent logit QRE: the AKQ game's closed forms and asymptotics, Kuhn, Leduc, and Gambit."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pokerai.games import AKQGame, Game, KuhnPoker, LeducPoker
from pokerai.games.akq import nash_equilibrium
from pokerai.games.protocol import State
from pokerai.solvers import TabularPolicy, exploitability, tree_of
from pokerai.solvers.gambit import to_gambit
from pokerai.solvers.qre import (
    QREError,
    QREPoint,
    _Branch,
    conditional_action_values,
    logit_residual,
    trace_logit_qre,
)

BET_SIZES = (0.5, 1.0, 2.0, 3.0)


def akq_probabilities(point: QREPoint) -> tuple[float, float, float]:
    """(p_A, p_Q, p_K): bet with A, bet with Q, call with K."""
    table = point.policy.to_dict()
    return table["A:"]["bet"], table["Q:"]["bet"], table["K:b"]["call"]


def akq_trace(bet_size: float, lambdas: list[float]) -> list[QREPoint]:
    return trace_logit_qre(AKQGame(bet_size), lambdas).points


# ---- AKQ ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("bet_size", BET_SIZES)
def test_akq_small_lambda_limit_and_slopes(bet_size: float) -> None:
    zero, small = akq_trace(bet_size, [0.0, 1e-4])
    assert akq_probabilities(zero) == (0.5, 0.5, 0.5)
    assert zero.residual == 0.0
    # p_A ≈ ½(1 + Bλ/4), p_Q ≈ ½(1 + (1−B)λ/4), p_K ≈ ½(1 + λ/4).
    slopes = [(p - 0.5) / 1e-4 for p in akq_probabilities(small)]
    expected = [bet_size / 8, (1 - bet_size) / 8, 1 / 8]
    assert slopes == pytest.approx(expected, abs=1e-4)


@pytest.mark.parametrize("bet_size", BET_SIZES)
def test_akq_points_solve_the_seed_equations(bet_size: float) -> None:
    """The AKQ game's three logit QRE equations, with p_K's EV conditioned on facing a bet."""
    b = bet_size
    for point in akq_trace(bet_size, [0.7, 5.0, 60.0]):
        lam = point.rationality
        p_a, p_q, p_k = akq_probabilities(point)
        assert p_a == pytest.approx(1 / (1 + math.exp(-lam * b * p_k)), abs=1e-10)
        assert p_q == pytest.approx(1 / (1 + math.exp(-lam * (1 - (1 + b) * p_k))), abs=1e-10)
        call_advantage = (-b * p_a + (1 + b) * p_q) / (p_a + p_q)
        assert p_k == pytest.approx(1 / (1 + math.exp(-lam * call_advantage)), abs=1e-10)


@pytest.mark.parametrize("bet_size", [0.5, 2.0, 3.0])
def test_akq_large_lambda_one_over_lambda_coefficients(bet_size: float) -> None:
    b = bet_size
    (point,) = akq_trace(b, [2000.0])
    _, p_q, p_k = akq_probabilities(point)
    nash = nash_equilibrium(b)
    coefficient_q = (p_q - nash["bet_queen"]) * 2000.0
    coefficient_k = (p_k - nash["call_king"]) * 2000.0
    assert coefficient_q == pytest.approx(-(1 + 2 * b) / (1 + b) ** 2 * math.log(b), rel=0.05)
    assert coefficient_k == pytest.approx(-math.log(b) / (1 + b), rel=0.05)


def test_akq_bet_size_one_converges_exponentially() -> None:
    (point,) = akq_trace(1.0, [100.0])
    _, p_q, p_k = akq_probabilities(point)
    assert abs(p_q - 0.5) < 1e-12 and abs(p_k - 0.5) < 1e-12


@pytest.mark.parametrize(("bet_size", "c"), [(2.0, 5 * math.log(2) / 18), (0.5, 2 * math.log(2) / 9)])
def test_akq_player_one_exploitability(bet_size: float, c: float) -> None:
    b = bet_size
    (point,) = akq_trace(b, [2000.0])
    nash_value = nash_equilibrium(b)["value"]
    epsilon = point.exploitation_of(0, nash_value)
    assert 0 < epsilon < 1e-3  # below 0.1% of the pot of 1
    assert epsilon * 2000.0 == pytest.approx(c, rel=0.10)
    # Seed eq. (8): player 2's maximally exploitative strategy calls always or folds always.
    # (Its printed bluff-heavy case reads p_A + p_Q; always calling leaves player 1 B(p_A − p_Q)/2,
    # and the seed's own asymptotic form −(B/2)(δp_A − δp_Q) has the minus sign.)
    p_a, p_q, _ = akq_probabilities(point)
    bluff_heavy = b / (2 * (1 + b)) - b / 2 * (p_a - p_q)
    value_heavy = b / (2 * (1 + b)) - p_q / 2
    assert epsilon == pytest.approx(max(bluff_heavy, value_heavy), abs=1e-12)
    # The two players' exploitations add up to the NashConv.
    total = point.exploitation_of(0, nash_value) + point.exploitation_of(1, nash_value)
    assert total == pytest.approx(2 * exploitability(point.policy), abs=1e-12)
    assert point.exploitability == pytest.approx(exploitability(point.policy), abs=1e-15)


@pytest.mark.parametrize("bet_size", [0.5, 2.0])
def test_akq_ace_approaches_exponentially(bet_size: float) -> None:
    """1 − p_A ≈ B^{B/(1+B)} e^{−λB/(1+B)}.

    The rate is the closed form's. A prefactor of (1/B)^{B/(1+B)} is tempting, but
    putting the closed form's own p_K = 1/(1+B) − ln B/((1+B)λ) into
    p_A = 1/(1+e^{−λBp_K}) gives e^{−λBp_K} = B^{B/(1+B)} e^{−λB/(1+B)}, and
    that is what the solver finds (within 1% at λ = 200).
    """
    b = bet_size
    points = akq_trace(b, [100.0, 200.0])
    ace = tree_of(points[0].policy.tree.game).infoset_index("A:")
    check = [p.policy.probabilities[ace, 0] for p in points]  # computed directly, not as 1 − p_A
    rate = (math.log(check[1]) - math.log(check[0])) / 100.0
    assert rate == pytest.approx(-b / (1 + b), rel=0.01)
    prefactor = check[1] * math.exp(200.0 * b / (1 + b))
    assert prefactor == pytest.approx(b ** (b / (1 + b)), rel=0.05)


def test_thermodynamic_quantities() -> None:
    zero, point = trace_logit_qre(AKQGame(2.0), [0.0, 3.0]).points
    assert zero.entropy == pytest.approx([math.log(2)] * 3)
    assert np.all(np.isneginf(zero.free_energy))
    lam = point.rationality
    p = point.policy.probabilities
    assert point.entropy == pytest.approx(-np.sum(p * np.log(p), axis=1))
    assert point.internal_energy == pytest.approx(-np.sum(p * point.action_values, axis=1))
    assert point.free_energy == pytest.approx(point.internal_energy - point.entropy / lam)
    # Given the action values, the logit distribution minimises F = E − S/λ at every infoset.
    for shift in (-0.05, 0.05):
        q = np.clip(p + np.array([shift, -shift]), 1e-12, 1.0)
        free = -np.sum(q * point.action_values, axis=1) + np.sum(q * np.log(q), axis=1) / lam
        assert np.all(free > point.free_energy)


# ---- the fast kernels against slow oracles ----------------------------------------------------


def slow_action_values(game: Game, policy: TabularPolicy) -> dict[tuple[str, int], float]:
    """V(I, a) by walking ``State`` objects: Σ π₋ᵢ(h) uᵢ(h·a) / Σ π₋ᵢ(h)."""

    def value(state: State) -> float:
        if state.is_terminal():
            return state.returns()[0]
        if state.is_chance():
            return sum(p * value(state.child(o)) for o, p in state.chance_outcomes())
        return sum(p * value(state.child(a)) for a, p in policy.action_probabilities(state).items())

    numerators: dict[tuple[str, int], float] = {}
    reaches: dict[str, float] = {}

    def walk(state: State, others_reach: tuple[float, float]) -> None:
        if state.is_terminal():
            return
        if state.is_chance():
            for o, p in state.chance_outcomes():
                walk(state.child(o), (others_reach[0] * p, others_reach[1] * p))
            return
        player = state.current_player()
        key = state.information_state_key(player)
        weight = others_reach[player]
        reaches[key] = reaches.get(key, 0.0) + weight
        sign = 1.0 if player == 0 else -1.0
        for a, p in policy.action_probabilities(state).items():
            child = state.child(a)
            numerators[key, a] = numerators.get((key, a), 0.0) + weight * sign * value(child)
            # Player p's own probability multiplies the *other* player's view of the reach.
            walk(
                child,
                (others_reach[0], others_reach[1] * p)
                if player == 0
                else (others_reach[0] * p, others_reach[1]),
            )

    walk(game.initial_state(), (1.0, 1.0))
    return {(key, a): n / reaches[key] for (key, a), n in numerators.items()}


def random_policy(game: Game, seed: int) -> TabularPolicy:
    tree = tree_of(game)
    weights = np.random.default_rng(seed).uniform(0.05, 1.0, tree.legal_mask.shape)
    return TabularPolicy.from_weights(tree, weights)


@pytest.mark.parametrize("game", [KuhnPoker(), AKQGame(2.0)], ids=["kuhn", "akq"])
def test_action_values_match_slow_oracle(game: Game) -> None:
    policy = random_policy(game, 3)
    fast = conditional_action_values(policy)
    tree = policy.tree
    for (key, a), value in slow_action_values(game, policy).items():
        assert fast[tree.infoset_index(key), a] == pytest.approx(value, abs=1e-12)


def test_jacobian_matches_finite_differences() -> None:
    branch = _Branch(tree_of(KuhnPoker()))
    rng = np.random.default_rng(5)
    variables = rng.normal(size=branch.num_variables)
    lam = 3.0

    def h(x: np.ndarray) -> np.ndarray:
        return x - lam * branch.advantages(branch.evaluate(x)[4])

    jacobian = branch.jacobian(lam, branch.evaluate(variables))
    step = 1e-6
    for column in range(branch.num_variables):
        bump = np.zeros(branch.num_variables)
        bump[column] = step
        numeric = (h(variables + bump) - h(variables - bump)) / (2 * step)
        assert jacobian[:, column] == pytest.approx(numeric, abs=1e-7)


# ---- Kuhn and Leduc ---------------------------------------------------------------------------

LAMBDAS = [0.1, 1.0, 10.0, 100.0, 1000.0, 10_000.0]


def test_kuhn_traced_to_ten_thousand() -> None:
    result = trace_logit_qre(KuhnPoker(), LAMBDAS)
    assert [p.rationality for p in result.points] == LAMBDAS
    assert all(p.residual < 1e-9 for p in result.points)
    for point in result.points:  # the residual is what it claims to be
        recomputed = logit_residual(point.policy.probabilities, conditional_action_values(point.policy),
                                    point.rationality, point.policy.tree.legal_mask)  # fmt: skip
        assert recomputed == pytest.approx(point.residual, abs=1e-12)
    last = result.points[-1]
    assert last.exploitability < 1e-3
    assert last.player_values[0] == pytest.approx(-1 / 18, abs=1e-4)
    gains = [p.exploitability for p in result.points]
    assert gains == sorted(gains, reverse=True)


def test_leduc_short_trace() -> None:
    result = trace_logit_qre(LeducPoker(), [1.0, 3.0])
    assert all(p.residual < 1e-9 for p in result.points)
    assert result.points[1].exploitability < result.points[0].exploitability


@pytest.mark.slow
def test_leduc_traced_to_ten_thousand() -> None:
    """About 45 s: every returned point meets the default residual tolerance 1e-9.

    Off the equilibrium path, Leduc's beliefs at λ = 10⁴ are ratios of
    probabilities like e^{−2·10⁴}; in float64 their log reaches are rounded to
    ~1e-11, which λ turns into ~3e-8 in the residual. Points the float64
    Newton cannot bring below 1e-11 are polished with H evaluated in extended
    precision (``_ExtendedTree``).
    """
    result = trace_logit_qre(LeducPoker(), LAMBDAS)
    residuals = [p.residual for p in result.points]
    assert [p.rationality for p in result.points] == sorted(LAMBDAS)
    assert all(r < 1e-9 for r in residuals), residuals
    assert result.points[-1].rationality == 1e4
    assert result.points[-1].exploitability < 1e-3
    assert result.points[-1].player_values[0] == pytest.approx(-0.0856, abs=5e-3)


def test_extended_precision_evaluation_matches_float64() -> None:
    """The extended-precision H agrees with the compiled float64 one where float64 is accurate."""
    from pokerai.solvers.qre import EXTENDED, _Branch, _ExtendedTree

    tree = tree_of(LeducPoker())
    branch = _Branch(tree)
    rng = np.random.default_rng(3)
    variables = rng.normal(scale=2.0, size=branch.num_variables)
    probabilities, _, _, _, action_values = branch.evaluate(variables)
    table = np.zeros(tree.legal_mask.shape, dtype=EXTENDED)
    table[branch.variable_infoset, branch.variable_action] = variables
    extended_probabilities, extended_values = _ExtendedTree(tree).evaluate(table)
    np.testing.assert_allclose(extended_probabilities.astype(float), probabilities, atol=1e-14)
    np.testing.assert_allclose(extended_values.astype(float), action_values, atol=1e-12)


def test_bad_input_and_unreachable_tolerance_fail_loudly() -> None:
    with pytest.raises(ValueError, match="non-negative"):
        trace_logit_qre(KuhnPoker(), [1.0, -2.0])
    with pytest.raises(QREError, match="residual"):
        trace_logit_qre(KuhnPoker(), [50.0], tolerance=1e-30)


# ---- Gambit (optional peer) -------------------------------------------------------------------


@pytest.mark.parametrize("game", [KuhnPoker(), AKQGame(2.0)], ids=["kuhn", "akq"])
def test_agrees_with_gambit_logit_tracing(game: Game) -> None:
    gbt = pytest.importorskip("pygambit")
    gambit, order = to_gambit(game)
    lambdas = [0.5, 5.0, 50.0]
    theirs = gbt.qre.logit_solve_lambda(gambit, lam=lambdas, use_strategic=False)
    ours = trace_logit_qre(game, [profile.lam for profile in theirs]).points
    for profile, point in zip(theirs, ours, strict=True):
        table = point.policy.to_dict()
        for index, (key, name) in enumerate(order):
            assert table[key][name] == pytest.approx(profile[index], abs=1e-7)
