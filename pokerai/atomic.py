"""Files written whole or not at all: a temporary file beside the target, fsync, then a rename (layer 0).

Checkpoints, blueprints, abstraction tables, reports and hand logs all go through
:func:`write_atomically`, so that a crash at any moment leaves either the previous file or the
new one, never a mix.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO


def _umask() -> int:
    """The process's file-creation mask (read by setting it, then restored)."""
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _sync_folder(folder: Path) -> None:
    """Make a rename in ``folder`` durable; POSIX only (Windows cannot open a folder for fsync)."""
    if os.name != "posix":
        return
    descriptor = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def write_atomically(path: str | os.PathLike[str], write: Callable[[BinaryIO], Any]) -> Path:
    """Write ``path`` through ``write(stream)``, a binary stream that may seek; the path written.

    ``write`` fills a temporary file in the same folder, which is flushed to disk (fsync) and
    renamed over ``path`` (``os.replace``); the folder is synced after the rename. A reader sees
    the old file or the whole new one. Missing parent folders are created, the file gets the
    permissions of any new file (the umask's, not the private ones of a temporary file), and a
    ``write`` that raises leaves no temporary file behind.
    """
    target = Path(path)
    folder = target.parent
    folder.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=folder, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as stream:
            write(stream)
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(temporary, 0o666 & ~_umask())
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    _sync_folder(folder)
    return target


def write_text_atomically(path: str | os.PathLike[str], text: str) -> Path:
    """:func:`write_atomically` of ``text`` in UTF-8."""
    return write_atomically(path, lambda stream: stream.write(text.encode("utf-8")))


__all__ = ["write_atomically", "write_text_atomically"]
