"""Tests for EMD clustering of equity histograms (pokerai.abstraction.clustering)."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pytest
from scipy.stats import wasserstein_distance

from pokerai.abstraction.clustering import (
    _kmeans_plus_plus,
    _lloyd,
    _SortedColumns,
    assign,
    cdf_means,
    cluster_medians,
    emd,
    fit_emd_clusters,
    histogram_cdfs,
    percentile_buckets,
    random_assignment,
    weighted_median,
    weighted_median_columns,
    weighted_midranks,
    within_cluster_emd,
)

NUM_BINS = 50


def _random_histograms(rng: np.random.Generator, num_points: int, num_bins: int = NUM_BINS) -> npt.NDArray:
    """Sparse-ish random masses float64 [N, B], every row with positive total."""
    histograms = rng.gamma(0.3, size=(num_points, num_bins))
    histograms[:, rng.integers(num_bins)] += 1e-3
    return histograms


def _planted(
    rng: np.random.Generator, sizes: tuple[int, ...], means: tuple[float, ...], num_bins: int = NUM_BINS
) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.int32]]:
    """Well-separated groups: Gaussian bumps of equity around each mean, jittered, plus noise.

    Returns CDFs float32 [N, B] and the true group of each point int32 [N]
    (groups listed in increasing mean equity).
    """
    centres = (np.arange(num_bins) + 0.5) / num_bins
    rows = []
    groups = []
    for group, (size, mean) in enumerate(zip(sizes, means, strict=True)):
        jitter = rng.uniform(-0.03, 0.03, size=(size, 1))
        bump = np.exp(-0.5 * ((centres[None, :] - mean - jitter) / 0.05) ** 2)
        rows.append(bump + rng.uniform(0.0, 0.02, size=(size, num_bins)))
        groups.append(np.full(size, group, dtype=np.int32))
    return histogram_cdfs(np.vstack(rows)), np.concatenate(groups)


def _brute_weighted_median(values: npt.NDArray, weights: npt.NDArray) -> float:
    """Smallest value v with total weight of {values <= v} at least half of all weight."""
    total = weights.sum()
    candidates = [v for v in np.unique(values) if 2.0 * weights[values <= v].sum() >= total]
    return float(min(candidates))


# --------------------------------------------------------------------------- histograms and EMD


@pytest.mark.parametrize("num_bins", [1, 2, 7, 50])
def test_emd_matches_scipy_wasserstein(num_bins: int) -> None:
    rng = np.random.default_rng(num_bins)
    centres = (np.arange(num_bins) + 0.5) / num_bins
    for _ in range(20):
        # Unnormalised, differently scaled inputs: emd normalises them.
        p = _random_histograms(rng, 1, num_bins)[0] * rng.uniform(0.1, 100.0)
        q = _random_histograms(rng, 1, num_bins)[0] * rng.uniform(0.1, 100.0)
        expected = wasserstein_distance(centres, centres, u_weights=p, v_weights=q)
        assert emd(p, q) == pytest.approx(expected, rel=1e-9, abs=1e-12)
        assert emd(p, q) == pytest.approx(emd(q, p), rel=1e-12, abs=0.0)
        assert emd(p, p) == 0.0
        assert emd(p, 3.0 * p) == pytest.approx(0.0, abs=1e-12)


def test_emd_point_masses_and_broadcasting() -> None:
    eye = np.eye(NUM_BINS)
    for i, j in [(0, 0), (0, 49), (3, 17), (25, 24)]:
        assert emd(eye[i], eye[j]) == pytest.approx(abs(i - j) / NUM_BINS, abs=1e-12)
    rng = np.random.default_rng(1)
    p = _random_histograms(rng, 6)
    q = _random_histograms(rng, 6)
    pairwise = emd(p, q)
    assert isinstance(pairwise, np.ndarray) and pairwise.shape == (6,)
    looped = np.array([float(emd(a, b)) for a, b in zip(p, q, strict=True)])
    np.testing.assert_allclose(pairwise, looped, rtol=1e-12)
    against_one = emd(p[:, None, :], q[None, :, :])
    assert isinstance(against_one, np.ndarray) and against_one.shape == (6, 6)
    np.testing.assert_allclose(np.diag(against_one), pairwise, rtol=1e-12)


def test_emd_is_l1_of_cdfs_over_bins() -> None:
    rng = np.random.default_rng(2)
    histograms = _random_histograms(rng, 40)
    cdfs = histogram_cdfs(histograms)
    l1 = np.abs(cdfs[:20].astype(np.float64) - cdfs[20:]).sum(axis=1)
    np.testing.assert_allclose(l1 / NUM_BINS, emd(histograms[:20], histograms[20:]), rtol=1e-5, atol=1e-7)


def test_histogram_cdfs_shape_and_errors() -> None:
    rng = np.random.default_rng(3)
    cdfs = histogram_cdfs(_random_histograms(rng, 30) * 7.0)
    assert cdfs.dtype == np.float32 and cdfs.shape == (30, NUM_BINS)
    assert np.all(np.diff(cdfs, axis=1) >= 0.0)
    assert np.all(cdfs[:, -1] == 1.0)
    with pytest.raises(ValueError):
        histogram_cdfs(np.array([[1.0, -0.5, 1.0]]))
    with pytest.raises(ValueError):
        histogram_cdfs(np.array([[1.0, 1.0], [0.0, 0.0]]))
    with pytest.raises(ValueError):
        histogram_cdfs(np.ones(5))
    with pytest.raises(ValueError):
        emd(np.ones(3), np.ones(4))


def test_cdf_means() -> None:
    eye = np.eye(NUM_BINS)
    means = cdf_means(histogram_cdfs(eye))
    np.testing.assert_allclose(means, (np.arange(NUM_BINS) + 0.5) / NUM_BINS, rtol=1e-6)
    rng = np.random.default_rng(4)
    histograms = _random_histograms(rng, 10)
    centres = (np.arange(NUM_BINS) + 0.5) / NUM_BINS
    expected = histograms @ centres / histograms.sum(axis=1)
    np.testing.assert_allclose(cdf_means(histogram_cdfs(histograms)), expected, rtol=1e-5)


# --------------------------------------------------------------------------- weighted medians


def test_weighted_median_matches_brute_force() -> None:
    rng = np.random.default_rng(5)
    for trial in range(200):
        size = int(rng.integers(1, 30))
        # Half the trials draw from a few integers so that ties are common.
        values = rng.integers(0, 5, size=size).astype(np.float64) if trial % 2 else rng.normal(size=size)
        weights = rng.integers(0, 4, size=size).astype(np.float64)
        if weights.sum() == 0:
            weights[0] = 1.0
        assert weighted_median(values, weights) == _brute_weighted_median(values, weights)


def test_weighted_median_columns_match_per_column() -> None:
    rng = np.random.default_rng(6)
    values = rng.integers(0, 8, size=(60, 9)).astype(np.float64)
    weights = rng.uniform(0.0, 2.0, size=60)
    expected = [weighted_median(values[:, b], weights) for b in range(9)]
    np.testing.assert_array_equal(weighted_median_columns(values, weights), expected)


def test_weighted_median_errors() -> None:
    with pytest.raises(ValueError):
        weighted_median([1.0, 2.0], [0.0, 0.0])
    with pytest.raises(ValueError):
        weighted_median([1.0, 2.0], [1.0, -1.0])
    with pytest.raises(ValueError):
        weighted_median([1.0, 2.0], [1.0])


def test_cluster_medians_match_column_medians() -> None:
    rng = np.random.default_rng(7)
    cdfs = histogram_cdfs(_random_histograms(rng, 500))
    weights = rng.integers(0, 5, size=500).astype(np.float64)
    labels = rng.integers(0, 6, size=500).astype(np.int32)
    labels[labels == 5] = 4  # cluster 5 left empty
    centroids, cluster_weight = cluster_medians(cdfs, weights, labels, 6)
    assert centroids.dtype == np.float32 and centroids.shape == (6, NUM_BINS)
    np.testing.assert_allclose(cluster_weight, np.bincount(labels, weights, minlength=6))
    for c in range(5):
        member = labels == c
        expected = weighted_median_columns(cdfs[member], weights[member])
        np.testing.assert_array_equal(centroids[c], expected.astype(np.float32))
    assert np.all(np.isnan(centroids[5]))


# --------------------------------------------------------------------------- assignment


def test_assign_matches_brute_force() -> None:
    rng = np.random.default_rng(8)
    cdfs = histogram_cdfs(_random_histograms(rng, 3000))
    centroids = histogram_cdfs(_random_histograms(rng, 12))
    labels, distances = assign(cdfs, centroids)
    assert labels.dtype == np.int32 and distances.dtype == np.float32
    all_distances = np.abs(cdfs[:, None, :].astype(np.float64) - centroids[None, :, :]).sum(axis=2)
    expected_labels = np.argmin(all_distances, axis=1)
    ordered = np.sort(all_distances, axis=1)
    clear = ordered[:, 1] - ordered[:, 0] > 1e-4  # rounding may only flip near-ties
    assert clear.mean() > 0.99
    np.testing.assert_array_equal(labels[clear], expected_labels[clear])
    np.testing.assert_allclose(distances, ordered[:, 0], rtol=1e-5, atol=1e-6)
    # Distances are L1 of CDFs: EMD times the number of bins.
    pmf = np.diff(centroids, axis=1, prepend=0.0)
    some = np.arange(0, 3000, 97)
    emds = emd(np.diff(cdfs[some], axis=1, prepend=0.0), pmf[labels[some]])
    np.testing.assert_allclose(distances[some] / NUM_BINS, emds, rtol=1e-4, atol=1e-6)


def test_assign_breaks_ties_to_lowest_index() -> None:
    cdfs = histogram_cdfs(np.eye(4))
    centroids = np.vstack([cdfs[3], cdfs[1], cdfs[1]])
    labels, distances = assign(cdfs, centroids)
    # Point 2 is 1 from centroid 0 and 1 from centroids 1 and 2; point 1 ties between 1 and 2.
    np.testing.assert_array_equal(labels, [1, 1, 0, 0])
    assert distances[1] == 0.0 and distances[3] == 0.0


# --------------------------------------------------------------------------- k-medians


def test_planted_clusters_are_recovered() -> None:
    rng = np.random.default_rng(9)
    cdfs, groups = _planted(rng, (150, 90, 200), (0.2, 0.5, 0.8))
    weights = rng.integers(1, 10, size=groups.shape[0]).astype(np.float64)
    result = fit_emd_clusters(cdfs, weights, 3, seed=11)
    # Relabelling by mean equity makes the recovered ids the planted ones, no permutation needed.
    np.testing.assert_array_equal(result.labels, groups)
    assert result.labels.dtype == np.int32 and result.centroids.dtype == np.float32
    assert np.all(np.diff(cdf_means(result.centroids)) > 0.0)
    np.testing.assert_array_equal(assign(cdfs, result.centroids)[0], result.labels)
    # Converged: the centroids are the clusters' medians and the objective is their EMD.
    assert result.objective == pytest.approx(within_cluster_emd(cdfs, weights, result.labels, 3), rel=1e-6)
    assert result.objective == min(result.restart_objectives)
    assert result.objective == result.objectives[-1]
    assert result.iterations == len(result.objectives)


def test_centroids_are_cdfs() -> None:
    rng = np.random.default_rng(10)
    cdfs = histogram_cdfs(_random_histograms(rng, 2000))
    weights = rng.integers(1, 20, size=2000).astype(np.float64)
    result = fit_emd_clusters(cdfs, weights, 12, seed=3, restarts=2)
    assert result.centroids.shape == (12, NUM_BINS)
    assert np.all(np.diff(result.centroids, axis=1) >= 0.0)
    assert np.all(result.centroids[:, -1] == 1.0)
    assert np.all(result.centroids >= 0.0)
    assert np.all(np.bincount(result.labels, minlength=12) > 0)


def test_objective_history_is_non_increasing_and_restarts_help() -> None:
    rng = np.random.default_rng(12)
    cdfs = histogram_cdfs(_random_histograms(rng, 3000))
    weights = rng.integers(1, 30, size=3000).astype(np.float64)
    result = fit_emd_clusters(cdfs, weights, 8, seed=5, restarts=4, max_iterations=60, tolerance=0.0)
    history = np.array(result.objectives)
    assert history.size > 2
    assert np.all(np.diff(history) <= 1e-9)
    assert result.objective <= min(result.restart_objectives)
    assert result.restart == int(np.argmin(result.restart_objectives))
    # Restart r draws from SeedSequence(seed).spawn(restarts)[r]: one restart is restart 0 of four.
    single = fit_emd_clusters(cdfs, weights, 8, seed=5, restarts=1, max_iterations=60, tolerance=0.0)
    assert single.objective == result.restart_objectives[0]
    assert result.objective <= single.objective


def test_same_seed_same_result_other_seed_similar() -> None:
    rng = np.random.default_rng(13)
    cdfs = histogram_cdfs(_random_histograms(rng, 1500))
    weights = rng.integers(1, 10, size=1500).astype(np.float64)
    first = fit_emd_clusters(cdfs, weights, 6, seed=21, restarts=2)
    again = fit_emd_clusters(cdfs, weights, 6, seed=21, restarts=2)
    np.testing.assert_array_equal(first.labels, again.labels)
    np.testing.assert_array_equal(first.centroids, again.centroids)
    assert first.objective == again.objective
    assert first.objectives == again.objectives
    other = fit_emd_clusters(cdfs, weights, 6, seed=22, restarts=2)
    assert other.objective == pytest.approx(first.objective, rel=0.05)


def test_weights_pull_the_median() -> None:
    rng = np.random.default_rng(14)
    cdfs = histogram_cdfs(_random_histograms(rng, 41))
    weights = np.ones(41)
    heavy = 17
    unweighted = fit_emd_clusters(cdfs, weights, 1, seed=0, restarts=1)
    assert not np.array_equal(unweighted.centroids[0], cdfs[heavy])
    weights[heavy] = 41.0  # more than all the others together
    weighted = fit_emd_clusters(cdfs, weights, 1, seed=0, restarts=1)
    np.testing.assert_array_equal(weighted.centroids[0], cdfs[heavy])
    # Zero-weight points do not move the median at all.
    padded = np.vstack([cdfs, histogram_cdfs(np.eye(NUM_BINS)[:5])])
    zero_padded = fit_emd_clusters(padded, np.concatenate([weights, np.zeros(5)]), 1, seed=0, restarts=1)
    np.testing.assert_array_equal(zero_padded.centroids[0], cdfs[heavy])


def test_heavy_point_decides_its_planted_cluster() -> None:
    rng = np.random.default_rng(15)
    cdfs, groups = _planted(rng, (60, 60), (0.3, 0.7))
    weights = np.ones(groups.shape[0])
    heavy = 75  # a member of group 1
    weights[heavy] = 100.0
    result = fit_emd_clusters(cdfs, weights, 2, seed=1)
    np.testing.assert_array_equal(result.labels, groups)
    np.testing.assert_array_equal(result.centroids[1], cdfs[heavy])
    assert not np.array_equal(result.centroids[0], cdfs[heavy])


def test_as_many_clusters_as_distinct_points() -> None:
    base = histogram_cdfs(np.eye(NUM_BINS)[[5, 20, 40]])
    cdfs = np.repeat(base, [4, 7, 2], axis=0)
    result = fit_emd_clusters(cdfs, np.ones(13), 3, seed=2)
    assert result.objective == 0.0
    np.testing.assert_array_equal(result.labels, np.repeat([0, 1, 2], [4, 7, 2]))
    np.testing.assert_array_equal(result.centroids, base)


def test_empty_cluster_is_reseeded() -> None:
    rng = np.random.default_rng(16)
    cdfs, _ = _planted(rng, (80, 80, 80), (0.2, 0.5, 0.8))
    weights = np.ones(cdfs.shape[0])
    start = _kmeans_plus_plus(cdfs, weights, 3, np.random.default_rng(0))
    # A centroid that nothing is nearest to: it must be moved onto a data point.
    start[2] = histogram_cdfs(np.eye(NUM_BINS)[-1:])[0]
    start[1] = start[0]
    centroids, labels, history = _lloyd(cdfs, weights, _SortedColumns(cdfs), start, 30, 0.0)
    np.testing.assert_array_equal(assign(cdfs, centroids)[0], labels)
    assert np.all(np.bincount(labels, minlength=3) > 0)
    assert history[-1] < history[0]
    assert np.all(np.diff(history) <= 1e-9)


def test_fit_validates_arguments() -> None:
    cdfs = histogram_cdfs(np.eye(NUM_BINS)[:5])
    with pytest.raises(ValueError):
        fit_emd_clusters(cdfs, np.ones(5), 0, seed=0)
    with pytest.raises(ValueError):
        fit_emd_clusters(cdfs, np.array([1.0, 1.0, 0.0, 0.0, 0.0]), 3, seed=0)
    with pytest.raises(ValueError):
        fit_emd_clusters(cdfs, np.ones(4), 2, seed=0)
    with pytest.raises(ValueError):
        fit_emd_clusters(cdfs[0], np.ones(5), 2, seed=0)
    with pytest.raises(ValueError):
        fit_emd_clusters(cdfs, -np.ones(5), 2, seed=0)
    with pytest.raises(ValueError):
        fit_emd_clusters(cdfs, np.ones(5), 2, seed=0, restarts=0)
    with pytest.raises(ValueError):
        assign(cdfs, cdfs[:2, :10])


def test_fitted_clusters_beat_random_assignment() -> None:
    rng = np.random.default_rng(17)
    cdfs = histogram_cdfs(_random_histograms(rng, 2000))
    weights = rng.integers(1, 10, size=2000).astype(np.float64)
    result = fit_emd_clusters(cdfs, weights, 8, seed=4, restarts=2)
    shuffled = random_assignment(result.labels, np.random.default_rng(0))
    assert shuffled.dtype == np.int32
    np.testing.assert_array_equal(np.bincount(shuffled, minlength=8), np.bincount(result.labels, minlength=8))
    fitted = within_cluster_emd(cdfs, weights, result.labels, 8)
    assert fitted <= result.objective + 1e-9  # the medians are optimal for the final labels
    assert fitted < 0.8 * within_cluster_emd(cdfs, weights, shuffled, 8)


# --------------------------------------------------------------------------- percentile buckets


def test_percentile_buckets_monotone_and_ties_share() -> None:
    rng = np.random.default_rng(18)
    values = rng.integers(0, 200, size=5000).astype(np.float64) / 7.0
    weights = rng.uniform(0.0, 3.0, size=5000)
    buckets = percentile_buckets(values, weights, 10)
    assert buckets.dtype == np.int32 and buckets.min() >= 0 and buckets.max() <= 9
    order = np.argsort(values, kind="stable")
    assert np.all(np.diff(buckets[order]) >= 0)
    for value in np.unique(values):
        assert np.unique(buckets[values == value]).size == 1


def test_percentile_buckets_equal_mass_uniform() -> None:
    values = np.random.default_rng(19).permutation(1000).astype(np.float64)
    buckets = percentile_buckets(values, np.ones(1000), 10)
    np.testing.assert_array_equal(np.bincount(buckets, minlength=10), np.full(10, 100))
    np.testing.assert_array_equal(buckets, values.astype(np.int64) // 100)
    one = percentile_buckets(values, np.ones(1000), 1)
    assert np.all(one == 0)


def test_percentile_buckets_respect_weights() -> None:
    # Integer weights act exactly like repeated points.
    rng = np.random.default_rng(20)
    values = rng.normal(size=300)
    weights = rng.integers(1, 6, size=300)
    expanded = percentile_buckets(np.repeat(values, weights), np.ones(int(weights.sum())), 7)
    first = np.concatenate(([0], np.cumsum(weights)[:-1]))
    np.testing.assert_array_equal(percentile_buckets(values, weights.astype(np.float64), 7), expanded[first])
    # A heavy weakest value fills the lower half by itself.
    buckets = percentile_buckets([0.0, 1.0, 2.0, 3.0], [3.0, 1.0, 1.0, 1.0], 2)
    np.testing.assert_array_equal(buckets, [0, 1, 1, 1])
    np.testing.assert_allclose(
        weighted_midranks([0.0, 1.0, 1.0, 2.0], [1.0, 1.0, 1.0, 1.0]), [0.125, 0.5, 0.5, 0.875]
    )
    with pytest.raises(ValueError):
        percentile_buckets([1.0, 2.0], [1.0, 1.0], 0)
