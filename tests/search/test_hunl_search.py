"""River search for hold'em: beliefs, the river subgame, the solve, and the search agent."""

from __future__ import annotations

import dataclasses

import numpy as np
import numpy.typing as npt
import pytest

from pokerai.abstraction.bets import legal_slot_amounts
from pokerai.agents.base import Observation
from pokerai.agents.baselines import CallAgent
from pokerai.agents.blueprint import BlueprintAgent
from pokerai.agents.search import SearchAgent
from pokerai.deepcfr.export import Blueprint
from pokerai.engine.cards import parse_cards
from pokerai.engine.state import Action, ActionKind, HUNLState
from pokerai.eval.duplicate import duplicate_match
from pokerai.search.beliefs import action_slots, combo_probabilities, public_beliefs
from pokerai.search.combos import ALL_COMBOS, NUM_COMBOS, combo_index, combos_holding
from pokerai.search.config import RiverSearch, SearchConfig
from pokerai.search.river import (
    RiverSolution,
    build_river_subgame,
    river_blueprint_strategy,
    search_decision,
    search_probabilities,
    solve_river,
)
from pokerai.search.river import _best_response_root_values as best_response_root_values
from pokerai.search.showdown import FOLD_MATRIX
from pokerai.search.subgame import DECISION, Subgame, counterfactual_values, solve, with_resolve_gadget
from tests.search.hunl_spots import CHECKED_DOWN, DECK, scripted

OFF_MENU = [
    (0, ActionKind.RAISE, 250),
    (1, ActionKind.CALL, 150),
    (1, ActionKind.CHECK, 0),
    (0, ActionKind.CHECK, 0),
    (1, ActionKind.CHECK, 0),
    (0, ActionKind.CHECK, 0),
    (1, ActionKind.RAISE, 370),
]
"""Off-menu sizes: a raise to 250 preflop (menu 200, 300), a 370 river bet into 500 (menu 250, 500)."""


def test_combos_index_both_ways() -> None:
    assert combo_index(51, 0) == combo_index(0, 51) == int(np.flatnonzero((ALL_COMBOS == [0, 51]).all(1))[0])
    with pytest.raises(ValueError, match="two distinct card ids"):
        combo_index(3, 3)


def test_beliefs_sum_to_one_and_exclude_blocked_combos(blueprint: Blueprint) -> None:
    state = scripted(blueprint, CHECKED_DOWN)
    searcher = state.to_act
    assert searcher == 1
    hole = state.hole_cards(searcher)
    beliefs = public_beliefs(blueprint, state, threshold=0.3, hole_cards=hole)
    assert beliefs.shape == (2, NUM_COMBOS)
    assert np.allclose(beliefs.sum(axis=1), 1.0)
    assert np.all(beliefs >= 0)
    assert np.all(beliefs[:, combos_holding(state.board)] == 0)
    assert np.all(beliefs[1 - searcher, combos_holding(hole)] == 0)
    # The searcher's own range is the public one: its own cards do not block it.
    assert beliefs[searcher, combos_holding(hole) & ~combos_holding(state.board)].sum() > 0


def test_beliefs_are_bayes_products_of_the_agents_action_probabilities(blueprint: Blueprint) -> None:
    """Oracle: the range ratios of a few combos equal the products of BlueprintAgent.action_probability."""
    state = scripted(blueprint, CHECKED_DOWN)
    beliefs = public_beliefs(blueprint, state, threshold=0.0)
    agent = BlueprintAgent(blueprint, threshold=0.0)
    rng = np.random.default_rng(5)
    combos = rng.choice(np.flatnonzero(~combos_holding(state.board)), size=12, replace=False)
    for player in (0, 1):
        products = np.ones(len(combos))
        replay = HUNLState.new(state.config, state.button, deck=DECK)
        for action in state.history:
            if action.player == player:
                observation = Observation.from_state(replay)
                for row, combo in enumerate(combos):
                    hole = (int(ALL_COMBOS[combo, 0]), int(ALL_COMBOS[combo, 1]))
                    probability = agent.action_probability(_with_hole(observation, hole), action)
                    assert probability is not None
                    products[row] *= probability
            replay.apply(action)
        expected = products / products.sum()
        found = beliefs[player, combos] / beliefs[player, combos].sum()
        assert np.allclose(found, expected, rtol=1e-5, atol=1e-12)


