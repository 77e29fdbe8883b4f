"""Refit a finished run's policy networks on its strategy reservoirs, and export them as a blueprint.

Question: does a shorter or longer fit of the policy networks make a stronger hold'em blueprint?
Answer: docs/RESULTS.md, "Deep CFR on hold'em" > "A short policy fit beats a long one".

The policy networks of a Deep CFR run are a fit of the average strategy held in
the run's strategy reservoirs. This script trains fresh policy networks on
those reservoirs with another number of steps (or seed), without traversing
again, so that the fit alone can be compared:

    OMP_NUM_THREADS=1 python experiments/refit_policy.py runs/<run> --steps 250 --out /tmp/bp_250
    OMP_NUM_THREADS=1 python benchmarks/compare_agents.py --b heuristic --pairs 20000 --seed 3 --workers 2 \\
        "blueprint:runs/<run>/blueprint?threshold=0.3" "blueprint:/tmp/bp_250?threshold=0.3"

With several runs (of one game), the networks are fitted to the union of their
reservoirs, each row keeping its iteration weight. The rows are gathered
(ordered by run, then iteration) into one reservoir first, also for one run, so
even at the run's own step count the result is not the run's own fit.
``--seed`` re-seeds the networks' initialisation and the batches; without it
the generators saved in the (first) run's checkpoint are used, as they were
after its last fit. The exported blueprint carries the first run's config (with
``policy.steps`` set to ``--steps``) and iteration. Runs need not be finished;
each one's iteration is printed. A checkpoint holds the reservoirs (hundreds of MB for
``hunl_tiny.yaml``), so each run folder must still have its ``checkpoint.pt``.
"""

from __future__ import annotations

import argparse
import dataclasses
import time
from pathlib import Path

import numpy as np

from pokerai.config import ConfigError
from pokerai.deepcfr.checkpoint import CheckpointError
from pokerai.deepcfr.export import export_policy
from pokerai.deepcfr.reservoir import ReservoirBuffer, unpack_masks
from pokerai.deepcfr.trainer import CHECKPOINT_NAME, DeepCFRTrainer, load_deepcfr_config, make_game


def merged_buffer(trainers: list[DeepCFRTrainer], player: int, seed: int) -> ReservoirBuffer:
    """One reservoir holding every strategy row of ``player`` from all ``trainers`` (none evicted)."""
    base = trainers[0]
    total = sum(len(trainer.strategy_buffers[player]) for trainer in trainers)
    if total == 0:
        raise SystemExit(f"the runs hold no strategy rows for player {player}")
    settings = base.config.policy
    merged = ReservoirBuffer(
        total,
        base.encoder.record_dtype,
        base.num_slots,
        seed,
        group_weight_exponent=settings.weight_exponent if settings.grouped else None,
    )
    for trainer in trainers:
        rows = trainer.strategy_buffers[player].contents()
        for iteration in np.unique(rows["iteration"]):
            chosen = rows[rows["iteration"] == iteration]
            masks = unpack_masks(chosen["mask"], base.num_slots)
            merged.add(chosen["info"], masks, chosen["target"], int(iteration))
    return merged


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("runs", nargs="+", metavar="RUN_DIR", help="run folders with checkpoint.pt")
    parser.add_argument("--steps", type=int, required=True, help="SGD steps of each policy network's fit")
    parser.add_argument("--seed", type=int, help="re-seed initialisation and batches (default: the run's)")
    parser.add_argument("--out", required=True, help="blueprint folder to write")
    args = parser.parse_args()
    if args.steps < 1:
        raise SystemExit(f"--steps must be at least 1, got {args.steps}")
    if Path(args.out).exists():
        raise SystemExit(f"--out {args.out!r} already exists")
    games = set()
    for run in args.runs:
        if not (Path(run) / CHECKPOINT_NAME).is_file():
            raise SystemExit(f"{run!r} has no {CHECKPOINT_NAME} (every run folder keeps its last one)")
        try:
            config = load_deepcfr_config(Path(run) / "config.yaml")
        except ConfigError as error:
            raise SystemExit(f"{run!r}: {error}") from None
        games.add((make_game(config).name, config.encoding))
    if len(games) != 1:
        raise SystemExit(f"the runs must share one game and encoding, got {sorted(games)}")
    try:
        trainers = [DeepCFRTrainer.resume(run) for run in args.runs]
    except (CheckpointError, ConfigError) as error:
        raise SystemExit(f"cannot load a run: {error}") from None
    base = trainers[0]
    for player in (0, 1):  # also with one run: its rows, ordered by iteration
        base.strategy_buffers[player] = merged_buffer(trainers, player, seed=12345 + player)
    for run, trainer in zip(args.runs, trainers, strict=True):
        print(f"{run}: iteration {trainer.iteration} of {trainer.config.iterations}")
    for player in (0, 1):
        print(f"player {player}: {len(base.strategy_buffers[player]):,} strategy rows", flush=True)
    base.config = dataclasses.replace(
        base.config, policy=dataclasses.replace(base.config.policy, steps=args.steps)
    )
    if args.seed is not None:
        base.init_rng.manual_seed(args.seed)
        base.sample_rng = np.random.default_rng(args.seed)
    start = time.perf_counter()
    losses = base.train_policies()
    seconds = time.perf_counter() - start
    shown = ", ".join(f"{tag} {value:.4f}" for tag, value in sorted(losses.items()))
    print(f"{args.steps} steps in {seconds:.1f} s: {shown}")
    print(f"blueprint: {export_policy(base, args.out).parent}")


if __name__ == "__main__":
    main()
