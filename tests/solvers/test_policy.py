"""The tabular policy type."""

from __future__ import annotations

import numpy as np
import pytest

from pokerai.games import KuhnPoker, LeducPoker
from pokerai.solvers import TabularPolicy, tree_of


def test_dict_round_trip_and_lookup() -> None:
    tree = tree_of(LeducPoker())
    rng = np.random.default_rng(0)
    policy = TabularPolicy.from_weights(tree, rng.random(tree.legal_mask.shape))
    again = TabularPolicy.from_dict(tree, policy.to_dict())
    np.testing.assert_allclose(again.probabilities, policy.probabilities, atol=1e-15)
    state = LeducPoker().initial_state().child(4).child(0)
    probabilities = policy.action_probabilities(state)
    assert set(probabilities) == {1, 2}
    row = policy.probabilities[tree.infoset_index("Ks:")]
    assert probabilities == {1: row[1], 2: row[2]}


def test_zero_weights_give_uniform_not_nan() -> None:
    tree = tree_of(LeducPoker())
    policy = TabularPolicy.from_weights(tree, np.zeros(tree.legal_mask.shape))
    assert not np.isnan(policy.probabilities).any()
    np.testing.assert_allclose(policy.probabilities.sum(axis=1), 1.0)
    assert policy.to_dict()["Ks:rr"] == {"fold": 0.5, "call": 0.5}


def test_bad_tables_are_clear_errors() -> None:
    tree = tree_of(KuhnPoker())
    with pytest.raises(KeyError, match="kuhn has no information set 'X:'"):
        TabularPolicy.from_dict(tree, {"X:": {"bet": 1.0}})
    with pytest.raises(ValueError, match="has no action 'raise'; its actions are check, bet"):
        TabularPolicy.from_dict(tree, {"J:": {"raise": 1.0}})
    with pytest.raises(ValueError, match="shape"):
        TabularPolicy(tree, np.ones((3, 2)))
    with pytest.raises(ValueError, match="probability distributions"):
        TabularPolicy(tree, np.ones(tree.legal_mask.shape))


def test_normalize_rows_or_falls_back_and_keeps_float32() -> None:
    from pokerai.solvers.policy import normalize_rows_or

    weights = np.array([[1.0, 3.0, 0.0], [0.0, 0.0, 0.0]], dtype=np.float32)
    rows = normalize_rows_or(weights, 1.0 / 3)
    assert rows.dtype == np.float32
    np.testing.assert_array_equal(rows[0], np.array([0.25, 0.75, 0.0], dtype=np.float32))
    np.testing.assert_array_equal(rows[1], np.full(3, np.float32(1.0 / 3)))
    # A per-row fallback: uniform over the row's legal actions.
    legal = np.array([[True, True, False], [True, False, True]])
    rows = normalize_rows_or(weights.astype(np.float64), legal / legal.sum(axis=1, keepdims=True))
    np.testing.assert_array_equal(rows[1], [0.5, 0.0, 0.5])
