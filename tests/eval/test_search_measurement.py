"""A search agent measured by matches, LBR and AIVAT: what they ask is what it played, and a seed
reproduces the figure.

The solves here are small (a few iterations, few buckets and leaf cards) so that whole hands are
cheap; what is held does not depend on their size. To make the checks able to fail, every solve
in this module is perturbed by a counter (:func:`perturbed_solves`): a public state solved a
second time gets another strategy, so a question answered by a re-solve differs from the play.
"""

from __future__ import annotations

import dataclasses
import functools
import threading
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

import pokerai.agents.search as search_module
from pokerai.agents.base import Observation, RangePolicy
from pokerai.agents.blueprint import BlueprintAgent, load_blueprint, with_hole_cards
from pokerai.agents.search import SearchAgent
from pokerai.agents.spec import make_agent
from pokerai.engine.state import Action, ActionKind, HUNLState
from pokerai.eval.aivat import AIVATConfig
from pokerai.eval.duplicate import duplicate_match
from pokerai.eval.lbr import LBR_MENUS, lbr_match
from pokerai.games.holdem import Blueprint
from pokerai.search.config import load_search_config, with_overrides
from pokerai.search.street import StreetSolution

RIVER = "flop.iterations=0&turn.iterations=0&river.iterations=6"
"""A cheap search: the river searched, a handful of iterations a solve (the blueprint before)."""
SMALL = (
    "flop.iterations=6&turn.iterations=6&river.iterations=6"
    "&flop.buckets=12&turn.buckets=12&flop.turn_cards=2&turn.river_cards=5"
)
"""A small search on every postflop street (the slow checks)."""


@functools.cache
def shipped() -> Blueprint:
    """The shipped blueprint, loaded once for the module."""
    return load_blueprint("checkpoints/hunl_blueprint")


def public(state: HUNLState) -> tuple[Any, ...]:
    return (state.button, tuple(state.board), tuple(state.history))


class SolveLog:
    """The public states of every solve run, by hand (the hand's solves since its ``begin_hand``)."""

    def __init__(self) -> None:
        self.hands: list[list[tuple[Any, ...]]] = [[]]
        self.calls = 0


@pytest.fixture
def perturbed_solves(monkeypatch: pytest.MonkeyPatch) -> Iterator[SolveLog]:
    """Every street solve of this module's agents, logged and mixed with a one-hot row that changes
    with each call, so that no two solves of a state give the same strategy."""
    log = SolveLog()
    real = search_module.solve_street

    def solve(blueprint: Any, state: HUNLState, *args: Any, **kwargs: Any) -> StreetSolution:
        solution = real(blueprint, state, *args, **kwargs)
        log.calls += 1
        log.hands[-1].append(public(state))
        strategy = solution.strategy.copy()
        solved = strategy.sum(axis=1) > 0
        strategy[solved] *= 0.5
        strategy[solved, log.calls % strategy.shape[1]] += 0.5
        return dataclasses.replace(solution, strategy=strategy)

    monkeypatch.setattr(search_module, "solve_street", solve)
    real_begin = SearchAgent.begin_hand

    def begin_hand(agent: SearchAgent, player: int, button: int) -> None:
        if log.hands[-1]:
            log.hands.append([])
        real_begin(agent, player, button)

    monkeypatch.setattr(SearchAgent, "begin_hand", begin_hand)
    yield log


@dataclass
class Played:
    observation: Observation
    actions: list[Action | None]
    probabilities: npt.NDArray[np.float64]


