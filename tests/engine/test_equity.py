"""Equity: exact enumeration against brute force with phevaluator, Monte Carlo, ranges and card removal."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from phevaluator import evaluate_cards

from pokerai.engine.cards import parse_cards
from pokerai.engine.equity import (
    combinations,
    equity,
    hand_vs_range,
    parse_range,
    range_equity,
    runout_equity,
)

# AhKh vs QsQd preflop over all 1,712,304 boards, counted once by brute force with phevaluator
# (3.4 million evaluate_cards calls): AhKh wins 787,966, ties 6,732 and loses 917,606.
AK_QQ_WINS, AK_QQ_TIES, AK_QQ_LOSSES = 787_966, 6_732, 917_606
AK_QQ_EQUITY = (AK_QQ_WINS + AK_QQ_TIES / 2) / 1_712_304


def brute_force(hand_a: str, hand_b: str, board: str) -> tuple[int, int, int]:
    """(wins of a, ties, wins of b) over every runout, by phevaluator (lower is better there)."""
    first, second, known = parse_cards(hand_a), parse_cards(hand_b), parse_cards(board)
    deck = [card for card in range(52) if card not in {*first, *second, *known}]
    counts = [0, 0, 0]
    for runout in itertools.combinations(deck, 5 - len(known)):
        a = evaluate_cards(*first, *known, *runout)
        b = evaluate_cards(*second, *known, *runout)
        counts[0 if a < b else 1 if a == b else 2] += 1
    return counts[0], counts[1], counts[2]


def test_preflop_ak_suited_against_queens_is_exact() -> None:
    result = equity("AhKh", "QsQd")
    assert result.exact and result.boards == 1_712_304 == math.comb(48, 5)
    assert round(result.win[0] * result.boards) == AK_QQ_WINS
    assert round(result.tie * result.boards) == AK_QQ_TIES
    assert round(result.win[1] * result.boards) == AK_QQ_LOSSES
    assert result.equity[0] == pytest.approx(AK_QQ_EQUITY, abs=1e-12)
    assert round(result.equity[0], 4) == 0.4621
    assert result.equity[0] + result.equity[1] == pytest.approx(1.0)
    assert result.hands == ("AhKh", "QsQd") and result.board == ""


def test_monte_carlo_within_three_standard_errors_and_reproducible() -> None:
    result = equity("AhKh", "QsQd", samples=200_000, seed=7)
    assert not result.exact and result.boards == 200_000
    # The standard error of a mean of outcomes in {0, 1/2, 1} near 46% is about 0.0011.
    assert 0.0009 < result.standard_error < 0.0013
    assert abs(result.equity[0] - AK_QQ_EQUITY) < 3 * result.standard_error
    again = equity("AhKh", "QsQd", samples=200_000, seed=7)
    assert again.equity == result.equity
    assert equity("AhKh", "QsQd", samples=200_000, seed=8).equity != result.equity


@pytest.mark.parametrize(
    ("hand_a", "hand_b", "board"),
    [
        ("AhKh", "QsQd", "Ks7d2c"),  # flop: 990 runouts
        ("7h6h", "AcAd", "5h4hKs"),  # flush and straight draws
        ("AsKd", "AcKc", "QhJh2c"),  # many split pots
        ("9c9d", "8s8h", "9h8c2d5s"),  # turn
        ("Ts9s", "AhAd", "8s7s2sKdQc"),  # river: a single board
    ],
)
def test_exact_equity_matches_brute_force(hand_a: str, hand_b: str, board: str) -> None:
    wins, ties, losses = brute_force(hand_a, hand_b, board)
    total = wins + ties + losses
    result = equity(hand_a, hand_b, board)
    assert result.boards == total
    assert result.win == (wins / total, losses / total)
    assert result.tie == ties / total
    assert result.equity[0] == pytest.approx((wins + ties / 2) / total, abs=1e-15)


def test_cards_as_ids_or_lists_give_the_same_result() -> None:
    by_text = equity("AhKh", "QsQd", "Ks7d2c")
    by_ids = equity((50, 46), (43, 41), (47, 21, 0))
    by_lists = equity(["Ah", "Kh"], ["Qs", "Qd"], ["Ks", "7d", "2c"])
    assert by_text.equity == by_ids.equity == by_lists.equity


def test_range_equity_with_card_removal_is_the_weighted_mean_of_pairs() -> None:
    board = "Ks7d2c"
    villain = ["QsQd", "QcQh", "2c2d", "AsJs", "Ah7h", "8h9h"]
    weights = [1.0, 2.0, 5.0, 0.5, 1.0, 3.0]
    result = hand_vs_range("AhKh", villain, board, weights=weights)
    # 2c2d holds a board card and Ah7h shares the Ah: both are dropped.
    kept = [(combo, w) for combo, w in zip(villain, weights, strict=True) if combo not in ("2c2d", "Ah7h")]
    expected = sum(w * equity("AhKh", combo, board).equity[0] for combo, w in kept)
    expected /= sum(w for _, w in kept)
    assert result.exact and result.pairs == 4 and result.boards == 4 * 990
    assert result.equity[0] == pytest.approx(expected, abs=1e-12)


def test_range_against_range_drops_pairs_that_share_a_card() -> None:
    range_a = parse_range(["AhKh", "QsQd"])
    range_b = parse_range(["QsQd", "AhAd", "JcTc"])
    result = range_equity(range_a, range_b, "2c3d4h5s")
    # Pairs that can meet: AhKh-QsQd, AhKh-JcTc, QsQd-AhAd, QsQd-JcTc (AhKh-AhAd and QsQd-QsQd share cards).
    pairs = [("AhKh", "QsQd"), ("AhKh", "JcTc"), ("QsQd", "AhAd"), ("QsQd", "JcTc")]
    expected = np.mean([equity(a, b, "2c3d4h5s").equity[0] for a, b in pairs])
    assert result.pairs == 4
    assert result.equity[0] == pytest.approx(expected, abs=1e-12)
    # Symmetry: swapping the ranges swaps the equities.
    assert range_equity(range_b, range_a, "2c3d4h5s").equity[1] == pytest.approx(result.equity[0], abs=1e-12)


def test_range_monte_carlo_agrees_with_exact() -> None:
    villain = ["QsQd", "JhJd", "AsJs", "7c7h", "9h8h", "AcQc"]
    exact = hand_vs_range("AhKh", villain, "Ks7d2c")
    sampled = hand_vs_range("AhKh", villain, "Ks7d2c", samples=100_000, seed=3)
    assert sampled.pairs == exact.pairs == 6
    assert abs(sampled.equity[0] - exact.equity[0]) < 3 * sampled.standard_error
    # Preflop range sampling: against a range of one combo it is the two-hand equity.
    preflop = hand_vs_range("AhKh", ["QsQd"], samples=100_000, seed=5)
    assert abs(preflop.equity[0] - AK_QQ_EQUITY) < 3 * preflop.standard_error


def test_monte_carlo_boards_avoid_dead_cards() -> None:
    # With two cards to come and many samples, a dead card dealt again (an extra king) would
    # show as a wrong mean: AA against a flopped set of kings.
    exact = equity("AcAd", "KhKd", "Ks7h2c")
    sampled = equity("AcAd", "KhKd", "Ks7h2c", samples=200_000, seed=11)
    assert abs(sampled.equity[0] - exact.equity[0]) < 3 * sampled.standard_error
    # And the range path, where dead cards differ from sample to sample.
    range_a, range_b = ["AcAd", "AhKd"], ["KhKd", "KcQh"]
    sampled_range = range_equity(range_a, range_b, "Ks7h2c", samples=200_000, seed=12)
    exact_range = range_equity(range_a, range_b, "Ks7h2c")
    assert sampled_range.pairs == exact_range.pairs == 3  # AhKd and KhKd share the Kd
    assert abs(sampled_range.equity[0] - exact_range.equity[0]) < 3 * sampled_range.standard_error


def test_combinations_are_lexicographic_and_complete() -> None:
    table = combinations(7, 3)
    assert table.tolist() == [list(c) for c in itertools.combinations(range(7), 3)]
    assert combinations(48, 5).shape == (1_712_304, 5)
    assert combinations(44, 0).shape == (1, 0)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: equity("AhKh", "AhQd"), "card Ah appears more than once"),
        (lambda: equity("AhKh", "QsQd", "Ks7dKs"), "card Ks appears more than once"),
        (lambda: equity("AhKh", "QsQd", "Qs7d2c"), "card Qs appears more than once"),
        (lambda: equity("AhXh", "QsQd"), "rank 'X'"),
        (lambda: equity("AhKhQh", "QsQd"), "must have 2 cards, got 3"),
        (lambda: equity("AhKh", "QsQd", "2c3c4c5c6c7c"), "at most 5 cards, got 6"),
        (lambda: equity("AhKh", "QsQd", samples=1), "samples must be at least 2"),
        (lambda: hand_vs_range("AhKh", ["AhQh", "Kh2c"]), "no pair of combos can meet"),
        (lambda: hand_vs_range("AhKh", ["QsQd"], weights=[-1.0]), "non-negative"),
        (lambda: hand_vs_range("AhKh", ["QsQd"], weights=[1.0, 2.0]), "one weight per combo"),
        (lambda: parse_range([]), "at least one combo"),
        (lambda: parse_range(np.zeros((2, 3), dtype=np.int64)), r"shape \[M, 2\]"),
    ],
)
def test_bad_input_is_a_clear_error(call: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        call()  # type: ignore[operator]


@pytest.mark.parametrize("board", ["2h7c9s", "2h7c9sTh", "2h7c9sTh3d"])
def test_runout_equity_is_exact_from_the_flop_on(board: str) -> None:
    first, second = tuple(parse_cards("AhKh")), tuple(parse_cards("QsQd"))
    known = tuple(parse_cards(board))
    share = runout_equity((first[0], first[1]), (second[0], second[1]), known)
    assert share == pytest.approx(equity(first, second, known).equity[0], abs=1e-12)


def test_runout_equity_preflop_is_seeded_and_near_the_exact_value() -> None:
    first, second = tuple(parse_cards("AhKh")), tuple(parse_cards("QsQd"))
    hands = ((first[0], first[1]), (second[0], second[1]))
    share = runout_equity(*hands, ())
    assert share == runout_equity(*hands, ())  # the same draws every time
    assert share != runout_equity(*hands, (), seed=1)
    # 1,024 draws: a standard error of about 0.016 around the exact 0.4619.
    assert share == pytest.approx(AK_QQ_EQUITY, abs=0.05)
