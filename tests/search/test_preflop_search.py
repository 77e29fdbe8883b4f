"""Preflop search for hold'em: the all-in equity matrix, the preflop subgame, the solve and the agent."""

from __future__ import annotations

import dataclasses

import numpy as np
import numpy.typing as npt
import pytest

from pokerai.abstraction.bets import CHECK_CALL_SLOT, FOLD_SLOT, BetAbstraction, BetMenu, legal_slot_amounts
from pokerai.agents.base import Observation
from pokerai.agents.blueprint import BlueprintAgent
from pokerai.agents.search import SearchAgent
from pokerai.agents.spec import make_agent
from pokerai.deepcfr.export import Blueprint
from pokerai.engine.equity import runout_equity
from pokerai.engine.state import ActionKind
from pokerai.search.beliefs import combo_probabilities, public_beliefs
from pokerai.search.combos import ALL_COMBOS, combo_index
from pokerai.search.config import PreflopSearch, RiverSearch, SearchConfig
from pokerai.search.preflop import (
    EQUITY_MATRIX,
    FOLD_MATRIX,
    _pair_scores,
    build_preflop_subgame,
    preflop_equity_matrix,
    solve_preflop,
)
from pokerai.search.subgame import DECISION, TERMINAL, Subgame, counterfactual_values, solve
from pokerai.search.tree import blueprint_layout
from tests.search.hunl_spots import CHECKPOINT, scripted

OPEN_AND_THREE_BET = [(0, ActionKind.RAISE, 300), (1, ActionKind.RAISE, 900)]
"""The button raises the pot (to 300) and the big blind raises the pot (to 900): the button to act."""


def test_the_equity_matrix_agrees_with_run_outs_of_each_pair() -> None:
    valid, payoff = preflop_equity_matrix()
    assert valid.shape == payoff.shape == (1326, 1326)
    assert np.array_equal(payoff, -payoff.T)
    shared = np.array(
        [[bool(set(a.tolist()) & set(b.tolist())) for b in ALL_COMBOS[:60]] for a in ALL_COMBOS[:60]]
    )
    assert np.array_equal(valid[:60, :60] == 0, shared)
    assert not payoff[valid == 0].any()
    rng = np.random.default_rng(1)
    checked = 0
    while checked < 8:
        i, j = (int(x) for x in rng.choice(1326, size=2, replace=False))
        if valid[i, j] == 0:
            continue
        first, second = tuple(ALL_COMBOS[i].tolist()), tuple(ALL_COMBOS[j].tolist())
        # runout_equity samples 1,024 run-outs of its own (standard error about 0.016), the matrix
        # about 2,000 boards per pair (about 0.011).
        assert abs((payoff[i, j] + 1) / 2 - runout_equity(first, second, ())) < 0.07
        checked += 1
    # Aces against kings of other suits win about 82%.
    aces, kings = combo_index(48, 49), combo_index(46, 47)
    assert 0.79 < (payoff[aces, kings] + 1) / 2 < 0.85


def test_preflop_terminals_pay_folds_in_chips_and_the_rest_by_equity(blueprint: Blueprint) -> None:
    state = scripted(blueprint, [])
    uniform = np.full((2, 1326), 1 / 1326)
    preflop = build_preflop_subgame(state, blueprint.game.bets, uniform, max_raises=1)
    subgame = preflop.subgame
    assert preflop.root_player == 0 and preflop.root_slots == (0, 1, 2, 3, 4, 5)

    def child(node: int, slot: int) -> int:
        """The child of ``node`` reached by the action slot ``slot``."""
        (found,) = [node for node in subgame.children(node) if subgame.label[node] == slot]
        return found

    root = {slot: child(0, slot) for slot in preflop.root_slots}

    def payoff(node: int) -> tuple[int, float]:
        assert subgame.kind[node] == TERMINAL
        return int(subgame.matrix[node]), float(subgame.scale[node])

    assert payoff(root[0]) == (FOLD_MATRIX, -50.0)  # the button folds its small blind
    limp = root[1]
    assert subgame.kind[limp] == DECISION and subgame.player[limp] == 1
    assert payoff(child(limp, 1)) == (EQUITY_MATRIX, 100.0)  # the big blind checks: a flop for 100 each
    pot_raise = root[3]  # to 300
    assert payoff(child(pot_raise, 0)) == (FOLD_MATRIX, 100.0)
    assert payoff(child(pot_raise, 1)) == (EQUITY_MATRIX, 300.0)
    assert subgame.num_children[pot_raise] == 2  # the one raise of max_raises=1 is made
    assert payoff(child(root[5], 1)) == (EQUITY_MATRIX, 20_000.0)  # a called all-in
    # Every terminal is a fold or pays the equity matrix on both players' equal stakes.
    terminals = np.flatnonzero(subgame.kind == TERMINAL)
    assert set(subgame.matrix[terminals].tolist()) == {FOLD_MATRIX, EQUITY_MATRIX}


