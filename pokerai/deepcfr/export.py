"""Blueprints: the policy networks of a Deep CFR run, exported alone, and loaded to play (layer 4).

Deep CFR (Brown, Lerer, Gross & Sandholm 2019) plays the *average strategy*,
which the two policy networks (one per seat; seat 0 is the button) approximate.
A training checkpoint also holds the advantage networks, optimiser states and
reservoirs (easily gigabytes); a blueprint keeps only what play needs.

Folder layout (:func:`export_policy`)::

    <out_dir>/policy.pt     save_checkpoint payload (atomic, SHA-256 checked), see below
    <out_dir>/config.yaml   the run's config, for people to read (never read back)

The ``policy.pt`` payload::

    kind                "pokerai-blueprint"
    blueprint_version   1
    config              the DeepCFRConfig as plain dicts (rebuilds the game, encoder and networks)
    iteration           the CFR iteration the networks were trained at
    feature_size        features per information state (373 for hold'em)
    num_slots           action slots of the bet menu
    networks            {"policy_p0": state_dict, "policy_p1": state_dict} (CPU float32 tensors)

Size: the two networks' float32 parameters plus a few kB of config and
framing, ``≈ 8 × (params per network)`` bytes. With the default hidden sizes
(256, 256, 128) and 373 features that is about 1.6 MB; the file is never more
than :data:`MAX_BLUEPRINT_BYTES` (checked on export).

A :class:`Blueprint` is the loaded folder: the game rebuilt from the config,
its encoder, and both policy networks in eval mode on the CPU.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt
import torch

from pokerai.config import ConfigError, config_to_dict, dump_config
from pokerai.deepcfr.checkpoint import CheckpointError, load_checkpoint, save_checkpoint
from pokerai.deepcfr.encoding import Encoder, make_encoder
from pokerai.deepcfr.networks import PolicyNetwork
from pokerai.deepcfr.traversal import legal_mask

if TYPE_CHECKING:
    from pokerai.deepcfr.trainer import DeepCFRConfig, DeepCFRTrainer

BLUEPRINT_KIND = "pokerai-blueprint"
"""The ``kind`` of every blueprint payload (a training checkpoint has none)."""
BLUEPRINT_VERSION = 1
"""The payload layout written by this code."""
POLICY_FILE = "policy.pt"
CONFIG_FILE = "config.yaml"
POLICY_NAMES = ("policy_p0", "policy_p1")
"""The networks a blueprint holds, by seat (0 the button, 1 the big blind)."""
_PAYLOAD_KEYS = frozenset(
    {"kind", "blueprint_version", "config", "iteration", "feature_size", "num_slots", "networks"}
)
MAX_BLUEPRINT_BYTES = 64 * 2**20
"""Asserted bound on an exported ``policy.pt``: a larger one holds more than the policy networks."""


def export_policy(trainer: DeepCFRTrainer, out_dir: str | os.PathLike[str]) -> Path:
    """Write ``trainer``'s policy networks as a blueprint folder (module docstring); returns ``policy.pt``.

    The policy networks must have been trained (``trainer.train_policies()``, which
    ``trainer.train()`` calls at evaluation points); otherwise ``ValueError``.
    """
    if not trainer.policy_trained:
        raise ValueError(
            "the trainer's policy networks have not been trained yet; call trainer.train_policies() first"
        )
    folder = Path(out_dir)
    payload: dict[str, Any] = {
        "kind": BLUEPRINT_KIND,
        "blueprint_version": BLUEPRINT_VERSION,
        "config": config_to_dict(trainer.config),
        "iteration": int(trainer.iteration),
        "feature_size": int(trainer.encoder.feature_size),
        "num_slots": int(trainer.num_slots),
        "networks": {name: _cpu_state_dict(trainer.networks[name]) for name in POLICY_NAMES},
    }
    path = save_checkpoint(folder / POLICY_FILE, payload)
    size = path.stat().st_size
    assert size <= MAX_BLUEPRINT_BYTES, f"blueprint {path} is {size} bytes, over {MAX_BLUEPRINT_BYTES}"
    (folder / CONFIG_FILE).write_text(dump_config(trainer.config), encoding="utf-8")
    return path


def _cpu_state_dict(network: torch.nn.Module) -> dict[str, torch.Tensor]:
    return {key: value.detach().to("cpu").clone() for key, value in network.state_dict().items()}


class Blueprint:
    """A playable Deep CFR average strategy: the game, its encoder and one policy network per seat.

    Build it with :meth:`load` (an exported folder) or :meth:`from_trainer`
    (a copy of a live trainer's policy networks, no disk round-trip).
    """

    def __init__(
        self,
        config: DeepCFRConfig,
        networks: Mapping[str, torch.nn.Module],
        *,
        iteration: int = 0,
    ) -> None:
        from pokerai.deepcfr.trainer import make_game

        self.config = config
        self.game: Any = make_game(config)
        """The learning game (a ``HUNLGame`` for hold'em runs; seat 0 is the button)."""
        self.encoder: Encoder = make_encoder(self.game, config.encoding)
        self.num_slots = int(self.game.num_distinct_actions)
        self.iteration = iteration
        missing = [name for name in POLICY_NAMES if name not in networks]
        if missing:
            raise ValueError(f"a blueprint needs the networks {list(POLICY_NAMES)}; missing {missing}")
        self.networks = {name: networks[name].to("cpu").eval() for name in POLICY_NAMES}
        """The policy networks by name (:data:`POLICY_NAMES`), in eval mode on the CPU."""

    # ------------------------------------------------------------------ construction

    @classmethod
    def from_trainer(cls, trainer: DeepCFRTrainer) -> Blueprint:
        """A snapshot of ``trainer``'s policy networks, copied to the CPU (later training leaves it as is)."""
        networks = {
            name: _policy_network(trainer.config, trainer.encoder.feature_size, trainer.num_slots)
            for name in POLICY_NAMES
        }
        for name, network in networks.items():
            network.load_state_dict(_cpu_state_dict(trainer.networks[name]))
        return cls(trainer.config, networks, iteration=trainer.iteration)

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Blueprint:
        """Load a blueprint folder (or its ``policy.pt``).

        Raises :class:`CheckpointError` (a ``ValueError``) with one sentence naming
        the file when it is missing, corrupt, or not a blueprint.
        """
        from pokerai.deepcfr.trainer import load_deepcfr_config

        given = Path(path)
        file = given / POLICY_FILE if given.is_dir() else given
        if given.is_dir() and not file.is_file():
            raise CheckpointError(f"blueprint folder {given} holds no {POLICY_FILE}")
        payload = load_checkpoint(file)
        kind = payload.get("kind")
        if kind != BLUEPRINT_KIND:
            if "advantage_buffers" in payload:
                raise CheckpointError(
                    f"{file} is a Deep CFR training checkpoint, not a blueprint; export its policy "
                    "networks with pokerai.deepcfr.export.export_policy first"
                )
            raise CheckpointError(f"{file} is not a pokerai blueprint (its kind is {kind!r})")
        missing = sorted(_PAYLOAD_KEYS - set(payload))
        if missing:
            raise CheckpointError(f"blueprint {file} is incomplete: it lacks {', '.join(missing)}")
        version = payload.get("blueprint_version")
        if not isinstance(version, int) or not 1 <= version <= BLUEPRINT_VERSION:
            raise CheckpointError(f"blueprint {file} has an unknown version {version!r}")
        try:
            config = load_deepcfr_config(payload["config"])
        except (ConfigError, KeyError) as error:
            raise CheckpointError(f"blueprint {file} holds a bad config: {error}") from None
        networks = {
            name: _policy_network(config, int(payload["feature_size"]), int(payload["num_slots"]))
            for name in POLICY_NAMES
        }
        for name, network in networks.items():
            try:
                network.load_state_dict(payload["networks"][name])
            except (KeyError, RuntimeError) as error:
                reason = str(error).splitlines()[0]
                raise CheckpointError(
                    f"blueprint {file}: network {name} does not fit its config: {reason}"
                ) from None
        blueprint = cls(config, networks, iteration=int(payload["iteration"]))
        if (blueprint.encoder.feature_size, blueprint.num_slots) != (
            payload["feature_size"],
            payload["num_slots"],
        ):
            raise CheckpointError(
                f"blueprint {file} was saved for {payload['feature_size']} features and "
                f"{payload['num_slots']} slots, but its config gives {blueprint.encoder.feature_size} "
                f"and {blueprint.num_slots}"
            )
        return blueprint

    # ------------------------------------------------------------------ queries

    def probabilities_batch(
        self, records: npt.NDArray[Any], masks: npt.NDArray[np.bool_], seat: int
    ) -> npt.NDArray[np.float64]:
        """Seat ``seat``'s average strategy at ``[N]`` encoder records with bool masks ``[N, num_slots]``.

        Returns float64 ``[N, num_slots]``: a softmax of the policy logits over the
        legal slots (exactly ``trainer.average_strategy``); illegal slots are 0.
        """
        if seat not in (0, 1):
            raise ValueError(f"seat {seat!r} is not 0 (button) or 1 (big blind)")
        masks = np.asarray(masks, dtype=np.bool_)
        if masks.shape != (len(records), self.num_slots):
            raise ValueError(
                f"masks must have shape [{len(records)}, {self.num_slots}], got {list(masks.shape)}"
            )
        network = self.networks[POLICY_NAMES[seat]]
        with torch.inference_mode():
            features = torch.from_numpy(self.encoder.encode(records))
            logits = network(features).double()
            logits = logits.masked_fill(torch.from_numpy(~masks), -math.inf)
            result: npt.NDArray[np.float64] = torch.softmax(logits, dim=1).numpy()
        return result

    def probabilities(self, state: Any) -> npt.NDArray[np.float64]:
        """The average strategy of the player to act at a decision ``state``: float64 ``[num_slots]``."""
        seat = state.current_player()
        if seat not in (0, 1):
            raise ValueError(f"state {state!r} is not a decision of seat 0 or 1")
        records = np.empty(1, dtype=self.encoder.record_dtype)
        records[0] = self.encoder.record(state, seat)
        mask = legal_mask(state, self.num_slots)[np.newaxis, :]
        return self.probabilities_batch(records, mask, seat)[0]

    def __repr__(self) -> str:
        return f"Blueprint({getattr(self.game, 'name', self.game)!r}, iteration={self.iteration})"


def _policy_network(config: DeepCFRConfig, feature_size: int, num_slots: int) -> PolicyNetwork:
    # Weights are overwritten by load_state_dict; a fixed generator keeps construction off global RNG.
    return PolicyNetwork(feature_size, num_slots, config.network, generator=torch.Generator().manual_seed(0))


__all__ = [
    "BLUEPRINT_KIND",
    "CONFIG_FILE",
    "MAX_BLUEPRINT_BYTES",
    "POLICY_FILE",
    "Blueprint",
    "export_policy",
]
