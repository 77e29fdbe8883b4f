"""The Deep CFR loop end to end on Leduc and HUNL (seconds), and exact resumption from a checkpoint."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from pokerai.abstraction.buckets import load_abstraction_config
from pokerai.config import ConfigError, config_to_dict, dump_config
from pokerai.deepcfr.checkpoint import CheckpointError, load_checkpoint, save_checkpoint
from pokerai.deepcfr.encoding import LEDUC_NO_ACTION
from pokerai.deepcfr.export import Blueprint
from pokerai.deepcfr.networks import regret_matching_numpy
from pokerai.deepcfr.reservoir import unpack_masks
from pokerai.deepcfr.trainer import (
    CHECKPOINT_NAME,
    DeepCFRTrainer,
    _buffer_payload,
    _GroupedBatches,
    _iteration_weights,
    decision_pots,
    load_deepcfr_config,
    policy_exploitability,
    pot_normalised_targets,
    replace,
    training_loss,
)
from pokerai.games.holdem import NOT_DEALT
from tests.deepcfr.fake_abstraction import FAKE_CONFIG
from tests.deepcfr.tiny import TINY_HUNL_BUCKETS, small_run

ROOT = Path(__file__).resolve().parents[2]

TINY = small_run(
    "leduc", iterations=3, traversals=40, hidden=[16, 16], steps=5, batch_size=64, capacity=500,
    evaluate_every=2, name="test", seed=3,
)  # fmt: skip


class Stop(Exception):
    """Raised from a callback to interrupt a run, as a crash would."""


def outputs(trainer: DeepCFRTrainer) -> dict[str, torch.Tensor]:
    features = torch.linspace(-1, 1, 8 * trainer.encoder.feature_size).reshape(8, -1)
    with torch.inference_mode():
        return {name: network(features) for name, network in trainer.networks.items()}


def test_a_tiny_leduc_run_logs_evaluates_and_checkpoints(tmp_path: Path) -> None:
    trainer = DeepCFRTrainer(load_deepcfr_config(TINY), tmp_path)
    logged: list[tuple[int, dict[str, float]]] = []
    final = trainer.train(
        evaluator=lambda t: {"eval/exploitability": policy_exploitability(t)},
        log=lambda t, s: logged.append((t, s)),
    )
    assert [t for t, _ in logged] == [1, 2, 3]
    assert {"loss/advantage_p0", "loss/advantage_p1", "buffer/size_p0", "perf/traversals_per_s"} <= set(final)
    assert "eval/exploitability" in logged[1][1] and "eval/exploitability" in final
    assert 0 < final["eval/exploitability"] < 4.75  # below the worst possible, finite
    assert (tmp_path / CHECKPOINT_NAME).is_file()
    assert len(trainer.advantage_buffers[0]) == min(500, trainer.advantage_buffers[0].seen) > 0


GROUPED = {
    "advantage": {**TINY["advantage"], "grouped": True},
    "policy": {**TINY["policy"], "grouped": True},
}


@pytest.mark.parametrize(
    ("chance", "grouped"), [("sample", False), ("enumerate", False), ("enumerate", True)]
)
def test_resume_continues_bit_identically(tmp_path: Path, chance: str, grouped: bool) -> None:
    config = load_deepcfr_config(
        {**TINY, "chance": chance, "traversals_per_iteration": 40 if chance == "sample" else 1,
         **(GROUPED if grouped else {})}
    )  # fmt: skip
    straight = DeepCFRTrainer(config, tmp_path / "straight")
    straight.train()

    interrupted = DeepCFRTrainer(config, tmp_path / "interrupted")

    def stop_after_two(t: int, scalars: dict[str, float]) -> None:
        if t == 2:
            raise Stop

    with pytest.raises(Stop):
        interrupted.train(on_iteration=stop_after_two)
    resumed = DeepCFRTrainer.resume(tmp_path / "interrupted")
    assert resumed.iteration == 2
    resumed.train()

    for name, tensor in outputs(straight).items():
        assert torch.equal(tensor, outputs(resumed)[name]), name
    for a, b in zip(straight.advantage_buffers + straight.strategy_buffers,
                    resumed.advantage_buffers + resumed.strategy_buffers, strict=True):  # fmt: skip
        assert a.seen == b.seen
        assert np.array_equal(a.contents(), b.contents())
        if grouped:
            for x, y in zip(a.groups(), b.groups(), strict=True):
                assert np.array_equal(x, y)


def test_checkpoints_hold_reservoirs_without_a_copy_and_read_the_earlier_bytes_layout(
    tmp_path: Path,
) -> None:
    trainer = DeepCFRTrainer(load_deepcfr_config({**TINY, "iterations": 2, **GROUPED}), tmp_path / "run")
    trainer.train()
    buffer = trainer.advantage_buffers[0]
    payload = _buffer_payload(buffer)
    # The saved rows are a tensor over the reservoir's own memory: saving needs no second copy.
    assert isinstance(payload["rows"], torch.Tensor)
    assert np.shares_memory(payload["rows"].numpy(), buffer.state_dict(copy=False)["rows"])

    # Checkpoints written before held the rows and group arrays as bytes; they still resume exactly.
    state = load_checkpoint(tmp_path / "run" / CHECKPOINT_NAME)
    for saved in state["advantage_buffers"] + state["strategy_buffers"]:
        saved["rows"] = saved["rows"].numpy().tobytes()
        for name in ("keys", "count", "weight", "target"):
            saved["groups"][name] = saved["groups"][name].numpy().tobytes()
    save_checkpoint(tmp_path / "old" / CHECKPOINT_NAME, state)
    resumed = DeepCFRTrainer.resume(tmp_path / "old")
    for a, b in zip(trainer.advantage_buffers + trainer.strategy_buffers,
                    resumed.advantage_buffers + resumed.strategy_buffers, strict=True):  # fmt: skip
        assert np.array_equal(a.contents(), b.contents())
        for x, y in zip(a.groups(), b.groups(), strict=True):
            assert np.array_equal(x, y)


@pytest.mark.parametrize("policy", [False, True])
def test_grouped_training_follows_the_whole_reservoirs_gradient(tmp_path: Path, policy: bool) -> None:
    """``grouped: true`` trains on each distinct information state once, with its rows' total weight and
    weighted-mean target: the gradient is the one of the loss over every stored row (no sampling)."""
    trainer = DeepCFRTrainer(load_deepcfr_config({**TINY, "iterations": 3, **GROUPED}), tmp_path)
    for _ in range(3):
        trainer.run_iteration()
    buffer = (trainer.strategy_buffers if policy else trainer.advantage_buffers)[0]
    network = trainer.networks["policy_p0" if policy else "advantage_p0"]
    rows = buffer.contents()
    assert len(np.unique(rows["iteration"])) == 3 and len(buffer.groups()[0]) < len(rows) / 2

    def gradient(features: torch.Tensor, mask: Any, target: Any, weights: Any) -> torch.Tensor:
        network.zero_grad()
        training_loss(network(features), target, mask, weights, policy).backward()
        return torch.cat([p.grad.flatten() for p in network.parameters() if p.grad is not None])

    everything = gradient(
        trainer.features(rows["info"]),
        torch.from_numpy(unpack_masks(rows["mask"], buffer.num_slots)),
        torch.from_numpy(rows["target"].copy()),
        torch.from_numpy(_iteration_weights(rows["iteration"], 1.0)),
    )
    grouped = gradient(*_GroupedBatches(trainer, buffer, batch_size=10**6).batch())
    assert everything.abs().max() > 1e-4
    torch.testing.assert_close(grouped, everything, rtol=1e-4, atol=1e-6)
    # With fewer groups per batch than the table holds, each step draws a subset of the groups.
    subset = _GroupedBatches(trainer, buffer, batch_size=5).batch()
    assert subset[0].shape[0] == 5


@pytest.mark.parametrize(
    ("encoding", "features", "all_in_equity", "terminal_responses"),
    [
        ("cards", 373, False, "sample"),
        ("cards+strength", 384, False, "sample"),
        ("cards+strength", 384, True, "sample"),
        ("cards+strength", 384, False, "expected"),
    ],
)
def test_a_tiny_hunl_run(
    tmp_path: Path, encoding: str, features: int, all_in_equity: bool, terminal_responses: str
) -> None:
    config = load_deepcfr_config(
        {**TINY, "game": "hunl", "iterations": 1, "traversals_per_iteration": 8, "encoding": encoding,
         "all_in_equity": all_in_equity, "terminal_responses": terminal_responses}
    )  # fmt: skip
    trainer = DeepCFRTrainer(config, tmp_path)
    scalars = trainer.train()
    assert trainer.encoder.feature_size == features
    assert scalars["buffer/size_p0"] > 0 and scalars["perf/nodes_per_s_p0"] > 0
    blueprint = Blueprint.from_trainer(trainer)
    state = trainer.game.deal(np.random.default_rng(0))
    assert blueprint.encoder.feature_size == features
    assert blueprint.probabilities(state).sum() == pytest.approx(1.0)


@pytest.mark.parametrize("game", ["leduc", "hunl"])
def test_pot_normalised_targets_divide_each_decision_by_its_pot_and_keep_its_strategy(
    tmp_path: Path, game: str
) -> None:
    """advantage_pot_power: player 0's first traversals (both strategies uniform) fill its buffer with
    the same samples as without the key, each row divided by (pot / value_scale) ** power of its own
    decision, and regret matching gives the same strategy."""
    settings = {**TINY, "game": game, "iterations": 1, "traversals_per_iteration": 8, "value_scale": 4.0}
    plain = DeepCFRTrainer(load_deepcfr_config(settings), tmp_path / "plain")
    scaled = DeepCFRTrainer(
        load_deepcfr_config({**settings, "advantage_pot_power": 0.5}), tmp_path / "scaled"
    )
    plain.run_iteration()
    scaled.run_iteration()
    before = plain.advantage_buffers[0].contents()
    after = scaled.advantage_buffers[0].contents()
    assert len(before) > 10 and np.array_equal(before["info"], after["info"])
    pots = decision_pots(before["info"])
    info = before["info"]
    if game == "hunl":  # the chips that have left both stacks (20,000 each at the start)
        np.testing.assert_array_equal(pots, 40000 - info["own_stack"] - info["opponent_stack"])
        assert set(pots.tolist()) >= {150.0} and pots.max() > 150.0  # preflop and raised pots
    else:  # Leduc: the antes (1 each) at the first decision, at most 13 chips each at any
        first = (info["board"] == NOT_DEALT) & (info["actions"] == LEDUC_NO_ACTION).all(axis=(1, 2))
        assert first.any() and (pots[first] == 2).all()
        assert pots.max() > 2 and pots.max() <= 26
    expected = before["target"] / np.sqrt(pots / 4.0)[:, np.newaxis]
    np.testing.assert_allclose(after["target"], expected, rtol=1e-6, atol=1e-6)
    masks = unpack_masks(before["mask"], plain.num_slots)
    np.testing.assert_allclose(
        regret_matching_numpy(after["target"], masks),
        regret_matching_numpy(before["target"], masks),
        atol=1e-6,
    )
    # Power 1 gives regrets in pots; power 0 leaves the targets alone.
    records = before["info"][:3]
    targets = before["target"][:3]
    np.testing.assert_allclose(
        pot_normalised_targets(records, targets, 4.0, 1.0) * decision_pots(records)[:, np.newaxis],
        targets * 4.0,
        rtol=1e-6,
    )
    assert pot_normalised_targets(records, targets, 4.0, 0.0) is targets


def test_corrupt_checkpoints_and_bad_configs_are_refused(tmp_path: Path) -> None:
    trainer = DeepCFRTrainer(load_deepcfr_config({**TINY, "iterations": 1}), tmp_path)
    trainer.train()
    path = tmp_path / CHECKPOINT_NAME
    path.write_bytes(path.read_bytes()[:-100])
    with pytest.raises(CheckpointError):
        DeepCFRTrainer.resume(tmp_path)
    with pytest.raises(ConfigError, match="unknown key 'iteratons'"):
        load_deepcfr_config({"iteratons": 3})
    with pytest.raises(ConfigError, match=r"advantage\.batch_size: must be at least 1"):
        load_deepcfr_config({"advantage": {"batch_size": 0}})
    with pytest.raises(ConfigError, match="game"):
        load_deepcfr_config({"game": "chess"})
    with pytest.raises(ConfigError, match="terminal_responses"):
        load_deepcfr_config({"terminal_responses": "exact"})
    with pytest.raises(ConfigError, match="encoding: 'cards\\+strength' is for hold'em"):
        load_deepcfr_config({"game": "leduc", "encoding": "cards+strength"})
    with pytest.raises(ConfigError, match="encoding"):
        load_deepcfr_config({"game": "hunl", "encoding": "pixels"})
    with pytest.raises(ConfigError, match="chance: 'enumerate' is for small games"):
        load_deepcfr_config({"game": "hunl", "chance": "enumerate"})
    with pytest.raises(ConfigError, match="chance"):
        load_deepcfr_config({"chance": "all"})
    with pytest.raises(ConfigError, match="advantage_pot_power: must be at most 1"):
        load_deepcfr_config({"advantage_pot_power": 1.5})
    with pytest.raises(ConfigError, match="advantage_pot_power: must be at least 0"):
        load_deepcfr_config({"advantage_pot_power": -0.5})
    with pytest.raises(ConfigError, match="all_in_equity: is for hold'em"):
        load_deepcfr_config({"game": "leduc", "all_in_equity": True})
    with pytest.raises(ConfigError, match=r"policy\.grouped"):
        load_deepcfr_config({"policy": {"grouped": "yes please"}})
    with pytest.raises(ConfigError, match=r"advantage\.grouped"):
        load_deepcfr_config({"advantage": {"grouped": 2}})
    with pytest.raises(ConfigError, match=r"advantage\.weight_exponent: must be at least 0"):
        load_deepcfr_config({"advantage": {"weight_exponent": -1}})


def test_iteration_weights() -> None:
    iterations = np.array([1, 2, 4], dtype=np.int64)
    np.testing.assert_allclose(_iteration_weights(iterations, 1.0), [0.25, 0.5, 1.0])  # linear CFR
    np.testing.assert_allclose(_iteration_weights(iterations, 2.0), [1 / 16, 1 / 4, 1.0])
    np.testing.assert_allclose(_iteration_weights(iterations, 0.0), [1.0, 1.0, 1.0])
    # Late iterations to a high power stay finite (normalised by the batch's latest).
    assert np.isfinite(_iteration_weights(np.array([10**6, 2 * 10**6]), 3.0)).all()


def test_mixed_precision_trains_in_bfloat16_and_keeps_float32_weights(tmp_path: Path) -> None:
    """``mixed_precision``: the forward passes run under bfloat16 autocast, the weights stay float32,
    and the networks still fit their targets (the loss falls)."""
    settings = {**TINY, "iterations": 1, "advantage": {**TINY["advantage"], "steps": 60}}
    plain = DeepCFRTrainer(load_deepcfr_config(settings), tmp_path / "fp32")
    mixed = DeepCFRTrainer(load_deepcfr_config({**settings, "mixed_precision": True}), tmp_path / "bf16")
    seen: list[torch.dtype] = []
    hook = mixed.networks["advantage_p0"].register_forward_hook(lambda m, i, o: seen.append(o.dtype))
    losses = {}
    for name, trainer in (("fp32", plain), ("bf16", mixed)):
        trainer.run_iteration()
        buffer = trainer.advantage_buffers[0]
        first = trainer._fit(
            "advantage_p0", buffer, dataclasses.replace(trainer.config.advantage, steps=1), False
        )
        last = trainer._fit("advantage_p0", buffer, trainer.config.advantage, False)
        losses[name] = (first, last)
    hook.remove()
    assert torch.bfloat16 in seen
    assert all(p.dtype == torch.float32 for p in mixed.networks["advantage_p0"].parameters())
    for first, last in losses.values():
        assert np.isfinite(last) and last < first
    # Same samples (the traversal is unaffected); the two losses agree to bfloat16 precision.
    assert losses["bf16"][1] == pytest.approx(losses["fp32"][1], rel=0.25)


def test_learning_rate_decay_runs_linearly_to_zero_within_each_training(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    trainer = DeepCFRTrainer(load_deepcfr_config({**TINY, "iterations": 1}), tmp_path)
    trainer.run_iteration()
    used: list[float] = []
    step = torch.optim.Adam.step

    def recording_step(self: torch.optim.Adam, *args: Any, **kwargs: Any) -> Any:
        used.append(self.param_groups[0]["lr"])
        return step(self, *args, **kwargs)

    monkeypatch.setattr(torch.optim.Adam, "step", recording_step)
    buffer = trainer.strategy_buffers[1]
    for decay in (True, False, True):  # each training starts again from the full rate
        settings = dataclasses.replace(
            trainer.config.policy, steps=4, learning_rate=0.01, learning_rate_decay=decay
        )
        trainer._fit("policy_p1", buffer, settings, True)
    assert used == pytest.approx(
        [0.01, 0.0075, 0.005, 0.0025, 0.01, 0.01, 0.01, 0.01, 0.01, 0.0075, 0.005, 0.0025]
    )


def test_a_config_file_must_give_its_game_and_iterations(tmp_path: Path) -> None:
    path = tmp_path / "run.yaml"
    path.write_text("name: mine\nseed: 2\n")
    with pytest.raises(ConfigError, match=r"run\.yaml: required keys missing: game, iterations$"):
        load_deepcfr_config(path)
    path.write_text("game: leduc\niterations: 5\n")
    assert load_deepcfr_config(str(path)).iterations == 5
    # A mapping built in code (a test, a checkpoint, replace()) may leave any key to its default.
    assert load_deepcfr_config({"seed": 2}).iterations == 100


def test_the_bucket_encoding_holds_its_abstraction_config_itself(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A config names the abstraction config by path; loading puts that config in its place, so what a
    run writes (run folder, checkpoint, blueprint) loads again from any working directory."""
    (tmp_path / "fake.yaml").write_text(dump_config(FAKE_CONFIG))
    monkeypatch.chdir(tmp_path)
    settings = {"game": "hunl", "iterations": 2, "encoding": "cards+buckets", "abstraction": "fake.yaml"}
    config = load_deepcfr_config(settings)
    assert config.abstraction == FAKE_CONFIG
    written = tmp_path / "run.yaml"
    written.write_text(dump_config(config))
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    assert load_deepcfr_config(written) == config
    assert load_deepcfr_config(config_to_dict(config)) == config
    assert replace(config, iterations=3).abstraction == FAKE_CONFIG