class Recorder:
    """Wraps a search agent's ``act`` and ``range_policy``: the vector each action was sampled from,
    and every answer given for all hands at a public state (LBR's and AIVAT's questions)."""

    def __init__(self, agent: SearchAgent) -> None:
        self.played: list[Played] = []
        self.asked: list[tuple[Observation, npt.NDArray[np.int64], RangePolicy]] = []
        act, range_policy = agent.act, agent.range_policy

        def recording_act(observation: Observation, rng: np.random.Generator) -> Action:
            probabilities, actions = agent.decision(observation)
            self.played.append(Played(observation, actions, probabilities))
            return act(observation, rng)

        def recording_range_policy(
            observation: Observation, hands: npt.NDArray[np.int64]
        ) -> RangePolicy | None:
            policy = range_policy(observation, hands)
            if policy is not None:
                self.asked.append((observation, hands.copy(), policy))
            return policy

        agent.act = recording_act  # type: ignore[method-assign]
        agent.range_policy = recording_range_policy  # type: ignore[method-assign,assignment]

    def mismatches(self) -> tuple[int, int]:
        """(decisions checked against at least one question, decisions whose questions disagree)."""
        checked = disagree = 0
        for played in self.played:
            key = _observed_key(played.observation)
            questions = [
                (observation, hands, policy)
                for observation, hands, policy in self.asked
                if _observed_key(observation) == key
            ]
            hole = sorted(played.observation.hole_cards)
            found = False
            for observation, hands, policy in questions:
                rows = np.flatnonzero((np.sort(hands, axis=1) == hole).all(axis=1))
                if len(rows) == 0:
                    continue
                found = True
                seen = with_hole_cards(observation, played.observation.hole_cards)
                for action, probability in zip(played.actions, played.probabilities, strict=True):
                    if action is not None and not np.isclose(
                        policy.probability(seen, action)[rows[0]], probability
                    ):
                        disagree += 1
                        break
            checked += found
        return checked, disagree


def _observed_key(observation: Observation) -> tuple[Any, ...]:
    return (observation.button, tuple(observation.board), tuple(observation.history))


def _small(options: str = RIVER) -> SearchAgent:
    """A search agent on the shipped blueprint with the search options ``options`` (a spec's)."""
    config = with_overrides(load_search_config(), dict(item.split("=") for item in options.split("&")))
    return SearchAgent(shipped(), config)


SPECS = pytest.mark.parametrize("spec", [RIVER, pytest.param(SMALL, marks=pytest.mark.slow)])


@SPECS
def test_lbr_and_aivat_ask_what_the_search_played_and_solve_no_state_twice(
    perturbed_solves: SolveLog, spec: str
) -> None:
    """At every decision of the search agent, the vector that LBR and AIVAT use is the one its action was
    sampled from; play, LBR's questions and AIVAT's lookahead share one solve per public state and hand."""
    target = _small(spec)
    lbr_recorder = Recorder(target)
    lbr_match(target, 6, seed=11, lbr_config=LBR_MENUS["lisy-bowling"], aivat=AIVATConfig(boards=4))
    agent = _small(spec)
    match_recorder = Recorder(agent)
    duplicate_match(agent, _small(spec), 2, seed=12, aivat=AIVATConfig(boards=4), mirror_randomness=False)
    for recorder in (lbr_recorder, match_recorder):
        searched = [played for played in recorder.played if played.observation.street == 3]
        checked, disagree = recorder.mismatches()
        assert searched and checked == len(recorder.played)
        assert disagree == 0
    solved = [state for hand in perturbed_solves.hands for state in hand]
    assert len(solved) >= 5
    for hand in perturbed_solves.hands:
        assert max(Counter(hand).values(), default=1) == 1


