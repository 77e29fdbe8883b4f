"""Real-time search for hold'em on the river: beliefs from the blueprint, a river subgame, one decision.

Endgame re-solving (Ganzfried & Sandholm, "Endgame Solving in Large
Imperfect-Information Games", AAMAS 2015; the river part of Libratus, Brown &
Sandholm, Science 2018): when the river is dealt, the rest of the hand is
small enough to solve at the table. Three steps, all vectorised over the
1,326 two-card combinations:

1. **Beliefs** (:func:`public_beliefs`). Both players' ranges at the current
   public state, by Bayes' rule from the blueprint: start uniform over the
   combinations that hold no board card, and after every action in the
   history multiply the acting player's range by the probability the
   blueprint gives that action holding each combination (one batched network
   call per past decision; a preflop decision's answers for all 1,326
   combinations are kept per preflop history, since they do not depend on the
   board). An opponent raise that is not on the blueprint's
   menu enters through :func:`~pokerai.abstraction.bets.translate`: its
   probability is the sum over the translated slots of weight × blueprint
   probability. The probabilities are the *thresholded* ones the blueprint
   agent plays (:func:`threshold_probabilities`), so a hand that would never
   take an action gets belief 0. (``opponent_threshold`` sets another threshold
   for the opponent's actions: 0 keeps every hand the network plays that way.)
2. **River subgame** (:func:`build_river_subgame`). The public tree from the
   current state to the end of the hand with the blueprint's bet menu (children
   labelled by action slot), optionally with at most ``max_raises`` raises
   inside the search (then only fold and check/call). Its terminals share two
   payoff matrices over the combinations that hold no board card: "valid pair"
   (1 where the two hands share no card) for folds and the showdown sign matrix
   for showdowns, each scaled by the chips at stake. Payoffs are whole-hand chip
   results of engine player 0; subgame players are engine player indices.
   :func:`solve_river` keeps only the combinations one player or the other may
   hold (a few hundred of the 1,081 on the first blueprint's spots, most of them on
   the shipped blueprint's), and the solve applies both matrices
   by a card-removal sweep linear in those hands (:func:`river_card_payoffs`,
   :class:`~pokerai.search.subgame.CardPayoffs`) rather than as ``[H, H]``
   products.
3. **Solve and blend** (:func:`solve_river`, :func:`search_probabilities`,
   :func:`search_decision`). :func:`~pokerai.search.subgame.solve` (CFR+) for
   an iteration budget and an optional time budget; a hand outside the
   searcher's range gets the best response to the solved opponent. Then
   :func:`~pokerai.search.subgame.blend` of the root strategy with the
   blueprint's, weight ``min(iterations done / full iterations, 1)``: 0
   iterations give the blueprint's probabilities exactly.

The solve depends only on the public state: the searcher's range is the
public one (the opponent's view of it), and the opponent's range is not
conditioned on the searcher's hole cards, because card removal for the actual
hand is already in the matrices (a pair that shares a card has payoff 0). So
one solve answers for every hand the searcher could hold, which is what a
local best response asks.
"""

from __future__ import annotations

import dataclasses
import functools
import time
import weakref
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from pokerai.abstraction.bets import (
    CHECK_CALL_SLOT,
    FOLD_SLOT,
    BetAbstraction,
    legal_slot_amounts,
    translate,
)
from pokerai.deepcfr.encoding import NOT_DEALT
from pokerai.engine.cards import NUM_CARDS
from pokerai.engine.evaluator import rank_hands
from pokerai.engine.state import Action, ActionKind, HUNLState, Street
from pokerai.search.subgame import (
    SHARES_NO_CARD,
    SHOWDOWN,
    TERMINAL,
    CardPayoffs,
    Decision,
    Subgame,
    Terminal,
    back_up_values,
    blend,
    inner_solution,
    solve,
    with_resolve_gadget,
)
from pokerai.tabular.blueprint import AnyBlueprint

NUM_COMBOS = NUM_CARDS * (NUM_CARDS - 1) // 2
"""Two-card combinations: 1,326."""

ALL_COMBOS: npt.NDArray[np.int64] = np.array(
    [(first, second) for first in range(NUM_CARDS) for second in range(first + 1, NUM_CARDS)], dtype=np.int64
)
"""The 1,326 hole-card combinations, int64 ``[1326, 2]``, lower card first, in lexicographic order
(local best response uses the same array)."""

COMBO_INDEX: npt.NDArray[np.int64] = np.full((NUM_CARDS, NUM_CARDS), -1, dtype=np.int64)
"""int64 ``[52, 52]``: the index in :data:`ALL_COMBOS` of the combination of two cards (either order);
-1 on the diagonal."""
COMBO_INDEX[ALL_COMBOS[:, 0], ALL_COMBOS[:, 1]] = np.arange(NUM_COMBOS)
COMBO_INDEX[ALL_COMBOS[:, 1], ALL_COMBOS[:, 0]] = np.arange(NUM_COMBOS)

CARD_IN_COMBO: npt.NDArray[np.bool_] = np.zeros((NUM_CARDS, NUM_COMBOS), dtype=np.bool_)
"""bool ``[52, 1326]``: whether card ``c`` is one of combination ``k``'s two cards."""
CARD_IN_COMBO[ALL_COMBOS[:, 0], np.arange(NUM_COMBOS)] = True
CARD_IN_COMBO[ALL_COMBOS[:, 1], np.arange(NUM_COMBOS)] = True

