"""Deep CFR networks and their maths: shapes, regret matching, masked softmax, weighted loss, seeding."""

from __future__ import annotations

from typing import Literal

import numpy as np
import pytest
import torch

from pokerai.config import ConfigError, load_config
from pokerai.deepcfr.networks import (
    NETWORK_NAMES,
    AdvantageNetwork,
    NetworkConfig,
    PolicyNetwork,
    build_networks,
    masked_softmax,
    regret_matching,
    regret_matching_numpy,
    resolve_device,
    weighted_mse,
)

FEATURES = 20
SLOTS = 5
SMALL = NetworkConfig(hidden_sizes=(16, 16, 8))


def features(batch: int, seed: int = 0) -> torch.Tensor:
    return torch.randn(batch, FEATURES, generator=torch.Generator().manual_seed(seed))


def random_mask(batch: int, seed: int = 0) -> torch.Tensor:
    generator = torch.Generator().manual_seed(seed)
    mask = torch.rand(batch, SLOTS, generator=generator) < 0.5
    mask[torch.arange(batch), torch.randint(SLOTS, (batch,), generator=generator)] = True
    return mask


# ---------------------------------------------------------------------------- networks


@pytest.mark.parametrize(
    "config",
    [
        SMALL,
        NetworkConfig(hidden_sizes=(8,), activation="gelu", layer_norm=True, normalize_last_hidden=False),
        NetworkConfig(hidden_sizes=(12, 12), skip_connections=False),
    ],
)
def test_output_shapes_and_dtype(config: NetworkConfig) -> None:
    generator = torch.Generator().manual_seed(0)
    advantage = AdvantageNetwork(FEATURES, SLOTS, config, generator=generator)
    policy = PolicyNetwork(FEATURES, SLOTS, config, generator=generator)
    outputs = advantage(features(7))
    assert outputs.shape == (7, SLOTS) and outputs.dtype == torch.float32
    assert torch.isfinite(outputs).all()
    mask = random_mask(7)
    probabilities = policy.probabilities(features(7), mask)
    assert probabilities.shape == (7, SLOTS) and probabilities.dtype == torch.float32
    assert torch.all(probabilities[~mask] == 0.0)
    torch.testing.assert_close(probabilities.sum(dim=-1), torch.ones(7))
    strategy = advantage.strategy(features(7), mask)
    assert torch.all(strategy[~mask] == 0.0)
    torch.testing.assert_close(strategy.sum(dim=-1), torch.ones(7))


def test_wrong_feature_size_is_a_clear_error() -> None:
    network = AdvantageNetwork(FEATURES, SLOTS, SMALL, generator=torch.Generator().manual_seed(0))
    with pytest.raises(ValueError, match=r"shape \[batch, 20\], got \[3, 19\]"):
        network(torch.zeros(3, FEATURES - 1))


def test_gradients_reach_every_parameter() -> None:
    network = AdvantageNetwork(FEATURES, SLOTS, SMALL, generator=torch.Generator().manual_seed(0))
    network(features(4)).square().sum().backward()
    for name, parameter in network.named_parameters():
        assert parameter.grad is not None and parameter.grad.abs().sum() > 0, name


def test_same_seed_same_weights_different_seed_different() -> None:
    first = build_networks(FEATURES, SLOTS, SMALL, seed=3)
    second = build_networks(FEATURES, SLOTS, SMALL, seed=3)
    other = build_networks(FEATURES, SLOTS, SMALL, seed=4)
    assert tuple(first) == NETWORK_NAMES
    assert isinstance(first["advantage_p1"], AdvantageNetwork)
    assert isinstance(first["policy_p0"], PolicyNetwork)
    for name in NETWORK_NAMES:
        first_state = first[name].state_dict()
        second_state = second[name].state_dict()
        assert first_state.keys() == second_state.keys()
        for key in first_state:
            assert torch.equal(first_state[key], second_state[key]), (name, key)
        assert not torch.equal(
            first_state["hidden_layers.0.weight"], other[name].state_dict()["hidden_layers.0.weight"]
        )
    # The two players' networks are independent draws, not copies.
    assert not torch.equal(
        first["advantage_p0"].state_dict()["output_layer.weight"],
        first["advantage_p1"].state_dict()["output_layer.weight"],
    )


