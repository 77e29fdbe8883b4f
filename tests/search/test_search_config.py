"""The search agent's config: its shipped defaults, the spec's overrides, and its errors."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
import yaml

from pokerai.agents.search import SearchAgent
from pokerai.agents.spec import agent_catalogue, make_agent
from pokerai.config import ConfigError, config_to_dict, dotted_keys
from pokerai.deepcfr.export import Blueprint
from pokerai.search.config import (
    FlopSearch,
    RiverSearch,
    SearchConfig,
    TurnSearch,
    load_search_config,
    with_overrides,
)
from tests.search.hunl_spots import CAPPED

DEFAULT_YAML = Path(__file__).resolve().parents[2] / "configs" / "search_default.yaml"


def test_configs_search_default_yaml_is_exactly_search_config_defaults() -> None:
    assert yaml.safe_load(DEFAULT_YAML.read_text()) == config_to_dict(SearchConfig())  # every key, in full
    assert load_search_config(DEFAULT_YAML) == load_search_config() == SearchConfig()


def test_the_default_config_searches_every_postflop_street_and_a_zero_iteration_street_not() -> None:
    config = SearchConfig()
    assert [config.searches(street) for street in range(4)] == [False, True, True, True]
    without_turn = dataclasses.replace(config, turn=TurnSearch(iterations=0))
    assert [without_turn.searches(street) for street in range(4)] == [False, True, False, True]


def test_a_street_written_in_part_keeps_its_own_defaults_for_the_rest() -> None:
    config = load_search_config({"turn": {"iterations": 200}, "river": {"max_raises": 3}})
    assert config.turn == TurnSearch(iterations=200)
    assert config.turn.budget_ms == 900.0 and config.river.budget_ms == 75.0
    assert config.flop == FlopSearch()


def test_dotted_overrides_set_their_keys() -> None:
    config = with_overrides(
        SearchConfig(),
        {
            "river.budget_ms": "300",
            "river.max_raises": "none",
            "turn.iterations": "200",
            "turn.river_cards": "none",
            "turn.bias": "2.5",
            "flop.iterations": "0",
            "safe": "1",
            "opponent_threshold": "0.1",
        },
    )
    assert config == SearchConfig(
        flop=FlopSearch(iterations=0),
        turn=TurnSearch(iterations=200, river_cards=None, bias=2.5),
        river=RiverSearch(budget_ms=300.0, max_raises=None),
        safe=True,
        opponent_threshold=0.1,
    )


@pytest.mark.parametrize(
    ("options", "fragment"),
    [
        ({"safe": "yes"}, "safe: expected true or false, got 'yes'"),
        ({"river.iterations": "-1"}, "river.iterations: must be at least 0"),
        ({"river.iterations": "1.5"}, "river.iterations: expected an integer"),
        ({"river.budget_ms": "0"}, "river: budget_ms must be a positive number"),
        ({"river.budget_ms": "x"}, "river.budget_ms: expected a number"),
        ({"river.full_iterations": "0"}, "full_iterations: must be at least 1"),
        ({"river.max_raises": "-1"}, "river.max_raises: must be at least 0"),
        ({"turn.river_cards": "3"}, "turn.river_cards: must be at least 5"),
        ({"turn.river_cards": "49"}, "turn.river_cards: must be at most 48"),
        ({"turn.budget_ms": "-1"}, "turn: budget_ms must be a positive number"),
        ({"turn.max_raises": "x"}, "turn.max_raises: expected an integer"),
        ({"turn.bias": "0.5"}, "turn.bias: must be at least 1"),
        ({"flop.turn_cards": "9"}, "flop.turn_cards: must be at most 8"),
        ({"flop.buckets": "1"}, "flop.buckets: must be at least 2"),
        ({"floor": "1"}, r"floor must be in \[0, 1\)"),
        ({"opponent_threshold": "x"}, "opponent_threshold: expected a number"),
        ({"opponent_threshold": "1"}, r"opponent_threshold must be in \[0, 1\)"),
        ({"opponent_threshold": "-0.1"}, "opponent_threshold: must be at least 0"),
    ],
)
def test_a_bad_option_is_an_error_that_names_it(options: dict[str, str], fragment: str) -> None:
    with pytest.raises(ConfigError, match=fragment):
        with_overrides(SearchConfig(), options)


def test_an_unknown_key_is_an_error_that_lists_the_known_ones() -> None:
    with pytest.raises(ConfigError, match=r"unknown search option 'river\.depth'") as error:
        with_overrides(SearchConfig(), {"river.depth": "3"})
    listed = str(error.value).partition("options: ")[2].split(", ")
    assert listed == list(dotted_keys(SearchConfig))
    assert {"river.budget_ms", "turn.iterations", "safe", "floor"} <= set(listed)
    assert not {"turn", "river", "preflop.iterations", "river_cards"} & set(listed)


def test_a_bad_file_value_names_the_file_and_the_key(tmp_path: Path) -> None:
    path = tmp_path / "search.yaml"
    path.write_text("river:\n  budget_ms: 0\n")
    with pytest.raises(ConfigError, match=f"{path}: river: budget_ms must be a positive number"):
        load_search_config(path)


def test_the_default_search_spec_builds_an_agent_with_the_default_config() -> None:
    agent = make_agent(f"search:{CAPPED}")
    assert isinstance(agent, SearchAgent) and agent.config == SearchConfig()
    assert (agent.threshold, agent.allin) == (0.3, "solve"), "the blueprint spec's defaults"
    dotted = make_agent(f"search:{CAPPED}?river.budget_ms=300&threshold=0.2&turn.max_raises=2")
    assert isinstance(dotted, SearchAgent) and dotted.threshold == 0.2
    assert dotted.config == SearchConfig(turn=TurnSearch(max_raises=2), river=RiverSearch(budget_ms=300.0))


def test_the_agent_checks_a_config_built_in_code_as_the_loader_does() -> None:
    blueprint = Blueprint.load(CAPPED)
    with pytest.raises(ConfigError, match=r"river\.iterations: must be at least 0"):
        SearchAgent(blueprint, SearchConfig(river=RiverSearch(iterations=-1)))
    assert (
        SearchAgent(blueprint, SearchConfig(river=RiverSearch(budget_ms=50))).config.river.budget_ms == 50.0
    )


def test_the_agents_listing_shows_the_config_defaults() -> None:
    search = next(info for info in agent_catalogue() if info.spec == "search:PATH")
    defaults = {option.key: option.default for option in search.options}
    assert (defaults["river.budget_ms"], defaults["river.iterations"]) == ("75", "70")
    assert (defaults["turn.iterations"], defaults["turn.river_cards"]) == ("700", "8")
    assert (defaults["flop.budget_ms"], defaults["safe"], defaults["opponent_threshold"]) == ("900", "0", "0")
    assert (defaults["threshold"], defaults["allin"]) == ("0.3 (network), 0 (tabular)", "solve")
