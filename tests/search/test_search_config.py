"""The search agent's config: its shipped defaults, the spec's overrides and aliases, and its errors."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from pokerai.agents.search import SearchAgent
from pokerai.agents.spec import agent_catalogue, make_agent
from pokerai.config import ConfigError, config_to_dict
from pokerai.deepcfr.export import Blueprint
from pokerai.search.config import (
    FlopSearch,
    PreflopSearch,
    RiverSearch,
    SearchConfig,
    TurnSearch,
    load_search_config,
    spec_keys,
    with_overrides,
)
from tests.search.hunl_spots import CAPPED

DEFAULT_YAML = Path(__file__).resolve().parents[2] / "configs" / "search_default.yaml"


def test_the_shipped_yaml_writes_out_exactly_the_dataclass_defaults() -> None:
    assert yaml.safe_load(DEFAULT_YAML.read_text()) == config_to_dict(SearchConfig())  # every key, in full
    assert load_search_config(DEFAULT_YAML) == load_search_config() == SearchConfig()


def test_the_defaults_are_the_search_agents_earlier_defaults() -> None:
    """The default search: bot plays as before the config: only the river searched, with these budgets."""
    config = SearchConfig()
    assert config.river == RiverSearch(iterations=1000, budget_ms=65.0, full_iterations=100, max_raises=2)
    assert config.turn == TurnSearch(
        iterations=0,
        budget_ms=1000.0,
        full_iterations=100,
        max_raises=1,
        leaves="depth_limited",
        river_cards=8,
        rollout_raises=1,
        bias=5.0,
    )
    assert config.preflop == PreflopSearch(iterations=0, budget_ms=5000.0, full_iterations=100, max_raises=2)
    assert config.flop.iterations == 0
    assert (config.safe, config.opponent_threshold, config.river_allin) == (False, None, False)
    assert (config.check_cap, config.cap_showdowns, config.responses, config.response_prior) == (
        False,
        30,
        False,
        20.0,
    )


def test_a_street_written_in_part_keeps_its_own_defaults_for_the_rest() -> None:
    config = load_search_config(
        {"pipeline": "street", "turn": {"iterations": 200}, "preflop": {"max_raises": 3}}
    )
    assert config.turn == TurnSearch(iterations=200)
    assert config.turn.budget_ms == 1000.0 and config.preflop.budget_ms == 5000.0
    assert config.river == RiverSearch()


def test_dotted_overrides_set_their_keys() -> None:
    config = with_overrides(
        SearchConfig(),
        {
            "river.budget_ms": "300",
            "river.max_raises": "none",
            "pipeline": "street",
            "turn.iterations": "200",
            "turn.leaves": "blueprint",
            "turn.river_cards": "none",
            "turn.bias": "2.5",
            "safe": "1",
            "opponent_threshold": "0",
        },
    )
    assert config == SearchConfig(
        pipeline="street",
        turn=TurnSearch(iterations=200, leaves="blueprint", river_cards=None, bias=2.5),
        river=RiverSearch(budget_ms=300.0, max_raises=None),
        safe=True,
        opponent_threshold=0.0,
    )


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        (
            {"iterations": "7", "budget_ms": "50", "max_raises": "none", "full_iterations": "5"},
            SearchConfig(
                preflop=PreflopSearch(full_iterations=5),
                flop=FlopSearch(full_iterations=5),
                turn=TurnSearch(full_iterations=5),
                river=RiverSearch(iterations=7, budget_ms=50.0, max_raises=None, full_iterations=5),
            ),
        ),
        ({"check_cap": "1", "cap_showdowns": "7"}, SearchConfig(check_cap=True, cap_showdowns=7)),
        ({"responses": "1", "response_prior": "7"}, SearchConfig(responses=True, response_prior=7.0)),
        (
            {"river_allin": "1", "iterations": "0"},
            SearchConfig(river=RiverSearch(iterations=0), river_allin=True),
        ),
    ],
)
def test_the_flat_keys_of_earlier_specs_set_the_same_search(
    options: dict[str, str], expected: SearchConfig
) -> None:
    assert with_overrides(SearchConfig(), options) == expected


@pytest.mark.parametrize(
    ("options", "fragment"),
    [
        ({"safe": "yes"}, "safe: expected true or false, got 'yes'"),
        ({"river.safe": "maybe"}, "river.safe: expected true or false, got 'maybe'"),
        ({"river.safe": "1", "responses": "1"}, "responses does not work with safe"),
        ({"iterations": "-1"}, "river.iterations: must be at least 0"),
        ({"river.iterations": "1.5"}, "river.iterations: expected an integer"),
        ({"budget_ms": "0"}, "river: budget_ms must be a positive number"),
        ({"river.budget_ms": "x"}, "river.budget_ms: expected a number"),
        ({"full_iterations": "0"}, "full_iterations: must be at least 1"),
        ({"max_raises": "-1"}, "river.max_raises: must be at least 0"),
        ({"turn.leaves": "unsafe"}, "turn.leaves: expected one of 'depth_limited', 'blueprint'"),
        ({"turn.river_cards": "3"}, "turn.river_cards: must be at least 5"),
        ({"turn.river_cards": "49"}, "turn.river_cards: must be at most 48"),
        ({"turn.budget_ms": "-1"}, "turn: budget_ms must be a positive number"),
        ({"turn.max_raises": "x"}, "turn.max_raises: expected an integer"),
        ({"turn.bias": "0.5"}, "turn.bias: must be at least 1"),
        ({"preflop.max_raises": "-1"}, "preflop.max_raises: must be at least 0"),
        # Search before the river is the street pipeline's.
        ({"turn.iterations": "5"}, "turn search needs pipeline: street"),
        ({"preflop.iterations": "5"}, "preflop search needs pipeline: street"),
        ({"path_floor": "0.2"}, "path_floor needs pipeline: street"),
        ({"pipeline": "street", "path_floor": "1"}, r"path_floor must be in \[0, 1\)"),
        ({"pipeline": "street", "path_floor": "-0.1"}, "path_floor: must be at least 0"),
        ({"aggression": "1"}, "aggression needs pipeline: street"),
        ({"opponent_threshold": "x"}, "opponent_threshold: expected a number"),
        ({"opponent_threshold": "1"}, r"opponent_threshold must be in \[0, 1\)"),
        ({"opponent_threshold": "-0.1"}, "opponent_threshold: must be at least 0"),
        ({"cap_showdowns": "0", "check_cap": "1"}, "cap_showdowns: must be at least 1"),
        ({"responses": "1", "response_prior": "0"}, "response_prior must be a positive number"),
        # The options that do nothing without their model are errors.
        ({"cap_showdowns": "7"}, "cap_showdowns= needs check_cap=1"),
        ({"response_prior": "7"}, "response_prior= needs responses=1 or aggression=1"),
        ({"pipeline": "street", "aggression_showdowns": "1"}, "aggression_showdowns= needs aggression=1"),
        ({"pipeline": "street", "aggression_overbets": "1"}, "aggression_overbets= needs aggression=1"),
        # Two options for one key are ambiguous.
        (
            {"budget_ms": "50", "river.budget_ms": "60"},
            "budget_ms= and river.budget_ms= both set river.budget_ms",
        ),
    ],
)
def test_a_bad_option_is_an_error_that_names_it(options: dict[str, str], fragment: str) -> None:
    with pytest.raises(ConfigError, match=fragment):
        with_overrides(SearchConfig(), options)


def test_an_unknown_key_is_an_error_that_lists_the_known_ones() -> None:
    with pytest.raises(ConfigError, match=r"unknown search option 'river\.depth'") as error:
        with_overrides(SearchConfig(), {"river.depth": "3"})
    listed = str(error.value).partition("options: ")[2].split(", ")
    assert listed == list(spec_keys())
    assert {"river.budget_ms", "turn.iterations", "safe", "budget_ms"} <= set(listed)
    assert not {"turn", "preflop", "turn_leaves", "river_cards"} & set(listed)


def test_responses_with_safe_is_refused_however_the_config_is_made(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="responses does not work with safe"):
        SearchConfig(responses=True, safe=True)
    with pytest.raises(ConfigError, match="responses does not work with safe"):
        with_overrides(SearchConfig(), {"responses": "1", "safe": "1"})
    path = tmp_path / "search.yaml"
    path.write_text("safe: true\nresponses: true\n")
    with pytest.raises(ConfigError, match=f"{path}: responses does not work with safe"):
        load_search_config(path)


def test_a_bad_file_value_names_the_file_and_the_key(tmp_path: Path) -> None:
    path = tmp_path / "search.yaml"
    path.write_text("river:\n  budget_ms: 0\n")
    with pytest.raises(ConfigError, match=f"{path}: river: budget_ms must be a positive number"):
        load_search_config(path)


def test_the_default_search_spec_builds_an_agent_with_the_default_config() -> None:
    agent = make_agent(f"search:{CAPPED}")
    assert isinstance(agent, SearchAgent) and agent.config == SearchConfig()
    dotted = make_agent(f"search:{CAPPED}?river.budget_ms=300&threshold=0.3&turn.max_raises=2")
    assert isinstance(dotted, SearchAgent) and dotted.threshold == 0.3
    assert dotted.config == SearchConfig(turn=TurnSearch(max_raises=2), river=RiverSearch(budget_ms=300.0))


def test_the_agent_checks_a_config_built_in_code_as_the_loader_does() -> None:
    blueprint = Blueprint.load(CAPPED)
    with pytest.raises(ConfigError, match=r"river\.iterations: must be at least 0"):
        SearchAgent(blueprint, SearchConfig(river=RiverSearch(iterations=-1)))
    with pytest.raises(ValueError, match="flop search needs pipeline: street"):
        SearchAgent(blueprint, with_overrides(SearchConfig(), {"flop.iterations": "10"}))
    with pytest.raises(ValueError, match="SearchAgent plays pipeline: river"):
        SearchAgent(blueprint, SearchConfig(pipeline="street"))
    assert (
        SearchAgent(blueprint, SearchConfig(river=RiverSearch(budget_ms=50))).config.river.budget_ms == 50.0
    )


def test_the_agents_listing_shows_the_config_defaults() -> None:
    search = next(info for info in agent_catalogue() if info.spec == "search:PATH")
    defaults = {option.key: option.default for option in search.options}
    assert defaults["river.budget_ms"] == defaults["budget_ms"] == "65"
    assert defaults["river.iterations"] == defaults["iterations"] == "1000"
    assert (defaults["turn.iterations"], defaults["turn.river_cards"]) == ("0", "8")
    assert (defaults["preflop.budget_ms"], defaults["safe"], defaults["opponent_threshold"]) == (
        "5000",
        "0",
        "none",
    )
