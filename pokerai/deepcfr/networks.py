"""Advantage and policy networks for Deep CFR, and the pure maths around them (layer 4).

Deep CFR (Brown, Lerer, Gross & Sandholm 2019, "Deep Counterfactual Regret
Minimization") replaces CFR's regret and average-strategy tables with networks:

* one **advantage network** per player, ``V(I, a | θ_p)``, trained on sampled
  instantaneous regrets to predict (something proportional to) the cumulative
  counterfactual regret of every action; the strategy at iteration t+1 is regret
  matching on its outputs (:func:`regret_matching`);
* one **policy network** per player, ``Π(I, a | θ_Π)``, trained on sampled
  strategies to predict the average strategy, which is what converges to a Nash
  equilibrium; its logits go through a masked softmax (:func:`masked_softmax`).

Both are multilayer perceptrons over the same fixed-size feature vector
(float32 ``[batch, feature_size]``) with one output per action slot
(``[batch, num_slots]``); which slots are legal at an information state comes as
a boolean mask of the same shape. Both are trained with the linear-CFR weighted
loss of the paper (:func:`weighted_mse`).

Every function here takes its randomness as an explicit seed or
``torch.Generator``; nothing reads or advances torch's global generator.
"""

from __future__ import annotations

import itertools
from typing import Literal

import numpy as np
import torch
from numpy.typing import NDArray

from pokerai.deepcfr.config import Activation as Activation
from pokerai.deepcfr.config import NetworkConfig as NetworkConfig

Fallback = Literal["uniform", "argmax"]
DeviceName = Literal["cpu", "cuda", "auto"]

NETWORK_NAMES: tuple[str, ...] = ("advantage_p0", "advantage_p1", "policy_p0", "policy_p1")
"""The networks of a two-player Deep CFR run, in the order :func:`build_networks` creates them."""


# ---------------------------------------------------------------------------- networks


class _MultilayerPerceptron(torch.nn.Module):
    """Features float32 ``[batch, feature_size]`` -> one output per action slot ``[batch, num_slots]``."""

    def __init__(
        self, feature_size: int, num_slots: int, config: NetworkConfig, *, generator: torch.Generator
    ) -> None:
        super().__init__()
        if feature_size < 1:
            raise ValueError(f"feature_size must be positive, got {feature_size}")
        if num_slots < 1:
            raise ValueError(f"num_slots must be positive, got {num_slots}")
        self.feature_size = feature_size
        self.num_slots = num_slots
        self.config = config
        widths = (feature_size, *config.hidden_sizes)
        # Built on the meta device: torch's default initialisation would draw from the global
        # generator, which library code must neither read nor advance. reset_parameters fills them.
        self.hidden_layers = torch.nn.ModuleList(
            torch.nn.Linear(width_in, width_out, device="meta")
            for width_in, width_out in itertools.pairwise(widths)
        )
        self.layer_norms = torch.nn.ModuleList(
            torch.nn.LayerNorm(width, device="meta") if config.layer_norm else torch.nn.Identity()
            for width in config.hidden_sizes
        )
        self.skips = tuple(
            config.skip_connections and width_in == width_out
            for width_in, width_out in itertools.pairwise(widths)
        )
        self.activation: torch.nn.Module = torch.nn.ReLU() if config.activation == "relu" else torch.nn.GELU()
        # Plain normalisation without learned parameters: the output layer provides the scale.
        self.last_hidden_norm: torch.nn.Module = (
            torch.nn.LayerNorm(widths[-1], elementwise_affine=False)
            if config.normalize_last_hidden
            else torch.nn.Identity()
        )
        self.output_layer = torch.nn.Linear(widths[-1], num_slots, device="meta")
        self.to_empty(device="cpu")
        self.reset_parameters(generator)

    @torch.no_grad()
    def reset_parameters(self, generator: torch.Generator) -> None:
        """Fresh weights drawn from ``generator`` (a CPU generator), the same on every run for the same state.

        The paper retrains the advantage network from scratch every CFR iteration;
        a trainer calls this to do so. Hidden layers get He (Kaiming) uniform
        weights suited to ReLU-like units; the output layer gets uniform weights in
        ``±1/sqrt(fan_in)``, torch's default, so initial outputs are small; biases start at 0.
        Parameters are drawn on the CPU and copied, so the result does not depend on the device.
        """
        for layer in self.hidden_layers:
            assert isinstance(layer, torch.nn.Linear)
            weight = torch.empty(layer.weight.shape, dtype=layer.weight.dtype)
            torch.nn.init.kaiming_uniform_(weight, nonlinearity="relu", generator=generator)
            layer.weight.copy_(weight)
            layer.bias.zero_()
        bound = 1.0 / float(np.sqrt(self.output_layer.in_features))
        weight = torch.empty(self.output_layer.weight.shape, dtype=self.output_layer.weight.dtype)
        torch.nn.init.uniform_(weight, -bound, bound, generator=generator)
        self.output_layer.weight.copy_(weight)
        self.output_layer.bias.zero_()
        for norm in self.layer_norms:
            if isinstance(norm, torch.nn.LayerNorm):
                norm.reset_parameters()

    def forward(self, features: torch.Tensor) -> torch.Tensor:
        """Features float ``[batch, feature_size]`` -> outputs ``[batch, num_slots]`` of the same dtype."""
        if features.ndim != 2 or features.shape[1] != self.feature_size:
            raise ValueError(
                f"features must have shape [batch, {self.feature_size}], got {list(features.shape)}"
            )
        hidden = features
        for layer, norm, skip in zip(self.hidden_layers, self.layer_norms, self.skips, strict=True):
            update = self.activation(norm(layer(hidden)))
            hidden = hidden + update if skip else update
        output: torch.Tensor = self.output_layer(self.last_hidden_norm(hidden))
        return output


