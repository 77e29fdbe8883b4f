"""``pokerai train`` for a tabular MCCFR config (``algorithm: mccfr``): the run, its logs and its blueprint.

A run writes ``runs/<name>__mccfr__<seed>__<time>/``: ``config.yaml`` (the card
abstraction's config inline), TensorBoard events, ``checkpoint.npz`` (atomic, resumable
exactly) and, at the end, ``blueprint/``, which ``blueprint:PATH`` and ``search:PATH`` play.
The card abstraction the config names is found in the cache or built first, and the run
says which. TensorBoard scalars: ``perf/iterations_per_s``, ``perf/nodes_per_s``,
``table/fill`` (the share of information-set entries reached), and at each evaluation
``eval/mbb_vs_heuristic`` (a seeded duplicate match) and, with ``evaluation.lbr_hands``,
``eval/lbr_mbb`` (what local best response wins against the blueprint).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from pokerai.config import ConfigError, dump_config
from pokerai.tabular.config import TabularConfig, load_tabular_config
from pokerai.tabular.trainer import (
    CHECKPOINT_NAME,
    TabularCheckpointError,
    TabularEvaluator,
    TabularTrainer,
    run_size,
)


def tabular_evaluator(config: TabularConfig) -> TabularEvaluator | None:
    """Duplicate pairs against ``heuristic`` and LBR hands, as ``config.evaluation`` asks (None: neither)."""
    evaluation = config.evaluation
    if evaluation.hunl_pairs == 0 and evaluation.lbr_hands == 0:
        return None

    def evaluate(trainer: TabularTrainer) -> dict[str, float]:
        from pokerai.agents.blueprint import BlueprintAgent
        from pokerai.agents.spec import make_agent
        from pokerai.eval.duplicate import duplicate_match
        from pokerai.eval.lbr import lbr_match

        scalars: dict[str, float] = {}
        agent = BlueprintAgent(trainer.blueprint())
        if evaluation.hunl_pairs:
            result = duplicate_match(
                agent,
                make_agent("heuristic"),
                evaluation.hunl_pairs,
                seed=config.seed,
                config=trainer.game.config,
            )
            scalars["eval/mbb_vs_heuristic"] = float(result.mbb_per_hand)
            scalars["eval/mbb_vs_heuristic_ci95"] = float(result.estimate.half_width)
        if evaluation.lbr_hands:
            lbr = lbr_match(agent, evaluation.lbr_hands, seed=config.seed, config=trainer.game.config)
            scalars["eval/lbr_mbb"] = float(lbr.mbb_per_hand)
        return scalars

    return evaluate


def make_tabular_trainer(args: argparse.Namespace, usage_error: type[Exception]) -> TabularTrainer:
    """The trainer of ``--config`` (a new run folder) or ``--resume``; bad input raises ``usage_error``."""

    def building(phase: str, done: int, total: int) -> None:
        if done == 0:
            print(f"building card abstraction: {phase}", file=sys.stderr, flush=True)

    try:
        if args.resume:
            resumed = Path(args.resume) / "config.yaml"
            if resumed.is_file():
                _say_size(load_tabular_config(resumed))
            trainer = TabularTrainer.resume(args.resume, progress=building)
            if args.iterations is not None:
                trainer.with_iterations(args.iterations)
            return trainer
        config = load_tabular_config(args.config)
        if args.iterations is not None:
            config = load_tabular_config({**_as_dict(config), "iterations": args.iterations})
        _say_size(config)
        stamp = time.strftime("%Y%m%d-%H%M%S")
        run_dir = Path(args.runs_dir) / f"{config.name}__mccfr__{config.seed}__{stamp}"
        trainer = TabularTrainer(config, run_dir, progress=building)
        run_dir.mkdir(parents=True, exist_ok=False)
        (run_dir / "config.yaml").write_text(dump_config(config))
        return trainer
    except (ConfigError, TabularCheckpointError) as error:
        raise usage_error(str(error)) from None
    except FileExistsError as error:
        raise usage_error(f"run folder {error.filename!r} already exists") from None


def _say_size(config: TabularConfig) -> None:
    """Print the tree's size and the tables' memory (:func:`run_size`) to stderr before a run starts."""
    size = run_size(config)
    streets = "/".join(str(size[f"decisions_{name}"]) for name in ("preflop", "flop", "turn", "river"))
    print(
        f"betting tree: {size['nodes']:,} nodes, decisions {streets} (preflop/flop/turn/river); "
        f"{size['infosets']:,} information sets, {size['table_entries']:,} table entries\n"
        f"memory: {size['table_bytes'] / 2**20:,.0f} MiB of regrets and strategy sums, "
        f"{size['abstraction_bytes'] / 2**20:,.0f} MiB of bucket tables",
        file=sys.stderr,
        flush=True,
    )


def _as_dict(config: TabularConfig) -> dict[str, Any]:
    from pokerai.config import config_to_dict

    return config_to_dict(config)


def train_tabular(trainer: TabularTrainer, args: argparse.Namespace) -> int:
    """Run ``trainer`` to the end (or Ctrl-C), log to TensorBoard, export the blueprint; the exit status."""
    from pokerai.cli.training import INTERRUPTED, monitor, report_run

    where = trainer.abstraction_file
    if where is not None and not args.json:
        said = "built and cached" if trainer.abstraction_built else "found in the cache"
        print(
            f"card abstraction {trainer.config.abstraction_config.name!r}: {said} at {where}", file=sys.stderr
        )
    outcome = monitor(
        trainer,
        evaluator=tabular_evaluator(trainer.config),
        checkpoint_name=CHECKPOINT_NAME,
        interrupt_notice=lambda: (
            "\nCtrl-C: finishing this batch, then writing a checkpoint (Ctrl-C again to abort at once)\n"
        ),
    )
    if outcome is None:
        return INTERRUPTED
    final, start = outcome
    blueprint = trainer.export()
    payload = {
        "run_dir": str(trainer.run_dir),
        "blueprint": str(blueprint),
        "iterations": trainer.iteration,
        "seconds": round(time.perf_counter() - start, 2),
        "table_entries": trainer.solver.table_size,
        "table_megabytes": round(2 * trainer.solver.regrets.nbytes / 2**20, 2),
        "final": final,
    }
    report_run(trainer, final, payload, f"blueprint (average strategy + config): {blueprint}", args.json)
    return 0


__all__ = ["make_tabular_trainer", "tabular_evaluator", "train_tabular"]