def test_bad_abstraction_settings_are_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "fake.yaml").write_text(dump_config(FAKE_CONFIG))
    (tmp_path / "bad.yaml").write_text("flop:\n  buckets: ten\n")
    hunl = {"game": "hunl", "encoding": "cards+buckets"}
    with pytest.raises(ConfigError, match=r"^abstraction: encoding 'cards\+buckets' needs a card"):
        load_deepcfr_config(hunl)
    with pytest.raises(ConfigError, match=r"^abstraction: only encoding 'cards\+buckets' uses a card"):
        load_deepcfr_config({"game": "hunl", "encoding": "cards", "abstraction": "fake.yaml"})
    with pytest.raises(ConfigError, match=r"encoding: 'cards\+buckets' is for hold'em"):
        load_deepcfr_config({"game": "leduc", "encoding": "cards+buckets", "abstraction": "fake.yaml"})
    with pytest.raises(ConfigError, match=r"^abstraction: config file nowhere\.yaml does not exist \(a"):
        load_deepcfr_config({**hunl, "abstraction": "nowhere.yaml"})
    with pytest.raises(ConfigError, match=r"^abstraction: bad\.yaml: flop\.buckets: expected an integer"):
        load_deepcfr_config({**hunl, "abstraction": "bad.yaml"})
    with pytest.raises(ConfigError, match=r"^abstraction: flop\.buckets: must be at least 1"):
        load_deepcfr_config({**hunl, "abstraction": {"flop": {"buckets": 0}}})
    run = tmp_path / "run.yaml"
    run.write_text("game: hunl\niterations: 1\nencoding: cards+buckets\nabstraction: nowhere.yaml\n")
    with pytest.raises(ConfigError, match=r"run\.yaml: abstraction: config file nowhere\.yaml does not"):
        load_deepcfr_config(run)


