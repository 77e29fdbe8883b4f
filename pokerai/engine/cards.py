"""Cards: ints 0..51, parsed from and formatted as two-character strings like ``Ah``.

Encoding (the same as phevaluator's, so that tests can compare directly)::

    card = 4 * rank + suit
    rank: 0..12 for 2, 3, 4, 5, 6, 7, 8, 9, T, J, Q, K, A
    suit: 0..3  for c (clubs), d (diamonds), h (hearts), s (spades)

So ``2c`` is 0, ``2d`` is 1, ``Ah`` is 50 and ``As`` is 51. Parsing accepts
either case (``ah``, ``AH``) and ``10`` for ten; formatting always writes an
upper-case rank and a lower-case suit.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

RANKS = "23456789TJQKA"
SUITS = "cdhs"
NUM_CARDS = 52
DECK = tuple(range(NUM_CARDS))
BOARD_SIZES = (0, 3, 4, 5)
"""Board cards visible on each street (preflop, flop, turn, river)."""


def rank_of(card: int) -> int:
    """0 (two) .. 12 (ace)."""
    return card >> 2


def suit_of(card: int) -> int:
    """0 (clubs) .. 3 (spades)."""
    return card & 3


def make_card(rank: int, suit: int) -> int:
    """The card id of a rank (0..12) and suit (0..3)."""
    if not (0 <= rank < 13 and 0 <= suit < 4):
        raise ValueError(f"no card has rank {rank} and suit {suit}")
    return 4 * rank + suit


def parse_card(text: str) -> int:
    """``"Ah"`` -> 50. A malformed card is a ``ValueError`` that names it.

    >>> parse_card("Ah"), parse_card("2c")
    (50, 0)
    >>> parse_card("Ax")
    Traceback (most recent call last):
    ...
    ValueError: malformed card 'Ax': suit 'x' is not one of cdhs
    """
    cleaned = text.strip()
    if len(cleaned) == 3 and cleaned[:2] == "10":
        cleaned = "T" + cleaned[2]
    if len(cleaned) != 2:
        raise ValueError(f"malformed card {text!r}: expected a rank and a suit, like 'Ah' or 'Td'")
    rank = RANKS.find(cleaned[0].upper())
    suit = SUITS.find(cleaned[1].lower())
    if rank < 0:
        raise ValueError(f"malformed card {text!r}: rank {cleaned[0]!r} is not one of {RANKS}")
    if suit < 0:
        raise ValueError(f"malformed card {text!r}: suit {cleaned[1]!r} is not one of {SUITS}")
    return 4 * rank + suit


def parse_cards(text: str | Iterable[str], *, allow_duplicates: bool = False) -> list[int]:
    """``"AhKd"``, ``"Ah Kd"``, ``"Ah,Kd"`` or ``["Ah", "Kd"]`` -> ``[50, 45]``.

    Malformed or (unless ``allow_duplicates``) repeated cards are a
    ``ValueError`` that names them.

    >>> parse_cards("Ah Kd"), parse_cards(["Ah", "Kd"])
    ([50, 45], [50, 45])
    >>> parse_cards("AhAh")
    Traceback (most recent call last):
    ...
    ValueError: card Ah appears more than once
    """
    if isinstance(text, str):
        compact = text.replace(",", " ").replace("10", "T").split()
        tokens = [chunk[i : i + 2] for chunk in compact for i in range(0, len(chunk), 2)]
        if any(len(token) != 2 for token in tokens):
            raise ValueError(f"malformed cards {text!r}: expected pairs of rank and suit, like 'AhKd'")
    else:
        tokens = list(text)
    cards = [parse_card(token) for token in tokens]
    if not allow_duplicates:
        check_distinct(cards)
    return cards


def check_distinct(cards: Sequence[int]) -> None:
    """Raise ``ValueError`` naming the first card that appears twice, or an id outside 0..51."""
    seen: set[int] = set()
    for card in cards:
        if not (isinstance(card, (int, np.integer)) and 0 <= card < NUM_CARDS):
            raise ValueError(f"{card!r} is not a card id (0..51)")
        if card in seen:
            raise ValueError(f"card {format_card(int(card))} appears more than once")
        seen.add(int(card))


def format_card(card: int) -> str:
    """50 -> ``"Ah"``."""
    if not 0 <= card < NUM_CARDS:
        raise ValueError(f"{card!r} is not a card id (0..51)")
    return RANKS[card >> 2] + SUITS[card & 3]


def format_cards(cards: Iterable[int], separator: str = "") -> str:
    """``[50, 45]`` -> ``"AhKd"`` (or with ``separator`` between cards).

    >>> format_cards([50, 45]), format_cards(parse_cards("Ks7d2c"), " ")
    ('AhKd', 'Ks 7d 2c')
    """
    return separator.join(format_card(int(card)) for card in cards)
