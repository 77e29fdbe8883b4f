"""Hold'em search on the river: beliefs, the river's tree, its solve and gadget, and the search agent."""

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
from pokerai.search.config import FlopSearch, RiverSearch, SearchConfig, TurnSearch
from pokerai.search.payoffs import VALID_MATRIX, RiverPayoffs
from pokerai.search.subgame import (
    DECISION,
    Subgame,
    counterfactual_values,
    inner_solution,
    solve,
    with_resolve_gadget,
)
from pokerai.search.tree import StreetTree, build_street_tree, street_blueprint
from tests.search.hunl_spots import CHECKED_DOWN, DECK, scripted

OFF_MENU = [
    (0, ActionKind.RAISE, 250),
    (1, ActionKind.CALL, 150),
    *CHECKED_DOWN[2:],
    (1, ActionKind.RAISE, 370),
]
"""Off-menu sizes: a raise to 250 preflop (menu 200, 300), a 370 river bet into 500 (menu 250, 500),
with ``CHECKED_DOWN``'s checks between."""


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


RIVER_ONLY = SearchConfig(
    flop=FlopSearch(iterations=0),
    turn=TurnSearch(iterations=0),
    river=RiverSearch(iterations=20, budget_ms=None),
)
"""The river searched for 20 iterations, whatever the time: reproducible and quick."""


def test_the_agent_solves_with_its_opponent_threshold(blueprint: Blueprint) -> None:
    state = scripted(blueprint, CHECKED_DOWN)
    unfloored = dataclasses.replace(RIVER_ONLY, floor=0.0)  # the threshold alone shapes the range
    wide = SearchAgent(blueprint, unfloored, threshold=0.3)
    narrow = SearchAgent(blueprint, dataclasses.replace(unfloored, opponent_threshold=0.3), threshold=0.3)
    wide.policy(state)
    narrow.policy(state)
    assert narrow.stats[-1].num_hands < wide.stats[-1].num_hands
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
    agent = SearchAgent(blueprint, RIVER_ONLY, threshold=0.3)
    # The searcher's own actions are on its menu; the opponent's river bet of 137 into 200 is not.
    state = scripted(blueprint, [*CHECKED_DOWN, (1, ActionKind.RAISE, 137)])
    observation = Observation.from_state(state)
    action = agent.act(observation, np.random.default_rng(0))
    assert state.can_apply(action)
    probabilities, actions = agent.decision(observation)
    assert np.isclose(probabilities.sum(), 1.0)
    assert all(actions[slot] is not None for slot in np.flatnonzero(probabilities > 0))


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


def _river_tree(blueprint: Blueprint, state: HUNLState, threshold: float = 0.3) -> StreetTree:
    """The river's tree from its start, over the hands either player's beliefs hold, two raises."""
    beliefs = public_beliefs(blueprint, state, threshold=threshold)
    hands = np.flatnonzero((beliefs[0] > 0) | (beliefs[1] > 0))
    payoffs = RiverPayoffs(tuple(state.board), hands)
    return build_street_tree(state, blueprint.game.bets, payoffs, beliefs[:, hands], max_raises=2)


def test_the_river_solve_is_less_exploitable_than_the_blueprint(blueprint: Blueprint) -> None:
    state = scripted(blueprint, CHECKED_DOWN)
    tree = _river_tree(blueprint, state)
    subgame = tree.subgame
    assert subgame.kind[0] == DECISION and int(subgame.player[0]) == 1
    assert tuple(subgame.label[child] for child in subgame.children(0)) == (1, 2, 3, 4, 5)
    solved = solve(subgame, 100).average
    blueprint_strategy = _blueprint_strategy(blueprint, state, subgame, tree.hands)
    solved_exploitability = _exploitability(subgame, solved)
    blueprint_exploitability = _exploitability(subgame, blueprint_strategy)
    assert 0 <= solved_exploitability < 0.25 * blueprint_exploitability


