"""The hand evaluator against phevaluator and pokerkit (independent oracles), counts, known hands."""

from __future__ import annotations

import functools
import hashlib
import itertools

import numpy as np
import numpy.typing as npt
import pytest
from phevaluator import evaluate_cards

from pokerai.engine.cards import format_card, parse_cards
from pokerai.engine.evaluator import (
    CATEGORIES,
    CATEGORY_CLASSES,
    CATEGORY_FIRST_RANK,
    NUM_RANKS,
    hand_categories,
    hand_category,
    rank_hand,
    rank_hands,
    tables,
)

# phevaluator ranks 1 (royal flush) .. 7462 (7-5-4-3-2): the reverse of ours.
PH_WORST = NUM_RANKS + 1


@functools.cache
def all_five_card_hands() -> npt.NDArray[np.uint8]:
    """All 2,598,960 five-card hands, [N, 5] uint8."""
    return np.array(list(itertools.combinations(range(52), 5)), dtype=np.uint8)


def random_hands(rng: np.random.Generator, count: int, size: int) -> npt.NDArray[np.uint8]:
    """``count`` hands of ``size`` distinct uniformly random cards."""
    return np.argsort(rng.random((count, 52)), axis=1)[:, :size].astype(np.uint8)


def phevaluator_ranks(hands: npt.NDArray[np.uint8]) -> npt.NDArray[np.int64]:
    return np.array([evaluate_cards(*row) for row in hands.tolist()], dtype=np.int64)


