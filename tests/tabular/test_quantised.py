"""The quantised blueprint format (shipped blueprints, training snapshots): equal to the full
strategy within 1/255, unreached rows uniform, and a corrupt file named in one sentence."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from pokerai.config import config_to_dict
from pokerai.tabular.blueprint import (
    QUANTISATION_STEPS,
    STRATEGY_FILE,
    TabularBlueprint,
    TabularBlueprintError,
    infoset_rows,
    quantise,
)
from pokerai.tabular.config import load_tabular_config
from pokerai.tabular.trainer import SNAPSHOTS, TabularTrainer
from tests.deepcfr.fake_abstraction import fake_abstraction
from tests.tabular.test_trainer import run_config


@pytest.fixture(scope="module")
def abstraction() -> Any:
    return fake_abstraction()


def test_rows_become_255ths_that_sum_to_255_within_one_step() -> None:
    rng = np.random.default_rng(3)
    widths = rng.integers(1, 7, size=2_000)
    raw = rng.random(int(widths.sum())) ** 4  # skewed rows, many tiny entries
    raw[: widths[0]] = 0.0
    raw[: widths[0]][0] = 1.0  # a pure row
    starts = np.cumsum(widths) - widths
    strategy = (raw / np.repeat(np.add.reduceat(raw, starts), widths)).astype(np.float32)
    values = quantise(strategy, widths)
    assert values.dtype == np.uint8
    np.testing.assert_array_equal(np.add.reduceat(values.astype(np.int64), starts), QUANTISATION_STEPS)
    assert np.abs(values / QUANTISATION_STEPS - strategy).max() <= 1.0 / QUANTISATION_STEPS + 1e-6
    assert values[0] == QUANTISATION_STEPS and not values[1 : widths[0]].any()


def test_infoset_rows_tile_the_table(abstraction: Any, tmp_path: Path) -> None:
    trainer = TabularTrainer(
        load_tabular_config(run_config(iterations=10)), tmp_path, abstraction=abstraction
    )
    starts, widths = infoset_rows(trainer.tree, trainer.buckets, trainer.solver.offsets)
    assert starts[0] == 0 and np.array_equal(starts[1:], (starts + widths)[:-1])
    assert int(starts[-1] + widths[-1]) == trainer.solver.table_size


def test_a_quantised_snapshot_plays_the_full_strategy_within_quantisation(
    abstraction: Any, tmp_path: Path, fake_cache: Path
) -> None:
    config = load_tabular_config(run_config(iterations=2_000, snapshot_every=1_000))
    trainer = TabularTrainer(config, tmp_path / "run", abstraction=abstraction)
    trainer.train()
    snapshots = sorted((tmp_path / "run" / SNAPSHOTS).iterdir())
    assert [folder.name for folder in snapshots] == ["000000001000", "000000002000"]
    full = trainer.blueprint()
    assert full.reached is not None and 0 < full.reached.sum() < full.reached.size  # some rows never reached
    loaded = TabularBlueprint.load(snapshots[-1])
    assert loaded.iteration == 2_000
    np.testing.assert_array_equal(loaded.reached, full.reached)
    assert np.abs(loaded.strategy - full.strategy).max() <= 1.0 / QUANTISATION_STEPS + 1e-6
    _, widths = infoset_rows(full.tree, full.counts, full.offsets)
    unreached = np.repeat(~full.reached, widths)
    np.testing.assert_allclose(loaded.strategy[unreached], np.repeat(1.0 / widths, widths)[unreached])
    # The full export is exact, and a quantised folder is smaller.
    exact = TabularBlueprint.load(trainer.export())
    np.testing.assert_array_equal(exact.strategy, full.strategy)
    assert (snapshots[-1] / STRATEGY_FILE).stat().st_size < (
        tmp_path / "run" / "blueprint" / STRATEGY_FILE
    ).stat().st_size
    assert config_to_dict(loaded.config) == config_to_dict(config)


def test_a_corrupt_quantised_file_is_named(abstraction: Any, tmp_path: Path, fake_cache: Path) -> None:
    trainer = TabularTrainer(
        load_tabular_config(run_config(iterations=1_000)), tmp_path / "run", abstraction=abstraction
    )
    trainer.train()
    folder = trainer.blueprint().save(tmp_path / "shipped", quantised=True)
    file = folder / STRATEGY_FILE
    with np.load(file) as archive:
        arrays = {name: archive[name].copy() for name in archive.files}
    flipped = dict(arrays, quantised=arrays["quantised"] ^ np.uint8(1))
    np.savez_compressed(file, **flipped)
    with pytest.raises(
        TabularBlueprintError, match=r"strategy\.npz: the strategy does not match its checksum"
    ):
        TabularBlueprint.load(folder)
    meta = json.loads(str(arrays["meta"]))
    np.savez_compressed(file, **dict(arrays, meta=np.array(json.dumps({**meta, "infosets": 5}))))
    with pytest.raises(TabularBlueprintError, match="information sets"):
        TabularBlueprint.load(folder)
    file.write_bytes(file.read_bytes()[:100])
    with pytest.raises(TabularBlueprintError, match="corrupt or truncated"):
        TabularBlueprint.load(folder)
