"""How a training run reports a Ctrl-C: its exit status and the lines it writes on stderr.

``pokerai train`` runs Deep CFR (:mod:`pokerai.cli.train`) or tabular MCCFR
(:mod:`pokerai.cli.train_tabular`); both stop the same way, so both take these from here.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

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


__all__ = ["INTERRUPTED", "report_interrupt", "write_now"]