def test_building_networks_leaves_the_global_generator_alone() -> None:
    before = torch.random.get_rng_state()
    build_networks(FEATURES, SLOTS, SMALL, seed=0)
    assert torch.equal(before, torch.random.get_rng_state())


def test_reset_parameters_retrains_from_the_same_start() -> None:
    network = AdvantageNetwork(FEATURES, SLOTS, SMALL, generator=torch.Generator().manual_seed(9))
    initial = network(features(3)).detach().clone()
    with torch.no_grad():
        for parameter in network.parameters():
            parameter.add_(1.0)
    assert not torch.equal(network(features(3)), initial)
    network.reset_parameters(torch.Generator().manual_seed(9))
    assert torch.equal(network(features(3)).detach(), initial)


# ---------------------------------------------------------------------------- regret matching


def test_regret_matching_normalises_positive_legal_advantages() -> None:
    advantages = torch.tensor([[1.0, 3.0, -2.0, 0.0, 4.0]])
    mask = torch.tensor([[True, True, True, True, False]])
    expected = torch.tensor([[0.25, 0.75, 0.0, 0.0, 0.0]])
    assert torch.allclose(regret_matching(advantages, mask), expected)


@pytest.mark.parametrize("fallback", ["argmax", "uniform"])
def test_regret_matching_illegal_slot_gets_zero_even_with_the_largest_advantage(
    fallback: Literal["uniform", "argmax"],
) -> None:
    advantages = torch.tensor([[100.0, -1.0, -3.0, 2.0, -0.5], [100.0, -1.0, -3.0, -2.0, -0.5]])
    mask = torch.tensor([[False, True, True, True, True], [False, True, True, True, True]])
    probabilities = regret_matching(advantages, mask, fallback=fallback)
    assert torch.all(probabilities[:, 0] == 0.0)
    assert torch.equal(probabilities[0], torch.tensor([0.0, 0.0, 0.0, 1.0, 0.0]))
    if fallback == "argmax":
        assert torch.equal(probabilities[1], torch.tensor([0.0, 0.0, 0.0, 0.0, 1.0]))
    else:
        assert torch.equal(probabilities[1], torch.tensor([0.0, 0.25, 0.25, 0.25, 0.25]))


def test_regret_matching_all_negative() -> None:
    advantages = torch.tensor([[-5.0, -1.0, -2.0, -0.1, -3.0]])
    mask = torch.tensor([[True, True, True, False, True]])
    argmax = regret_matching(advantages, mask, fallback="argmax")
    assert torch.equal(argmax, torch.tensor([[0.0, 1.0, 0.0, 0.0, 0.0]]))
    uniform = regret_matching(advantages, mask, fallback="uniform")
    assert torch.equal(uniform, torch.tensor([[0.25, 0.25, 0.25, 0.0, 0.25]]))


def test_regret_matching_argmax_takes_the_first_of_tied_legal_slots() -> None:
    advantages = torch.tensor([[-1.0, -2.0, -1.0, 0.0, -1.0]])
    mask = torch.tensor([[True, True, True, True, True]])
    assert torch.equal(regret_matching(advantages, mask), torch.tensor([[0.0, 0.0, 0.0, 1.0, 0.0]]))
    mask[0, 3] = False
    assert torch.equal(regret_matching(advantages, mask), torch.tensor([[1.0, 0.0, 0.0, 0.0, 0.0]]))


@pytest.mark.parametrize("fallback", ["argmax", "uniform"])
def test_regret_matching_single_legal_action_gets_probability_one(
    fallback: Literal["uniform", "argmax"],
) -> None:
    for value in (-7.0, 0.0, 3.0):
        advantages = torch.tensor([[9.0, value, 9.0, 9.0, 9.0]])
        mask = torch.tensor([[False, True, False, False, False]])
        probabilities = regret_matching(advantages, mask, fallback=fallback)
        assert torch.equal(probabilities, torch.tensor([[0.0, 1.0, 0.0, 0.0, 0.0]]))


def test_regret_matching_huge_advantages_stay_finite() -> None:
    limit = torch.finfo(torch.float32).max
    advantages = torch.tensor([[limit, limit, -limit, 1.0, 0.0]])
    probabilities = regret_matching(advantages, torch.ones(1, SLOTS, dtype=torch.bool))
    assert torch.isfinite(probabilities).all()
    torch.testing.assert_close(probabilities, torch.tensor([[0.5, 0.5, 0.0, 0.0, 0.0]]))


