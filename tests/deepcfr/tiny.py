"""Deep CFR runs small enough for unit tests (a few iterations, seconds)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pokerai.config import config_to_dict
from pokerai.deepcfr.trainer import DeepCFRTrainer, load_deepcfr_config
from tests.deepcfr.fake_abstraction import FAKE_CONFIG


def small_run(
    game: str,
    *,
    iterations: int,
    traversals: int,
    hidden: list[int],
    steps: int,
    batch_size: int,
    capacity: int,
    evaluate_every: int,
    **more: Any,
) -> dict[str, Any]:
    """The settings of a Deep CFR run small enough for a unit test: both networks fitted alike, a
    checkpoint every iteration unless ``more`` says otherwise."""
    fit = {"steps": steps, "batch_size": batch_size, "buffer_capacity": capacity}
    return {
        "game": game,
        "iterations": iterations,
        "traversals_per_iteration": traversals,
        "network": {"hidden_sizes": hidden},
        "advantage": dict(fit),
        "policy": dict(fit),
        "evaluation": {"every": evaluate_every},
        "checkpoint_every": 1,
        **more,
    }


TINY_HUNL = small_run(
    "hunl", iterations=1, traversals=4, hidden=[8], steps=2, batch_size=16, capacity=100, evaluate_every=1
)


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
