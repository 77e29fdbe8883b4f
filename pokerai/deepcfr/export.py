"""Blueprints: the policy networks of a Deep CFR run, exported alone, and loaded to play (layer 4).

Deep CFR (Brown, Lerer, Gross & Sandholm 2019) plays the *average strategy*,
which the two policy networks (one per seat; seat 0 is the button) approximate.
A training checkpoint also holds the advantage networks, optimiser states and
reservoirs (easily gigabytes); a blueprint keeps only what play needs.

Folder layout (:func:`export_policy`)::

    <out_dir>/policy.npz    the networks as numpy arrays: what play loads, no torch needed
    <out_dir>/policy.pt     the same as a save_checkpoint payload (atomic, SHA-256 checked), for torch users
    <out_dir>/config.yaml   the run's config, for people to read (never read back)

Both files hold the same fields::

    kind                "pokerai-blueprint"
    blueprint_version   1
    config              the DeepCFRConfig as plain dicts (rebuilds the game, encoder and networks;
                        with encoding cards+buckets it holds the card abstraction's whole config)
    iteration           the CFR iteration the networks were trained at
    feature_size        features per information state (hold'em: 373, more with strength or buckets)
    num_slots           action slots of the bet menu
    networks            {"policy_p0": state_dict, "policy_p1": state_dict}
    abstraction_sha256  cards+buckets only: {street: SHA-256 of its bucket table}

``policy.npz`` stores the fields other than ``networks`` as one JSON string
(array ``meta``) and each parameter as a float32 array named
``policy_p0/hidden_layers.0.weight`` and so on; it is written atomically, and the
zip format's CRC-32 of every array catches a corrupt file. ``policy.pt`` stores
CPU float32 tensors. Size: ``≈ 4 × (params per network)`` bytes per network,
about 0.8 MB each with the default hidden sizes (256, 256, 128) and 373 features;
neither file is ever more than :data:`MAX_BLUEPRINT_BYTES` (checked on export).

A :class:`Blueprint` is the loaded folder: the game rebuilt from the config, its
encoder, and both policy networks evaluated with numpy
(:class:`~pokerai.deepcfr.inference.NumpyNetwork`). A ``cards+buckets`` blueprint
finds its card abstraction from the config it holds, wherever it is loaded: in the
abstraction cache, or built there first (:func:`pokerai.abstraction.cache.cached_abstraction`);
tables whose checksums differ from ``abstraction_sha256`` are refused. :meth:`Blueprint.load` reads
``policy.npz`` when it is there and ``policy.pt`` (which needs torch) otherwise;
:func:`write_numpy_policy` adds the ``policy.npz`` of a folder that has only ``policy.pt``.
"""

from __future__ import annotations

import io
import json
import os
import zipfile
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from pokerai.abstraction.isomorphism import STREETS
from pokerai.atomic import write_atomically
from pokerai.config import ConfigError, config_to_dict, dump_config
from pokerai.deepcfr.checkpoint import CheckpointError, load_checkpoint, save_checkpoint
from pokerai.deepcfr.config import DeepCFRConfig, load_deepcfr_config, make_game, make_run_encoder
from pokerai.deepcfr.encoding import Encoder, HUNLEncoder
from pokerai.deepcfr.inference import NumpyNetwork, masked_softmax_numpy, state_dict_arrays
from pokerai.deepcfr.traversal import legal_mask
from pokerai.engine.state import HUNLState
from pokerai.games.holdem import chip_scale, decision_records, decision_view

if TYPE_CHECKING:
    from pokerai.deepcfr.trainer import DeepCFRTrainer