def _with_hole(observation: Observation, hole: tuple[int, int]) -> Observation:
    return dataclasses.replace(observation, hole_cards=hole)


def test_a_combo_the_thresholded_blueprint_never_plays_this_way_has_belief_zero(blueprint: Blueprint) -> None:
    state = scripted(blueprint, CHECKED_DOWN)
    live = np.flatnonzero(~combos_holding(state.board))
    start = HUNLState.new(state.config, state.button, deck=DECK)
    legal, amounts, probabilities = combo_probabilities(blueprint, start, live, threshold=0.3)
    ((slot, _),) = action_slots(start, state.history[0], legal, amounts, blueprint.game.bets)
    never = live[probabilities[:, slot] == 0]
    sometimes = live[probabilities[:, slot] > 0]
    assert len(never) > 0 and len(sometimes) > 0, "the first action splits the thresholded range"
    beliefs = public_beliefs(blueprint, state, threshold=0.3)
    assert np.all(beliefs[0, never] == 0)
    # Without thresholding the same combos keep a little belief.
    assert np.all(public_beliefs(blueprint, state, threshold=0.0)[0, never] > 0)


def test_opponent_threshold_widens_only_the_opponents_range(blueprint: Blueprint) -> None:
    state = scripted(blueprint, CHECKED_DOWN)
    assert state.to_act == 1, "player 1 searches; player 0 is the opponent"
    thresholded = public_beliefs(blueprint, state, threshold=0.3)
    raw = public_beliefs(blueprint, state, threshold=0.0)
    mixed = public_beliefs(blueprint, state, threshold=0.3, opponent_threshold=0.0)
    np.testing.assert_allclose(mixed[0], raw[0])
    np.testing.assert_allclose(mixed[1], thresholded[1])
    assert np.count_nonzero(mixed[0]) > np.count_nonzero(thresholded[0])
    over = state.clone()
    over.apply(Action(1, ActionKind.CHECK, 0))
    over.apply(Action(0, ActionKind.CHECK, 0))
    with pytest.raises(ValueError, match="opponent_threshold needs a player to act"):
        public_beliefs(blueprint, over, opponent_threshold=0.0)


def test_the_agent_solves_with_its_opponent_threshold(blueprint: Blueprint) -> None:
    state = scripted(blueprint, CHECKED_DOWN)
    agent = SearchAgent(
        blueprint,
        SearchConfig(river=RiverSearch(iterations=20, budget_ms=None), opponent_threshold=0.0),
        threshold=0.3,
    )
    solution = agent.river_solution(Observation.from_state(state))
    expected = solve_river(
        blueprint,
        state,
        iterations=20,
        threshold=0.3,
        max_raises=agent.config.river.max_raises,
        opponent_threshold=0.0,
    )
    np.testing.assert_allclose(solution.strategy, expected.strategy)
    assert solution.num_hands == expected.num_hands
    default = SearchAgent(
        blueprint, SearchConfig(river=RiverSearch(iterations=20, budget_ms=None)), threshold=0.3
    )
    assert default.river_solution(Observation.from_state(state)).num_hands < solution.num_hands
    for bad in (True, -0.1, 1.0, "0"):
        with pytest.raises(ValueError, match="opponent_threshold"):
            SearchAgent(blueprint, SearchConfig(opponent_threshold=bad))  # type: ignore[arg-type]


