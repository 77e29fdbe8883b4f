"""The config of a tabular MCCFR blueprint run (``configs/hunl_blueprint.yaml``), free of torch.

A YAML file with ``algorithm: mccfr`` is one of these; ``pokerai train`` tells the two
kinds of run apart by that key (Deep CFR configs have none). ``abstraction`` names a card
abstraction config (a YAML path, read relative to the working folder) or holds one
inline; a run's saved ``config.yaml`` always holds it inline, so a run folder or a
blueprint folder needs no other file.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pokerai.abstraction.buckets import AbstractionConfig
from pokerai.config import ConfigError, config_to_dict, load_config
from pokerai.games.holdem import HUNLSettings, abstraction_config
from pokerai.tabular.mccfr import MCCFRSettings

ALGORITHM = "mccfr"
"""The ``algorithm`` of every tabular config."""


@dataclass(frozen=True)
class TabularEvaluation:
    """What a run measures while it trains (TensorBoard scalars)."""

    every: int = field(default=200_000, metadata={"min": 1, "help": "iterations between evaluations"})
    hunl_pairs: int = field(
        default=100, metadata={"min": 0, "help": "duplicate pairs against heuristic per evaluation (0: none)"}
    )
    lbr_hands: int = field(
        default=0, metadata={"min": 0, "help": "local-best-response hands per evaluation (0: none)"}
    )


@dataclass(frozen=True)
class TabularConfig:
    """A tabular MCCFR run on the bucketed hold'em game (:mod:`pokerai.tabular.mccfr`)."""

    name: str = "mccfr"
    algorithm: Literal["mccfr"] = "mccfr"
    game: Literal["hunl"] = "hunl"
    hunl: HUNLSettings = field(default_factory=HUNLSettings)
    abstraction: AbstractionConfig | str = field(
        default="configs/abstraction_tiny.yaml",
        metadata={"help": "card abstraction: a config path, or the config inline"},
    )
    iterations: int = field(
        default=1_000_000, metadata={"min": 1, "help": "deals, each traversed once per player"}
    )
    batch: int = field(
        default=20_000, metadata={"min": 1, "help": "deals dealt and traversed per kernel call"}
    )
    threads: int = field(
        default=1,
        metadata={"min": 1, "help": "traversal threads; more than 1 is faster but not bit-reproducible"},
    )
    discount_every: int = field(
        default=0, metadata={"min": 0, "help": "iterations between linear-CFR discounts (0: none)"}
    )
    discount_until: int = field(default=0, metadata={"min": 0, "help": "the last iteration that discounts"})
    prune_after: int = field(
        default=0, metadata={"min": 0, "help": "iterations before negative-regret pruning starts (0: never)"}
    )
    prune_probability: float = field(default=0.95, metadata={"min": 0.0, "max": 1.0})
    prune_threshold: float = field(default=-3.0e8, metadata={"help": "regret (chips) below which to prune"})
    regret_floor: float = field(default=-3.1e8, metadata={"help": "regrets never fall below this"})
    explore: float = field(
        default=0.0,
        metadata={
            "min": 0.0,
            "max": 0.99,
            "help": "chance the opponent's sampled action is uniform (to train answers to rare lines)",
        },
    )
    evaluation: TabularEvaluation = TabularEvaluation()
    checkpoint_every: int = field(
        default=1_000_000, metadata={"min": 1, "help": "iterations between checkpoints"}
    )
    checkpoint_minutes: float = field(
        default=10.0, metadata={"min": 0.0, "help": "also checkpoint when this long has passed (0: off)"}
    )
    snapshot_every: int = field(
        default=0,
        metadata={
            "min": 0,
            "help": "iterations between quantised blueprint snapshots for a training curve (0: none)",
        },
    )
    seed: int = field(default=0, metadata={"min": 0})

    def settings(self) -> MCCFRSettings:
        return MCCFRSettings(
            discount_every=self.discount_every,
            discount_until=self.discount_until,
            prune_after=self.prune_after,
            prune_probability=self.prune_probability,
            prune_threshold=self.prune_threshold,
            regret_floor=self.regret_floor,
            explore=self.explore,
        )

    @property
    def abstraction_config(self) -> AbstractionConfig:
        """The card abstraction's config (resolved by :func:`load_tabular_config`)."""
        assert isinstance(self.abstraction, AbstractionConfig), "load configs with load_tabular_config"
        return self.abstraction


def is_tabular_config(data: Any) -> bool:
    """Whether a loaded YAML mapping is a tabular config (its ``algorithm`` is ``mccfr``)."""
    return isinstance(data, dict) and data.get("algorithm") == ALGORITHM


def load_tabular_config(source: str | Path | dict[str, Any]) -> TabularConfig:
    """Load and check a tabular config; a path in ``abstraction`` is read and put inline.

    Raises ``ConfigError`` naming the bad key or file.
    """
    config = load_config(source, TabularConfig)
    if isinstance(config.abstraction, str):
        inline = abstraction_config(config.abstraction)
        config = load_config({**config_to_dict(config), "abstraction": config_to_dict(inline)}, TabularConfig)
    try:
        config.settings()
    except ValueError as error:
        raise ConfigError(str(error)) from None
    return config


__all__ = ["ALGORITHM", "TabularConfig", "TabularEvaluation", "is_tabular_config", "load_tabular_config"]