@pytest.mark.parametrize("fallback", ["argmax", "uniform"])
def test_regret_matching_rows_sum_to_one_and_twins_agree(fallback: Literal["uniform", "argmax"]) -> None:
    generator = torch.Generator().manual_seed(5)
    advantages = torch.randn(500, SLOTS, generator=generator) - 1.0  # many rows with no positive legal slot
    advantages[::7] = -torch.rand(advantages[::7].shape, generator=generator)
    mask = random_mask(500, seed=6)
    probabilities = regret_matching(advantages, mask, fallback=fallback)
    assert probabilities.dtype == torch.float32
    assert torch.all(probabilities[~mask] == 0.0)
    assert torch.all(probabilities >= 0.0)
    torch.testing.assert_close(probabilities.sum(dim=-1), torch.ones(500))
    twin = regret_matching_numpy(advantages.numpy(), mask.numpy(), fallback=fallback)
    assert twin.dtype == np.float64
    np.testing.assert_allclose(twin, probabilities.numpy(), rtol=1e-6, atol=1e-7)
    assert np.array_equal(twin == 0.0, probabilities.numpy() == 0.0)


def test_regret_matching_refuses_rows_without_legal_slots_and_bad_shapes() -> None:
    mask = torch.tensor([[True, False], [False, False]])
    with pytest.raises(ValueError, match="at least one legal slot"):
        regret_matching(torch.zeros(2, 2), mask)
    with pytest.raises(ValueError, match="at least one legal slot"):
        regret_matching_numpy(np.zeros((2, 2)), mask.numpy())
    with pytest.raises(ValueError, match="does not match"):
        regret_matching(torch.zeros(2, 3), mask)


# ---------------------------------------------------------------------------- masked softmax


def test_masked_softmax_matches_softmax_over_legal_slots() -> None:
    logits = torch.tensor([[1.0, 2.0, 50.0, 0.5, -1.0]])
    mask = torch.tensor([[True, True, False, True, False]])
    expected = torch.zeros(1, SLOTS)
    expected[0, [0, 1, 3]] = torch.softmax(torch.tensor([1.0, 2.0, 0.5]), dim=0)
    result = masked_softmax(logits, mask)
    assert result[0, 2] == 0.0 and result[0, 4] == 0.0
    torch.testing.assert_close(result, expected)


@pytest.mark.parametrize(
    "row",
    [
        [1e38, 3e38, -3e38, 1e30, 0.0],
        [-3e38, -3e38, -1e38, -3e38, -3e38],
        [float("inf"), float("inf"), float("-inf"), 1.0, float("inf")],
        [float("-inf")] * SLOTS,
        [1e4, -1e4, 1e4, 0.0, 88.0],
    ],
)
def test_masked_softmax_is_finite_and_exact_zero_on_illegal_slots_with_extreme_logits(
    row: list[float],
) -> None:
    logits = torch.tensor([row, row, row])
    mask = torch.tensor(
        [[True, True, True, True, True], [True, False, True, False, True], [False, False, False, True, False]]
    )
    probabilities = masked_softmax(logits, mask)
    assert probabilities.dtype == torch.float32
    assert torch.isfinite(probabilities).all()
    assert torch.all(probabilities[~mask] == 0.0)
    torch.testing.assert_close(probabilities.sum(dim=-1), torch.ones(3))
    assert probabilities[2, 3] == 1.0


def test_masked_softmax_half_precision_input_gives_float32() -> None:
    logits = torch.tensor([[60000.0, -60000.0, 1.0]], dtype=torch.float16)
    probabilities = masked_softmax(logits, torch.tensor([[True, True, False]]))
    assert probabilities.dtype == torch.float32
    assert torch.equal(probabilities, torch.tensor([[1.0, 0.0, 0.0]]))


# ---------------------------------------------------------------------------- loss


def test_weighted_mse_value() -> None:
    predictions = torch.tensor([[1.0, 2.0, 0.0], [0.0, 0.0, 0.0]])
    targets = torch.tensor([[0.0, 0.0, 9.0], [3.0, 0.0, 0.0]])
    mask = torch.tensor([[True, True, False], [True, False, False]])
    weights = torch.tensor([1.0, 3.0])
    # (1·(1 + 4) + 3·9) / (1·2 + 3·1)
    assert weighted_mse(predictions, targets, mask, weights).item() == pytest.approx(32.0 / 5.0)


