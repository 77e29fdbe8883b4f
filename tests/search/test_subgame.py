"""The public-tree CFR+ solver of real-time search, on games whose answers are known."""

from __future__ import annotations

import numpy as np
import pytest

from pokerai.search.subgame import (
    DECISION,
    TERMINAL,
    Decision,
    Subgame,
    Terminal,
    blend,
    counterfactual_values,
    inner_solution,
    opt_out_matrix,
    solve,
    with_resolve_gadget,
)

VALID, SHOWDOWN = 0, 1


def kuhn() -> tuple[Decision, list[np.ndarray]]:
    """Kuhn poker after the deal as a public tree over the three cards (J, Q, K)."""
    cards = np.arange(3)
    valid = 1.0 - np.eye(3)
    showdown = np.sign(cards[:, None] - cards[None, :]).astype(float)
    root = Decision(
        0,
        [
            (
                "check",
                Decision(
                    1,
                    [
                        ("check", Terminal(SHOWDOWN, 1)),
                        (
                            "bet",
                            Decision(0, [("fold", Terminal(VALID, -1)), ("call", Terminal(SHOWDOWN, 2))]),
                        ),
                    ],
                ),
            ),
            ("bet", Decision(1, [("fold", Terminal(VALID, 1)), ("call", Terminal(SHOWDOWN, 2))])),
        ],
    )
    return root, [valid, showdown]


def test_layout_puts_parents_first_and_children_together() -> None:
    root, matrices = kuhn()
    game = Subgame.from_nested(root, matrices, np.ones((2, 3)))
    assert game.num_nodes == 9
    assert game.kind[0] == DECISION
    parents = {child: int(node) for node in game.decisions for child in game.children(int(node))}
    assert sorted(parents) == list(range(1, game.num_nodes))
    assert all(parent < child for child, parent in parents.items())
    assert list(game.decisions) == [n for n in range(game.num_nodes) if game.kind[n] == DECISION]
    assert all(game.kind[n] == TERMINAL for n in range(game.num_nodes) if game.num_children[n] == 0)


def test_kuhn_solves_to_its_known_value() -> None:
    root, matrices = kuhn()
    game = Subgame.from_nested(root, matrices, np.ones((2, 3)))
    solution = solve(game, 1000)
    # Six equally likely deals: the root value of player 0 summed over hands, divided by 6.
    value = counterfactual_values(game, solution.average, 0)[0].sum() / 6
    assert value == pytest.approx(-1 / 18, abs=1e-4)
    # Player 0 never bets the queen first; player 1 always calls a bet with the king.
    assert solution.strategy(game, 0)[1, 1] < 0.01
    bet_node = game.children(0)[1]
    assert solution.strategy(game, bet_node)[2, 1] == pytest.approx(1.0)
    for node in game.decisions:
        assert np.allclose(solution.strategy(game, int(node)).sum(axis=1), 1.0)


def test_best_response_values_dominate_the_strategy_values() -> None:
    root, matrices = kuhn()
    game = Subgame.from_nested(root, matrices, np.ones((2, 3)))
    uniform = solve(game, 0).average
    for player in (0, 1):
        plain = counterfactual_values(game, uniform, player)[0]
        best = counterfactual_values(game, uniform, player, best_response=True)[0]
        assert np.all(best >= plain - 1e-12)
        assert np.any(best > plain + 1e-6)


def test_opt_out_matrix_pays_the_alternative_values() -> None:
    rng = np.random.default_rng(0)
    valid = 1.0 - np.eye(4)
    searcher_reach = rng.random(4)
    alternative = rng.normal(size=4)
    for opponent in (0, 1):
        matrix = opt_out_matrix(alternative, opponent, searcher_reach, valid)
        game = Subgame.from_nested(Terminal(0), [matrix], np.tile(searcher_reach, (2, 1)))
        values = counterfactual_values(game, np.ones((1, 4)), opponent)[0]
        assert values == pytest.approx(alternative)


def test_the_gadget_keeps_the_opponent_at_its_blueprint_best_response() -> None:
    """Re-solve Kuhn after player 0 checks, from an equilibrium blueprint: player 0 may not gain."""
    root, matrices = kuhn()
    full = Subgame.from_nested(root, matrices, np.ones((2, 3)))
    equilibrium = solve(full, 3000).average
    check = full.children(0)[0]
    after_check = root.children[0][1]
    assert isinstance(after_check, Decision)
    inner = Subgame.from_nested(after_check, matrices, np.stack([equilibrium[check], np.ones(3)]))
    # The equilibrium restricted to the subgame, in the inner layout.
    blueprint = np.ones((inner.num_nodes, 3))
    to_full = {0: check}
    for node in inner.decisions:
        for inner_child, full_child in zip(
            inner.children(int(node)), full.children(to_full[int(node)]), strict=True
        ):
            to_full[inner_child] = full_child
            blueprint[inner_child] = equilibrium[full_child]
    gadget = with_resolve_gadget(after_check, inner, blueprint, 1, valid=VALID, uniform_weight=0.5)
    safe = gadget.game
    assert safe.player[0] == 0 and safe.label[1] == "enter" and safe.label[2] == "opt-out"
    # Breadth first: node 1 is "enter" (the inner root), 2 "opt-out", then the inner nodes 1.. in order.
    assert gadget.nodes.tolist() == [1, *range(3, inner.num_nodes + 2)]
    assert [safe.label[node] for node in gadget.nodes[1:]] == list(inner.label[1:])
    resolved = inner_solution(solve(safe, 2000), gadget).average
    before = counterfactual_values(inner, blueprint, 0, best_response=True)[0]
    after = counterfactual_values(inner, resolved, 0, best_response=True)[0]
    assert np.all(after <= before + 2e-3)


