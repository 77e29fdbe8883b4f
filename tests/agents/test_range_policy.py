"""``range_policy`` of the blueprint and search agents agrees with ``action_probability`` hand by hand.

On the shipped blueprint (its menu has no all-in over 2 pots, so an all-in is off the menu and
``allin="solve"`` answers it with a solved game). Every check compares the batched policy with
the per-hand one for each hand asked (all hands that hold no visible card, or a seeded sample
of them), for every action of the policy and one off the menu. The network's float32 products
are grouped differently for a batch than for one hand, so the probabilities agree to 1e-6.
"""

from __future__ import annotations

import numba
import numpy as np
import numpy.typing as npt
import pytest
import torch

import pokerai.agents.search as search_module
from pokerai.agents.base import Agent, Observation
from pokerai.agents.blueprint import BlueprintAgent, slot_range_policy, with_hole_cards
from pokerai.agents.search import SearchAgent
from pokerai.deepcfr.export import Blueprint
from pokerai.engine.state import Action, ActionKind, HUNLState
from pokerai.eval.duplicate import run_chunks
from pokerai.eval.lbr import LBRConfig, lbr_match
from pokerai.search.combos import ALL_COMBOS, combos_holding
from pokerai.search.config import FlopSearch, RiverSearch, SearchConfig, TurnSearch
from tests.search import conftest as search_fixtures
from tests.search.hunl_spots import CHECKED_DOWN
from tests.search.hunl_spots import scripted as spot

TOLERANCE = 1e-6
capped, one_torch_thread = search_fixtures.capped, search_fixtures.one_torch_thread
"""The hold'em search tests' fixtures: the shipped blueprint, and one torch thread."""


def shove(state: HUNLState) -> HUNLState:
    """``state`` after the player to act goes all-in (off the capped menu when deep)."""
    assert state.to_act is not None and state.max_raise_to is not None
    state.apply(Action(state.to_act, ActionKind.RAISE, state.max_raise_to))
    return state


def hands_off(observation: Observation, sample: int | None, seed: int = 0) -> npt.NDArray[np.int64]:
    """The card pairs that hold no card the observer sees (its own or the board), or ``sample`` of them."""
    live = np.flatnonzero(~combos_holding([*observation.hole_cards, *observation.board]))
    if sample is not None:
        live = np.sort(np.random.default_rng(seed).choice(live, size=sample, replace=False))
    return ALL_COMBOS[live]


def assert_agrees(agent: Agent, observation: Observation, hands: npt.NDArray[np.int64]) -> None:
    """``range_policy`` equals ``action_probability`` for every hand, on its rows and an off-menu raise."""
    policy = agent.range_policy(observation, hands)
    assert policy is not None
    rows = [
        Action(observation.player, ActionKind(int(kind)), int(amount))
        for kind, amount in zip(policy.kinds, policy.amounts, strict=True)
    ]
    assert len({(action.kind, action.amount) for action in rows}) == len(rows), "rows are distinct"
    np.testing.assert_allclose(policy.probabilities.sum(axis=0), 1.0, atol=1e-9)
    probes = list(rows)
    low, high = observation.min_raise_to, observation.max_raise_to
    if low is not None and high is not None and high > low:
        off_menu = (amount for amount in range(low, high + 1) if amount not in set(policy.amounts.tolist()))
        probes.append(Action(observation.player, ActionKind.RAISE, next(off_menu)))
    for action in probes:
        found = policy.probability(observation, action)
        expected = np.array(
            [agent.action_probability(with_hole_cards(observation, (a, b)), action) for a, b in hands]
        )
        np.testing.assert_allclose(found, expected, rtol=0, atol=TOLERANCE, err_msg=str(action))


@pytest.mark.parametrize("threshold", [0.0, 0.3])
def test_blueprint_range_policy_agrees_hand_by_hand(capped: Blueprint, threshold: float) -> None:
    agent = BlueprintAgent(capped, threshold=threshold)
    spots = {
        "preflop, button first": [],
        "flop, big blind first": CHECKED_DOWN[:2],
        "river after checks": CHECKED_DOWN,
    }
    for name, actions in spots.items():
        observation = Observation.from_state(spot(capped, actions))
        hands = hands_off(observation, None if name == "river after checks" else 150)
        assert_agrees(agent, observation, hands)


