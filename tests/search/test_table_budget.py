"""Time budgets of the solves a bot runs at the table, and the warm-up that takes their first-time work
off the first decision (``pokerai play``)."""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Iterator
from typing import Any

import numba
import numpy as np
import pytest

import pokerai.agents.search as search_module
import pokerai.search.allin as allin_module
import pokerai.search.subgame as subgame_module
from pokerai.agents.base import Observation
from pokerai.agents.blueprint import BlueprintAgent
from pokerai.agents.search import SearchAgent
from pokerai.deepcfr.export import Blueprint
from pokerai.engine.state import Action, ActionKind, HUNLState
from pokerai.search.allin import DEFAULT_ITERATIONS, load_solver_kernel, solve_allin, warm_up_allin
from pokerai.search.combos import combos_holding
from pokerai.search.config import FlopSearch, RiverSearch, SearchConfig, TurnSearch
from tests.search.hunl_spots import CHECKED_DOWN, scripted


def river_shove(blueprint: Blueprint) -> HUNLState:
    """Checked down to the river, where the big blind goes all-in: the button to answer."""
    state = scripted(blueprint, CHECKED_DOWN)
    state.apply(Action(1, ActionKind.RAISE, state.max_raise_to or 0))
    return state


def test_a_budget_that_binds_stops_the_allin_solve_after_its_first_chunk(capped: Blueprint) -> None:
    state = river_shove(capped)
    # The clock is read after each chunk of iterations; the first chunk is one iteration.
    solution = solve_allin(capped, state, threshold=0.3, time_budget_s=1e-9)
    assert solution.iterations == 1 < DEFAULT_ITERATIONS
    off_board = ~combos_holding(state.board)
    assert np.allclose(solution.strategy[off_board].sum(axis=1), 1.0)  # still an answer for every hand
    assert not solution.strategy[~off_board].any()


def test_a_budget_that_does_not_bind_changes_nothing(capped: Blueprint) -> None:
    state = river_shove(capped)
    free = solve_allin(capped, state, threshold=0.3)
    budgeted = solve_allin(capped, state, threshold=0.3, time_budget_s=1e6)
    assert free.iterations == budgeted.iterations == DEFAULT_ITERATIONS
    assert np.array_equal(free.strategy, budgeted.strategy) and np.array_equal(free.shove, budgeted.shove)


def test_the_agent_gives_its_allin_solves_its_budget(capped: Blueprint) -> None:
    load_solver_kernel()  # ready: the budget goes to the solve
    state = river_shove(capped)
    observation = Observation.from_state(state)
    hurried = BlueprintAgent(capped, threshold=0.3, allin="solve", allin_budget_ms=1e-6).allin_solution(
        observation, state
    )
    assert hurried is not None and hurried.iterations == 1
    patient = BlueprintAgent(capped, threshold=0.3, allin="solve").allin_solution(observation, state)
    assert patient is not None and patient.iterations == DEFAULT_ITERATIONS


def test_budget_solves_fills_in_only_the_missing_budgets(capped: Blueprint) -> None:
    unbudgeted = BlueprintAgent(capped, allin="solve")
    assert unbudgeted.allin_budget_ms is None
    unbudgeted.budget_solves(2.0)
    assert unbudgeted.allin_budget_ms == 2000.0
    budgeted = BlueprintAgent(capped, allin="solve", allin_budget_ms=500)
    budgeted.budget_solves(2.0)
    assert budgeted.allin_budget_ms == 500.0
    search = SearchAgent(
        capped,
        SearchConfig(
            flop=FlopSearch(budget_ms=None),
            turn=TurnSearch(budget_ms=300),
            river=RiverSearch(budget_ms=None),
        ),
    )
    search.budget_solves(2.0)
    config = search.config
    assert (
        search.allin_budget_ms,
        config.river.budget_ms,
        config.turn.budget_ms,
        config.flop.budget_ms,
    ) == (
        2000.0,
        2000.0,
        300.0,
        2000.0,
    )
    default = SearchAgent(capped)
    default.budget_solves(2.0)
    assert default.config.flop.budget_ms == SearchConfig().flop.budget_ms  # a budget already: kept


