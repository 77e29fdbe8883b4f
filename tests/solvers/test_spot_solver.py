"""The postflop range solver against an independent best response, node locking and saving.

The oracle walks the action tree itself, deals every card (no isomorphism), and values terminals
with dense ``[H0, H1]`` payoff matrices built from the evaluator; the strategy it plays against
is read back through :meth:`SpotSolution.node` in the real suits of each path. It shares no code
with the kernel's card-removal sweeps, chance scaling or suit merging.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from pokerai.engine.cards import format_card
from pokerai.engine.evaluator import rank_hands
from pokerai.solvers.postflop import SpotConfig, SpotError, build_spot, load_solution, solve_spot
from pokerai.solvers.postflop.spot import SpotSolution
from pokerai.solvers.postflop.tree import CHANCE, FOLD, SHOWDOWN, ActionNode, action_label


def _payoff_matrix(solution: SpotSolution, node: ActionNode, board: Sequence[int]) -> npt.NDArray[np.float64]:
    """Player 0's chips won since the spot began, ``[H0, H1]``, 0 where hands collide."""
    spot = solution.spot
    h0, h1 = spot.hands
    ok0 = np.asarray(~np.isin(h0, board).any(axis=1), dtype=bool)
    ok1 = np.asarray(~np.isin(h1, board).any(axis=1), dtype=bool)
    share = ~(h0[:, None, :, None] == h1[None, :, None, :]).any(axis=(2, 3))
    valid = share & ok0[:, None] & ok1[None, :]
    half = spot.config.pot / 2
    if node.kind == FOLD:
        amount = half + node.committed[node.player]
        return np.where(valid, -amount if node.player == 0 else amount, 0.0)
    amount = half + node.committed[0]
    safe = [7 * [0] if not ok else [*board, int(a), int(b)] for (a, b), ok in zip(h0, ok0, strict=True)]
    r0 = rank_hands(np.array(safe), validate=False).astype(np.int64)
    safe = [7 * [0] if not ok else [*board, int(a), int(b)] for (a, b), ok in zip(h1, ok1, strict=True)]
    r1 = rank_hands(np.array(safe), validate=False).astype(np.int64)
    return np.where(valid, amount * np.sign(r0[:, None] - r1[None, :]), 0.0)


def _values(
    solution: SpotSolution, node: ActionNode, path: tuple[str, ...], board: tuple[int, ...], player: int,
    reach: npt.NDArray[np.float64], best: bool,
) -> npt.NDArray[np.float64]:  # fmt: skip
    """``player``'s counterfactual values per hand; the opponent plays the solution's average strategy."""
    spot = solution.spot
    if node.kind in (FOLD, SHOWDOWN):
        matrix = _payoff_matrix(solution, node, board)
        return matrix @ reach if player == 0 else -(matrix.T @ reach)
    if node.kind == CHANCE:
        total = np.zeros(len(spot.hands[player]))
        factor = 1.0 / (52 - len(board) - 4)
        for card in range(52):
            if card in board:
                continue
            blocked_opp = (spot.hands[1 - player] == card).any(axis=1)
            blocked_own = (spot.hands[player] == card).any(axis=1)
            child = _values(
                solution, node.children[0], (*path, format_card(card)), (*board, card), player,
                np.where(blocked_opp, 0.0, reach * factor), best,
            )  # fmt: skip
            total += np.where(blocked_own, 0.0, child)
        return total
    labels = [action_label(name, amount) for name, amount in node.actions]
    children = [(child, (*path, label)) for child, label in zip(node.children, labels, strict=True)]
    if node.player == player:
        rows = [_values(solution, child, p, board, player, reach, best) for child, p in children]
        if best:
            return np.max(rows, axis=0)
        strategy = solution.node(path).strategy
        return np.sum([strategy[:, c] * row for c, row in enumerate(rows)], axis=0)
    strategy = solution.node(path).strategy
    return np.sum(
        [_values(solution, child, p, board, player, reach * strategy[:, c], best) for c, (child, p) in
         enumerate(children)],
        axis=0,
    )  # fmt: skip


def _oracle(solution: SpotSolution) -> tuple[float, float]:
    """(exploitability in % of the pot, OOP's EV) by the dense walk."""
    spot = solution.spot
    pairs = spot.pairs
    gains = []
    for player in range(2):
        values = _values(solution, spot.tree, (), spot.board, player, spot.weights[1 - player], True)
        gains.append(float(spot.weights[player] @ values) / pairs)
    oop = (
        float(spot.weights[0] @ _values(solution, spot.tree, (), spot.board, 0, spot.weights[1], False))
        / pairs
    )
    return 100 * (gains[0] + gains[1]) / 2 / spot.config.pot, spot.config.pot / 2 + oop


