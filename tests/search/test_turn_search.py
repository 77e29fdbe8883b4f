"""Depth-limited turn search for hold'em: equity matrices, leaf rollouts, the solve and the agent."""

from __future__ import annotations

import dataclasses

import numpy as np
import numpy.typing as npt
import pytest

from pokerai.abstraction.bets import CHECK_CALL_SLOT, FOLD_SLOT, legal_slot_amounts
from pokerai.agents.base import Observation
from pokerai.agents.baselines import CallAgent
from pokerai.agents.blueprint import BlueprintAgent
from pokerai.agents.search import SearchAgent
from pokerai.agents.spec import make_agent
from pokerai.deepcfr.export import Blueprint
from pokerai.engine.evaluator import rank_hands
from pokerai.engine.state import ActionKind, HUNLState, Street
from pokerai.eval.duplicate import duplicate_match
from pokerai.search.beliefs import combo_probabilities, public_beliefs
from pokerai.search.combos import ALL_COMBOS, combo_index
from pokerai.search.config import RiverSearch, SearchConfig, TurnSearch
from pokerai.search.subgame import Subgame, counterfactual_values, solve, with_resolve_gadget
from pokerai.search.turn import (
    CONTINUATIONS,
    VALID_MATRIX,
    build_turn_subgame,
    leaf_matrices,
    river_card_sample,
    solve_turn,
    turn_blueprint_strategy,
    turn_matrices,
)
from tests.search.hunl_spots import CHECKPOINT, DECK, scripted

TO_TURN = [
    (0, ActionKind.CALL, 50),
    (1, ActionKind.CHECK, 0),
    (1, ActionKind.CHECK, 0),
    (0, ActionKind.CHECK, 0),
]
"""Limp, check, and checks on the flop: the big blind (player 1) acts first on the turn."""


def test_the_equity_matrix_is_the_mean_showdown_over_the_river_cards() -> None:
    board = tuple(DECK[4:8])
    hands, valid, equity, _ = turn_matrices(board)
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


def test_river_cards_are_a_seeded_sample_of_the_unseen_cards() -> None:
    board = tuple(DECK[4:8])
    first = river_card_sample(board, "history", 8)
    assert first == river_card_sample(board, "history", 8)
    assert len(set(first)) == 8 and not set(first) & set(board)
    assert first != river_card_sample(board, "other history", 8)
    assert river_card_sample(board, "history", None) == tuple(c for c in range(52) if c not in board)


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
    all_hands = turn_matrices(board)[0]
    hands = all_hands[[0, 5, 100, 400, 700, 1127]]
    cards = river_card_sample(board, "test", 6)
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
    hands = turn_matrices(tuple(turn.board))[0][::50]
    cards = river_card_sample(tuple(turn.board), "x", 5)
    matrices = leaf_matrices(blueprint, leaf, hands, cards, 1, CONTINUATIONS, bias=1.0)
    for matrix in matrices[1:]:  # rollouts run in float32
        np.testing.assert_allclose(matrix, matrices[0], rtol=1e-5, atol=1e-3)
    biased = leaf_matrices(blueprint, leaf, hands, cards, 1, CONTINUATIONS)
    assert not np.allclose(biased[1], biased[0]) and not np.allclose(biased[3], biased[0])


def _opponent_best_response(subgame: Subgame, strategy: npt.NDArray[np.float64], opponent: int) -> float:
    values = counterfactual_values(subgame, strategy, opponent, best_response=True)
    return float(subgame.reach[opponent] @ values[0])


def test_the_turn_solve_gives_a_best_responding_opponent_less_than_the_blueprint(
    blueprint: Blueprint,
) -> None:
    state = scripted(blueprint, TO_TURN)
    beliefs = public_beliefs(blueprint, state, threshold=0.3)
    hands = np.flatnonzero((beliefs[0] > 0) | (beliefs[1] > 0))
    turn = build_turn_subgame(
        blueprint, state, beliefs, hands=hands, max_raises=1, river_cards=5, threshold=0.3
    )
    assert turn.leaves > 0 and turn.root_player == 1
    subgame = turn.subgame
    blueprint_strategy = turn_blueprint_strategy(blueprint, turn, 0.3)
    solution = solve(subgame, 200)
    against_blueprint = _opponent_best_response(subgame, blueprint_strategy, 0)
    against_search = _opponent_best_response(subgame, solution.average, 0)
    assert against_search < against_blueprint - 1.0


def test_zero_turn_iterations_play_the_blueprint_exactly(blueprint: Blueprint) -> None:
    observation = Observation.from_state(scripted(blueprint, TO_TURN))
    expected, _ = BlueprintAgent(blueprint, threshold=0.3).decision(observation)
    found, _ = SearchAgent(
        blueprint, SearchConfig(turn=TurnSearch(iterations=0), river=RiverSearch(iterations=0)), threshold=0.3
    ).decision(observation)
    assert np.array_equal(found, expected)
    assert not solve_turn(blueprint, scripted(blueprint, TO_TURN), iterations=0).strategy.any()


