"""What every subcommand shares on the way out: a progress bar and the JSON-or-text report."""

from __future__ import annotations

import json
import sys
from typing import Any


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


def emit(payload: dict[str, Any], text: str, as_json: bool) -> None:
    """Print exactly one JSON object (``as_json``) or the human-readable ``text`` on stdout."""
    if as_json:
        json.dump(payload, sys.stdout)
        sys.stdout.write("\n")
    else:
        print(text)
