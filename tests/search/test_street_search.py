"""The street pipeline (pokerai.search.street) and the agent that searches every street with it."""

from __future__ import annotations

import dataclasses
import gc
import weakref
from collections.abc import Callable

import numpy as np
import numpy.typing as npt
import pytest

from pokerai.abstraction.bets import CHECK_CALL_SLOT, slot_actions
from pokerai.agents.base import Agent, Observation
from pokerai.agents.baselines import CallAgent, RandomAgent
from pokerai.agents.blueprint import replay_observation
from pokerai.agents.search import SearchAgent
from pokerai.agents.spec import make_agent
from pokerai.deepcfr.export import Blueprint
from pokerai.engine.state import Action, ActionKind, HUNLState, Street
from pokerai.search.beliefs import opponent_range, public_beliefs
from pokerai.search.buckets import bucketed_subgame, hand_buckets
from pokerai.search.combos import ALL_COMBOS, NUM_COMBOS, combo_index, combos_holding
from pokerai.search.config import STREETS, SearchConfig, load_search_config, with_overrides
from pokerai.search.payoffs import VALID_MATRIX, RiverPayoffs
from pokerai.search.rollouts import LeafSettings
from pokerai.search.street import StreetOptions, prepare_street, solve_street
from pokerai.search.subgame import counterfactual_values, inner_solution, solve
from pokerai.search.tree import Exact, build_street_tree
from tests.search.hunl_spots import CHECKED_DOWN, scripted

TO_TURN = CHECKED_DOWN[:4]
"""Limp, check, and checks through the flop: the big blind (player 1) acts first on the turn."""
CHEAP = LeafSettings(continuations=("blueprint", "fold"), cards=2, rollout_raises=0)
"""Leaves small enough for tests."""


