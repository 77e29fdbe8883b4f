"""Bet and raise sizes as postflop-solver's ``BetSizeOptions`` reads them: ``"60%, e, a"`` / ``"2.5x"``.

A size string is comma-separated sizes (whitespace around each ignored, one trailing comma allowed,
case ignored):

* ``"60%"``: a fraction of the pot (after the bet faced is called, for raises: a raise *by* that much);
* ``"2.5x"``: a raise to 2.5 times the bet faced (raises only; the multiple must exceed 1);
* ``"100c"``: a constant 100 chips (a raise by 100); ``"20c3r"`` also caps it: the raise is offered
  only while at most 3 bets were made on the street (raises only);
* ``"e"``, ``"2e"``, ``"3e200%"``: geometric, the size that gets the stacks in over the streets left
  (3 on the flop, 2 on the turn, 1 on the river) or over the given count, at most the given share of
  the pot; for raises the count drops by one for each raise before it;
* ``"a"``: all-in.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

__all__ = ["BetSize", "BetSizes", "SizeError", "parse_size", "parse_sizes"]

POT_RELATIVE = 0
PREVIOUS_BET_RELATIVE = 1
ADDITIVE = 2
GEOMETRIC = 3
ALL_IN = 4
"""Size kinds, numbered in the order postflop-solver sorts them."""

_NUMBER = re.compile(r"[0-9]+(?:\.[0-9]*)?|\.[0-9]+")
_MAX_INT32 = 2**31 - 1


class SizeError(ValueError):
    """A malformed bet or raise size; the message is one sentence naming it."""


@dataclass(frozen=True, order=True)
class BetSize:
    """One size. ``kind`` is one of the module's kind constants; the other fields by kind:

    * POT_RELATIVE: ``ratio`` of the pot (0.6 for ``"60%"``);
    * PREVIOUS_BET_RELATIVE: ``ratio``, the multiple of the bet faced (2.5 for ``"2.5x"``);
    * ADDITIVE: ``chips`` and ``cap`` (0: no cap; else the most bets on the street before it);
    * GEOMETRIC: ``streets`` (0: the streets left) and ``ratio``, the largest share of the pot
      (``math.inf``: none);
    * ALL_IN: nothing.

    Sizes order as postflop-solver sorts them: by kind, then by their values.
    """

    kind: int
    streets: int = 0
    chips: int = 0
    cap: int = 0
    ratio: float = 0.0


@dataclass(frozen=True)
class BetSizes:
    """The sizes of one player on one street: ``bet`` for the first bet, ``raise_`` for raises.
    Each tuple is sorted in postflop-solver's order (by kind, then value)."""

    bet: tuple[BetSize, ...] = ()
    raise_: tuple[BetSize, ...] = ()


def _number(text: str, label: str) -> float:
    """An unsigned decimal, as postflop-solver accepts it ("5", "5.", ".5", "5.5")."""
    if _NUMBER.fullmatch(text) is None:
        raise SizeError(f"{label} is malformed: {text!r} is not a plain non-negative number")
    return float(text)


def _whole(text: str, label: str, what: str, *, low: int, high: int) -> int:
    value = _number(text, label)
    if value != math.trunc(value) or not low <= value <= high:
        raise SizeError(f"{label}: {what} must be a whole number from {low} to {high}")
    return int(value)


def parse_size(text: str, *, is_raise: bool) -> BetSize:
    """One size (``"60%"``, ``"2.5x"``, ``"100c"``, ``"20c3r"``, ``"2e150%"``, ``"a"``) -> :class:`BetSize`.

    >>> parse_size("60%", is_raise=False)
    BetSize(kind=0, streets=0, chips=0, cap=0, ratio=0.6)
    >>> parse_size("2.5x", is_raise=True).ratio
    2.5
    """
    label = f"{'raise' if is_raise else 'bet'} size {text!r}"
    lower = text.lower()
    if lower.endswith("x"):
        if not is_raise:
            raise SizeError(f"{label} is a multiple of the bet faced, which only a raise can be")
        ratio = _number(lower[:-1], label)
        if ratio <= 1.0:
            raise SizeError(f"{label} must be a multiple greater than 1")
        return BetSize(PREVIOUS_BET_RELATIVE, ratio=ratio)
    if "c" in lower:
        chips_text, _, cap_text = lower.partition("c")
        chips = _whole(chips_text, label, "the chips", low=0, high=_MAX_INT32)
        cap = 0
        if cap_text:
            if not is_raise:
                raise SizeError(f"{label} has a raise cap, which only a raise size can have")
            if not cap_text.endswith("r"):
                raise SizeError(f"{label} is malformed: a raise cap is written like '20c3r'")
            cap = _whole(cap_text[:-1], label, "the raise cap", low=1, high=100)
        return BetSize(ADDITIVE, chips=chips, cap=cap)
    if "e" in lower:
        streets_text, _, max_text = lower.partition("e")
        streets = _whole(streets_text, label, "the streets", low=1, high=100) if streets_text else 0
        ratio = math.inf
        if max_text:
            if not max_text.endswith("%"):
                raise SizeError(f"{label} is malformed: a geometric cap is written like '2e150%'")
            ratio = _number(max_text[:-1], label) / 100.0
        return BetSize(GEOMETRIC, ratio=ratio, streets=streets)
    if lower.endswith("%"):
        return BetSize(POT_RELATIVE, ratio=_number(lower[:-1], label) / 100.0)
    if lower == "a":
        return BetSize(ALL_IN)
    raise SizeError(
        f"{label} is not one of: a pot share ('60%'), a multiple ('2.5x'), chips ('100c'), "
        "geometric ('e', '2e', '3e200%') or all-in ('a')"
        if text
        else f"a {'raise' if is_raise else 'bet'} size is empty (two commas in a row, or a lone comma)"
    )


def _parse_list(text: str, *, is_raise: bool) -> tuple[BetSize, ...]:
    if not isinstance(text, str):
        raise SizeError(f"bet sizes must be a string, got {type(text).__name__}")
    sizes = [part.strip() for part in text.split(",")]
    if sizes[-1] == "":
        sizes.pop()
    return tuple(sorted(parse_size(size, is_raise=is_raise) for size in sizes))


def parse_sizes(bets: str, raises: str) -> BetSizes:
    """``("60%, e, a", "2.5x")`` -> :class:`BetSizes`. An empty string gives no sizes of that kind.

    >>> [size.kind for size in parse_sizes("a, 50%, e", "").bet]
    [0, 3, 4]
    """
    return BetSizes(bet=_parse_list(bets, is_raise=False), raise_=_parse_list(raises, is_raise=True))