BLUEPRINT_KIND = "pokerai-blueprint"
"""The ``kind`` of every blueprint payload (a training checkpoint has none)."""
BLUEPRINT_VERSION = 1
"""The payload layout written by this code."""
POLICY_FILE = "policy.pt"
NUMPY_POLICY_FILE = "policy.npz"
CONFIG_FILE = "config.yaml"
POLICY_NAMES = ("policy_p0", "policy_p1")
"""The networks a blueprint holds, by seat (0 the button, 1 the big blind)."""
_PAYLOAD_KEYS = frozenset(
    {"kind", "blueprint_version", "config", "iteration", "feature_size", "num_slots", "networks"}
)
MAX_BLUEPRINT_BYTES = 64 * 2**20
"""Asserted bound on an exported blueprint file: a larger one holds more than the policy networks."""
TRAIN_EXTRA = "pip install 'pokerai[train]'"
"""What to install for torch (training, and loading a blueprint that has only ``policy.pt``)."""


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
    state_dicts = {name: _cpu_state_dict(trainer.networks[name]) for name in POLICY_NAMES}
    payload: dict[str, Any] = {
        "kind": BLUEPRINT_KIND,
        "blueprint_version": BLUEPRINT_VERSION,
        "config": config_to_dict(trainer.config),
        "iteration": int(trainer.iteration),
        "feature_size": int(trainer.encoder.feature_size),
        "num_slots": int(trainer.num_slots),
        "networks": state_dicts,
    }
    checksums = _abstraction_checksums(trainer.encoder)
    if checksums is not None:
        payload["abstraction_sha256"] = checksums
    path = save_checkpoint(folder / POLICY_FILE, payload)
    size = path.stat().st_size
    assert size <= MAX_BLUEPRINT_BYTES, f"blueprint {path} is {size} bytes, over {MAX_BLUEPRINT_BYTES}"
    arrays = {name: state_dict_arrays(state) for name, state in state_dicts.items()}
    _save_numpy_policy(folder / NUMPY_POLICY_FILE, {**payload, "networks": arrays})
    (folder / CONFIG_FILE).write_text(dump_config(trainer.config), encoding="utf-8")
    return path


def write_numpy_policy(folder: str | os.PathLike[str]) -> Path:
    """Add ``policy.npz`` beside a blueprint folder's ``policy.pt`` (needs torch); returns its path.

    The networks are copied as they are, so the folder plays the same with or without torch.
    """
    given = Path(folder)
    file = given / POLICY_FILE if given.is_dir() else given
    payload = _read_torch_payload(file)
    networks = payload["networks"]
    arrays = {name: state_dict_arrays(networks[name]) for name in POLICY_NAMES}
    return _save_numpy_policy(file.parent / NUMPY_POLICY_FILE, {**payload, "networks": arrays})


def _abstraction_checksums(encoder: Encoder) -> dict[str, str] | None:
    """The SHA-256 of each bucket table of ``encoder``'s card abstraction by street; None without one."""
    if not isinstance(encoder, HUNLEncoder) or encoder.abstraction is None:
        return None
    streets = encoder.abstraction.metadata["streets"]
    return {name: streets[name]["sha256"] for name in STREETS}


def _cpu_state_dict(network: Any) -> dict[str, Any]:
    return {key: value.detach().to("cpu").clone() for key, value in network.state_dict().items()}


def _save_numpy_policy(path: Path, payload: Mapping[str, Any]) -> Path:
    """Write a ``policy.npz`` (module docstring) atomically (:func:`~pokerai.atomic.write_atomically`)."""
    meta = {key: value for key, value in payload.items() if key != "networks"}
    arrays: dict[str, npt.NDArray[Any]] = {"meta": np.array(json.dumps(meta, sort_keys=True))}
    for name in POLICY_NAMES:
        for key, value in payload["networks"][name].items():
            arrays[f"{name}/{key}"] = np.asarray(value, dtype=np.float32)
    write_atomically(path, lambda stream: np.savez(stream, **arrays))  # type: ignore[arg-type]
    size = path.stat().st_size
    assert size <= MAX_BLUEPRINT_BYTES, f"blueprint {path} is {size} bytes, over {MAX_BLUEPRINT_BYTES}"
    return path


def _read_torch_payload(file: Path) -> dict[str, Any]:
    try:
        import torch  # noqa: F401 - only to say what is missing before load_checkpoint needs it
    except ImportError:
        raise CheckpointError(
            f"blueprint {file} has no {NUMPY_POLICY_FILE}, and reading its {file.name} needs torch: "
            f"{TRAIN_EXTRA}"
        ) from None
    payload = load_checkpoint(file)
    _check_kind(payload, file)
    networks = payload.get("networks")
    if not isinstance(networks, Mapping) or any(name not in networks for name in POLICY_NAMES):
        raise CheckpointError(f"blueprint {file} is incomplete: it lacks the networks {list(POLICY_NAMES)}")
    return dict(payload)