FOLD_MATRIX, SHOWDOWN_MATRIX = 0, 1
"""Indices of the two payoff matrices every river subgame shares."""


def combo_index(first: int, second: int) -> int:
    """The index in :data:`ALL_COMBOS` of the two distinct cards ``first`` and ``second`` (either order)."""
    if not (0 <= first < NUM_CARDS and 0 <= second < NUM_CARDS) or first == second:
        raise ValueError(f"cards ({first}, {second}) are not two distinct card ids 0..{NUM_CARDS - 1}")
    return int(COMBO_INDEX[first, second])


def combos_holding(cards: Sequence[int]) -> npt.NDArray[np.bool_]:
    """bool ``[1326]``: the combinations that hold at least one of ``cards``."""
    if len(cards) == 0:
        return np.zeros(NUM_COMBOS, dtype=np.bool_)
    return np.asarray(CARD_IN_COMBO[list(cards)].any(axis=0), dtype=np.bool_)


# ---------------------------------------------------------------------------- blueprint over all hands


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


def state_record(
    state: HUNLState, player: int, hole_cards: Sequence[int], chip_scale: float = 1.0
) -> tuple[Any, ...]:
    """The ``HUNLEncoder`` record of ``player`` holding ``hole_cards`` at the engine ``state``.

    The same record as :func:`pokerai.agents.blueprint.observation_record` (the
    learning-game seat is 0 on the button); ``chip_scale`` multiplies the chip
    fields (rounded to whole chips) to express another game's chips in the
    blueprint's.
    """
    opponent = 1 - player
    dealt = state.board
    board = [*sorted(dealt[:3]), *dealt[3:]]
    board += [NOT_DEALT] * (5 - len(board))
    owed = max(0, min(state.bets[opponent] - state.bets[player], state.stacks[player]))
    start = state.street_starts[state.street]
    raises = sum(1 for action in state.history[start:] if action.kind is ActionKind.RAISE)

    def chips(amount: int) -> int:
        return amount if chip_scale == 1.0 else round(amount * chip_scale)

    return (
        0 if player == state.button else 1,
        sorted(hole_cards),
        board,
        state.street,
        chips(state.pot),
        chips(state.stacks[player]),
        chips(state.stacks[opponent]),
        chips(owed),
        min(raises, 255),
    )


def combo_probabilities(
    blueprint: AnyBlueprint,
    state: HUNLState,
    combos: npt.NDArray[np.int64],
    threshold: float = 0.0,
) -> tuple[tuple[int, ...], list[int], npt.NDArray[np.float64]]:
    """The blueprint's (thresholded) policy of the player to act holding each of ``combos``: one network call.

    ``combos`` are indices into :data:`ALL_COMBOS` (they must not hold a board
    card). Returns the legal slots, each slot's chips (as
    :func:`~pokerai.abstraction.bets.legal_slot_amounts`) and float64
    ``[len(combos), num_slots]`` probabilities, 0 on illegal slots.
    """
    player = state.to_act
    if player is None:
        raise ValueError("the hand is over, so there is no player to act and no policy to ask")
    abstraction: BetAbstraction = blueprint.game.bets
    legal, amounts = legal_slot_amounts(state, abstraction)
    mask = np.zeros(abstraction.num_slots, dtype=np.bool_)
    mask[list(legal)] = True
    chip_scale = blueprint.game.config.big_blind / state.config.big_blind
    records = np.empty(len(combos), dtype=blueprint.encoder.record_dtype)
    if len(combos):
        records[:] = state_record(state, player, (0, 1), chip_scale)
        records["hole"] = ALL_COMBOS[combos]
    seat = 0 if player == state.button else 1
    probabilities = blueprint.probabilities_batch(
        records, np.broadcast_to(mask, (len(combos), mask.size)), seat
    )
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
    for slot in legal:
        if slot not in (FOLD_SLOT, CHECK_CALL_SLOT) and amounts[slot] == action.amount:
            return [(slot, 1.0)]
    return translate(state, action.amount, abstraction)


PREFLOP_CACHE_SIZE = 256
"""Preflop public histories whose blueprint probabilities :func:`public_beliefs` keeps per blueprint
(each float64 ``[1326, num_slots]``, about 85 kB with 8 slots)."""

_PREFLOP_PROBABILITIES: weakref.WeakKeyDictionary[
    AnyBlueprint, OrderedDict[Any, tuple[tuple[int, ...], list[int], npt.NDArray[np.float64]]]
] = weakref.WeakKeyDictionary()


