"""A hold'em Deep CFR run small enough for unit tests (one iteration, seconds)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pokerai.deepcfr.trainer import DeepCFRTrainer, load_deepcfr_config

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


def tiny_hunl_trainer(run_dir: Path) -> DeepCFRTrainer:
    """A trainer after one iteration with its policy networks trained."""
    trainer = DeepCFRTrainer(load_deepcfr_config(TINY_HUNL), run_dir)
    trainer.run_iteration()
    trainer.train_policies()
    return trainer