def test_the_river_blueprint_strategy_matches_a_replay_of_the_tree(blueprint: Blueprint) -> None:
    state = scripted(blueprint, CHECKED_DOWN)
    tree = _river_tree(blueprint, state, threshold=0.0)
    expected = _blueprint_strategy(blueprint, state, tree.subgame, tree.hands)
    assert np.allclose(street_blueprint(blueprint, tree), expected, atol=1e-12)


def test_the_safe_river_solve_gives_the_opponent_no_more_than_the_blueprint(blueprint: Blueprint) -> None:
    """With the gadget the opponent's best response, hand by hand, gains nothing over the blueprint."""
    state = scripted(blueprint, CHECKED_DOWN)
    tree = _river_tree(blueprint, state)
    searcher = int(tree.subgame.player[0])
    opponent = 1 - searcher
    blueprint_strategy = street_blueprint(blueprint, tree, 0.3)
    gadget = with_resolve_gadget(
        tree.root, tree.subgame, blueprint_strategy, searcher, valid=VALID_MATRIX, uniform_weight=0.5
    )
    resolved = inner_solution(solve(gadget.game, 300), gadget).average
    before = counterfactual_values(tree.subgame, blueprint_strategy, opponent, best_response=True)[0]
    after = counterfactual_values(tree.subgame, resolved, opponent, best_response=True)[0]
    # Counterfactual values here are chips weighted by the searcher's normalised range. The safe
    # solve stays within a few chips of the blueprint's best response for every opponent hand;
    # the unsafe solve of the same subgame gives some hands tens of chips more.
    tolerance = 10.0
    assert np.all(after <= before + tolerance)
    unsafe = counterfactual_values(
        tree.subgame, solve(tree.subgame, 300).average, opponent, best_response=True
    )
    assert np.any(unsafe[0] > before + tolerance)


def test_the_searched_policy_is_thresholded_as_the_blueprint_is(blueprint: Blueprint) -> None:
    """A solve leaves small probabilities where it has not converged; the agent drops those under its
    threshold, as it does the blueprint's, and plays the rest renormalised."""
    state = scripted(blueprint, CHECKED_DOWN)
    config = dataclasses.replace(
        RIVER_ONLY, river=RiverSearch(iterations=8, budget_ms=None, full_iterations=8)
    )
    raw = SearchAgent(blueprint, config, threshold=0.0).policy(state)
    played = SearchAgent(blueprint, config, threshold=0.3).policy(state)
    live = np.flatnonzero(~combos_holding(state.board))
    assert np.any((raw[live] > 0) & (raw[live] < 0.3)), "the unconverged solve mixes in small actions"
    np.testing.assert_allclose(played[live].sum(axis=1), 1.0)
    assert np.all((played[live] == 0) | (played[live] >= 0.3))


def test_a_public_state_keeps_its_policy_within_a_hand_and_is_searched_afresh_in_the_next(
    blueprint: Blueprint,
) -> None:
    state = scripted(blueprint, CHECKED_DOWN)
    agent = SearchAgent(blueprint, RIVER_ONLY, threshold=0.3)
    first = agent.policy(state)
    assert agent.policy(state) is first and len(agent.stats) == 1
    agent.begin_hand(0, state.button)
    assert agent.policy(state) is not first and len(agent.stats) == 2


def test_a_search_agent_plays_whole_hands_searching_only_its_configured_street_reproducibly(
    blueprint: Blueprint,
) -> None:
    """Whole duplicate hands against ``call``: every search is a river search of exactly the
    configured iterations (the flop and turn play the blueprint), and the same seed plays the
    same chips again with a fresh agent."""
    agent = SearchAgent(blueprint, RIVER_ONLY, threshold=0.3)
    result = duplicate_match(agent, CallAgent(), 3, seed=4)
    assert result.hands == 6 and agent.searches_run > 0
    assert {(stats.street, stats.iterations) for stats in agent.stats} == {(3, 20)}
    again = duplicate_match(SearchAgent(blueprint, RIVER_ONLY, threshold=0.3), CallAgent(), 3, seed=4)
    np.testing.assert_array_equal(again.a_results, result.a_results)