def _history_probabilities(
    blueprint: AnyBlueprint, state: HUNLState, candidates: npt.NDArray[np.int64]
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


def public_beliefs(
    blueprint: AnyBlueprint,
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
    abstraction: BetAbstraction = blueprint.game.bets
    if opponent_threshold is not None and state.to_act is None:
        raise ValueError("opponent_threshold needs a player to act at the state (the hand is over)")
    thresholds = [threshold, threshold]
    if opponent_threshold is not None and state.to_act is not None:
        thresholds[1 - state.to_act] = opponent_threshold
    board = state.board
    live = np.flatnonzero(~combos_holding(board))
    weights = np.zeros((2, NUM_COMBOS))
    weights[:, live] = 1.0
    replay = HUNLState.new(state.config, state.button, deck=state.deal)
    for action in state.history:
        actor = replay.to_act
        assert actor is not None and actor == action.player, "the history replays on its own deal"
        candidates = live[weights[actor, live] > 0]
        legal, amounts, raw = _history_probabilities(blueprint, replay, candidates)
        pairs = action_slots(replay, action, legal, amounts, abstraction)
        if not pairs:  # a raise past the menu's cap: the blueprint has no such action
            replay.apply(action)
            continue
        for probabilities in (threshold_probabilities(raw, thresholds[actor]), raw):
            likelihood = sum(weight * probabilities[:, slot] for slot, weight in pairs)
            updated = weights[actor, candidates] * likelihood
            if updated.sum() > 0:
                weights[actor, candidates] = updated / updated.max()  # rescaled against underflow
                break
        replay.apply(action)
    if hole_cards is not None and state.to_act is not None:
        weights[1 - state.to_act, combos_holding(hole_cards)] = 0.0
        if weights[1 - state.to_act].sum() == 0:  # only hands holding our cards were left
            weights[1 - state.to_act, live] = 1.0
            weights[1 - state.to_act, combos_holding(hole_cards)] = 0.0
    result: npt.NDArray[np.float64] = weights / weights.sum(axis=1, keepdims=True)
    return result


# ---------------------------------------------------------------------------- river subgame


@functools.lru_cache(maxsize=8)
def river_ranks(board: tuple[int, ...]) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """The combinations free of the five-card ``board`` and their showdown ranks (higher wins).

    Returns ``hands`` int64 ``[H]`` (indices in :data:`ALL_COMBOS`, ascending; H = 1,081) and
    ``ranks`` int64 ``[H]``. Cached for the last few boards (read-only arrays).
    """
    if len(board) != 5 or len(set(board)) != 5:
        raise ValueError(f"a river board is five distinct cards, got {list(board)}")
    hands = np.flatnonzero(~combos_holding(board)).astype(np.int64)
    cards = ALL_COMBOS[hands]
    seven = np.concatenate(
        [cards, np.broadcast_to(np.asarray(board, dtype=np.int64), (len(hands), 5))], axis=1
    )
    ranks = rank_hands(seven, validate=False).astype(np.int64)
    for array in (hands, ranks):
        array.flags.writeable = False
    return hands, ranks


@functools.lru_cache(maxsize=8)
def river_strength(board: tuple[int, ...]) -> npt.NDArray[np.float64]:
    """Each combination's showdown strength on the five-card ``board``: float64 ``[1326]``.

    The share of the other combinations free of the board that it beats, ties counted half (card
    removal ignored): 1 for a nuts no other combination ties, just under 1 when several do; 0 for
    a combination holding a board card. Cached for the last few boards (read-only).
    """
    hands, ranks = river_ranks(board)
    ordered = np.sort(ranks)
    below = np.searchsorted(ordered, ranks, side="left")
    equal = np.searchsorted(ordered, ranks, side="right") - below - 1  # the others of its rank
    strength = np.zeros(NUM_COMBOS)
    strength[hands] = (below + 0.5 * equal) / max(len(hands) - 1, 1)
    strength.flags.writeable = False
    return strength


def opened_river_with_check(history: Sequence[Action], street_starts: Sequence[int], player: int) -> bool:
    """Whether ``player`` made the first action of the river, and it was a check.

    ``street_starts`` is the engine state's (the ``history`` index where each street began).
    """
    if len(street_starts) <= Street.RIVER or street_starts[Street.RIVER] >= len(history):
        return False
    first = history[street_starts[Street.RIVER]]
    return first.player == player and first.kind == ActionKind.CHECK


RESPONSE_SIZES = (0.6, 1.1, 3.0)
"""Upper bounds of the bet-size buckets of :class:`ResponseCounts`, as fractions of the pot
before the bet: up to 0.6, up to 1.1, up to 3, larger (on the shipped menu, all-in)."""
DEFAULT_RESPONSE_PRIOR = 20.0
"""Observations at which the response model is trusted half (the weight is n / (n + prior))."""


def size_bucket(fraction: float) -> int:
    """The bucket of a bet of ``fraction`` of the pot before it: 0 to 3 (:data:`RESPONSE_SIZES`)."""
    return sum(fraction > bound for bound in RESPONSE_SIZES)


@dataclass(frozen=True)
class ResponseCounts:
    """How often the opponent folded, called and raised to the searcher's first river bet.

    ``counts[context][bucket]`` is ``(folds, calls, raises)``; ``context`` 1 when the opponent
    had checked first on the river, 0 when the searcher opened; ``bucket`` by
    :func:`size_bucket`. ``prior`` as :data:`DEFAULT_RESPONSE_PRIOR`. Hashable, so a solve
    can be cached on it.
    """

    counts: tuple[tuple[tuple[int, int, int], ...], ...]
    prior: float = DEFAULT_RESPONSE_PRIOR

    def shares(self, context: int, fraction: float) -> tuple[float, float, float] | None:
        """``(weight, fold share, raise share)`` for a bet of ``fraction`` of the pot, or None
        when no such bet was answered yet; ``weight`` is n / (n + prior)."""
        folds, calls, raises = self.counts[context][size_bucket(fraction)]
        total = folds + calls + raises
        if total == 0:
            return None
        return total / (total + self.prior), folds / total, raises / total


CAP_FLOOR = 0.05
"""The factor :func:`capped_beliefs` leaves on an opponent hand above its cap (not 0, so that a
cap learnt from too few showdowns cannot empty a range that holds only such hands)."""


def capped_beliefs(
    beliefs: npt.NDArray[np.float64], board: tuple[int, ...], opponent: int, cap: float
) -> npt.NDArray[np.float64]:
    """``beliefs`` float64 ``[2, 1326]`` with ``opponent``'s hands stronger than ``cap`` (by
    :func:`river_strength` on ``board``) weighted :data:`CAP_FLOOR` times, rows summing to 1 again."""
    if not 0.0 <= cap <= 1.0:
        raise ValueError(f"a strength cap is a number in [0, 1], got {cap!r}")
    result = beliefs.copy()
    above = river_strength(tuple(board)) > cap
    if not np.any(result[opponent, above] > 0):  # nothing to cap: the same beliefs, to the bit
        return result
    result[opponent, above] *= CAP_FLOOR
    total = result[opponent].sum()
    if total > 0:
        result[opponent] /= total
    else:  # not reached while the beliefs row sums to 1
        result[opponent] = beliefs[opponent]
    return result


COMBO_BITS: npt.NDArray[np.uint64] = (np.uint64(1) << ALL_COMBOS[:, 0].astype(np.uint64)) | (
    np.uint64(1) << ALL_COMBOS[:, 1].astype(np.uint64)
)
"""uint64 ``[1326]``: each combination's two cards as bits (two combinations share a card where the
bitwise and of theirs is not 0)."""


def river_pair_matrices(
    board: tuple[int, ...], rows: npt.NDArray[np.int64], columns: npt.NDArray[np.int64]
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """The valid-pair and showdown blocks of :func:`river_matrices` for ``rows`` against ``columns``.

    ``rows`` and ``columns`` are combinations free of the five-card ``board`` (indices in
    :data:`ALL_COMBOS`, ascending or not). Returns float64 ``[len(rows), len(columns)]``
    blocks, computed from the card bits and the showdown ranks directly, without the
    whole board's ``[1081, 1081]`` matrices. ValueError if a combination holds a board card.
    """
    possible, ranks = river_ranks(board)
    indices = []
    for hands in (rows, columns):
        where = np.searchsorted(possible, hands)
        found = possible[np.minimum(where, len(possible) - 1)]
        if np.any(where >= len(possible)) or np.any(found != hands):
            listed = np.asarray(hands).tolist()
            raise ValueError(f"hands {listed} are not all combinations free of board cards")
        indices.append(where)
    valid = (COMBO_BITS[rows][:, np.newaxis] & COMBO_BITS[columns][np.newaxis, :]) == 0
    row_ranks, column_ranks = ranks[indices[0]], ranks[indices[1]]
    wins = np.greater.outer(row_ranks, column_ranks).astype(np.int8)
    showdown = wins - np.less.outer(row_ranks, column_ranks)
    return valid.astype(np.float64), np.where(valid, showdown, 0).astype(np.float64)


@functools.lru_cache(maxsize=8)
def river_matrices(
    board: tuple[int, ...],
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """The hands and the two shared payoff matrices of a river subgame on the five-card ``board``.

    Returns ``hands`` int64 ``[H]`` (as :func:`river_ranks`) and float64 ``[H, H]``
    matrices: the valid-pair matrix (1 where the two hands share no card, else 0) and the
    showdown matrix (+1 where hand ``i`` beats hand ``j``, −1 where it loses, 0 on ties and
    invalid pairs). Cached for the last few boards (read-only arrays). The river search
    builds only the blocks it needs (:func:`river_pair_matrices`).
    """
    hands, _ = river_ranks(board)
    valid, showdown = river_pair_matrices(board, hands, hands)
    for array in (valid, showdown):
        array.flags.writeable = False
    return hands, valid, showdown


def river_card_payoffs(board: Sequence[int], hands: npt.NDArray[np.int64]) -> CardPayoffs:
    """The card structure of a river subgame's fold and showdown matrices over ``hands``.

    ``hands`` are the subgame's combinations (indices in :data:`ALL_COMBOS`, free of the
    board). :func:`~pokerai.search.subgame.solve` then applies those two matrices in time
    linear in the hands instead of quadratic.
    """
    possible, ranks = river_ranks(tuple(board))
    rows = np.searchsorted(possible, hands)
    return CardPayoffs(
        cards=ALL_COMBOS[hands].astype(np.int64),
        ranks=ranks[rows],
        kinds={FOLD_MATRIX: SHARES_NO_CARD, SHOWDOWN_MATRIX: SHOWDOWN},
    )


def menu_children(
    state: HUNLState, abstraction: BetAbstraction, raises: int, max_raises: int | None
) -> list[tuple[int, HUNLState, int]]:
    """The children of a search tree's decision ``state`` on the menu: (slot, child state, raises so far).

    Fold and check/call are always there when legal; a raise slot only while ``raises`` is
    below ``max_raises`` (None: no cap), and it counts one more raise.
    """
    legal, amounts = legal_slot_amounts(state, abstraction)
    children: list[tuple[int, HUNLState, int]] = []
    for slot in legal:
        if slot == FOLD_SLOT:
            children.append((slot, state.after(ActionKind.FOLD), raises))
        elif slot == CHECK_CALL_SLOT:
            children.append((slot, state.after(ActionKind.CALL), raises))
        elif max_raises is None or raises < max_raises:
            children.append((slot, state.after(ActionKind.RAISE, amounts[slot]), raises + 1))
    return children


def breadth_first(root: Decision | Terminal) -> list[Decision | Terminal]:
    """The nodes of a nested description in :meth:`~pokerai.search.subgame.Subgame.from_nested`'s order."""
    order: list[Decision | Terminal] = [root]
    for nested in order:
        if isinstance(nested, Decision):
            order.extend(child for _, child in nested.children)
    return order


@dataclass(frozen=True, eq=False)
class RiverSubgame:
    """A river subgame (module docstring) and how it maps back to the game.

    Attributes:
        subgame: the public tree; subgame player ``p`` is engine player ``p``.
        hands: int64 ``[H]``, the :data:`ALL_COMBOS` index of each subgame hand.
        root_slots: the action slot of each child of the root, in child order.
        root_player: the engine player to act at the root (the searcher).
        board: the five board cards.
        root: the nested description the subgame was laid out from.
        decision_states: the engine state at each decision node, by node index.
    """

    subgame: Subgame
    hands: npt.NDArray[np.int64]
    root_slots: tuple[int, ...]
    root_player: int
    board: tuple[int, ...]
    root: Decision | None = None
    decision_states: dict[int, HUNLState] | None = None


def build_river_subgame(
    state: HUNLState,
    abstraction: BetAbstraction,
    beliefs: npt.ArrayLike,
    *,
    max_raises: int | None = None,
    hands: npt.ArrayLike | None = None,
) -> RiverSubgame:
    """The public tree from the river ``state`` to the end of the hand on the menu of ``abstraction``.

    ``beliefs`` float ``[2, 1326]`` (by engine player) is the root reach.
    ``hands`` (indices into :data:`ALL_COMBOS`, none holding a board card;
    default: every such combination) are the subgame's hands: leaving out the
    hands that neither player can hold makes the solve faster (linearly with the card
    sweep of :func:`river_card_payoffs`, by the square with dense products). With
    ``max_raises``, at most that many raises are made inside the tree, after
    which a player may only fold, check or call. Terminals: a fold scales the
    valid-pair matrix by engine player 0's chip result, a showdown scales the
    showdown matrix by the chips each player has in the pot.
    """
    if state.street != Street.RIVER or state.to_act is None:
        raise ValueError(f"river search needs a river decision, got {state!r}")
    if max_raises is not None and (isinstance(max_raises, bool) or max_raises < 0):
        raise ValueError(f"max_raises {max_raises!r} is not a non-negative whole number")
    reach = np.asarray(beliefs, dtype=np.float64)
    if reach.shape != (2, NUM_COMBOS):
        raise ValueError(f"beliefs must have shape [2, {NUM_COMBOS}], got {list(reach.shape)}")
    board = tuple(state.board)
    if hands is None:
        hands, valid, showdown = river_matrices(board)
    else:
        hands = np.asarray(hands, dtype=np.int64)
        valid, showdown = river_pair_matrices(board, hands, hands)  # ValueError on a board card

    states: dict[int, HUNLState] = {}

    def node(current: HUNLState, raises: int) -> Decision | Terminal:
        if current.is_over:
            if current.folded is not None:
                return Terminal(FOLD_MATRIX, float(current.returns()[0]))
            assert current.committed[0] == current.committed[1], (
                "uncalled chips are returned before a showdown"
            )
            return Terminal(SHOWDOWN_MATRIX, float(current.committed[0]))
        player = current.to_act
        assert player is not None
        children: list[tuple[Any, Decision | Terminal]] = [
            (slot, node(child, child_raises))
            for slot, child, child_raises in menu_children(current, abstraction, raises, max_raises)
        ]
        decision = Decision(player, children)
        states[id(decision)] = current
        return decision

    root = node(state.clone(), 0)
    assert isinstance(root, Decision)
    subgame = Subgame.from_nested(root, [valid, showdown], reach[:, hands])
    order = breadth_first(root)
    return RiverSubgame(
        subgame=subgame,
        hands=hands,
        root_slots=tuple(int(label) for label, _ in root.children),
        root_player=int(root.player),
        board=tuple(state.board),
        root=root,
        decision_states={
            index: states[id(nested)] for index, nested in enumerate(order) if id(nested) in states
        },
    )


def blueprint_layout(
    blueprint: AnyBlueprint,
    subgame: Subgame,
    decision_states: dict[int, HUNLState],
    hands: npt.NDArray[np.int64],
    threshold: float = 0.0,
) -> npt.NDArray[np.float64]:
    """The blueprint in :attr:`~pokerai.search.subgame.Solution.average` layout at ``decision_states``.

    One batched network call per decision (its engine state in ``decision_states``) over
    ``hands``; where a raise cap removed slots, the remaining children are renormalised
    (uniform when none of them has probability). Other rows are 1.
    """
    strategy = np.ones((subgame.num_nodes, subgame.num_hands))
    for node, node_state in decision_states.items():
        _, _, probabilities = combo_probabilities(blueprint, node_state, hands, threshold)
        children = subgame.children(node)
        slots = [int(subgame.label[child]) for child in children]
        rows = probabilities[:, slots].T  # [children, H]
        totals = rows.sum(axis=0)
        strategy[children.start : children.stop] = np.where(
            totals > 0, rows / np.where(totals > 0, totals, 1.0), 1.0 / len(slots)
        )
    return strategy


def river_blueprint_strategy(
    blueprint: AnyBlueprint, river: RiverSubgame, threshold: float = 0.0
) -> npt.NDArray[np.float64]:
    """The blueprint in :attr:`~pokerai.search.subgame.Solution.average` layout for ``river.subgame``.

    :func:`blueprint_layout` at every decision of the river tree.
    """
    assert river.decision_states is not None
    return blueprint_layout(blueprint, river.subgame, river.decision_states, river.hands, threshold)


# ---------------------------------------------------------------------------- one search decision


@dataclass(frozen=True)
class RiverSolution:
    """The solved root of a river subgame for every hand of the searcher.

    Attributes:
        strategy: float64 ``[1326, num_slots]``, the searcher's strategy at the
            root for each combination (0 on slots not at the root; rows of
            combinations that hold a board card are 0): the solver's average
            strategy for hands in its range, a best response to the solved
            opponent for hands outside it.
        iterations: CFR+ iterations run.
        seconds: wall-clock time of beliefs, tree and solve together.
        num_nodes: nodes of the subgame tree.
        num_hands: hands of the subgame (combinations either player may hold).
    """

    strategy: npt.NDArray[np.float64]
    iterations: int
    seconds: float
    num_nodes: int
    num_hands: int = 0


def with_any_allin(abstraction: BetAbstraction) -> BetAbstraction:
    """``abstraction`` with all-in on the river menu at any size (its ``all_in_max_pots`` lifted).

    A finer menu for the river search (``river_allin``): the slots stay the blueprint's, so
    the solved strategy maps onto the same action slots, but the all-in slot is also legal
    where it would be an overbet beyond the blueprint menu's limit. The river subgame needs
    no blueprint values at its leaves (it ends at showdowns and folds), so both players'
    answers to such all-ins are solved, not read from a network that never met them (except
    that the safe gadget's opt-out values ask the network at every node, these included).
    A menu whose largest pot fraction exceeds its all-in cap is a ``ValueError``: there a
    fraction clamped to the stack is the blueprint's all-in, which would change slot.
    """
    river = abstraction.river
    if not river.all_in:
        raise ValueError("the blueprint's river menu has no all-in slot to open")
    if river.all_in_max_pots > 0 and river.pot_fractions and river.pot_fractions[-1] > river.all_in_max_pots:
        # A fraction above the cap can be the blueprint's all-in (clamped to the stack) where the open
        # menu gives that amount to the all-in slot, so the two menus' slots would disagree.
        raise ValueError(
            f"the river menu's largest pot fraction {river.pot_fractions[-1]:g} exceeds its all-in cap of "
            f"{river.all_in_max_pots:g} pots, so opening the all-in would move a blueprint slot"
        )
    return dataclasses.replace(abstraction, river=dataclasses.replace(river, all_in_max_pots=0.0))


def solve_river(
    blueprint: AnyBlueprint,
    state: HUNLState,
    *,
    iterations: int,
    time_budget_s: float | None = None,
    threshold: float = 0.0,
    max_raises: int | None = None,
    safe: bool = False,
    bets: BetAbstraction | None = None,
    opponent_threshold: float | None = None,
    opponent_cap: float | None = None,
    opponent_responses: ResponseCounts | None = None,
) -> RiverSolution:
    """Beliefs, river subgame and CFR+ at the river decision ``state`` (module docstring).

    ``bets`` is the menu of the subgame tree (default: the blueprint's); it must have the
    blueprint's slots (as :func:`with_any_allin` keeps them). Beliefs always use the
    blueprint's menu; ``opponent_threshold`` is :func:`public_beliefs`'s. ``opponent_cap``
    (None: none), if the opponent opened the river with a check, keeps only
    :data:`CAP_FLOOR` of the belief in each opponent hand of :func:`river_strength` above it
    (:func:`capped_beliefs`): a model, learnt from its showdowns, of an opponent that checks
    only hands up to that strength (:mod:`pokerai.agents.opponent`). ``opponent_responses``
    (None: none; not with ``safe``) mixes a model of how the opponent answers the
    searcher's first river bet into the solve (:func:`response_strategies`).

    With ``safe`` the subgame starts with the re-solving gadget
    (:func:`~pokerai.search.subgame.with_resolve_gadget`): the opponent may take,
    hand by hand, its best-response value against the blueprint instead of
    entering, and its root reach is half beliefs, half uniform over the
    subgame's hands. That costs one blueprint call per decision node.

    The subgame holds only the combinations that one player or the other may
    hold (positive belief), often fewer than the 1,081 free of the board. A hand
    outside the searcher's range (one the blueprint would not have
    played this way, such as a hand whose earlier river actions were searched)
    gets the best response to the solved opponent strategy (pure, the most
    passive action on ties). Depends only on the public part of ``state`` (its
    hole cards are never read). With 0 iterations nothing is solved and the
    strategy is all zeros.
    """
    started = time.perf_counter()
    num_slots = blueprint.game.bets.num_slots
    if iterations == 0:
        return RiverSolution(np.zeros((NUM_COMBOS, num_slots)), 0, time.perf_counter() - started, 0)
    beliefs = public_beliefs(blueprint, state, threshold=threshold, opponent_threshold=opponent_threshold)
    searcher = state.to_act
    assert searcher is not None
    if opponent_cap is not None and opened_river_with_check(state.history, state.street_starts, 1 - searcher):
        beliefs = capped_beliefs(beliefs, state.board, 1 - searcher, opponent_cap)
    hands = np.flatnonzero((beliefs[0] > 0) | (beliefs[1] > 0))
    menu = blueprint.game.bets if bets is None else bets
    if menu.num_slots != num_slots:
        raise ValueError(f"a search menu of {menu.num_slots} slots does not fit the blueprint's {num_slots}")
    river = build_river_subgame(state, menu, beliefs, max_raises=max_raises, hands=hands)
    solved_game = river.subgame
    fixed = None
    if opponent_responses is not None:
        if safe:
            raise ValueError("opponent_responses does not work with the safe gadget")
        fixed = response_strategies(river, opponent_responses)
    if safe:
        assert river.root is not None
        solved_game = with_resolve_gadget(
            river.root,
            river.subgame,
            river_blueprint_strategy(blueprint, river, threshold),
            searcher,
            valid=FOLD_MATRIX,
            uniform_weight=0.5,
        )
    structure = river_card_payoffs(state.board, river.hands)  # the gadget keeps matrices 0 and 1
    remaining = None if time_budget_s is None else max(0.0, time_budget_s - (time.perf_counter() - started))
    solution = solve(solved_game, iterations, time_budget_s=remaining, card_payoffs=structure, fixed=fixed)
    if safe:
        solution = inner_solution(solution, river.subgame)
    slots = np.asarray(river.root_slots)
    strategy = np.zeros((NUM_COMBOS, num_slots))
    possible = river_ranks(tuple(state.board))[0]
    outside = possible[beliefs[searcher, possible] == 0]
    if len(outside):
        values = _best_response_root_values(river, solution.average, outside)  # [children, outside]
        # Ties go to the most passive action: check/call first, then fold, then raises by size.
        order = np.argsort(
            [0 if slot == CHECK_CALL_SLOT else 1 if slot == FOLD_SLOT else slot for slot in slots]
        )
        best = order[np.argmax(values[order], axis=0)]
        strategy[outside, slots[best]] = 1.0
    inside = np.flatnonzero(beliefs[searcher, river.hands] > 0)
    strategy[np.ix_(river.hands[inside], slots)] = solution.strategy(river.subgame, 0)[inside]
    return RiverSolution(
        strategy,
        solution.iterations,
        time.perf_counter() - started,
        river.subgame.num_nodes,
        river.subgame.num_hands,
    )


def response_strategies(
    river: RiverSubgame, counts: ResponseCounts
) -> dict[int, tuple[float, npt.NDArray[np.float64]]]:
    """The opponent's modelled answers to the searcher's first river bet, for :func:`solve`'s ``fixed``.

    Only where the searcher opens the betting at the root (nothing to call): for each of
    its bets, the node where the opponent answers gets the strategy that folds the weakest
    hands of the opponent's root range (by :func:`river_strength`, weighted by its reach)
    with the fold share of ``counts``, raises the strongest with the raise share (spread
    evenly over the raise children; a call where none is left) and calls with the rest,
    trusted with ``counts``' weight. A bet size ``counts`` has never seen gets no model.
    """
    subgame = river.subgame
    root, states = river.root, river.decision_states
    assert root is not None and states is not None
    if states[0].call_amount != 0:
        return {}
    searcher = river.root_player
    opponent = 1 - searcher
    context = int(opened_river_with_check(states[0].history, states[0].street_starts, opponent))
    reach = subgame.reach[opponent]
    total = reach.sum()
    if total <= 0:
        return {}
    strength = river_strength(river.board)[river.hands]
    order = np.argsort(strength, kind="stable")
    weakest_share = np.empty(len(order))  # the share of the range below each hand's middle
    weakest_share[order] = (np.cumsum(reach[order]) - reach[order] / 2) / total
    fixed: dict[int, tuple[float, npt.NDArray[np.float64]]] = {}
    for node, (slot, nested) in zip(subgame.children(0), root.children, strict=True):
        if slot in (FOLD_SLOT, CHECK_CALL_SLOT) or not isinstance(nested, Decision):
            continue
        # The bet as a fraction of the pot before it, as RiverResponses counts it.
        shares = counts.shares(context, states[node].bets[searcher] / states[0].pot)
        if shares is None:
            continue
        weight, fold_share, raise_share = shares
        labels = [int(label) for label, _ in nested.children]
        raises = [index for index, label in enumerate(labels) if label not in (FOLD_SLOT, CHECK_CALL_SLOT)]
        call = labels.index(CHECK_CALL_SLOT)
        strategy = np.zeros((len(river.hands), len(labels)))
        folds = weakest_share < fold_share
        raising = (weakest_share > 1.0 - raise_share) & ~folds
        strategy[folds, labels.index(FOLD_SLOT)] = 1.0
        strategy[~folds & ~raising, call] = 1.0
        if raises:
            strategy[np.ix_(np.flatnonzero(raising), np.asarray(raises, dtype=np.int64))] = 1.0 / len(raises)
        else:
            strategy[raising, call] = 1.0
        fixed[node] = (weight, strategy)
    return fixed


def _best_response_root_values(
    river: RiverSubgame, average: npt.NDArray[np.float64], hands: npt.NDArray[np.int64]
) -> npt.NDArray[np.float64]:
    """float64 ``[root children, len(hands)]``: the searcher's best-response value of each root action.

    For ``hands`` (combination indices, none holding a board card, any of them
    outside the subgame's hands) against the opponent playing ``average`` (the
    :attr:`~pokerai.search.subgame.Solution.average` layout) from its root
    beliefs; deeper decisions of the searcher take their best child.
    """
    subgame = river.subgame
    searcher, opponent = river.root_player, 1 - river.root_player
    reach = np.empty((subgame.num_nodes, subgame.num_hands))
    reach[0] = subgame.reach[opponent]
    for node in subgame.decisions:  # parents before children
        children = subgame.children(node)
        own = subgame.player[node] == opponent
        reach[children.start : children.stop] = (
            reach[node] * average[children.start : children.stop] if own else reach[node]
        )
    # Player 0's payoff is M[i, j] with player 0 holding i; player 1 holding i gets -M[j, i].
    if searcher == 0:
        blocks = river_pair_matrices(river.board, hands, river.hands)  # [len(hands), subgame hands]
    else:
        blocks = tuple(-block.T for block in river_pair_matrices(river.board, river.hands, hands))
    values = np.zeros((subgame.num_nodes, len(hands)))
    for matrix_index in (FOLD_MATRIX, SHOWDOWN_MATRIX):
        nodes = np.flatnonzero((subgame.kind == TERMINAL) & (subgame.matrix == matrix_index))
        if not len(nodes):
            continue
        block = blocks[matrix_index]
        values[nodes] = subgame.scale[nodes, np.newaxis] * (reach[nodes] @ block.T)
    back_up_values(subgame, values, searcher, None)
    root = subgame.children(0)
    result: npt.NDArray[np.float64] = values[root.start : root.stop]
    return result


def search_probabilities(
    blueprint_probabilities: npt.ArrayLike,
    solution: RiverSolution,
    hole_cards: Sequence[int],
    full_iterations: int,
) -> npt.NDArray[np.float64]:
    """The searched policy of the hand ``hole_cards``: float64 ``[num_slots]``.

    :func:`~pokerai.search.subgame.blend` of the blueprint's probabilities for
    this hand (float ``[num_slots]``) with the solved root strategy, weight
    ``min(solution.iterations / full_iterations, 1)``; with 0 iterations the
    blueprint's probabilities come back exactly.
    """
    local = solution.strategy[combo_index(int(hole_cards[0]), int(hole_cards[1]))]
    return blend(
        np.asarray(blueprint_probabilities, dtype=np.float64), local, solution.iterations, full_iterations
    )


def search_decision(
    blueprint: AnyBlueprint,
    state: HUNLState,
    hole_cards: tuple[int, int],
    *,
    iterations: int,
    full_iterations: int,
    time_budget_s: float | None = None,
    threshold: float = 0.0,
    max_raises: int | None = None,
) -> npt.NDArray[np.float64]:
    """The searched policy of the player to act at river ``state`` with ``hole_cards``.

    Returns float64 ``[num_slots]``: :func:`solve_river` then
    :func:`search_probabilities` against the blueprint's (thresholded)
    probabilities for this hand, which come back exactly with 0 iterations.
    :class:`pokerai.agents.search.SearchAgent` does the same with a cache of
    solutions per public state.
    """
    hand = np.array([combo_index(*hole_cards)], dtype=np.int64)
    blueprint_probabilities = combo_probabilities(blueprint, state, hand, threshold)[2][0]
    solution = solve_river(
        blueprint,
        state,
        iterations=iterations,
        time_budget_s=time_budget_s,
        threshold=threshold,
        max_raises=max_raises,
    )
    return search_probabilities(blueprint_probabilities, solution, hole_cards, full_iterations)


__all__ = [
    "ALL_COMBOS",
    "CAP_FLOOR",
    "CARD_IN_COMBO",
    "COMBO_BITS",
    "COMBO_INDEX",
    "DEFAULT_RESPONSE_PRIOR",
    "FOLD_MATRIX",
    "NUM_COMBOS",
    "PREFLOP_CACHE_SIZE",
    "RESPONSE_SIZES",
    "SHOWDOWN_MATRIX",
    "ResponseCounts",
    "RiverSolution",
    "RiverSubgame",
    "action_slots",
    "blueprint_layout",
    "breadth_first",
    "build_river_subgame",
    "capped_beliefs",
    "combo_index",
    "combo_probabilities",
    "combos_holding",
    "menu_children",
    "opened_river_with_check",
    "public_beliefs",
    "response_strategies",
    "river_card_payoffs",
    "river_matrices",
    "river_pair_matrices",
    "river_ranks",
    "river_strength",
    "search_decision",
    "search_probabilities",
    "size_bucket",
    "solve_river",
    "state_record",
    "threshold_probabilities",
    "with_any_allin",
]