def _opponent_best_response(subgame: Subgame, strategy: npt.NDArray[np.float64], opponent: int) -> float:
    values = counterfactual_values(subgame, strategy, opponent, best_response=True)
    return float(subgame.reach[opponent] @ values[0])


def test_the_preflop_solve_gives_a_best_responding_opponent_less_than_the_blueprint(
    blueprint: Blueprint,
) -> None:
    state = scripted(blueprint, [])
    beliefs = public_beliefs(blueprint, state, threshold=0.3)
    assert np.allclose(beliefs, 1 / 1326)  # nothing has happened yet
    preflop = build_preflop_subgame(state, blueprint.game.bets, beliefs, max_raises=1)
    blueprint_strategy = blueprint_layout(
        blueprint, preflop.subgame, preflop.decision_states, preflop.hands, 0.3
    )
    solution = solve(preflop.subgame, 200)
    against_blueprint = _opponent_best_response(preflop.subgame, blueprint_strategy, 1)
    against_search = _opponent_best_response(preflop.subgame, solution.average, 1)
    # In chips per hand, in this equity-valued tree.
    assert against_search < against_blueprint - 10.0


def test_zero_preflop_iterations_play_the_blueprint_exactly(blueprint: Blueprint) -> None:
    observation = Observation.from_state(scripted(blueprint, []))
    expected, _ = BlueprintAgent(blueprint, threshold=0.3).decision(observation)
    agent = SearchAgent(
        blueprint,
        SearchConfig(preflop=PreflopSearch(iterations=0), river=RiverSearch(iterations=0)),
        threshold=0.3,
    )
    found, _ = agent.decision(observation)
    assert np.array_equal(found, expected) and agent.preflop_solves == 0
    assert not solve_preflop(blueprint, scripted(blueprint, []), iterations=0).strategy.any()


def test_a_preflop_search_agent_solves_once_per_public_state(blueprint: Blueprint) -> None:
    observation = Observation.from_state(scripted(blueprint, []))
    agent = SearchAgent(
        blueprint,
        SearchConfig(preflop=PreflopSearch(iterations=30, max_raises=1), river=RiverSearch(iterations=30)),
        threshold=0.3,
    )
    reference = BlueprintAgent(blueprint, threshold=0.3)
    changed = 0
    for combo in range(0, 1326, 66):
        hole = (int(ALL_COMBOS[combo, 0]), int(ALL_COMBOS[combo, 1]))
        mine = dataclasses.replace(observation, hole_cards=hole)
        probabilities, actions = agent.decision(mine)
        assert np.isclose(probabilities.sum(), 1.0)
        assert all(action is not None for action, p in zip(actions, probabilities, strict=True) if p > 0)
        changed += not np.allclose(probabilities, reference.decision(mine)[0])
    assert changed > 0
    assert agent.preflop_solves == 1


def test_hands_outside_the_searchers_range_play_the_blueprint(blueprint: Blueprint) -> None:
    state = scripted(blueprint, OPEN_AND_THREE_BET)
    solution = solve_preflop(blueprint, state, iterations=20, threshold=0.3, max_raises=1)
    beliefs = public_beliefs(blueprint, state, threshold=0.3)
    outside = np.flatnonzero(beliefs[0] == 0)  # hands the blueprint does not open to 300
    inside = np.flatnonzero(beliefs[0] > 0)
    assert len(outside) > 0 and len(inside) > 0
    assert not solution.strategy[outside].any()
    assert np.allclose(solution.strategy[inside].sum(axis=1), 1.0)
    combo = int(outside[0])
    hole = (int(ALL_COMBOS[combo, 0]), int(ALL_COMBOS[combo, 1]))
    observation = dataclasses.replace(Observation.from_state(state), hole_cards=hole)
    agent = SearchAgent(
        blueprint,
        SearchConfig(preflop=PreflopSearch(iterations=20, max_raises=1), river=RiverSearch(iterations=20)),
        threshold=0.3,
    )
    found, _ = agent.decision(observation)
    assert np.array_equal(found, combo_probabilities(blueprint, state, np.array([combo]), 0.3)[2][0])


