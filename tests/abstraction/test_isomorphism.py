"""The suit-isomorphic hand indexer: sizes, round trips, and that it is a perfect index."""

from __future__ import annotations

import itertools

import numpy as np
import numpy.typing as npt
import pytest

from pokerai.abstraction.isomorphism import HandIndexer, board_indexer, index_hands_serial, street_indexer

SUIT_PERMUTATIONS = np.array(list(itertools.permutations(range(4))), dtype=np.uint8)


def brute_force_canonical(hands: npt.NDArray[np.uint8], hole_size: int = 2) -> npt.NDArray[np.int64]:
    """A key per hand that is equal exactly for isomorphic hands: the least relabelling.

    Every one of the 24 suit permutations is applied; each relabelled hand is written as its
    sorted hole cards then its sorted board (rounds are sets) and the lexicographically
    smallest row wins. Returned as one int64 per hand (base-52 digits).
    """
    best: npt.NDArray[np.int64] | None = None
    for permutation in SUIT_PERMUTATIONS:
        relabelled = (hands & ~np.uint8(3)) | permutation[hands & 3]
        parts = [np.sort(relabelled[:, :hole_size], axis=1)]
        if hands.shape[1] > hole_size:
            parts.append(np.sort(relabelled[:, hole_size:], axis=1))
        rows = np.concatenate(parts, axis=1).astype(np.int64)
        key = np.zeros(hands.shape[0], dtype=np.int64)
        for column in rows.T:
            key = key * 52 + column
        best = key if best is None else np.minimum(best, key)
    assert best is not None
    return best


def random_hands(rng: np.random.Generator, count: int, num_cards: int) -> npt.NDArray[np.uint8]:
    return np.argsort(rng.random((count, 52)), axis=1)[:, :num_cards].astype(np.uint8)


@pytest.mark.parametrize(("street", "size"), [(0, 169), (1, 1_286_792), (2, 13_960_050), (3, 123_156_254)])
def test_street_sizes_match_the_published_counts(street: int, size: int) -> None:
    assert street_indexer(street).size == size


def test_board_only_sizes() -> None:
    # Flops, turns and rivers up to suit isomorphism (board alone).
    assert [board_indexer(n).size for n in (3, 4, 5)] == [1_755, 16_432, 134_459]


def test_preflop_classes_are_exactly_the_suit_orbits() -> None:
    holes = np.array(list(itertools.combinations(range(52), 2)), dtype=np.uint8)
    indices = street_indexer(0).index(holes)
    keys = brute_force_canonical(holes)
    assert np.unique(indices).size == 169
    # The partition by index equals the partition by brute-force orbit.
    assert np.unique(np.stack([indices, keys], axis=1), axis=0).shape[0] == 169
    pairs = np.bincount(indices)
    assert sorted(set(pairs.tolist())) == [4, 6, 12]
    assert pairs.sum() == 1326


@pytest.mark.slow  # about 4 s
def test_every_flop_index_round_trips_and_canonical_hands_are_pairwise_non_isomorphic() -> None:
    indexer = street_indexer(1)
    everything = np.arange(indexer.size, dtype=np.int64)
    hands = indexer.unindex(everything)
    assert np.array_equal(indexer.index(hands), everything)
    # No two canonical hands are isomorphic, so distinct indices never share a class.
    assert np.unique(brute_force_canonical(hands)).size == indexer.size


@pytest.mark.parametrize("street", [1, 2, 3])
def test_isomorphic_hands_share_an_index_and_others_do_not(street: int) -> None:
    rng = np.random.default_rng(street)
    indexer = street_indexer(street)
    hands = random_hands(rng, 20_000, indexer.num_cards)
    indices = indexer.index(hands)
    # Relabel suits and shuffle the order inside each round: the index must not move.
    permutation = SUIT_PERMUTATIONS[rng.integers(24, size=hands.shape[0])]
    relabelled = (hands & ~np.uint8(3)) | np.take_along_axis(permutation, (hands & 3).astype(np.intp), axis=1)
    hole = rng.permuted(relabelled[:, :2], axis=1)
    board = rng.permuted(relabelled[:, 2:], axis=1)
    assert np.array_equal(indexer.index(np.concatenate([hole, board], axis=1)), indices)
    # Index equality is exactly brute-force isomorphism on this sample.
    keys = brute_force_canonical(hands)
    classes = np.unique(np.stack([indices, keys], axis=1), axis=0)
    assert classes.shape[0] == np.unique(indices).size == np.unique(keys).size


@pytest.mark.parametrize("street", [2, 3])
def test_random_indices_round_trip(street: int) -> None:
    indexer = street_indexer(street)
    rng = np.random.default_rng(7)
    indices = np.concatenate([[0, indexer.size - 1], rng.integers(indexer.size, size=200_000)])
    hands = indexer.unindex(indices)
    assert np.array_equal(indexer.index(hands), indices)
    # Canonical hands are fixed points, and isomorphic to what was indexed.
    assert np.array_equal(indexer.canonical(hands), hands)
    originals = random_hands(rng, 5_000, indexer.num_cards)
    assert np.array_equal(
        brute_force_canonical(indexer.canonical(originals)), brute_force_canonical(originals)
    )


def test_scalar_forms() -> None:
    indexer = street_indexer(1)
    hand = [51, 47, 0, 5, 10]
    index = indexer.index(hand)
    assert np.ndim(index) == 0
    assert indexer.unindex(int(index)).shape == (5,)
    assert int(indexer.index(indexer.unindex(int(index)))) == int(index)


def test_bad_input_is_refused_with_a_clear_error() -> None:
    indexer = street_indexer(1)
    with pytest.raises(ValueError, match="expected hands of 5 cards"):
        indexer.index([1, 2, 3])
    with pytest.raises(ValueError, match="repeats a card"):
        indexer.index([1, 1, 2, 3, 4])
    with pytest.raises(ValueError, match="from 0 to 51"):
        indexer.index([1, 2, 3, 4, 52])
    with pytest.raises(ValueError, match="from 0 to"):
        indexer.unindex([indexer.size])
    with pytest.raises(ValueError, match="street must be"):
        street_indexer(4)
    with pytest.raises(ValueError, match="at most 7 cards"):
        HandIndexer((2, 6))


def test_the_one_thread_index_matches_the_parallel_one() -> None:
    indexer = street_indexer(2)
    rng = np.random.default_rng(3)
    cards = np.array([rng.permutation(52)[:6] for _ in range(500)], dtype=np.uint8)
    np.testing.assert_array_equal(index_hands_serial(cards, indexer.index_tables), indexer.index(cards))