def _read_numpy_payload(file: Path) -> dict[str, Any]:
    """The fields of a ``policy.npz``, networks as ``{name: {parameter: float32 array}}``."""
    try:
        with file.open("rb") as stream:
            if stream.read(2) != b"PK":  # every .npz archive (a zip file) starts so
                raise CheckpointError(f"{file} is not a pokerai blueprint (it is not an .npz archive)")
        with np.load(file, allow_pickle=False) as archive:
            names = list(archive.files)
            if "meta" not in names:
                raise CheckpointError(f"{file} is not a pokerai blueprint (it holds no 'meta' record)")
            meta = json.loads(str(archive["meta"][()]))
            networks: dict[str, dict[str, npt.NDArray[np.float32]]] = {name: {} for name in POLICY_NAMES}
            for key in names:
                network, _, parameter = key.partition("/")
                if network in networks and parameter:
                    networks[network][parameter] = archive[key]
    except CheckpointError:
        raise
    except FileNotFoundError:
        raise CheckpointError(f"blueprint file {file} does not exist") from None
    except (OSError, EOFError, ValueError, KeyError, zipfile.BadZipFile, io.UnsupportedOperation) as error:
        reason = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise CheckpointError(
            f"{file} is not a readable blueprint (corrupt, truncated or another format: {reason})"
        ) from None
    if not isinstance(meta, dict):
        raise CheckpointError(f"{file} is not a pokerai blueprint (its 'meta' record is not a JSON object)")
    _check_kind(meta, file)
    return {**meta, "networks": networks}


def _check_kind(payload: Mapping[str, Any], file: Path) -> None:
    kind = payload.get("kind")
    if kind != BLUEPRINT_KIND:
        if "advantage_buffers" in payload:
            raise CheckpointError(
                f"{file} is a Deep CFR training checkpoint, not a blueprint; export its policy "
                "networks with pokerai.deepcfr.export.export_policy first"
            )
        raise CheckpointError(f"{file} is not a pokerai blueprint (its kind is {kind!r})")