def test_the_shipped_buckets_config_is_hunl_tiny_with_bucket_features(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(ROOT)
    buckets = load_deepcfr_config(Path("configs/hunl_tiny_buckets.yaml"))
    assert buckets.abstraction == load_abstraction_config(Path("configs/abstraction_tiny.yaml"))
    plain = load_deepcfr_config(Path("configs/hunl_tiny.yaml"))
    assert dataclasses.replace(buckets, name=plain.name, encoding=plain.encoding, abstraction=None) == plain


def test_resume_keeps_the_bucket_encoding(
    tmp_path: Path, fake_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = load_deepcfr_config({**TINY_HUNL_BUCKETS, "iterations": 2})
    straight = DeepCFRTrainer(config, tmp_path / "straight")
    straight.train()
    assert straight.encoder.feature_size == 391
    interrupted = DeepCFRTrainer(config, tmp_path / "interrupted")

    def stop_after_one(t: int, scalars: dict[str, float]) -> None:
        raise Stop

    with pytest.raises(Stop):
        interrupted.train(on_iteration=stop_after_one)
    monkeypatch.chdir(tmp_path / "straight")  # the checkpoint holds the abstraction config, not a path
    resumed = DeepCFRTrainer.resume(tmp_path / "interrupted")
    assert resumed.iteration == 1 and resumed.config == config
    assert resumed.encoder.describe() == straight.encoder.describe()
    resumed.train()
    for name, tensor in outputs(straight).items():
        assert torch.equal(tensor, outputs(resumed)[name]), name
