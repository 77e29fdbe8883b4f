"""The street pipeline (pokerai.search.street) and the agent that searches every street with it."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pytest

from pokerai.abstraction.bets import CHECK_CALL_SLOT, FOLD_SLOT, slot_actions
from pokerai.agents.base import HandSummary, Observation
from pokerai.agents.baselines import CallAgent, RandomAgent
from pokerai.agents.blueprint import replay_observation
from pokerai.agents.spec import make_agent
from pokerai.agents.street import StreetSearchAgent
from pokerai.deepcfr.export import Blueprint
from pokerai.engine.state import Action, ActionKind, HUNLState, Street
from pokerai.search.beliefs import public_beliefs
from pokerai.search.combos import ALL_COMBOS, NUM_COMBOS, combo_index, combos_holding
from pokerai.search.config import STREETS, SearchConfig, load_search_config, with_overrides
from pokerai.search.responses import RESPONSE_SIZES, PathFloors, ResponseCounts
from pokerai.search.river import solve_river
from pokerai.search.showdown import river_strength
from pokerai.search.street import (
    VALID_MATRIX,
    Exact,
    LeafSettings,
    RiverPayoffs,
    bucketed_subgame,
    build_street_tree,
    hand_buckets,
    mix_fixed,
    opponent_range,
    prepare_street,
    solve_street,
)
from pokerai.search.subgame import counterfactual_values, inner_solution, solve
from tests.search.hunl_spots import CHECKED_DOWN, scripted

TO_TURN = CHECKED_DOWN[:4]
"""Limp, check, and checks through the flop: the big blind (player 1) acts first on the turn."""
CHEAP = LeafSettings(continuations=("blueprint", "fold"), cards=2, rollout_raises=0)
"""Leaves small enough for tests."""


@pytest.mark.parametrize("safe", [False, True])
def test_the_pipelines_river_agrees_with_the_river_solve(capped: Blueprint, safe: bool) -> None:
    state = scripted(capped, CHECKED_DOWN)
    searcher = state.to_act
    assert state.street == Street.RIVER and searcher is not None
    beliefs = public_beliefs(capped, state, threshold=0.3)
    old = solve_river(capped, state, iterations=40, threshold=0.3, max_raises=2, safe=safe)
    new = solve_street(
        capped, state, beliefs[searcher], beliefs[1 - searcher], {},
        iterations=40, max_raises=2, safe=safe, threshold=0.3,
    )  # fmt: skip
    inside = beliefs[searcher] > 0
    assert old.iterations == new.iterations == 40
    np.testing.assert_allclose(new.strategy[inside], old.strategy[inside], atol=1e-9)


def test_the_gadget_keeps_the_opponents_alternative_values(capped: Blueprint) -> None:
    state = scripted(capped, TO_TURN)
    searcher = state.to_act
    assert searcher is not None
    beliefs = public_beliefs(capped, state, threshold=0.3)
    prepared = prepare_street(
        capped, state, beliefs[searcher], beliefs[1 - searcher], {}, max_raises=1, safe=True,
        leaf=CHEAP, threshold=0.3,
    )  # fmt: skip
    subgame = prepared.tree.subgame
    layout = prepared.layout
    assert layout is not None
    solved = inner_solution(solve(prepared.game, 200), subgame).average
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
    solution = solve_street(capped, state, own, opponent, {}, iterations=30, max_raises=1)
    mask, _ = slot_actions(state, capped.game.bets)
    rows = solution.strategy[hands]
    assert np.all(rows[:, ~mask] == 0)
    np.testing.assert_allclose(rows.sum(axis=1), 1.0)


def test_a_path_floor_keeps_the_opponents_bet_on_the_street_for_every_hand(capped: Blueprint) -> None:
    state = scripted(capped, CHECKED_DOWN)
    state.apply(Action(1, ActionKind.RAISE, 137))  # the big blind bets off the menu; player 0 answers
    own = public_beliefs(capped, state, threshold=0.3)[0]
    opponent = opponent_range(capped, state, 1, floor=0.05)

    def prepared_and_bet_share(path_floor: float) -> tuple[int, npt.NDArray[np.float64]]:
        prepared = prepare_street(
            capped, state, own, opponent, {}, max_raises=1, safe=False, threshold=0.3, path_floor=path_floor
        )
        tree = prepared.tree
        bet = tree.path[0]
        assert int(tree.subgame.player[bet]) == 1 and tree.path[1] == tree.current
        solved = solve(prepared.game, 100, fixed=prepared.fixed or None).average
        return len(prepared.fixed), solved[tree.current]

    assert prepared_and_bet_share(0.0)[0] == 0
    assert prepared_and_bet_share(0.0)[1].min() < 0.3  # the solve alone bets some hands less often
    count, bet_share = prepared_and_bet_share(0.3)
    assert count == 1 and bet_share.min() >= 0.3 - 1e-12
    with pytest.raises(ValueError, match="path_floor"):
        prepare_street(capped, state, own, opponent, {}, safe=False, path_floor=1.0)


def test_learnt_path_floors_act_by_the_kind_and_context_of_the_opponents_action(capped: Blueprint) -> None:
    state = scripted(capped, CHECKED_DOWN)
    state.apply(Action(1, ActionKind.RAISE, 137))  # a bet with nothing to call: context 0, aggressive
    own = public_beliefs(capped, state, threshold=0.3)[0]
    opponent = opponent_range(capped, state, 1, floor=0.05)

    def prepared(floors: PathFloors, path_floor: float = 0.0) -> tuple[int, float]:
        result = prepare_street(
            capped, state, own, opponent, {}, max_raises=1, safe=False, threshold=0.3,
            path_floor=path_floor, path_floors=floors,
        )  # fmt: skip
        bet = result.tree.path[0]
        if bet not in result.fixed:
            return len(result.fixed), 0.0
        solved = solve(result.game, 100, fixed=result.fixed).average
        return len(result.fixed), float(solved[result.tree.current].min())

    # Only the floor on bets with nothing to call applies to this bet.
    assert prepared(PathFloors(((0.4, 0.0), (0.4, 0.4))))[0] == 0
    count, bet_share = prepared(PathFloors(((0.0, 0.4), (0.0, 0.0))))
    assert count == 1 and bet_share >= 0.4 - 1e-12
    # The larger of path_floor and the learnt floor.
    assert prepared(PathFloors(((0.0, 0.2), (0.0, 0.0))), path_floor=0.5)[1] >= 0.5 - 1e-12
    with pytest.raises(ValueError, match="path floor"):
        prepared(PathFloors(((0.0, 1.0), (0.0, 0.0))))
    # The floor on overbets does not reach a bet of under a pot; on a bet of five pots it does.
    overbets = PathFloors(((0.0, 0.0), (0.0, 0.0)), overbets=(0.4, 0.0))
    assert prepared(overbets)[0] == 0
    state = scripted(capped, CHECKED_DOWN)
    state.apply(Action(1, ActionKind.RAISE, 1000))
    own = public_beliefs(capped, state, threshold=0.3)[0]
    opponent = opponent_range(capped, state, 1, floor=0.05)
    count, overbet_share = prepared(overbets)
    assert count == 1 and overbet_share >= 0.4 - 1e-12


def test_a_second_fixed_strategy_mixes_over_the_first() -> None:
    own = np.array([[0.2, 0.8], [0.5, 0.5]])
    first = (0.4, np.array([[1.0, 0.0], [0.0, 1.0]]))
    second = (0.25, np.array([[0.0, 1.0], [0.0, 1.0]]))
    weight, rows = mix_fixed(first, second)
    expected = 0.75 * (0.6 * own + 0.4 * first[1]) + 0.25 * second[1]
    np.testing.assert_allclose((1 - weight) * own + weight * rows, expected)
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
    options = {"pipeline": "street", "flop.turn_cards": "2", "flop.rollout_raises": "0", "flop.buckets": "50"}
    options.update({"turn.river_cards": "5", "turn.rollout_raises": "0", "turn.buckets": "50"})
    options.update({"flop.leaves": "blueprint", "turn.leaves": "blueprint", "preflop.buckets": "50"})
    for street in Street:
        name = STREETS[street]
        options[f"{name}.iterations"] = str(iterations if street in streets else 0)
        options[f"{name}.budget_ms"] = "none"
        options[f"{name}.max_raises"] = "1"
    return with_overrides(load_search_config(), options)


def _agent(capped: Blueprint, *streets: Street) -> StreetSearchAgent:
    return StreetSearchAgent(capped, _config(*streets), threshold=0.3)


def test_zero_iterations_play_the_blueprint(capped: Blueprint) -> None:
    state = scripted(capped, TO_TURN)
    agent = StreetSearchAgent(capped, _config(Street.TURN, iterations=0), threshold=0.3)
    live = np.flatnonzero(~combos_holding(state.board))
    expected = agent.blueprint_rows(state)
    np.testing.assert_array_equal(agent.policy(state)[live], expected[live])


def test_a_streets_own_safe_sets_the_gadget_on_that_street_alone(
    capped: Blueprint, monkeypatch: pytest.MonkeyPatch
) -> None:
    import pokerai.agents.street as street_agent

    gadgets: list[tuple[int, bool]] = []
    real = street_agent.solve_street

    def recording(blueprint: Blueprint, state: HUNLState, *args: object, **kwargs: object) -> object:
        gadgets.append((state.street, bool(kwargs["safe"])))
        return real(blueprint, state, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(street_agent, "solve_street", recording)
    config = with_overrides(_config(Street.TURN, Street.RIVER), {"river.safe": "1"})
    agent = StreetSearchAgent(capped, config, threshold=0.3)
    agent.policy(scripted(capped, CHECKED_DOWN))  # the river, after the agent's own turn decision
    assert sorted(set(gadgets)) == [(Street.TURN, False), (Street.RIVER, True)]
    flipped = with_overrides(config, {"safe": "1", "river.safe": "0"})
    assert [flipped.safe_on(street) for street in Street] == [True, True, True, False]


def _all_answers(answers: tuple[int, int, int]) -> ResponseCounts:
    """Counts with ``answers`` (folds, calls, raises) in every context and bet size."""
    row = tuple(answers for _ in range(len(RESPONSE_SIZES) + 1))
    return ResponseCounts((row, row))


def test_the_street_river_mixes_the_learnt_answers_into_the_opponents_first_bet_answers(
    capped: Blueprint,
) -> None:
    state = scripted(capped, CHECKED_DOWN)  # the river's start: player 1 opens
    searcher = state.to_act
    assert searcher == 1
    own = np.ones(NUM_COMBOS)
    opponent = opponent_range(capped, state, 0, threshold=0.3)
    plain = prepare_street(capped, state, own, opponent, {}, max_raises=1, safe=False)
    tree = plain.tree
    # The nodes where player 0 answers the river's first bet, made by player 1 at the root.
    expected = {
        node
        for node, node_state in tree.decision_states.items()
        if node_state.to_act == 0
        and [(action.player, action.kind) for action in node_state.history[6:]] == [(1, ActionKind.RAISE)]
    }
    assert expected and plain.fixed == {}
    for answers, slot in (((0, 60, 0), CHECK_CALL_SLOT), ((60, 0, 0), FOLD_SLOT)):
        modelled = prepare_street(
            capped,
            state,
            own,
            opponent,
            {},
            max_raises=1,
            safe=False,
            opponent_responses=_all_answers(answers),
        )
        assert set(modelled.fixed) == expected
        for node, (weight, rows) in modelled.fixed.items():
            assert weight == pytest.approx(60 / 80)
            labels = [tree.subgame.label[child] for child in tree.subgame.children(node)]
            np.testing.assert_array_equal(rows[:, labels.index(slot)], 1.0)
    # Against an opponent that never folds the searcher bets its strong hands and no bluffs; against
    # one that always folds it bets every hand (200 iterations, the model at weight 600 / 620).
    live = np.flatnonzero(~combos_holding(state.board))
    strength = river_strength(tuple(state.board))[live]
    weak, strong = strength < np.quantile(strength, 1 / 3), strength > np.quantile(strength, 2 / 3)
    bets = {}
    for name, counts in (("calling", _all_answers((0, 600, 0))), ("folding", _all_answers((600, 0, 0)))):
        solution = solve_street(
            capped, state, own, opponent, {}, iterations=200, max_raises=1, safe=False,
            opponent_responses=counts,
        )  # fmt: skip
        bets[name] = solution.strategy[live][:, CHECK_CALL_SLOT + 1 :].sum(axis=1)
    assert bets["calling"][weak].mean() < 0.05 and bets["calling"][strong].mean() > 0.95
    assert bets["folding"][weak].mean() > 0.95
    with pytest.raises(ValueError, match="safe gadget"):
        prepare_street(
            capped, state, own, opponent, {}, safe=True, opponent_responses=_all_answers((0, 1, 0))
        )


def test_a_flop_solve_mixes_the_learnt_answers_into_the_answers_to_the_first_flop_bet(
    capped: Blueprint,
) -> None:
    state = scripted(capped, CHECKED_DOWN[:2])  # the flop's start: player 1 opens
    own = np.ones(NUM_COMBOS)
    opponent = opponent_range(capped, state, 0, threshold=0.3)
    plain = prepare_street(capped, state, own, opponent, {}, max_raises=1, safe=False, leaf=CHEAP)
    tree = plain.tree
    # Player 1 searches and acts first, so its first flop bet is the one at the root.
    expected = {
        node
        for node, node_state in tree.decision_states.items()
        if node_state.to_act == 0
        and [(action.player, action.kind) for action in node_state.history[2:]] == [(1, ActionKind.RAISE)]
    }
    assert expected and plain.fixed == {}
    modelled = prepare_street(
        capped,
        state,
        own,
        opponent,
        {},
        opponent_responses=_all_answers((0, 60, 0)),
        max_raises=1,
        safe=False,
        leaf=CHEAP,
    )
    assert set(modelled.fixed) == expected
    for node, (weight, rows) in modelled.fixed.items():
        assert weight == pytest.approx(60 / 80)
        labels = [tree.subgame.label[child] for child in tree.subgame.children(node)]
        np.testing.assert_array_equal(rows[:, labels.index(CHECK_CALL_SLOT)], 1.0)
    # With a raise row too, every node where player 0 answers a raise of player 1 over its own bet
    # or raise is modelled as well (two raises a street, so that such nodes exist).
    raise_row = tuple((0, 0, 60) for _ in range(len(RESPONSE_SIZES) + 1))
    with_raises = ResponseCounts((*_all_answers((0, 60, 0)).counts, raise_row))
    two = prepare_street(
        capped, state, own, opponent, {}, opponent_responses=with_raises, max_raises=2, safe=False, leaf=CHEAP
    )
    answers_to_raises = {
        node
        for node, node_state in two.tree.decision_states.items()
        if node_state.to_act == 0
        and node_state.history[-1].player == 1
        and node_state.history[-1].kind == ActionKind.RAISE
        and any(action.player == 0 and action.kind == ActionKind.RAISE for action in node_state.history[2:])
    }
    assert answers_to_raises and answers_to_raises <= set(two.fixed)
    in_range = two.tree.subgame.reach[0] > 0
    for node in answers_to_raises:
        labels = [two.tree.subgame.label[child] for child in two.tree.subgame.children(node)]
        calls = two.fixed[node][1][in_range, labels.index(CHECK_CALL_SLOT)]
        can_raise = any(label not in (FOLD_SLOT, CHECK_CALL_SLOT) for label in labels)
        np.testing.assert_array_equal(calls, 0.0 if can_raise else 1.0)  # the modelled raises, or calls
    assert not answers_to_raises & set(
        prepare_street(
            capped, state, own, opponent, {}, opponent_responses=_all_answers((0, 60, 0)),
            max_raises=2, safe=False, leaf=CHEAP,
        ).fixed
    ), "without a raise row, only the answers to the first bet"  # fmt: skip
    # The turn after a checked flop, player 1 again to act: the folding model there.
    turn = scripted(capped, CHECKED_DOWN[:4])
    mirrored = prepare_street(
        capped, turn, own, opponent_range(capped, turn, 0, threshold=0.3), {},
        opponent_responses=_all_answers((60, 0, 0)), max_raises=1, safe=False, leaf=CHEAP,
    )  # fmt: skip
    assert mirrored.fixed and all(
        mirrored.tree.decision_states[node].to_act == 0 for node in mirrored.fixed
    ), "player 0 answers player 1's bets"
    in_range = mirrored.tree.subgame.reach[0] > 0  # a hand the opponent cannot hold answers anyhow
    for node, (_, rows) in mirrored.fixed.items():
        labels = [mirrored.tree.subgame.label[child] for child in mirrored.tree.subgame.children(node)]
        np.testing.assert_array_equal(rows[in_range, labels.index(FOLD_SLOT)], 1.0)


def test_the_street_agent_learns_answers_and_solves_the_river_again(capped: Blueprint) -> None:
    config = with_overrides(_config(Street.RIVER), {"responses": "1"})
    agent = StreetSearchAgent(capped, config, threshold=0.3)
    assert list(agent.response_models) == [Street.RIVER]
    state = scripted(capped, CHECKED_DOWN)
    before = agent.policy(state)
    agent.policy(state)
    assert len(agent.stats) == 1, "the same model: the kept solve"
    for bet in (100, 200, 400):
        hand = scripted(capped, [*CHECKED_DOWN, (1, ActionKind.RAISE, bet), (0, ActionKind.CALL, bet)])
        agent.end_hand(HandSummary.from_state(hand, 1))
    after = agent.policy(state)
    assert len(agent.stats) == 2, "a new model: a new solve"
    assert not np.array_equal(after, before)
    plain = make_agent("search:checkpoints/hunl_tiny?pipeline=street&responses=1")
    assert isinstance(plain, StreetSearchAgent) and list(plain.response_models) == [Street.RIVER]
    postflop = make_agent(
        "search:checkpoints/hunl_tiny?pipeline=street&responses=1&response_streets=postflop"
    )
    assert isinstance(postflop, StreetSearchAgent)
    assert list(postflop.response_models) == [Street.FLOP, Street.TURN, Street.RIVER]
    for options, message in (
        ({"response_streets": "postflop"}, "needs responses=1"),
        ({"responses": "1", "response_streets": "postflop", "pipeline": "river"}, "needs pipeline: street"),
        ({"responses": "1", "response_streets": "postflop", "flop.safe": "1"}, "does not work with safe"),
        ({"responses": "1", "response_streets": "turn"}, "response_streets"),
    ):
        with pytest.raises(ValueError, match=message):
            with_overrides(_config(Street.RIVER), options)
    with_overrides(_config(Street.RIVER), {"responses": "1", "flop.safe": "1"})  # the flop is not modelled


def test_the_street_agent_learns_the_opponents_aggression_and_solves_again(capped: Blueprint) -> None:
    config = with_overrides(_config(Street.RIVER), {"aggression": "1"})
    agent = StreetSearchAgent(capped, config, threshold=0.3)
    assert agent.aggression is not None and agent.response_models == {}
    state = scripted(capped, [*CHECKED_DOWN, (1, ActionKind.RAISE, 100)])  # player 0 faces a river bet
    before = agent.policy(state)
    # Player 1 bets every street and player 0 (the agent) calls, then folds to the river bet.
    limp = [(0, ActionKind.CALL, 50), (1, ActionKind.CHECK, 0)]
    bets = [(1, ActionKind.RAISE, 100), (0, ActionKind.CALL, 100), (1, ActionKind.RAISE, 200)]
    bets += [(0, ActionKind.CALL, 200), (1, ActionKind.RAISE, 400), (0, ActionKind.FOLD, 0)]
    for _ in range(10):
        agent.end_hand(HandSummary.from_state(scripted(capped, [*limp, *bets]), 0))
    assert agent.aggression.counts == [[0, 30], [0, 0]]
    assert agent.aggression.path_floors().floor(0, aggressive=True) > 0.5
    after = agent.policy(state)
    assert len(agent.stats) == 2, "new floors: a new solve"
    assert not np.array_equal(after, before)
    with pytest.raises(ValueError, match="aggression needs pipeline: street"):
        make_agent("search:checkpoints/hunl_tiny?aggression=1")


def test_the_warm_up_runs_no_search(capped: Blueprint) -> None:
    # `pokerai play` runs it in a thread beside the agent's first decisions: it must not solve.
    agent = _agent(capped, Street.FLOP, Street.TURN, Street.RIVER)
    agent.warm_up()
    assert agent.stats == []


def test_the_own_range_is_the_product_of_what_the_agent_played(capped: Blueprint) -> None:
    """Own-range bookkeeping across streets: the probability of the agent's history under its
    played strategies equals the product of the probabilities it played."""
    agent = _agent(capped, Street.FLOP, Street.TURN, Street.RIVER)
    opponent = CallAgent()
    rng = np.random.default_rng(5)
    checked = 0
    for _ in range(4):
        state = HUNLState.new(capped.game.config, int(rng.integers(2)), rng=rng)
        me = int(rng.integers(2))
        hole = state.hole_cards(me)
        product = 1.0
        while not state.is_over:
            if state.to_act == me and state.street > Street.PREFLOP:
                own, _ = agent.own_range(state)
                # The street's earlier decisions are frozen, not in the range: compare at street starts only.
                if state.history[state.street_starts[state.street] :] == [] or all(
                    action.player != me for action in state.history[state.street_starts[state.street] :]
                ):
                    assert own[combo_index(*hole)] == pytest.approx(product, rel=1e-9, abs=1e-300)
                    checked += 1
            observation = _observation(state)
            if state.to_act == me:
                probabilities, actions = agent.decision(observation)
                action = agent.act(observation, rng)
                slot = next(
                    slot
                    for slot, candidate in enumerate(actions)
                    if candidate is not None
                    and (candidate.kind, candidate.amount) == (action.kind, action.amount)
                )
                product *= probabilities[slot]
            else:
                action = opponent.act(observation, rng)
            state.apply(action)
    assert checked >= 3


def _observation(state: HUNLState) -> Observation:
    return Observation.from_state(state)


def test_every_searched_decision_is_legal(capped: Blueprint) -> None:
    agent = _agent(capped, Street.PREFLOP, Street.FLOP, Street.TURN, Street.RIVER)
    opponent = RandomAgent()
    rng = np.random.default_rng(11)
    searched = 0
    for _ in range(3):
        state = HUNLState.new(capped.game.config, int(rng.integers(2)), rng=rng)
        while not state.is_over:
            observation = _observation(state)
            if state.to_act == 0:
                action = agent.act(observation, rng)
                assert state.can_apply(action), f"illegal {action} at {state!r}"
                searched += 1
            else:
                action = opponent.act(observation, rng)
            state.apply(action)
    assert searched > 0 and len(agent.stats) > 0
    assert {stat.street for stat in agent.stats} >= {Street.PREFLOP}


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


def test_the_search_spec_builds_the_street_pipeline_and_refuses_river_only_options() -> None:
    agent = make_agent("search:checkpoints/hunl_tiny?pipeline=street&flop.iterations=20&threshold=0.3")
    assert isinstance(agent, StreetSearchAgent)
    assert agent.searches(Street.FLOP) and agent.searches(Street.RIVER) and not agent.searches(Street.TURN)
    with pytest.raises(ValueError, match="needs pipeline: river"):
        make_agent("search:checkpoints/hunl_tiny?pipeline=street&river_allin=1")
    with pytest.raises(ValueError, match="flop search needs pipeline: street"):
        make_agent("search:checkpoints/hunl_tiny?flop.iterations=20")


def test_a_bucketed_subgame_is_the_game_where_each_buckets_hands_share_a_strategy(capped: Blueprint) -> None:
    state = scripted(capped, CHECKED_DOWN)
    searcher = state.to_act
    assert searcher is not None
    beliefs = public_beliefs(capped, state, threshold=0.3)
    prepared = prepare_street(
        capped, state, beliefs[searcher], opponent_range(capped, state, 1 - searcher, floor=0.05), {},
        max_raises=1, safe=False,
    )  # fmt: skip
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
