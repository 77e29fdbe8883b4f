"""Hand ranges in the notation players type: ``"66+,A8s+,A5s-A4s,AJo+,AsKs,KQo:0.5"``.

The grammar is the one postflop-solver's ``Range`` parses (and PioSOLVER's, which it follows):

* items are separated by commas; whitespace around commas, dashes and colons is ignored;
* an item is a class (``"AKs"`` suited, ``"AKo"`` offsuit, ``"AK"`` both, ``"QQ"``), a specific
  combo (``"AsKs"``, the higher rank first), a ``+`` range or a dash range, with an optional weight
  ``":0.5"`` (0 to 1; 0 removes the combos);
* ``"66+"`` is 66 up to AA; ``"T9s+"`` (ranks one apart, or a pair) raises both ranks: T9s, JTs, ...
  AKs; ``"A8s+"`` raises the lower rank up to one below the higher: A8s .. AKs;
* ``"QQ-22"`` and ``"KQo-JTo"`` step both ranks (the first item is the higher); ``"A5s-A4s"`` steps
  the lower rank under a fixed higher rank;
* where items cover the same combo, the *first* item's weight holds (postflop-solver applies the
  items from the last to the first), so ``"AsKs:0.5,AKs"`` gives AsKs weight 0.5.

Ranks may be upper or lower case; suits and the ``s``/``o`` suffixes are lower case.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import numpy as np
import numpy.typing as npt

from pokerai.engine.cards import RANKS, SUITS, make_card, rank_of, suit_of

__all__ = ["CLASS_NAMES", "RangeError", "hand_class_name", "parse_range", "range_combos"]


class RangeError(ValueError):
    """A malformed range; the message is one sentence naming the bad item."""


_RANK_CHARS = "AaKkQqJjTt2-9"
_COMBO = rf"(?:[{_RANK_CHARS}]{{2}}[os]?|(?:[{_RANK_CHARS}][cdhs]){{2}})"
_WEIGHT = r"(?:[01](?:\.[0-9]*)?|\.[0-9]+)"
_ITEM = re.compile(rf"(?P<range>{_COMBO}(?:\+|-{_COMBO})?)(?::(?P<weight>{_WEIGHT}))?")
_SPACES = re.compile(r"\s*([-:,])\s*")

_SUITED = "suited"
_OFFSUIT = "offsuit"
_BOTH = "both"
# A combo's suitedness: one of the three words above, or (suit of the higher card, suit of the lower).
_Suitedness = str | tuple[int, int]
_Combo = tuple[int, int]


def _rank(char: str) -> int:
    return RANKS.index(char.upper())


def _parse_singleton(text: str, item: str) -> tuple[int, int, _Suitedness]:
    """``"AKs"`` / ``"AsKs"`` -> (higher rank, lower rank, suitedness); ``item`` names the whole item."""
    if len(text) == 4:
        high, low = _rank(text[0]), _rank(text[2])
        high_suit, low_suit = SUITS.index(text[1]), SUITS.index(text[3])
        if high < low:
            raise RangeError(f"range item {item!r}: the first card's rank must be at least the second's")
        if high == low and high_suit == low_suit:
            raise RangeError(f"range item {item!r} holds the same card twice")
        return high, low, (high_suit, low_suit)
    high, low = _rank(text[0]), _rank(text[1])
    suitedness: _Suitedness = {"s": _SUITED, "o": _OFFSUIT}.get(text[2:], _BOTH)
    if high < low:
        raise RangeError(f"range item {item!r}: the first rank must be at least the second")
    if high == low and suitedness != _BOTH:
        raise RangeError(f"range item {item!r}: a pair cannot be suited or offsuit")
    return high, low, suitedness


def _combos(high: int, low: int, suitedness: _Suitedness) -> list[_Combo]:
    """The combos (lower card id first) of ranks ``high`` >= ``low`` with the given suitedness."""
    if isinstance(suitedness, tuple):
        pair = sorted((make_card(high, suitedness[0]), make_card(low, suitedness[1])))
        return [(pair[0], pair[1])]
    if high == low:
        return [(make_card(high, a), make_card(high, b)) for a in range(4) for b in range(a + 1, 4)]
    return [
        (make_card(low, low_suit), make_card(high, high_suit))
        for high_suit in range(4)
        for low_suit in range(4)
        if suitedness == _BOTH or (suitedness == _SUITED) == (high_suit == low_suit)
    ]


def _expand(text: str, item: str) -> list[_Combo]:
    """The combos of one item without its weight: a singleton, a ``+`` range or a dash range."""
    if "-" in text:
        first, last = text.split("-")
        high1, low1, suited1 = _parse_singleton(first, item)
        high2, low2, suited2 = _parse_singleton(last, item)
        if suited1 != suited2:
            raise RangeError(f"range item {item!r}: both ends of a dash range must have the same suits")
        if high1 - low1 == high2 - low2:
            if high1 <= high2:
                raise RangeError(f"range item {item!r}: a dash range goes from the higher hand to the lower")
            gap = high1 - low1
            return [c for high in range(high2, high1 + 1) for c in _combos(high, high - gap, suited1)]
        if high1 == high2:
            if low1 <= low2:
                raise RangeError(f"range item {item!r}: a dash range goes from the higher hand to the lower")
            return [c for low in range(low2, low1 + 1) for c in _combos(high1, low, suited1)]
        raise RangeError(
            f"range item {item!r}: a dash range must keep the gap between the ranks or the first rank"
        )
    if text.endswith("+"):
        high, low, suitedness = _parse_singleton(text[:-1], item)
        gap = high - low
        if gap <= 1:  # pairs and connectors: both ranks go up
            return [c for top in range(high, 13) for c in _combos(top, top - gap, suitedness)]
        return [c for kicker in range(low, high) for c in _combos(high, kicker, suitedness)]
    return _combos(*_parse_singleton(text, item))


def parse_range(text: str) -> dict[tuple[int, int], float]:
    """Player notation -> ``{(card_a, card_b) with card_a < card_b: weight in (0, 1]}``.

    The grammar is in the module docstring. A malformed item is a :class:`RangeError` whose message
    names it.

    >>> sorted(parse_range("AA:0.5").values())
    [0.5, 0.5, 0.5, 0.5, 0.5, 0.5]
    >>> len(parse_range("22+,AKs,AKo")), len(parse_range("A2s+")), len(parse_range(""))
    (94, 48, 0)
    """
    if not isinstance(text, str):
        raise RangeError(f"a range must be a string, got {type(text).__name__}")
    items = _SPACES.sub(r"\1", text).strip().split(",")
    if items[-1] == "":
        items.pop()
    weights: dict[_Combo, float] = {}
    for item in reversed(items):  # postflop-solver's order: the first item is applied last and holds
        match = _ITEM.fullmatch(item)
        if match is None:
            raise RangeError(
                f"range item {item!r} is not a hand class (AKs, AKo, AK, QQ), a combo (AsKs), "
                "a + range (66+, A8s+) or a dash range (QQ-22, A5s-A4s), with an optional weight (:0.5)"
                if item
                else f"range {text!r} has an empty item between commas"
            )
        weight = 1.0 if match["weight"] is None else float(match["weight"])
        if weight > 1.0:
            raise RangeError(f"range item {item!r} has weight {weight:g}, more than 1")
        for combo in _expand(match["range"], item):
            weights[combo] = weight
    return {combo: weight for combo, weight in sorted(weights.items()) if weight > 0.0}


def range_combos(
    text: str, dead: Iterable[int] = ()
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]:
    """The combos of a range with positive weight that hold no dead card.

    Returns ``(cards, weights)``: ``cards`` int64 [H, 2], each row ascending and the rows in
    ascending order of (first card, second card), as postflop-solver lists a range's hands;
    ``weights`` float64 [H].
    """
    dead_cards = {int(card) for card in dead}
    combos = [
        (pair, weight)
        for pair, weight in parse_range(text).items()
        if pair[0] not in dead_cards and pair[1] not in dead_cards
    ]
    cards = np.array([pair for pair, _ in combos], dtype=np.int64).reshape(len(combos), 2)
    weights = np.array([weight for _, weight in combos], dtype=np.float64)
    return cards, weights


def hand_class_name(card_a: int, card_b: int) -> str:
    """The class of two hole cards: ``"AKs"``, ``"AKo"`` or ``"QQ"`` (the higher rank first).

    >>> hand_class_name(51, 47), hand_class_name(50, 47), hand_class_name(40, 43)
    ('AKs', 'AKo', 'QQ')
    """
    high, low = max(rank_of(card_a), rank_of(card_b)), min(rank_of(card_a), rank_of(card_b))
    if high == low:
        return RANKS[high] * 2
    return RANKS[high] + RANKS[low] + ("s" if suit_of(card_a) == suit_of(card_b) else "o")


def _grid_names() -> tuple[str, ...]:
    names = []
    for row in range(13):
        for column in range(13):
            row_rank, column_rank = 12 - row, 12 - column  # A first
            if row == column:
                names.append(RANKS[row_rank] * 2)
            elif column > row:  # above the diagonal: suited
                names.append(RANKS[row_rank] + RANKS[column_rank] + "s")
            else:
                names.append(RANKS[column_rank] + RANKS[row_rank] + "o")
    return tuple(names)


CLASS_NAMES: tuple[str, ...] = _grid_names()
"""The 169 hand classes in the usual 13x13 grid, row-major: rank A first, pairs on the diagonal,
suited hands above it (row = higher rank) and offsuit hands below it (column = higher rank)."""
