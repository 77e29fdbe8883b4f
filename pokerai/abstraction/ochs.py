"""River buckets by opponent cluster hand strength (OCHS).

After Johanson, Burch, Valenzano & Bowling, "Evaluating State-Space Abstractions in
Extensive-Form Games" (AAMAS 2013). The 169 preflop classes are split into ``k`` *opponent
clusters*: equal-mass groups by exact preflop equity against a random hand
(:func:`opponent_clusters`, cluster 0 weakest). A river hand (hole cards + 5-card board) is
then described by ``k`` numbers: its showdown equity (wins + ties / 2) against the opponent
hands of each cluster that share no card with it (:func:`ochs_features`). Where every hand
of a cluster collides with our cards the equity against it is taken as ½.

These vectors are clustered by k-means (scikit-learn's ``KMeans``, Euclidean) on a sample of
river deals (:func:`fit_ochs_centroids`), and every canonical river index is assigned to its
nearest centroid (:func:`ochs_river_table`). Buckets are numbered by their centroid's
strength, the centroid's equities weighted by the clusters' hole-combo counts: bucket 0 is
weakest.

The full table is filled board by board, as :func:`~pokerai.abstraction.histograms.river_strength`
is: per canonical 5-card board the 1,081 hole pairs are ranked once and sorted, and a sweep
up the ranks counts, per opponent cluster, the hands below and tied, with card removal by
inclusion--exclusion (per card and cluster, the hands holding that card). The features of one
batch of boards (a bounded buffer) are assigned to the centroids before the next batch is
computed, so the 123,156,254 feature vectors are never held at once.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from numba import njit, prange

from pokerai.abstraction.clustering import percentile_buckets
from pokerai.abstraction.histograms import (
    _HOLES_PER_BOARD,
    _rank_river_holes,
    _river_hand_indices,
    _tie_group_end,
    preflop_combos,
)
from pokerai.abstraction.isomorphism import board_indexer, street_indexer, unindex_hand
from pokerai.engine.evaluator import tables

_FEATURE_BUFFER_BYTES = 1 << 25
"""Feature rows of one batch of boards (float32): bounds the memory of :func:`ochs_river_table`."""
_UNFILLED = 255
"""Marks river entries not yet assigned (OCHS tables have at most 255 buckets, 0 .. 254)."""


def opponent_clusters(preflop_equity: npt.ArrayLike, num_clusters: int) -> npt.NDArray[np.int64]:
    """The opponent cluster (int64 [169], 0 weakest) of each preflop class.

    ``preflop_equity``: float [169], each class's equity against a random hand
    (:attr:`~pokerai.abstraction.histograms.RiverStrength.preflop_equity`). The clusters are
    equal-mass bins of it, mass being the class's 4, 6 or 12 hole combos.
    """
    equity = np.asarray(preflop_equity, dtype=np.float64)
    if equity.shape != (169,):
        raise ValueError(f"preflop_equity must hold the 169 preflop classes, got shape {equity.shape}")
    if num_clusters < 1:
        raise ValueError(f"num_clusters must be at least 1, got {num_clusters}")
    clusters = percentile_buckets(equity, preflop_combos(), num_clusters).astype(np.int64)
    empty = np.setdiff1d(np.arange(num_clusters), clusters)
    if empty.size:
        raise ValueError(
            f"{num_clusters} equal-mass opponent clusters leave cluster {int(empty[0])} empty; use fewer"
        )
    return clusters


def _pair_clusters(clusters: npt.NDArray[np.int64]) -> tuple[npt.NDArray[np.int64], int]:
    """The opponent cluster of every ordered pair of hole cards (int64 [52, 52]) and the cluster count."""
    array = np.asarray(clusters)
    if array.shape != (169,) or not np.issubdtype(array.dtype, np.integer):
        raise ValueError(f"clusters must be integers [169], one per preflop class, got {array.shape}")
    num_clusters = int(array.max()) + 1
    if array.min() < 0 or np.unique(array).size != num_clusters:
        raise ValueError(f"clusters must number the opponent clusters 0 .. {num_clusters - 1}, each used")
    pairs = np.array([(a, b) for a in range(52) for b in range(52) if a != b], dtype=np.uint8)
    pair_cluster = np.zeros((52, 52), dtype=np.int64)  # the diagonal is never read
    pair_cluster[pairs[:, 0], pairs[:, 1]] = array[street_indexer(0).index(pairs)]
    return pair_cluster, num_clusters


@njit(cache=True, inline="always")
def _equity(twice_wins_plus_ties: int, total: int) -> np.float32:
    if total == 0:
        return np.float32(0.5)
    return np.float32(twice_wins_plus_ties / (2.0 * total))


@njit(cache=True, parallel=True)
def _hand_features(
    indices: npt.NDArray[np.int64],
    pair_cluster: npt.NDArray[np.int64],
    num_clusters: int,
    card_key: npt.NDArray[np.int64],
    nonflush7: npt.NDArray[np.uint16],
    flush: npt.NDArray[np.uint16],
    river_tables: tuple,
) -> npt.NDArray[np.float32]:
    """OCHS of single river hands, each against its own enumeration of the opponent hands."""
    features = np.empty((indices.shape[0], num_clusters), dtype=np.float32)
    for row in prange(indices.shape[0]):
        hand = np.empty(7, dtype=np.uint8)
        unindex_hand(indices[row], hand, *river_tables)
        holes = np.empty((_HOLES_PER_BOARD, 2), dtype=np.int64)
        ranks = np.empty(_HOLES_PER_BOARD, dtype=np.int64)
        count = _rank_river_holes(hand[2:].copy(), card_key, nonflush7, flush, holes, ranks)
        ours = 0
        for h in range(count):  # the hand's own cards come in ascending order, as the pairs' do
            if holes[h, 0] == hand[0] and holes[h, 1] == hand[1]:
                ours = ranks[h]
        points = np.zeros(num_clusters, dtype=np.int64)
        total = np.zeros(num_clusters, dtype=np.int64)
        for h in range(count):
            first = holes[h, 0]
            second = holes[h, 1]
            if first == hand[0] or first == hand[1] or second == hand[0] or second == hand[1]:
                continue
            theirs = ranks[h]
            cluster = pair_cluster[first, second]
            total[cluster] += 1
            if theirs < ours:
                points[cluster] += 2
            elif theirs == ours:
                points[cluster] += 1
        for cluster in range(num_clusters):
            features[row, cluster] = _equity(points[cluster], total[cluster])
    return features


@njit(cache=True, parallel=True)
def _board_features(
    first_board: int,
    num_boards: int,
    pair_cluster: npt.NDArray[np.int64],
    num_clusters: int,
    indices: npt.NDArray[np.int64],
    features: npt.NDArray[np.float32],
    card_key: npt.NDArray[np.int64],
    nonflush7: npt.NDArray[np.uint16],
    flush: npt.NDArray[np.uint16],
    board_tables: tuple,
    river_tables: tuple,
) -> None:
    """OCHS of all 1,081 hole pairs on each canonical board ``first_board + b``, in rows b * 1081 ...

    Writes each pair's canonical river index to ``indices`` and its features to ``features``.
    """
    for local in prange(num_boards):
        board = np.empty(5, dtype=np.uint8)
        holes = np.empty((_HOLES_PER_BOARD, 2), dtype=np.int64)
        ranks = np.empty(_HOLES_PER_BOARD, dtype=np.int64)
        hole_cluster = np.empty(_HOLES_PER_BOARD, dtype=np.int64)
        # Per card and cluster: hands holding the card (all, weaker than the current rank, tied with it).
        with_card = np.zeros((52, num_clusters), dtype=np.int64)
        below_with = np.zeros((52, num_clusters), dtype=np.int64)
        tied_with = np.zeros((52, num_clusters), dtype=np.int64)
        cluster_size = np.zeros(num_clusters, dtype=np.int64)
        below = np.zeros(num_clusters, dtype=np.int64)
        tied = np.zeros(num_clusters, dtype=np.int64)
        unindex_hand(first_board + local, board, *board_tables)
        count = _rank_river_holes(board, card_key, nonflush7, flush, holes, ranks)
        for h in range(count):
            first = holes[h, 0]
            second = holes[h, 1]
            cluster = pair_cluster[first, second]
            hole_cluster[h] = cluster
            with_card[first, cluster] += 1
            with_card[second, cluster] += 1
            cluster_size[cluster] += 1
        order = np.argsort(ranks)
        base = local * _HOLES_PER_BOARD
        position = 0
        while position < count:
            end = _tie_group_end(ranks, order, position, count)
            for k in range(position, end):
                h = order[k]
                cluster = hole_cluster[h]
                tied[cluster] += 1
                tied_with[holes[h, 0], cluster] += 1
                tied_with[holes[h, 1], cluster] += 1
            for k in range(position, end):
                h = order[k]
                a = holes[h, 0]
                b = holes[h, 1]
                own = hole_cluster[h]
                row = base + h
                for cluster in range(num_clusters):
                    # Opponents must avoid both our cards; only our own hand holds both, and it is
                    # neither weaker than itself nor an opponent, so it is added back to ties and total.
                    itself = 1 if cluster == own else 0
                    wins = below[cluster] - below_with[a, cluster] - below_with[b, cluster]
                    ties = tied[cluster] - tied_with[a, cluster] - tied_with[b, cluster] + itself
                    total = cluster_size[cluster] - with_card[a, cluster] - with_card[b, cluster] + itself
                    features[row, cluster] = _equity(2 * wins + ties, total)
            for k in range(position, end):
                h = order[k]
                cluster = hole_cluster[h]
                below[cluster] += 1
                below_with[holes[h, 0], cluster] += 1
                below_with[holes[h, 1], cluster] += 1
                tied_with[holes[h, 0], cluster] = 0
                tied_with[holes[h, 1], cluster] = 0
            tied[:] = 0
            position = end
        _river_hand_indices(board, holes, count, river_tables, indices[base : base + count])


@njit(cache=True, parallel=True)
def _nearest(features: npt.NDArray[np.float32], centroids: npt.NDArray[np.float32]) -> npt.NDArray[np.uint8]:
    labels = np.empty(features.shape[0], dtype=np.uint8)
    for row in prange(features.shape[0]):
        best = 0
        best_distance = np.inf
        for c in range(centroids.shape[0]):
            distance = 0.0
            for j in range(centroids.shape[1]):
                difference = np.float64(features[row, j]) - np.float64(centroids[c, j])
                distance += difference * difference
            if distance < best_distance:
                best = c
                best_distance = distance
        labels[row] = best
    return labels


def ochs_features(indices: npt.ArrayLike, clusters: npt.NDArray[np.int64]) -> npt.NDArray[np.float32]:
    """OCHS vectors (float32 [N, k]) of canonical river indices (int [N]).

    ``clusters``: int [169], the opponent cluster 0 .. k-1 of each preflop class
    (:func:`opponent_clusters`). Entry ``[i, j]``: hand i's equity against the hands of cluster j.
    """
    pair_cluster, num_clusters = _pair_clusters(clusters)
    river = street_indexer(3)
    array = np.asarray(indices, dtype=np.int64).reshape(-1)
    if array.size and (array.min() < 0 or array.max() >= river.size):
        raise ValueError(f"river indices must lie in 0 .. {river.size - 1}")
    built = tables()
    return _hand_features(
        array,
        pair_cluster,
        num_clusters,
        built.card_key,
        built.nonflush[7],
        built.flush,
        river.unindex_tables,
    )


def board_ochs_features(
    first_board: int, num_boards: int, clusters: npt.NDArray[np.int64]
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float32]]:
    """OCHS of every hole pair on canonical 5-card boards ``first_board .. first_board + num_boards - 1``.

    Boards are numbered by :func:`~pokerai.abstraction.isomorphism.board_indexer` (5).
    Returns the canonical river indices (int64 [num_boards * 1081]) and their OCHS vectors
    (float32 [num_boards * 1081, k]); an index recurs where a board's suit symmetry maps hole
    pairs onto each other. The same numbers as :func:`ochs_features`, computed a board at a time.
    """
    boards = board_indexer(5)
    if num_boards < 0 or first_board < 0 or first_board + num_boards > boards.size:
        raise ValueError(f"boards must lie in 0 .. {boards.size - 1}")
    pair_cluster, num_clusters = _pair_clusters(clusters)
    indices = np.empty(num_boards * _HOLES_PER_BOARD, dtype=np.int64)
    features = np.empty((num_boards * _HOLES_PER_BOARD, num_clusters), dtype=np.float32)
    _fill_board_features(first_board, num_boards, pair_cluster, indices, features)
    return indices, features


def _fill_board_features(first_board: int, num_boards: int, pair_cluster: npt.NDArray[np.int64],
                         indices: npt.NDArray[np.int64],
                         features: npt.NDArray[np.float32]) -> None:  # fmt: skip
    """Run :func:`_board_features` on boards ``first_board ..`` into the first rows of the buffers."""
    built = tables()
    _board_features(first_board, num_boards, pair_cluster, features.shape[1], indices, features,
                    built.card_key, built.nonflush[7], built.flush, board_indexer(5).unindex_tables,
                    street_indexer(3).index_tables)  # fmt: skip


def nearest_centroid(
    features: npt.NDArray[np.float32], centroids: npt.NDArray[np.float32]
) -> npt.NDArray[np.uint8]:
    """The nearest centroid (Euclidean, float64 sums, ties to the lower one) of each row: uint8 [N].

    ``features``: float32 [N, k]; ``centroids``: float32 [buckets, k] with at most 255 buckets.
    """
    features = np.ascontiguousarray(features, dtype=np.float32)
    centroids = np.ascontiguousarray(centroids, dtype=np.float32)
    if centroids.ndim != 2 or not 1 <= centroids.shape[0] < _UNFILLED:
        raise ValueError(f"centroids must be [buckets, k] with 1 .. 254 buckets, got {centroids.shape}")
    if features.ndim != 2 or features.shape[1] != centroids.shape[1]:
        raise ValueError(f"features {features.shape} and centroids {centroids.shape} differ in width")
    return _nearest(features, centroids)


@dataclass(frozen=True)
class OchsFit:
    """Fitted river centroids, numbered by strength.

    ``centroids``: float32 [buckets, k], row b the centroid of bucket b; ``strength``: float64
    [buckets], the centroids' equities weighted by cluster mass, increasing; ``inertia``: the
    weighted sum of squared distances of the fitted points to their centroids; ``iterations``:
    k-means iterations of the kept restart.
    """

    centroids: npt.NDArray[np.float32]
    strength: npt.NDArray[np.float64]
    inertia: float
    iterations: int


def cluster_mass(clusters: npt.NDArray[np.int64]) -> npt.NDArray[np.float64]:
    """Hole combos (of 1,326) in each opponent cluster: float64 [k]."""
    return np.bincount(np.asarray(clusters), weights=preflop_combos()).astype(np.float64)


def fit_ochs_centroids(
    features: npt.NDArray[np.float32],
    weights: npt.ArrayLike,
    num_buckets: int,
    mass: npt.ArrayLike,
    *,
    seed: int,
    restarts: int,
    max_iterations: int,
) -> OchsFit:
    """Weighted k-means (scikit-learn ``KMeans``, k-means++ seeding) on OCHS vectors.

    ``features``: float32 [N, k] of distinct hands; ``weights``: [N], how often each was dealt;
    ``mass``: [k], the weight of each opponent cluster in a centroid's strength
    (:func:`cluster_mass`). Deterministic for a given ``seed``.
    """
    from sklearn.cluster import KMeans  # scikit-learn loads in about a second; only builds need it

    points = np.asarray(features, dtype=np.float64)
    if points.ndim != 2 or points.shape[0] < num_buckets:
        raise ValueError(f"{points.shape[0]} fitted hands cannot make {num_buckets} buckets")
    kmeans = KMeans(
        n_clusters=num_buckets,
        init="k-means++",
        n_init=restarts,
        max_iter=max_iterations,
        random_state=seed,
    ).fit(points, sample_weight=np.asarray(weights, dtype=np.float64))
    centroids = kmeans.cluster_centers_.astype(np.float32)
    weight = np.asarray(mass, dtype=np.float64)
    strength = centroids.astype(np.float64) @ (weight / weight.sum())
    order = np.argsort(strength, kind="stable")
    return OchsFit(
        centroids=np.ascontiguousarray(centroids[order]),
        strength=strength[order],
        inertia=float(kmeans.inertia_),
        iterations=int(kmeans.n_iter_),
    )


def ochs_river_table(
    clusters: npt.NDArray[np.int64],
    centroids: npt.NDArray[np.float32],
    progress: Callable[[int, int], None] | None = None,
) -> npt.NDArray[np.uint8]:
    """The bucket (uint8 [123,156,254]) of every canonical river index: its nearest centroid.

    ``centroids``: float32 [buckets, k] (:attr:`OchsFit.centroids`). ``progress(done, total)``
    is called after each batch of canonical boards (134,459 in all).
    """
    pair_cluster, num_clusters = _pair_clusters(clusters)
    centroids = np.ascontiguousarray(centroids, dtype=np.float32)
    if centroids.ndim != 2 or centroids.shape[1] != num_clusters:
        raise ValueError(f"centroids {centroids.shape} do not have one column per {num_clusters} clusters")
    boards = board_indexer(5)
    river = street_indexer(3)
    batch = max(1, _FEATURE_BUFFER_BYTES // (4 * num_clusters * _HOLES_PER_BOARD))
    indices = np.empty(batch * _HOLES_PER_BOARD, dtype=np.int64)
    features = np.empty((batch * _HOLES_PER_BOARD, num_clusters), dtype=np.float32)
    table = np.full(river.size, _UNFILLED, dtype=np.uint8)
    for first in range(0, boards.size, batch):
        count = min(batch, boards.size - first)
        rows = count * _HOLES_PER_BOARD
        _fill_board_features(first, count, pair_cluster, indices, features)
        table[indices[:rows]] = nearest_centroid(features[:rows], centroids)
        if progress is not None:
            progress(first + count, boards.size)
    assert int(table.max()) < centroids.shape[0], "a canonical river index was not reached by any board"
    return table
