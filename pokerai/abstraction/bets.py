"""Bet menus for heads-up no-limit hold'em, and translation of off-menu bets onto them (layer 1).

A blueprint cannot consider every whole-chip raise, so each street has a small
:class:`BetMenu` of raise sizes given as fractions of the pot, plus all-in.

Pot-fraction convention
-----------------------
A raise of fraction ``f`` is a raise to

    raise_to = highest_bet + f × (pot + owed)

where ``highest_bet = max(state.bets)`` is the largest bet on this street,
``owed`` the chips the player to act must add to call it, and ``pot =
state.pot`` the chips in the middle, this street's bets included. So ``f`` is
the raise *increment* as a fraction of the pot after calling, and ``f = 1`` is
the pot-limit maximum (the same raise as
:func:`pokerai.agents.baselines.pot_raise_to`). Examples with blinds 50/100:
the button's preflop ``f = 1`` raise is to 100 + 1 × (150 + 50) = 300; on a
fresh flop with a pot of 200, ``f = 0.5`` is a bet of 100. Amounts are rounded
to the nearest chip and clamped into the legal range
``[state.min_raise_to, state.max_raise_to]``.

Action slots
------------
Policies are vectors over a fixed set of action slots, shared by all streets
(:attr:`BetAbstraction.num_slots` of them): slot 0 is fold, slot 1 check or
call, slots ``2 .. 2 + n - 1`` the menu's pot fractions in order (``n`` the
longest menu; a street with a shorter menu leaves its last fraction slots
unused) and the last slot all-in. :func:`slot_actions` gives the legal slots
of a state and the engine action of each. Two slots that come to the same
amount after clamping are one action: the lower slot keeps it, except that a
fraction equal to all-in always yields to the all-in slot.
A menu's ``all_in_max_pots`` (0, no limit, by default) keeps all-in off the
menu while its raise would exceed that many pots after calling, e.g. a 200 bb
shove into a 1.5 bb preflop pot; a fraction clamped to the stack is then still
an all-in, in its own slot. A menu's ``max_raises`` (0, no cap, by default)
allows that many bets and raises on its street, all-in included; after them
a player may only fold, check or call.

Action translation
------------------
An opponent's raise that is not on the menu is mapped onto the two legal
menu sizes around it with the pseudo-harmonic mapping of Ganzfried &
Sandholm, "Action Translation in Extensive-Form Games with Large Action
Spaces: Axioms, Paradoxes, and the Pseudo-Harmonic Mapping" (IJCAI 2013):
see :func:`pseudo_harmonic` and :func:`translate`.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from pokerai.engine.state import Action, ActionKind, HUNLState, Street

FOLD_SLOT = 0
"""The action slot of a fold."""
CHECK_CALL_SLOT = 1
"""The action slot of a check or a call."""
FIRST_FRACTION_SLOT = 2
"""The action slot of the first (smallest) pot fraction of a menu."""
MAX_POT_FRACTIONS = 16
"""The most pot fractions one menu may hold (keeps policy vectors small)."""

_PROBABILITY_TOLERANCE = 1e-9
"""How far the probabilities of a translation may sum from 1 (floating-point rounding)."""


@dataclass(frozen=True)
class BetMenu:
    """The raise sizes of one street: pot fractions (see the module docstring) and whether all-in is one.

    ``pot_fractions`` must be positive and strictly increasing, at most
    :data:`MAX_POT_FRACTIONS` of them; an empty tuple leaves only all-in (or
    no raise at all when ``all_in`` is False).
    """

    pot_fractions: tuple[float, ...] = field(
        default=(0.5, 1.0, 2.0),
        metadata={"help": "raise sizes as fractions of the pot after calling, smallest first"},
    )
    all_in: bool = field(default=True, metadata={"help": "whether going all-in is an action"})
    all_in_max_pots: float = field(
        default=0.0,
        metadata={
            "min": 0.0,
            "help": "all-in is an action only while its raise is at most this many pots (the pot "
            "after calling, as for the fractions); 0: always. A pot fraction that reaches the stack "
            "is still an all-in",
        },
    )

    max_raises: int = field(
        default=0,
        metadata={
            "min": 0,
            "help": "bets and raises allowed on this street (all-in included); after that a player may "
            "only fold, check or call; 0: no cap",
        },
    )

    def __post_init__(self) -> None:
        if not isinstance(self.pot_fractions, (tuple, list)):
            raise ValueError(f"pot fractions {self.pot_fractions!r} are not a list of numbers")
        fractions = tuple(self.pot_fractions)
        if len(fractions) > MAX_POT_FRACTIONS:
            raise ValueError(
                f"a bet menu holds at most {MAX_POT_FRACTIONS} pot fractions, got {len(fractions)}"
            )
        for fraction in fractions:
            if isinstance(fraction, bool) or not isinstance(fraction, (int, float, np.integer, np.floating)):
                raise ValueError(f"pot fraction {fraction!r} is not a number")
            if not (math.isfinite(fraction) and fraction > 0):
                raise ValueError(f"pot fraction {fraction!r} is not a positive finite number")
        for smaller, larger in itertools.pairwise(fractions):
            if not smaller < larger:
                raise ValueError(
                    f"pot fractions {list(fractions)} are not strictly increasing "
                    f"({larger} follows {smaller})"
                )
        if not isinstance(self.all_in, bool):
            raise ValueError(f"all_in {self.all_in!r} is not true or false")
        limit = self.all_in_max_pots
        if isinstance(limit, bool) or not isinstance(limit, (int, float, np.integer, np.floating)):
            raise ValueError(f"all_in_max_pots {limit!r} is not a number")
        if not (math.isfinite(limit) and limit >= 0):
            raise ValueError(f"all_in_max_pots {limit!r} is not a finite number >= 0")
        object.__setattr__(self, "all_in_max_pots", float(limit))
        cap = self.max_raises
        if isinstance(cap, bool) or not isinstance(cap, (int, np.integer)) or cap < 0:
            raise ValueError(f"max_raises {cap!r} is not a whole number >= 0")
        object.__setattr__(self, "max_raises", int(cap))
        # Stored as a tuple of floats so that menus built from lists or ints hash and compare alike.
        object.__setattr__(self, "pot_fractions", tuple(float(fraction) for fraction in fractions))


@dataclass(frozen=True)
class BetAbstraction:
    """One :class:`BetMenu` per street, and the fixed action slots they share (module docstring)."""

    preflop: BetMenu = field(default_factory=BetMenu, metadata={"help": "raise sizes preflop"})
    flop: BetMenu = field(default_factory=BetMenu, metadata={"help": "raise sizes on the flop"})
    turn: BetMenu = field(default_factory=BetMenu, metadata={"help": "raise sizes on the turn"})
    river: BetMenu = field(default_factory=BetMenu, metadata={"help": "raise sizes on the river"})

    def menu(self, street: int) -> BetMenu:
        """The menu of ``street`` (0 preflop, 1 flop, 2 turn, 3 river)."""
        if type(street) is int and 0 <= street <= 3:  # the hot path of traversals
            return self._menus[street]
        if isinstance(street, bool) or not isinstance(street, (int, np.integer)) or not 0 <= street <= 3:
            raise ValueError(f"street {street!r} is not 0 (preflop), 1 (flop), 2 (turn) or 3 (river)")
        return self._menus[int(street)]

    @functools.cached_property
    def _menus(self) -> tuple[BetMenu, BetMenu, BetMenu, BetMenu]:
        return (self.preflop, self.flop, self.turn, self.river)

    @functools.cached_property
    def num_slots(self) -> int:
        """Fold, check/call, one slot per pot fraction of the longest menu, and all-in."""
        longest = max(len(self.menu(street).pot_fractions) for street in Street)
        return FIRST_FRACTION_SLOT + longest + 1

    @functools.cached_property
    def all_in_slot(self) -> int:
        """The last slot."""
        return self.num_slots - 1


# ---------------------------------------------------------------------------- pot fractions


def _pot_after_call(state: HUNLState) -> tuple[int, int]:
    """(highest bet on the street, pot after the player to act calls) -- the base of a pot fraction."""
    player = _player_to_act(state)
    highest_bet = max(state.bets)
    owed = highest_bet - state.bets[player]
    return highest_bet, state.pot + owed


def _player_to_act(state: HUNLState) -> int:
    if state.to_act is None:
        raise ValueError("the hand is over, so there is no player to act and no bet to size")
    return state.to_act


def raise_to_for_pot_fraction(state: HUNLState, fraction: float) -> int:
    """The raise-to of a ``fraction``-pot raise by the player to act, to the nearest chip, not clamped.

    ``highest_bet + fraction × (pot + owed)`` (module docstring); halves round up.
    """
    highest_bet, pot_after_call = _pot_after_call(state)
    return _fraction_raise_to(highest_bet, pot_after_call, fraction)


def _fraction_raise_to(highest_bet: int, pot_after_call: int, fraction: float) -> int:
    return highest_bet + math.floor(fraction * pot_after_call + 0.5)


def pot_fraction_of_raise(state: HUNLState, raise_to: int) -> float:
    """The pot fraction of a raise to ``raise_to`` by the player to act: the inverse of
    :func:`raise_to_for_pot_fraction` (without rounding)."""
    highest_bet, pot_after_call = _pot_after_call(state)
    return (raise_to - highest_bet) / pot_after_call


# ---------------------------------------------------------------------------- slots


def legal_raise_slots(state: HUNLState, abstraction: BetAbstraction) -> list[tuple[int, int]]:
    """The legal raise slots of the player to act and their raise-to amounts: (slot, raise_to) pairs.

    Each pot fraction is clamped into ``[min_raise_to, max_raise_to]``; all-in
    is ``max_raise_to``. Slots whose amounts coincide are merged (module
    docstring), so the amounts strictly increase with the slot. Empty when
    raising is not legal.
    """
    return _raise_slots(state, _player_to_act(state), abstraction)


def _raise_slots(state: HUNLState, player: int, abstraction: BetAbstraction) -> list[tuple[int, int]]:
    """:func:`legal_raise_slots` for ``player``, the player to act (the hot path of traversals).

    The pot, ``min_raise_to`` and ``max_raise_to`` are computed here from the state's fields
    as :func:`_pot_after_call` and the state's properties compute them.
    """
    bets = state.bets
    stacks = state.stacks
    own_bet = bets[player]
    other_bet = bets[1 - player]
    # HUNLState._raise_possible: the opponent has chips behind and ours cover more than a call.
    if not (stacks[1 - player] > 0 and stacks[player] > other_bet - own_bet):
        return []
    highest_bet = other_bet if other_bet > own_bet else own_bet
    committed = state.committed
    pot = 0 if state.is_over else committed[0] + committed[1]
    pot_after_call = pot + (highest_bet - own_bet)
    maximum = stacks[player] + own_bet  # max_raise_to
    minimum = min(other_bet + max(state.last_raise_size, state.config.big_blind), maximum)  # min_raise_to
    menu = abstraction.menu(state.street)
    if menu.max_raises:
        made = 0
        for action in state.history[state.street_starts[state.street] :]:
            if action.kind is ActionKind.RAISE:
                made += 1
        if made >= menu.max_raises:
            return []  # the street's raise cap is reached
    all_in = menu.all_in
    limit = menu.all_in_max_pots
    if all_in and limit > 0 and maximum - highest_bet > limit * pot_after_call:
        all_in = False  # an overbet beyond the menu's limit
    taken: set[int] = {maximum} if all_in else set()
    slots: list[tuple[int, int]] = []
    floor = math.floor
    for index, fraction in enumerate(menu.pot_fractions, FIRST_FRACTION_SLOT):
        # As raise_to_for_pot_fraction (_fraction_raise_to), with the pot computed once for the menu,
        # then clamped into [minimum, maximum].
        amount = highest_bet + floor(fraction * pot_after_call + 0.5)
        if amount < minimum:
            amount = minimum
        if amount > maximum:
            amount = maximum
        if amount not in taken:
            taken.add(amount)
            slots.append((index, amount))
    if all_in:
        slots.append((abstraction.all_in_slot, maximum))
    return slots


def legal_slot_amounts(state: HUNLState, abstraction: BetAbstraction) -> tuple[tuple[int, ...], list[int]]:
    """The legal slots of the player to act, ascending, and the chips of each slot's action.

    The chips are, by slot: 0 for fold, the amount to call (0 for a check) for check/call,
    the raise-to for a legal raise slot, and 0 for an illegal slot. The same actions as
    :func:`slot_actions`, without building the mask or the :class:`Action` objects.
    """
    player = _player_to_act(state)
    bets = state.bets
    amounts = [0] * abstraction.num_slots
    facing = bets[1 - player] - bets[player]
    if facing > 0:
        # Facing a bet, folding and calling are legal; otherwise checking (HUNLState.verify_fold/_call).
        amounts[CHECK_CALL_SLOT] = min(facing, state.stacks[player])  # state.call_amount
        legal = [FOLD_SLOT, CHECK_CALL_SLOT]
    else:
        legal = [CHECK_CALL_SLOT]
    for slot, amount in _raise_slots(state, player, abstraction):
        legal.append(slot)
        amounts[slot] = amount
    return tuple(legal), amounts


def slot_actions(
    state: HUNLState, abstraction: BetAbstraction
) -> tuple[npt.NDArray[np.bool_], list[Action | None]]:
    """The legal-slot mask of the player to act and the engine action of each slot (None where illegal).

    Fold is legal only when facing a bet; check/call always; raise slots as in
    :func:`legal_raise_slots`.
    """
    legal, amounts = legal_slot_amounts(state, abstraction)
    player = state.to_act
    assert player is not None
    mask = np.zeros(abstraction.num_slots, dtype=np.bool_)
    mask[list(legal)] = True
    actions: list[Action | None] = [None] * abstraction.num_slots
    if legal[0] == FOLD_SLOT:  # facing a bet
        actions[FOLD_SLOT] = Action(player, ActionKind.FOLD)
        actions[CHECK_CALL_SLOT] = Action(player, ActionKind.CALL, amounts[CHECK_CALL_SLOT])
    else:
        actions[CHECK_CALL_SLOT] = Action(player, ActionKind.CHECK)
    for slot in legal[1:]:
        if slot != CHECK_CALL_SLOT:
            actions[slot] = Action(player, ActionKind.RAISE, amounts[slot])
    return mask, actions


def slot_names(abstraction: BetAbstraction, street: int) -> list[str]:
    """A display name for every slot on ``street``: "fold", "check/call", "bet 0.5 pot", ..., "all-in".

    Slots the street's menu does not use are named "unused".
    """
    menu = abstraction.menu(street)
    names = ["unused"] * abstraction.num_slots
    names[FOLD_SLOT] = "fold"
    names[CHECK_CALL_SLOT] = "check/call"
    for index, fraction in enumerate(menu.pot_fractions):
        names[FIRST_FRACTION_SLOT + index] = f"bet {fraction:g} pot"
    if menu.all_in:
        names[abstraction.all_in_slot] = "all-in"
    return names


# ---------------------------------------------------------------------------- translation


def pseudo_harmonic(smaller: float, larger: float, size: float) -> float:
    """The probability of mapping a bet of ``size`` onto the ``smaller`` of two menu sizes.

    Sizes are pot fractions with ``0 <= smaller < larger`` and ``smaller <= size <= larger``.
    This is the pseudo-harmonic mapping of Ganzfried & Sandholm (IJCAI 2013),

        f(x) = (b − x)(1 + a) / ((b − a)(1 + x)),

    with ``a = smaller``, ``b = larger``, ``x = size``; ``larger`` gets ``1 − f(x)``.
    It is 1 at ``a``, 0 at ``b`` and decreasing between.
    """
    for name, value in (("smaller", smaller), ("larger", larger), ("size", size)):
        if not math.isfinite(value):
            raise ValueError(f"the {name} bet size {value!r} is not a finite pot fraction")
    if not 0 <= smaller < larger:
        raise ValueError(
            f"bet sizes {smaller!r} and {larger!r} must satisfy 0 <= smaller < larger as pot fractions"
        )
    if not smaller <= size <= larger:
        raise ValueError(f"bet size {size!r} is not between the menu sizes {smaller!r} and {larger!r}")
    return (larger - size) * (1 + smaller) / ((larger - smaller) * (1 + size))


def translate(state: HUNLState, raise_to: int, abstraction: BetAbstraction) -> list[tuple[int, float]]:
    """Map an opponent's raise onto the menu's legal raise slots: (slot, probability) pairs.

    ``state`` is the state *before* the raise, with the raiser to act, and
    ``raise_to`` must be legal there. A raise to a slot's amount maps to that
    slot; one between two neighbouring legal amounts is split between them by
    :func:`pseudo_harmonic` on their pot fractions (the all-in slot's fraction
    is that of its amount); one below the smallest or above the largest legal
    amount maps to that amount's slot. Probabilities sum to 1.
    """
    _player_to_act(state)
    if not state.can_raise_to(raise_to):
        minimum, maximum = state.min_raise_to, state.max_raise_to
        if minimum is None or maximum is None:
            raise ValueError(f"raise to {raise_to!r} cannot be translated: raising is not legal here")
        raise ValueError(
            f"raise to {raise_to!r} cannot be translated: legal raises are to {minimum} through {maximum}"
        )
    slots = legal_raise_slots(state, abstraction)
    if not slots:
        raise ValueError(
            f"raise to {raise_to} cannot be translated: the {Street(state.street).name.lower()} menu "
            f"has no raise sizes"
        )
    first_slot, first_amount = slots[0]
    if raise_to <= first_amount:
        return [(first_slot, 1.0)]
    for (lower_slot, lower_amount), (upper_slot, upper_amount) in itertools.pairwise(slots):
        if raise_to == upper_amount:
            return [(upper_slot, 1.0)]
        if lower_amount < raise_to < upper_amount:
            to_lower = pseudo_harmonic(
                pot_fraction_of_raise(state, lower_amount),
                pot_fraction_of_raise(state, upper_amount),
                pot_fraction_of_raise(state, raise_to),
            )
            return [(lower_slot, to_lower), (upper_slot, 1.0 - to_lower)]
    last_slot, _ = slots[-1]
    return [(last_slot, 1.0)]


def sample_translation(pairs: Sequence[tuple[int, float]], rng: np.random.Generator) -> int:
    """Draw one slot from the (slot, probability) pairs that :func:`translate` returns."""
    if not pairs:
        raise ValueError("cannot sample a translation from an empty list of (slot, probability) pairs")
    total = math.fsum(probability for _, probability in pairs)
    if any(probability < 0 for _, probability in pairs) or abs(total - 1.0) > _PROBABILITY_TOLERANCE:
        raise ValueError(f"translation probabilities {[p for _, p in pairs]} are not a distribution")
    draw = rng.random() * total
    for slot, probability in pairs:
        if draw < probability:
            return slot
        draw -= probability
    # Rounding can leave the draw just past the last cumulative sum; the last positive pair owns it.
    return next(slot for slot, probability in reversed(pairs) if probability > 0)


__all__ = [
    "CHECK_CALL_SLOT",
    "FIRST_FRACTION_SLOT",
    "FOLD_SLOT",
    "MAX_POT_FRACTIONS",
    "BetAbstraction",
    "BetMenu",
    "legal_raise_slots",
    "legal_slot_amounts",
    "pot_fraction_of_raise",
    "pseudo_harmonic",
    "raise_to_for_pot_fraction",
    "sample_translation",
    "slot_actions",
    "slot_names",
    "translate",
]
