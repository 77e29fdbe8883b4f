"""The shipped blueprints are package data: found from any folder, and carried by a built wheel."""

from __future__ import annotations

from pathlib import Path

import pytest

from pokerai.agents.blueprint import load_blueprint
from pokerai.agents.table import DEFAULT_BLUEPRINT, default_opponent_spec
from pokerai.shipped import package_checkpoints, resolve_checkpoint

ROOT = Path(__file__).resolve().parents[1]


def test_a_shipped_blueprint_is_found_from_any_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    found = resolve_checkpoint(DEFAULT_BLUEPRINT)
    assert found == package_checkpoints() / DEFAULT_BLUEPRINT.name and found.is_dir()
    assert load_blueprint(str(DEFAULT_BLUEPRINT)) is not None
    assert str(package_checkpoints()) in default_opponent_spec()
    # A folder of that name under the working folder comes first; other paths are left alone.
    (tmp_path / DEFAULT_BLUEPRINT).mkdir(parents=True)
    assert resolve_checkpoint(DEFAULT_BLUEPRINT) == DEFAULT_BLUEPRINT
    assert resolve_checkpoint("checkpoints/no_such_blueprint") == Path("checkpoints/no_such_blueprint")
    assert resolve_checkpoint("elsewhere/hunl_tiny") == Path("elsewhere/hunl_tiny")


def test_the_top_level_checkpoints_folder_is_the_package_one() -> None:
    assert (ROOT / "checkpoints").resolve() == package_checkpoints()


def test_the_package_data_carries_the_default_blueprint() -> None:
    # What a wheel or a plain `pip install .` copies: pyproject's package-data globs under pokerai/.
    # (Building a wheel here would need setuptools and network access; it was checked by hand.)
    tomllib = pytest.importorskip("tomllib")
    settings = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    patterns = settings["package-data"]["pokerai"]
    package = ROOT / "pokerai"
    carried = {path for pattern in patterns for path in package.glob(pattern) if path.is_file()}
    shipped = package_checkpoints() / DEFAULT_BLUEPRINT.name
    assert {shipped / name for name in ("config.yaml", "strategy.npz", "abstraction.npz")} <= carried
