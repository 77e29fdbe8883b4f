"""Numpy inference of the policy networks: torch's forward pass within 1e-5, and play without torch."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
import torch

from pokerai.deepcfr.config import NetworkConfig
from pokerai.deepcfr.inference import NumpyNetwork, masked_softmax_numpy, state_dict_arrays
from pokerai.deepcfr.networks import PolicyNetwork, masked_softmax

ROOT = Path(__file__).resolve().parents[2]

SHAPES = [
    NetworkConfig(),
    NetworkConfig(hidden_sizes=(64, 64, 32), activation="gelu", layer_norm=True),
    NetworkConfig(hidden_sizes=(16,), skip_connections=False, normalize_last_hidden=False),
    NetworkConfig(hidden_sizes=(32, 32), activation="gelu", normalize_last_hidden=False, layer_norm=True),
]


@pytest.mark.parametrize("config", SHAPES, ids=lambda config: f"{config.hidden_sizes}-{config.activation}")
def test_numpy_forward_pass_equals_torch_on_random_batches(config: NetworkConfig) -> None:
    rng = np.random.default_rng(11)
    feature_size, num_slots = 373, 7
    network = PolicyNetwork(feature_size, num_slots, config, generator=torch.Generator().manual_seed(3))
    with torch.no_grad():  # random weights everywhere, layer-norm scales and biases included
        for parameter in network.parameters():
            parameter.copy_(
                torch.from_numpy(rng.normal(0.0, 0.2, size=tuple(parameter.shape)).astype(np.float32))
            )
    twin = NumpyNetwork(feature_size, num_slots, config, state_dict_arrays(network.state_dict()))
    for batch in (1, 17, 1326):
        features = rng.normal(0.0, 1.0, size=(batch, feature_size)).astype(np.float32)
        with torch.no_grad():
            expected = network(torch.from_numpy(features)).numpy()
        actual = twin(features)
        assert actual.dtype == np.float32 and actual.shape == (batch, num_slots)
        np.testing.assert_allclose(actual, expected, rtol=0, atol=1e-5)
        masks = rng.random((batch, num_slots)) < 0.6
        masks[:, 0] = True
        with torch.no_grad():
            torch_probabilities = masked_softmax(torch.from_numpy(expected), torch.from_numpy(masks)).numpy()
        np.testing.assert_allclose(
            masked_softmax_numpy(actual, masks), torch_probabilities, rtol=0, atol=1e-5
        )


def test_a_network_that_does_not_fit_is_refused_by_name() -> None:
    network = PolicyNetwork(
        10, 3, NetworkConfig(hidden_sizes=(8,)), generator=torch.Generator().manual_seed(0)
    )
    parameters = state_dict_arrays(network.state_dict())
    with pytest.raises(ValueError, match=r"hidden_layers\.0\.weight"):
        NumpyNetwork(11, 3, NetworkConfig(hidden_sizes=(8,)), parameters)
    with pytest.raises(ValueError, match=r"missing parameter 'output_layer\.bias'"):
        NumpyNetwork(
            10,
            3,
            NetworkConfig(hidden_sizes=(8,)),
            {k: v for k, v in parameters.items() if k != "output_layer.bias"},
        )
    with pytest.raises(ValueError, match="unexpected parameter"):
        NumpyNetwork(
            10, 3, NetworkConfig(hidden_sizes=(8,), layer_norm=False), {**parameters, "extra": np.zeros(1)}
        )


BLOCK_TORCH = textwrap.dedent(
    """
    import importlib.abc, sys

    class NoTorch(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in ("torch", "tensorboard", "ray"):
                raise ImportError(f"{name} is blocked in this test")
            return None

    sys.meta_path.insert(0, NoTorch())
    """
)


def test_the_shipped_blueprint_plays_without_torch() -> None:
    script = BLOCK_TORCH + textwrap.dedent(
        """
        import numpy as np
        from pokerai.agents.spec import make_agent
        from pokerai.games.hunl import HUNLGame

        agent = make_agent("blueprint:checkpoints/hunl_tiny")
        game = HUNLGame()
        state = game.deal(np.random.default_rng(0))
        probabilities = agent.blueprint.probabilities(state)
        assert abs(probabilities.sum() - 1.0) < 1e-9, probabilities
        assert "torch" not in sys.modules
        print("ok")
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=600, check=False
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"
