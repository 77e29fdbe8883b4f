"""Blueprint export: the policy networks alone, reloaded to give exactly the trainer's average strategy."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

import pokerai.deepcfr.config
from pokerai.deepcfr.checkpoint import CheckpointError, load_checkpoint, save_checkpoint
from pokerai.deepcfr.export import (
    CONFIG_FILE,
    NUMPY_POLICY_FILE,
    POLICY_FILE,
    Blueprint,
    export_policy,
    write_numpy_policy,
)
from pokerai.deepcfr.trainer import DeepCFRTrainer, load_deepcfr_config
from pokerai.games.hunl import HUNLGameState
from tests.archives import foreign_npz
from tests.deepcfr.fake_abstraction import FAKE_CONFIG
from tests.deepcfr.tiny import TINY_HUNL, TINY_HUNL_BUCKETS, tiny_hunl_trainer


def decision_states(trainer: DeepCFRTrainer, hands: int, seed: int = 0) -> list[HUNLGameState]:
    """Every decision of ``hands`` hands played with uniformly random legal slots."""
    rng = np.random.default_rng(seed)
    states = []
    for _ in range(hands):
        state = trainer.game.deal(rng)
        while state.current_player() in (0, 1):
            states.append(state)
            state = state.child(int(rng.choice(state.legal_actions())))
    return states


def test_export_writes_a_small_self_contained_folder(
    hunl_trainer: DeepCFRTrainer, hunl_blueprint_dir: Path
) -> None:
    policy = hunl_blueprint_dir / POLICY_FILE
    assert policy.is_file() and (hunl_blueprint_dir / CONFIG_FILE).is_file()
    assert load_deepcfr_config(hunl_blueprint_dir / CONFIG_FILE) == hunl_trainer.config
    parameters = sum(
        parameter.numel()
        for name in ("policy_p0", "policy_p1")
        for parameter in hunl_trainer.networks[name].parameters()
    )
    # float32 parameters plus framing and config; far less than a training checkpoint with reservoirs.
    assert policy.stat().st_size < 4 * parameters + 64 * 1024
    assert policy.stat().st_size < hunl_trainer.save().stat().st_size


def test_loaded_blueprint_plays_the_trainers_average_strategy(
    hunl_trainer: DeepCFRTrainer, hunl_blueprint_dir: Path
) -> None:
    for given in (hunl_blueprint_dir, hunl_blueprint_dir / POLICY_FILE, str(hunl_blueprint_dir)):
        blueprint = Blueprint.load(given)
        assert blueprint.iteration == hunl_trainer.iteration
        assert blueprint.config == hunl_trainer.config
    states = decision_states(hunl_trainer, hands=25)
    streets = {(state.current_player(), state.street) for state in states}
    assert {0, 1} == {seat for seat, _ in streets} and len({street for _, street in streets}) >= 2
    for state in states:
        seat = state.current_player()
        probabilities = blueprint.probabilities(state)
        records = np.array(
            [hunl_trainer.encoder.record(state, seat)], dtype=hunl_trainer.encoder.record_dtype
        )
        expected = hunl_trainer.average_strategy(seat, records, np.array([state.legal_mask()]))[0]
        assert probabilities.dtype == np.float64 and probabilities.shape == (hunl_trainer.num_slots,)
        np.testing.assert_allclose(probabilities, expected, rtol=0, atol=1e-6)
        assert np.all(probabilities[~state.legal_mask()] == 0.0)
        assert probabilities.sum() == pytest.approx(1.0)


def test_batched_probabilities_match_single_ones(
    hunl_trainer: DeepCFRTrainer, hunl_blueprint_dir: Path
) -> None:
    blueprint = Blueprint.load(hunl_blueprint_dir)
    states = [
        state for state in decision_states(hunl_trainer, hands=10, seed=1) if state.current_player() == 1
    ]
    records = np.array(
        [blueprint.encoder.record(state, 1) for state in states], dtype=blueprint.encoder.record_dtype
    )
    masks = np.stack([state.legal_mask() for state in states])
    batch = blueprint.probabilities_batch(records, masks, 1)
    np.testing.assert_allclose(
        batch, np.stack([blueprint.probabilities(state) for state in states]), atol=1e-6
    )
    with pytest.raises(ValueError, match="seat 2"):
        blueprint.probabilities_batch(records, masks, 2)
    with pytest.raises(ValueError, match="masks must have shape"):
        blueprint.probabilities_batch(records, masks[:, :2], 0)


def test_from_trainer_is_a_snapshot(hunl_trainer: DeepCFRTrainer, hunl_blueprint_dir: Path) -> None:
    snapshot = Blueprint.from_trainer(hunl_trainer)
    loaded = Blueprint.load(hunl_blueprint_dir)
    state = decision_states(hunl_trainer, hands=1, seed=2)[0]
    before = snapshot.probabilities(state)
    np.testing.assert_array_equal(before, loaded.probabilities(state))
    network = hunl_trainer.networks["policy_p0"]
    saved = {key: value.clone() for key, value in network.state_dict().items()}
    try:
        with torch.no_grad():
            for parameter in network.parameters():
                parameter.add_(1.0)
        np.testing.assert_array_equal(snapshot.probabilities(state), before)
    finally:
        network.load_state_dict(saved)


def test_untrained_policies_are_not_exported(tmp_path: Path) -> None:
    fresh = DeepCFRTrainer(load_deepcfr_config(TINY_HUNL), tmp_path / "run")
    with pytest.raises(ValueError, match="train_policies"):
        export_policy(fresh, tmp_path / "blueprint")
    assert not (tmp_path / "blueprint").exists()


def test_bad_blueprints_are_refused_with_one_sentence(
    hunl_trainer: DeepCFRTrainer, hunl_blueprint_dir: Path, tmp_path: Path
) -> None:
    with pytest.raises(CheckpointError, match="does not exist"):
        Blueprint.load(tmp_path / "nowhere.pt")
    (tmp_path / "empty").mkdir()
    with pytest.raises(CheckpointError, match=r"holds no policy\.npz or policy\.pt"):
        Blueprint.load(tmp_path / "empty")
    corrupt = tmp_path / "corrupt.pt"
    data = bytearray((hunl_blueprint_dir / POLICY_FILE).read_bytes())
    data[-10] ^= 0xFF
    corrupt.write_bytes(bytes(data))
    with pytest.raises(CheckpointError, match="corrupt"):
        Blueprint.load(corrupt)
    with pytest.raises(CheckpointError, match="training checkpoint, not a blueprint"):
        Blueprint.load(hunl_trainer.save(tmp_path / "checkpoint.pt"))
    with pytest.raises(CheckpointError, match="not a pokerai blueprint"):
        Blueprint.load(save_checkpoint(tmp_path / "other.pt", {"kind": "something"}))
    with pytest.raises(CheckpointError, match="lacks"):
        Blueprint.load(save_checkpoint(tmp_path / "partial.pt", {"kind": "pokerai-blueprint"}))


def test_export_writes_a_numpy_policy_that_play_loads_first(
    hunl_trainer: DeepCFRTrainer, hunl_blueprint_dir: Path
) -> None:
    numpy_policy = hunl_blueprint_dir / NUMPY_POLICY_FILE
    assert numpy_policy.is_file()
    parameters = sum(
        parameter.numel()
        for name in ("policy_p0", "policy_p1")
        for parameter in hunl_trainer.networks[name].parameters()
    )
    assert numpy_policy.stat().st_size < 4 * parameters + 64 * 1024
    from_npz = Blueprint.load(numpy_policy)
    from_pt_alone = Blueprint.load(_only_torch_file(hunl_blueprint_dir, hunl_trainer))
    for state in decision_states(hunl_trainer, hands=5, seed=4):
        np.testing.assert_array_equal(from_npz.probabilities(state), from_pt_alone.probabilities(state))


def _only_torch_file(hunl_blueprint_dir: Path, hunl_trainer: DeepCFRTrainer) -> Path:
    """A copy of the blueprint's policy.pt in a folder of its own (no policy.npz beside it)."""
    alone = hunl_blueprint_dir.parent / f"{hunl_blueprint_dir.name}-pt-only"
    alone.mkdir(exist_ok=True)
    target = alone / POLICY_FILE
    target.write_bytes((hunl_blueprint_dir / POLICY_FILE).read_bytes())
    return target


