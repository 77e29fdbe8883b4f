"""Helpers for tests that start a child process and interrupt it."""

from __future__ import annotations

import signal


def default_sigint() -> None:
    """``preexec_fn`` of a child that a test interrupts: SIGINT back to its default action.

    A child inherits ignored signals, and a shell starts background jobs (``pytest &``, some CI
    runners) with SIGINT ignored; Python then installs no KeyboardInterrupt handler, and a Ctrl-C
    sent to the child would be dropped.
    """
    signal.signal(signal.SIGINT, signal.SIG_DFL)
