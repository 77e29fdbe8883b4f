"""Every config in configs/ and experiments/configs/ loads through its checker, and the shipped
blueprints load and match their configs."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest
import yaml

from pokerai.abstraction.buckets import load_abstraction_config
from pokerai.deepcfr.export import Blueprint
from pokerai.deepcfr.trainer import load_deepcfr_config, replace
from pokerai.engine.state import HUNLState
from pokerai.eval.aivat import ALL_HANDS
from pokerai.search.config import load_search_config
from pokerai.tabular.blueprint import TabularBlueprint
from pokerai.tabular.config import is_tabular_config, load_tabular_config

ROOT = Path(__file__).resolve().parents[1]
CONFIGS = sorted([*(ROOT / "configs").glob("*.yaml"), *(ROOT / "experiments" / "configs").glob("*.yaml")])


@pytest.mark.parametrize("path", CONFIGS, ids=[str(path.relative_to(ROOT)) for path in CONFIGS])
def test_config_loads(path: Path) -> None:
    if path.stem.startswith("abstraction_"):
        assert load_abstraction_config(path).name == path.stem.removeprefix("abstraction_")
    elif path.stem.startswith("search_"):
        load_search_config(path)  # tests/search/test_search_config.py checks its values
    elif is_tabular_config(yaml.safe_load(path.read_text())):
        tabular = load_tabular_config(path)  # reads the card abstraction config it names
        assert tabular.name == path.stem
    else:
        config = load_deepcfr_config(path)
        assert config.game in path.stem


def test_the_shipped_default_blueprint_loads_with_its_config_tree_and_buckets() -> None:
    """checkpoints/hunl_blueprint, the default bot's blueprint: its tree is the config's menu (13,668
    decisions) over 169/200/200/200 buckets, and every row of its strategy is a distribution."""
    blueprint = TabularBlueprint.load(ROOT / "checkpoints" / "hunl_blueprint")
    assert blueprint.config == load_tabular_config(ROOT / "checkpoints" / "hunl_blueprint" / "config.yaml")
    assert blueprint.counts == (169, 200, 200, 200)
    assert len(blueprint.tree.decisions) == 13_668
    assert blueprint.iteration == 40_000_000
    state = HUNLState.new(blueprint.game.config, 0, deck=list(range(9)))
    hands = ALL_HANDS[::13]
    mask = np.ones(blueprint.num_slots, dtype=bool)
    probabilities = blueprint.hand_probabilities(state, hands, mask)
    assert probabilities.shape == (len(hands), blueprint.num_slots) and probabilities.min() >= 0
    np.testing.assert_allclose(probabilities.sum(axis=1), 1.0, atol=1e-6)


def test_the_deep_cfr_blueprint_loads_and_matches_its_config() -> None:
    """checkpoints/hunl_tiny, the shipped Deep CFR blueprint, matches its training config."""
    blueprint = Blueprint.load(ROOT / "checkpoints" / "hunl_tiny")
    assert blueprint.config == load_deepcfr_config(ROOT / "configs" / "hunl_tiny.yaml")
    assert (ROOT / "checkpoints" / "hunl_tiny" / "policy.pt").stat().st_size < 5_000_000


def test_the_default_blueprint_is_the_40m_snapshot_of_its_config() -> None:
    """checkpoints/hunl_blueprint was trained from configs/hunl_blueprint.yaml under another name and
    a smaller deal limit, neither of which changes a deal of the run."""
    shipped = load_tabular_config(ROOT / "checkpoints" / "hunl_blueprint" / "config.yaml")
    config = load_tabular_config(ROOT / "configs" / "hunl_blueprint.yaml")
    assert dataclasses.replace(shipped, name=config.name, iterations=config.iterations) == config
    assert shipped.explore == 0.05 and shipped.abstraction_config.name == "blueprint"
    sizes = [path.stat().st_size for path in (ROOT / "checkpoints" / "hunl_blueprint").iterdir()]
    assert sum(sizes) < 100_000_000


def test_the_first_blueprint_loads_and_matches_its_config() -> None:
    """checkpoints/hunl_tiny_v1 (the search figures' blueprint) was trained under the name hunl_tiny."""
    blueprint = Blueprint.load(ROOT / "checkpoints" / "hunl_tiny_v1")
    config = load_deepcfr_config(ROOT / "configs" / "hunl_tiny_v1.yaml")
    assert config.name == "hunl_tiny_v1"
    assert blueprint.config == replace(config, name="hunl_tiny")
