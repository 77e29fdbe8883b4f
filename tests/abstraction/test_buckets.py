"""The card abstraction built from tests/abstraction_tests.yaml: buckets, lookups, the artifact."""

from __future__ import annotations

import itertools
import json
import zipfile
from pathlib import Path

import numpy as np
import pytest

from pokerai.abstraction.buckets import (
    AbstractionError,
    CardAbstraction,
    load_abstraction_config,
)
from pokerai.abstraction.clustering import emd
from pokerai.abstraction.histograms import RiverStrength, equity_histograms
from pokerai.abstraction.isomorphism import street_indexer
from pokerai.config import ConfigError
from pokerai.engine.cards import parse_cards
from tests.archives import foreign_npz

ALL_HOLES = np.array(list(itertools.combinations(range(52), 2)), dtype=np.uint8)


def test_every_preflop_hand_lands_in_a_real_bucket_ordered_by_equity(
    small_abstraction: CardAbstraction, river_strength_table: RiverStrength
) -> None:
    table = small_abstraction.tables[0]
    buckets = small_abstraction.num_buckets(0)
    assert table.shape == (169,)
    assert set(np.unique(table).tolist()) == set(range(buckets))  # every bucket used, none beyond
    assert small_abstraction.bucket(0, parse_cards("AsAh")) == buckets - 1
    assert small_abstraction.bucket(0, parse_cards("7c2d")) == 0
    # Monotone: sorted by exact equity, the buckets never go down.
    order = np.argsort(river_strength_table.preflop_equity, kind="stable")
    assert (np.diff(table[order].astype(int)) >= 0).all()
    # Equal mass: each bucket holds about 1/8 of the 1,326 hole combos.
    combos = np.bincount(table[street_indexer(0).index(ALL_HOLES)], minlength=buckets)
    assert combos.sum() == 1326
    assert combos.max() - combos.min() < 0.05 * 1326


def test_river_buckets_are_monotone_in_exact_strength(
    small_abstraction: CardAbstraction, river_strength_table: RiverStrength
) -> None:
    rng = np.random.default_rng(0)
    indices = rng.integers(street_indexer(3).size, size=500_000)
    strength = river_strength_table.numerators[indices]
    buckets = small_abstraction.bucket_of_index(3, indices)
    order = np.argsort(strength, kind="stable")
    assert (np.diff(buckets[order].astype(int)) >= 0).all()
    assert buckets[strength == strength.max()].min() == small_abstraction.num_buckets(3) - 1
    assert buckets[strength == strength.min()].max() == 0


def test_river_buckets_hold_equal_shares_of_random_deals(small_abstraction: CardAbstraction) -> None:
    rng = np.random.default_rng(1)
    deals = np.argsort(rng.random((200_000, 52)), axis=1)[:, :7]
    buckets = small_abstraction.bucket(3, deals[:, :2], deals[:, 2:])
    shares = np.bincount(buckets, minlength=8) / deals.shape[0]
    assert np.abs(shares - 1 / 8).max() < 0.01


def test_a_flush_draw_and_a_made_hand_of_equal_mean_equity_get_different_flop_buckets(
    small_abstraction: CardAbstraction, river_strength_table: RiverStrength
) -> None:
    board = parse_cards("Kh7h2c")
    draw = parse_cards("9h8h")  # flush draw (and a gutshot), no pair
    made = parse_cards("Tc2d")  # bottom pair
    indexer = street_indexer(1)
    histograms = equity_histograms(
        1, indexer.index([draw + board, made + board]), river_strength_table.numerators, num_bins=50
    ).astype(float)
    centres = (np.arange(50) + 0.5) / 50
    means = histograms @ centres / histograms.sum(axis=1)
    assert abs(means[0] - means[1]) < 0.01  # the same mean equity ...
    assert emd(histograms[0], histograms[1]) > 0.15  # ... but very different distributions
    assert small_abstraction.bucket(1, draw, board) != small_abstraction.bucket(1, made, board)