RIVER = SpotConfig(
    board="Td9d6hQc7s", oop="AA,KK,QQ,JJ,T9s,87s,AK", ip="TT-88,AQs,KQs,QJs,J8s", pot=100, stack=150,
    bets="50%", raises="a",
)  # fmt: skip
TURN = SpotConfig(
    board="Td9d6hQh", oop="AA,QQ,T9s,AK,KJs", ip="JJ-99,AQs,KQ,J8s", pot=100, stack=120, bets="75%",
    raises="a",
)  # fmt: skip


@pytest.mark.parametrize(
    ("config", "iterations"),
    [(RIVER, 0), (RIVER, 7), (TURN, 7), (TURN, 0)],
    ids=["river-0", "river-7", "turn-7", "turn-0"],
)
def test_exploitability_and_value_equal_an_independent_dense_walk(
    config: SpotConfig, iterations: int
) -> None:
    spot = build_spot(config)
    solution = solve_spot(spot, target_pct=0.0, max_iterations=iterations, check_every=1000)
    exploitability, oop = _oracle(solution)
    assert solution.exploitability_pct == pytest.approx(exploitability, rel=1e-4, abs=1e-5)
    assert solution.oop_ev == pytest.approx(oop, rel=1e-5, abs=1e-4)
    assert solution.oop_ev + solution.ip_ev == pytest.approx(config.pot)