class AdvantageNetwork(_MultilayerPerceptron):
    """``V(I, a | θ_p)`` of Deep CFR: features ``[B, feature_size]`` float32 -> advantages ``[B, num_slots]``.

    Each output predicts the (linearly weighted, normalised) cumulative
    counterfactual regret of taking that action slot at the information state;
    outputs for illegal slots are meaningless and are masked by
    :func:`regret_matching` and :func:`weighted_mse`.
    """

    def strategy(
        self, features: torch.Tensor, mask: torch.Tensor, fallback: Fallback = "argmax"
    ) -> torch.Tensor:
        """Regret matching on the predicted advantages: probabilities ``[B, num_slots]``, illegal slots 0."""
        return regret_matching(self(features), mask, fallback=fallback)


class PolicyNetwork(_MultilayerPerceptron):
    """``Π(I, a | θ_Π)`` of Deep CFR: features ``[B, feature_size]`` float32 -> logits ``[B, num_slots]``.

    Trained towards the average strategy of the CFR iterations, which is the
    strategy Deep CFR plays (the average, not the last iterate, converges).
    """

    def probabilities(self, features: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """Average-strategy probabilities ``[B, num_slots]`` float32: a masked softmax of the logits."""
        return masked_softmax(self(features), mask)


def build_networks(
    feature_size: int,
    num_slots: int,
    config: NetworkConfig,
    seed: int,
    device: torch.device | str = "cpu",
) -> dict[str, torch.nn.Module]:
    """The four networks of a two-player run (:data:`NETWORK_NAMES`), initialised from ``seed`` alone.

    Each network draws from its own generator, seeded from ``seed`` through a
    ``numpy.random.SeedSequence`` spawn, so its weights do not depend on the
    others' sizes or on the order they are built in; the same seed gives
    bit-identical weights on every run and every device.
    """
    children = np.random.SeedSequence(seed).spawn(len(NETWORK_NAMES))
    networks: dict[str, torch.nn.Module] = {}
    for name, child in zip(NETWORK_NAMES, children, strict=True):
        generator = torch.Generator().manual_seed(int(child.generate_state(1, dtype=np.uint64)[0]))
        network_class = AdvantageNetwork if name.startswith("advantage") else PolicyNetwork
        networks[name] = network_class(feature_size, num_slots, config, generator=generator).to(device)
    return networks


def resolve_device(name: DeviceName) -> torch.device:
    """``"cpu"``, ``"cuda"`` or ``"auto"`` (CUDA when available, else the CPU) as a ``torch.device``.

    Raises ``ValueError`` for any other name, and for ``"cuda"`` on a machine
    where torch sees no CUDA device (rather than failing later, deep inside a training step).
    """
    if name == "cpu":
        return torch.device("cpu")
    if name == "cuda":
        if not torch.cuda.is_available():
            raise ValueError(
                "device 'cuda' was requested but torch finds no CUDA device here; use 'cpu' or 'auto'"
            )
        return torch.device("cuda")
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    raise ValueError(f"unknown device {name!r}; expected 'cpu', 'cuda' or 'auto'")


# ---------------------------------------------------------------------------- pure maths


def _check_mask(values_shape: torch.Size | tuple[int, ...], mask_shape: torch.Size | tuple[int, ...]) -> None:
    if tuple(values_shape) != tuple(mask_shape):
        raise ValueError(f"mask shape {list(mask_shape)} does not match values shape {list(values_shape)}")
    if len(values_shape) == 0:
        raise ValueError("values must have at least one dimension (the action slots)")


def _checked_rows(values: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """``values`` as float32 (float64 if they are) and ``mask`` as bool, checked to have the same shape
    and at least one legal slot per row."""
    _check_mask(values.shape, mask.shape)
    mask = mask.to(torch.bool)
    values = values.to(torch.promote_types(values.dtype, torch.float32))
    if not bool(mask.any(dim=-1).all()):
        raise ValueError("every row of the mask needs at least one legal slot")
    return values, mask


def regret_matching(
    advantages: torch.Tensor, mask: torch.Tensor, fallback: Fallback = "argmax"
) -> torch.Tensor:
    """Regret matching (Hart & Mas-Colell 2000) on predicted advantages, as Deep CFR uses it.

    ``advantages``: float ``[..., S]``; ``mask``: bool ``[..., S]``, True on legal
    slots, at least one per row. Returns probabilities ``[..., S]`` (float32, or
    float64 for float64 input): the positive parts of the legal advantages,
    normalised. When no legal slot has a positive advantage, ``fallback`` decides:
    ``"argmax"`` puts probability 1 on the legal slot with the highest advantage
    (the first on ties), as the paper does, because the network's estimate is
    still informative there; ``"uniform"`` spreads it evenly over legal slots, as
    tabular CFR does. Illegal slots are exactly 0 and every row sums to 1.
    """
    values, mask = _checked_rows(advantages, mask)
    dtype = values.dtype
    positive = torch.where(mask, values.clamp(min=0.0), torch.zeros((), dtype=dtype, device=values.device))
    # Dividing by the row maximum first keeps the sum finite even for advantages near the float limit.
    largest = positive.amax(dim=-1, keepdim=True)
    has_positive = largest > 0.0
    scaled = positive / torch.where(has_positive, largest, torch.ones_like(largest))
    matched = scaled / scaled.sum(dim=-1, keepdim=True).clamp(min=1.0)
    if fallback == "uniform":
        legal = mask.to(dtype)
        backup = legal / legal.sum(dim=-1, keepdim=True)
    elif fallback == "argmax":
        lowest = torch.full((), -torch.inf, dtype=dtype, device=values.device)
        best = torch.where(mask, values, lowest).argmax(dim=-1, keepdim=True)
        backup = torch.zeros_like(values).scatter_(-1, best, 1.0)
    else:
        raise ValueError(f"unknown fallback {fallback!r}; expected 'uniform' or 'argmax'")
    return torch.where(has_positive, matched, backup)


def regret_matching_numpy(
    advantages: NDArray[np.floating], mask: NDArray[np.bool_], fallback: Fallback = "argmax"
) -> NDArray[np.float64]:
    """The numpy twin of :func:`regret_matching`: float and bool ``[..., S]`` -> float64 ``[..., S]``.

    Same rule, same tie-breaking (first highest legal slot), for code outside torch.
    """
    _check_mask(advantages.shape, mask.shape)
    mask = np.asarray(mask, dtype=bool)
    values = np.asarray(advantages, dtype=np.float64)
    if not mask.any(axis=-1).all():
        raise ValueError("every row of the mask needs at least one legal slot")
    positive = np.where(mask, np.maximum(values, 0.0), 0.0)
    largest = positive.max(axis=-1, keepdims=True)
    has_positive = largest > 0.0
    scaled = positive / np.where(has_positive, largest, 1.0)
    matched = scaled / np.maximum(scaled.sum(axis=-1, keepdims=True), 1.0)
    if fallback == "uniform":
        legal = mask.astype(np.float64)
        backup = legal / legal.sum(axis=-1, keepdims=True)
    elif fallback == "argmax":
        best = np.where(mask, values, -np.inf).argmax(axis=-1)[..., np.newaxis]
        backup = np.zeros_like(values)
        np.put_along_axis(backup, best, 1.0, axis=-1)
    else:
        raise ValueError(f"unknown fallback {fallback!r}; expected 'uniform' or 'argmax'")
    result: NDArray[np.float64] = np.where(has_positive, matched, backup)
    return result


def masked_softmax(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Softmax over the legal slots: logits float ``[..., S]``, mask bool ``[..., S]`` -> probabilities.

    The result is float32 (float64 for float64 logits); illegal slots are exactly
    0 and rows sum to 1, every row needing at least one legal slot. Infinite
    logits are clamped to the largest finite value first, so huge or ``±inf``
    logits give a finite answer (ties between them share the probability)
    instead of NaN; NaN logits stay NaN so that a diverged network is noticed.
    """
    values, mask = _checked_rows(logits, mask)
    dtype = values.dtype
    limit = torch.finfo(dtype).max
    lowest = torch.full((), -torch.inf, dtype=dtype, device=values.device)
    # softmax subtracts the row maximum, so finite logits never overflow; exp(-inf) is exactly 0.
    probabilities = torch.softmax(torch.where(mask, values.clamp(-limit, limit), lowest), dim=-1)
    return torch.where(mask, probabilities, torch.zeros((), dtype=dtype, device=values.device))


def weighted_mse(
    predictions: torch.Tensor, targets: torch.Tensor, mask: torch.Tensor, weights: torch.Tensor
) -> torch.Tensor:
    """Deep CFR's training loss: iteration-weighted mean squared error over legal slots, a scalar.

    ``predictions``, ``targets``: float ``[B, S]``; ``mask``: bool ``[B, S]``;
    ``weights``: non-negative float ``[B]``, the CFR iteration t at which each
    sample was collected. The paper weights each sample's loss by t, which makes
    the networks approximate linear CFR's weighted averages. Here the loss is
    ``Σ_i w_i Σ_a m_ia (p_ia − y_ia)² / Σ_i w_i Σ_a m_ia``: dividing by the total
    weight keeps its scale (and so the useful learning rate) the same whether
    the batch comes from iteration 2 or 2000. Illegal slots contribute nothing,
    whatever their targets hold. A batch with no weight gives 0.
    """
    if predictions.shape != targets.shape or predictions.shape != mask.shape or predictions.ndim != 2:
        raise ValueError(
            "predictions, targets and mask must share one shape [batch, slots], got "
            f"{list(predictions.shape)}, {list(targets.shape)} and {list(mask.shape)}"
        )
    if weights.shape != predictions.shape[:1]:
        raise ValueError(f"weights must have shape [{predictions.shape[0]}], got {list(weights.shape)}")
    legal = mask.to(predictions.dtype)
    # where() rather than multiplying: a non-finite target on an illegal slot must not leak in as NaN.
    squared_error = torch.where(mask, (predictions - targets) ** 2, torch.zeros_like(predictions))
    weight_per_entry = weights.to(predictions.dtype).unsqueeze(-1) * legal
    total_weight = weight_per_entry.sum()
    return (weight_per_entry * squared_error).sum() / total_weight.clamp(
        min=torch.finfo(predictions.dtype).tiny
    )


__all__ = [
    "NETWORK_NAMES",
    "Activation",
    "AdvantageNetwork",
    "DeviceName",
    "Fallback",
    "NetworkConfig",
    "PolicyNetwork",
    "build_networks",
    "masked_softmax",
    "regret_matching",
    "regret_matching_numpy",
    "resolve_device",
    "weighted_mse",
]