def test_write_numpy_policy_adds_the_npz_of_a_torch_only_folder(
    hunl_trainer: DeepCFRTrainer, hunl_blueprint_dir: Path
) -> None:
    torch_only = _only_torch_file(hunl_blueprint_dir, hunl_trainer)
    written = write_numpy_policy(torch_only.parent)
    assert written == torch_only.parent / NUMPY_POLICY_FILE
    assert written.read_bytes() != b""
    state = decision_states(hunl_trainer, hands=1, seed=5)[0]
    np.testing.assert_array_equal(
        Blueprint.load(written).probabilities(state), Blueprint.load(hunl_blueprint_dir).probabilities(state)
    )


def test_bad_numpy_blueprints_are_refused_with_one_sentence(hunl_blueprint_dir: Path, tmp_path: Path) -> None:
    data = bytearray((hunl_blueprint_dir / NUMPY_POLICY_FILE).read_bytes())
    truncated = tmp_path / "truncated.npz"
    truncated.write_bytes(bytes(data[: len(data) // 2]))
    flipped = tmp_path / "flipped.npz"
    data[len(data) // 2] ^= 0xFF  # inside an array's bytes: the zip member's CRC-32 no longer matches
    flipped.write_bytes(bytes(data))
    for bad in (truncated, flipped):
        with pytest.raises(CheckpointError, match="not a readable blueprint") as error:
            Blueprint.load(bad)
        assert "\n" not in str(error.value)
    text = tmp_path / "README.npz"
    text.write_text("# not a blueprint\n")
    with pytest.raises(CheckpointError, match=r"not a pokerai blueprint \(it is not an \.npz archive\)"):
        Blueprint.load(text)
    for other in (
        foreign_npz(tmp_path / "other.npz", meta=np.array('{"kind": "something"}')),
        foreign_npz(tmp_path / "no_meta.npz", weights=np.zeros(3)),
    ):
        with pytest.raises(CheckpointError, match="not a pokerai blueprint"):
            Blueprint.load(other)


def test_blueprints_without_buckets_load_no_abstraction(
    hunl_blueprint_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(config: object) -> None:
        raise AssertionError("a cards+strength blueprint loaded a card abstraction")

    monkeypatch.setattr(pokerai.deepcfr.config, "shared_abstraction", refuse)
    assert Blueprint.load(hunl_blueprint_dir).encoder.feature_size == 373


def test_a_bucket_blueprint_plays_the_same_from_any_working_directory(
    tmp_path: Path, fake_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    trainer = tiny_hunl_trainer(tmp_path / "run", TINY_HUNL_BUCKETS)
    folder = export_policy(trainer, tmp_path / "blueprint").parent
    payload = load_checkpoint(folder / POLICY_FILE)
    assert payload["feature_size"] == 391 and set(payload["abstraction_sha256"]) == {
        "preflop",
        "flop",
        "turn",
        "river",
    }
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    snapshot = Blueprint.from_trainer(trainer)
    assert snapshot.encoder is trainer.encoder
    loaded = [Blueprint.load(folder), Blueprint.load(_only_torch_file(folder, trainer))]
    for blueprint in loaded:
        assert blueprint.config == trainer.config and blueprint.config.abstraction == FAKE_CONFIG
        # The abstraction is read once per process and shared.
        assert blueprint.encoder.abstraction is trainer.encoder.abstraction  # type: ignore[attr-defined]
    states = decision_states(trainer, hands=25, seed=6)
    assert {state.street for state in states} >= {0, 1, 2}
    for state in states:
        expected = snapshot.probabilities(state)
        for blueprint in loaded:
            np.testing.assert_array_equal(blueprint.probabilities(state), expected)
        seat = state.current_player()
        records = np.array([trainer.encoder.record(state, seat)], dtype=trainer.encoder.record_dtype)
        average = trainer.average_strategy(seat, records, np.array([state.legal_mask()]))[0]
        np.testing.assert_allclose(expected, average, rtol=0, atol=1e-6)
    payload["abstraction_sha256"]["river"] = "0" * 64
    with pytest.raises(CheckpointError, match="abstraction_sha256 differs"):
        Blueprint.load(save_checkpoint(tmp_path / "other_tables.pt", payload))
