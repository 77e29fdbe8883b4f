"""Card abstraction: per-street bucket tables, how they are built, saved, loaded and looked up.

The scheme (after Johanson, Burch, Valenzano & Bowling, "Evaluating State-Space Abstractions
in Extensive-Form Games", AAMAS 2013):

* **preflop**: the 169 classes in ``num_buckets`` equal-mass bins of their exact equity
  against a random hand (mass = the class's 4, 6 or 12 hole combos); bucket 0 is weakest.
  With 169 buckets the preflop is lossless: each class is its own bucket, numbered by equity.
* **flop, turn**: each canonical hand's equity histogram over the run-outs to the river
  (:mod:`pokerai.abstraction.histograms`), clustered by weighted k-medians under Earth
  Mover's Distance (:mod:`pokerai.abstraction.clustering`) with k-means++ seeding and
  restarts. The centroids are fitted on ``fit_samples`` uniformly dealt hands (weighted by
  how often each canonical hand was dealt); then *every* canonical hand is assigned to its
  nearest centroid. Clusters are numbered by their centroid's mean equity.
* **river**: ``num_buckets`` equal-mass bins of exact river hand strength over all
  2,809,475,760 (hole, board) deals; bucket 0 is weakest. Or, with ``kind: ochs``
  (:class:`OchsStreet`), k-means on each hand's equities against opponent clusters of
  preflop hands (:mod:`pokerai.abstraction.ochs`), fitted on ``fit_samples`` uniformly dealt
  hands and assigned to every canonical river hand; numbered by centroid strength.

The result is one flat uint8 table per street indexed by the street's suit-isomorphic index
(:mod:`pokerai.abstraction.isomorphism`), so a lookup is an index computation and a gather:
deterministic, vectorised, never a fresh Monte Carlo run.

The artifact is one ``.npz`` file holding the four tables, the flop/turn centroids (and the
river's, for OCHS) and a JSON metadata record (format name and version, config, seed,
per-table SHA-256, bucket counts, build times). :meth:`CardAbstraction.load` checks all of
it and refuses a truncated, corrupt or mismatching file with an :class:`AbstractionError`.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from pokerai.abstraction.clustering import assign, fit_emd_clusters, histogram_cdfs, percentile_buckets
from pokerai.abstraction.histograms import (
    STRENGTH_SCALE,
    RiverStrength,
    equity_histograms,
    preflop_combos,
    river_strength,
)
from pokerai.abstraction.isomorphism import STREETS, street_indexer
from pokerai.abstraction.ochs import (
    cluster_mass,
    fit_ochs_centroids,
    ochs_features,
    ochs_river_table,
    opponent_clusters,
)
from pokerai.atomic import write_atomically
from pokerai.config import config_to_dict, load_config
from pokerai.engine.cards import BOARD_SIZES

FORMAT_NAME = "pokerai-card-abstraction"
FORMAT_VERSION = 1
_ASSIGN_CHUNK = 1 << 18
PREFLOP_CLASSES = 169
"""The preflop classes; a preflop street with this many buckets is lossless."""

Progress = Callable[[str, int, int], None]
"""``progress(phase, done, total)``: called as a build advances through its phases."""


class AbstractionError(ValueError):
    """A card-abstraction file that cannot be used; the message says why in one sentence."""


@dataclass(frozen=True)
class PercentileStreet:
    """A street bucketed by equal-mass bins of a scalar strength (preflop equity, river strength)."""

    buckets: int = field(
        default=8,
        metadata={"min": 1, "max": 255, "help": "number of buckets (preflop at most 169: one per class)"},
    )


def _fit_samples_field() -> Any:
    return field(
        default=200_000, metadata={"min": 1, "help": "uniformly dealt hands the centroids are fitted on"}
    )


def _restarts_field() -> Any:
    return field(default=4, metadata={"min": 1, "help": "k-means++ restarts; the best one is kept"})


class _Fitted:
    """What a street bucketed by clusters fitted on a sample checks: enough samples per bucket."""

    buckets: int
    fit_samples: int

    def __post_init__(self) -> None:
        if self.fit_samples < self.buckets:
            raise ValueError(f"fit_samples {self.fit_samples} is below the number of buckets {self.buckets}")


@dataclass(frozen=True)
class ClusteredStreet(_Fitted):
    """A street bucketed by EMD k-medians on equity histograms (flop, turn)."""

    buckets: int = field(default=12, metadata={"min": 1, "max": 255, "help": "number of clusters"})
    bins: int = field(default=50, metadata={"min": 2, "max": 1000, "help": "histogram bins on [0, 1]"})
    runouts: int = field(
        default=0, metadata={"min": 0, "help": "run-outs per histogram; 0 enumerates all of them"}
    )
    fit_samples: int = _fit_samples_field()
    restarts: int = _restarts_field()
    max_iterations: int = field(default=50, metadata={"min": 1, "help": "k-medians iterations per restart"})


@dataclass(frozen=True)
class OchsStreet(_Fitted):
    """The river bucketed by k-means on opponent cluster hand strength (:mod:`pokerai.abstraction.ochs`).

    Written ``river: {kind: ochs, ...}``; a river mapping without ``kind`` is a :class:`PercentileStreet`.
    """

    kind: Literal["ochs"] = field(default="ochs", metadata={"help": "selects OCHS river buckets"})
    buckets: int = field(default=8, metadata={"min": 1, "max": 254, "help": "number of k-means clusters"})
    opponent_clusters: int = field(
        default=8,
        metadata={"min": 1, "max": 64, "help": "equal-mass groups of preflop classes, one feature each"},
    )
    fit_samples: int = _fit_samples_field()
    restarts: int = _restarts_field()
    max_iterations: int = field(default=100, metadata={"min": 1, "help": "k-means iterations per restart"})


@dataclass(frozen=True)
class AbstractionConfig:
    """What ``pokerai abstraction build`` builds (``configs/abstraction_*.yaml``)."""

    name: str = "default"
    seed: int = field(default=0, metadata={"min": 0, "help": "seeds sampling and clustering"})
    preflop: PercentileStreet = PercentileStreet(8)
    flop: ClusteredStreet = ClusteredStreet()
    turn: ClusteredStreet = ClusteredStreet()
    river: PercentileStreet | OchsStreet = PercentileStreet(8)

    def __post_init__(self) -> None:
        if self.preflop.buckets > PREFLOP_CLASSES:
            raise ValueError(
                f"preflop.buckets {self.preflop.buckets} exceeds the {PREFLOP_CLASSES} preflop classes"
            )

    def street(self, street: int) -> PercentileStreet | ClusteredStreet | OchsStreet:
        return (self.preflop, self.flop, self.turn, self.river)[street]


def load_abstraction_config(source: str | os.PathLike[str] | dict[str, Any]) -> AbstractionConfig:
    """Load and check an abstraction config (YAML path or mapping); bad keys raise ``ConfigError``."""
    return load_config(source, AbstractionConfig)


def _sha256(array: npt.NDArray[Any]) -> str:
    return hashlib.sha256(np.ascontiguousarray(array).tobytes()).hexdigest()


class CardAbstraction:
    """Bucket tables for the four streets, with their metadata.

    ``tables[street]`` is uint8 [street_indexer(street).size]; ``centroids`` maps "flop" and
    "turn" to the fitted CDFs (float32 [buckets, bins]) and, for OCHS river buckets, "river" to
    the fitted OCHS vectors (float32 [buckets, opponent_clusters]).
    """

    def __init__(
        self,
        tables: tuple[npt.NDArray[np.uint8], ...],
        metadata: dict[str, Any],
        centroids: dict[str, npt.NDArray[np.float32]],
    ) -> None:
        self.tables = tables
        self.metadata = metadata
        self.centroids = centroids
        self.config = load_abstraction_config(metadata["config"])

    def num_buckets(self, street: int) -> int:
        return self.config.street(_check_street(street)).buckets

    # ------------------------------------------------------------------ lookups

    def bucket_of_index(self, street: int, indices: npt.ArrayLike) -> npt.NDArray[np.uint8]:
        """Buckets of canonical indices of a street (no card checks; indices must be in range)."""
        return self.tables[_check_street(street)][np.asarray(indices, dtype=np.int64)]

    def bucket(self, street: int, hole: npt.ArrayLike, board: npt.ArrayLike = ()) -> Any:
        """The bucket of hole cards with a board: one hand (ints in, int out) or many.

        ``hole``: card ids [2] or [N, 2]; ``board``: [b] or [N, b] with b = 0, 3, 4, 5 matching
        ``street``. Returns an ``int`` for one hand, uint8 [N] for many.
        """
        street = _check_street(street)
        hole_array = np.asarray(hole)
        board_array = np.asarray(board)
        single = hole_array.ndim == 1
        if single:
            hole_array = hole_array[None, :]
            board_array = board_array.reshape(1, -1)
        if hole_array.ndim != 2 or hole_array.shape[1] != 2:
            raise ValueError(f"hole cards must be pairs of card ids, got shape {np.shape(hole)}")
        if board_array.ndim == 1 and board_array.size == 0:
            board_array = np.zeros((hole_array.shape[0], 0), dtype=np.int64)
        if board_array.ndim != 2 or board_array.shape[0] != hole_array.shape[0]:
            raise ValueError(f"board shape {np.shape(board)} does not match hole cards {np.shape(hole)}")
        if board_array.shape[1] != BOARD_SIZES[street]:
            raise ValueError(
                f"the {STREETS[street]} has {BOARD_SIZES[street]} board cards, got {board_array.shape[1]}"
            )
        cards = np.concatenate([hole_array, board_array], axis=1) if board_array.shape[1] else hole_array
        indices = street_indexer(street).index(cards)
        buckets = self.tables[street][indices]
        return int(buckets[0]) if single else buckets

    # ------------------------------------------------------------------ persistence

    def save(self, path: str | os.PathLike[str], *, compressed: bool = False) -> Path:
        """Write the artifact atomically (temporary file in the same folder, then rename).

        ``compressed`` deflates the tables (about 25 MB instead of 138 for 8/12/12/8 buckets, for a
        blueprint folder that carries its abstraction); :meth:`load` reads either form.
        """
        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        arrays: dict[str, Any] = {
            f"table_{name}": table for name, table in zip(STREETS, self.tables, strict=True)
        }
        arrays.update({f"centroids_{name}": value for name, value in self.centroids.items()})
        arrays["metadata"] = np.array(json.dumps(self.metadata, sort_keys=True))
        save = np.savez_compressed if compressed else np.savez
        return write_atomically(target, lambda stream: save(stream, **arrays))

    @classmethod
    def load(cls, path: str | os.PathLike[str], *, verify: bool = True) -> CardAbstraction:
        """Load an artifact, checking format, version, table sizes and (``verify``) checksums."""
        source = Path(path)
        if not source.is_file():
            raise AbstractionError(f"{source}: no such abstraction file")
        with source.open("rb") as stream:
            if stream.read(2) != b"PK":  # every .npz archive (a zip file) starts so
                raise AbstractionError(
                    f"{source}: not a pokerai card abstraction file (those are .npz archives written by "
                    "`pokerai abstraction build`)"
                )
        try:
            with np.load(source, allow_pickle=False) as archive:
                names = set(archive.files)
                expected = {"metadata", *(f"table_{name}" for name in STREETS)}
                if not expected <= names:
                    missing = sorted(expected - names)
                    raise AbstractionError(
                        f"{source}: not a card abstraction file (missing {', '.join(missing)})"
                    )
                metadata = json.loads(str(archive["metadata"]))
                tables = tuple(np.asarray(archive[f"table_{name}"]) for name in STREETS)
                centroids = {
                    name: np.asarray(archive[f"centroids_{name}"])
                    for name in ("flop", "turn", "river")
                    if f"centroids_{name}" in names
                }
        except AbstractionError:
            raise
        except (zipfile.BadZipFile, EOFError, OSError, ValueError, KeyError, json.JSONDecodeError) as error:
            reason = f"{type(error).__name__}: {error}"
            raise AbstractionError(
                f"{source}: the file is corrupt or truncated and cannot be read ({reason})"
            ) from None
        if not isinstance(metadata, dict) or metadata.get("format") != FORMAT_NAME:
            raise AbstractionError(f"{source}: not a pokerai card abstraction file")
        if metadata.get("format_version") != FORMAT_VERSION:
            raise AbstractionError(
                f"{source}: format version {metadata.get('format_version')!r} is not supported "
                f"(this pokerai reads version {FORMAT_VERSION}); rebuild it with `pokerai abstraction build`"
            )
        try:
            config = load_abstraction_config(metadata["config"])
        except (ValueError, KeyError) as error:
            raise AbstractionError(f"{source}: the stored config is invalid ({error})") from None
        for street, (name, table) in enumerate(zip(STREETS, tables, strict=True)):
            size = street_indexer(street).size
            if table.dtype != np.uint8 or table.shape != (size,):
                raise AbstractionError(
                    f"{source}: the {name} table has shape {table.shape} and dtype {table.dtype}, "
                    f"expected ({size},) uint8"
                )
            record = metadata.get("streets", {}).get(name, {})
            if verify and record.get("sha256") != _sha256(table):
                raise AbstractionError(
                    f"{source}: the {name} table does not match its checksum (corrupt file)"
                )
            buckets = config.street(street).buckets
            if verify and table.size and int(table.max()) >= buckets:
                raise AbstractionError(f"{source}: the {name} table has buckets beyond its {buckets}")
        if isinstance(config.river, OchsStreet):
            shape = (config.river.buckets, config.river.opponent_clusters)
            river_centroids = centroids.get("river")
            if river_centroids is None or river_centroids.shape != shape:
                found = "none" if river_centroids is None else f"shape {river_centroids.shape}"
                raise AbstractionError(
                    f"{source}: the OCHS river centroids should have shape {shape}, got {found}"
                )
        return cls(tables, metadata, centroids)

    def info(self) -> dict[str, Any]:
        """What ``pokerai abstraction info`` reports."""
        return {
            "format": self.metadata["format"],
            "format_version": self.metadata["format_version"],
            "name": self.config.name,
            "seed": self.config.seed,
            "streets": {
                name: {
                    "buckets": self.num_buckets(street),
                    "entries": int(self.tables[street].size),
                    "hands_per_bucket": np.bincount(
                        self.tables[street], minlength=self.num_buckets(street)
                    ).tolist(),
                    "sha256": self.metadata["streets"][name]["sha256"],
                }
                for street, name in enumerate(STREETS)
            },
            "build_seconds": self.metadata.get("build_seconds", {}),
            "created": self.metadata.get("created"),
            "config": self.metadata["config"],
        }


def _check_street(street: int) -> int:
    if isinstance(street, bool) or street not in (0, 1, 2, 3):
        raise ValueError(f"street must be 0 (preflop), 1 (flop), 2 (turn) or 3 (river), got {street!r}")
    return int(street)


def _sample_deals(rng: np.random.Generator, count: int, num_cards: int) -> npt.NDArray[np.uint8]:
    """``count`` uniformly random deals of ``num_cards`` distinct cards, uint8 [count, num_cards]."""
    return np.argsort(rng.random((count, 52)), axis=1)[:, :num_cards].astype(np.uint8)


def _cluster_street(
    street: int,
    settings: ClusteredStreet,
    numerators: npt.NDArray[np.uint16],
    seed: int,
    progress: Progress | None,
) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.float32], dict[str, Any]]:
    name = STREETS[street]
    indexer = street_indexer(street)
    rng = np.random.default_rng([seed, street])
    deals = _sample_deals(rng, settings.fit_samples, indexer.num_cards)
    sample, weights = np.unique(indexer.index(deals), return_counts=True)
    histogram_seed = seed * 4 + street
    cdfs = histogram_cdfs(
        equity_histograms(
            street, sample, numerators, num_bins=settings.bins, runouts=settings.runouts, seed=histogram_seed
        )
    )
    if sample.size < settings.buckets:
        raise ValueError(
            f"{name}: only {sample.size} distinct hands in {settings.fit_samples} samples "
            f"for {settings.buckets} buckets; raise fit_samples"
        )
    clustering = fit_emd_clusters(
        cdfs,
        weights.astype(np.float64),
        settings.buckets,
        seed=seed * 4 + street,
        restarts=settings.restarts,
        max_iterations=settings.max_iterations,
    )
    table = np.empty(indexer.size, dtype=np.uint8)
    for start in range(0, indexer.size, _ASSIGN_CHUNK):
        stop = min(indexer.size, start + _ASSIGN_CHUNK)
        chunk = np.arange(start, stop, dtype=np.int64)
        chunk_cdfs = histogram_cdfs(
            equity_histograms(
                street,
                chunk,
                numerators,
                num_bins=settings.bins,
                runouts=settings.runouts,
                seed=histogram_seed,
            )
        )
        labels, _ = assign(chunk_cdfs, clustering.centroids)
        table[start:stop] = labels
        if progress is not None:
            progress(f"{name} buckets", stop, indexer.size)
    fit = {
        "distinct_hands_fitted": int(sample.size),
        "objective_emd": float(clustering.objective),
        "iterations": int(clustering.iterations),
        "restart_objectives_emd": [float(value) for value in clustering.restart_objectives],
    }
    return table, clustering.centroids, fit


def _ochs_river(
    settings: OchsStreet,
    preflop_equity: npt.NDArray[np.float64],
    seed: int,
    progress: Progress | None,
) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.float32], dict[str, Any]]:
    clusters = opponent_clusters(preflop_equity, settings.opponent_clusters)
    indexer = street_indexer(3)
    rng = np.random.default_rng([seed, 3])
    deals = _sample_deals(rng, settings.fit_samples, indexer.num_cards)
    sample, weights = np.unique(indexer.index(deals), return_counts=True)
    if sample.size < settings.buckets:
        raise ValueError(
            f"river: only {sample.size} distinct hands in {settings.fit_samples} samples "
            f"for {settings.buckets} buckets; raise fit_samples"
        )
    fit = fit_ochs_centroids(
        ochs_features(sample, clusters),
        weights,
        settings.buckets,
        cluster_mass(clusters),
        seed=seed * 4 + 3,
        restarts=settings.restarts,
        max_iterations=settings.max_iterations,
    )
    table = ochs_river_table(
        clusters,
        fit.centroids,
        None if progress is None else lambda done, total: progress("river OCHS", done, total),
    )
    record = {
        "distinct_hands_fitted": int(sample.size),
        "inertia": fit.inertia,
        "iterations": fit.iterations,
        "centroid_strength": [round(float(value), 6) for value in fit.strength],
        "opponent_clusters": clusters.tolist(),
    }
    return table, fit.centroids, record


def build_abstraction(
    config: AbstractionConfig, progress: Progress | None = None, *, strength: RiverStrength | None = None
) -> CardAbstraction:
    """Build all four tables for ``config`` (deterministic for a given config and seed).

    ``strength`` reuses a :func:`~pokerai.abstraction.histograms.river_strength` result (it does
    not depend on the config), e.g. when building several abstractions in one process.
    """
    timings: dict[str, float] = {}
    start = time.perf_counter()
    if strength is None:
        strength = river_strength(
            None if progress is None else lambda done, total: progress("river strength", done, total)
        )
    timings["river_strength"] = time.perf_counter() - start

    phase = time.perf_counter()
    preflop_table = preflop_buckets(strength.preflop_equity, config.preflop.buckets)
    river_lookup: npt.NDArray[np.uint8] | None = None
    if isinstance(config.river, PercentileStreet):
        river_lookup = percentile_buckets(
            np.arange(STRENGTH_SCALE + 1), strength.mass, config.river.buckets
        ).astype(np.uint8)
        river_table = river_lookup[strength.numerators]
        timings["preflop_and_river"] = time.perf_counter() - phase
    else:
        timings["preflop"] = time.perf_counter() - phase

    tables: list[npt.NDArray[np.uint8]] = [preflop_table]
    centroids: dict[str, npt.NDArray[np.float32]] = {}
    fits: dict[str, Any] = {}
    for street, settings in ((1, config.flop), (2, config.turn)):
        phase = time.perf_counter()
        table, street_centroids, fit = _cluster_street(
            street, settings, strength.numerators, config.seed, progress
        )
        tables.append(table)
        centroids[STREETS[street]] = street_centroids
        fits[STREETS[street]] = fit
        timings[STREETS[street]] = time.perf_counter() - phase
    if isinstance(config.river, OchsStreet):
        phase = time.perf_counter()
        river_table, centroids["river"], fits["river"] = _ochs_river(
            config.river, strength.preflop_equity, config.seed, progress
        )
        timings["river"] = time.perf_counter() - phase
    tables.append(river_table)
    timings["total"] = time.perf_counter() - start

    from pokerai import __version__

    metadata: dict[str, Any] = {
        "format": FORMAT_NAME,
        "format_version": FORMAT_VERSION,
        "config": config_to_dict(config),
        "seed": config.seed,
        "pokerai_version": __version__,
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "streets": {
            name: {
                "buckets": config.street(street).buckets,
                "entries": int(table.size),
                "sha256": _sha256(table),
            }
            for street, (name, table) in enumerate(zip(STREETS, tables, strict=True))
        },
        "fit": fits,
        "build_seconds": {key: round(value, 2) for key, value in timings.items()},
    }
    if river_lookup is not None:
        metadata["river_strength_cutoffs"] = _cutoffs(river_lookup)
    return CardAbstraction(tuple(tables), metadata, centroids)


def preflop_buckets(equity: npt.NDArray[np.float64], num_buckets: int) -> npt.NDArray[np.uint8]:
    """The preflop table: each of the 169 classes' bucket, from its exact equity ``equity`` [169].

    169 buckets are lossless: the class of rank ``r`` by equity (0 weakest, ties by class index)
    is bucket ``r``. Fewer buckets are equal-mass bins of equity, a class weighing its combos.
    """
    if num_buckets == PREFLOP_CLASSES:
        table = np.empty(PREFLOP_CLASSES, dtype=np.uint8)
        table[np.argsort(equity, kind="stable")] = np.arange(PREFLOP_CLASSES, dtype=np.uint8)
        return table
    return percentile_buckets(equity, preflop_combos(), num_buckets).astype(np.uint8)


def _cutoffs(lookup: npt.NDArray[np.uint8]) -> list[float]:
    """The smallest river strength (equity) of each bucket."""
    firsts = np.searchsorted(lookup, np.arange(int(lookup.max()) + 1), side="left")
    return [round(float(first) / STRENGTH_SCALE, 6) for first in firsts]
