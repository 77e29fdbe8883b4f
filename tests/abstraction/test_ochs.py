"""OCHS river buckets: features against brute force, the k-means fit, the table, the config."""

from __future__ import annotations

import hashlib
import itertools
import json
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

from pokerai.abstraction.buckets import (
    FORMAT_NAME,
    FORMAT_VERSION,
    AbstractionConfig,
    AbstractionError,
    CardAbstraction,
    ClusteredStreet,
    OchsStreet,
    PercentileStreet,
    load_abstraction_config,
)
from pokerai.abstraction.isomorphism import STREETS, board_indexer, street_indexer
from pokerai.abstraction.ochs import (
    board_ochs_features,
    cluster_mass,
    fit_ochs_centroids,
    nearest_centroid,
    ochs_features,
    ochs_river_table,
    opponent_clusters,
)
from pokerai.config import ConfigError, config_to_dict, dump_config
from pokerai.engine.cards import parse_cards
from pokerai.engine.evaluator import rank_hands

ROOT = Path(__file__).resolve().parents[2]
# Six clusters of scrambled preflop classes: the features must not rely on clusters being ordered.
CLUSTERS = np.random.default_rng(11).permutation(169) % 6


def brute_force_ochs(hand: list[int], clusters: npt.NDArray[np.integer]) -> npt.NDArray[np.float64]:
    """Equity against each cluster, by evaluating every opponent hand that avoids our seven cards."""
    hole, board = hand[:2], hand[2:]
    unseen = [card for card in range(52) if card not in hand]
    opponents = np.array(list(itertools.combinations(unseen, 2)), dtype=np.uint8)
    ours = int(rank_hands(np.array([hole + board]))[0])
    theirs = rank_hands(np.concatenate([opponents, np.tile(board, (opponents.shape[0], 1))], axis=1))
    points = 2 * (theirs < ours) + (theirs == ours)
    cluster = clusters[street_indexer(0).index(opponents)]
    return np.array([points[cluster == c].mean() / 2 for c in range(int(clusters.max()) + 1)])


def test_features_match_brute_force() -> None:
    rng = np.random.default_rng(3)
    hands = [rng.permutation(52)[:7].tolist() for _ in range(12)]
    hands += [parse_cards("AhKh5c5d5h5s2c"), parse_cards("7c2dKsKdKh8c8d"), parse_cards("9h8hKh7h2c3d4s")]
    features = ochs_features(street_indexer(3).index(np.array(hands)), CLUSTERS)
    assert features.shape == (len(hands), 6) and features.dtype == np.float32
    for hand, row in zip(hands, features, strict=True):
        np.testing.assert_allclose(row, brute_force_ochs(hand, CLUSTERS), atol=1e-6, err_msg=str(hand))


def test_the_nuts_wins_against_every_cluster_and_a_played_board_ties() -> None:
    indexer = street_indexer(3)
    nuts = indexer.index(parse_cards("AhKhQhJhTh2c3d"))
    # 3c3d on 2c2d2h2s3h: everyone plays quad deuces, and every opponent holds a higher kicker.
    dead = indexer.index(parse_cards("3c3d2c2d2h2s3h"))
    royal_board = indexer.index(parse_cards("7c2dAsKsQsJsTs"))
    features = ochs_features([nuts, dead, royal_board], CLUSTERS)
    assert (features[0] == 1).all()
    assert (features[1] == 0).all()
    assert (features[2] == 0.5).all()


def test_a_board_at_a_time_gives_the_single_hand_features_and_indices() -> None:
    boards = board_indexer(5)
    river = street_indexer(3)
    for first in (0, 70_000, boards.size - 3):
        indices, features = board_ochs_features(first, 3, CLUSTERS)
        assert indices.shape == (3 * 1081,) and features.shape == (3 * 1081, 6)
        np.testing.assert_array_equal(features, ochs_features(indices, CLUSTERS))
        # Rows follow the hole pairs of each board in (low card, high card) order.
        board = boards.unindex(first).tolist()
        holes = [pair for pair in itertools.combinations(range(52), 2) if not set(pair) & set(board)]
        np.testing.assert_array_equal(indices[:1081], river.index([list(pair) + board for pair in holes]))


def test_opponent_clusters_are_equal_mass_groups_by_preflop_equity() -> None:
    equity = np.random.default_rng(5).random(169)
    clusters = opponent_clusters(equity, 8)
    order = np.argsort(equity)
    assert (np.diff(clusters[order]) >= 0).all()  # cluster 0 holds the weakest classes
    mass = cluster_mass(clusters)
    assert mass.shape == (8,) and mass.sum() == 1326
    assert mass.max() - mass.min() <= 2 * 12  # within two of the largest classes
    with pytest.raises(ValueError, match=r"leave cluster \d+ empty"):
        opponent_clusters(equity, 169)
    with pytest.raises(ValueError, match="169 preflop classes"):
        opponent_clusters(equity[:100], 8)


def _fit_sample(seed: int) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float32], npt.NDArray[np.int64]]:
    rng = np.random.default_rng(seed)
    deals = np.argsort(rng.random((3000, 52)), axis=1)[:, :7].astype(np.uint8)
    sample, weights = np.unique(street_indexer(3).index(deals), return_counts=True)
    return sample, ochs_features(sample, CLUSTERS), weights


