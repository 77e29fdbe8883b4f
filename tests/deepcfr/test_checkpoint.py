"""Checkpoints: exact round trips and resumption, refusal of damaged files, atomic writes."""

from __future__ import annotations

import hashlib
import io
import json
import os
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np
import pytest
import torch

from pokerai.deepcfr import checkpoint
from pokerai.deepcfr.checkpoint import (
    FORMAT_VERSION,
    CheckpointError,
    load_checkpoint,
    restore_rng_states,
    rng_states,
    save_checkpoint,
)
from pokerai.deepcfr.networks import NetworkConfig, build_networks

CONFIG = NetworkConfig(hidden_sizes=(16, 8))
FEATURES = 12
SLOTS = 4


def inputs() -> torch.Tensor:
    return torch.randn(5, FEATURES, generator=torch.Generator().manual_seed(123))


def trained_run() -> tuple[dict[str, torch.nn.Module], torch.optim.Optimizer]:
    """Networks after two Adam steps, so the optimiser holds real moment estimates."""
    networks = build_networks(FEATURES, SLOTS, CONFIG, seed=7)
    network = networks["advantage_p0"]
    optimizer = torch.optim.Adam(network.parameters(), lr=0.01)
    for _ in range(2):
        optimizer.zero_grad()
        network(inputs()).square().mean().backward()
        optimizer.step()
    return networks, optimizer


def small_payload() -> dict[str, Any]:
    return {"iteration": 3, "values": torch.arange(100, dtype=torch.float32), "note": "small"}


# ---------------------------------------------------------------------------- round trip


def test_round_trip_resumes_bit_identically(tmp_path: Path) -> None:
    networks, optimizer = trained_run()
    numpy_generators = {
        "traversal": np.random.default_rng(11),
        "mt": np.random.Generator(np.random.MT19937(12)),
        "philox": np.random.Generator(np.random.Philox(13)),
        "sfc": np.random.Generator(np.random.SFC64(14)),
    }
    torch_generators = {"sampling": torch.Generator().manual_seed(15)}
    for generator in numpy_generators.values():
        generator.random(3)  # advance past the seed so the state is not trivially re-derivable
    torch.rand(3, generator=torch_generators["sampling"])
    reservoir = np.arange(24, dtype=np.int16).reshape(4, 6)
    payload = {
        "format_note": "test",
        "iteration": 42,
        "learning_rate": 0.001,
        "config": {"hidden_sizes": [16, 8], "activation": "relu", "limit": None, "flag": True},
        "networks": {name: network.state_dict() for name, network in networks.items()},
        "optimizer": optimizer.state_dict(),
        "reservoir": torch.from_numpy(reservoir),
        "rng": rng_states(numpy_generators, torch_generators),
        "raw": b"\x00\xff",
        "pair": (1, 2),
    }
    path = save_checkpoint(tmp_path / "run" / "checkpoint.pt", payload)
    assert path == tmp_path / "run" / "checkpoint.pt"

    # What the saving run would have drawn next.
    expected_numpy = {name: generator.random(4) for name, generator in numpy_generators.items()}
    expected_torch = torch.rand(4, generator=torch_generators["sampling"])

    loaded = load_checkpoint(path)
    assert loaded.keys() == payload.keys()
    assert loaded["iteration"] == 42 and loaded["learning_rate"] == 0.001
    assert loaded["config"] == payload["config"]
    assert loaded["raw"] == b"\x00\xff" and loaded["pair"] == (1, 2)
    assert np.array_equal(loaded["reservoir"].numpy(), reservoir)
    assert loaded["reservoir"].numpy().dtype == np.int16

    resumed = build_networks(FEATURES, SLOTS, CONFIG, seed=999)  # different weights until restored
    for name, network in resumed.items():
        network.load_state_dict(loaded["networks"][name])
        assert torch.equal(network(inputs()), networks[name](inputs())), name
    resumed_optimizer = torch.optim.Adam(resumed["advantage_p0"].parameters(), lr=0.01)
    resumed_optimizer.load_state_dict(loaded["optimizer"])
    # One more step on both runs: identical optimiser state gives identical weights.
    for network, step_optimizer in (
        (networks["advantage_p0"], optimizer),
        (resumed["advantage_p0"], resumed_optimizer),
    ):
        step_optimizer.zero_grad()
        network(inputs()).square().mean().backward()
        step_optimizer.step()
    assert torch.equal(resumed["advantage_p0"](inputs()), networks["advantage_p0"](inputs()))

    fresh_numpy = {
        "traversal": np.random.default_rng(0),
        "mt": np.random.Generator(np.random.MT19937(0)),
        "philox": np.random.Generator(np.random.Philox(0)),
        "sfc": np.random.Generator(np.random.SFC64(0)),
    }
    fresh_torch = {"sampling": torch.Generator()}
    restore_rng_states(loaded["rng"], fresh_numpy, fresh_torch)
    for name, generator in fresh_numpy.items():
        assert np.array_equal(generator.random(4), expected_numpy[name]), name
    assert torch.equal(torch.rand(4, generator=fresh_torch["sampling"]), expected_torch)


