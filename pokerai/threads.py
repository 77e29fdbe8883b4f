"""Background threads that leave Ctrl-C to the main thread.

The kernel delivers a signal sent to the whole process (the terminal's Ctrl-C) to any thread that
does not block it. Python runs signal handlers only in the main thread, so when a helper thread
takes the signal, a main thread blocked in a read (``input()`` at a prompt) is not woken, and the
interrupt waits until the user presses Enter. Threads started here block SIGINT for their whole
life; the main thread keeps receiving it.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable


def start_background_thread(target: Callable[[], object], name: str) -> threading.Thread:
    """Start ``target`` in a daemon thread with SIGINT blocked, and return the thread.

    A new thread inherits its creator's signal mask, so SIGINT is blocked in the caller only
    around ``start()`` (then restored), and the thread never has a moment with it unblocked.
    """
    thread = threading.Thread(target=target, name=name, daemon=True)
    if not hasattr(signal, "pthread_sigmask"):  # not POSIX: signals go to the main thread anyway
        thread.start()
        return thread
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        thread.start()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)
    return thread


__all__ = ["start_background_thread"]
