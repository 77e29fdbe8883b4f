"""Agent specs: every name builds its agent; path kinds and unknown specs are clear errors."""

from __future__ import annotations

import pytest

from pokerai.agents.base import Agent
from pokerai.agents.baselines import AllInAgent, CallAgent, RaiseAgent, RandomAgent
from pokerai.agents.heuristic import HeuristicAgent
from pokerai.agents.spec import AGENT_NAMES, make_agent


def test_agent_names() -> None:
    assert AGENT_NAMES == ("random", "call", "raise", "allin", "heuristic")


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


@pytest.mark.parametrize("spec", ["search:runs/x.pt"])
def test_path_kinds_are_not_available_yet(spec: str) -> None:
    kind = spec.partition(":")[0]
    with pytest.raises(ValueError, match=f"{kind} agents are not available yet") as error:
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
