"""A hold'em Deep CFR run small enough for unit tests (one iteration, seconds)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pokerai.config import config_to_dict
from pokerai.deepcfr.trainer import DeepCFRTrainer, load_deepcfr_config
from tests.deepcfr.fake_abstraction import FAKE_CONFIG

TINY_HUNL: dict[str, Any] = {
    "game": "hunl",
    "iterations": 1,
    "traversals_per_iteration": 4,
    "network": {"hidden_sizes": [8]},
    "advantage": {"steps": 2, "batch_size": 16, "buffer_capacity": 100},
    "policy": {"steps": 2, "batch_size": 16, "buffer_capacity": 100},
    "evaluation": {"every": 1},
    "checkpoint_every": 1,
}


TINY_HUNL_BUCKETS: dict[str, Any] = {
    **TINY_HUNL,
    "encoding": "cards+buckets",
    "abstraction": config_to_dict(FAKE_CONFIG),
}
""":data:`TINY_HUNL` with the fake abstraction's bucket features (tests need the ``fake_cache`` fixture)."""


def tiny_hunl_trainer(run_dir: Path, settings: dict[str, Any] | None = None) -> DeepCFRTrainer:
    """A trainer of ``settings`` (default :data:`TINY_HUNL`) after one iteration, policy networks trained."""
    trainer = DeepCFRTrainer(load_deepcfr_config(settings or TINY_HUNL), run_dir)
    trainer.run_iteration()
    trainer.train_policies()
    return trainer
