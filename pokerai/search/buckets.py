"""Hands merged into buckets that share a strategy, so that a large subgame solves faster.

:func:`hand_buckets` groups a subgame's hands by k-means on their values against the other
player's range (and the strategies frozen on the street's path); :func:`bucketed_subgame`
is the game in which each bucket's hands play one strategy, which is the same game as long
as they do (its docstring). :func:`bucket_rows` averages per-hand rows into per-bucket ones.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

import numba
import numpy as np
import numpy.typing as npt

from pokerai.search.payoffs import VALID_MATRIX
from pokerai.search.subgame import Subgame


def load_clustering() -> None:
    """Import scikit-learn's k-means now, which :func:`hand_buckets` needs: seconds on a cold start,
    which a player's warm-up pays instead of the first bucketed search."""
    from sklearn.cluster import KMeans  # noqa: F401


def hand_buckets(
    subgame: Subgame,
    fixed: Mapping[int, tuple[float, npt.NDArray[np.float64]]],
    count: int,
    seed: int = 0,
) -> npt.NDArray[np.int64]:
    """Group the subgame's hands into at most ``count`` buckets that play alike: int64 ``[H]`` labels.

    Each hand is described by its value per chip against the other player's root range under
    every payoff matrix of the subgame but the valid-pair one (for either player holding
    it), and by the strategies frozen at ``fixed`` decisions; k-means groups the
    standardised descriptions (seeded). With ``count`` at least the number of hands, every
    hand is its own bucket.
    """
    num_hands = subgame.num_hands
    if count >= num_hands:
        return np.arange(num_hands, dtype=np.int64)
    from sklearn.cluster import KMeans  # scikit-learn loads slowly; only bucketed solves need it

    valid = subgame.matrices[VALID_MATRIX]
    columns: list[npt.NDArray[np.float64]] = []
    for player in (0, 1):
        other = subgame.reach[1 - player]
        met = valid @ other if player == 0 else valid.T @ other
        met = np.where(met > 0, met, 1.0)
        for index, matrix in enumerate(subgame.matrices):
            if index != VALID_MATRIX:
                columns.append((matrix @ other if player == 0 else matrix.T @ other) / met)
    for _, rows in fixed.values():
        columns.extend(rows.T)
    features = np.stack(columns, axis=1)
    spread = features.std(axis=0)
    features = features[:, spread > 1e-12] / spread[spread > 1e-12]
    if features.shape[1] == 0:
        return np.arange(num_hands, dtype=np.int64) % count
    labels = KMeans(n_clusters=count, n_init=1, random_state=seed).fit_predict(features)
    # Renumber so that every label from 0 to the number of buckets used occurs.
    _, compact = np.unique(labels, return_inverse=True)
    return compact.astype(np.int64)


def bucket_rows(
    rows: npt.NDArray[np.float64], labels: npt.NDArray[np.int64], weights: npt.NDArray[np.float64]
) -> npt.NDArray[np.float64]:
    """Columns of ``rows`` ``[..., H]`` averaged per bucket with ``weights`` (uniform where those are 0)."""
    count = int(labels.max()) + 1
    totals = np.bincount(labels, weights, minlength=count)
    used = np.where(totals[labels] > 0, weights, 1.0)
    membership = np.zeros((len(labels), count))
    membership[np.arange(len(labels)), labels] = 1.0
    sums = (rows * used) @ membership
    result: npt.NDArray[np.float64] = sums / np.bincount(labels, used, minlength=count)
    return result


def bucketed_layout(
    subgame: Subgame, layout: npt.NDArray[np.float64], labels: npt.NDArray[np.int64]
) -> npt.NDArray[np.float64]:
    """A strategy in :attr:`~pokerai.search.subgame.Solution.average` layout ``[num_nodes, H]`` averaged
    per bucket (:func:`bucket_rows`), each node's row weighted by its acting player's root reach."""
    acting = np.zeros(subgame.num_nodes, dtype=np.int64)
    for node in subgame.decisions:
        acting[subgame.children(int(node))] = subgame.player[node]
    merged = np.ones((subgame.num_nodes, int(labels.max()) + 1))
    for player in (0, 1):
        rows_of = acting == player
        merged[rows_of] = bucket_rows(layout[rows_of], labels, subgame.reach[player])
    merged[0] = 1.0
    return merged


@numba.njit(cache=True, nogil=True)
def _bucket_sums(
    matrix: npt.NDArray[np.float64],
    labels: npt.NDArray[np.int64],
    row_weights: npt.NDArray[np.float64],
    column_weights: npt.NDArray[np.float64],
    count: int,
) -> npt.NDArray[np.float64]:  # pragma: no cover - numba
    """float64 ``[count, count]``: the sum of ``row_weights[i] * matrix[i, j] * column_weights[j]``
    over the hand pairs of each bucket pair, in one pass over ``matrix``."""
    hands = matrix.shape[0]
    result = np.zeros((count, count))
    row = np.zeros(count)
    for i in range(hands):
        weight = row_weights[i]
        if weight == 0.0:
            continue
        row[:] = 0.0
        for j in range(hands):
            row[labels[j]] += matrix[i, j] * column_weights[j]
        result[labels[i]] += weight * row
    return result


def bucketed_subgame(subgame: Subgame, labels: npt.NDArray[np.int64]) -> Subgame:
    """``subgame`` with the hands of each bucket merged into one (the game where they share a strategy).

    A bucket pair's payoff is the mean over its hand pairs weighted by both players' root
    reach, and a bucket's root reach is its hands' sum. As long as the hands of a bucket
    play one strategy, their reach keeps those proportions through the tree, so the merged
    game gives every bucket the reach-weighted mean of its hands' values: the same game.
    """
    count = int(labels.max()) + 1
    weights = []
    for player in (0, 1):
        reach = subgame.reach[player]
        totals = np.bincount(labels, reach, minlength=count)
        weights.append(np.where(totals[labels] > 0, reach, 1.0))
    norms = [np.bincount(labels, weight, minlength=count) for weight in weights]
    matrices = []
    for matrix in subgame.matrices:
        summed = _bucket_sums(
            np.ascontiguousarray(matrix, dtype=np.float64), labels, weights[0], weights[1], count
        )
        matrices.append(summed / np.outer(norms[0], norms[1]))
    reach = np.stack([np.bincount(labels, subgame.reach[player], minlength=count) for player in (0, 1)])
    return dataclasses.replace(subgame, matrices=tuple(matrices), reach=reach)


__all__ = ["bucket_rows", "bucketed_layout", "bucketed_subgame", "hand_buckets", "load_clustering"]
