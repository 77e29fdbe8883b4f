"""Ctrl-C or ``kill`` during training: finish the iteration, write the checkpoint, then stop.

Shared by the Deep CFR and the tabular trainers: inside
:func:`finish_iteration_on_interrupt` a first SIGINT (Ctrl-C) or SIGTERM (``kill``, as a
long run started in the background with ``nohup`` is stopped; such a job ignores SIGINT)
only asks the loop to stop after the iteration in progress; the trainer then writes its
checkpoint and raises :class:`TrainingInterrupted`.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any


class TrainingInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped a trainer's ``train`` after a whole iteration, whose checkpoint is written.

    ``iteration`` is the last one done, ``checkpoint`` the file. A ``KeyboardInterrupt``, so code that
    does not know it still stops as on any Ctrl-C.
    """

    def __init__(self, iteration: int, checkpoint: Path) -> None:
        super().__init__(f"interrupted at iteration {iteration}; checkpoint written to {checkpoint}")
        self.iteration = iteration
        self.checkpoint = checkpoint


class InterruptRequest:
    """Set by the SIGINT and SIGTERM handler of :func:`finish_iteration_on_interrupt`."""

    def __init__(self) -> None:
        self.requested = False


@contextmanager
def finish_iteration_on_interrupt(
    on_interrupt: Callable[[], None] | None,
) -> Iterator[InterruptRequest]:
    """While inside, a first SIGINT or SIGTERM only sets ``requested`` (and calls ``on_interrupt``); a
    second one raises ``KeyboardInterrupt`` at once. The previous handlers are restored on the way out.

    Only the main thread can handle signals; elsewhere nothing is installed. A signal that is
    ignored (SIGINT in a background job) or handled outside Python keeps its usual effect.
    """
    request = InterruptRequest()
    if threading.current_thread() is not threading.main_thread():
        yield request
        return

    def handle(signum: int, frame: Any) -> None:
        if request.requested:
            raise KeyboardInterrupt
        request.requested = True
        if on_interrupt is not None:
            on_interrupt()

    previous = {number: signal.getsignal(number) for number in (signal.SIGINT, signal.SIGTERM)}
    installed = [number for number, handler in previous.items() if handler not in (None, signal.SIG_IGN)]
    for number in installed:
        signal.signal(number, handle)
    try:
        yield request
    finally:
        for number in installed:
            signal.signal(number, previous[number])


__all__ = ["InterruptRequest", "TrainingInterrupted", "finish_iteration_on_interrupt"]
