"""The rollouts that value the street pipeline's depth-limited leaves, checked on river-start leaves.

A leaf at the end of the turn is valued by :func:`~pokerai.search.rollouts.rollout_matrices`
over sampled river cards; the oracle walks the engine's river tree hand by hand.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
import pytest

from pokerai.abstraction.bets import CHECK_CALL_SLOT, FOLD_SLOT
from pokerai.deepcfr.export import Blueprint
from pokerai.engine.evaluator import rank_hands
from pokerai.engine.state import ActionKind, HUNLState, Street
from pokerai.search.beliefs import combo_probabilities
from pokerai.search.combos import ALL_COMBOS, combo_index
from pokerai.search.equity import (
    FLOP_LEAF_TURNS,
    FLOP_RIVERS_PER_TURN,
    card_showdowns,
    flop_matrices,
    next_cards,
    turn_street_matrices,
)
from pokerai.search.rollouts import CONTINUATIONS, LeafSettings, rollout_matrices
from tests.search.hunl_spots import DECK, scripted


def leaf_matrices(
    blueprint: Blueprint,
    leaf: HUNLState,
    hands: npt.NDArray[np.int64],
    cards: Sequence[int],
    chooser: int,
    continuations: Sequence[str] = CONTINUATIONS,
    *,
    threshold: float = 0.0,
    max_raises: int | None = 1,
    bias: float = 5.0,
) -> list[npt.NDArray[np.float32]]:
    """The rollout values of the river-start ``leaf`` per pair of ``hands`` (turn board hands)."""
    all_hands, valid, _, ranks = turn_street_matrices(tuple(leaf.board[:4]))
    rows = np.searchsorted(all_hands, hands)
    card_ranks = np.ascontiguousarray(ranks[np.ix_(np.asarray(cards), rows)])
    showdown = card_showdowns(card_ranks, np.ascontiguousarray(valid[np.ix_(rows, rows)]))
    settings = LeafSettings(tuple(continuations), len(cards), max_raises, bias)
    return rollout_matrices(blueprint, leaf, hands, list(cards), showdown, chooser, settings, threshold)


TO_TURN = [
    (0, ActionKind.CALL, 50),
    (1, ActionKind.CHECK, 0),
    (1, ActionKind.CHECK, 0),
    (0, ActionKind.CHECK, 0),
]
"""Limp, check, and checks on the flop: the big blind (player 1) acts first on the turn."""


def test_the_equity_matrix_is_the_mean_showdown_over_the_river_cards() -> None:
    board = tuple(DECK[4:8])
    hands, valid, equity, _ = turn_street_matrices(board)
    assert len(hands) == 1128  # C(48, 2)
    assert np.allclose(equity, -equity.T)
    rng = np.random.default_rng(0)
    checked = 0
    while checked < 12:
        i, j = rng.choice(len(hands), size=2, replace=False)
        first, second = ALL_COMBOS[hands[i]], ALL_COMBOS[hands[j]]
        if set(first.tolist()) & set(second.tolist()):
            assert valid[i, j] == 0 and equity[i, j] == 0
            continue
        rivers = [card for card in range(52) if card not in {*board, *first.tolist(), *second.tolist()}]
        assert len(rivers) == 44
        mine = np.array([[*first, *board, river] for river in rivers])
        theirs = np.array([[*second, *board, river] for river in rivers])
        expected = np.sign(rank_hands(mine).astype(np.int64) - rank_hands(theirs).astype(np.int64)).mean()
        assert valid[i, j] == 1 and equity[i, j] == pytest.approx(expected)
        checked += 1


def test_the_flop_matrices_are_the_mean_showdown_over_their_seeded_run_outs() -> None:
    board = tuple(DECK[4:7])
    hands, valid, equity, turns, per_turn = flop_matrices(board)
    assert len(hands) == 1176  # C(49, 2)
    assert per_turn.shape == (FLOP_LEAF_TURNS, 1176, 1176)
    assert np.array_equal(equity, -equity.T) and np.array_equal(per_turn, -per_turn.transpose(0, 2, 1))
    runouts = [
        (turn, river) for turn in turns for river in next_cards((*board, turn), FLOP_RIVERS_PER_TURN, "river")
    ]
    rng = np.random.default_rng(1)
    checked = 0
    while checked < 8:
        i, j = rng.choice(len(hands), size=2, replace=False)
        first, second = ALL_COMBOS[hands[i]].tolist(), ALL_COMBOS[hands[j]].tolist()
        if set(first) & set(second):
            assert valid[i, j] == 0 and equity[i, j] == 0
            continue
        signs: dict[int, list[int]] = {}
        for turn, river in runouts:
            if {turn, river} & {*first, *second}:
                continue  # a run-out that either hand blocks is not counted
            ours, theirs = rank_hands(
                np.array([[*first, *board, turn, river], [*second, *board, turn, river]])
            )
            signs.setdefault(turn, []).append(int(np.sign(int(ours) - int(theirs))))
        every = [sign for turn_signs in signs.values() for sign in turn_signs]
        assert valid[i, j] == 1 and equity[i, j] == pytest.approx(np.mean(every))
        for index, turn in enumerate(turns[:FLOP_LEAF_TURNS]):
            expected = np.mean(signs[turn]) if turn in signs else 0.0
            assert per_turn[index, i, j] == pytest.approx(expected, abs=1e-6)
        checked += 1


def test_next_cards_are_a_seeded_sample_of_the_unseen_cards() -> None:
    board = tuple(DECK[4:8])
    first = next_cards(board, 8, "history")
    assert first == next_cards(board, 8, "history")
    assert len(set(first)) == 8 and not set(first) & set(board)
    assert first != next_cards(board, 8, "other history")
    assert next_cards(board, 48, "history") == tuple(c for c in range(52) if c not in board)


def _rollout_value(
    blueprint: Blueprint,
    state: HUNLState,
    hole: dict[int, tuple[int, int]],
    chooser: int,
    continuation: str,
    raises: int,
    max_raises: int,
) -> float:
    """Oracle: player 0's expected result from ``state`` by walking the engine's river tree hand by hand."""
    if state.is_over:
        return float(state.returns()[0])
    player = state.to_act
    assert player is not None
    combo = np.array([combo_index(*hole[player])])
    legal, amounts, probabilities = combo_probabilities(blueprint, state, combo, 0.3)
    allowed = [s for s in legal if s in (FOLD_SLOT, CHECK_CALL_SLOT) or raises < max_raises]
    weights = probabilities[0, allowed]
    if player == chooser and continuation != "blueprint":
        favoured = {
            "fold": [s == FOLD_SLOT for s in allowed],
            "call": [s == CHECK_CALL_SLOT for s in allowed],
            "raise": [s not in (FOLD_SLOT, CHECK_CALL_SLOT) for s in allowed],
        }[continuation]
        weights = weights * np.where(favoured, 5.0, 1.0)
    weights = weights / weights.sum() if weights.sum() > 0 else np.full(len(allowed), 1 / len(allowed))
    value = 0.0
    for slot, weight in zip(allowed, weights, strict=True):
        if weight == 0:
            continue
        kind = (
            ActionKind.FOLD
            if slot == FOLD_SLOT
            else ActionKind.CALL
            if slot == CHECK_CALL_SLOT
            else ActionKind.RAISE
        )
        is_raise = kind is ActionKind.RAISE
        child = state.after(kind, amounts[slot])
        value += weight * _rollout_value(
            blueprint, child, hole, chooser, continuation, raises + is_raise, max_raises
        )
    return value


@pytest.mark.parametrize("continuation", ["blueprint", "raise"])
def test_leaf_values_match_a_walk_of_the_river_tree_for_each_pair(
    blueprint: Blueprint, continuation: str
) -> None:
    turn = scripted(blueprint, TO_TURN)
    leaf = turn.after(ActionKind.CHECK).after(ActionKind.CHECK)
    assert leaf.street == Street.RIVER and not leaf.is_over
    board = tuple(turn.board)
    all_hands = turn_street_matrices(board)[0]
    hands = all_hands[[0, 5, 100, 400, 700, 1127]]
    cards = next_cards(board, 6, "test")
    chooser = 0
    found = leaf_matrices(
        blueprint, leaf, hands, cards, chooser, [continuation], threshold=0.3, max_raises=1
    )[0]
    for i, first in enumerate(hands):
        for j, second in enumerate(hands):
            a, b = ALL_COMBOS[first].tolist(), ALL_COMBOS[second].tolist()
            if set(a) & set(b):
                assert found[i, j] == 0
                continue
            values = []
            for river in cards:
                if river in a or river in b:
                    continue
                state = leaf.clone()
                state.deal = (*a, *b, *board, river)
                values.append(
                    _rollout_value(
                        blueprint, state, {0: (a[0], a[1]), 1: (b[0], b[1])}, chooser, continuation, 0, 1
                    )
                )
            assert found[i, j] == pytest.approx(np.mean(values), abs=1e-3, rel=1e-5)


def test_a_bias_of_one_makes_every_continuation_the_blueprint(blueprint: Blueprint) -> None:
    turn = scripted(blueprint, TO_TURN)
    leaf = turn.after(ActionKind.RAISE, 100).after(ActionKind.CALL)
    hands = turn_street_matrices(tuple(turn.board))[0][::50]
    cards = next_cards(tuple(turn.board), 5, "x")
    matrices = leaf_matrices(blueprint, leaf, hands, cards, 1, CONTINUATIONS, bias=1.0)
    for matrix in matrices[1:]:  # rollouts run in float32
        np.testing.assert_allclose(matrix, matrices[0], rtol=1e-5, atol=1e-3)
    biased = leaf_matrices(blueprint, leaf, hands, cards, 1, CONTINUATIONS)
    assert not np.allclose(biased[1], biased[0]) and not np.allclose(biased[3], biased[0])
