"""Both players' ranges at a hold'em public state, by Bayes' rule from the blueprint.

Every hold'em search starts from beliefs (:func:`public_beliefs`): both players' ranges
at the current public state, float64 over the 1,326 combinations of
:mod:`pokerai.search.combos`. Start uniform over the combinations that hold no board
card, and after every action in the history multiply the acting player's range by the
probability the blueprint gives that action holding each combination (one batched
blueprint call per past decision, :func:`combo_probabilities`; a preflop decision's answers
for all 1,326 combinations are kept per preflop history, since they do not depend on the
board). An opponent raise that is not on the blueprint's menu enters through
:func:`~pokerai.abstraction.bets.translate` (:func:`action_slots`): its probability is the
sum over the translated slots of weight × blueprint probability. The probabilities are
the *thresholded* ones the blueprint agent plays (:func:`threshold_probabilities`), so a
hand that would never take an action gets belief 0. (``opponent_threshold`` sets another
threshold for the opponent's actions: 0 keeps every hand the network plays that way.)
:func:`opponent_range` is the opponent's range at a street's start, each of its actions'
probabilities floored, as the street search takes it.
"""

from __future__ import annotations

import weakref
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from pokerai.abstraction.bets import CHECK_CALL_SLOT, FOLD_SLOT, BetAbstraction, legal_slot_amounts, translate
from pokerai.engine.state import Action, ActionKind, HUNLState, Street
from pokerai.games.holdem import Blueprint
from pokerai.search.combos import ALL_COMBOS, NUM_COMBOS, combos_holding


def threshold_probabilities(probabilities: npt.ArrayLike, threshold: float) -> npt.NDArray[np.float64]:
    """Thresholding (Ganzfried, Sandholm & Waugh 2012) of each row of float ``[N, num_slots]``.

    Slots below ``threshold`` get 0 and each row is renormalised; a row left
    empty keeps only its most likely slot. ``threshold`` 0 returns the rows
    unchanged. The same rule as :class:`pokerai.agents.blueprint.BlueprintAgent`.
    """
    rows = np.array(probabilities, dtype=np.float64, ndmin=2)
    if threshold <= 0:
        return rows
    kept = np.where(rows >= threshold, rows, 0.0)
    empty = kept.sum(axis=1) == 0
    kept[np.flatnonzero(empty), np.argmax(rows[empty], axis=1)] = 1.0
    result: npt.NDArray[np.float64] = kept / kept.sum(axis=1, keepdims=True)
    return result


def combo_probabilities(
    blueprint: Blueprint,
    state: HUNLState,
    combos: npt.NDArray[np.int64],
    threshold: float = 0.0,
) -> tuple[tuple[int, ...], list[int], npt.NDArray[np.float64]]:
    """The blueprint's (thresholded) policy of the player to act holding each of ``combos``: one call.

    ``combos`` are indices into :data:`~pokerai.search.combos.ALL_COMBOS` (they must not hold a board
    card). Returns the legal slots, each slot's chips (as
    :func:`~pokerai.abstraction.bets.legal_slot_amounts`) and float64
    ``[len(combos), num_slots]`` probabilities, 0 on illegal slots.
    """
    if state.to_act is None:
        raise ValueError("the hand is over, so there is no player to act and no policy to ask")
    legal, amounts = legal_slot_amounts(state, blueprint.game.bets)
    mask = np.zeros(blueprint.game.bets.num_slots, dtype=np.bool_)
    mask[list(legal)] = True
    probabilities = blueprint.hand_probabilities(state, ALL_COMBOS[combos], mask)
    return legal, amounts, threshold_probabilities(probabilities, threshold)


def action_slots(
    state: HUNLState,
    action: Action,
    legal: Sequence[int],
    amounts: Sequence[int],
    abstraction: BetAbstraction,
) -> list[tuple[int, float]]:
    """The menu slots that stand for ``action`` at ``state`` (before it): (slot, weight) pairs summing to 1.

    Fold and check/call are their slots; a raise to a menu amount is that slot,
    and any other raise is translated (:func:`~pokerai.abstraction.bets.translate`).
    A raise where the menu has no raise at all (its street's ``max_raises`` is
    reached) stands for no slot: the list is empty.
    """
    if action.kind is ActionKind.FOLD:
        return [(FOLD_SLOT, 1.0)]
    if action.kind is not ActionKind.RAISE:
        return [(CHECK_CALL_SLOT, 1.0)]
    if all(slot in (FOLD_SLOT, CHECK_CALL_SLOT) for slot in legal):
        return []
    slot = raise_slot(legal, amounts, action.amount)
    return translate(state, action.amount, abstraction) if slot is None else [(slot, 1.0)]