def test_fitted_buckets_are_numbered_by_strength_and_deterministic() -> None:
    _, features, weights = _fit_sample(0)
    mass = cluster_mass(CLUSTERS)
    fit = fit_ochs_centroids(features, weights, 5, mass, seed=4, restarts=2, max_iterations=50)
    assert fit.centroids.shape == (5, 6) and fit.centroids.dtype == np.float32
    np.testing.assert_allclose(fit.strength, fit.centroids.astype(np.float64) @ (mass / mass.sum()))
    assert (np.diff(fit.strength) > 0).all()
    # The fitted hands' mean strength per bucket rises with the bucket, as the centroids' does.
    labels = nearest_centroid(features, fit.centroids)
    assert set(labels.tolist()) == set(range(5))
    means = [
        np.average(features[labels == b] @ mass / mass.sum(), weights=weights[labels == b]) for b in range(5)
    ]
    assert (np.diff(means) > 0).all()
    again = fit_ochs_centroids(features, weights, 5, mass, seed=4, restarts=2, max_iterations=50)
    np.testing.assert_array_equal(again.centroids, fit.centroids)
    assert again.inertia == fit.inertia


def test_nearest_centroid_is_the_euclidean_argmin() -> None:
    rng = np.random.default_rng(9)
    features = rng.random((500, 6), dtype=np.float32)
    centroids = rng.random((7, 6), dtype=np.float32)
    distances = ((features[:, None, :].astype(np.float64) - centroids[None, :, :]) ** 2).sum(axis=2)
    np.testing.assert_array_equal(nearest_centroid(features, centroids), distances.argmin(axis=1))
    with pytest.raises(ValueError, match="differ in width"):
        nearest_centroid(features[:, :5], centroids)


@pytest.mark.slow
def test_every_river_index_gets_the_bucket_of_its_own_features() -> None:
    """The whole table (under a minute on two cores) agrees with hand-by-hand features."""
    sample, features, weights = _fit_sample(1)
    fit = fit_ochs_centroids(
        features, weights, 6, cluster_mass(CLUSTERS), seed=0, restarts=1, max_iterations=30
    )
    table = ochs_river_table(CLUSTERS, fit.centroids)
    assert table.shape == (street_indexer(3).size,) and int(table.max()) < 6
    indices = np.random.default_rng(2).integers(table.size, size=20_000)
    expected = nearest_centroid(ochs_features(indices, CLUSTERS), fit.centroids)
    np.testing.assert_array_equal(table[indices], expected)
    np.testing.assert_array_equal(table[sample], nearest_centroid(features, fit.centroids))


def test_the_river_kind_selects_ochs_and_a_plain_river_stays_percentile(tmp_path: Path) -> None:
    ochs = load_abstraction_config(ROOT / "configs" / "abstraction_tiny_ochs.yaml")
    tiny = load_abstraction_config(ROOT / "configs" / "abstraction_tiny.yaml")
    assert ochs.river == OchsStreet(buckets=8, opponent_clusters=8, fit_samples=200_000)
    assert (ochs.preflop, ochs.flop, ochs.turn) == (tiny.preflop, tiny.flop, tiny.turn)
    # A percentile river writes what it always did, so cached abstractions keep their file names.
    assert tiny.river == PercentileStreet(8)
    assert config_to_dict(tiny)["river"] == {"buckets": 8}
    path = tmp_path / "round_trip.yaml"
    path.write_text(dump_config(ochs))
    assert load_abstraction_config(path) == ochs


@pytest.mark.parametrize(
    ("river", "message"),
    [
        ("{kind: ochs, buckets: 0}", r"river\.buckets: must be at least 1, got 0"),
        ("{kind: ochs, opponent_clusters: 65}", r"river\.opponent_clusters: must be at most 64"),
        ("{kind: ochs, bukets: 8}", "unknown key 'bukets' in river"),
        ("{kind: ochs, buckets: 8, fit_samples: 5}", "fit_samples 5 is below the number of buckets 8"),
        ("{kind: kmeans}", r"river\.kind: expected one of 'ochs' \(or no kind\), got 'kmeans'"),
        (
            "{buckets: 8, opponent_clusters: 8}",
            r"unknown key 'opponent_clusters' in river \(known keys: buckets\)",
        ),
        ("8", "river: expected a mapping, got 8"),
    ],
)
def test_bad_river_configs_are_errors_naming_the_key(tmp_path: Path, river: str, message: str) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(f"river: {river}\n")
    with pytest.raises(ConfigError, match=message):
        load_abstraction_config(path)


def test_an_ochs_artifact_keeps_its_centroids_and_is_refused_without_them(tmp_path: Path) -> None:
    config = AbstractionConfig(
        preflop=PercentileStreet(2),
        flop=ClusteredStreet(buckets=2),
        turn=ClusteredStreet(buckets=2),
        river=OchsStreet(buckets=3, opponent_clusters=2),
    )
    tables = tuple(np.zeros(street_indexer(street).size, dtype=np.uint8) for street in range(4))
    metadata = {
        "format": FORMAT_NAME,
        "format_version": FORMAT_VERSION,
        "config": config_to_dict(config),
        "streets": {
            name: {"sha256": hashlib.sha256(table.tobytes()).hexdigest()}
            for name, table in zip(STREETS, tables, strict=True)
        },
    }
    centroids = (np.arange(6).reshape(3, 2) / 6).astype(np.float32)
    path = CardAbstraction(tables, metadata, {"river": centroids}).save(tmp_path / "ochs.npz")
    loaded = CardAbstraction.load(path)
    assert loaded.config == config and loaded.num_buckets(3) == 3
    np.testing.assert_array_equal(loaded.centroids["river"], centroids)
    broken = CardAbstraction(tables, json.loads(json.dumps(metadata)), {}).save(tmp_path / "broken.npz")
    with pytest.raises(AbstractionError, match=r"OCHS river centroids should have shape \(3, 2\), got none"):
        CardAbstraction.load(broken, verify=False)
