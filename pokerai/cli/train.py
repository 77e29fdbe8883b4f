"""``pokerai train``: a Deep CFR or tabular MCCFR run from a YAML config, monitored in TensorBoard.

    pokerai train --config configs/leduc_deepcfr.yaml [--runs-dir runs] [--device cpu|cuda|auto] [--json]
    pokerai train --resume runs/<run> [--iterations N]
    pokerai train --config ... --workers N [--ray-address ADDRESS]   # traversals on Ray workers
    tensorboard --logdir runs

A config with ``algorithm: mccfr`` is a tabular MCCFR run on the card abstraction
(:mod:`pokerai.cli.train_tabular`, e.g. ``configs/hunl_mccfr_tiny.yaml``); any other is Deep CFR.
A Deep CFR run writes ``runs/<name>__deepcfr__<seed>__<time>/``: ``config.yaml``, TensorBoard events
(``loss/advantage_p0``, ``loss/policy_p0``, ``buffer/size_p0``, ``perf/traversals_per_s``,
``eval/exploitability`` on Leduc, ``eval/mbb_vs_heuristic`` on hold'em), ``checkpoint.pt``
(atomic; resumable exactly) and, at the end, ``blueprint/`` (the policy networks and config
that ``blueprint:PATH`` agents load). With ``--workers 1`` (the default) everything runs in
this process and Ray is not imported; with more, traversals run on that many Ray actors
(:mod:`pokerai.deepcfr.distributed`) and this process is the learner.

Ctrl-C lets the iteration in progress finish, writes a checkpoint, prints how to resume and
exits with status 130; a second Ctrl-C aborts at once (the last checkpoint stays whole).
Checkpoints are also written every ``checkpoint_every`` iterations and ``checkpoint_minutes`` minutes.
Bad input (an unknown config key, a config file without ``game`` and ``iterations``,
a corrupt checkpoint) is one sentence on stderr, exit 2; so is a missing PyTorch, which this
module does not import until a run starts (``pokerai --help`` stays light).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pokerai.cli.arguments import USAGE_ERROR, add_count, usage_error
from pokerai.cli.training import INTERRUPTED, monitor, report_run
from pokerai.config import ConfigError, dump_config
from pokerai.deepcfr.config import DeepCFRConfig, load_deepcfr_config, replace

if TYPE_CHECKING:  # torch: imported when a run starts, after the check that it is installed
    from pokerai.deepcfr.trainer import DeepCFRTrainer, Evaluator

TRAINING_PACKAGES = (("torch", "PyTorch"), ("tensorboard", "TensorBoard"))
"""The modules a run needs beyond the base install (the ``train`` extra), with their names for people."""


class TrainUsageError(ValueError):
    """A bad argument of ``pokerai train``; the message is one sentence for the user."""


DESCRIPTION = (
    "Deep CFR training: batched external-sampling traversals, reservoir buffers, "
    "advantage and policy networks; Leduc runs report exact exploitability. A config with "
    "`algorithm: mccfr` trains a tabular MCCFR blueprint on a card abstraction instead."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``train`` options and handler, on ``parser``."""
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--config", help="YAML config, e.g. configs/leduc_deepcfr.yaml")
    source.add_argument("--resume", metavar="RUN_DIR", help="continue a run from its checkpoint")
    parser.add_argument("--runs-dir", default="runs", help="where new runs are created (default: runs)")
    parser.add_argument("--device", choices=("cpu", "cuda", "auto"), help="override the config's device")
    parser.add_argument("--iterations", type=int, help="override the total number of iterations")
    add_count(
        parser,
        "--workers",
        "Ray actors that run the traversals (default 1: in this process, Ray not needed)",
        default=1,
        metavar=None,
        name="--workers",
    )
    parser.add_argument(
        "--ray-address",
        metavar="ADDRESS",
        help="a running Ray cluster (e.g. 10.0.0.1:6379 or auto); default: start Ray locally",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object at the end")
    parser.set_defaults(handler=run_train)


def run_train(args: argparse.Namespace) -> int:
    missing = _missing_training_package()
    if missing is not None:
        print(f"pokerai train needs {missing}: pip install 'pokerai[train]'", file=sys.stderr)
        return USAGE_ERROR
    try:
        return _train(args)
    except TrainUsageError as error:
        return usage_error("train", error)


def _missing_training_package() -> str | None:
    """The name of the first package of :data:`TRAINING_PACKAGES` that cannot be imported, if any."""
    for module, name in TRAINING_PACKAGES:
        try:
            __import__(module)
        except ImportError:
            return name
    return None


def _make_trainer(args: argparse.Namespace) -> DeepCFRTrainer:
    from pokerai.deepcfr.checkpoint import CheckpointError
    from pokerai.deepcfr.trainer import DeepCFRTrainer

    if args.iterations is not None and args.iterations < 1:
        raise TrainUsageError(f"--iterations must be a positive whole number, got {args.iterations}")
    if args.ray_address and args.workers < 2:
        raise TrainUsageError("--ray-address needs --workers 2 or more (one worker runs in this process)")
    if args.workers > 1:
        from pokerai.deepcfr.distributed import DistributedError, import_ray

        try:
            import_ray()
        except DistributedError as error:
            raise TrainUsageError(f"--workers {args.workers}: {error}") from None
    try:
        if args.resume:
            if not Path(args.resume).is_dir():
                raise TrainUsageError(f"--resume {args.resume!r}: no such run folder")
            trainer = DeepCFRTrainer.resume(args.resume, device=args.device)
            if args.iterations is not None:
                trainer.config = replace(trainer.config, iterations=args.iterations)
            return trainer
        config = load_deepcfr_config(args.config)
        if args.iterations is not None:
            config = replace(config, iterations=args.iterations)
        stamp = time.strftime("%Y%m%d-%H%M%S")
        run_dir = Path(args.runs_dir) / f"{config.name}__deepcfr__{config.seed}__{stamp}"
        run_dir.mkdir(parents=True, exist_ok=False)
        (run_dir / "config.yaml").write_text(dump_config(config))
        return DeepCFRTrainer(config, run_dir, device=args.device)
    except (ConfigError, CheckpointError) as error:
        raise TrainUsageError(str(error)) from None
    except FileExistsError as error:
        raise TrainUsageError(f"run folder {error.filename!r} already exists") from None
    except ValueError as error:  # e.g. --device cuda without a GPU
        raise TrainUsageError(str(error)) from None


def _evaluator(config: DeepCFRConfig) -> Evaluator | None:
    """Leduc: exact exploitability. Hold'em: a seeded duplicate match against the heuristic."""
    from pokerai.cli.train_eval import hunl_evaluator
    from pokerai.deepcfr.trainer import policy_exploitability

    if config.game == "leduc":
        return lambda trainer: {"eval/exploitability": policy_exploitability(trainer)}
    if config.evaluation.hunl_pairs > 0:
        return hunl_evaluator(config.evaluation.hunl_pairs, seed=config.seed)
    return None


def _attach_pool(trainer: DeepCFRTrainer, args: argparse.Namespace) -> Any:
    """Start the Ray workers for ``--workers N`` (N >= 2); ``None`` with one worker."""
    if args.workers < 2:
        return None
    from pokerai.deepcfr.distributed import DistributedError, RayTraversalPool

    try:
        pool = RayTraversalPool(trainer.config, args.workers, address=args.ray_address)
    except DistributedError as error:
        if trainer.iteration == 0 and not args.resume:  # the new run folder holds only config.yaml
            shutil.rmtree(trainer.run_dir, ignore_errors=True)
        raise TrainUsageError(f"--workers {args.workers}: {error}") from None
    trainer.pool = pool
    return pool


def _is_tabular(args: argparse.Namespace) -> bool:
    """Whether the run is a tabular MCCFR one: a config with ``algorithm: mccfr``, or a run folder
    with its checkpoint. Unreadable configs are left to the Deep CFR loader, which reports them."""
    if args.resume:
        from pokerai.tabular.trainer import CHECKPOINT_NAME

        return (Path(args.resume) / CHECKPOINT_NAME).is_file()
    import yaml

    from pokerai.tabular.config import is_tabular_config

    try:
        return is_tabular_config(yaml.safe_load(Path(args.config).read_text()))
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return False


def _train(args: argparse.Namespace) -> int:
    if _is_tabular(args):
        from pokerai.cli.train_tabular import make_tabular_trainer, train_tabular

        if args.workers > 1:
            raise TrainUsageError("--workers runs Deep CFR traversals on Ray; a tabular run uses its threads")
        return train_tabular(make_tabular_trainer(args, TrainUsageError), args)
    trainer = _make_trainer(args)
    pool = _attach_pool(trainer, args)
    if pool is None:
        return _train_with(trainer, args)
    from pokerai.deepcfr.distributed import DistributedError

    try:
        return _train_with(trainer, args)
    except DistributedError as error:
        print(
            f"pokerai train: error: {error}; the last checkpoint is in {trainer.run_dir} "
            f"(continue with --resume {trainer.run_dir})",
            file=sys.stderr,
        )
        return 1
    finally:
        pool.close()


def _train_with(trainer: DeepCFRTrainer, args: argparse.Namespace) -> int:
    from pokerai.deepcfr.export import export_policy
    from pokerai.deepcfr.trainer import CHECKPOINT_NAME

    total = trainer.config.iterations

    def show(iteration: int, scalars: dict[str, float]) -> None:
        shown = ", ".join(
            f"{tag} {value:.4g}"
            for tag, value in scalars.items()
            if tag.startswith(("loss/advantage", "eval/")) or tag == "perf/traversals_per_s"
        )
        print(f"iteration {iteration}/{total}: {shown}", file=sys.stderr, flush=True)

    outcome = monitor(
        trainer,
        evaluator=_evaluator(trainer.config),
        checkpoint_name=CHECKPOINT_NAME,
        interrupt_notice=lambda: (
            f"\nCtrl-C: finishing iteration {trainer.iteration}, then writing a checkpoint "
            "(Ctrl-C again to abort at once)\n"
        ),
        show=None if args.json else show,
    )
    if outcome is None:
        return INTERRUPTED
    final, start = outcome
    blueprint = export_policy(trainer, trainer.run_dir / "blueprint")
    payload = {
        "run_dir": str(trainer.run_dir),
        "blueprint": str(blueprint.parent),
        "iterations": trainer.iteration,
        "workers": args.workers,
        "seconds": round(time.perf_counter() - start, 2),
        "final": final,
    }
    report_run(
        trainer, final, payload, f"blueprint (policy networks + config): {blueprint.parent}", args.json
    )
    return 0