def raise_slot(legal: Sequence[int], amounts: Sequence[int], amount: int) -> int | None:
    """The raise slot among ``legal`` whose chips (``amounts``) are ``amount``; None if the menu has none."""
    raises = (slot for slot in legal if slot not in (FOLD_SLOT, CHECK_CALL_SLOT))
    return next((slot for slot in raises if amounts[slot] == amount), None)


def history_prefix(state: HUNLState, length: int) -> HUNLState:
    """``state``'s hand after its first ``length`` actions, replayed on its deal."""
    replay = HUNLState.new(state.config, state.button, deck=state.deal)
    for action in state.history[:length]:
        replay.apply(action)
    return replay


PREFLOP_CACHE_SIZE = 256
"""Preflop public histories whose blueprint probabilities :func:`public_beliefs` keeps per blueprint
(each float64 ``[1326, num_slots]``, about 85 kB with 8 slots)."""

_PREFLOP_PROBABILITIES: weakref.WeakKeyDictionary[
    Blueprint, OrderedDict[Any, tuple[tuple[int, ...], list[int], npt.NDArray[np.float64]]]
] = weakref.WeakKeyDictionary()


def _history_probabilities(
    blueprint: Blueprint, state: HUNLState, candidates: npt.NDArray[np.int64]
) -> tuple[tuple[int, ...], list[int], npt.NDArray[np.float64]]:
    """:func:`combo_probabilities` (unthresholded) for ``candidates`` at a past decision ``state``.

    A preflop decision does not depend on the board, so its probabilities are asked for all
    1,326 combinations at once and kept per public history (the last
    :data:`PREFLOP_CACHE_SIZE`): every later hand with that preflop history reuses them.
    """
    if state.street != Street.PREFLOP:
        return combo_probabilities(blueprint, state, candidates, 0.0)
    cache = _PREFLOP_PROBABILITIES.setdefault(blueprint, OrderedDict())
    key = (state.config, state.button, tuple(state.history))
    entry = cache.get(key)
    if entry is None:
        entry = combo_probabilities(blueprint, state, np.arange(NUM_COMBOS), 0.0)
        entry[2].flags.writeable = False
        cache[key] = entry
        while len(cache) > max(PREFLOP_CACHE_SIZE, 0):
            cache.popitem(last=False)
    else:
        cache.move_to_end(key)
    legal, amounts, probabilities = entry
    return legal, list(amounts), probabilities[candidates]  # copies: the entry stays as it was


def _bayes_update(
    weights: npt.NDArray[np.float64],
    candidates: npt.NDArray[np.int64],
    raw: npt.NDArray[np.float64],
    pairs: list[tuple[int, float]],
    threshold: float,
    floor: float = 0.0,
) -> None:
    """Multiply ``weights[candidates]`` by ``floor + (1 − floor)·p``, ``p`` the probability of the action
    (slot, weight) ``pairs`` under ``raw`` ``[len(candidates), num_slots]`` thresholded at ``threshold``
    (unthresholded where that leaves no weight), rescaled to a maximum of 1 against underflow. An
    action that leaves no weight either way, or stands for no slot, leaves ``weights`` as they were."""
    if not pairs:  # a raise past the menu's cap: the blueprint has no such action
        return
    for probabilities in (threshold_probabilities(raw, threshold), raw):
        likelihood = sum(weight * probabilities[:, slot] for slot, weight in pairs)
        updated = weights[candidates] * (floor + (1.0 - floor) * likelihood if floor > 0.0 else likelihood)
        if updated.sum() > 0:
            weights[candidates] = updated / updated.max()
            return


