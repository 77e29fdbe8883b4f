"""Deep CFR on hold'em: batched against one-network-call-per-node traversals, buffers, training steps.

    python benchmarks/bench_deepcfr_traversal.py                      # about 2 minutes
    python benchmarks/bench_deepcfr_traversal.py --encoding cards     # the 373 card features only

* **Traversals**: external-sampling traversals of the ``configs/hunl_tiny_v1.yaml`` game (the
  first blueprint's, on which ``docs/BENCHMARKS.md``'s figures were measured) with
  its advantage networks (untrained weights, but marked trained so that every decision
  asks its network). ``concurrent=1`` with a strategy function that answers its rows one at
  a time is one network call per node, one traversal at a time; ``concurrent=512`` runs 512
  traversals at once, each split into tasks at the traverser's decisions, and answers each
  round of queries with one call per player. Both draw the same samples for the same traversal
  (tests/deepcfr/test_traversal.py).
* **Reservoir**: bytes per stored sample (record, packed mask, float32 targets, iteration).
* **Training**: SGD steps per second of an advantage network at batch 1024, features
  encoded from reservoir records on the fly (as the trainer does).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import torch

from pokerai.config import config_to_dict
from pokerai.deepcfr.networks import weighted_mse
from pokerai.deepcfr.reservoir import ReservoirBuffer
from pokerai.deepcfr.trainer import DeepCFRTrainer, load_deepcfr_config
from pokerai.deepcfr.traversal import StrategyFunction, run_traversals

ROOT = Path(__file__).resolve().parents[1]


def trainer_for(hidden: list[int], encoding: str | None = None) -> DeepCFRTrainer:
    base = config_to_dict(load_deepcfr_config(ROOT / "configs" / "hunl_tiny_v1.yaml"))
    changes: dict[str, Any] = {"network": {**base["network"], "hidden_sizes": hidden}}
    if encoding is not None:
        changes["encoding"] = encoding
    config = load_deepcfr_config({**base, **changes})
    trainer = DeepCFRTrainer(config, "/tmp/pokerai_bench_traversal")
    trainer.trained = [True, True]
    # Warm up once-per-process work (evaluator and preflop equity tables, torch) outside the timings.
    run_traversals(trainer.game, trainer.encoder, trainer.current_strategy, traverser=0, count=2,
                   iteration=1, seed=99)  # fmt: skip
    return trainer


def one_call_per_row(strategy_fn: StrategyFunction, calls: list[int]) -> StrategyFunction:
    """``strategy_fn`` asked once per query row (the one-call-per-node baseline); counts in ``calls[0]``."""

    def strategy(
        player: int, records: npt.NDArray[Any], masks: npt.NDArray[np.bool_]
    ) -> npt.NDArray[np.float64]:
        calls[0] += len(records)
        rows = [
            strategy_fn(player, records[row : row + 1], masks[row : row + 1]) for row in range(len(records))
        ]
        return np.concatenate([np.asarray(row, dtype=np.float64) for row in rows])

    return strategy


def traversal_rates(
    trainer: DeepCFRTrainer, concurrent: int, count: int, batch: bool = True
) -> dict[str, Any]:
    start = time.perf_counter()
    nodes = queries = calls = 0
    for player in (0, 1):
        row_calls = [0]
        strategy = (
            trainer.current_strategy if batch else one_call_per_row(trainer.current_strategy, row_calls)
        )
        samples = run_traversals(
            trainer.game,
            trainer.encoder,
            strategy,
            traverser=player,
            count=count,
            iteration=1,
            seed=0,
            concurrent=concurrent,
        )
        nodes += samples.nodes
        queries += samples.queries
        calls += samples.calls if batch else row_calls[0]
    seconds = time.perf_counter() - start
    return {"nodes_per_s": nodes / seconds, "traversals_per_s": 2 * count / seconds, "calls": calls,
            "queries": queries, "nodes_per_traversal": nodes / (2 * count)}  # fmt: skip


def training_steps_per_second(trainer: DeepCFRTrainer, steps: int = 60) -> float:
    samples = run_traversals(trainer.game, trainer.encoder, trainer.current_strategy, traverser=0, count=100,
                             iteration=1, seed=1)  # fmt: skip
    buffer = ReservoirBuffer(100_000, trainer.encoder.record_dtype, trainer.num_slots, seed=0)
    buffer.add(samples.advantage_records, samples.advantage_masks, samples.advantage_targets, 1)
    network = trainer.networks["advantage_p0"]
    network.train()
    optimiser = torch.optim.Adam(network.parameters(), lr=1e-3)
    rng = np.random.default_rng(0)
    start = time.perf_counter()
    for _ in range(steps):
        records, masks, targets, iterations = buffer.sample(1024, rng)
        weights = torch.from_numpy(iterations.astype(np.float32))
        predictions = network(trainer.features(records))
        loss = weighted_mse(predictions, torch.from_numpy(targets), torch.from_numpy(masks), weights)
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
    return steps / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--encoding", choices=("cards", "cards+strength"), help="default: hunl_tiny's")
    args = parser.parse_args()
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads\n")
    print("| network | traversal mode | network calls | decision nodes/s | traversals/s | nodes/traversal |")
    print("|---|---|---:|---:|---:|---:|")
    for hidden in ([128, 128], [256, 256, 128]):
        trainer = trainer_for(hidden, args.encoding)
        one = traversal_rates(trainer, concurrent=1, count=40, batch=False)
        batched = traversal_rates(trainer, concurrent=512, count=400)
        for name, rates in (("one call per node", one), ("batched, 512 concurrent", batched)):
            print(f"| {hidden} | {name} | {rates['calls']:,} | {rates['nodes_per_s']:,.0f} "
                  f"| {rates['traversals_per_s']:,.1f} | {rates['nodes_per_traversal']:.0f} |")  # fmt: skip
        print(f"| {hidden} | speed-up (nodes/s) | | {batched['nodes_per_s'] / one['nodes_per_s']:.1f}x | | |")
    print()
    for slots in (6, 8):
        trainer = trainer_for([128, 128])
        buffer = ReservoirBuffer(10, trainer.encoder.record_dtype, slots, seed=0)
        print(f"- reservoir bytes per sample, {slots} slots: {buffer.bytes_per_sample}")
    for hidden in ([128, 128], [256, 256, 128]):
        rate = training_steps_per_second(trainer_for(hidden, args.encoding))
        print(f"- advantage training, {hidden}, batch 1024, CPU: {rate:.1f} steps/s")


if __name__ == "__main__":
    main()