def test_cached_preflop_probabilities_give_the_beliefs_of_fresh_network_calls(
    blueprint: Blueprint, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Oracle: every past decision asked of the network afresh, over the hands still in the range."""
    from pokerai.search import beliefs as belief_module

    original = belief_module.combo_probabilities

    def fresh(
        model: Blueprint, state: HUNLState, candidates: npt.NDArray[np.int64]
    ) -> tuple[tuple[int, ...], list[int], npt.NDArray[np.float64]]:
        return original(model, state, candidates, 0.0)

    def played(button: int, deck: list[int], actions: list[tuple[int, ActionKind, int]]) -> HUNLState:
        state = HUNLState.new(blueprint.game.config, button, deck=deck)
        for player, kind, amount in actions:
            state.apply(Action(player if button == 0 else 1 - player, kind, amount))
        return state

    other_deck = parse_cards("2s3s 4d6h JcTc8d Kh Ad")
    spots = {
        "checked down": scripted(blueprint, CHECKED_DOWN),
        "same preflop, other board": played(0, other_deck, CHECKED_DOWN),
        "other button": played(1, DECK, CHECKED_DOWN),
        "off menu": scripted(blueprint, OFF_MENU),
    }
    with monkeypatch.context() as patch:
        patch.setattr(belief_module, "_history_probabilities", fresh)
        expected = {name: public_beliefs(blueprint, state, threshold=0.3) for name, state in spots.items()}

    full_calls: list[int] = []  # network calls over all 1,326 combinations: preflop cache misses

    def counted(
        model: Blueprint, state: HUNLState, combos: npt.NDArray[np.int64], threshold: float = 0.0
    ) -> tuple[tuple[int, ...], list[int], npt.NDArray[np.float64]]:
        full_calls.append(len(combos) == NUM_COMBOS)
        return original(model, state, combos, threshold)

    monkeypatch.setattr(belief_module, "combo_probabilities", counted)
    belief_module._PREFLOP_PROBABILITIES.pop(blueprint, None)
    # Two preflop decisions each (limp, check); the off-menu spot (raise, call) shares only the
    # first (the empty history).
    for name, misses in (
        ("checked down", 2),
        ("same preflop, other board", 0),
        ("other button", 2),
        ("off menu", 1),
        ("checked down", 0),
    ):
        full_calls.clear()
        found = public_beliefs(blueprint, spots[name], threshold=0.3)
        assert sum(full_calls) == misses, name
        np.testing.assert_allclose(found, expected[name], rtol=1e-6, atol=1e-12)
    assert len(belief_module._PREFLOP_PROBABILITIES[blueprint]) == 5
    monkeypatch.setattr(belief_module, "PREFLOP_CACHE_SIZE", 2)
    belief_module._PREFLOP_PROBABILITIES.pop(blueprint, None)
    for name, state in spots.items():
        np.testing.assert_allclose(public_beliefs(blueprint, state, threshold=0.3), expected[name], rtol=1e-6)
        assert len(belief_module._PREFLOP_PROBABILITIES[blueprint]) <= 2


def test_an_off_menu_opponent_bet_is_translated(blueprint: Blueprint) -> None:
    state = scripted(blueprint, OFF_MENU)
    assert state.to_act == 0 and state.street == 3
    beliefs = public_beliefs(blueprint, state, threshold=0.3, hole_cards=state.hole_cards(0))
    assert np.all(np.isfinite(beliefs))
    assert np.allclose(beliefs.sum(axis=1), 1.0)
    legal, amounts = legal_slot_amounts(scripted(blueprint, OFF_MENU[:-1]), blueprint.game.bets)
    pairs = action_slots(
        scripted(blueprint, OFF_MENU[:-1]), state.history[-1], legal, amounts, blueprint.game.bets
    )
    assert [slot for slot, _ in pairs] == [2, 3] and np.isclose(sum(weight for _, weight in pairs), 1.0)
    agent = SearchAgent(
        blueprint, SearchConfig(river=RiverSearch(iterations=20, budget_ms=None)), threshold=0.3
    )
    observation = Observation.from_state(state)
    action = agent.act(observation, np.random.default_rng(0))
    assert state.can_apply(action)
    probabilities, actions = agent.decision(observation)
    assert np.isclose(probabilities.sum(), 1.0)
    assert all(actions[slot] is not None for slot in np.flatnonzero(probabilities > 0))


def test_zero_iterations_play_the_blueprint_exactly(blueprint: Blueprint) -> None:
    observation = Observation.from_state(scripted(blueprint, OFF_MENU))
    expected, _ = BlueprintAgent(blueprint, threshold=0.3).decision(observation)
    found, _ = SearchAgent(blueprint, SearchConfig(river=RiverSearch(iterations=0)), threshold=0.3).decision(
        observation
    )
    assert np.array_equal(found, expected)
    state = scripted(blueprint, OFF_MENU)
    direct = search_decision(
        blueprint, state, state.hole_cards(0), iterations=0, full_iterations=100, threshold=0.3
    )
    assert np.array_equal(direct, expected)
    searched = search_decision(
        blueprint, state, state.hole_cards(0), iterations=30, full_iterations=100, threshold=0.3
    )
    assert np.isclose(searched.sum(), 1.0) and not np.array_equal(searched, expected)
    solution = RiverSolution(
        np.full((NUM_COMBOS, len(expected)), 0.5), iterations=0, seconds=0.0, num_nodes=1
    )
    assert np.array_equal(search_probabilities(expected, solution, observation.hole_cards, 100), expected)


def _best_response_values(subgame: Subgame, strategy: npt.NDArray[np.float64], player: int) -> float:
    """``player``'s best-response value against the other's ``strategy``, weighted by its root reach."""
    values = counterfactual_values(subgame, strategy, player)
    for node in subgame.decisions[::-1]:
        children = subgame.children(node)
        child_values = values[children.start : children.stop]
        values[node] = (
            child_values.max(axis=0) if subgame.player[node] == player else child_values.sum(axis=0)
        )
    return float(subgame.reach[player] @ values[0])


def _exploitability(subgame: Subgame, strategy: npt.NDArray[np.float64]) -> float:
    """NashConv in chips weighted by the root reach of both players (0 exactly at an equilibrium)."""
    return _best_response_values(subgame, strategy, 0) + _best_response_values(subgame, strategy, 1)


def _blueprint_strategy(
    blueprint: Blueprint, state: HUNLState, subgame: Subgame, hands: npt.NDArray[np.int64]
) -> npt.NDArray[np.float64]:
    """The (unthresholded) blueprint's strategy on every decision of ``subgame``, Solution.average layout."""
    strategy = np.ones((subgame.num_nodes, subgame.num_hands))
    states = {0: state}
    for node in subgame.decisions:  # parents before children
        current = states[int(node)]
        _, amounts, probabilities = combo_probabilities(blueprint, current, hands)
        children = subgame.children(node)
        slots = [subgame.label[child] for child in children]
        block = probabilities[:, slots].T
        strategy[children.start : children.stop] = block / block.sum(axis=0, keepdims=True)
        for child, slot in zip(children, slots, strict=True):
            kind = ActionKind.FOLD if slot == 0 else ActionKind.CALL if slot == 1 else ActionKind.RAISE
            states[child] = current.after(kind, amounts[slot])
    return strategy


def test_the_river_solve_is_less_exploitable_than_the_blueprint(blueprint: Blueprint) -> None:
    state = scripted(blueprint, CHECKED_DOWN)
    beliefs = public_beliefs(blueprint, state, threshold=0.3)
    hands = np.flatnonzero((beliefs[0] > 0) | (beliefs[1] > 0))
    river = build_river_subgame(state, blueprint.game.bets, beliefs, max_raises=2, hands=hands)
    subgame = river.subgame
    assert subgame.kind[0] == DECISION and river.root_player == 1
    assert river.root_slots == (1, 2, 3, 4, 5)
    solved = solve(subgame, 100).average
    blueprint_strategy = _blueprint_strategy(blueprint, state, subgame, river.hands)
    solved_exploitability = _exploitability(subgame, solved)
    blueprint_exploitability = _exploitability(subgame, blueprint_strategy)
    assert 0 <= solved_exploitability < 0.25 * blueprint_exploitability


def test_the_river_blueprint_strategy_matches_a_replay_of_the_tree(blueprint: Blueprint) -> None:
    state = scripted(blueprint, CHECKED_DOWN)
    beliefs = public_beliefs(blueprint, state)
    hands = np.flatnonzero((beliefs[0] > 0) | (beliefs[1] > 0))
    river = build_river_subgame(state, blueprint.game.bets, beliefs, max_raises=2, hands=hands)
    expected = _blueprint_strategy(blueprint, state, river.subgame, river.hands)
    assert np.allclose(river_blueprint_strategy(blueprint, river), expected, atol=1e-12)


def test_the_safe_river_solve_gives_the_opponent_no_more_than_the_blueprint(blueprint: Blueprint) -> None:
    """With the gadget the opponent's best response, hand by hand, gains nothing over the blueprint."""
    state = scripted(blueprint, CHECKED_DOWN)
    beliefs = public_beliefs(blueprint, state, threshold=0.3)
    hands = np.flatnonzero((beliefs[0] > 0) | (beliefs[1] > 0))
    river = build_river_subgame(state, blueprint.game.bets, beliefs, max_raises=2, hands=hands)
    searcher, opponent = river.root_player, 1 - river.root_player
    assert river.root is not None
    blueprint_strategy = river_blueprint_strategy(blueprint, river, 0.3)
    safe = with_resolve_gadget(
        river.root, river.subgame, blueprint_strategy, searcher, valid=FOLD_MATRIX, uniform_weight=0.5
    )
    solved = solve(safe, 300).average
    resolved = np.ones_like(blueprint_strategy)
    resolved[1:] = solved[3 : 3 + river.subgame.num_nodes - 1]
    before = counterfactual_values(river.subgame, blueprint_strategy, opponent, best_response=True)[0]
    after = counterfactual_values(river.subgame, resolved, opponent, best_response=True)[0]
    # Counterfactual values here are chips weighted by the searcher's normalised range. The safe
    # solve stays within a few chips of the blueprint's best response for every opponent hand;
    # the unsafe solve of the same subgame gives some hands tens of chips more.
    tolerance = 10.0
    assert np.all(after <= before + tolerance)
    unsafe = counterfactual_values(
        river.subgame, solve(river.subgame, 300).average, opponent, best_response=True
    )
    assert np.any(unsafe[0] > before + tolerance)


def test_a_bluff_catcher_folds_to_a_range_of_only_the_nuts(blueprint: Blueprint) -> None:
    # Board Qs 9h 2c 5d 3s: the nuts is 4-6 (a six-high straight), held by no board card.
    state = scripted(blueprint, [*CHECKED_DOWN, (1, ActionKind.RAISE, 300)])
    assert state.to_act == 0 and state.street == 3
    fours = parse_cards("4c4d4h4s")
    sixes = parse_cards("6c6d6h6s")
    nuts = np.zeros(NUM_COMBOS)
    for four in fours:
        for six in sixes:
            nuts[combo_index(four, six)] = 1.0
    beliefs = np.zeros((2, NUM_COMBOS))
    beliefs[1] = nuts / nuts.sum()
    beliefs[0, ~combos_holding(state.board)] = 1.0
    beliefs[0] /= beliefs[0].sum()
    river = build_river_subgame(state, blueprint.game.bets, beliefs, max_raises=1)
    assert river.root_slots[:2] == (0, 1)
    strategy = solve(river.subgame, 100).strategy(river.subgame, 0)  # [H, children]
    combos = ALL_COMBOS[river.hands]
    holds_a_four_or_six = np.isin(combos, fours + sixes).any(axis=1)
    fold = strategy[~holds_a_four_or_six, 0]
    assert fold.min() > 0.95, "every hand that does not block the nuts folds"


def test_one_solve_serves_every_hand_at_a_public_state(blueprint: Blueprint) -> None:
    state = scripted(blueprint, CHECKED_DOWN)
    observation = Observation.from_state(state)
    agent = SearchAgent(
        blueprint, SearchConfig(river=RiverSearch(iterations=10, budget_ms=None)), threshold=0.3
    )
    rng = np.random.default_rng(1)
    live = np.flatnonzero(~combos_holding(state.board))
    check = Action(1, ActionKind.CHECK)
    for combo in rng.choice(live, size=25, replace=False):
        hole = (int(ALL_COMBOS[combo, 0]), int(ALL_COMBOS[combo, 1]))
        probabilities, _ = agent.decision(_with_hole(observation, hole))
        assert np.isclose(probabilities.sum(), 1.0)
        assert agent.action_probability(_with_hole(observation, hole), check) == pytest.approx(
            probabilities[1]
        )
    assert agent.solves == 1


def test_a_search_agent_plays_whole_hands_against_call(blueprint: Blueprint) -> None:
    agent = SearchAgent(
        blueprint, SearchConfig(river=RiverSearch(iterations=10, budget_ms=50)), threshold=0.3
    )
    result = duplicate_match(agent, CallAgent(), 3, seed=4)
    assert result.hands == 6
    assert np.isfinite(result.mbb_per_hand)


def _root_best_response(
    subgame: Subgame, strategy: npt.NDArray[np.float64], player: int
) -> npt.NDArray[np.float64]:
    """Oracle: ``player``'s best-response values of the root's children, ``[children, H]``."""
    values = counterfactual_values(subgame, strategy, player)
    for node in subgame.decisions[::-1]:
        children = subgame.children(node)
        child_values = values[children.start : children.stop]
        values[node] = (
            child_values.max(axis=0) if subgame.player[node] == player else child_values.sum(axis=0)
        )
    root = subgame.children(0)
    return values[root.start : root.stop]


@pytest.mark.parametrize("history", [CHECKED_DOWN, [*CHECKED_DOWN, (1, ActionKind.RAISE, 100)]])
def test_best_response_values_of_any_hand_match_the_subgame_oracle(
    blueprint: Blueprint, history: list[tuple[int, ActionKind, int]]
) -> None:
    state = scripted(blueprint, history)
    beliefs = public_beliefs(blueprint, state, threshold=0.3)
    hands = np.flatnonzero((beliefs[0] > 0) | (beliefs[1] > 0))
    river = build_river_subgame(state, blueprint.game.bets, beliefs, max_raises=2, hands=hands)
    average = solve(river.subgame, 5).average
    expected = _root_best_response(river.subgame, average, river.root_player)
    found = best_response_root_values(river, average, river.hands)
    assert np.allclose(found, expected, rtol=1e-9, atol=1e-6)
    # A hand outside the subgame is valued against the same opponent: compare through a bigger subgame.
    everything = build_river_subgame(state, blueprint.game.bets, beliefs, max_raises=2)
    rows = np.searchsorted(everything.hands, river.hands)
    padded = np.zeros((everything.subgame.num_nodes, everything.subgame.num_hands))
    padded[:, rows] = average
    outside = np.setdiff1d(everything.hands, river.hands)[:50]
    expected_outside = _root_best_response(everything.subgame, padded, river.root_player)
    assert np.allclose(
        best_response_root_values(river, average, outside),
        expected_outside[:, np.searchsorted(everything.hands, outside)],
        rtol=1e-9,
        atol=1e-6,
    )


def test_hands_outside_the_searchers_range_get_a_pure_legal_strategy(blueprint: Blueprint) -> None:
    state = scripted(blueprint, OFF_MENU)
    solution = solve_river(blueprint, state, iterations=20, threshold=0.3, max_raises=2)
    beliefs = public_beliefs(blueprint, state, threshold=0.3)
    possible = ~combos_holding(state.board)
    assert solution.num_hands == int(((beliefs[0] > 0) | (beliefs[1] > 0)).sum()) < int(possible.sum())
    assert np.allclose(solution.strategy[possible].sum(axis=1), 1.0)
    assert np.all(solution.strategy[~possible] == 0)
    outside = possible & (beliefs[0] == 0)
    assert outside.any()
    assert np.all(np.isin(solution.strategy[outside], (0.0, 1.0)))
    legal, _ = legal_slot_amounts(state, blueprint.game.bets)
    assert np.all(solution.strategy[:, [slot for slot in range(6) if slot not in legal]] == 0)
