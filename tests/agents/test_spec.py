"""Agent specs: every name builds its agent; path kinds and unknown specs are clear errors."""

from __future__ import annotations

import pytest

from pokerai.agents.base import Agent
from pokerai.agents.baselines import AllInAgent, CallAgent, RaiseAgent, RandomAgent
from pokerai.agents.heuristic import HeuristicAgent
from pokerai.agents.spec import AGENT_NAMES, make_agent


def test_agent_names() -> None:
    assert AGENT_NAMES == ("random", "call", "raise", "allin", "heuristic", "shover", "station", "minraise")


@pytest.mark.parametrize(
    ("spec", "agent_type"),
    [
        ("random", RandomAgent),
        ("call", CallAgent),
        ("raise", RaiseAgent),
        ("allin", AllInAgent),
        ("heuristic", HeuristicAgent),
        (" call ", CallAgent),
    ],
)
def test_make_agent_builds_the_named_agent(spec: str, agent_type: type[Agent]) -> None:
    agent = make_agent(spec)
    assert type(agent) is agent_type
    assert agent.name == spec.strip()


def test_make_agent_returns_a_fresh_agent_each_time() -> None:
    assert make_agent("heuristic") is not make_agent("heuristic")


def test_search_spec_builds_a_search_agent_with_its_options() -> None:
    from pokerai.agents.search import SearchAgent

    agent = make_agent(
        "search:checkpoints/hunl_tiny?river.iterations=7&river.budget_ms=50&threshold=0.3"
        "&river.max_raises=none&river.full_iterations=5"
    )
    assert isinstance(agent, SearchAgent)
    assert not agent.config.safe and make_agent("search:checkpoints/hunl_tiny?safe=1").config.safe  # type: ignore[attr-defined]
    river = agent.config.river
    assert (river.iterations, river.budget_ms, agent.threshold, river.max_raises, river.full_iterations) == (
        7,
        50.0,
        0.3,
        None,
        5,
    )
    assert agent.config.opponent_threshold == 0.0
    found = make_agent("search:checkpoints/hunl_tiny?opponent_threshold=0.3")
    assert found.config.opponent_threshold == 0.3  # type: ignore[attr-defined]


def test_the_default_threshold_is_the_blueprint_kinds_and_an_option_overrides_it() -> None:
    from pokerai.agents.blueprint import NETWORK_THRESHOLD, TABULAR_THRESHOLD

    assert (NETWORK_THRESHOLD, TABULAR_THRESHOLD) == (0.3, 0.0)
    assert make_agent("blueprint:checkpoints/hunl_tiny").threshold == 0.3  # type: ignore[attr-defined]
    assert make_agent("search:checkpoints/hunl_tiny?threshold=0").threshold == 0.0  # type: ignore[attr-defined]
    assert make_agent("blueprint:checkpoints/hunl_blueprint").threshold == 0.0  # type: ignore[attr-defined]
    tabular = make_agent("search:checkpoints/hunl_blueprint?threshold=0.25")
    assert tabular.threshold == 0.25  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("search:checkpoints/hunl_tiny?depth=3", "unknown option 'depth'"),
        ("search:checkpoints/hunl_tiny?safe=yes", "safe: expected true or false, got 'yes'"),
        ("search:checkpoints/hunl_tiny?river.iterations=-1", r"river\.iterations: must be at least 0"),
        ("search:checkpoints/hunl_tiny?river.budget_ms=0", "river: budget_ms must be a positive number"),
        ("search:checkpoints/hunl_tiny?pipeline=street", "unknown option 'pipeline'"),
        (
            "search:checkpoints/hunl_tiny?opponent_threshold=x",
            "opponent_threshold: expected a number, got 'x'",
        ),
        (
            "search:checkpoints/hunl_tiny?opponent_threshold=1",
            r"opponent_threshold must be in \[0, 1\)",
        ),
        ("search:runs/x.pt", "runs/x.pt"),
    ],
)
def test_bad_search_specs_are_clear_errors(spec: str, message: str) -> None:
    with pytest.raises(ValueError, match=message) as error:
        make_agent(spec)
    assert spec in str(error.value)


@pytest.mark.parametrize("spec", ["randm", "", "Heuristic", "human", "foo:bar"])
def test_unknown_spec_names_itself_and_lists_the_valid_ones(spec: str) -> None:
    with pytest.raises(ValueError, match="unknown agent spec") as error:
        make_agent(spec)
    message = str(error.value)
    assert repr(spec) in message
    for name in AGENT_NAMES:
        assert name in message
    assert "blueprint:PATH" in message


def test_non_string_spec_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="not a string"):
        make_agent(3)  # type: ignore[arg-type]