@pytest.mark.parametrize("budget", [0, -5, True, "1"])
def test_a_bad_allin_budget_is_an_error(capped: Blueprint, budget: Any) -> None:
    with pytest.raises(ValueError, match=r"allin_budget_ms .* is not a positive number of milliseconds"):
        BlueprintAgent(capped, allin="solve", allin_budget_ms=budget)


def test_the_warm_up_calls_the_kernel_with_the_argument_types_of_a_solve_at_the_table(
    capped: Blueprint, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Numba compiles one machine-code version per argument types: a warm-up that called the kernel
    with other types (a different array layout) would leave the table's first solve to compile."""
    kernel = subgame_module._cfr_plus_iterations
    calls: list[tuple[Any, ...]] = []

    def recording(*arguments: Any) -> None:
        calls.append(tuple(numba.typeof(argument) for argument in arguments))
        kernel(*arguments)

    monkeypatch.setattr(subgame_module, "_cfr_plus_iterations", recording)
    monkeypatch.setattr(allin_module, "preflop_equity_matrix", lambda: None)  # seconds, and not typed here
    monkeypatch.setattr(allin_module, "_KERNEL_LOADED", threading.Event())  # as if this were the first
    warm_up_allin()
    assert len(calls) == 1
    solve_allin(capped, river_shove(capped), iterations=3, threshold=0.3)
    assert len(calls) > 1 and all(types == calls[0] for types in calls)
    # The agent's warm-up runs it only where all-ins are solved (or searched), and once.
    before = len(calls)
    BlueprintAgent(capped, threshold=0.3).warm_up()
    assert len(calls) == before
    monkeypatch.setattr(allin_module, "_KERNEL_LOADED", threading.Event())
    BlueprintAgent(capped, threshold=0.3, allin="solve").warm_up()
    assert len(calls) == before + 1
    monkeypatch.setattr(search_module, "_WARMED", {1, 2, 3})  # the street solves of its warm-up are done
    SearchAgent(capped, threshold=0.3).warm_up()
    assert len(calls) == before + 1
    monkeypatch.setattr(allin_module, "_KERNEL_LOADED", threading.Event())
    SearchAgent(capped, threshold=0.3).warm_up()
    assert len(calls) == before + 2


def test_a_budgeted_solve_loads_the_kernel_before_its_clock_starts(
    capped: Blueprint, monkeypatch: pytest.MonkeyPatch
) -> None:
    order: list[str] = []
    monkeypatch.setattr(allin_module, "load_solver_kernel", lambda: order.append("kernel"))
    original = allin_module.solve

    def solve(*arguments: Any, **options: Any) -> Any:
        order.append("solve")
        return original(*arguments, **options)

    monkeypatch.setattr(allin_module, "solve", solve)
    solve_allin(capped, river_shove(capped), iterations=2, threshold=0.3, time_budget_s=10.0)
    solve_allin(capped, river_shove(capped), iterations=2, threshold=0.3)  # no budget: nothing to protect
    assert order == ["kernel", "solve", "solve"]


@pytest.fixture
def slow_warm_up(monkeypatch: pytest.MonkeyPatch) -> Iterator[threading.Event]:
    """A process whose solver is not ready: the background warm-up waits until the test sets the
    returned gate, then marks the kernel and the preflop matrix ready."""
    gate = threading.Event()
    kernel, matrix = threading.Event(), threading.Event()

    def warm_up() -> None:
        gate.wait()
        load_solver_kernel()  # the real one: compiles on a first run, then sets the (patched) event
        matrix.set()

    monkeypatch.setattr(allin_module, "_KERNEL_LOADED", kernel)
    monkeypatch.setattr(allin_module, "PREFLOP_MATRIX_BUILT", matrix)
    monkeypatch.setattr(allin_module, "_background", None)
    monkeypatch.setattr(allin_module, "warm_up_allin", warm_up)
    yield gate
    gate.set()


def test_a_budgeted_allin_answer_whose_solver_is_not_ready_is_the_networks_then_the_solves(
    capped: Blueprint, slow_warm_up: threading.Event
) -> None:
    state = river_shove(capped)
    observation = Observation.from_state(state)
    agent = BlueprintAgent(capped, threshold=0.3, allin="solve", allin_budget_ms=20)
    network = BlueprintAgent(capped, threshold=0.3, allin="policy")
    probabilities, _ = agent.decision(observation)
    assert np.array_equal(probabilities, network.decision(observation)[0])
    assert (agent.allin_unready, agent.allin_solves) == (1, 0)
    assert allin_module._background is not None and allin_module._background.is_alive()  # started, waiting
    slow_warm_up.set()
    allin_module._background.join()
    agent.allin_budget_ms = 1e6  # ready now, and a budget that does not bind: the unbudgeted answer
    patient = BlueprintAgent(capped, threshold=0.3, allin="solve")
    assert np.array_equal(agent.decision(observation)[0], patient.decision(observation)[0])
    assert (agent.allin_unready, agent.allin_solves) == (1, 1)


def test_a_budgeted_search_that_is_not_warm_plays_the_blueprint(
    capped: Blueprint, cold_search: threading.Event
) -> None:
    observation = Observation.from_state(scripted(capped, CHECKED_DOWN))  # the river, nobody all-in
    river_only = SearchConfig(flop=FlopSearch(iterations=0), turn=TurnSearch(iterations=0))
    agent = SearchAgent(
        capped, dataclasses.replace(river_only, river=RiverSearch(budget_ms=20)), threshold=0.3
    )
    blueprint = BlueprintAgent(capped, threshold=0.3)
    assert np.array_equal(agent.decision(observation)[0], blueprint.decision(observation)[0])
    assert (agent.searches_unready, len(agent.stats)) == (1, 0)
    cold_search.set()
    assert search_module._warm_thread is not None
    search_module._warm_thread.join()
    agent.config = dataclasses.replace(agent.config, river=RiverSearch(budget_ms=1e6))
    # Ready now, but within the hand the spot keeps the policy it was played with (what AIVAT asks);
    # a tool that asks outside hands forgets it (the next hand's begin_hand forgets everything).
    assert np.array_equal(agent.decision(observation)[0], blueprint.decision(observation)[0])
    assert (agent.searches_unready, len(agent.stats)) == (1, 0)
    agent.forget_unready()
    assert np.array_equal(
        agent.decision(observation)[0],
        SearchAgent(
            capped, dataclasses.replace(river_only, river=RiverSearch(budget_ms=None)), threshold=0.3
        ).decision(observation)[0],
    )
    assert (agent.searches_unready, len(agent.stats)) == (1, 1)


def test_a_failed_search_warm_up_is_raised_where_a_timed_decision_waits_for_it(
    capped: Blueprint, cold_search: threading.Event, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(agent: SearchAgent) -> None:
        raise MemoryError("no room for the tables")

    monkeypatch.setattr(SearchAgent, "warm_up", broken)
    river_only = SearchConfig(flop=FlopSearch(iterations=0), turn=TurnSearch(iterations=0))
    agent = SearchAgent(
        capped, dataclasses.replace(river_only, river=RiverSearch(budget_ms=1e6)), threshold=0.3
    )
    with pytest.raises(RuntimeError, match="warming up the search failed") as raised:
        agent.decision(Observation.from_state(scripted(capped, CHECKED_DOWN)))
    assert isinstance(raised.value.__cause__, MemoryError)


def test_a_failed_warm_up_is_raised_where_a_decision_waits_for_it(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken() -> None:
        raise MemoryError("no room for the matrix")

    monkeypatch.setattr(allin_module, "_KERNEL_LOADED", threading.Event())
    monkeypatch.setattr(allin_module, "_background", None)
    monkeypatch.setattr(allin_module, "_background_errors", [])
    monkeypatch.setattr(allin_module, "warm_up_allin", broken)
    allin_module.start_background_warm_up().join()
    with pytest.raises(RuntimeError, match="warming up the solver failed") as raised:
        allin_module.solver_ready(60.0)
    assert isinstance(raised.value.__cause__, MemoryError)