def test_flop_and_turn_buckets_cover_every_cluster(small_abstraction: CardAbstraction) -> None:
    for street in (1, 2):
        table = small_abstraction.tables[street]
        assert table.shape == (street_indexer(street).size,)
        assert set(np.unique(table).tolist()) == set(range(small_abstraction.num_buckets(street)))
        centroids = small_abstraction.centroids[("flop", "turn")[street - 1]]
        means = 1 - centroids.mean(axis=1)  # ordered by mean equity, cluster 0 the lowest
        # (with few sampled run-outs two medians can share a mean)
        assert (np.diff(means) >= 0).all() and means[-1] > means[0]


def test_lookups_are_deterministic_and_isomorphism_invariant(small_abstraction: CardAbstraction) -> None:
    rng = np.random.default_rng(2)
    for street, board_size in ((0, 0), (1, 3), (2, 4), (3, 5)):
        deals = np.argsort(rng.random((5_000, 52)), axis=1)[:, : 2 + board_size]
        first = small_abstraction.bucket(street, deals[:, :2], deals[:, 2:])
        again = small_abstraction.bucket(street, deals[:, :2], deals[:, 2:])
        assert np.array_equal(first, again)
        # Swap clubs and spades, reverse the card order: the same bucket.
        relabelled = np.where(deals % 4 == 0, deals + 3, np.where(deals % 4 == 3, deals - 3, deals))[:, ::-1]
        hole, board = relabelled[:, board_size:], relabelled[:, :board_size]
        assert np.array_equal(small_abstraction.bucket(street, hole, board), first)
        # One hand at a time gives the same as the vectorised call.
        for row in range(5):
            single = small_abstraction.bucket(street, deals[row, :2].tolist(), deals[row, 2:].tolist())
            assert isinstance(single, int) and single == first[row]


def test_a_saved_abstraction_reloads_to_the_same_buckets(
    small_abstraction: CardAbstraction, small_abstraction_path: Path
) -> None:
    loaded = CardAbstraction.load(small_abstraction_path)
    for street in range(4):
        assert np.array_equal(loaded.tables[street], small_abstraction.tables[street])
    assert (
        loaded.config
        == small_abstraction.config
        == load_abstraction_config(Path(__file__).resolve().parents[2] / "tests" / "abstraction_tests.yaml")
    )
    hole, board = parse_cards("AhKh"), parse_cards("Ks7d2c")
    assert loaded.bucket(1, hole, board) == small_abstraction.bucket(1, hole, board)
    info = loaded.info()
    assert [info["streets"][name]["entries"] for name in ("preflop", "flop", "turn", "river")] == [
        169,
        1_286_792,
        13_960_050,
        123_156_254,
    ]


def test_bad_lookups_are_refused(small_abstraction: CardAbstraction) -> None:
    with pytest.raises(ValueError, match="the flop has 3 board cards"):
        small_abstraction.bucket(1, parse_cards("AhKh"), parse_cards("Ks7d2c5h"))
    with pytest.raises(ValueError, match="repeats a card"):
        small_abstraction.bucket(1, parse_cards("AhKh"), parse_cards("Ah7d2c", allow_duplicates=True))
    with pytest.raises(ValueError, match="street must be"):
        small_abstraction.bucket(4, parse_cards("AhKh"))


def _rewrite(source: Path, target: Path, change: dict[str, object]) -> None:
    with np.load(source) as archive:
        arrays = {name: archive[name] for name in archive.files}
    arrays.update(change)
    np.savez(target, **arrays)


