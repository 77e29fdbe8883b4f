"""Card abstractions by config: built once, then found in a cache folder.

Jobs that play or train on buckets name an abstraction *config* (for example
``configs/abstraction_tiny.yaml``), not a file. :func:`cached_abstraction` looks for
the artifact of exactly that config in the cache folder and builds it there when it
is missing or unreadable, so a fresh clone needs nothing prepared by hand. The file
name carries the config's name and the first 12 hex digits of the SHA-256 of its
canonical YAML, so two configs never share a file and an edited config is rebuilt.

The folder is ``$POKERAI_CACHE/abstractions`` when ``POKERAI_CACHE`` is set, else
``~/.cache/pokerai/abstractions``. A build is deterministic for a given config, and
the artifact is written atomically (:meth:`CardAbstraction.save`), so an interrupted
build leaves no partial file.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from pokerai.abstraction.buckets import (
    AbstractionConfig,
    AbstractionError,
    CardAbstraction,
    Progress,
    build_abstraction,
    load_abstraction_config,
)
from pokerai.config import dump_config

CACHE_ENVIRONMENT = "POKERAI_CACHE"
"""The environment variable that moves the cache folder."""


def cache_folder() -> Path:
    """Where cached abstractions live (module docstring)."""
    root = os.environ.get(CACHE_ENVIRONMENT)
    base = Path(root) if root else Path.home() / ".cache" / "pokerai"
    return base / "abstractions"


def config_digest(config: AbstractionConfig) -> str:
    """The first 12 hex digits of the SHA-256 of ``config``'s canonical YAML."""
    return hashlib.sha256(dump_config(config).encode()).hexdigest()[:12]


def cached_path(config: AbstractionConfig, folder: str | os.PathLike[str] | None = None) -> Path:
    """The cache file of ``config`` (it may not exist yet)."""
    where = Path(folder) if folder is not None else cache_folder()
    return where / f"{config.name}-{config_digest(config)}.npz"


def cached_abstraction(
    source: str | os.PathLike[str] | AbstractionConfig,
    *,
    folder: str | os.PathLike[str] | None = None,
    progress: Progress | None = None,
) -> tuple[CardAbstraction, Path, bool]:
    """The abstraction of ``source`` (a config, or a YAML path): ``(abstraction, file, built)``.

    ``built`` is True when it was built now (no cached file, or one that failed its
    checks), False when it was loaded from the cache. ``progress`` follows the build.
    Raises ``ConfigError`` for a bad config.
    """
    config = source if isinstance(source, AbstractionConfig) else load_abstraction_config(source)
    path = cached_path(config, folder)
    if path.is_file():
        try:
            abstraction = CardAbstraction.load(path)
        except AbstractionError:
            pass  # corrupt or from another version: rebuilt below
        else:
            if abstraction.config == config:
                return abstraction, path, False
    abstraction = build_abstraction(config, progress)
    abstraction.save(path)
    return abstraction, path, True


__all__ = ["CACHE_ENVIRONMENT", "cache_folder", "cached_abstraction", "cached_path", "config_digest"]
