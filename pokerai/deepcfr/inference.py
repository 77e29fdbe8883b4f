"""Policy networks evaluated with numpy alone: what a blueprint plays with, no torch needed (layer 4).

:class:`NumpyNetwork` computes exactly the forward pass of the torch multilayer
perceptron in :mod:`pokerai.deepcfr.networks` (linear layers, optional layer norm,
ReLU or exact-erf GELU, skip connections where widths match, the parameter-free
normalisation of the last hidden layer, the output layer) from the same
``state_dict`` tensors, as float32 numpy arrays. ``tests/deepcfr/test_inference.py``
holds it equal to torch within 1e-5 on random batches and random weights.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import Any

import numpy as np
import numpy.typing as npt

from pokerai.deepcfr.config import NetworkConfig

LAYER_NORM_EPS = 1e-5
"""torch.nn.LayerNorm's default epsilon, which the torch networks use."""


class NumpyNetwork:
    """A policy (or advantage) network's forward pass: float32 ``[B, feature_size]`` -> ``[B, num_slots]``."""

    def __init__(
        self,
        feature_size: int,
        num_slots: int,
        config: NetworkConfig,
        parameters: Mapping[str, npt.ArrayLike],
    ) -> None:
        """``parameters``: the torch ``state_dict`` of a network of this shape, as arrays (any float dtype).

        Raises ``ValueError`` naming the first missing, unexpected or misshapen parameter.
        """
        if feature_size < 1 or num_slots < 1:
            raise ValueError(f"feature_size and num_slots must be positive, got {feature_size}, {num_slots}")
        self.feature_size = feature_size
        self.num_slots = num_slots
        self.config = config
        widths = (feature_size, *config.hidden_sizes)
        expected: dict[str, tuple[int, ...]] = {}
        for index, (width_in, width_out) in enumerate(itertools.pairwise(widths)):
            expected[f"hidden_layers.{index}.weight"] = (width_out, width_in)
            expected[f"hidden_layers.{index}.bias"] = (width_out,)
            if config.layer_norm:
                expected[f"layer_norms.{index}.weight"] = (width_out,)
                expected[f"layer_norms.{index}.bias"] = (width_out,)
        expected["output_layer.weight"] = (num_slots, widths[-1])
        expected["output_layer.bias"] = (num_slots,)
        unexpected = sorted(set(parameters) - set(expected))
        if unexpected:
            raise ValueError(f"unexpected parameter {unexpected[0]!r} for this network shape")
        arrays: dict[str, npt.NDArray[np.float32]] = {}
        for name, shape in expected.items():
            if name not in parameters:
                raise ValueError(f"missing parameter {name!r}")
            array = np.array(
                parameters[name], dtype=np.float32
            )  # a copy: later changes to the source stay there
            if array.shape != shape:
                raise ValueError(f"parameter {name!r} has shape {list(array.shape)}, expected {list(shape)}")
            arrays[name] = array
        depth = len(config.hidden_sizes)
        # Weights transposed once, contiguous, so every query is x @ W + b.
        self._hidden = [
            (
                np.ascontiguousarray(arrays[f"hidden_layers.{i}.weight"].T),
                arrays[f"hidden_layers.{i}.bias"],
            )
            for i in range(depth)
        ]
        self._norms = [
            (arrays[f"layer_norms.{i}.weight"], arrays[f"layer_norms.{i}.bias"])
            if config.layer_norm
            else None
            for i in range(depth)
        ]
        self._skips = [
            config.skip_connections and width_in == width_out
            for width_in, width_out in itertools.pairwise(widths)
        ]
        self._output = (np.ascontiguousarray(arrays["output_layer.weight"].T), arrays["output_layer.bias"])
        self.parameters = arrays
        """The parameters by ``state_dict`` name, float32 (what a blueprint's ``policy.npz`` stores)."""

    def __call__(self, features: npt.ArrayLike) -> npt.NDArray[np.float32]:
        """Outputs (policy logits) float32 ``[B, num_slots]`` for features ``[B, feature_size]``."""
        hidden = np.asarray(features, dtype=np.float32)
        if hidden.ndim != 2 or hidden.shape[1] != self.feature_size:
            raise ValueError(
                f"features must have shape [batch, {self.feature_size}], got {list(hidden.shape)}"
            )
        for (weight, bias), norm, skip in zip(self._hidden, self._norms, self._skips, strict=True):
            update = hidden @ weight + bias
            if norm is not None:
                update = _layer_norm(update) * norm[0] + norm[1]
            update = self._activation(update)
            hidden = hidden + update if skip else update
        if self.config.normalize_last_hidden:
            hidden = _layer_norm(hidden)
        weight, bias = self._output
        result: npt.NDArray[np.float32] = hidden @ weight + bias
        return result

    def _activation(self, values: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
        if self.config.activation == "relu":
            return np.maximum(values, np.float32(0.0))
        from scipy.special import erf

        gelu: npt.NDArray[np.float32] = (0.5 * values * (1.0 + erf(values / np.sqrt(2.0)))).astype(np.float32)
        return gelu


def _layer_norm(values: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """Zero mean, unit (biased) variance along the last axis, as torch.nn.LayerNorm computes it."""
    mean = values.mean(axis=-1, keepdims=True)
    centred = values - mean
    variance = (centred * centred).mean(axis=-1, keepdims=True)
    result: npt.NDArray[np.float32] = centred / np.sqrt(variance + np.float32(LAYER_NORM_EPS))
    return result


def masked_softmax_numpy(logits: npt.ArrayLike, mask: npt.NDArray[np.bool_]) -> npt.NDArray[np.float64]:
    """Float64 softmax of ``logits`` over the True slots of ``mask`` (``[B, S]`` both); other slots are 0."""
    values = np.where(mask, np.asarray(logits, dtype=np.float64), -np.inf)
    values = values - values.max(axis=1, keepdims=True)
    weights = np.exp(values)
    result: npt.NDArray[np.float64] = weights / weights.sum(axis=1, keepdims=True)
    return result


def state_dict_arrays(state_dict: Mapping[str, Any]) -> dict[str, npt.NDArray[np.float32]]:
    """A torch ``state_dict`` (CPU or CUDA tensors) as float32 numpy copies, without importing torch here."""
    return {
        name: np.asarray(tensor.detach().to("cpu").float().numpy()) for name, tensor in state_dict.items()
    }


__all__ = ["LAYER_NORM_EPS", "NumpyNetwork", "masked_softmax_numpy", "state_dict_arrays"]
