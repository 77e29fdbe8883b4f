"""Minimax, alpha-beta and expectimax on the seed tree, tic-tac-toe, random trees and a dice game."""

from __future__ import annotations

import numpy as np
import pytest

from pokerai.solvers.minimax import (
    MAX,
    MIN,
    ChanceNode,
    DiceGameState,
    ExplicitTreeState,
    PerfectInfoState,
    SearchResult,
    TicTacToeState,
    alphabeta,
    evaluation_order,
    expectimax,
    minimax,
    tictactoe_order,
)

# Seed 002 (AIMA fig. 5.2): MIN's values are 3, 2, 2; MAX plays a1 for 3.
SEED_TREE = {"a1": [3, 12, 8], "a2": [2, 4, 6], "a3": [14, 5, 2]}


def test_seed_tree_minimax() -> None:
    root = ExplicitTreeState(SEED_TREE)
    assert root.to_move() == MAX and root.result("a1").to_move() == MIN
    assert [minimax(root.result(a)).value for a in ("a1", "a2", "a3")] == [3.0, 2.0, 2.0]
    assert minimax(root) == SearchResult(3.0, "a1", 13)  # root + 3 MIN nodes + 9 leaves
    assert expectimax(root) == SearchResult(3.0, "a1", 13)  # no chance nodes: same as minimax


def test_seed_tree_alphabeta_prunes_two_leaves() -> None:
    """AIMA fig. 5.5: after a2's first leaf (2 <= alpha = 3) its leaves 4 and 6 are cut off."""
    assert alphabeta(ExplicitTreeState(SEED_TREE)) == SearchResult(3.0, "a1", 11)
    # Worst ordering for MIN (largest leaf first) prunes nothing in a2 ...
    worst = {"a1": [12, 8, 3], "a2": [6, 4, 2], "a3": [14, 5, 2]}
    assert alphabeta(ExplicitTreeState(worst)).nodes == 13  # every MIN node's lowest leaf comes last
    # ... and MIN-side ordering by leaf value (low first) prunes the most.
    order = evaluation_order(lambda s: s.utility() if s.is_terminal() else 0.0)
    assert alphabeta(ExplicitTreeState(worst), order=order) == SearchResult(3.0, "a1", 9)


def test_depth_limit_uses_the_evaluation() -> None:
    root = ExplicitTreeState(SEED_TREE)

    def optimistic(state: PerfectInfoState) -> float:
        """The largest leaf below ``state``."""
        if state.is_terminal():
            return state.utility()
        return max(optimistic(state.result(a)) for a in state.actions())

    # At depth 1 the MIN nodes are scored by their best leaf: a3 looks best (horizon effect).
    for search in (minimax, alphabeta, expectimax):
        assert search(root, 1, optimistic) == SearchResult(14.0, "a3", 4)
        assert search(root, 2, optimistic).value == 3.0  # leaves are terminal: no evaluation
    assert minimax(root, 0, optimistic) == SearchResult(14.0, None, 1)
    with pytest.raises(ValueError, match=r"depth limit .* needs an evaluation function"):
        minimax(root, 2)
    with pytest.raises(ValueError, match=r"depth limit .* needs an evaluation function"):
        alphabeta(root, 2)
    with pytest.raises(ValueError, match="non-negative"):
        expectimax(root, -1, optimistic)


def test_tictactoe_is_a_draw() -> None:
    """5,478 distinct legal positions follow the empty board; with a table each is searched once."""
    empty = TicTacToeState()
    table: dict = {}
    result = minimax(empty, table=table)
    assert result.value == 0.0
    assert result.nodes == 5478 == len(table)
    assert alphabeta(empty).value == 0.0
    assert alphabeta(empty, order=tictactoe_order).value == 0.0
    assert expectimax(empty, table={}).value == 0.0


@pytest.mark.slow
def test_tictactoe_full_minimax_node_count() -> None:
    """The full tic-tac-toe game tree has 549,946 nodes (255,168 games); minimax visits them all."""
    assert minimax(TicTacToeState()) == SearchResult(0.0, 0, 549_946)


def test_tictactoe_finds_wins_and_blocks() -> None:
    # X to move with X X . on the top row: X wins at once.
    win = minimax(TicTacToeState("XX.OO...."))
    assert (win.value, win.move) == (1.0, 2)
    # O to move must block square 2; every other move loses.
    position = TicTacToeState("XX..O....")
    assert position.to_move() == MIN
    result = alphabeta(position, order=tictactoe_order)
    assert result.move == 2
    assert result.value == minimax(position).value
    with pytest.raises(ValueError, match="not an empty square"):
        position.result(0)


def random_tictactoe_positions(rng: np.random.Generator, count: int) -> list[TicTacToeState]:
    """Positions after 3 to 8 random legal moves (terminal ones included)."""
    positions: list[TicTacToeState] = []
    while len(positions) < count:
        state = TicTacToeState()
        for _ in range(int(rng.integers(3, 9))):
            if state.is_terminal():
                break
            actions = state.actions()
            state = state.result(actions[int(rng.integers(len(actions)))])
        positions.append(state)
    return positions


def random_tree(rng: np.random.Generator, depth: int) -> object:
    if depth == 0:
        return int(rng.integers(-20, 21))
    return [random_tree(rng, depth - 1) for _ in range(int(rng.integers(2, 5)))]


