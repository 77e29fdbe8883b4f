"""What every subcommand shares on the way out: progress on stderr and the JSON-or-text report."""

from __future__ import annotations

import json
import sys
import time
from typing import Any, Protocol

PROGRESS_INTERVAL_S = 10.0
"""Seconds between two lines of :class:`ProgressLines`."""


class Progress:
    """A tqdm bar on stderr; build it with ``progress_bar`` so it only appears on a terminal."""

    def __init__(self, total: int, unit: str) -> None:
        from tqdm import tqdm

        self._bar = tqdm(total=total, unit=unit, file=sys.stderr, leave=False, dynamic_ncols=True)

    def update_to(self, done: int) -> None:
        self._bar.update(done - self._bar.n)

    def close(self) -> None:
        self._bar.close()


def progress_bar(total: int, unit: str = "it") -> Progress | None:
    """A progress bar when stderr is a terminal, None otherwise (pipes, CI, --json consumers)."""
    return Progress(total, unit) if sys.stderr.isatty() else None


class ProgressLines:
    """Progress as lines on stderr, for a stderr that is not a terminal (a log, a pipe, CI).

    A line such as ``LBR: 300/1,000 hands, 1m12s`` at most every :data:`PROGRESS_INTERVAL_S`
    seconds, and a last one when a run that wrote any closes. stdout is never touched, so a
    ``--json`` report there stays one JSON object.
    """

    def __init__(self, total: int, unit: str, label: str) -> None:
        self.total, self.unit, self.label = total, unit, label
        self.started = self.written_at = time.monotonic()
        self.done = 0
        self.written: int | None = None
        """The count of the last line written (None: none yet)."""

    def update_to(self, done: int) -> None:
        self.done = done
        now = time.monotonic()
        if now - self.written_at >= PROGRESS_INTERVAL_S:
            self.written_at = now
            self._write()

    def close(self) -> None:
        if self.written is not None and self.written != self.done:
            self._write()

    def _write(self) -> None:
        seconds = int(time.monotonic() - self.started)
        units = self.unit if self.total == 1 else f"{self.unit}s"
        print(
            f"{self.label}: {self.done:,}/{self.total:,} {units}, {seconds // 60}m{seconds % 60:02d}s",
            file=sys.stderr,
            flush=True,
        )
        self.written = self.done


class Reporter(Protocol):
    """What a long run reports its progress to."""

    def update_to(self, done: int) -> None: ...

    def close(self) -> None: ...


def progress_reporter(total: int, unit: str, label: str) -> Reporter:
    """Progress on stderr whatever it is: a bar on a terminal, :class:`ProgressLines` elsewhere."""
    return Progress(total, unit) if sys.stderr.isatty() else ProgressLines(total, unit, label)


def emit(payload: dict[str, Any], text: str, as_json: bool) -> None:
    """Print exactly one JSON object (``as_json``) or the human-readable ``text`` on stdout."""
    if as_json:
        json.dump(payload, sys.stdout)
        sys.stdout.write("\n")
    else:
        print(text)