def check_ordering_against_phevaluator(pairs: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    first, second = random_hands(rng, pairs, 7), random_hands(rng, pairs, 7)
    ours = np.sign(rank_hands(first).astype(np.int64) - rank_hands(second))
    theirs = np.sign(phevaluator_ranks(second) - phevaluator_ranks(first))
    assert np.array_equal(ours, theirs)
    assert (ours == 0).any() and (ours == 1).any() and (ours == -1).any()


def test_ordering_of_300_000_random_seven_card_pairs_matches_phevaluator() -> None:
    # The heaviest test of the file (about 2 s): 600,000 phevaluator calls.
    check_ordering_against_phevaluator(300_000, seed=2)


def test_ordering_matches_pokerkit_on_random_seven_card_hands() -> None:
    # A second, pure-Python oracle: pokerkit's hands compare by strength.
    from pokerkit import Card, StandardHighHand

    hands = random_hands(np.random.default_rng(5), 3_000, 7)
    ours = rank_hands(hands)
    names = ["".join(format_card(card) for card in hand) for hand in hands.tolist()]
    theirs = [
        StandardHighHand.from_game(list(Card.parse(name[:4])), list(Card.parse(name[4:]))) for name in names
    ]
    for index in range(len(names) - 1):
        a, b = theirs[index], theirs[index + 1]
        expected = (a > b) - (a < b)
        assert np.sign(int(ours[index]) - int(ours[index + 1])) == expected, names[index : index + 2]


def test_all_7462_five_card_classes_match_phevaluator() -> None:
    hands = all_five_card_hands()
    ranks = rank_hands(hands)
    classes, first_hand = np.unique(ranks, return_index=True)
    assert np.array_equal(classes, np.arange(1, NUM_RANKS + 1))
    # One representative hand per class: phevaluator gives each the mirrored rank, so the
    # two evaluators agree on the order of all 7,462 classes and on which hands tie.
    assert np.array_equal(PH_WORST - phevaluator_ranks(hands[first_hand]), classes)


def test_exhaustive_five_card_category_counts() -> None:
    categories = hand_categories(rank_hands(all_five_card_hands(), validate=False))
    counts = dict(zip(CATEGORIES, np.bincount(categories, minlength=len(CATEGORIES)).tolist(), strict=True))
    assert counts == {
        "high card": 1_302_540,
        "pair": 1_098_240,
        "two pair": 123_552,
        "three of a kind": 54_912,
        "straight": 10_200,
        "flush": 5_108,
        "full house": 3_744,
        "four of a kind": 624,
        "straight flush": 40,
    }
    assert sum(counts.values()) == 2_598_960


def test_category_bands() -> None:
    assert CATEGORY_FIRST_RANK == (1, 1278, 4138, 4996, 5854, 5864, 7141, 7297, 7453)
    assert sum(CATEGORY_CLASSES) == NUM_RANKS
    for name, first, size in zip(CATEGORIES, CATEGORY_FIRST_RANK, CATEGORY_CLASSES, strict=True):
        assert hand_category(first) == hand_category(first + size - 1) == name
        if first > 1:
            assert hand_category(first - 1) != name
    ranks = np.arange(1, NUM_RANKS + 1)
    assert [CATEGORIES[i] for i in hand_categories(ranks)] == [hand_category(int(r)) for r in ranks]
    for bad in (0, NUM_RANKS + 1):
        with pytest.raises(ValueError, match="not a hand rank"):
            hand_category(bad)
    with pytest.raises(ValueError, match=r"1\.\.7462"):
        hand_categories([5, 0])


@pytest.mark.parametrize(
    ("hand", "rank", "category"),
    [
        ("AsKsQsJsTs", 7462, "straight flush"),
        ("5h4h3h2hAh", 7453, "straight flush"),
        ("7c5d4h3s2c", 1, "high card"),
        ("AcAdAhAsKc", 7452, "four of a kind"),
        ("AcAdAhKsKc", 7296, "full house"),
        ("AsKsQsJs9s", 7140, "flush"),
        ("AcKdQhJsTc", 5863, "straight"),
        ("5c4d3h2sAc", 5854, "straight"),
        ("AcAdAhKsQc", 5853, "three of a kind"),
        ("AcAdKhKsQc", 4995, "two pair"),
        ("AcAdKhQsJc", 4137, "pair"),
        ("AcKdQhJs9c", 1277, "high card"),
    ],
)
def test_known_five_card_hands(hand: str, rank: int, category: str) -> None:
    assert rank_hand(parse_cards(hand)) == rank
    assert hand_category(rank) == category


def test_known_seven_card_hands() -> None:
    def rank(text: str) -> int:
        return rank_hand(parse_cards(text))

    # A straight flush hidden below the top five cards of the flush suit.
    assert hand_category(rank("9h8h7h6h5hAhKc")) == "straight flush"
    assert rank("9h8h7h6h5hAhKc") == rank("9h8h7h6h5h")
    # A wheel flush with a six outside the suit is a 5-high straight flush.
    assert rank("Ah2h3h4h5h6c6d") == rank("5h4h3h2hAh")
    # Flush beats the trips that the same seven cards contain.
    assert hand_category(rank("AhKh9h7h2hAcAd")) == "flush"
    # Two trips make a full house; three pairs play the best two with the best kicker.
    assert rank("AcAdAhKcKdKh2s") == rank("AcAdAhKcKd")
    assert rank("AcAdKcKdQcQd2s") == rank("AcAdKcKdQc")
    # Board plays: both hole cards below the board's straight.
    assert rank("2c3dTsJhQcKdAs") == rank("TsJhQcKdAs")


def test_six_and_seven_cards_are_the_best_five_card_subset() -> None:
    rng = np.random.default_rng(3)
    for size in (6, 7):
        hands = random_hands(rng, 3_000, size)
        subsets = np.array(list(itertools.combinations(range(size), 5)))
        best = np.max([rank_hands(hands[:, subset]) for subset in subsets], axis=0)
        assert np.array_equal(rank_hands(hands), best)


def test_single_hand_matches_vectorised_and_card_order_does_not_matter() -> None:
    rng = np.random.default_rng(4)
    for size in (5, 6, 7):
        hands = random_hands(rng, 2_000, size)
        vectorised = rank_hands(hands)
        assert vectorised.dtype == np.int32 and vectorised.shape == (2_000,)
        assert [rank_hand(row) for row in hands.tolist()] == vectorised.tolist()
        shuffled = rng.permuted(hands, axis=1)
        assert np.array_equal(rank_hands(shuffled.astype(np.int64)), vectorised)


def test_bad_input_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="card Ah appears more than once"):
        rank_hand([*parse_cards("AhKdQc2s3s"), 50])
    with pytest.raises(ValueError, match="5, 6 or 7 cards, got 4"):
        rank_hand([0, 1, 2, 3])
    with pytest.raises(ValueError, match="52 is not a card id"):
        rank_hand([0, 1, 2, 3, 52])
    with pytest.raises(ValueError, match="card 2c appears more than once"):
        rank_hands(np.array([[0, 5, 9, 13, 17], [0, 1, 2, 3, 0]]))
    with pytest.raises(ValueError, match="shape"):
        rank_hands(np.zeros((3, 4), dtype=np.int64))
    with pytest.raises(ValueError, match=r"0\.\.51"):
        rank_hands(np.array([[0, 1, 2, 3, -1]]))
    with pytest.raises(ValueError, match="integers"):
        rank_hands(np.zeros((2, 5)))
    assert rank_hands(np.zeros((0, 7), dtype=np.int64)).shape == (0,)


def test_tables_are_pinned() -> None:
    built = tables()
    digest = hashlib.sha256()
    for array in (built.card_key, built.flush, built.nonflush[5], built.nonflush[6], built.nonflush[7]):
        digest.update(np.ascontiguousarray(array).tobytes())
    assert digest.hexdigest() == "57a9d7ecadf4c890a83fd838f7d09a1e20c5d306348292e75cbd8f46444f4399"