def test_corrupt_truncated_and_mismatching_files_are_refused(
    small_abstraction_path: Path, tmp_path: Path
) -> None:
    data = small_abstraction_path.read_bytes()
    truncated = tmp_path / "truncated.npz"
    truncated.write_bytes(data[: len(data) // 2])
    with pytest.raises(AbstractionError, match="corrupt or truncated"):
        CardAbstraction.load(truncated)

    with np.load(small_abstraction_path) as archive:
        metadata = json.loads(str(archive["metadata"]))
        river = archive["table_river"].copy()
    river[12345] = (river[12345] + 1) % 8
    tampered = tmp_path / "tampered.npz"
    _rewrite(small_abstraction_path, tampered, {"table_river": river})
    with pytest.raises(AbstractionError, match="river table does not match its checksum"):
        CardAbstraction.load(tampered)

    future = tmp_path / "future.npz"
    _rewrite(
        small_abstraction_path, future, {"metadata": np.array(json.dumps({**metadata, "format_version": 99}))}
    )
    with pytest.raises(AbstractionError, match="format version 99 is not supported"):
        CardAbstraction.load(future)

    with pytest.raises(AbstractionError, match="not a card abstraction file"):
        CardAbstraction.load(foreign_npz(tmp_path / "other.npz", weights=np.zeros(3)))

    with pytest.raises(AbstractionError, match="no such abstraction file"):
        CardAbstraction.load(tmp_path / "missing.npz")

    # Flip bytes inside the stored river table: zip's CRC (or the checksum) catches it.
    flipped = bytearray(data)
    with zipfile.ZipFile(small_abstraction_path) as archive:
        member = archive.getinfo("table_river.npy")
    middle = member.header_offset + len(member.filename) + 30 + 128 + 10_000_000
    flipped[middle : middle + 4] = bytes(4 - i for i in range(4))
    corrupt = tmp_path / "corrupt.npz"
    corrupt.write_bytes(bytes(flipped))
    with pytest.raises(AbstractionError):
        CardAbstraction.load(corrupt)


def test_bad_config_keys_are_errors_naming_the_key(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("flop:\n  bukets: 12\n")
    with pytest.raises(ConfigError, match="unknown key 'bukets' in flop"):
        load_abstraction_config(path)
    path.write_text("river:\n  buckets: 0\n")
    with pytest.raises(ConfigError, match=r"river\.buckets: must be at least 1"):
        load_abstraction_config(path)
    path.write_text("turn:\n  buckets: 12\n  fit_samples: 5\n")
    with pytest.raises(ConfigError, match="fit_samples 5 is below the number of buckets 12"):
        load_abstraction_config(path)


def test_169_preflop_buckets_are_lossless(river_strength_table: RiverStrength) -> None:
    from pokerai.abstraction.buckets import preflop_buckets

    table = preflop_buckets(river_strength_table.preflop_equity, 169)
    assert sorted(table.tolist()) == list(range(169))  # each bucket holds exactly one class
    order = np.argsort(river_strength_table.preflop_equity, kind="stable")
    np.testing.assert_array_equal(table[order], np.arange(169))  # numbered by equity, 0 weakest
    aces = street_indexer(0).index(np.array([parse_cards("AsAh"), parse_cards("AdAc")], dtype=np.uint8))
    assert table[aces[0]] == table[aces[1]] == 168
    suited = street_indexer(0).index(np.array([parse_cards("AsKs"), parse_cards("AsKh")], dtype=np.uint8))
    assert table[suited[0]] != table[suited[1]]
    with pytest.raises(ConfigError, match="exceeds the 169 preflop classes"):
        load_abstraction_config({"preflop": {"buckets": 170}})


TABLE_SHA256 = {
    "preflop": "d38f7e76df6d3a6581eeb39c84575a01d638e17d4fb6440edaf999876be26c77",
    "flop": "fc4f053924e3434b313b3e22288ae23f1c42d37d0b7bbc921743fecee81beabd",
    "turn": "a5e112c469726d54cbf667f86cf47ea126312fd2be217145124ac41a1ee93c88",
    "river": "7b9e5b42872867b9a4970a3f0fa1f8779b5210af688afaa32e4af5b439614c3f",
}
"""The tables of tests/abstraction_tests.yaml as built on the machine that pinned them (one and two
numba threads gave the same); a build anywhere, with any thread count, must give the same bytes."""


def test_two_machines_build_the_same_tables(small_abstraction: CardAbstraction) -> None:
    built = {name: record["sha256"] for name, record in small_abstraction.metadata["streets"].items()}
    assert built == TABLE_SHA256