def test_the_check_fails_when_a_state_is_solved_again(
    perturbed_solves: SolveLog, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The control: with the agent's policies not kept, AIVAT's re-solves disagree with the play."""
    monkeypatch.setattr(SearchAgent, "policy", lambda self, state: self._solve(state, public(state)))
    target = _small()
    recorder = Recorder(target)
    lbr_match(target, 6, seed=11, lbr_config=LBR_MENUS["lisy-bowling"], aivat=AIVATConfig(boards=4))
    assert recorder.mismatches()[1] > 0


def test_a_match_stops_solves_on_iterations_not_the_clock() -> None:
    """A match drops the agents' time budgets: a budget too short for one iteration changes nothing."""
    budget = "&flop.budget_ms=0.001&turn.budget_ms=0.001&river.budget_ms=0.001"
    results = []
    for spec in (RIVER, RIVER + budget):
        agent = _small(spec)
        result = duplicate_match(agent, make_agent("call"), 2, seed=31)  # every hand reaches the river
        assert all(
            search.budget_ms is None for search in (agent.config.flop, agent.config.turn, agent.config.river)
        )
        assert agent.searches_run > 0 and agent.searches_unready == 0
        assert all(stat.iterations == 6 for stat in agent.stats)
        results.append(result.a_results)
    np.testing.assert_array_equal(results[0], results[1])


def test_a_timed_search_waits_for_its_warm_up_and_keeps_no_cold_answer(cold_search: threading.Event) -> None:
    """Before the process's warm-up is done a timed decision plays the blueprint, not kept for the spot;
    once it is done the same spot is searched."""
    agent = _small(RIVER + "&river.budget_ms=1")
    state = HUNLState.new(agent.blueprint.game.config, 0, deck=[0, 1, 2, 3, 8, 17, 26, 35, 44])
    while state.street < 3:
        state = state.after(ActionKind.CALL)  # calls, then checks
    observation = Observation.from_state(state)
    agent.begin_hand(observation.player, 0)
    cold, _ = agent.decision(observation)
    assert (agent.searches_run, agent.searches_unready) == (0, 1)
    np.testing.assert_allclose(cold, agent.blueprint_rows(state)[_hole_index(observation)] / 1.0, atol=1e-12)
    cold_search.set()
    search_module._warm_thread.join()  # type: ignore[union-attr]
    agent.forget_unready()
    agent.decision(observation)
    assert agent.searches_run == 1


def _hole_index(observation: Observation) -> int:
    from pokerai.search.combos import combo_index

    return combo_index(*observation.hole_cards)


@pytest.mark.slow
def test_the_same_seed_gives_the_same_figure_with_one_and_two_workers() -> None:
    aivat = AIVATConfig(boards=4)
    runs = [
        duplicate_match(
            _small(SMALL),
            BlueprintAgent(shipped()),
            6,
            seed=41,
            workers=workers,
            aivat=aivat,
        )
        for workers in (1, 2)
    ]
    # The hands are identical. AIVAT's values are sums over many boards, and a worker process limits
    # BLAS to one thread while a one-worker run keeps the machine's count, so the order of a sum can
    # differ: they agree far below any printed digit, not to the last bit.
    np.testing.assert_array_equal(runs[0].a_results, runs[1].a_results)
    estimates = [run.aivat_results for run in runs]
    assert estimates[0] is not None and estimates[1] is not None
    np.testing.assert_allclose(estimates[0], estimates[1], rtol=1e-9, atol=1e-6)
    lbr = [lbr_match(_small(SMALL), 12, seed=42, workers=workers, aivat=aivat) for workers in (1, 2)]
    np.testing.assert_array_equal(lbr[0].exploiter_results, lbr[1].exploiter_results)
    estimates = [run.aivat_results for run in lbr]
    assert estimates[0] is not None and estimates[1] is not None
    np.testing.assert_allclose(estimates[0], estimates[1], rtol=1e-9, atol=1e-6)


@pytest.mark.slow
def test_the_aivat_mean_of_a_search_agent_against_itself_is_near_zero() -> None:
    """Unbiased: the AIVAT mean of the agent against a copy of itself, over hands with their own random
    numbers (no mirrored randomness, so hands do not cancel in pairs), lies within 4 standard errors of 0."""
    result = duplicate_match(
        _small(SMALL), _small(SMALL), 30, seed=51, aivat=AIVATConfig(boards=8), mirror_randomness=False
    )
    assert result.aivat_results is not None
    values = result.aivat_results.ravel()
    error = values.std(ddof=1) / np.sqrt(len(values))
    assert error > 0 and abs(values.mean()) < 4 * error
