"""The linear card-removal sweep for river payoffs: the same values and the same solve as dense matrices."""

from __future__ import annotations

import numpy as np
import pytest

from pokerai.abstraction.bets import BetAbstraction
from pokerai.engine.cards import parse_cards
from pokerai.engine.state import Action, HUNLConfig, HUNLState
from pokerai.search.combos import ALL_COMBOS, CARD_IN_COMBO, COMBO_INDEX, NUM_COMBOS
from pokerai.search.payoffs import RiverPayoffs
from pokerai.search.showdown import (
    FOLD_MATRIX,
    SHOWDOWN_MATRIX,
    river_card_payoffs,
    river_matrices,
    river_pair_matrices,
    river_ranks,
)
from pokerai.search.subgame import (
    SHARES_NO_CARD,
    SHOWDOWN,
    CardPayoffs,
    _sorted_card_values,
    inner_solution,
    solve,
    with_resolve_gadget,
)
from pokerai.search.tree import StreetTree, build_street_tree
from tests.search.hunl_spots import CHECKED_DOWN

BOARDS = ("Qs9h2c5d3s", "7h7d7s2c2d", "AsKsQsJsTs", "8c8d9h9sKc")
"""A dry board, a full house on board (many ties), a royal flush on board (every hand ties) and
two pair with a kicker on board."""


@pytest.mark.parametrize("board_text", BOARDS)
def test_sweep_matches_dense_products(board_text: str) -> None:
    board = tuple(parse_cards(board_text))
    hands, valid, showdown = river_matrices(board)
    rng = np.random.default_rng(7)
    subset = np.sort(rng.choice(len(hands), size=600, replace=False))
    structure = river_card_payoffs(board, hands[subset])
    reach = rng.random((3, subset.size))
    reach[1, rng.random(subset.size) < 0.7] = 0.0  # a sparse range, as after Bayes
    order = np.argsort(structure.ranks, kind="stable").astype(np.int64)
    sorted_reach = np.ascontiguousarray(reach[:, order])
    cards = np.ascontiguousarray(structure.cards[order])
    rows = np.arange(len(reach), dtype=np.int64)
    for kind, dense in ((SHARES_NO_CARD, valid), (SHOWDOWN, showdown)):
        matrix = dense[np.ix_(subset, subset)]
        fast = np.empty_like(reach)
        factor = np.ones(len(reach))
        _sorted_card_values(sorted_reach, rows, kind, structure.ranks[order], cards, factor, fast)
        np.testing.assert_allclose(fast, (reach @ matrix.T)[:, order], rtol=1e-12, atol=1e-9)


@pytest.mark.parametrize("board_text", BOARDS)
def test_pair_blocks_match_the_boards_matrices(board_text: str) -> None:
    board = tuple(parse_cards(board_text))
    hands, valid, showdown = river_matrices(board)
    rng = np.random.default_rng(5)
    rows = rng.choice(len(hands), size=300, replace=False)  # unsorted, so that order does not matter
    columns = np.sort(rng.choice(len(hands), size=500, replace=False))
    block_valid, block_showdown = river_pair_matrices(board, hands[rows], hands[columns])
    np.testing.assert_array_equal(block_valid, valid[np.ix_(rows, columns)])
    np.testing.assert_array_equal(block_showdown, showdown[np.ix_(rows, columns)])
    # Oracle for the whole matrices: shared cards counted by a product of card memberships, and
    # the showdown ranks of the evaluator.
    _, ranks = river_ranks(board)
    membership = CARD_IN_COMBO[:, hands].astype(np.float64)
    expected_valid = (membership.T @ membership == 0).astype(np.float64)
    np.testing.assert_array_equal(valid, expected_valid)
    np.testing.assert_array_equal(showdown, np.sign(ranks[:, None] - ranks[None, :]) * expected_valid)
    for i, j in rng.integers(0, len(hands), size=(50, 2)):
        shared = bool(set(ALL_COMBOS[hands[i]]) & set(ALL_COMBOS[hands[j]]))
        assert valid[i, j] == (0.0 if shared else 1.0)
    with pytest.raises(ValueError, match="free of board cards"):
        river_pair_matrices(board, np.array([COMBO_INDEX[board[0], board[1]]]), hands[:3])


