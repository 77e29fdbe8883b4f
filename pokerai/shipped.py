"""Where the shipped blueprints live, so that they play from any folder and any kind of install.

The blueprints that ship with pokerai are package data, ``pokerai/checkpoints/<name>/``, so a
wheel or a plain ``pip install .`` carries them; in a clone, the top-level ``checkpoints`` is a
link to that folder. A spec names them as ``checkpoints/<name>``: :func:`resolve_checkpoint`
reads that under the working folder when it is there, and in the installed package otherwise.
"""

from __future__ import annotations

import os
from pathlib import Path

SHIPPED_FOLDER = "checkpoints"
"""The first part of a path that names a shipped blueprint, e.g. ``checkpoints/hunl_tiny``."""


def package_checkpoints() -> Path:
    """The folder of the installed package's shipped blueprints."""
    return Path(__file__).resolve().parent / SHIPPED_FOLDER


def resolve_checkpoint(path: str | os.PathLike[str]) -> Path:
    """``path`` itself when it exists; for a missing relative ``checkpoints/...`` path, the same path in
    the installed package when that exists; otherwise ``path`` unchanged (its loader names it)."""
    given = Path(path)
    if given.exists() or given.is_absolute() or not given.parts or given.parts[0] != SHIPPED_FOLDER:
        return given
    shipped = package_checkpoints().joinpath(*given.parts[1:])
    return shipped if shipped.exists() else given


__all__ = ["SHIPPED_FOLDER", "package_checkpoints", "resolve_checkpoint"]
