"""What a training run of ``pokerai train`` shows while it runs and when it stops.

``pokerai train`` runs Deep CFR (:mod:`pokerai.cli.train`) or tabular MCCFR
(:mod:`pokerai.cli.train_tabular`). Both are watched the same way (:func:`monitor`: TensorBoard
events in the run folder, progress on stderr, Ctrl-C reported with how to resume) and end with the
same report (:func:`report_run`), so both take these from here.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pokerai.cli.output import emit, progress_bar
from pokerai.config import dump_config
from pokerai.interrupts import TrainingInterrupted

INTERRUPTED = 130
"""The exit status of a run stopped by Ctrl-C (128 + SIGINT, as shells report it)."""


def report_interrupt(checkpoint: Path, iteration: int, stop: KeyboardInterrupt) -> None:
    """Say on stderr how a run whose checkpoint file is ``checkpoint`` stopped at ``iteration``, and
    how to resume it."""
    resume = f"continue with: pokerai train --resume {checkpoint.parent}"
    if isinstance(stop, TrainingInterrupted):
        line = f"interrupted at iteration {stop.iteration}; checkpoint written; {resume}"
    elif checkpoint.is_file():
        line = f"aborted during iteration {iteration}; the last checkpoint is intact; {resume}"
    else:
        line = f"aborted during iteration {iteration}, before the first checkpoint"
    print(line, file=sys.stderr)


def write_now(text: str) -> None:
    """``text`` to stderr without Python's stream buffer (safe in a signal handler)."""
    try:
        descriptor = sys.stderr.fileno()
    except (AttributeError, OSError, ValueError):  # a stream without a file (captured in tests)
        sys.stderr.write(text)
        return
    os.write(descriptor, text.encode())


def monitor(
    trainer: Any,
    *,
    evaluator: Any,
    checkpoint_name: str,
    interrupt_notice: Callable[[], str],
    show: Callable[[int, dict[str, float]], None] | None = None,
) -> tuple[dict[str, float], float] | None:
    """Run ``trainer`` (Deep CFR or tabular) to its last iteration, watched.

    Scalars go to TensorBoard events in its run folder (the config as text in a new run); a bar on
    a terminal follows the iterations, and elsewhere ``show(iteration, scalars)``, if given, prints
    them. A Ctrl-C writes ``interrupt_notice()`` at once; when the run stops,
    :func:`report_interrupt` says how to resume from ``checkpoint_name`` and None is returned.
    Otherwise: the final scalars and the ``time.perf_counter()`` at which the run started.
    """
    from torch.utils.tensorboard import SummaryWriter

    writer = SummaryWriter(str(trainer.run_dir), purge_step=trainer.iteration + 1)
    if trainer.iteration == 0:
        writer.add_text("config", "```\n" + dump_config(trainer.config) + "\n```", 0)
    bar = progress_bar(trainer.config.iterations, "iteration")
    if bar is not None:
        bar.update_to(trainer.iteration)
    start = time.perf_counter()

    def log(iteration: int, scalars: dict[str, float]) -> None:
        for tag, value in scalars.items():
            writer.add_scalar(tag, value, iteration)
        writer.flush()
        if bar is not None:
            bar.update_to(iteration)
        elif show is not None:
            show(iteration, scalars)

    def notice() -> None:
        # Called from the SIGINT handler, which may run inside a print to stderr: os.write does not
        # re-enter Python's buffered stream as a print would.
        write_now(interrupt_notice())

    interrupted: KeyboardInterrupt | None = None
    try:
        final = trainer.train(evaluator=evaluator, log=log, on_interrupt=notice)
    except KeyboardInterrupt as stop:  # TrainingInterrupted, or a second Ctrl-C mid-iteration
        interrupted = stop
    finally:
        writer.close()
        if bar is not None:
            bar.close()
    if interrupted is not None:
        report_interrupt(trainer.run_dir / checkpoint_name, trainer.iteration, interrupted)
        return None
    return final, start


def report_run(
    trainer: Any, final: dict[str, float], payload: dict[str, Any], blueprint: str, as_json: bool
) -> None:
    """The end of a finished run on stdout: ``payload`` as JSON, or its final scalars, ``blueprint``
    (a line naming the exported blueprint) and the TensorBoard command."""
    lines = [f"run {trainer.run_dir}: {trainer.iteration} iterations"]
    lines += [f"  {tag:<32} {value:.6g}" for tag, value in sorted(final.items())]
    lines.append(blueprint)
    lines.append(f"tensorboard --logdir {trainer.run_dir}")
    emit(payload, "\n".join(lines), as_json)


__all__ = ["INTERRUPTED", "monitor", "report_interrupt", "report_run", "write_now"]
