"""Every config shipped in configs/ loads through its checker, and the shipped blueprint loads."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
import yaml

from pokerai.abstraction.buckets import load_abstraction_config
from pokerai.deepcfr.export import Blueprint
from pokerai.deepcfr.trainer import load_deepcfr_config, replace
from pokerai.search.config import load_search_config
from pokerai.tabular.config import is_tabular_config, load_tabular_config

ROOT = Path(__file__).resolve().parents[1]
CONFIGS = sorted((ROOT / "configs").glob("*.yaml"))


@pytest.mark.parametrize("path", CONFIGS, ids=[path.stem for path in CONFIGS])
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


def test_the_shipped_blueprint_loads_and_matches_its_config() -> None:
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