def _replay_ranges(
    blueprint: Blueprint,
    state: HUNLState,
    end: int,
    players: Sequence[int],
    thresholds: Sequence[float],
    floor: float = 0.0,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.int64]]:
    """Both players' range weights ``[2, 1326]`` (0 on combinations that hold a board card, not
    normalised) after :func:`_bayes_update` for each action of ``players`` in ``state.history[:end]``
    (the actor's entry of ``thresholds``, ``floor``), and the combinations free of the board."""
    abstraction: BetAbstraction = blueprint.game.bets
    live = np.flatnonzero(~combos_holding(state.board))
    weights = np.zeros((2, NUM_COMBOS))
    weights[:, live] = 1.0
    replay = HUNLState.new(state.config, state.button, deck=state.deal)
    for action in state.history[:end]:
        actor = action.player
        assert replay.to_act == actor, "the history replays on its own deal"
        if actor in players:
            candidates = live[weights[actor, live] > 0]
            legal, amounts, raw = _history_probabilities(blueprint, replay, candidates)
            pairs = action_slots(replay, action, legal, amounts, abstraction)
            _bayes_update(weights[actor], candidates, raw, pairs, thresholds[actor], floor)
        replay.apply(action)
    return weights, live


def public_beliefs(
    blueprint: Blueprint,
    state: HUNLState,
    *,
    threshold: float = 0.0,
    hole_cards: tuple[int, int] | None = None,
    opponent_threshold: float | None = None,
) -> npt.NDArray[np.float64]:
    """Both players' ranges at ``state``: float64 ``[2, 1326]`` by engine player, each row summing to 1.

    ``state`` is an engine state whose history and board are the real ones (its
    hole cards may be placeholders: they are never read). The history is
    replayed from the start of the hand, and each action multiplies the actor's
    range by the blueprint's probability of it (module docstring), with the
    blueprint thresholded at ``threshold``; ``opponent_threshold`` (None: the same),
    if given, is the threshold for the actions of the player *not* to act at
    ``state`` (the searcher's opponent). The searcher's own range follows the
    thresholded blueprint it plays, while an opponent that is not this blueprint
    makes actions the threshold would drop, and a thresholded opponent range can
    shrink to a handful of hands. Combinations that hold a board card
    get 0. With ``hole_cards`` (the cards of ``state.to_act``, the searcher), the
    other player's combinations that hold one of them get 0 too.

    If the blueprint gives an observed action probability 0 for every hand still
    in the actor's range, the unthresholded probabilities are used for that
    action instead, and if those are 0 too the action leaves the range as it
    was: a range never becomes empty. A raise past the menu's ``max_raises``,
    which the blueprint cannot make, leaves the range as it was too.
    """
    if opponent_threshold is not None and state.to_act is None:
        raise ValueError("opponent_threshold needs a player to act at the state (the hand is over)")
    thresholds = [threshold, threshold]
    if opponent_threshold is not None and state.to_act is not None:
        thresholds[1 - state.to_act] = opponent_threshold
    weights, live = _replay_ranges(blueprint, state, len(state.history), (0, 1), thresholds)
    if hole_cards is not None and state.to_act is not None:
        weights[1 - state.to_act, combos_holding(hole_cards)] = 0.0
        if weights[1 - state.to_act].sum() == 0:  # only hands holding our cards were left
            weights[1 - state.to_act, live] = 1.0
            weights[1 - state.to_act, combos_holding(hole_cards)] = 0.0
    result: npt.NDArray[np.float64] = weights / weights.sum(axis=1, keepdims=True)
    return result


def opponent_range(
    blueprint: Blueprint,
    state: HUNLState,
    opponent: int,
    *,
    threshold: float = 0.0,
    floor: float = 0.0,
    until: int | None = None,
) -> npt.NDArray[np.float64]:
    """The range of ``opponent`` at ``state``'s street start: float64 ``[1326]`` summing to 1.

    Bayes' rule from the blueprint over the opponent's actions before the street (or before
    history index ``until``): each multiplies the range by ``floor + (1 − floor)·p``, ``p`` the
    blueprint's probability of the action (thresholded at ``threshold``) holding each
    combination. An off-menu raise counts through its translation. With ``floor`` 0 an action
    no hand in the range would take leaves the range as it was (never empty). Combinations
    that hold a board card get 0.
    """
    if not 0.0 <= floor < 1.0:
        raise ValueError(f"floor {floor!r} must lie in [0, 1)")
    end = state.street_starts[state.street] if until is None else until
    weights, _ = _replay_ranges(blueprint, state, end, (opponent,), [threshold, threshold], floor)
    result: npt.NDArray[np.float64] = weights[opponent] / weights[opponent].sum()
    return result


__all__ = [
    "PREFLOP_CACHE_SIZE",
    "action_slots",
    "combo_probabilities",
    "history_prefix",
    "opponent_range",
    "public_beliefs",
    "raise_slot",
    "threshold_probabilities",
]