def river_subgame_for(board_text: str) -> tuple[HUNLState, StreetTree]:
    """A checked-down river spot on ``board_text`` with uneven beliefs over every hand."""
    deck = parse_cards("AhKd 4c4h") + parse_cards(board_text)
    state = HUNLState.new(HUNLConfig(), 0, deck=deck)
    for player, kind, amount in CHECKED_DOWN:
        state.apply(Action(player, kind, amount))
    rng = np.random.default_rng(3)
    beliefs = rng.random((2, NUM_COMBOS)) ** 3
    payoffs = RiverPayoffs(tuple(state.board), river_ranks(tuple(state.board))[0])
    return state, build_street_tree(state, BetAbstraction(), payoffs, beliefs[:, payoffs.hands], max_raises=2)


@pytest.mark.parametrize("board_text", BOARDS[:2])
def test_solve_with_card_payoffs_equals_the_dense_solve(board_text: str) -> None:
    state, river = river_subgame_for(board_text)
    structure = river_card_payoffs(state.board, river.hands)
    dense = solve(river.subgame, 30)
    fast = solve(river.subgame, 30, card_payoffs=structure)
    assert fast.iterations == dense.iterations == 30
    np.testing.assert_allclose(fast.average, dense.average, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(fast.current, dense.current, rtol=1e-7, atol=1e-9)


def test_a_partly_fixed_solve_is_the_same_with_card_payoffs() -> None:
    """The sweep works on the hands in rank order: fixed strategies, given in the subgame's order,
    must be reordered with them, and the solution put back."""
    state, river = river_subgame_for(BOARDS[3])
    subgame = river.subgame
    rng = np.random.default_rng(5)
    fixed = {}
    for weight, node in zip((1.0, 0.4), subgame.decisions[:2], strict=True):
        rows = rng.random((subgame.num_hands, len(subgame.children(int(node))))) + 0.05
        fixed[int(node)] = (weight, rows / rows.sum(axis=1, keepdims=True))
    structure = river_card_payoffs(state.board, river.hands)
    dense = solve(subgame, 30, fixed=fixed)
    fast = solve(subgame, 30, card_payoffs=structure, fixed=fixed)
    np.testing.assert_allclose(fast.average, dense.average, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(fast.current, dense.current, rtol=1e-7, atol=1e-9)


def test_the_safe_gadget_solve_is_the_same_with_card_payoffs() -> None:
    state, river = river_subgame_for(BOARDS[0])
    subgame = river.subgame
    rng = np.random.default_rng(11)
    blueprint = rng.random((subgame.num_nodes, subgame.num_hands)) + 0.05  # no exact regret ties
    for node in subgame.decisions:
        children = subgame.children(node)
        blueprint[children.start : children.stop] /= blueprint[children.start : children.stop].sum(axis=0)
    blueprint[0] = 1.0
    assert state.to_act is not None
    gadget = with_resolve_gadget(river.root, subgame, blueprint, state.to_act, valid=FOLD_MATRIX)
    assert len(gadget.game.matrices) == 3, "fold, showdown and the dense opt-out matrix"
    structure = river_card_payoffs(state.board, river.hands)
    dense = inner_solution(solve(gadget.game, 30), gadget)
    fast = inner_solution(solve(gadget.game, 30, card_payoffs=structure), gadget)
    np.testing.assert_allclose(fast.average, dense.average, rtol=1e-7, atol=1e-9)


def test_a_structure_that_does_not_fit_is_refused() -> None:
    state, river = river_subgame_for(BOARDS[0])
    structure = river_card_payoffs(state.board, river.hands)
    swapped = CardPayoffs(
        structure.cards, structure.ranks, {FOLD_MATRIX: SHOWDOWN, SHOWDOWN_MATRIX: SHOWDOWN}
    )
    with pytest.raises(ValueError, match="payoff matrix 0 is not the card-structured matrix"):
        solve(river.subgame, 2, card_payoffs=swapped)
    shuffled = CardPayoffs(structure.cards, structure.ranks[::-1].copy(), structure.kinds)
    with pytest.raises(ValueError, match="payoff matrix 1 is not"):
        solve(river.subgame, 2, card_payoffs=shuffled)
    with pytest.raises(ValueError, match="describe 3 hands"):
        solve(river.subgame, 2, card_payoffs=CardPayoffs(structure.cards[:3], structure.ranks[:3], {}))
    with pytest.raises(ValueError, match="two different cards"):
        CardPayoffs(np.array([[4, 4]]), np.array([1]), {})
    with pytest.raises(ValueError, match="kinds"):
        CardPayoffs(np.array([[4, 5]]), np.array([1]), {0: 7})