def test_blend_returns_the_blueprint_at_zero_iterations() -> None:
    blueprint = np.array([[0.2, 0.8], [0.5, 0.5]])
    local = np.array([[1.0, 0.0], [0.0, 1.0]])
    assert np.array_equal(blend(blueprint, local, 0, 100), blueprint)
    assert np.allclose(blend(blueprint, local, 50, 100), 0.5 * blueprint + 0.5 * local)
    assert np.array_equal(blend(blueprint, local, 200, 100), local)
    with pytest.raises(ValueError, match="full_iterations"):
        blend(blueprint, local, 1, 0)


def test_bad_arguments_are_refused() -> None:
    root, matrices = kuhn()
    game = Subgame.from_nested(root, matrices, np.ones((2, 3)))
    with pytest.raises(ValueError, match="iterations"):
        solve(game, -1)
    with pytest.raises(ValueError, match="time budget"):
        solve(game, 1, time_budget_s=-1.0)
    with pytest.raises(ValueError, match="shape"):
        Subgame.from_nested(root, [np.ones((2, 2)), np.ones((3, 3))], np.ones((2, 3)))
    with pytest.raises(ValueError, match="does not exist"):
        Subgame.from_nested(Terminal(5), matrices, np.ones((2, 3)))


def test_time_budget_stops_early_but_runs_one_iteration() -> None:
    root, matrices = kuhn()
    game = Subgame.from_nested(root, matrices, np.ones((2, 3)))
    assert solve(game, 10**6, time_budget_s=0.0).iterations == 1


def test_the_kernel_matches_a_plain_numpy_cfr_plus() -> None:
    """Random payoffs on a random three-level tree: the numba solve equals the node-by-node reference."""
    from tests.search.reference import solve_reference

    rng = np.random.default_rng(7)
    hands = 9
    matrices = [rng.normal(size=(hands, hands)) for _ in range(3)]

    def tree(depth: int, player: int) -> Decision | Terminal:
        if depth <= 0:
            return Terminal(int(rng.integers(3)), float(rng.uniform(0.5, 3.0)))
        width = int(rng.integers(2, 4))
        return Decision(
            player, [(k, tree(depth - 1 - int(rng.integers(2)), 1 - player)) for k in range(width)]
        )

    game = Subgame.from_nested(tree(4, 0), matrices, rng.random((2, hands)))
    solution = solve(game, 25)
    _, average_sum = solve_reference(game, 25)
    expected = np.ones_like(average_sum)
    for node in game.decisions:
        children = game.children(int(node))
        expected[children.start : children.stop] = average_sum[children.start : children.stop] / average_sum[
            children.start : children.stop
        ].sum(axis=0)
    assert np.allclose(solution.average[1:], expected[1:], atol=1e-12)


def test_a_partly_fixed_node_leaves_its_free_part_a_best_response() -> None:
    """Data-biased response: the free part of a partly fixed node best-responds, as if alone.

    Player 0 bets or checks with one of five cards; after a bet player 1 folds, calls or
    raises (then player 0 folds or calls). Half of player 1's strategy there is fixed to
    folding. Its free half must still be a best response to player 0's average strategy:
    measured against the mix instead, an action between the fixed one and the best can keep
    positive regret and take weight it should not.
    """
    cards = np.arange(5)
    valid = 1.0 - np.eye(5)
    showdown = np.sign(cards[:, None] - cards[None, :]).astype(float)
    answer = Decision(
        1,
        [
            ("fold", Terminal(VALID, 1)),
            ("call", Terminal(SHOWDOWN, 2)),
            ("raise", Decision(0, [("fold", Terminal(VALID, -2)), ("call", Terminal(SHOWDOWN, 4))])),
        ],
    )
    root = Decision(0, [("check", Terminal(SHOWDOWN, 1)), ("bet", answer)])
    game = Subgame.from_nested(root, [valid, showdown], np.ones((2, 5)))
    node = 2  # the answer: root 0, then check 1 and bet 2
    assert game.player[node] == 1 and game.num_children[node] == 3
    folding = np.tile([1.0, 0.0, 0.0], (5, 1))
    solution = solve(game, 4000, fixed={node: (0.5, folding)})
    rows = game.children(node)
    mixed = solution.average[rows.start : rows.stop]  # [3 children, 5 hands]
    np.testing.assert_array_less(0.5 - 1e-9, mixed[0])  # at least the fixed half folds
    free = (mixed - 0.5 * folding.T) / 0.5
    values = counterfactual_values(game, solution.average, 1)[rows.start : rows.stop]
    for hand in range(5):
        best = values[:, hand] >= values[:, hand].max() - 1e-3 * max(1.0, np.abs(values[:, hand]).max())
        assert free[best, hand].sum() > 0.95, (hand, free[:, hand], values[:, hand])
    assert not np.all(free[0] > 0.95), "the free part does not just fold"