def test_pcg64_state_keeps_its_128_bit_integers(tmp_path: Path) -> None:
    generator = np.random.default_rng(2**100)
    state = generator.bit_generator.state
    assert state["state"]["state"] > 2**64  # the reason this test exists
    path = save_checkpoint(tmp_path / "rng.pt", {"rng": rng_states({"main": generator}, {})})
    assert load_checkpoint(path)["rng"]["numpy"]["main"] == state


def test_restore_refuses_mismatched_generators() -> None:
    states = rng_states({"a": np.random.default_rng(0)}, {"b": torch.Generator()})
    with pytest.raises(CheckpointError, match=r"numpy RNG states for \['a'\].*\['c'\]"):
        restore_rng_states(states, {"c": np.random.default_rng(0)}, {"b": torch.Generator()})
    with pytest.raises(CheckpointError, match="numpy generator 'a' does not fit"):
        restore_rng_states(states, {"a": np.random.Generator(np.random.MT19937(0))}, {"b": torch.Generator()})


def test_payload_with_a_numpy_array_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    target = tmp_path / "bad.pt"
    with pytest.raises(TypeError, match=r"payload\['stats'\]\['counts'\] is a numpy ndarray"):
        save_checkpoint(target, {"stats": {"counts": np.zeros(3)}})
    with pytest.raises(TypeError, match="is a set"):
        save_checkpoint(target, {"names": {"a", "b"}})
    assert list(tmp_path.iterdir()) == []


# ---------------------------------------------------------------------------- refusals