def test_the_safe_preflop_solve_gives_legal_strategies_to_the_searchers_range(blueprint: Blueprint) -> None:
    state = scripted(blueprint, OPEN_AND_THREE_BET)
    solution = solve_preflop(blueprint, state, iterations=20, threshold=0.3, max_raises=1, safe=True)
    inside = np.flatnonzero(public_beliefs(blueprint, state, threshold=0.3)[0] > 0)
    assert solution.iterations == 20
    assert np.allclose(solution.strategy[inside].sum(axis=1), 1.0)
    legal, _ = legal_slot_amounts(state, blueprint.game.bets)
    played = {slot for slot in range(solution.strategy.shape[1]) if solution.strategy[inside, slot].any()}
    assert played <= set(legal) and {FOLD_SLOT, CHECK_CALL_SLOT} <= played


def test_a_raise_past_a_capped_menu_leaves_the_raisers_range_as_it_was(blueprint: Blueprint) -> None:
    # The shipped networks on a menu with at most 2 raises preflop (the same 6 slots and features).
    menu = BetMenu(max_raises=2)
    bets = BetAbstraction(menu, menu, menu, menu)
    config = dataclasses.replace(blueprint.config, hunl=dataclasses.replace(blueprint.config.hunl, bets=bets))
    capped = Blueprint(config, blueprint.networks)
    three_bet = scripted(capped, OPEN_AND_THREE_BET)
    assert not legal_slot_amounts(three_bet, bets)[0][2:]  # the button may not raise on this menu
    four_bet = scripted(capped, [*OPEN_AND_THREE_BET, (0, ActionKind.RAISE, 2_700)])
    before = public_beliefs(capped, three_bet, threshold=0.3)
    after = public_beliefs(capped, four_bet, threshold=0.3)
    assert np.array_equal(after[0], before[0])  # the button's range: its 4-bet is no menu action
    assert np.array_equal(after[1], before[1])
    solution = solve_preflop(capped, four_bet, iterations=10, threshold=0.3)  # the big blind to act
    assert solution.iterations == 10 and solution.strategy.any()


def test_preflop_options_of_the_search_spec() -> None:
    agent = make_agent(f"search:{CHECKPOINT}?preflop=1&preflop_max_raises=3&preflop_budget_ms=800")
    assert isinstance(agent, SearchAgent)
    preflop = agent.config.preflop
    # preflop=1 searches preflop with the river's iterations, as the one shared count did before.
    assert (preflop.iterations, preflop.max_raises, preflop.budget_ms) == (1000, 3, 800.0)
    assert make_agent(f"search:{CHECKPOINT}").config.preflop.iterations == 0  # type: ignore[attr-defined]
    for bad in ("preflop_budget_ms=0", "preflop_max_raises=-1"):
        with pytest.raises(ValueError, match=bad.split("=")[0]):
            make_agent(f"search:{CHECKPOINT}?preflop=1&{bad}")
    with pytest.raises(ValueError, match="preflop"):
        make_agent(f"search:{CHECKPOINT}?preflop=2")
    with pytest.raises(ValueError, match="preflop_max_raises= needs preflop=1"):
        make_agent(f"search:{CHECKPOINT}?preflop_max_raises=2")


def test_preflop_search_refuses_a_flop_state(blueprint: Blueprint) -> None:
    state = scripted(blueprint, [(0, ActionKind.CALL, 50), (1, ActionKind.CHECK, 0)])
    with pytest.raises(ValueError, match="preflop decision"):
        build_preflop_subgame(state, blueprint.game.bets, np.full((2, 1326), 1 / 1326))


def test_pair_scores_count_every_pair_as_a_direct_count_does() -> None:
    rng = np.random.default_rng(7)
    ranks = rng.integers(-1, 6, size=(40, 9)).astype(np.int32)  # -1: the hand holds a board card
    wins, counts = _pair_scores(ranks)
    for i in range(9):
        for j in range(9):
            both = (ranks[:, i] >= 0) & (ranks[:, j] >= 0)
            expected = 0 if i == j else both.sum()
            assert counts[i, j] == expected
            mine, theirs = ranks[both, i], ranks[both, j]
            expected_wins = 0.0 if i == j else (mine > theirs).sum() + 0.5 * (mine == theirs).sum()
            assert wins[i, j] == expected_wins