def test_alphabeta_equals_minimax_on_random_positions_with_fewer_nodes() -> None:
    rng = np.random.default_rng(7)
    positions: list[PerfectInfoState] = [*random_tictactoe_positions(rng, 60)]
    positions += [ExplicitTreeState(random_tree(rng, int(rng.integers(2, 6)))) for _ in range(60)]
    totals = {"minimax": 0, "alphabeta": 0, "ordered": 0}
    for state in positions:
        exact = minimax(state)
        plain = alphabeta(state)
        if isinstance(state, TicTacToeState):
            ordered = alphabeta(state, order=tictactoe_order)
        else:
            # Perfect ordering: each move scored by its exact minimax value.
            ordered = alphabeta(state, order=evaluation_order(lambda s: minimax(s).value))
        for result in (plain, ordered):
            assert result.value == exact.value
            assert result.nodes <= exact.nodes
            if not state.is_terminal():  # the move alpha-beta returns is optimal
                assert minimax(state.result(result.move)).value == exact.value
        assert plain.move == exact.move  # same order, same tie-breaking
        assert minimax(state, table={}).value == exact.value
        totals["minimax"] += exact.nodes
        totals["alphabeta"] += plain.nodes
        totals["ordered"] += ordered.nodes
    assert totals["alphabeta"] < 0.5 * totals["minimax"], totals
    assert totals["ordered"] < totals["alphabeta"], totals


def test_depth_limited_alphabeta_equals_depth_limited_minimax() -> None:
    def open_lines(state: PerfectInfoState) -> float:
        """Lines still open for X minus lines still open for O."""
        assert isinstance(state, TicTacToeState)
        board = state.board
        lines = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))
        return float(
            sum("O" not in (board[a], board[b], board[c]) for a, b, c in lines)
            - sum("X" not in (board[a], board[b], board[c]) for a, b, c in lines)
        )

    rng = np.random.default_rng(3)
    positions = [TicTacToeState(), *random_tictactoe_positions(rng, 20)]
    for state in positions:
        for depth in (1, 2, 3):
            exact = minimax(state, depth, open_lines)
            pruned = alphabeta(state, depth, open_lines)
            assert pruned.value == exact.value
            assert pruned.nodes <= exact.nodes
            assert minimax(state, depth, open_lines, table={}).value == exact.value


def test_expectimax_dice_game() -> None:
    """Hand-computed value of the dice game.

    After a roll d, MIN accepts d or forces a reroll worth E[die] = 3.5 to MAX,
    so MIN's value is min(d, 3.5): 1, 2, 3, 3.5, 3.5, 3.5, whose mean is
    16.5 / 6 = 2.75. MAX rolls when standing is worth less (2.5 -> value 2.75)
    and stands otherwise (3 -> value 3). Nodes: root, stand's leaf, the roll,
    and per face a MIN node, its accept leaf, a reroll chance node and 6 leaves:
    3 + 6 * 9 = 57.
    """
    result = expectimax(DiceGameState(stand_value=2.5))
    assert result.value == pytest.approx(2.75, abs=1e-12)
    assert (result.move, result.nodes) == ("roll", 57)
    assert expectimax(DiceGameState(stand_value=3.0)) == SearchResult(3.0, "stand", 57)
    rolled = DiceGameState().result("roll").result(4)
    assert expectimax(rolled) == SearchResult(3.5, "reroll", 9)
    assert expectimax(rolled.result("reroll")).value == pytest.approx(3.5, abs=1e-12)
    assert expectimax(DiceGameState(), table={}).value == pytest.approx(2.75, abs=1e-12)


def test_expectimax_depends_on_the_utility_scale() -> None:
    """Seed 002: unlike minimax, expectimax is not invariant to monotone transforms of the leaves."""
    sure, gamble = 4.0, ChanceNode(((0.5, 0.0), (0.5, 10.0)))
    assert expectimax(ExplicitTreeState({"sure": sure, "gamble": gamble})).move == "gamble"  # 5 > 4
    squashed = ChanceNode(((0.5, 0.0), (0.5, 6.0)))  # 0 < 4 < 10 mapped to 0 < 4 < 6
    assert expectimax(ExplicitTreeState({"sure": sure, "gamble": squashed})).move == "sure"  # 3 < 4


def test_alphabeta_and_minimax_refuse_chance_nodes() -> None:
    with pytest.raises(ValueError, match=r"alphabeta cannot search the chance node .*use expectimax"):
        alphabeta(DiceGameState())
    with pytest.raises(ValueError, match=r"minimax cannot search the chance node .*use expectimax"):
        minimax(DiceGameState())
    with pytest.raises(ValueError, match="alphabeta cannot search the chance node"):
        alphabeta(DiceGameState().result("roll"))  # a chance root, too
    tree = ExplicitTreeState([ChanceNode(((0.5, 1.0), (0.5, 3.0))), 0.0])
    assert expectimax(tree) == SearchResult(2.0, 0, 5)
    with pytest.raises(ValueError, match="average of all its children"):
        alphabeta(tree)


def test_bad_trees_and_moves_are_clear_errors() -> None:
    with pytest.raises(ValueError, match="sum to 1"):
        ChanceNode(((0.5, 1.0), (0.4, 2.0)))
    with pytest.raises(ValueError, match="not legal"):
        ExplicitTreeState(SEED_TREE).result("a4")
    with pytest.raises(ValueError, match="not legal"):
        DiceGameState().result("accept")
