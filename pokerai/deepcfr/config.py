"""The settings of a Deep CFR run, as frozen dataclasses loaded from YAML (layer 4, no torch).

:class:`DeepCFRConfig` is what ``configs/*_deepcfr.yaml`` and ``configs/hunl_*.yaml`` hold;
:func:`load_deepcfr_config` reads and checks one. Playing a blueprint needs these (they
rebuild its game, encoder and network shape) but not torch, so they live apart from the
trainer and the torch networks. :func:`make_game` and :func:`make_run_encoder` build a
run's game and encoder.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pokerai.abstraction.buckets import AbstractionConfig
from pokerai.config import ConfigError, config_to_dict, load_config
from pokerai.deepcfr.encoding import Encoder, make_encoder, shared_abstraction
from pokerai.games.holdem import HUNLSettings, abstraction_config
from pokerai.games.leduc import LeducPoker

Activation = Literal["relu", "gelu"]


@dataclass(frozen=True)
class NetworkConfig:
    """Shape of the advantage and policy networks; loadable with :func:`pokerai.config.load_config`."""

    hidden_sizes: tuple[int, ...] = field(
        default=(256, 256, 128),
        metadata={"min": 1, "help": "width of each hidden layer, input side first (at least one layer)"},
    )
    activation: Activation = field(
        default="relu", metadata={"help": "nonlinearity after each hidden layer: relu or gelu"}
    )
    skip_connections: bool = field(
        default=True,
        metadata={
            "help": "add each hidden layer's input to its output where the widths match "
            "(the paper's network uses skip connections)"
        },
    )
    layer_norm: bool = field(
        default=False,
        metadata={"help": "layer normalisation (learned scale and shift) after every hidden layer"},
    )
    normalize_last_hidden: bool = field(
        default=True,
        metadata={
            "help": "scale the last hidden layer's activations to zero mean and unit variance per sample, "
            "as the paper does, so the output layer sees inputs of a steady scale"
        },
    )

    def __post_init__(self) -> None:
        if len(self.hidden_sizes) == 0:
            raise ValueError("hidden_sizes must list at least one hidden layer")
        for size in self.hidden_sizes:
            if size < 1:
                raise ValueError(f"hidden_sizes must be positive, got {size}")


@dataclass(frozen=True)
class NetworkTraining:
    """How one kind of network is trained from its reservoir."""

    buffer_capacity: int = field(default=1_000_000, metadata={"min": 1, "help": "reservoir size per player"})
    steps: int = field(default=300, metadata={"min": 1, "help": "SGD steps per training"})
    batch_size: int = field(default=2048, metadata={"min": 1})
    learning_rate: float = field(default=1e-3, metadata={"min": 0.0})
    warm_start: bool = field(
        default=False, metadata={"help": "continue from the previous weights instead of re-initialising"}
    )
    learning_rate_decay: bool = field(
        default=False,
        metadata={
            "help": "decay the learning rate linearly to 0 over each training's steps: a closer fit of a "
            "fixed target (on Leduc it brings the policy network much nearer its reservoir's average)"
        },
    )
    weight_exponent: float = field(
        default=1.0,
        metadata={
            "min": 0.0,
            "help": "a sample of iteration t weighs t**x: 1 is linear CFR (the paper), 0 uniform, "
            "above 1 favours recent iterations as DCFR does",
        },
    )
    grouped: bool = field(
        default=False,
        metadata={
            "help": "train on the reservoir's rows grouped by identical information state (each group "
            "once, with its total weight and weighted-mean target): the same loss, without sampling "
            "noise, for games whose states repeat (Leduc); batch_size then caps the groups per step",
        },
    )


@dataclass(frozen=True)
class Evaluation:
    """What is measured during training, every ``every`` iterations and at the end."""

    every: int = field(default=10, metadata={"min": 1, "help": "iterations between evaluations"})
    hunl_pairs: int = field(
        default=200,
        metadata={"min": 0, "help": "hold'em: duplicate pairs against the heuristic per evaluation (0 off)"},
    )


@dataclass(frozen=True)
class DeepCFRConfig:
    """A Deep CFR run (``configs/*_deepcfr.yaml``, ``configs/hunl_*.yaml``)."""

    name: str = "run"
    game: Literal["leduc", "hunl"] = "leduc"
    hunl: HUNLSettings = field(default_factory=HUNLSettings)
    iterations: int = field(default=100, metadata={"min": 1})
    traversals_per_iteration: int = field(default=1000, metadata={"min": 1, "help": "per player"})
    concurrent_traversals: int = field(
        default=512, metadata={"min": 1, "help": "traversals whose network queries are batched together"}
    )
    chance: Literal["sample", "enumerate"] = field(
        default="sample",
        metadata={
            "help": "traversals sample one outcome at each chance node (external sampling, the "
            "paper) or enumerate them all: far lower variance, for small games only (Leduc)"
        },
    )
    value_scale: float = field(
        default=1.0, metadata={"min": 1e-9, "help": "advantage targets are divided by this (chips)"}
    )
    advantage_pot_power: float = field(
        default=0.0,
        metadata={
            "min": 0.0,
            "max": 1.0,
            "help": "advantage targets are further divided by (pot / value_scale) ** this, the pot "
            "of their decision: 0 keeps chips; 1 gives regrets in pots, so every decision weighs "
            "alike in the fit. A positive factor per information set, so regret matching's "
            "strategies are unchanged",
        },
    )
    all_in_equity: bool = field(
        default=False,
        metadata={
            "help": "hold'em: value an all-in called before the river at the two hands' equity over "
            "the run-outs instead of the deal's one run-out (lower-variance advantage targets)"
        },
    )
    terminal_responses: Literal["sample", "expected"] = field(
        default="sample",
        metadata={
            "help": "at the opponent's decisions, sample one slot (external sampling, the paper), or "
            "also add the exact value of the slots that end the hand (folds, calls that reach a "
            "showdown) and count the drawn slot only if it continues: the same nodes and samples, "
            "lower-variance values"
        },
    )
    encoding: Literal["cards", "cards+strength", "cards+buckets"] = field(
        default="cards",
        metadata={
            "help": "hold'em features: 373 of cards and betting, those plus 11 of hand strength, or those "
            "plus the one-hot of the player's bucket on each street so far (needs abstraction)"
        },
    )
    abstraction: AbstractionConfig | str | None = field(
        default=None,
        metadata={
            "help": "the card abstraction of encoding cards+buckets: the path of its config (relative to "
            "the working directory, e.g. configs/abstraction_tiny.yaml), which loading replaces by the "
            "config itself, so checkpoints and blueprints carry it; its tables are found in the "
            "abstraction cache or built there"
        },
    )
    network: NetworkConfig = field(default_factory=NetworkConfig)
    advantage: NetworkTraining = NetworkTraining()
    policy: NetworkTraining = NetworkTraining(buffer_capacity=1_000_000, steps=1000)
    evaluation: Evaluation = Evaluation()
    checkpoint_every: int = field(default=10, metadata={"min": 1, "help": "iterations between checkpoints"})
    checkpoint_minutes: float = field(
        default=10.0,
        metadata={
            "min": 0.0,
            "help": "also write a checkpoint after the iteration that ends this many minutes after the "
            "last one (0: only every checkpoint_every iterations); saving reads the generators without "
            "advancing them, so the clock decides when a checkpoint is written but never the results",
        },
    )
    seed: int = field(default=0, metadata={"min": 0})
    device: Literal["cpu", "cuda", "auto"] = "cpu"
    threads: int = field(
        default=0,
        metadata={
            "min": 0,
            "help": "torch CPU threads (set for the whole process); 0 means 1: torch's default of one "
            "per core is no faster on an idle 2-core machine and, beside one other busy process, "
            "oversubscribes the cores and slows iterations many times over",
        },
    )
    mixed_precision: bool = field(
        default=False,
        metadata={
            "help": "bfloat16 autocast for the training steps' forward passes (losses, optimiser "
            "and weights stay float32); meant for CUDA, also runs on CPU"
        },
    )


REQUIRED_KEYS = ("game", "iterations")
"""The keys a config file must write: what is learnt and for how long. An empty or unrelated YAML file
is a mistake, not a default run; ``name`` only names the run folder, and may keep its default."""


def load_deepcfr_config(source: str | Path | dict[str, Any]) -> DeepCFRConfig:
    """Load and check a Deep CFR config; bad keys or values raise ``ConfigError`` naming them.

    A file (``source`` a path) must give :data:`REQUIRED_KEYS`; a mapping built in code (tests,
    checkpoints, :func:`replace`) may leave any key to its default.
    """
    required = REQUIRED_KEYS if isinstance(source, (str, Path)) else ()
    where = f"{source}: " if isinstance(source, (str, Path)) else ""
    if isinstance(source, dict) and isinstance(source.get("abstraction"), dict):
        # Checked here so that a bad stored abstraction config names its own key, not the union's types.
        source = {**source, "abstraction": abstraction_config(source["abstraction"], where)}
    config = load_config(source, DeepCFRConfig, required=required)
    if isinstance(config.abstraction, str):
        config = dataclasses.replace(config, abstraction=abstraction_config(config.abstraction, where))
    if config.game == "leduc" and config.encoding != "cards":
        raise ConfigError(f"{where}encoding: {config.encoding!r} is for hold'em; Leduc has only 'cards'")
    if config.game == "leduc" and config.all_in_equity:
        raise ConfigError(f"{where}all_in_equity: is for hold'em; Leduc has no all-in run-outs")
    if config.game == "hunl" and config.chance == "enumerate":
        raise ConfigError(
            f"{where}chance: 'enumerate' is for small games (Leduc); a hold'em deal has far too many "
            "outcomes to enumerate, use 'sample'"
        )
    if config.encoding == "cards+buckets" and config.abstraction is None:
        raise ConfigError(
            f"{where}abstraction: encoding 'cards+buckets' needs a card abstraction; give the path of "
            "its config, e.g. abstraction: configs/abstraction_tiny.yaml"
        )
    if config.encoding != "cards+buckets" and config.abstraction is not None:
        raise ConfigError(
            f"{where}abstraction: only encoding 'cards+buckets' uses a card abstraction, not "
            f"{config.encoding!r}; remove the key or change the encoding"
        )
    return config


def traversal_options(config: DeepCFRConfig) -> dict[str, Any]:
    """The keywords of :func:`~pokerai.deepcfr.traversal.run_traversals` that a run's ``config`` sets."""
    return {
        "seed": config.seed,
        "concurrent": config.concurrent_traversals,
        "value_scale": config.value_scale,
        "chance": config.chance,
        "all_in_equity": config.all_in_equity,
        "terminal_responses": config.terminal_responses == "expected",
    }


def make_game(config: DeepCFRConfig) -> Any:
    return LeducPoker() if config.game == "leduc" else config.hunl.game()


def make_run_encoder(config: DeepCFRConfig, game: Any) -> Encoder:
    """The encoder of a run's ``game`` (:func:`make_game`) for ``config.encoding``.

    For ``cards+buckets`` its card abstraction is :func:`~pokerai.deepcfr.encoding.shared_abstraction`
    of ``config.abstraction``: read once per process, built first when the cache lacks it.
    """
    if config.abstraction is None:
        return make_encoder(game, config.encoding)
    assert isinstance(config.abstraction, AbstractionConfig), "load_deepcfr_config resolves the path"
    return make_encoder(game, config.encoding, shared_abstraction(config.abstraction))


def replace(config: DeepCFRConfig, **changes: Any) -> DeepCFRConfig:
    """A copy of ``config`` with top-level fields changed (re-checked through the loader)."""
    return load_deepcfr_config({**config_to_dict(config), **config_to_dict_changes(changes)})


def config_to_dict_changes(changes: dict[str, Any]) -> dict[str, Any]:
    return {
        key: config_to_dict(value)
        if dataclasses.is_dataclass(value) and not isinstance(value, type)
        else value
        for key, value in changes.items()
    }
