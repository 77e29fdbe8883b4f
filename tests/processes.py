"""Helpers for tests that start a child process and interrupt it."""

from __future__ import annotations

import signal
import subprocess
from pathlib import Path


def default_sigint() -> None:
    """``preexec_fn`` of a child that a test interrupts: SIGINT back to its default action.

    A child inherits ignored signals, and a shell starts background jobs (``pytest &``, some CI
    runners) with SIGINT ignored; Python then installs no KeyboardInterrupt handler, and a Ctrl-C
    sent to the child would be dropped.
    """
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def interruptible(command: list[str], cwd: Path) -> subprocess.Popen[str]:
    """``command`` started in ``cwd`` with text pipes for stdout and stderr and SIGINT at its default
    (:func:`default_sigint`), for a test that reads its output and then interrupts it."""
    return subprocess.Popen(
        command, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=default_sigint
    )
