"""How far Deep CFR's advantage network is from the regrets its reservoir holds, on Leduc.

Question: how far is the advantage network from the regrets its reservoir holds?
Answer: docs/RESULTS.md, "Deep CFR on Leduc" > "What the config does, and why".

    python experiments/leduc_advantage_fit.py --iterations 400        # about 3 minutes, 2 threads

Trains ``configs/leduc_deepcfr.yaml`` (or ``--config``) for ``--iterations``, then takes
player 0's advantage reservoir as it stands. Its *exact fit* is, per information set, the
iteration-weighted mean of the stored regret samples: what a perfect regression would
return. For the trained network, and for copies refitted on the same reservoir in several
ways, it prints the mean over information sets of

* the L1 distance between regret matching on the network and on the exact fit, and
* the RMS error of the network's regrets (chips, legal actions only).

The refits: more steps at the run's constant learning rate; the same steps read through an
exponential moving average of the weights; more and larger steps with the learning rate
decayed to 0; and a fresh network trained that way. Numbers are in ``docs/RESULTS.md``.
"""

from __future__ import annotations

import argparse
import copy
import time
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import torch

from pokerai.config import config_to_dict
from pokerai.deepcfr.networks import regret_matching_numpy, weighted_mse
from pokerai.deepcfr.reservoir import unpack_masks
from pokerai.deepcfr.trainer import DeepCFRTrainer, _iteration_weights, load_deepcfr_config

ROOT = Path(__file__).resolve().parents[1]
NAME = "advantage_p0"


def exact_fit(trainer: DeepCFRTrainer) -> tuple[Any, npt.NDArray[np.bool_], npt.NDArray[np.float64], Any]:
    """Player 0's information sets in the reservoir: records, masks, weighted mean regrets, counts."""
    rows = trainer.advantage_buffers[0].contents()
    records = rows["info"]
    raw = np.ascontiguousarray(records).view(np.uint8).reshape(len(records), -1)
    _, first, inverse = np.unique(raw, axis=0, return_index=True, return_inverse=True)
    inverse = inverse.reshape(-1)
    weights = rows["iteration"].astype(np.float64)
    sums = np.zeros((len(first), rows["target"].shape[1]))
    np.add.at(sums, inverse, rows["target"] * weights[:, None])
    means = sums / np.bincount(inverse, weights=weights)[:, None]
    masks = unpack_masks(rows["mask"][first], trainer.num_slots)
    return records[first], masks, means, np.bincount(inverse)


def distance(trainer: DeepCFRTrainer, network: torch.nn.Module, fit: tuple[Any, ...]) -> tuple[float, float]:
    records, masks, means, _ = fit
    with torch.inference_mode():
        predicted = network(trainer.features(records)).double().numpy()
    l1 = np.abs(regret_matching_numpy(means, masks) - regret_matching_numpy(predicted, masks)).sum(axis=1)
    rms = np.sqrt(((predicted - means) ** 2 * masks).sum(axis=1) / masks.sum(axis=1))
    return float(l1.mean()), float(rms.mean())


def refit(
    trainer: DeepCFRTrainer,
    start: dict[str, torch.Tensor],
    *,
    steps: int,
    batch: int,
    decay_learning_rate: bool,
    fresh: bool = False,
    averages: tuple[float, ...] = (),
) -> dict[str, torch.nn.Module]:
    """Train a copy of player 0's advantage network on its reservoir; returns it and its averages."""
    network = copy.deepcopy(trainer.networks[NAME])
    network.load_state_dict(start)
    if fresh:
        network.reset_parameters(torch.Generator().manual_seed(1))  # type: ignore[operator]
    network.train()
    learning_rate = trainer.config.advantage.learning_rate
    optimiser = torch.optim.Adam(network.parameters(), lr=learning_rate)
    averaged = {decay: copy.deepcopy(network).requires_grad_(False) for decay in averages}
    rng = np.random.default_rng(7)
    buffer = trainer.advantage_buffers[0]
    for step in range(steps):
        if decay_learning_rate:
            for group in optimiser.param_groups:
                group["lr"] = learning_rate * (1.0 - step / steps)
        records, masks, targets, iterations = buffer.sample(batch, rng)
        weights = torch.from_numpy(_iteration_weights(iterations, trainer.config.advantage.weight_exponent))
        loss = weighted_mse(
            network(trainer.features(records)), torch.from_numpy(targets), torch.from_numpy(masks), weights
        )
        optimiser.zero_grad(set_to_none=True)
        loss.backward()
        optimiser.step()
        with torch.no_grad():
            for decay, average in averaged.items():
                for kept, current in zip(average.parameters(), network.parameters(), strict=True):
                    kept.lerp_(current, 1.0 - decay)
    network.eval()
    return {
        "": network,
        **{f", weights averaged (decay {decay})": net.eval() for decay, net in averaged.items()},
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--config", type=Path, default=ROOT / "configs" / "leduc_deepcfr.yaml")
    parser.add_argument("--iterations", type=int, default=400)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--run-dir", type=Path, default=Path("/tmp/pokerai_leduc_advantage_fit"))
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    config = load_deepcfr_config(args.config)
    plain = config_to_dict(config)
    plain.update(iterations=args.iterations, checkpoint_every=10**9, evaluation={"every": 10**9})
    trainer = DeepCFRTrainer(load_deepcfr_config(plain), args.run_dir)
    start = time.perf_counter()
    while trainer.iteration < args.iterations:
        trainer.run_iteration()
    print(f"trained {args.iterations} iterations in {time.perf_counter() - start:.0f} s")
    fit = exact_fit(trainer)
    _, masks, means, counts = fit
    magnitude = np.sqrt((means**2 * masks).sum(axis=1) / masks.sum(axis=1)).mean()
    print(
        f"player 0: {len(counts)} information sets, samples per set median {np.median(counts):.0f}, "
        f"min {counts.min()}; mean RMS of the exact regrets {magnitude:.2f} chips"
    )
    print(f"{'advantage network':<72} {'L1':>6} {'RMS':>6}")
    l1, rms = distance(trainer, trainer.networks[NAME], fit)
    print(f"{'as trained':<72} {l1:6.3f} {rms:6.3f}")
    start_state = copy.deepcopy(trainer.networks[NAME].state_dict())
    steps, batch = 600, trainer.config.advantage.batch_size
    variants: list[tuple[str, dict[str, Any]]] = [
        (
            f"+{steps} steps of {batch}, constant rate",
            dict(steps=steps, batch=batch, decay_learning_rate=False, averages=(0.98, 0.995)),
        ),
        ("+2000 steps of 2048, rate decayed to 0", dict(steps=2000, batch=2048, decay_learning_rate=True)),
        (
            "fresh weights, 4000 steps of 2048, rate decayed to 0",
            dict(steps=4000, batch=2048, decay_learning_rate=True, fresh=True),
        ),
    ]
    for label, options in variants:
        for suffix, network in refit(trainer, start_state, **options).items():
            l1, rms = distance(trainer, network, fit)
            print(f"{label + suffix:<72} {l1:6.3f} {rms:6.3f}", flush=True)


if __name__ == "__main__":
    main()