def test_blueprint_preflop_ranges_are_computed_once_per_public_state(
    capped: Blueprint, monkeypatch: pytest.MonkeyPatch
) -> None:
    agent = BlueprintAgent(capped, threshold=0.3)
    calls: list[int] = []
    network = capped.probabilities_batch

    def counted(records: npt.NDArray[np.void], *args: object) -> npt.NDArray[np.float64]:
        calls.append(len(records))
        return network(records, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(capped, "probabilities_batch", counted)
    observation = Observation.from_state(spot(capped, []))
    hands = hands_off(observation, None)
    first = agent.range_policy(observation, hands[:400])
    second = agent.range_policy(observation, hands[200:])
    assert calls == [len(ALL_COMBOS)]  # one network call for every hand, then the kept rows
    np.testing.assert_array_equal(first.probabilities[:, 200:], second.probabilities[:, :200])
    flop = Observation.from_state(spot(capped, CHECKED_DOWN[:2]))
    agent.range_policy(flop, hands_off(flop, None)[:10])
    assert calls[1:] == [10]  # after the flop every call asks the network


def test_blueprint_range_policy_answers_an_offmenu_allin_with_its_solve(capped: Blueprint) -> None:
    state = shove(spot(capped, CHECKED_DOWN))  # the big blind shoves 99 pots on the river
    observation = Observation.from_state(state)
    solving = BlueprintAgent(capped, threshold=0.3, allin="solve")
    policy = BlueprintAgent(capped, threshold=0.3, allin="policy")
    assert solving.answers_offtree_allin(observation)
    hands = hands_off(observation, None)
    assert_agrees(solving, observation, hands)
    assert_agrees(policy, observation, hands[::5])
    assert solving.allin_solves == 1  # one solve serves every hand
    # The solve and the network answer differently: the test would notice the wrong path.
    fold = Action(observation.player, ActionKind.FOLD)
    solved = solving.range_policy(observation, hands)
    networked = policy.range_policy(observation, hands)
    assert not np.allclose(solved.probability(observation, fold), networked.probability(observation, fold))


RIVER_ONLY = SearchConfig(
    flop=FlopSearch(iterations=0),
    turn=TurnSearch(iterations=0),
    river=RiverSearch(iterations=30, budget_ms=None),
)
"""The river searched for 30 iterations whatever the time; the blueprint on the other streets."""


def test_search_range_policy_agrees_on_the_river(capped: Blueprint, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(search_module, "STATS_KEPT", 1)
    agent = SearchAgent(capped, RIVER_ONLY, threshold=0.3)
    for actions in (CHECKED_DOWN, [*CHECKED_DOWN, (1, ActionKind.RAISE, 400)]):
        observation = Observation.from_state(spot(capped, actions))
        assert observation.street == 3
        hands = hands_off(observation, 300)
        assert_agrees(agent, observation, hands)
    assert agent.searches_run == 2  # one solve per public state, whatever the hands
    assert len(agent.stats) == 1  # only the newest STATS_KEPT are kept


def test_search_range_policy_before_the_river_is_the_blueprints(capped: Blueprint) -> None:
    agent = SearchAgent(capped, RIVER_ONLY, threshold=0.3)
    blueprint = BlueprintAgent(capped, threshold=0.3)
    observation = Observation.from_state(spot(capped, CHECKED_DOWN[:2]))
    hands = hands_off(observation, None)
    searched = agent.range_policy(observation, hands)
    plain = blueprint.range_policy(observation, hands)
    np.testing.assert_array_equal(searched.probabilities, plain.probabilities)
    assert agent.searches_run == 0 and not agent.stats


def test_slots_that_stand_for_one_action_are_one_row() -> None:
    raise_to = Action(1, ActionKind.RAISE, 300)
    actions = [Action(1, ActionKind.FOLD), Action(1, ActionKind.CALL, 100), raise_to, None, raise_to]
    probabilities = np.array([[0.1, 0.4, 0.3, 0.0, 0.2], [0.5, 0.1, 0.1, 0.0, 0.3]])
    policy = slot_range_policy(probabilities, actions)
    assert policy.kinds.tolist() == [ActionKind.FOLD, ActionKind.CALL, ActionKind.RAISE]
    np.testing.assert_allclose(policy.probabilities, [[0.1, 0.5], [0.4, 0.1], [0.5, 0.4]])


class UniformBlueprint(BlueprintAgent):
    """Overrides ``decision`` only: ``range_policy`` must ask it hand by hand."""

    def decision(self, observation: Observation) -> tuple[npt.NDArray[np.float64], list[Action | None]]:
        _, actions = super().decision(observation)
        legal = np.array([action is not None for action in actions], dtype=np.float64)
        legal[1] += (
            observation.hole_cards[0] % 3
        )  # depends on the hand, so a batched network answer would differ
        return legal / legal.sum(), actions


def test_a_subclass_that_changes_decision_only_is_asked_hand_by_hand(capped: Blueprint) -> None:
    agent = UniformBlueprint(capped)
    observation = Observation.from_state(spot(capped, CHECKED_DOWN[:2]))
    assert_agrees(agent, observation, hands_off(observation, 100))


class PerCombination(Agent):
    """``inner`` without ``range_policy``: LBR asks it one combination at a time."""

    def __init__(self, inner: Agent) -> None:
        self.inner = inner
        self.name = inner.name

    def begin_hand(self, player: int, button: int) -> None:
        self.inner.begin_hand(player, button)

    def act(self, observation: Observation, rng: np.random.Generator) -> Action:
        return self.inner.act(observation, rng)

    def action_probability(self, observation: Observation, action: Action) -> float | None:
        return self.inner.action_probability(observation, action)


def lbr_both_ways(target: BlueprintAgent, hands: int, config: LBRConfig) -> None:
    batched = lbr_match(target, hands, seed=0, lbr_config=config)
    one_by_one = lbr_match(PerCombination(target), hands, seed=0, lbr_config=config)
    np.testing.assert_array_equal(batched.exploiter_results, one_by_one.exploiter_results)


@pytest.mark.slow  # about 4 s
def test_lbr_plays_the_same_hands_with_range_policy_and_without(capped: Blueprint) -> None:
    lbr_both_ways(BlueprintAgent(capped, threshold=0.3), 6, LBRConfig(runouts=30))


def _thread_counts(start: int, stop: int) -> tuple[int, int]:
    return torch.get_num_threads(), numba.get_num_threads()


def test_match_workers_run_torch_and_numba_on_one_thread() -> None:
    # Starting numba's OpenMP threads resets the OpenMP thread count torch shares; a worker whose
    # torch ran on two threads made LBR against the blueprint 8x slower on two cores.
    assert run_chunks(_thread_counts, (), 2, workers=2, chunk_size=1) == [(1, 1), (1, 1)]


@pytest.mark.slow
@pytest.mark.parametrize("allin", ["policy", "solve"])
def test_lbr_plays_the_same_dozens_of_hands_with_range_policy_and_without(
    capped: Blueprint, allin: str
) -> None:
    lbr_both_ways(BlueprintAgent(capped, threshold=0.3, allin=allin), 36, LBRConfig())


@pytest.mark.slow
def test_blueprint_range_policy_answers_a_preflop_shove(capped: Blueprint) -> None:
    observation = Observation.from_state(shove(spot(capped, [])))
    agent = BlueprintAgent(capped, threshold=0.3, allin="solve")
    assert agent.answers_offtree_allin(observation)
    assert_agrees(agent, observation, hands_off(observation, 300))


@pytest.mark.slow
def test_street_search_range_policy_agrees_on_a_searched_turn(capped: Blueprint) -> None:
    agent = SearchAgent(
        capped,
        SearchConfig(
            flop=FlopSearch(iterations=0),
            turn=TurnSearch(iterations=10, budget_ms=None, river_cards=5),
            river=RiverSearch(iterations=10, budget_ms=None),
        ),
        threshold=0.3,
    )
    observation = Observation.from_state(spot(capped, CHECKED_DOWN[:4]))
    assert observation.street == 2
    assert_agrees(agent, observation, hands_off(observation, 200))
    # One solve per public state: the turn once, however many hands asked there.
    assert [stat.street for stat in agent.stats] == [2]
