"""One line on stderr when numba has to compile pokerai's kernels, and none when its cache serves them.

pokerai's kernels are ``@njit(cache=True)``: the first run compiles them (seconds;
docs/BENCHMARKS.md) and writes them to numba's on-disk cache (``__pycache__`` next to each
module, or ``NUMBA_CACHE_DIR``); later runs load them in a fraction of a second. So
that a first run does not look hung, work that may compile runs inside
:func:`compile_notice`, which writes :data:`NOTICE` the first time, in this process,
that a pokerai kernel actually compiles.

"Actually compiles" is numba's own ``numba:compile`` event (its Event API,
``numba.core.event``): numba raises it only after the in-memory overloads and the
on-disk cache have both missed, so a warm cache never prints the notice, and a cache
made stale by an edited source file does. Compiles of kernels outside ``pokerai``
(other libraries' numba code) are not announced.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

NOTICE = "compiling solver kernels, first run only…"
"""What :func:`compile_notice` writes, once per process."""
PACKAGE_PREFIX = "pokerai."
"""Kernels defined in modules whose name starts with this are announced."""

_lock = threading.Lock()
_noticed = False
"""Whether this process has written the notice (a forked worker inherits the parent's value)."""


def notice_given() -> bool:
    """Whether this process has announced a compile already."""
    return _noticed


def write_to_stderr(text: str) -> None:
    """Write ``text`` as one line on stderr; a tqdm progress bar on the terminal is redrawn below it."""
    tqdm = sys.modules.get("tqdm")
    if tqdm is not None:  # a bar may be drawn on stderr: tqdm.write clears it, prints, redraws it
        tqdm.tqdm.write(text, file=sys.stderr)
    else:
        sys.stderr.write(text + "\n")
    sys.stderr.flush()


def _announce(write: Callable[[str], None]) -> None:
    global _noticed
    with _lock:
        if _noticed:
            return
        _noticed = True
    write(NOTICE)


def _is_pokerai_kernel(data: Any) -> bool:
    """Whether a ``numba:compile`` event's data (``dispatcher=...``) names a kernel of pokerai."""
    dispatcher = data.get("dispatcher") if isinstance(data, dict) else None
    module = getattr(getattr(dispatcher, "py_func", None), "__module__", None) or ""
    return module.startswith(PACKAGE_PREFIX)


@contextmanager
def compile_notice(write: Callable[[str], None] | None = None) -> Iterator[None]:
    """Within the block, announce the first compile of a pokerai kernel: ``write(NOTICE)``, once per process.

    ``write`` defaults to :func:`write_to_stderr` (stdout, where ``--json`` output goes,
    is never touched). Compiles in any thread of this process count while the block is
    open (a background warm-up included); ``write`` is then called from that thread.
    Blocks may nest; nothing is written after the process's first notice.
    """
    from numba.core import event  # here, not at the top: numba takes a while to import

    output = write_to_stderr if write is None else write

    class _Listener(event.Listener):
        def on_start(self, started: Any) -> None:
            if not _noticed and _is_pokerai_kernel(started.data):
                _announce(output)

        def on_end(self, ended: Any) -> None:
            pass

    with event.install_listener("numba:compile", _Listener()):
        yield


__all__ = ["NOTICE", "compile_notice", "notice_given", "write_to_stderr"]
