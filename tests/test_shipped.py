"""The shipped blueprints are package data: found from any folder, and carried by a built wheel."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from pokerai.agents.blueprint import load_blueprint
from pokerai.cli.play import DEFAULT_BLUEPRINT, default_opponent_spec
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


def test_a_built_wheel_carries_the_default_blueprint(tmp_path: Path) -> None:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            str(tmp_path),
            str(ROOT),
        ],
        check=True,
        cwd=tmp_path,
    )
    (wheel,) = tmp_path.glob("pokerai-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    shipped = f"pokerai/checkpoints/{DEFAULT_BLUEPRINT.name}"
    assert {f"{shipped}/config.yaml", f"{shipped}/policy.npz"} <= names
