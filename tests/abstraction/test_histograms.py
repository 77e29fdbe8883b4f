"""Exact river strength, preflop equity and equity histograms, against brute force."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from pokerai.abstraction.histograms import STRENGTH_SCALE, RiverStrength, equity_histograms
from pokerai.abstraction.isomorphism import street_indexer
from pokerai.engine.cards import parse_cards
from pokerai.engine.evaluator import rank_hands


def brute_force_strength(hole: list[int], board: list[int]) -> int:
    """2 × wins + ties against all 990 opponent hands, by evaluating every one of them."""
    unseen = [card for card in range(52) if card not in hole and card not in board]
    opponents = np.array(list(itertools.combinations(unseen, 2)), dtype=np.int64)
    ours = int(rank_hands(np.array([hole + board]))[0])
    theirs = rank_hands(np.concatenate([opponents, np.tile(board, (opponents.shape[0], 1))], axis=1))
    return int(2 * (theirs < ours).sum() + (theirs == ours).sum())


def test_river_strength_matches_brute_force(river_strength_table: RiverStrength) -> None:
    rng = np.random.default_rng(3)
    indexer = street_indexer(3)
    hands = [rng.permutation(52)[:7].tolist() for _ in range(25)]
    hands += [parse_cards("2c3d2h2s2d3h4c"), parse_cards("AhKhQhJhTh2c3c"), parse_cards("7c2dKsKdKh8c8d")]
    for hand in hands:
        expected = brute_force_strength(hand[:2], hand[2:])
        assert int(river_strength_table.numerators[indexer.index(hand)]) == expected, hand


def test_every_river_class_was_filled(river_strength_table: RiverStrength) -> None:
    numerators = river_strength_table.numerators
    assert numerators.max() == STRENGTH_SCALE
    # Strength 0 means losing to all 990 hands; the few such hands are all on paired boards
    # where the board plays (e.g. 3c3d on 2c2d2h2s3h): any other zero would be an unfilled entry.
    zeros = street_indexer(3).unindex(np.flatnonzero(numerators == 0))
    assert 0 < zeros.shape[0] < 100
    for hand in zeros:
        assert brute_force_strength(hand[:2].tolist(), hand[2:].tolist()) == 0


def test_strength_mass_counts_every_deal_once(river_strength_table: RiverStrength) -> None:
    assert river_strength_table.mass.sum() == 1326 * 2_118_760  # C(52,2) holes × C(50,5) boards
    # By symmetry the average strength over all deals is exactly one half.
    values = np.arange(STRENGTH_SCALE + 1) / STRENGTH_SCALE
    mean = (values * river_strength_table.mass).sum() / river_strength_table.mass.sum()
    assert mean == pytest.approx(0.5, abs=1e-12)


@pytest.mark.parametrize(
    ("hand", "equity"),
    # All-in equity against a random hand as published to two decimals (e.g. PokerStove tables).
    [("AsAh", 0.8520), ("KsKh", 0.8240), ("AsKs", 0.6704), ("7c2d", 0.3458), ("3c2d", 0.3230)],
)
def test_preflop_equity_matches_published_values(
    river_strength_table: RiverStrength, hand: str, equity: float
) -> None:
    index = street_indexer(0).index(parse_cards(hand))
    assert river_strength_table.preflop_equity[index] == pytest.approx(equity, abs=5.01e-5)


def test_preflop_equities_average_to_one_half(river_strength_table: RiverStrength) -> None:
    holes = np.array(list(itertools.combinations(range(52), 2)), dtype=np.uint8)
    combos = np.bincount(street_indexer(0).index(holes), minlength=169)
    equity = river_strength_table.preflop_equity
    assert (combos * equity).sum() / 1326 == pytest.approx(0.5, abs=1e-12)
    assert equity.argmax() == street_indexer(0).index(parse_cards("AcAd"))
    assert equity.argmin() == street_indexer(0).index(parse_cards("3c2d"))


def bin_of(numerator: int, bins: int) -> int:
    return min(bins - 1, numerator * bins // STRENGTH_SCALE)


def test_exact_turn_histogram_matches_brute_force(river_strength_table: RiverStrength) -> None:
    hole, board = parse_cards("AhKh"), parse_cards("Qh7d2cJs")
    index = street_indexer(2).index(hole + board)
    histogram = equity_histograms(2, [index], river_strength_table.numerators, num_bins=20)[0]
    expected = np.zeros(20, dtype=np.int64)
    for river in range(52):
        if river not in hole + board:
            expected[bin_of(brute_force_strength(hole, [*board, river]), 20)] += 1
    assert np.array_equal(histogram, expected)
    assert histogram.sum() == 46


def test_exact_flop_histogram_counts_every_run_out(river_strength_table: RiverStrength) -> None:
    indexer = street_indexer(1)
    hole, board = parse_cards("9h8h"), parse_cards("Kh7h2c")
    histogram = equity_histograms(
        1, [indexer.index(hole + board)], river_strength_table.numerators, num_bins=10
    )[0]
    assert histogram.sum() == 1081
    # A flush draw: its run-outs split between the made flush (top bins) and misses (low bins).
    assert histogram[:3].sum() > 400 and histogram[-1] > 300


def test_sampled_histograms_do_not_depend_on_batching(river_strength_table: RiverStrength) -> None:
    numerators = river_strength_table.numerators
    indices = np.array([5, 99_999, 1_000_000, 12_345_678, 77])
    together = equity_histograms(2, indices, numerators, num_bins=16, runouts=30, seed=4)
    alone = np.concatenate(
        [
            equity_histograms(2, [index], numerators, num_bins=16, runouts=30, seed=4)
            for index in indices[::-1]
        ]
    )[::-1]
    assert np.array_equal(together, alone)
    assert (together.sum(axis=1) == 30).all()
    other_seed = equity_histograms(2, indices, numerators, num_bins=16, runouts=30, seed=5)
    assert not np.array_equal(together, other_seed)


def test_sampled_flop_histogram_approaches_the_exact_one(river_strength_table: RiverStrength) -> None:
    numerators = river_strength_table.numerators
    index = [street_indexer(1).index(parse_cards("AhKdQs7d2c"))]
    exact = equity_histograms(1, index, numerators, num_bins=10)[0] / 1081
    sampled = equity_histograms(1, index, numerators, num_bins=10, runouts=20_000, seed=1)[0] / 20_000
    assert np.abs(exact - sampled).max() < 0.02


def test_histogram_arguments_are_checked(river_strength_table: RiverStrength) -> None:
    numerators = river_strength_table.numerators
    with pytest.raises(ValueError, match="flop"):
        equity_histograms(3, [0], numerators, num_bins=10)
    with pytest.raises(ValueError, match="indices"):
        equity_histograms(1, [street_indexer(1).size], numerators, num_bins=10)
    with pytest.raises(ValueError, match="runouts"):
        equity_histograms(1, [0], numerators, num_bins=10, runouts=-1)