def test_turn_spot_merges_isomorphic_river_cards() -> None:
    # Clubs and spades are both absent from the board and the ranges treat all suits alike; the
    # ranges hold deuces, so the card that comes changes who holds what.
    config = replace(TURN, oop=TURN.oop + ",A2s,32s", ip=TURN.ip + ",A2s")
    spot = build_spot(config)
    assert int(spot.layout.kernel.b_cards[0]) == 48 - 13  # the 13 spades stand in for by clubs
    solution = solve_spot(spot, target_pct=0.0, max_iterations=5)
    swap = {0: 3, 3: 0, 1: 1, 2: 2}
    for below in [(), ("Check",), ("Check", "Bet 75")]:
        view = solution.node(("Check", "Check", "2s", *below))  # a merged card, read through its swap
        twin = solution.node(("Check", "Check", "2c", *below))
        index = {tuple(h): i for i, h in enumerate(twin.hands.tolist())}
        rows = [
            index[tuple(sorted((4 * (a // 4) + swap[a % 4], 4 * (b // 4) + swap[b % 4])))]
            for a, b in view.hands.tolist()
        ]
        # Suit twins before the card are equal up to float32 rounding (their sums run in other orders).
        np.testing.assert_allclose(view.strategy, twin.strategy[rows], rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(view.reach, twin.reach[rows], rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(view.ev, twin.ev[rows], rtol=1e-5, atol=1e-4)
        np.testing.assert_allclose(view.equity, twin.equity[rows], rtol=1e-5, atol=1e-6)
        classes, twins = view.by_class(), twin.by_class()
        assert classes.keys() == twins.keys()
        for name, entry in classes.items():
            assert entry["weight"] == pytest.approx(twins[name]["weight"], rel=1e-5)
            assert entry["ev"] == pytest.approx(twins[name]["ev"], rel=1e-5, abs=1e-4)


def test_converges_below_the_target_and_reports_it() -> None:
    seen: list[tuple[int, float]] = []
    solution = solve_spot(
        build_spot(RIVER), target_pct=0.3, max_iterations=2000, progress=lambda i, e: seen.append((i, e))
    )
    assert solution.exploitability_pct <= 0.3 < seen[0][1]
    assert seen[-1] == (solution.iterations, solution.exploitability_pct)
    assert solution.iterations % 10 == 0


def test_progress_returning_false_stops_the_solve() -> None:
    solution = solve_spot(
        build_spot(RIVER), target_pct=0.0, max_iterations=1000, progress=lambda i, e: i < 20
    )
    assert solution.iterations == 20


def test_threads_give_the_same_strategy() -> None:
    spot = build_spot(TURN)
    one = solve_spot(spot, target_pct=0.0, max_iterations=20, threads=1)
    two = solve_spot(spot, target_pct=0.0, max_iterations=20, threads=2)
    np.testing.assert_array_equal(one.state.strategy_sum, two.state.strategy_sum)
    assert one.exploitability_pct == two.exploitability_pct


def test_locked_node_keeps_its_strategy_and_the_rest_best_responds() -> None:
    spot = build_spot(RIVER)
    root = solve_spot(spot, max_iterations=0).node(())
    actions = list(root.actions)
    lock = np.zeros((len(root.hands), len(actions)))
    lock[:, actions.index("Check")] = 1.0  # OOP always checks
    solution = solve_spot(spot, target_pct=0.2, max_iterations=3000, locks={(): lock})
    np.testing.assert_array_equal(solution.node(()).strategy, lock)
    # IP's strategy is a best response to the lock within the target, by the dense walk.
    pairs = spot.pairs
    best = (
        float(spot.weights[1] @ _values(solution, spot.tree, (), spot.board, 1, spot.weights[0], True))
        / pairs
    )
    played = spot.config.pot - solution.oop_ev - spot.config.pot / 2
    assert 0 <= 100 * (best - played) / spot.config.pot <= 2 * 0.2
    # With IP's bets now answered by an OOP that never bets first, IP bets more than unlocked.
    free = solve_spot(spot, target_pct=0.2, max_iterations=3000)
    assert solution.node(("Check",)).by_class() != free.node(("Check",)).by_class()


def test_lock_that_breaks_suit_symmetry_is_refused() -> None:
    spot = build_spot(TURN)
    root = solve_spot(spot, max_iterations=0).node(())
    lock = np.full((len(root.hands), len(root.actions)), np.nan)
    lock[0] = [1.0] + [0.0] * (len(root.actions) - 1)  # one combo of a class, not its suit twins
    with pytest.raises(SpotError, match="swapping suits"):
        solve_spot(spot, max_iterations=1, locks={(): lock})


def test_save_and_load_give_the_same_solution(tmp_path: Path) -> None:
    solution = solve_spot(build_spot(TURN), target_pct=0.0, max_iterations=15)
    path = solution.save(tmp_path / "spot.npz")
    loaded = load_solution(path)
    assert loaded.to_json() == solution.to_json()
    path.write_bytes(path.read_bytes()[:100])
    with pytest.raises(SpotError, match="not a readable solved spot"):
        load_solution(path)
    with pytest.raises(SpotError, match="no solved spot"):
        load_solution(tmp_path / "missing.npz")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"oop": "AA,KX"}, "OOP range"),
        ({"ip": ""}, "IP range"),
        ({"bets": "50%,zz"}, "zz"),
        ({"board": "Td9d6hQcTd"}, "board"),
        ({"board": "Td9d"}, "3, 4 or 5 cards"),
        ({"pot": -5}, "pot"),
        ({"stack": 0}, "stack"),
        ({"stack": -5}, "stack"),
        ({"oop": "AA,Td8c:0.5"}, "hand Td8c:0.5 holds Td, which is on the board"),
        ({"board": "TdTcTh9d6h", "oop": "TT"}, "empty once the board"),
    ],
)
def test_bad_spots_are_one_sentence(change: dict[str, Any], message: str) -> None:
    config = replace(RIVER, **change)
    with pytest.raises(SpotError, match=message) as raised:
        build_spot(config)
    assert "\n" not in str(raised.value)


def test_too_large_a_tree_is_refused_before_its_largest_tables_are_built() -> None:
    import tracemalloc

    flop = replace(TURN, board="Td9d6h", stack=300, bets="50%,a")
    tracemalloc.start()
    with pytest.raises(SpotError, match="more than the"):
        build_spot(flop, max_memory_bytes=10_000)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    needed = build_spot(flop).memory_bytes
    assert peak < needed / 4  # the showdown lists of every river board were never built


def test_a_damaged_solution_file_is_one_sentence(tmp_path: Path) -> None:
    import json

    solution = solve_spot(build_spot(RIVER), max_iterations=2)
    path = solution.save(tmp_path / "spot.npz")
    with np.load(path) as data:
        arrays = {name: np.array(data[name]) for name in data.files}
    meta = json.loads(bytes(arrays["meta"]).decode())
    del meta["config"]["pot"]
    damaged = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
    np.savez(tmp_path / "damaged.npz", meta=damaged, regret=arrays["regret"],
             strategy_sum=arrays["strategy_sum"], locked=arrays["locked"])  # fmt: skip
    with pytest.raises(SpotError, match="damaged solved spot"):
        load_solution(tmp_path / "damaged.npz")


def test_the_discount_schedule_is_postflop_solvers() -> None:
    from pokerai.solvers.postflop.kernel import discount

    # alpha: (t-1)^1.5 / ((t-1)^1.5 + 1); beta: 1/2; gamma: ((t-p)/(t-p+1))^3, p the largest power of 4 <= t.
    np.testing.assert_allclose(discount(0), [0.0, 0.5, 0.0])
    np.testing.assert_allclose(discount(2), [0.5, 0.5, (1 / 2) ** 3])
    np.testing.assert_allclose(discount(4), [3**1.5 / (3**1.5 + 1), 0.5, 0.0])  # the average restarts
    np.testing.assert_allclose(discount(21), [20**1.5 / (20**1.5 + 1), 0.5, (5 / 6) ** 3])