def test_weighted_mse_ignores_illegal_targets_and_predictions() -> None:
    generator = torch.Generator().manual_seed(1)
    predictions = torch.randn(6, SLOTS, generator=generator)
    targets = torch.randn(6, SLOTS, generator=generator)
    mask = random_mask(6, seed=2)
    weights = torch.arange(1.0, 7.0)
    loss = weighted_mse(predictions, targets, mask, weights)
    changed_targets = torch.where(mask, targets, torch.full_like(targets, float("nan")))
    changed_predictions = torch.where(mask, predictions, torch.full_like(predictions, 1e6))
    assert torch.equal(weighted_mse(changed_predictions, changed_targets, mask, weights), loss)
    legal_change = targets.clone()
    legal_change[mask] += 1.0
    assert weighted_mse(predictions, legal_change, mask, weights) != loss


def test_weighted_mse_weights_matter_but_their_scale_does_not() -> None:
    generator = torch.Generator().manual_seed(3)
    predictions = torch.randn(4, SLOTS, generator=generator)
    targets = torch.randn(4, SLOTS, generator=generator)
    mask = torch.ones(4, SLOTS, dtype=torch.bool)
    weights = torch.tensor([1.0, 2.0, 3.0, 4.0])
    loss = weighted_mse(predictions, targets, mask, weights)
    torch.testing.assert_close(weighted_mse(predictions, targets, mask, weights * 1000.0), loss)
    assert not torch.isclose(weighted_mse(predictions, targets, mask, weights.flip(0)), loss)
    unweighted = ((predictions - targets) ** 2).mean()
    torch.testing.assert_close(weighted_mse(predictions, targets, mask, torch.ones(4)), unweighted)


def test_weighted_mse_gradient_flows_only_through_legal_slots() -> None:
    predictions = torch.zeros(2, 3, requires_grad=True)
    mask = torch.tensor([[True, False, True], [False, True, False]])
    weighted_mse(predictions, torch.ones(2, 3), mask, torch.tensor([1.0, 2.0])).backward()
    assert predictions.grad is not None
    assert torch.all(predictions.grad[~mask] == 0.0)
    assert torch.all(predictions.grad[mask] != 0.0)


def test_weighted_mse_refuses_mismatched_shapes() -> None:
    with pytest.raises(ValueError, match="weights must have shape"):
        weighted_mse(torch.zeros(2, 3), torch.zeros(2, 3), torch.ones(2, 3, dtype=torch.bool), torch.ones(3))
    with pytest.raises(ValueError, match="share one shape"):
        weighted_mse(torch.zeros(2, 3), torch.zeros(2, 4), torch.ones(2, 3, dtype=torch.bool), torch.ones(2))


# ---------------------------------------------------------------------------- config and device


def test_config_loads_from_a_mapping() -> None:
    config = load_config(
        {"hidden_sizes": [64, 64], "activation": "gelu", "layer_norm": True, "skip_connections": False},
        NetworkConfig,
    )
    assert config == NetworkConfig(
        hidden_sizes=(64, 64), activation="gelu", layer_norm=True, skip_connections=False
    )
    assert load_config({}, NetworkConfig) == NetworkConfig()


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"hidden_size": [4]}, "unknown key 'hidden_size'"),
        ({"hidden_sizes": [4, 0]}, r"hidden_sizes\[1\]: must be at least 1"),
        ({"hidden_sizes": []}, "at least one hidden layer"),
        ({"activation": "tanh"}, "activation: expected one of 'relu', 'gelu'"),
        ({"layer_norm": 1}, "layer_norm: expected true or false"),
    ],
)
def test_bad_config_is_a_config_error(data: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        load_config(data, NetworkConfig)


def test_resolve_device() -> None:
    assert resolve_device("cpu") == torch.device("cpu")
    assert resolve_device("auto").type == ("cuda" if torch.cuda.is_available() else "cpu")
    with pytest.raises(ValueError, match="unknown device 'tpu'"):
        resolve_device("tpu")  # type: ignore[arg-type]
    if torch.cuda.is_available():
        assert resolve_device("cuda").type == "cuda"
    else:
        with pytest.raises(ValueError, match="no CUDA device"):
            resolve_device("cuda")
