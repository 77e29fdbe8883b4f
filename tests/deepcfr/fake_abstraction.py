"""A made-up card abstraction with tables of the real sizes, for tests of the bucket features.

The real tiny abstraction takes a minute to build and 138 MB to hold. This one is built in
a fraction of a second: preflop, flop and turn tables (15 MB) hold seeded random buckets;
the river table (123 MB) is ``np.zeros``, which costs no memory until written, with random
buckets only at the canonical indices of the river hands a test names.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import numpy.typing as npt

from pokerai.abstraction.buckets import (
    FORMAT_NAME,
    FORMAT_VERSION,
    AbstractionConfig,
    CardAbstraction,
    ClusteredStreet,
    PercentileStreet,
)
from pokerai.abstraction.cache import cached_path
from pokerai.abstraction.isomorphism import STREETS, street_indexer
from pokerai.config import config_to_dict

FAKE_CONFIG = AbstractionConfig(
    name="fake",
    preflop=PercentileStreet(3),
    flop=ClusteredStreet(buckets=5),
    turn=ClusteredStreet(buckets=6),
    river=PercentileStreet(4),
)
"""3, 5, 6 and 4 buckets: 18 bucket features."""
FAKE_BUCKETS = tuple(FAKE_CONFIG.street(street).buckets for street in range(len(STREETS)))


def fake_abstraction(river_hands: npt.ArrayLike = (), seed: int = 0) -> CardAbstraction:
    """A :class:`CardAbstraction` of :data:`FAKE_CONFIG`; ``river_hands`` ([N, 7] card ids) get river buckets
    drawn from 1..3 (every other river hand is in bucket 0)."""
    rng = np.random.default_rng(seed)
    tables = [
        rng.integers(0, FAKE_BUCKETS[street], street_indexer(street).size, dtype=np.uint8)
        for street in range(3)
    ]
    river = np.zeros(street_indexer(3).size, dtype=np.uint8)
    hands = np.asarray(river_hands, dtype=np.uint8).reshape(-1, 7)
    if len(hands):
        indices = street_indexer(3).index(hands)
        river[indices] = rng.integers(1, FAKE_BUCKETS[3], len(indices), dtype=np.uint8)
    tables.append(river)
    metadata = {
        "format": FORMAT_NAME,
        "format_version": FORMAT_VERSION,
        "config": config_to_dict(FAKE_CONFIG),
        # hashlib reads the arrays' memory in place: no 123 MB copy of the river table.
        "streets": {
            name: {"buckets": FAKE_BUCKETS[street], "sha256": hashlib.sha256(table.data).hexdigest()}
            for street, (name, table) in enumerate(zip(STREETS, tables, strict=True))
        },
    }
    return CardAbstraction(tuple(tables), metadata, {})


def save_fake_abstraction(cache: Path) -> Path:
    """Write :func:`fake_abstraction` where :func:`~pokerai.abstraction.cache.cached_abstraction` finds it
    with ``POKERAI_CACHE=cache``; returns the file."""
    return fake_abstraction().save(cached_path(FAKE_CONFIG, cache / "abstractions"))
