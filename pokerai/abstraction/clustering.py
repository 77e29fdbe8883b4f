"""Clustering of equity histograms under the Earth Mover's Distance (k-medians on CDFs).

A hand's *equity histogram* is the distribution, over the future run-outs of
the board, of its final equity: ``B`` equal-width bins on ``[0, 1]`` (bin
``i`` covers ``[i / B, (i + 1) / B)``, centre ``(i + 0.5) / B``). Hands are
clustered by the Earth Mover's Distance (Wasserstein-1) between these
histograms (Johanson, Burch, Valenzano & Bowling, "Evaluating State-Space
Abstractions in Extensive-Form Games", AAMAS 2013; Ganzfried & Sandholm,
"Potential-Aware Imperfect-Recall Abstraction with Earth Mover's Distance in
Imperfect-Information Games", AAAI 2014).

On one dimension with equal bins the EMD has a closed form::

    EMD(p, q) = (1 / B) * sum_i |P[i] - Q[i]|

with ``P``, ``Q`` the normalised cumulative sums (CDFs) of ``p`` and ``q``. So
EMD clustering is clustering of the CDF vectors under the L1 norm, whose
optimal centre is the coordinate-wise (weighted) median rather than the mean:
this module runs Lloyd-style k-medians on ``float32 [N, B]`` CDF arrays. The
coordinate-wise median of non-decreasing vectors is non-decreasing (if
``x[i] <= x[i+1]`` for every point then every quantile of column ``i`` is at
most the same quantile of column ``i + 1``), so centroids are valid CDFs.

Distances returned by :func:`assign` are in *L1-of-CDF units*; divide by
``B`` for the EMD. Objectives (:attr:`Clustering.objective`,
:func:`within_cluster_emd`) are already in EMD units.

Points carry non-negative weights: how many raw deals a canonical hand stands
for. Randomness comes only from the ``seed`` passed in (restart ``r`` draws
from ``np.random.SeedSequence(seed).spawn(restarts)[r]``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from numba import njit, prange

__all__ = [
    "Clustering",
    "assign",
    "cdf_means",
    "cluster_medians",
    "emd",
    "fit_emd_clusters",
    "histogram_cdfs",
    "percentile_buckets",
    "random_assignment",
    "weighted_median",
    "weighted_median_columns",
    "weighted_midranks",
    "within_cluster_emd",
]


# --------------------------------------------------------------------------- kernels


@njit(cache=True, parallel=True, fastmath={"reassoc", "contract", "nsz", "arcp"})
def _assign_kernel(cdfs, centroids, labels, distances):
    """Nearest centroid under L1 for every row of ``cdfs`` (parallel over rows).

    ``cdfs`` float32 [N, B], ``centroids`` float32 [k, B]; writes ``labels``
    int32 [N] and ``distances`` [N] (float32 or float64, whatever the caller
    passes). Sums run in float64: the difference of two float32 values is exact
    in float64, so the only rounding is in the 50-term sum, which keeps the
    Lloyd objective monotone to far below 1e-9. The fastmath flags allow
    reassociation (so the inner sum vectorises) but not the no-NaN / no-inf
    assumptions; inputs are checked to be finite before they get here. Ties go
    to the lowest centroid index (strict ``<``).
    """
    num_points, num_bins = cdfs.shape
    num_centroids = centroids.shape[0]
    for i in prange(num_points):
        best = np.inf
        best_index = 0
        for c in range(num_centroids):
            total = 0.0
            for j in range(num_bins):
                total += abs(np.float64(cdfs[i, j]) - np.float64(centroids[c, j]))
            if total < best:
                best = total
                best_index = c
        labels[i] = best_index
        distances[i] = best


@njit(cache=True, parallel=True, fastmath={"reassoc", "contract", "nsz", "arcp"})
def _distance_to_point(cdfs, point, out):
    """L1 distance float64 [N] from each row of ``cdfs`` float32 [N, B] to ``point`` float32 [B]."""
    num_points, num_bins = cdfs.shape
    for i in prange(num_points):
        total = 0.0
        for j in range(num_bins):
            total += abs(np.float64(cdfs[i, j]) - np.float64(point[j]))
        out[i] = total


@njit(cache=True, parallel=True, fastmath={"reassoc", "contract", "nsz", "arcp"})
def _distance_to_assigned(cdfs, centroids, labels, out):
    """L1 distance float64 [N] from each row of ``cdfs`` float32 [N, B] to ``centroids[labels[i]]``."""
    num_points, num_bins = cdfs.shape
    for i in prange(num_points):
        c = labels[i]
        total = 0.0
        for j in range(num_bins):
            total += abs(np.float64(cdfs[i, j]) - np.float64(centroids[c, j]))
        out[i] = total


@njit(cache=True, parallel=True)
def _cluster_medians_kernel(sorted_values, order, weights, labels, cluster_weight, out):
    """Lower weighted median of every (cluster, column) pair, parallel over columns.

    ``sorted_values`` float32 [B, N] holds each column of the CDF array sorted
    ascending and ``order`` int32 [B, N] the point each entry came from, so the
    sort is done once per fit and reused by every Lloyd iteration and restart:
    only the labels change between iterations. ``weights`` float64 [N],
    ``labels`` int32 [N], ``cluster_weight`` float64 [k] (total weight per
    cluster). Walking a column in ascending order, cluster ``c``'s median is the
    first value at which its running weight reaches half of its total; that is
    the smallest value whose cumulative weight is >= half. Clusters with zero
    total weight are left untouched in ``out`` float32 [k, B].
    """
    num_bins, num_points = order.shape
    num_clusters = cluster_weight.shape[0]
    pending_clusters = 0
    for c in range(num_clusters):
        if cluster_weight[c] > 0.0:
            pending_clusters += 1
    for b in prange(num_bins):
        running = np.zeros(num_clusters, dtype=np.float64)
        done = np.zeros(num_clusters, dtype=np.bool_)
        pending = pending_clusters
        for position in range(num_points):
            if pending == 0:
                break
            point = order[b, position]
            c = labels[point]
            if done[c]:
                continue
            running[c] += weights[point]
            # Comparing 2 * running with the total avoids rounding in a halving;
            # cluster_weight[c] > 0 keeps zero-weight clusters (and points) out.
            if cluster_weight[c] > 0.0 and 2.0 * running[c] >= cluster_weight[c]:
                out[c, b] = sorted_values[b, position]
                done[c] = True
                pending -= 1


# --------------------------------------------------------------------------- histograms and EMD


def histogram_cdfs(histograms: npt.ArrayLike) -> npt.NDArray[np.float32]:
    """Normalised cumulative sums of histograms.

    ``histograms``: [N, B] non-negative counts or masses (any real dtype).
    Returns float32 [N, B], non-decreasing along each row, last column exactly 1.
    Raises ``ValueError`` on a non-2-D input, a negative or non-finite entry, or
    an all-zero row.
    """
    array = np.asarray(histograms, dtype=np.float64)
    if array.ndim != 2 or array.shape[1] < 1:
        raise ValueError(f"histograms must be [N, B] with B >= 1, got shape {array.shape}")
    if not np.all(np.isfinite(array)):
        raise ValueError("histograms must be finite")
    if np.any(array < 0.0):
        raise ValueError("histograms must be non-negative")
    cumulative = np.cumsum(array, axis=1)
    totals = cumulative[:, -1:]
    if np.any(totals <= 0.0):
        raise ValueError("every histogram needs positive total mass")
    # Dividing by the row's own last cumulative value (rather than a separately
    # computed sum) makes the last column exactly 1 and keeps rows monotone.
    return (cumulative / totals).astype(np.float32)


def emd(p: npt.ArrayLike, q: npt.ArrayLike) -> float | npt.NDArray[np.float64]:
    """Earth Mover's Distance between histograms on ``B`` equal bins of ``[0, 1]``.

    ``p``, ``q``: [..., B] non-negative masses (normalised here, so unnormalised
    counts are fine), broadcast over the leading dimensions. Returns a float for
    single histograms, else float64 [...]. Equal to
    ``scipy.stats.wasserstein_distance(centres, centres, u_weights=p, v_weights=q)``
    with ``centres = (arange(B) + 0.5) / B``; a unit mass in bin ``i`` against
    one in bin ``j`` is ``|i - j| / B`` apart.
    """
    p_array = np.asarray(p, dtype=np.float64)
    q_array = np.asarray(q, dtype=np.float64)
    if p_array.ndim < 1 or q_array.ndim < 1 or p_array.shape[-1] != q_array.shape[-1]:
        raise ValueError(f"histograms need the same last dimension, got {p_array.shape} and {q_array.shape}")
    for name, array in (("p", p_array), ("q", q_array)):
        if not np.all(np.isfinite(array)) or np.any(array < 0.0):
            raise ValueError(f"{name} must be finite and non-negative")
    num_bins = p_array.shape[-1]
    p_cdf = np.cumsum(p_array, axis=-1)
    q_cdf = np.cumsum(q_array, axis=-1)
    p_total = p_cdf[..., -1:]
    q_total = q_cdf[..., -1:]
    if np.any(p_total <= 0.0) or np.any(q_total <= 0.0):
        raise ValueError("every histogram needs positive total mass")
    distance = np.sum(np.abs(p_cdf / p_total - q_cdf / q_total), axis=-1) / num_bins
    if distance.ndim == 0:
        return float(distance)
    return distance


def cdf_means(cdfs: npt.ArrayLike) -> npt.NDArray[np.float32]:
    """Mean equity described by each CDF.

    ``cdfs``: [N, B] (or [B]) cumulative distributions on ``B`` equal bins of
    ``[0, 1]``. Returns float32 [N] (or a 0-d array): ``sum_i centre_i * pmf_i``
    with ``centre_i = (i + 0.5) / B`` and ``pmf_i = cdf_i - cdf_{i-1}``.
    """
    array = np.asarray(cdfs, dtype=np.float64)
    num_bins = array.shape[-1]
    pmf = np.diff(array, axis=-1, prepend=0.0)
    centres = (np.arange(num_bins, dtype=np.float64) + 0.5) / num_bins
    return (pmf @ centres).astype(np.float32)


# --------------------------------------------------------------------------- assignment


def _as_cdf_array(cdfs: npt.ArrayLike, name: str = "cdfs") -> npt.NDArray[np.float32]:
    array = np.ascontiguousarray(cdfs, dtype=np.float32)
    if array.ndim != 2 or array.shape[1] < 1:
        raise ValueError(f"{name} must be [N, B] with B >= 1, got shape {array.shape}")
    return array


def assign(
    cdfs: npt.ArrayLike, centroids: npt.ArrayLike
) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.float32]]:
    """Nearest centroid of every point under the L1 distance between CDFs.

    ``cdfs``: float32 [N, B] (other dtypes are converted, at the cost of a
    copy); ``centroids``: float32 [k, B]. Returns ``labels`` int32 [N] (ties go
    to the lowest index) and ``distances`` float32 [N] in L1-of-CDF units:
    the EMD is ``distances / B``. Compiled with numba, parallel over points;
    inputs must be finite (not checked here, to keep 14-million-row chunks fast).
    """
    cdf_array = _as_cdf_array(cdfs)
    centroid_array = _as_cdf_array(centroids, "centroids")
    if centroid_array.shape[1] != cdf_array.shape[1]:
        raise ValueError(f"centroids have {centroid_array.shape[1]} bins, cdfs have {cdf_array.shape[1]}")
    if centroid_array.shape[0] < 1:
        raise ValueError("need at least one centroid")
    labels = np.empty(cdf_array.shape[0], dtype=np.int32)
    distances = np.empty(cdf_array.shape[0], dtype=np.float32)
    _assign_kernel(cdf_array, centroid_array, labels, distances)
    return labels, distances


# --------------------------------------------------------------------------- weighted medians


def weighted_median(values: npt.ArrayLike, weights: npt.ArrayLike) -> float:
    """Lower weighted median: the smallest value whose cumulative weight is >= half the total.

    ``values``: [N] real; ``weights``: [N] non-negative with a positive total.
    """
    value_array = np.asarray(values, dtype=np.float64)
    weight_array = np.asarray(weights, dtype=np.float64)
    if value_array.ndim != 1 or weight_array.shape != value_array.shape:
        raise ValueError(
            f"values and weights must be matching [N] arrays, got {value_array.shape} "
            f"and {weight_array.shape}"
        )
    _check_values(value_array)
    _check_weights(weight_array)
    order = np.argsort(value_array, kind="stable")
    cumulative = np.cumsum(weight_array[order])
    # First position where the running weight reaches half of the total.
    position = int(np.argmax(2.0 * cumulative >= cumulative[-1]))
    return float(value_array[order[position]])


def weighted_median_columns(values: npt.ArrayLike, weights: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """Lower weighted median of every column of ``values`` [N, B] under ``weights`` [N].

    Returns float64 [B]; column ``b`` equals ``weighted_median(values[:, b], weights)``.
    """
    value_array = np.asarray(values, dtype=np.float64)
    weight_array = np.asarray(weights, dtype=np.float64)
    if value_array.ndim != 2 or weight_array.shape != value_array.shape[:1]:
        raise ValueError(
            f"values must be [N, B] and weights [N], got {value_array.shape} and {weight_array.shape}"
        )
    _check_values(value_array)
    _check_weights(weight_array)
    order = np.argsort(value_array, axis=0, kind="stable")
    cumulative = np.cumsum(weight_array[order], axis=0)
    position = np.argmax(2.0 * cumulative >= cumulative[-1:], axis=0)
    rows = order[position, np.arange(value_array.shape[1])]
    return value_array[rows, np.arange(value_array.shape[1])]


def _check_values(values: npt.NDArray[np.float64]) -> None:
    if not np.all(np.isfinite(values)):
        raise ValueError("values must be finite")


def _check_weights(weights: npt.NDArray[np.float64]) -> None:
    if not np.all(np.isfinite(weights)) or np.any(weights < 0.0):
        raise ValueError("weights must be finite and non-negative")
    if not weights.sum() > 0.0:
        raise ValueError("weights must have a positive total")


class _SortedColumns:
    """Each column of a CDF array sorted once, for repeated per-cluster medians.

    ``values`` float32 [B, N]: column ``b`` ascending; ``order`` int32 [B, N]:
    the row each sorted entry came from.
    """

    def __init__(self, cdfs: npt.NDArray[np.float32]) -> None:
        columns = np.ascontiguousarray(cdfs.T)
        order = np.argsort(columns, axis=1, kind="stable")
        self.values = np.ascontiguousarray(np.take_along_axis(columns, order, axis=1))
        self.order = order.astype(np.int32)


def _medians_from_sorted(
    sorted_columns: _SortedColumns,
    weights: npt.NDArray[np.float64],
    labels: npt.NDArray[np.int32],
    num_clusters: int,
    previous: npt.NDArray[np.float32],
) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float64]]:
    cluster_weight = np.bincount(labels, weights=weights, minlength=num_clusters).astype(np.float64)
    # Clusters with no weight keep their previous row; the caller re-seeds them.
    centroids = previous.copy()
    _cluster_medians_kernel(
        sorted_columns.values, sorted_columns.order, weights, labels, cluster_weight, centroids
    )
    return centroids, cluster_weight


def cluster_medians(
    cdfs: npt.ArrayLike, weights: npt.ArrayLike, labels: npt.ArrayLike, num_clusters: int
) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float64]]:
    """Weighted coordinate-wise median of every cluster: the L1 (EMD) optimal centroids.

    ``cdfs`` float32 [N, B], ``weights`` [N] non-negative, ``labels`` [N] in
    ``0 .. num_clusters - 1``. Returns ``centroids`` float32 [k, B] (rows of
    clusters with zero total weight are NaN) and ``cluster_weight`` float64 [k].
    Sorts every column (two [B, N] scratch arrays of 4 bytes per entry), so it is
    meant for fit-sized data (hundreds of thousands of points), not whole-game chunks.
    """
    cdf_array, weight_array, label_array = _check_labelled(cdfs, weights, labels, num_clusters)
    previous = np.full((num_clusters, cdf_array.shape[1]), np.nan, dtype=np.float32)
    return _medians_from_sorted(_SortedColumns(cdf_array), weight_array, label_array, num_clusters, previous)


def _check_labelled(
    cdfs: npt.ArrayLike, weights: npt.ArrayLike, labels: npt.ArrayLike, num_clusters: int
) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float64], npt.NDArray[np.int32]]:
    cdf_array = _as_cdf_array(cdfs)
    weight_array = np.ascontiguousarray(weights, dtype=np.float64)
    label_array = np.ascontiguousarray(labels, dtype=np.int32)
    num_points = cdf_array.shape[0]
    if weight_array.shape != (num_points,) or label_array.shape != (num_points,):
        raise ValueError(
            f"weights and labels must be [{num_points}], got {weight_array.shape} and {label_array.shape}"
        )
    if num_clusters < 1:
        raise ValueError("num_clusters must be >= 1")
    if num_points and (label_array.min() < 0 or label_array.max() >= num_clusters):
        raise ValueError(f"labels must lie in 0 .. {num_clusters - 1}")
    _check_weights(weight_array)
    return cdf_array, weight_array, label_array


def within_cluster_emd(
    cdfs: npt.ArrayLike, weights: npt.ArrayLike, labels: npt.ArrayLike, num_clusters: int
) -> float:
    """Weighted mean EMD from each point to its cluster's weighted-median centroid.

    ``cdfs`` float32 [N, B], ``weights`` [N], ``labels`` [N] in ``0 .. k-1``.
    The clusters' medians are recomputed from the labels, so any assignment
    (e.g. :func:`random_assignment`) can be scored on the same footing.
    Sorts every column (see :func:`cluster_medians`): meant for fit-sized data.
    """
    cdf_array, weight_array, label_array = _check_labelled(cdfs, weights, labels, num_clusters)
    centroids, _ = cluster_medians(cdf_array, weight_array, label_array, num_clusters)
    # Zero-weight clusters have NaN centroids but contribute nothing: zero their rows.
    centroids = np.nan_to_num(centroids, nan=0.0)
    distances = np.empty(cdf_array.shape[0], dtype=np.float64)
    _distance_to_assigned(cdf_array, centroids, label_array, distances)
    return float(weight_array @ distances / (weight_array.sum() * cdf_array.shape[1]))


def random_assignment(labels: npt.ArrayLike, rng: np.random.Generator) -> npt.NDArray[np.int32]:
    """A uniformly random permutation of ``labels`` [N]: same cluster sizes, int32 [N]."""
    return rng.permutation(np.asarray(labels, dtype=np.int32))


# --------------------------------------------------------------------------- k-medians


@dataclass(frozen=True)
class Clustering:
    """Result of :func:`fit_emd_clusters`.

    * ``centroids``: float32 [k, B], CDFs, ordered by mean equity (cluster 0 weakest);
    * ``labels``: int32 [N], each point's nearest centroid (``assign(cdfs, centroids)``);
    * ``objective``: weighted mean EMD from the points to their centroids;
    * ``iterations``: assignment steps taken by the winning restart;
    * ``restart``: index of the winning restart;
    * ``objectives``: the winning restart's objective after each assignment step
      (non-increasing; the last entry is ``objective``);
    * ``restart_objectives``: the final objective of every restart.
    """

    centroids: npt.NDArray[np.float32]
    labels: npt.NDArray[np.int32]
    objective: float
    iterations: int
    restart: int
    objectives: tuple[float, ...] = ()
    restart_objectives: tuple[float, ...] = ()


def _sample_index(probability_mass: npt.NDArray[np.float64], rng: np.random.Generator) -> int:
    """Draw an index with probability proportional to ``probability_mass`` float64 [N] (positive total)."""
    cumulative = np.cumsum(probability_mass)
    target = rng.random() * cumulative[-1]
    # side="right" skips zero-mass entries; the clamp guards target == total after rounding.
    return min(int(np.searchsorted(cumulative, target, side="right")), probability_mass.shape[0] - 1)


def _kmeans_plus_plus(
    cdfs: npt.NDArray[np.float32],
    weights: npt.NDArray[np.float64],
    num_clusters: int,
    rng: np.random.Generator,
) -> npt.NDArray[np.float32]:
    """k-means++ seeding: next centre drawn with probability ∝ weight × D², D the L1 distance.

    Returns float32 [k, B]. When every positive-weight point already sits on a
    chosen centre (fewer distinct points than clusters) the next centre is
    drawn by weight alone, giving a duplicate centroid.
    """
    num_points, num_bins = cdfs.shape
    centroids = np.empty((num_clusters, num_bins), dtype=np.float32)
    first = _sample_index(weights, rng)
    centroids[0] = cdfs[first]
    nearest = np.empty(num_points, dtype=np.float64)
    _distance_to_point(cdfs, centroids[0], nearest)
    scratch = np.empty(num_points, dtype=np.float64)
    for c in range(1, num_clusters):
        mass = weights * nearest * nearest
        chosen = _sample_index(mass, rng) if mass.sum() > 0.0 else _sample_index(weights, rng)
        centroids[c] = cdfs[chosen]
        _distance_to_point(cdfs, centroids[c], scratch)
        np.minimum(nearest, scratch, out=nearest)
    return centroids


def _reseed_empty(
    cdfs: npt.NDArray[np.float32],
    weights: npt.NDArray[np.float64],
    distances: npt.NDArray[np.float64],
    centroids: npt.NDArray[np.float32],
    cluster_weight: npt.NDArray[np.float64],
) -> None:
    """Move every weightless cluster's centroid onto the point with the largest weight × distance.

    ``distances`` float64 [N] are the points' distances to their current
    centroids. Each chosen point's score is zeroed so that two empty clusters
    never take the same point. An empty cluster owns no weight, so moving its
    centroid leaves the current objective unchanged and the next assignment
    can only lower it.
    """
    empty = np.flatnonzero(cluster_weight <= 0.0)
    if empty.size == 0:
        return
    score = weights * distances
    for c in empty:
        farthest = int(np.argmax(score))
        if score[farthest] <= 0.0:
            # Every point sits on its centroid: nothing to gain; keep the old row.
            break
        centroids[c] = cdfs[farthest]
        score[farthest] = 0.0


def _lloyd(
    cdfs: npt.NDArray[np.float32],
    weights: npt.NDArray[np.float64],
    sorted_columns: _SortedColumns,
    centroids: npt.NDArray[np.float32],
    max_iterations: int,
    tolerance: float,
) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.int32], list[float]]:
    """Alternate assignment and weighted-median steps from ``centroids`` float32 [k, B].

    Returns the final centroids, the labels int32 [N] they induce and the
    objective (weighted mean EMD) after every assignment step. Stops when the
    labels repeat, the objective improves by less than ``tolerance``, or after
    ``max_iterations`` assignment steps; the returned labels are always the
    assignment to the returned centroids.
    """
    num_clusters = centroids.shape[0]
    scale = 1.0 / (float(weights.sum()) * cdfs.shape[1])
    history: list[float] = []
    # float64 distances inside the fit keep the objective history monotone well below 1e-9.
    distances = np.empty(cdfs.shape[0], dtype=np.float64)
    previous_labels: npt.NDArray[np.int32] | None = None
    while True:
        # Fresh arrays each step: the previous labels are kept for the convergence test.
        labels = np.empty(cdfs.shape[0], dtype=np.int32)
        _assign_kernel(cdfs, centroids, labels, distances)
        objective = float(weights @ distances) * scale
        history.append(objective)
        if previous_labels is not None and np.array_equal(labels, previous_labels):
            break
        if len(history) >= 2 and history[-2] - objective < tolerance:
            break
        if len(history) >= max_iterations:
            break
        new_centroids, cluster_weight = _medians_from_sorted(
            sorted_columns, weights, labels, num_clusters, centroids
        )
        _reseed_empty(cdfs, weights, distances, new_centroids, cluster_weight)
        centroids = new_centroids
        previous_labels = labels
    return centroids, labels, history


def fit_emd_clusters(
    cdfs: npt.ArrayLike,
    weights: npt.ArrayLike,
    num_clusters: int,
    *,
    seed: int,
    restarts: int = 4,
    max_iterations: int = 50,
    tolerance: float = 1e-7,
) -> Clustering:
    """Weighted k-medians of CDFs under L1, i.e. EMD clustering of equity histograms.

    ``cdfs``: float32 [N, B] (rows non-decreasing, ending at 1; other float
    dtypes are converted); ``weights``: [N] non-negative (deals per point).
    Each of ``restarts`` runs seeds with k-means++ (probability ∝ weight × D²)
    and then alternates assignment with weighted coordinate-wise medians; an
    empty cluster is re-seeded on the point farthest from its centroid
    (largest weight × distance). The restart with the lowest objective wins
    (the first on ties). Clusters are finally relabelled by the mean equity of
    their centroids, ascending. ``tolerance`` is an absolute threshold on the
    improvement of the objective (weighted mean EMD) between iterations.
    Deterministic for a given ``seed``; restart ``r`` uses
    ``SeedSequence(seed).spawn(restarts)[r]``, so it does not depend on
    ``restarts``.
    """
    cdf_array = _as_cdf_array(cdfs)
    weight_array = np.ascontiguousarray(weights, dtype=np.float64)
    num_points = cdf_array.shape[0]
    if weight_array.shape != (num_points,):
        raise ValueError(f"weights must be [{num_points}], got {weight_array.shape}")
    if not np.all(np.isfinite(cdf_array)):
        raise ValueError("cdfs must be finite")
    _check_weights(weight_array)
    if num_clusters < 1:
        raise ValueError(f"num_clusters must be >= 1, got {num_clusters}")
    positive = int(np.count_nonzero(weight_array > 0.0))
    if num_clusters > positive:
        raise ValueError(f"num_clusters={num_clusters} exceeds the {positive} points with positive weight")
    if restarts < 1 or max_iterations < 1:
        raise ValueError("restarts and max_iterations must be >= 1")
    if not tolerance >= 0.0:
        raise ValueError("tolerance must be >= 0")

    sorted_columns = _SortedColumns(cdf_array)
    best: tuple[npt.NDArray[np.float32], npt.NDArray[np.int32], list[float], int] | None = None
    finals: list[float] = []
    for restart, child in enumerate(np.random.SeedSequence(seed).spawn(restarts)):
        rng = np.random.default_rng(child)
        initial = _kmeans_plus_plus(cdf_array, weight_array, num_clusters, rng)
        centroids, labels, history = _lloyd(
            cdf_array, weight_array, sorted_columns, initial, max_iterations, tolerance
        )
        finals.append(history[-1])
        if best is None or history[-1] < best[2][-1]:
            best = (centroids, labels, history, restart)
    assert best is not None
    centroids, labels, history, winner = best

    # Relabel by mean equity so that cluster ids are comparable across fits.
    rank = np.argsort(cdf_means(centroids), kind="stable")
    new_id = np.empty(num_clusters, dtype=np.int32)
    new_id[rank] = np.arange(num_clusters, dtype=np.int32)
    return Clustering(
        centroids=np.ascontiguousarray(centroids[rank]),
        labels=new_id[labels],
        objective=history[-1],
        iterations=len(history),
        restart=winner,
        objectives=tuple(history),
        restart_objectives=tuple(finals),
    )


# --------------------------------------------------------------------------- percentile buckets


def weighted_midranks(values: npt.ArrayLike, weights: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """Weighted mid-rank ``P(V < v) + ½ P(V = v)`` of each value under the weighted distribution.

    ``values``: [N] real; ``weights``: [N] non-negative with a positive total.
    Returns float64 [N] in ``[0, 1]``; equal values get equal mid-ranks.
    """
    numerator, total = _midrank_parts(values, weights)
    return numerator / (2.0 * total)


def _midrank_parts(values: npt.ArrayLike, weights: npt.ArrayLike) -> tuple[npt.NDArray[np.float64], float]:
    """``2 P(V < v) + P(V = v)`` unnormalised (float64 [N]) and the total weight, inputs checked.

    Kept unnormalised so that integer weights give exact integers and bucket
    boundaries are decided without rounding.
    """
    values = np.asarray(values, dtype=np.float64)
    weights = np.asarray(weights, dtype=np.float64)
    if values.ndim != 1 or weights.shape != values.shape:
        raise ValueError(
            f"values and weights must be matching [N] arrays, got {values.shape} and {weights.shape}"
        )
    _check_values(values)
    _check_weights(weights)
    distinct, inverse = np.unique(values, return_inverse=True)
    group_weight = np.bincount(inverse.ravel(), weights=weights, minlength=distinct.shape[0])
    below = np.concatenate(([0.0], np.cumsum(group_weight)[:-1]))
    total = float(weights.sum())
    return (2.0 * below + group_weight)[inverse.ravel()], total


def percentile_buckets(
    values: npt.ArrayLike, weights: npt.ArrayLike, num_buckets: int
) -> npt.NDArray[np.int32]:
    """Equal-mass buckets of a scalar (e.g. hand strength) under weights.

    ``values``: [N] real; ``weights``: [N] non-negative with a positive total.
    Returns int32 [N]: ``min(num_buckets - 1, floor(num_buckets * m))`` with
    ``m = P(V < v) + ½ P(V = v)`` the weighted mid-rank. Monotone in the value
    (bucket 0 weakest), equal values share a bucket, and with distinct equally
    weighted values each bucket gets the same mass (up to one point).
    """
    if num_buckets < 1:
        raise ValueError(f"num_buckets must be >= 1, got {num_buckets}")
    numerator, total = _midrank_parts(values, weights)
    # num_buckets * numerator is exact for integer weights, so exact boundaries floor correctly.
    buckets = np.floor(num_buckets * numerator / (2.0 * total)).astype(np.int64)
    return np.minimum(buckets, num_buckets - 1).astype(np.int32)
