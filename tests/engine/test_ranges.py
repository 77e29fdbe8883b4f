"""Range notation: combo counts known from the deck, postflop-solver's documented orders, bad items."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from pokerai.engine.cards import format_cards, parse_card, parse_cards
from pokerai.engine.equity import hand_class
from pokerai.engine.ranges import CLASS_NAMES, RangeError, hand_class_name, parse_range, range_combos

EXAMPLE_OOP = "66+,A8s+,A5s-A4s,AJo+,K9s+,KQo,QTs+,JTs,96s+,85s+,75s+,65s,54s"
"""postflop-solver's example OOP range (its examples/basic.rs)."""


def classes(text: str) -> set[str]:
    return {hand_class_name(*combo) for combo in parse_range(text)}


@pytest.mark.parametrize(
    ("text", "count"),
    [
        ("AA", 6),  # pairs: 4 choose 2
        ("AKs", 4),
        ("AKo", 12),
        ("AK", 16),
        ("66+", 9 * 6),  # 66 .. AA
        ("A8s+", 6 * 4),  # A8s .. AKs
        ("A5s-A4s", 2 * 4),
        ("QQ-22", 11 * 6),
        ("K9o-K6o", 4 * 12),
        ("T9s+", 5 * 4),  # T9s, JTs, QJs, KQs, AKs
        ("AsKs", 1),
        ("", 0),
        ("AA,", 6),
        ("22+,AKs,AKo", 13 * 6 + 16),
    ],
)
def test_combo_counts(text: str, count: int) -> None:
    assert len(parse_range(text)) == count


def test_plus_and_dash_ranges_name_the_classes_players_expect() -> None:
    assert classes("T9s+") == {"T9s", "JTs", "QJs", "KQs", "AKs"}
    assert classes("KQo-JTo") == {"KQo", "QJo", "JTo"}
    assert classes("A5s-A4s") == {"A5s", "A4s"}
    assert classes("K9o+") == {"K9o", "KTo", "KJo", "KQo"}
    assert classes("QQ-TT") == {"QQ", "JJ", "TT"}
    assert classes("A2+") == {f"A{rank}{suffix}" for rank in "23456789TJQK" for suffix in "so"}


def test_specific_combos_and_their_ranges() -> None:
    assert set(parse_range("AsKs")) == {(parse_card("Ks"), parse_card("As"))}
    assert {format_cards(combo) for combo in parse_range("KsQs+")} == {"QsKs", "KsAs"}
    assert {format_cards(combo) for combo in parse_range("AsKs-AsQs")} == {"QsAs", "KsAs"}
    assert {format_cards(combo) for combo in parse_range("QsQh+")} == {"QhQs", "KhKs", "AhAs"}


def test_weights_whitespace_and_case() -> None:
    assert set(parse_range("AA:0.5").values()) == {0.5}
    assert parse_range(" AA : 0.5 , kk ") == parse_range("AA:0.5,KK")
    assert parse_range("aks") == parse_range("AKs")
    assert set(parse_range("AK:.25").values()) == {0.25}
    assert set(parse_range("AK:1.").values()) == {1.0}
    assert parse_range("AK:0") == {}


def test_the_first_item_holds_where_items_overlap() -> None:
    """postflop-solver applies the items from the last to the first."""
    as_ks = (parse_card("Ks"), parse_card("As"))
    assert parse_range("AsKs:0.5,AKs")[as_ks] == 0.5
    assert parse_range("AKs,AsKs:0.5")[as_ks] == 1.0
    assert as_ks not in parse_range("AsKs:0,AKs")
    assert len(parse_range("AsKs:0,AKs")) == 3


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("AKx", "'AKx' is not a hand class"),
        ("A K", "'A K' is not a hand class"),
        ("AK:0.5:0.5", "is not a hand class"),
        ("AK:2", "is not a hand class"),
        ("AA,,KK", "empty item"),
        (",", "empty item"),
        ("AK:1.5", "weight 1.5, more than 1"),
        ("KsAs", "first card's rank must be at least"),
        ("KA", "first rank must be at least"),
        ("KsKs", "same card twice"),
        ("AAs", "pair cannot be suited or offsuit"),
        ("AKs-KQo", "same suits"),
        ("QQ-QQ", "from the higher hand to the lower"),
        ("A2s-AKs", "from the higher hand to the lower"),
        ("KQ-J9", "keep the gap between the ranks or the first rank"),
    ],
)
def test_each_malformed_item_is_one_sentence_naming_it(text: str, message: str) -> None:
    with pytest.raises(RangeError, match=message) as raised:
        parse_range(text)
    assert "\n" not in str(raised.value)
    assert isinstance(raised.value, ValueError)


def test_range_combos_lists_postflop_solvers_hands_in_its_order() -> None:
    """postflop-solver's examples/basic.rs asserts these first ten OOP hands on Td9d6hQc."""
    cards, weights = range_combos(EXAMPLE_OOP, dead=parse_cards("Td9d6hQc"))
    first = [format_cards(row[::-1]) for row in cards[:10]]
    assert first == ["5c4c", "Ac4c", "5d4d", "Ad4d", "5h4h", "Ah4h", "5s4s", "As4s", "6c5c", "7c5c"]
    assert cards.dtype == np.int64 and weights.dtype == np.float64
    assert cards.shape == (len(weights), 2) and (cards[:, 0] < cards[:, 1]).all()
    assert [tuple(row) for row in cards] == sorted(tuple(row) for row in cards)
    board = set(parse_cards("Td9d6hQc"))
    assert not board & set(cards.ravel().tolist())
    assert len(cards) == len(parse_range(EXAMPLE_OOP)) - sum(
        1 for combo in parse_range(EXAMPLE_OOP) if board & set(combo)
    )


def test_range_combos_of_an_empty_range() -> None:
    cards, weights = range_combos("AA", dead=parse_cards("AsAhAd"))
    assert cards.shape == (0, 2) and weights.shape == (0,)


def test_class_names_grid() -> None:
    assert len(CLASS_NAMES) == len(set(CLASS_NAMES)) == 169
    assert CLASS_NAMES[:3] == ("AA", "AKs", "AQs") and CLASS_NAMES[13] == "AKo" and CLASS_NAMES[-1] == "22"
    assert [CLASS_NAMES[14 * i] for i in range(13)] == [rank * 2 for rank in "AKQJT98765432"]
    sizes = {name: 0 for name in CLASS_NAMES}
    for first, second in itertools.combinations(range(52), 2):
        name = hand_class_name(first, second)
        sizes[name] += 1
        # the same cell as the equity module's grid (ranks 2..A), turned to A first
        row, column = hand_class((first, second))
        assert CLASS_NAMES[(12 - row) * 13 + (12 - column)] == name
    assert {size for name, size in sizes.items()} == {4, 6, 12}
    assert all(sizes[name] == (6 if len(name) == 2 else 4 if name[2] == "s" else 12) for name in CLASS_NAMES)
