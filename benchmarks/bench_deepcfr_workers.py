"""Deep CFR traversals on Ray workers against one process, and the learner's training steps.

    python benchmarks/bench_deepcfr_workers.py                 # about 2 minutes; needs .[distributed]
    python benchmarks/bench_deepcfr_workers.py --config configs/leduc_deepcfr_sampled.yaml --traversals 2000

* **Traversals per second** of one iteration's traversal phase (both players), as
  ``pokerai train`` runs it: ``--workers 1`` in this process, ``--workers 2`` on two Ray
  actors of one CPU each (a local Ray; the learner waits meanwhile). The advantage networks
  have untrained weights but are marked trained, so every decision asks its network as in a
  real run, and the pool sends them to the workers once (as after a retraining). Startup
  (Ray, the actors' imports) is timed apart; the rates are the median of ``--repeats``
  warm phases, each on a fresh iteration number so that the samples differ.
* **Learner steps per second**: SGD steps of an advantage network on a filled reservoir at
  the config's batch size, features encoded on the fly, float32 and bfloat16 autocast
  (``mixed_precision: true``), on the CPU, and on CUDA when one is present.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import statistics
import time
from pathlib import Path
from typing import Any

import torch

from pokerai.config import config_to_dict
from pokerai.deepcfr.distributed import RayTraversalPool
from pokerai.deepcfr.trainer import DeepCFRTrainer, load_deepcfr_config

ROOT = Path(__file__).resolve().parents[1]


def make_trainer(config_path: Path, traversals: int, **changes: Any) -> DeepCFRTrainer:
    base = config_to_dict(load_deepcfr_config(config_path))
    config = load_deepcfr_config({**base, "traversals_per_iteration": traversals, **changes})
    trainer = DeepCFRTrainer(config, "/tmp/pokerai_bench_workers")
    trainer.trained = [True, True]
    trainer.advantage_versions = [1, 1]
    return trainer


def phase_rates(trainer: DeepCFRTrainer, repeats: int) -> dict[str, Any]:
    """Warm up with one phase, then time ``repeats`` phases (both players each)."""
    start = time.perf_counter()
    for player in (0, 1):
        trainer.traverse(player, 1)
    warmup = time.perf_counter() - start
    rates = []
    for repeat in range(repeats):
        start = time.perf_counter()
        for player in (0, 1):
            trainer.traverse(player, 2 + repeat)
        rates.append(2 * trainer.config.traversals_per_iteration / (time.perf_counter() - start))
    return {"warmup_s": round(warmup, 2), "traversals_per_s": statistics.median(rates), "all": rates}


def learner_steps(trainer: DeepCFRTrainer, device: str, mixed: bool, steps: int) -> float:
    """SGD steps per second of advantage_p0 on its (filled) reservoir."""
    changes = {"device": device, "mixed_precision": mixed}
    config = load_deepcfr_config({**config_to_dict(trainer.config), **changes})
    learner = DeepCFRTrainer(config, "/tmp/pokerai_bench_workers")
    learner.advantage_buffers = trainer.advantage_buffers
    timed = dataclasses.replace(config.advantage, steps=steps)
    learner._fit("advantage_p0", learner.advantage_buffers[0], timed, policy=False)  # warm-up
    if learner.device.type == "cuda":
        torch.cuda.synchronize()
    start = time.perf_counter()
    learner._fit("advantage_p0", learner.advantage_buffers[0], timed, policy=False)
    if learner.device.type == "cuda":
        torch.cuda.synchronize()
    return steps / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default=str(ROOT / "configs" / "hunl_tiny_v1.yaml"))
    parser.add_argument("--traversals", type=int, default=500, help="per player and phase")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--steps", type=int, default=200, help="learner steps timed")
    args = parser.parse_args()

    single = make_trainer(Path(args.config), args.traversals)
    one = phase_rates(single, args.repeats)
    print(f"1 worker (in process): {one['traversals_per_s']:.1f} traversals/s", flush=True)

    start = time.perf_counter()
    pool = RayTraversalPool(single.config, args.workers)
    distributed = make_trainer(Path(args.config), args.traversals)
    distributed.pool = pool
    startup = time.perf_counter() - start
    try:
        many = phase_rates(distributed, args.repeats)
        broadcasts = len(pool.stats.broadcasts)
        worker_rss = [round(stats["max_rss_mb"]) for stats in pool.worker_stats()]
    finally:
        pool.close()
    ratio = many["traversals_per_s"] / one["traversals_per_s"]
    print(
        f"{args.workers} Ray workers: {many['traversals_per_s']:.1f} traversals/s "
        f"({ratio:.2f}x; Ray start {startup:.1f} s, first phase {many['warmup_s']} s, "
        f"{broadcasts} weight broadcasts)",
        flush=True,
    )

    # Fill a reservoir for the learner with one more phase's samples.
    advantage_rows = strategy_rows = 0
    for player in (0, 1):
        samples = single.traverse(player, 99)
        single.advantage_buffers[player].add(
            samples.advantage_records, samples.advantage_masks, samples.advantage_targets, 1
        )
        advantage_rows += len(samples.advantage_records)
        strategy_rows += len(samples.strategy_records)
    phase = 2 * args.traversals
    samples_per_traversal = {
        "advantage": round(advantage_rows / phase, 2),
        "strategy": round(strategy_rows / phase, 2),
        "bytes_per_sample": single.advantage_buffers[0].bytes_per_sample,
    }
    print(f"samples per traversal: {samples_per_traversal}; worker peak RSS MB: {worker_rss}", flush=True)
    learner: dict[str, float] = {}
    devices = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])
    for device in devices:
        for mixed in (False, True):
            name = f"{device}{'_bf16' if mixed else '_fp32'}"
            learner[name] = learner_steps(single, device, mixed, args.steps)
            print(f"learner steps/s {name}: {learner[name]:.1f}", flush=True)

    print(
        json.dumps(
            {
                "config": args.config,
                "traversals_per_player": args.traversals,
                "one_worker": one,
                "workers": args.workers,
                "many_workers": many,
                "speedup": round(ratio, 3),
                "ray_start_s": round(startup, 2),
                "weight_broadcasts": broadcasts,
                "worker_max_rss_mb": worker_rss,
                "samples_per_traversal": samples_per_traversal,
                "learner_steps_per_s": {k: round(v, 1) for k, v in learner.items()},
                "batch_size": single.config.advantage.batch_size,
                "hidden_sizes": list(single.config.network.hidden_sizes),
                "torch_threads": torch.get_num_threads(),
                "cpus": os.cpu_count(),
            }
        )
    )


if __name__ == "__main__":
    main()