def spot_ranges(
    blueprint: Blueprint, actions: list[tuple[int, ActionKind, int]], floor: float | None = None
) -> tuple[HUNLState, int, npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """The scripted spot, its player to act, and that player's and the opponent's ranges: the
    blueprint's beliefs at threshold 0.3, or for the opponent with ``floor`` its floored range."""
    state = scripted(blueprint, actions)
    searcher = state.to_act
    assert searcher is not None
    beliefs = public_beliefs(blueprint, state, threshold=0.3)
    if floor is None:
        return state, searcher, beliefs[searcher], beliefs[1 - searcher]
    return state, searcher, beliefs[searcher], opponent_range(blueprint, state, 1 - searcher, floor=floor)


@pytest.mark.slow  # about 7 s
def test_the_gadget_keeps_the_opponents_alternative_values(capped: Blueprint) -> None:
    state, searcher, own, opponent_beliefs = spot_ranges(capped, TO_TURN)
    options = StreetOptions(max_raises=1, safe=True, leaf=CHEAP, threshold=0.3)
    prepared = prepare_street(capped, state, own, opponent_beliefs, {}, options)
    subgame = prepared.tree.subgame
    layout = prepared.layout
    assert layout is not None and prepared.gadget is not None
    solved = inner_solution(solve(prepared.game, 200), prepared.gadget).average
    opponent = 1 - searcher

    def gains(strategy: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        """Per opponent hand: its best-response value against ``strategy`` over that against the blueprint."""
        found = counterfactual_values(subgame, strategy, opponent, best_response=True)[0]
        base = counterfactual_values(subgame, layout, opponent, best_response=True)[0]
        weight = subgame.matrices[VALID_MATRIX] @ subgame.reach[searcher]
        return np.where(weight > 0, (found - base) / np.where(weight > 0, weight, 1.0), 0.0)

    unsafe = solve(subgame, 200).average
    # Chips per hand met, in a 200-chip pot.
    assert gains(solved).max() < 10.0
    assert gains(unsafe).max() > 10 * max(gains(solved).max(), 1.0)


def test_a_prepared_street_is_freed_without_the_cycle_collector(capped: Blueprint) -> None:
    # A flop's leaf matrices run to hundreds of megabytes: they must go with the last reference to
    # the prepared street, not wait for a full pass of the cyclic collector.
    state, _, own, opponent = spot_ranges(capped, TO_TURN)
    options = StreetOptions(max_raises=1, safe=True, leaf=CHEAP, threshold=0.3)
    prepare_street(capped, state, own, opponent, {}, options)  # first calls
    # Other leaf settings: the rollouts are built again, not taken from the last one's cache.
    options = dataclasses.replace(options, leaf=dataclasses.replace(CHEAP, bias=4.0))
    collecting = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        prepared = prepare_street(capped, state, own, opponent, {}, options)
        payoffs = weakref.ref(prepared.payoffs)
        assert prepared.payoffs.leaves > 0
        del prepared
        assert payoffs() is None
        assert gc.collect() == 0  # nothing else it built was left in a cycle (the rollout trees)
    finally:
        if collecting:
            gc.enable()


def test_an_off_menu_bet_is_re_solved_at_its_exact_size(capped: Blueprint) -> None:
    state = scripted(capped, CHECKED_DOWN)
    bet = 137  # no pot fraction of the menu gives 137 chips into a 200-chip pot
    state.apply(Action(1, ActionKind.RAISE, bet))
    beliefs = public_beliefs(capped, state, threshold=0.3)
    hands = np.flatnonzero(~combos_holding(state.board))
    payoffs = RiverPayoffs(tuple(state.board), hands)
    reach = np.stack([beliefs[0, hands], beliefs[1, hands]])
    tree = build_street_tree(state, capped.game.bets, payoffs, reach, max_raises=1)
    root = tree.path[0]
    labels = [tree.subgame.label[child] for child in tree.subgame.children(root)]
    assert Exact(bet) in labels
    assert tree.path[1] == tree.subgame.children(root)[labels.index(Exact(bet))]
    current = tree.decision_states[tree.current]
    assert (current.bets, current.stacks, current.to_act) == (state.bets, state.stacks, state.to_act)
    own, opponent = beliefs[0], opponent_range(capped, state, 1, floor=0.05)
    solution = solve_street(capped, state, own, opponent, {}, StreetOptions(max_raises=1), iterations=30)
    mask, _ = slot_actions(state, capped.game.bets)
    rows = solution.strategy[hands]
    assert np.all(rows[:, ~mask] == 0)
    np.testing.assert_allclose(rows.sum(axis=1), 1.0)


def test_the_opponent_range_keeps_every_hand_with_a_floor(capped: Blueprint) -> None:
    state = scripted(capped, CHECKED_DOWN)
    live = ~combos_holding(state.board)
    floored = opponent_range(capped, state, 1, threshold=0.3, floor=0.05)
    assert floored.sum() == pytest.approx(1.0)
    assert np.all(floored[live] > 0) and np.all(floored[~live] == 0)
    with pytest.raises(ValueError, match="floor"):
        opponent_range(capped, state, 1, floor=1.0)


def _config(*streets: Street, iterations: int = 4) -> SearchConfig:
    """The street pipeline searching ``streets`` with small, untimed solves and cheap leaves."""
    options = {"flop.turn_cards": "2", "flop.rollout_raises": "0", "flop.buckets": "50"}
    options.update({"turn.river_cards": "5", "turn.rollout_raises": "0", "turn.buckets": "50"})
    for street in (Street.FLOP, Street.TURN, Street.RIVER):
        name = STREETS[street - 1]
        options[f"{name}.iterations"] = str(iterations if street in streets else 0)
        options[f"{name}.budget_ms"] = "none"
        options[f"{name}.max_raises"] = "1"
    return with_overrides(load_search_config(), options)


def _agent(capped: Blueprint, *streets: Street) -> SearchAgent:
    return SearchAgent(capped, _config(*streets), threshold=0.3)


def test_zero_iterations_play_the_blueprint(capped: Blueprint) -> None:
    state = scripted(capped, TO_TURN)
    agent = SearchAgent(capped, _config(Street.TURN, iterations=0), threshold=0.3)
    live = np.flatnonzero(~combos_holding(state.board))
    expected = agent.blueprint_rows(state)
    np.testing.assert_array_equal(agent.policy(state)[live], expected[live])


def test_the_warm_up_runs_no_search(capped: Blueprint) -> None:
    # `pokerai play` runs it in a thread beside the agent's first decisions: it must not solve.
    agent = _agent(capped, Street.FLOP, Street.TURN, Street.RIVER)
    agent.warm_up()
    assert agent.searches_run == 0 and not agent.stats


def _play(
    capped: Blueprint,
    opponent: Agent,
    rng: np.random.Generator,
    hands: int,
    seat: Callable[[], int],
    step: Callable[[HUNLState, Observation], Action],
) -> None:
    """``hands`` hands on random deals against ``opponent``: after each deal ``seat()`` is the player
    whose actions ``step(state, observation)`` chooses."""
    for _ in range(hands):
        state = HUNLState.new(capped.game.config, int(rng.integers(2)), rng=rng)
        me = seat()
        while not state.is_over:
            observation = _observation(state)
            action = step(state, observation) if state.to_act == me else opponent.act(observation, rng)
            state.apply(action)


def test_the_own_range_is_the_product_of_what_the_agent_played(capped: Blueprint) -> None:
    """Own-range bookkeeping across streets: the probability of the agent's history under its
    played strategies equals the product of the probabilities it played."""
    agent = _agent(capped, Street.FLOP, Street.TURN, Street.RIVER)
    rng = np.random.default_rng(5)
    checked = 0
    hand: dict[str, float] = {"product": 1.0}
    seat_of = {"me": 0}

    def seat() -> int:
        hand["product"], seat_of["me"] = 1.0, int(rng.integers(2))
        return seat_of["me"]

    def step(state: HUNLState, observation: Observation) -> Action:
        nonlocal checked
        me = seat_of["me"]
        if state.street > Street.PREFLOP:
            own, _ = agent.own_range(state)
            # The street's earlier decisions are frozen, not in the range: compare at street starts only.
            if all(action.player != me for action in state.history[state.street_starts[state.street] :]):
                hole = state.hole_cards(me)
                assert own[combo_index(*hole)] == pytest.approx(hand["product"], rel=1e-9, abs=1e-300)
                checked += 1
        probabilities, actions = agent.decision(observation)
        action = agent.act(observation, rng)
        slot = next(
            slot
            for slot, candidate in enumerate(actions)
            if candidate is not None and (candidate.kind, candidate.amount) == (action.kind, action.amount)
        )
        hand["product"] *= probabilities[slot]
        return action

    _play(capped, CallAgent(), rng, 4, seat, step)
    assert checked >= 3


def _observation(state: HUNLState) -> Observation:
    return Observation.from_state(state)


def test_every_searched_decision_is_legal(capped: Blueprint) -> None:
    agent = _agent(capped, Street.FLOP, Street.TURN, Street.RIVER)
    rng = np.random.default_rng(11)
    searched = 0

    def step(state: HUNLState, observation: Observation) -> Action:
        nonlocal searched
        action = agent.act(observation, rng)
        assert state.can_apply(action), f"illegal {action} at {state!r}"
        searched += 1
        return action

    _play(capped, RandomAgent(), rng, 3, lambda: 0, step)
    assert searched > 0 and len(agent.stats) > 0
    assert {stat.street for stat in agent.stats} >= {Street.FLOP}


def test_local_best_response_asks_one_solve_per_public_state(capped: Blueprint) -> None:
    agent = _agent(capped, Street.RIVER)
    state = scripted(capped, CHECKED_DOWN)
    observation = _observation(state)
    live = np.flatnonzero(~combos_holding(state.board))
    policy = agent.range_policy(observation, ALL_COMBOS[live])
    assert len(agent.stats) == 1
    np.testing.assert_allclose(policy.probabilities.sum(axis=0), 1.0)
    again = agent.range_policy(observation, ALL_COMBOS[live[:10]])
    assert len(agent.stats) == 1
    np.testing.assert_allclose(again.probabilities, policy.probabilities[:, :10])
    state_again = replay_observation(observation)
    assert agent.policy(state_again).shape == (NUM_COMBOS, capped.game.bets.num_slots)
    assert capped.game.bets.num_slots > CHECK_CALL_SLOT


def test_the_search_spec_builds_the_street_pipeline_on_the_streets_it_names() -> None:
    agent = make_agent("search:checkpoints/hunl_tiny?turn.iterations=0&threshold=0.3")
    assert isinstance(agent, SearchAgent)
    assert agent.searches(Street.FLOP) and agent.searches(Street.RIVER) and not agent.searches(Street.TURN)
    assert not agent.searches(Street.PREFLOP), "the blueprint plays the preflop"
    with pytest.raises(ValueError, match=r"unknown option 'preflop\.iterations'"):
        make_agent("search:checkpoints/hunl_tiny?preflop.iterations=20")


def test_a_bucketed_subgame_is_the_game_where_each_buckets_hands_share_a_strategy(capped: Blueprint) -> None:
    state, _, own, opponent = spot_ranges(capped, CHECKED_DOWN, floor=0.05)
    prepared = prepare_street(capped, state, own, opponent, {}, StreetOptions(max_raises=1, safe=False))
    subgame = prepared.tree.subgame
    rng = np.random.default_rng(0)
    labels = rng.integers(0, 40, subgame.num_hands)
    labels = np.unique(labels, return_inverse=True)[1].astype(np.int64)
    merged = bucketed_subgame(subgame, labels)
    buckets = int(labels.max()) + 1
    strategy = np.ones((subgame.num_nodes, buckets))
    for node in subgame.decisions:
        children = subgame.children(int(node))
        rows = rng.random((len(children), buckets))
        strategy[children.start : children.stop] = rows / rows.sum(axis=0)
    for player in (0, 1):
        hand_values = counterfactual_values(subgame, strategy[:, labels], player)[0]
        bucket_values = counterfactual_values(merged, strategy, player)[0]
        weights = subgame.reach[player]
        expected = np.bincount(labels, weights * hand_values) / np.bincount(labels, weights)
        np.testing.assert_allclose(bucket_values, expected, rtol=1e-9, atol=1e-9)
    found = hand_buckets(subgame, {}, 50)
    assert found.min() == 0 and 2 <= found.max() + 1 <= 50 and found.shape == (subgame.num_hands,)
