"""Exact evaluation: expected values, best responses, exploitability."""

from __future__ import annotations

import numpy as np
import pytest

from pokerai.games import AKQGame, Game, KuhnPoker, LeducPoker, make_game
from pokerai.solvers import TabularPolicy, best_response, expected_values, exploitability, nash_conv, tree_of
from tests.solvers.reference import best_response_value, expected_value, reference_exploitability


def first_action_policy(game: Game) -> TabularPolicy:
    """Always the lowest action id: check/fold in Kuhn and AKQ, fold-or-check in Leduc."""
    tree = tree_of(game)
    weights = np.zeros(tree.legal_mask.shape)
    weights[np.arange(tree.num_infosets), tree.legal_mask.argmax(axis=1)] = 1.0
    return TabularPolicy(tree, weights)


def kuhn_nash(alpha: float) -> TabularPolicy:
    """The analytic Kuhn equilibrium with player 0's parameter alpha in [0, 1/3].

    Kuhn, "A Simplified Two-Person Poker", 1950.
    """
    bet, call = "bet", "call"
    rows = {
        "J:": {bet: alpha}, "Q:": {bet: 0.0}, "K:": {bet: 3 * alpha},
        "J:pb": {call: 0.0}, "Q:pb": {call: alpha + 1 / 3}, "K:pb": {call: 1.0},
        "J:b": {call: 0.0}, "Q:b": {call: 1 / 3}, "K:b": {call: 1.0},
        "J:p": {bet: 1 / 3}, "Q:p": {bet: 0.0}, "K:p": {bet: 1.0},
    }  # fmt: skip
    table = {}
    for key, row in rows.items():
        ((name, p),) = row.items()
        other = {"bet": "check", "call": "fold"}[name]
        table[key] = {name: p, other: 1.0 - p}
    return TabularPolicy.from_dict(tree_of(KuhnPoker()), table)


def test_kuhn_uniform_and_always_pass() -> None:
    uniform = TabularPolicy.uniform(tree_of(KuhnPoker()))
    # OpenSpiel's published NashConv of the uniform policy on Kuhn is 11/12.
    assert nash_conv(uniform) == pytest.approx(11 / 12, abs=1e-12)
    assert exploitability(uniform) == pytest.approx(11 / 24, abs=1e-12)
    # Always check/fold: every game is check-check, value 0. A best responder
    # bets every hand and the passer folds, winning the ante: BR_0 = BR_1 = 1,
    # so NashConv = 2 and exploitability = 1.
    passive = first_action_policy(KuhnPoker())
    assert expected_values(passive) == (0.0, -0.0)
    assert best_response(passive, 0).value == pytest.approx(1.0)
    assert best_response(passive, 1).value == pytest.approx(1.0)
    assert exploitability(passive) == pytest.approx(1.0, abs=1e-12)


@pytest.mark.parametrize("alpha", [0.0, 1 / 6, 1 / 3])
def test_kuhn_analytic_equilibrium(alpha: float) -> None:
    policy = kuhn_nash(alpha)
    assert expected_values(policy)[0] == pytest.approx(-1 / 18, abs=1e-12)
    assert exploitability(policy) == pytest.approx(0.0, abs=1e-12)
    # Off the equilibrium family: betting Q sometimes is exploitable.
    table = policy.to_dict()
    table["Q:"] = {"check": 0.8, "bet": 0.2}
    assert exploitability(TabularPolicy.from_dict(policy.tree, table)) > 1e-3


@pytest.mark.parametrize("bet_size", [0.5, 1.0, 2.0])
def test_akq_closed_form_is_an_equilibrium(bet_size: float) -> None:
    b = bet_size
    tree = tree_of(AKQGame(b))
    policy = TabularPolicy.from_dict(tree, {
        "A:": {"bet": 1.0, "check": 0.0},
        "Q:": {"bet": b / (1 + b), "check": 1 / (1 + b)},
        "K:b": {"call": 1 / (1 + b), "fold": b / (1 + b)},
    })  # fmt: skip
    assert expected_values(policy)[0] == pytest.approx(b / (2 * (1 + b)), abs=1e-12)
    assert exploitability(policy) == pytest.approx(0.0, abs=1e-12)


@pytest.mark.parametrize("name", ["kuhn", "leduc", "akq"])
def test_fast_evaluation_matches_reference(name: str) -> None:
    """Random policies: the compiled best response agrees with the slow recursive one."""
    game = make_game(name)
    tree = tree_of(game)
    rng = np.random.default_rng(7)
    for _ in range(3 if name != "leduc" else 1):
        policy = TabularPolicy.from_weights(tree, rng.random(tree.legal_mask.shape) ** 3)
        assert expected_values(policy)[0] == pytest.approx(
            expected_value(game, policy.action_probabilities), abs=1e-12
        )
        for player in (0, 1):
            assert best_response(policy, player).value == pytest.approx(
                best_response_value(game, policy.action_probabilities, player), abs=1e-12
            )
        assert exploitability(policy) == pytest.approx(
            reference_exploitability(game, policy.action_probabilities), abs=1e-12
        )


def test_leduc_uniform_nash_conv() -> None:
    # OpenSpiel reports NashConv 4.747222... for the uniform policy on leduc_poker.
    assert nash_conv(TabularPolicy.uniform(tree_of(LeducPoker()))) == pytest.approx(4.747222222222222)


def test_best_response_actions_exploit_always_pass() -> None:
    response = best_response(first_action_policy(KuhnPoker()), 0)
    # J and Q gain by betting (the passer folds); K wins the antes either way.
    assert response.actions["J:"] == 1 and response.actions["Q:"] == 1
    with pytest.raises(ValueError, match="player must be 0 or 1"):
        best_response(first_action_policy(KuhnPoker()), 2)
