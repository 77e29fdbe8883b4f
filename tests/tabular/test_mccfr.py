"""The tabular MCCFR kernels: against a plain Python traversal, and on Leduc against exact exploitability."""

from __future__ import annotations

import numpy as np
import pytest

from pokerai.games import LeducPoker
from pokerai.solvers import MCCFRSolver, exploitability
from pokerai.solvers.best_response import tree_of
from pokerai.tabular.leduc import IDENTITY, MERGED_JQ, bucketed_leduc, leduc_deals, leduc_policy
from pokerai.tabular.mccfr import MCCFRSettings, TabularMCCFR, _mix, _uniform
from pokerai.tabular.tree import FOLD_NODE, BettingTree, leduc_betting_tree


def reference_run(
    tree: BettingTree,
    counts: tuple[int, ...],
    seed: int,
    buckets: np.ndarray,
    results: np.ndarray,
    pruned: np.ndarray,
    settings: MCCFRSettings,
) -> tuple[np.ndarray, np.ndarray]:
    """External-sampling MCCFR written plainly: recursion, Python floats, the kernel's random stream."""
    offsets, size = tree.offsets(counts)
    regrets = np.zeros(size, dtype=np.float32)
    sums = np.zeros(size, dtype=np.float32)

    def strategy(start: int, count: int) -> list[float]:
        positive = [max(float(regrets[start + a]), 0.0) for a in range(count)]
        total = sum(positive)
        return [p / total for p in positive] if total > 0 else [1.0 / count] * count

    def walk(
        node: int, traverser: int, deal: np.ndarray, result: float, prune: bool, rng: np.ndarray
    ) -> float:
        actor = int(tree.player[node])
        if actor < 0:
            value = tree.amount[node] if actor == FOLD_NODE else tree.amount[node] * result
            return float(value if traverser == 0 else -value)
        count = int(tree.num_actions[node])
        start = int(offsets[node] + deal[actor, tree.street[node]] * count)
        sigma = strategy(start, count)
        children = tree.children[node, :count]
        if actor != traverser:
            for a in range(count):
                sums[start + a] += sigma[a]
            u = _uniform(rng)
            chosen, cumulative = count - 1, 0.0
            if u < settings.explore:  # a uniform action
                chosen = min(int(u / settings.explore * count), count - 1)
            else:
                u = (u - settings.explore) / (1.0 - settings.explore)
                for a in range(count):
                    cumulative += sigma[a]
                    if u < cumulative:
                        chosen = a
                        break
            return walk(int(children[chosen]), traverser, deal, result, prune, rng)
        explored = [
            not (prune and regrets[start + a] < settings.prune_threshold and tree.player[children[a]] >= 0)
            for a in range(count)
        ]
        values = [
            walk(int(children[a]), traverser, deal, result, prune, rng) if explored[a] else 0.0
            for a in range(count)
        ]
        total = sum(sigma[a] * values[a] for a in range(count) if explored[a])
        for a in range(count):
            if explored[a]:
                regrets[start + a] = max(float(regrets[start + a]) + values[a] - total, settings.regret_floor)
        return total

    for index in range(len(results)):
        start = (seed * 0x9E3779B97F4A7C15 + index) % 2**64  # the kernel's uint64 arithmetic
        rng = np.array([_mix(np.uint64(start))], dtype=np.uint64)
        for traverser in (0, 1):
            walk(0, traverser, buckets[index], float(results[index]), bool(pruned[index]), rng)
    return regrets, sums