def test_a_turn_search_agent_solves_once_per_public_state(blueprint: Blueprint) -> None:
    state = scripted(blueprint, TO_TURN)
    observation = Observation.from_state(state)
    beliefs = public_beliefs(blueprint, state, threshold=0.3)
    agent = SearchAgent(
        blueprint,
        SearchConfig(turn=TurnSearch(iterations=20, river_cards=5), river=RiverSearch(iterations=20)),
        threshold=0.3,
    )
    reference = BlueprintAgent(blueprint, threshold=0.3)
    changed = 0
    for combo in np.argsort(-beliefs[1])[:20]:  # hands the big blind holds here
        hole = (int(ALL_COMBOS[combo, 0]), int(ALL_COMBOS[combo, 1]))
        mine = dataclasses.replace(observation, hole_cards=hole)
        probabilities, actions = agent.decision(mine)
        assert np.isclose(probabilities.sum(), 1.0)
        assert all(action is not None for action, p in zip(actions, probabilities, strict=True) if p > 0)
        changed += not np.allclose(probabilities, reference.decision(mine)[0])
    assert changed > 0
    assert agent.solves == 1


def test_a_turn_search_agent_plays_whole_hands_against_call(blueprint: Blueprint) -> None:
    agent = SearchAgent(
        blueprint,
        SearchConfig(
            turn=TurnSearch(iterations=10, budget_ms=50, river_cards=5),
            river=RiverSearch(iterations=10, budget_ms=50),
        ),
        threshold=0.3,
    )
    result = duplicate_match(agent, CallAgent(), 3, seed=4)
    assert result.hands == 6 and np.isfinite(result.mbb_per_hand)
    assert agent.turn_solves > 0  # one process (workers=1): the agent itself played


def test_turn_options_of_the_search_spec() -> None:
    agent = make_agent(f"search:{CHECKPOINT}?turn=1&turn_leaves=blueprint&river_cards=6&turn_max_raises=2")
    assert isinstance(agent, SearchAgent)
    turn = agent.config.turn
    # turn=1 searches the turn with the river's iterations, as the one shared count did before.
    assert (turn.iterations, turn.leaves, turn.river_cards, turn.max_raises) == (1000, "blueprint", 6, 2)
    assert make_agent(f"search:{CHECKPOINT}").config.turn.iterations == 0  # type: ignore[attr-defined]
    for bad in (
        "turn_leaves=unsafe",
        "river_cards=3",
        "river_cards=49",
        "turn_budget_ms=-1",
        "turn_max_raises=x",
    ):
        with pytest.raises(ValueError, match=bad.split("=")[0]):
            make_agent(f"search:{CHECKPOINT}?turn=1&{bad}")
    with pytest.raises(ValueError, match="turn"):
        make_agent(f"search:{CHECKPOINT}?turn=2")
    with pytest.raises(ValueError, match="river_cards= needs turn=1"):
        make_agent(f"search:{CHECKPOINT}?river_cards=6")


@pytest.mark.parametrize(("safe", "continuations"), [(True, CONTINUATIONS), (False, ("blueprint",))])
def test_solve_turn_settings_give_legal_root_strategies(
    blueprint: Blueprint, safe: bool, continuations: tuple[str, ...]
) -> None:
    state = scripted(blueprint, TO_TURN)
    beliefs = public_beliefs(blueprint, state, threshold=0.3)
    solution = solve_turn(
        blueprint, state, iterations=50, threshold=0.3, max_raises=1, river_cards=5, safe=safe,
        continuations=continuations,
    )  # fmt: skip
    assert solution.iterations == 50 and solution.leaves > 0
    legal, _ = legal_slot_amounts(state, blueprint.game.bets)
    inside = np.flatnonzero((beliefs[0] > 0) | (beliefs[1] > 0))
    rows = solution.strategy[inside]
    assert np.allclose(rows.sum(axis=1), 1.0)
    assert not rows[:, [slot for slot in range(rows.shape[1]) if slot not in legal]].any()
    outside = np.setdiff1d(np.arange(len(solution.strategy)), inside)
    assert not solution.strategy[outside].any()
    # Hands outside the searcher's range but in the subgame get a pure best response.
    pure = inside[beliefs[1, inside] == 0]
    assert len(pure) > 0 and np.all(solution.strategy[pure].max(axis=1) == 1.0)


def test_the_safe_turn_solve_gives_the_opponent_little_more_than_the_blueprint(blueprint: Blueprint) -> None:
    state = scripted(blueprint, TO_TURN)
    beliefs = public_beliefs(blueprint, state, threshold=0.3)
    hands = np.flatnonzero((beliefs[0] > 0) | (beliefs[1] > 0))
    turn = build_turn_subgame(
        blueprint, state, beliefs, hands=hands, max_raises=1, river_cards=5, threshold=0.3
    )
    subgame = turn.subgame
    blueprint_strategy = turn_blueprint_strategy(blueprint, turn, 0.3)
    gadget = with_resolve_gadget(turn.root, subgame, blueprint_strategy, 1, valid=VALID_MATRIX)
    safe = solve(gadget, 300).average
    inner = np.ones_like(blueprint_strategy)
    inner[1:] = safe[3 : 3 + subgame.num_nodes - 1]
    unsafe = solve(subgame, 300).average

    def gains(strategy: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        """Per opponent hand: best-response value against ``strategy`` minus that against the blueprint."""
        found = counterfactual_values(subgame, strategy, 0, best_response=True)[0]
        base = counterfactual_values(subgame, blueprint_strategy, 0, best_response=True)[0]
        weight = subgame.matrices[VALID_MATRIX] @ subgame.reach[1]  # the searcher's reach each hand meets
        return np.where(weight > 0, (found - base) / np.where(weight > 0, weight, 1.0), 0.0)

    # Chips per hand met, in a 200-chip pot: about 0.8 safe and 540 unsafe when this was written.
    assert gains(inner).max() < 10.0
    assert gains(unsafe).max() > 100.0