class Blueprint:
    """A playable Deep CFR average strategy: the game, its encoder and one policy network per seat; for
    hold'em, a :class:`~pokerai.games.holdem.Blueprint`.

    Build it with :meth:`load` (an exported folder) or :meth:`from_trainer`
    (a copy of a live trainer's policy networks, no disk round-trip).
    """

    def __init__(
        self,
        config: DeepCFRConfig,
        networks: Mapping[str, NumpyNetwork],
        *,
        iteration: int = 0,
        encoder: Encoder | None = None,
    ) -> None:
        """``encoder``: an encoder of ``config`` to share (a trainer's); None builds one
        (:func:`~pokerai.deepcfr.config.make_run_encoder`)."""
        self.config = config
        self.game: Any = make_game(config)
        """The learning game (a ``HUNLGame`` for hold'em runs; seat 0 is the button)."""
        self.encoder: Encoder = encoder if encoder is not None else make_run_encoder(config, self.game)
        self.num_slots = int(self.game.num_distinct_actions)
        self.iteration = iteration
        missing = [name for name in POLICY_NAMES if name not in networks]
        if missing:
            raise ValueError(f"a blueprint needs the networks {list(POLICY_NAMES)}; missing {missing}")
        self.networks = {name: networks[name] for name in POLICY_NAMES}
        """The policy networks by name (:data:`POLICY_NAMES`), evaluated with numpy."""

    # ------------------------------------------------------------------ construction

    @classmethod
    def from_trainer(cls, trainer: DeepCFRTrainer) -> Blueprint:
        """A snapshot of ``trainer``'s policy networks, copied to numpy (later training leaves it as is).

        It shares the trainer's encoder (and so its card abstraction)."""
        networks = {
            name: NumpyNetwork(
                trainer.encoder.feature_size,
                trainer.num_slots,
                trainer.config.network,
                state_dict_arrays(trainer.networks[name].state_dict()),
            )
            for name in POLICY_NAMES
        }
        return cls(trainer.config, networks, iteration=trainer.iteration, encoder=trainer.encoder)

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Blueprint:
        """Load a blueprint folder, its ``policy.npz`` or its ``policy.pt``.

        A folder, or a ``policy.pt`` with a ``policy.npz`` beside it, loads the
        ``policy.npz`` (numpy only); a ``policy.pt`` alone needs torch. Raises
        :class:`CheckpointError` (a ``ValueError``) with one sentence naming the
        file when it is missing, corrupt, or not a blueprint.
        """
        given = Path(path)
        folder = given if given.is_dir() else given.parent
        if given.is_dir():
            if (given / NUMPY_POLICY_FILE).is_file():
                file = given / NUMPY_POLICY_FILE
            elif (given / POLICY_FILE).is_file():
                file = given / POLICY_FILE
            else:
                raise CheckpointError(
                    f"blueprint folder {given} holds no {NUMPY_POLICY_FILE} or {POLICY_FILE}"
                )
        elif given.name == POLICY_FILE and (folder / NUMPY_POLICY_FILE).is_file():
            file = folder / NUMPY_POLICY_FILE
        else:
            file = given
        if not file.is_file():
            raise CheckpointError(f"blueprint file {file} does not exist")
        if file.suffix == ".npz":
            payload = _read_numpy_payload(file)
        else:
            payload = _read_torch_payload(file)
            payload["networks"] = {
                name: state_dict_arrays(payload["networks"][name]) for name in POLICY_NAMES
            }
        return cls._from_payload(payload, file)

    @classmethod
    def _from_payload(cls, payload: Mapping[str, Any], file: Path) -> Blueprint:
        missing = sorted(_PAYLOAD_KEYS - set(payload))
        if missing:
            raise CheckpointError(f"blueprint {file} is incomplete: it lacks {', '.join(missing)}")
        version = payload.get("blueprint_version")
        if not isinstance(version, int) or not 1 <= version <= BLUEPRINT_VERSION:
            raise CheckpointError(f"blueprint {file} has an unknown version {version!r}")
        try:
            config = load_deepcfr_config(payload["config"])
        except (ConfigError, KeyError, TypeError) as error:
            raise CheckpointError(f"blueprint {file} holds a bad config: {error}") from None
        feature_size, num_slots = int(payload["feature_size"]), int(payload["num_slots"])
        networks: dict[str, NumpyNetwork] = {}
        for name in POLICY_NAMES:
            try:
                networks[name] = NumpyNetwork(
                    feature_size, num_slots, config.network, payload["networks"][name]
                )
            except (KeyError, ValueError) as error:
                reason = str(error).splitlines()[0]
                raise CheckpointError(
                    f"blueprint {file}: network {name} does not fit its config: {reason}"
                ) from None
        blueprint = cls(config, networks, iteration=int(payload["iteration"]))
        if (blueprint.encoder.feature_size, blueprint.num_slots) != (feature_size, num_slots):
            raise CheckpointError(
                f"blueprint {file} was saved for {feature_size} features and "
                f"{num_slots} slots, but its config gives {blueprint.encoder.feature_size} "
                f"and {blueprint.num_slots}"
            )
        checksums = payload.get("abstraction_sha256")
        if checksums is not None and checksums != _abstraction_checksums(blueprint.encoder):
            raise CheckpointError(
                f"blueprint {file} was trained on other bucket tables than those its card abstraction "
                "config gives here (abstraction_sha256 differs; was the cached abstraction built by "
                "another pokerai version?)"
            )
        return blueprint

    # ------------------------------------------------------------------ queries

    def probabilities_batch(
        self, records: npt.NDArray[Any], masks: npt.NDArray[np.bool_], seat: int
    ) -> npt.NDArray[np.float64]:
        """Seat ``seat``'s average strategy at ``[N]`` encoder records with bool masks ``[N, num_slots]``.

        Returns float64 ``[N, num_slots]``: a softmax of the policy logits over the
        legal slots (``trainer.average_strategy`` up to float32 rounding); illegal slots are 0.
        """
        if seat not in (0, 1):
            raise ValueError(f"seat {seat!r} is not 0 (button) or 1 (big blind)")
        masks = np.asarray(masks, dtype=np.bool_)
        if masks.shape != (len(records), self.num_slots):
            raise ValueError(
                f"masks must have shape [{len(records)}, {self.num_slots}], got {list(masks.shape)}"
            )
        logits = self.networks[POLICY_NAMES[seat]](self.encoder.encode(records))
        return masked_softmax_numpy(logits, masks)

    def hand_probabilities(
        self,
        state: HUNLState,
        hands: npt.NDArray[np.int64],
        mask: npt.NDArray[np.bool_],
        boards: npt.NDArray[np.int64] | None = None,
    ) -> npt.NDArray[np.float64]:
        """The average strategy of the player to act at the engine ``state`` of a hold'em blueprint,
        holding each of ``hands`` (int64 ``[H, 2]``), with legal slots ``mask`` (bool ``[num_slots]``):
        float64 ``[H, num_slots]``, 0 on illegal slots; one network call on the decision's records
        (:func:`~pokerai.games.holdem.decision_records`, chips read by
        :func:`~pokerai.games.holdem.chip_scale`). ``boards`` (int64 ``[H, len(state.board)]``, as
        dealt; None: the state's) puts each hand on a board of its own."""
        view = decision_view(state, chip_scale(self.game, state.config))
        records = decision_records(view, hands, boards)
        return self.probabilities_batch(records, np.broadcast_to(mask, (len(records), mask.size)), view.seat)

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


__all__ = [
    "BLUEPRINT_KIND",
    "CONFIG_FILE",
    "MAX_BLUEPRINT_BYTES",
    "NUMPY_POLICY_FILE",
    "POLICY_FILE",
    "Blueprint",
    "export_policy",
    "write_numpy_policy",
]