@pytest.mark.parametrize(("prune", "explore"), [(False, 0.0), (True, 0.0), (False, 0.3)])
def test_kernel_matches_the_plain_traversal(prune: bool, explore: float) -> None:
    tree = leduc_betting_tree()
    settings = (
        MCCFRSettings(prune_after=1, prune_threshold=-2.0, regret_floor=-3.0)
        if prune
        else MCCFRSettings(explore=explore)
    )
    buckets, results = leduc_deals(np.random.default_rng(4), 300, IDENTITY)
    pruned = np.arange(300) % 3 == 1 if prune else np.zeros(300, dtype=bool)
    solver = TabularMCCFR(tree, IDENTITY.counts, seed=9, settings=settings)
    solver.run(buckets, results, pruned)
    regrets, sums = reference_run(tree, IDENTITY.counts, 9, buckets, results, pruned, settings)
    np.testing.assert_allclose(solver.regrets, regrets, rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(solver.strategy_sum, sums, rtol=1e-5, atol=1e-4)
    assert np.abs(regrets).sum() > 0 and sums.sum() > 0
    if prune:
        assert regrets.min() == pytest.approx(-3.0)  # the floor was reached, so some actions were pruned


def test_exploration_trains_answers_to_lines_the_opponent_never_plays() -> None:
    tree = leduc_betting_tree()
    root = 0
    bet = int(np.flatnonzero(tree.slots[root, : tree.num_actions[root]] == 2)[0])  # slot 2: bet
    answer = int(tree.children[root, bet])  # player 1 facing the first bet
    buckets, results = leduc_deals(np.random.default_rng(5), 2_000, IDENTITY)
    touched = {}
    for explore in (0.0, 0.2):
        solver = TabularMCCFR(tree, IDENTITY.counts, seed=3, settings=MCCFRSettings(explore=explore))
        count = int(tree.num_actions[root])
        rows = solver.offsets[root] + np.arange(IDENTITY.counts[0])[:, None] * count + np.arange(count)
        solver.regrets[rows] = np.where(np.arange(count) == bet, -1e9, 1.0)  # player 0 never bets
        solver.run(buckets, results)
        width = int(tree.num_actions[answer])
        start = solver.offsets[answer]
        touched[explore] = np.abs(solver.regrets[start : start + IDENTITY.counts[0] * width]).sum()
    assert touched[0.0] == 0.0 and touched[0.2] > 0.0
    with pytest.raises(ValueError, match="explore"):
        MCCFRSettings(explore=1.0)


def test_leduc_identity_buckets_converge_like_the_solvers_mccfr() -> None:
    tree = leduc_betting_tree()
    solver = TabularMCCFR(tree, IDENTITY.counts, seed=0)
    buckets, results = leduc_deals(np.random.default_rng(0), 2_000, IDENTITY)
    solver.run(buckets, results)
    early = exploitability(leduc_policy(solver, IDENTITY))
    buckets, results = leduc_deals(np.random.default_rng(1), 48_000, IDENTITY)
    solver.run(buckets, results)
    late = exploitability(leduc_policy(solver, IDENTITY))
    reference = MCCFRSolver(LeducPoker(), "external", seed=0)
    reference.run(50_000)
    assert late < 0.5 * early
    assert late < 0.15
    assert late < 1.5 * exploitability(reference.average_policy())


def test_merged_buckets_lower_exploitability_in_their_own_game() -> None:
    game_tree = tree_of(bucketed_leduc(MERGED_JQ))
    assert game_tree.num_infosets < tree_of(LeducPoker()).num_infosets
    solver = TabularMCCFR(leduc_betting_tree(), MERGED_JQ.counts, seed=2)
    buckets, results = leduc_deals(np.random.default_rng(2), 2_000, MERGED_JQ)
    solver.run(buckets, results)
    early = exploitability(leduc_policy(solver, MERGED_JQ, game_tree))
    buckets, results = leduc_deals(np.random.default_rng(3), 48_000, MERGED_JQ)
    solver.run(buckets, results)
    late = exploitability(leduc_policy(solver, MERGED_JQ, game_tree))
    assert late < 0.5 * early
    assert late < 0.12


def test_two_threads_converge() -> None:
    solver = TabularMCCFR(leduc_betting_tree(), IDENTITY.counts, seed=0)
    buckets, results = leduc_deals(np.random.default_rng(0), 50_000, IDENTITY)
    solver.run(buckets, results, threads=2)
    assert solver.iteration == 50_000
    assert exploitability(leduc_policy(solver, IDENTITY)) < 0.15


def test_runs_are_reproducible() -> None:
    buckets, results = leduc_deals(np.random.default_rng(0), 1_000, IDENTITY)
    tables = []
    for seed in (5, 5, 6):
        solver = TabularMCCFR(leduc_betting_tree(), IDENTITY.counts, seed=seed)
        solver.run(buckets[:400], results[:400])
        solver.run(buckets[400:], results[400:])  # two calls: the same as one
        tables.append(solver.regrets.copy())
    one_call = TabularMCCFR(leduc_betting_tree(), IDENTITY.counts, seed=5)
    one_call.run(buckets, results)
    assert np.array_equal(tables[0], tables[1])
    assert np.array_equal(tables[0], one_call.regrets)
    assert not np.array_equal(tables[0], tables[2])


def test_discount_scales_the_tables_at_its_points() -> None:
    buckets, results = leduc_deals(np.random.default_rng(0), 30, IDENTITY)
    plain = TabularMCCFR(leduc_betting_tree(), IDENTITY.counts, seed=1)
    plain.run(buckets[:10], results[:10])
    discounted = TabularMCCFR(
        leduc_betting_tree(),
        IDENTITY.counts,
        seed=1,
        settings=MCCFRSettings(discount_every=10, discount_until=20),
    )
    discounted.run(buckets[:10], results[:10])
    np.testing.assert_allclose(discounted.regrets, plain.regrets * np.float32(0.5))
    np.testing.assert_allclose(discounted.strategy_sum, plain.strategy_sum * np.float32(0.5))


def test_prune_draws_follow_the_settings() -> None:
    settings = MCCFRSettings(prune_after=100, prune_probability=0.5)
    solver = TabularMCCFR(leduc_betting_tree(), IDENTITY.counts, seed=0, settings=settings)
    draws = solver.prune_draws(10_000)
    assert not draws[:100].any()
    assert 0.45 < draws[100:].mean() < 0.55
    assert np.array_equal(draws, solver.prune_draws(10_000))
    never = TabularMCCFR(leduc_betting_tree(), IDENTITY.counts, seed=0)
    assert not never.prune_draws(1_000).any()


def test_bad_input_is_named() -> None:
    solver = TabularMCCFR(leduc_betting_tree(), IDENTITY.counts)
    buckets, results = leduc_deals(np.random.default_rng(0), 5, IDENTITY)
    with pytest.raises(ValueError, match="buckets must have shape"):
        solver.run(buckets[:, 0], results)
    with pytest.raises(ValueError, match="results must have shape"):
        solver.run(buckets, results[:3])
    with pytest.raises(ValueError, match="outside the streets' bucket counts"):
        solver.run(buckets + 40, results)
    with pytest.raises(ValueError, match="threads"):
        solver.run(buckets, results, threads=0)
    with pytest.raises(ValueError, match="seed"):
        TabularMCCFR(leduc_betting_tree(), IDENTITY.counts, seed=-1)
    with pytest.raises(ValueError, match="regret_floor"):
        MCCFRSettings(prune_threshold=-1.0, regret_floor=-0.5)
    with pytest.raises(ValueError, match="do not cover"):
        TabularMCCFR(leduc_betting_tree(), (6,))