def test_missing_file_is_refused(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere.pt"
    with pytest.raises(CheckpointError, match=f"checkpoint {missing} does not exist"):
        load_checkpoint(missing)


def test_truncated_file_is_refused_wherever_it_is_cut(tmp_path: Path) -> None:
    path = save_checkpoint(tmp_path / "whole.pt", small_payload())
    data = path.read_bytes()
    header_end = data.index(b"\n", len(checkpoint.FORMAT) + 1)
    cuts = {0, 5, len(checkpoint.FORMAT), len(checkpoint.FORMAT) + 1, 40, header_end, header_end + 1}
    cuts |= {header_end + 10, len(data) // 2, len(data) - 100, len(data) - 1}
    cut_path = tmp_path / "cut.pt"
    for cut in sorted(cuts):
        cut_path.write_bytes(data[:cut])
        with pytest.raises(CheckpointError, match=str(cut_path)) as caught:
            load_checkpoint(cut_path)
        assert "truncated" in str(caught.value) or "empty" in str(caught.value), (cut, str(caught.value))


def test_any_flipped_byte_is_refused(tmp_path: Path) -> None:
    path = save_checkpoint(tmp_path / "whole.pt", {"iteration": 1, "values": torch.arange(4)})
    data = path.read_bytes()
    damaged_path = tmp_path / "damaged.pt"
    # Every byte, two kinds of damage: all bits flipped, and one bit (as a disk error would).
    for position in range(len(data)):
        for mask in (0xFF, 0x20):
            damaged = bytearray(data)
            damaged[position] ^= mask
            damaged_path.write_bytes(bytes(damaged))
            with pytest.raises(CheckpointError, match=str(damaged_path)):
                load_checkpoint(damaged_path)


def test_a_file_that_is_not_a_checkpoint_is_refused(tmp_path: Path) -> None:
    other = tmp_path / "model.pt"
    torch.save({"weights": torch.zeros(2)}, other)
    with pytest.raises(CheckpointError, match=f"{other} is not a pokerai Deep CFR checkpoint"):
        load_checkpoint(other)


@pytest.mark.parametrize(
    ("version", "message"),
    [
        (FORMAT_VERSION + 1, "newer than the 1"),
        (0, "unknown format version 0"),
        ('"1"', "unknown format version"),
    ],
)
def test_wrong_version_is_refused(tmp_path: Path, version: object, message: str) -> None:
    path = save_checkpoint(tmp_path / "checkpoint.pt", small_payload())
    data = path.read_bytes()
    original = f'"format_version":{FORMAT_VERSION}'.encode()
    assert data.count(original) == 1
    path.write_bytes(data.replace(original, f'"format_version":{version}'.encode()))
    with pytest.raises(CheckpointError, match=message) as caught:
        load_checkpoint(path)
    assert str(path) in str(caught.value)


# ---------------------------------------------------------------------------- atomic writes


def test_atomic_write_leaves_only_the_target(tmp_path: Path) -> None:
    save_checkpoint(tmp_path / "checkpoint.pt", small_payload())
    save_checkpoint(tmp_path / "checkpoint.pt", {**small_payload(), "iteration": 4})
    assert [entry.name for entry in tmp_path.iterdir()] == ["checkpoint.pt"]
    assert load_checkpoint(tmp_path / "checkpoint.pt")["iteration"] == 4


def test_failing_serialisation_keeps_the_previous_checkpoint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = save_checkpoint(tmp_path / "checkpoint.pt", small_payload())
    before = target.read_bytes()

    def broken_save(obj: object, file: BinaryIO, *args: object, **kwargs: object) -> None:
        file.write(b"half a checkpoint")
        raise OSError("disk full")

    monkeypatch.setattr(torch, "save", broken_save)
    with pytest.raises(OSError, match="disk full"):
        save_checkpoint(target, {**small_payload(), "iteration": 99})
    assert target.read_bytes() == before
    assert [entry.name for entry in tmp_path.iterdir()] == ["checkpoint.pt"]
    assert load_checkpoint(target)["iteration"] == 3


def test_failure_while_writing_the_file_keeps_the_previous_checkpoint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = save_checkpoint(tmp_path / "checkpoint.pt", small_payload())
    before = target.read_bytes()
    written: list[int] = []

    def broken_fsync(descriptor: int) -> None:
        # The temporary file is complete by now; the crash comes before the rename.
        written.append(os.fstat(descriptor).st_size)
        raise OSError("I/O error")

    monkeypatch.setattr(checkpoint.os, "fsync", broken_fsync)
    with pytest.raises(OSError, match="I/O error"):
        save_checkpoint(target, {**small_payload(), "iteration": 99, "more": torch.zeros(1000)})
    assert written and written[0] > len(before)
    assert target.read_bytes() == before
    assert [entry.name for entry in tmp_path.iterdir()] == ["checkpoint.pt"]


def test_map_location_moves_tensors(tmp_path: Path) -> None:
    path = save_checkpoint(tmp_path / "checkpoint.pt", small_payload())
    loaded = load_checkpoint(path, map_location=torch.device("cpu"))
    assert loaded["values"].device == torch.device("cpu")
    assert torch.equal(loaded["values"], small_payload()["values"])


# ---------------------------------------------------------------------------- the streamed layout


def test_the_header_is_padded_to_a_fixed_width_and_files_of_the_unpadded_layout_still_load(
    tmp_path: Path,
) -> None:
    path = save_checkpoint(tmp_path / "checkpoint.pt", small_payload())
    lines = path.read_bytes().split(b"\n", 2)
    assert len(lines[1]) + 1 == checkpoint._HEADER_WIDTH and lines[1].endswith(b" ")
    # The layout written before the body was streamed: body serialised in memory, compact header.
    buffer = io.BytesIO()
    torch.save(small_payload(), buffer)
    body = buffer.getvalue()
    header = {"body_bytes": len(body), "format": checkpoint.FORMAT, "format_version": 1,
              "sha256": hashlib.sha256(body).hexdigest()}  # fmt: skip
    old = tmp_path / "old.pt"
    old.write_bytes(checkpoint._MAGIC + json.dumps(header).encode() + b"\n" + body)
    assert load_checkpoint(old)["iteration"] == load_checkpoint(path)["iteration"] == 3
    assert torch.equal(load_checkpoint(old)["values"], load_checkpoint(path)["values"])
