"""The search side of the opponent models learnt during a match (:mod:`pokerai.agents.opponent`).

Two models change the river search against an opponent that does not play like the
blueprint:

* the **check cap** (:class:`~pokerai.agents.opponent.RiverCheckCap`): once the opponent
  opened the river with a check (:func:`opened_river_with_check`), :func:`capped_beliefs`
  keeps only :data:`CAP_FLOOR` of its belief in each hand whose
  :func:`~pokerai.search.showdown.river_strength` is above the cap learnt from
  :data:`DEFAULT_MIN_SHOWDOWNS` (by default) of its showdowns;
* the **answers to a bet** (:class:`~pokerai.agents.opponent.BetResponses`): how often
  the opponent folded, called and raised to the searcher's first river bet, by bet size
  (:func:`size_bucket`) and by whether it had checked first (:class:`ResponseCounts`);
  :func:`response_strategies` turns the counts into the opponent's strategies that
  :func:`~pokerai.search.subgame.solve` mixes into its answers.

:func:`~pokerai.search.river.solve_river` applies both; the street pipeline
(:func:`~pokerai.search.street.solve_street`) applies the answers, with
:func:`street_response_strategies`, on the river and (``response_streets: postflop``) on the
flop and turn too, where :func:`street_strength` ranks the opponent's hands; with
``response_raises`` also to the searcher's raises over the opponent's bets and raises
(:data:`RAISE_CONTEXT`).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from pokerai.abstraction.bets import CHECK_CALL_SLOT, FOLD_SLOT
from pokerai.engine.state import Action, ActionKind, HUNLState, Street
from pokerai.search.combos import NUM_COMBOS, combos_holding
from pokerai.search.showdown import river_strength
from pokerai.search.subgame import Decision

if TYPE_CHECKING:  # river and street import this module: the annotations only
    from pokerai.search.river import RiverSubgame
    from pokerai.search.street import StreetTree


def opened_with_check(
    history: Sequence[Action], street_starts: Sequence[int], player: int, street: int
) -> bool:
    """Whether ``player`` made the first action of ``street``, and it was a check.

    ``street_starts`` is the engine state's (the ``history`` index where each street began).
    """
    if len(street_starts) <= street or street_starts[street] >= len(history):
        return False
    first = history[street_starts[street]]
    return first.player == player and first.kind == ActionKind.CHECK


def opened_river_with_check(history: Sequence[Action], street_starts: Sequence[int], player: int) -> bool:
    """:func:`opened_with_check` on the river."""
    return opened_with_check(history, street_starts, player, Street.RIVER)


_uncached_river_strength = river_strength.__wrapped__
"""Runout boards are seen once: they stay out of :func:`river_strength`'s cache of the boards being played."""


def answer_context(actions: Sequence[Action], index: int, opening: int) -> int | None:
    """The :class:`ResponseCounts` context of the answer to the raise ``actions[index]`` (a street's
    actions from its start), or None when that raise is not one the model counts.

    ``opening`` is 1 when the raiser's opponent opened the street with a check, else 0: the raise
    at that index is the street's first bet, and its context is ``opening``. A later raise made
    over a bet or raise of the opponent has :data:`RAISE_CONTEXT`.
    """
    raiser = actions[index].player
    if index == opening:
        return opening
    if any(action.player != raiser and action.kind == ActionKind.RAISE for action in actions[:index]):
        return RAISE_CONTEXT
    return None


STRENGTH_RUNOUTS = 8
"""Runouts that :func:`street_strength` averages on the flop and the turn."""


@functools.lru_cache(maxsize=4)
def street_strength(board: tuple[int, ...]) -> npt.NDArray[np.float64]:
    """Each combination's strength on a board of 3 to 5 cards: float64 ``[1326]``, read-only.

    On the river :func:`~pokerai.search.showdown.river_strength`. On the flop and the turn its
    mean over :data:`STRENGTH_RUNOUTS` runouts drawn with a seed taken from ``board`` (the same
    board, the same runouts), each combination averaged over the runouts that leave its cards
    free; 0 for a combination holding a board card.
    """
    if len(board) == 5:
        return river_strength(board)
    if len(board) not in (3, 4):
        raise ValueError(f"a board has 3 to 5 cards, got {len(board)}")
    rng = np.random.default_rng([*board, len(board)])
    rest = np.setdiff1d(np.arange(52), board)
    total, weight = np.zeros(NUM_COMBOS), np.zeros(NUM_COMBOS)
    for _ in range(STRENGTH_RUNOUTS):
        runout = tuple(int(card) for card in rng.choice(rest, 5 - len(board), replace=False))
        free = ~combos_holding(runout)
        total[free] += _uncached_river_strength((*board, *runout))[free]
        weight[free] += 1.0
    strength = np.where(weight > 0, total / np.where(weight > 0, weight, 1.0), 0.0)
    strength[combos_holding(board)] = 0.0
    strength.flags.writeable = False
    return strength


RESPONSE_SIZES = (0.6, 1.1, 3.0)
"""Upper bounds of the bet-size buckets of :class:`ResponseCounts`, as fractions of the pot
before the bet: up to 0.6, up to 1.1, up to 3, larger (on the shipped menu, all-in)."""
RAISE_CONTEXT = 2
"""The context of :class:`ResponseCounts` for the answers to a raise of the searcher over a bet or raise
of the opponent on the same street (counted only with ``response_raises``)."""
AGGRESSION_REFERENCE = (0.589, 0.291)
"""The share of raises at the postflop decisions where raising is legal, with nothing to call and
facing a bet or raise (:class:`~pokerai.agents.opponent.Aggression`'s contexts), of the shipped
blueprint ``checkpoints/hunl_tiny`` without a threshold (the solve's model of the opponent with
``opponent_threshold: 0``) in 5,000 duplicate pairs against itself (``experiments/aggression.py``)."""
SHOWN_REFERENCE = 0.579
"""The mean :func:`street_strength` of the blueprint's hands at its postflop bets and raises in the
hands it showed down, in the games of :data:`AGGRESSION_REFERENCE`
(:meth:`~pokerai.agents.opponent.Aggression.weakness`)."""
OVERBET = RESPONSE_SIZES[2]
"""A raise by more than this many times the pot (:func:`raise_fraction`) is an overbet, for
:class:`~pokerai.agents.opponent.Aggression`. The shipped blueprint ``checkpoints/hunl_tiny``
made none at its 9,215 postflop decisions where raising was legal in the games of
:data:`AGGRESSION_REFERENCE` (its largest menu bet is below it, and its all-ins there were too), so
the reference share of overbets is 0."""
MAX_PATH_FLOOR = 0.9
"""The largest floor :class:`~pokerai.agents.opponent.Aggression` puts on a path action."""


@dataclass(frozen=True)
class PathFloors:
    """Floors on the opponent's actions on the street's path, learnt from its aggression.

    ``floors[context]`` is ``(passive, aggressive)``: the floor on a check, call or fold, and on a
    bet or raise, with ``context`` 0 when nothing was to call and 1 facing a bet or raise.
    ``overbets[context]`` is the floor on a raise of more than :data:`OVERBET` pots there, where it
    is larger than the aggressive one. Hashable, so a solve can be cached on it.
    """

    floors: tuple[tuple[float, float], tuple[float, float]]
    overbets: tuple[float, float] = (0.0, 0.0)

    def floor(self, context: int, aggressive: bool, overbet: bool = False) -> float:
        """The floor on an action of the opponent: a raise when ``aggressive``, of more than
        :data:`OVERBET` pots when also ``overbet``, in ``context``."""
        floor = self.floors[context][int(aggressive)]
        if aggressive and overbet:
            floor = max(floor, self.overbets[context])
        return floor


DEFAULT_RESPONSE_PRIOR = 20.0
"""Observations at which the response model is trusted half (the weight is n / (n + prior))."""


def raise_fraction(state: HUNLState, raise_to: int) -> float:
    """The size of a raise to ``raise_to`` by the player to act in ``state``, in pots: the chips
    it adds beyond a call over the pot after that call (a first bet over the pot; 1 for a pot-size
    raise)."""
    player = state.to_act
    if player is None:
        raise ValueError("no one is to act: the hand is over")
    level = state.bets[1 - player]
    return (raise_to - level) / (state.pot + state.call_amount)


def size_bucket(fraction: float) -> int:
    """The bucket of a bet of ``fraction`` of the pot before it: 0 to 3 (:data:`RESPONSE_SIZES`)."""
    return sum(fraction > bound for bound in RESPONSE_SIZES)


@dataclass(frozen=True)
class ResponseCounts:
    """How often the opponent folded, called and raised to the searcher's first river bet.

    ``counts[context][bucket]`` is ``(folds, calls, raises)``; ``context`` 1 when the opponent
    had checked first on the street, 0 when the searcher opened, and (a third row, when counted)
    :data:`RAISE_CONTEXT` for a raise of the searcher over the opponent's bet or raise; ``bucket`` by
    :func:`size_bucket`. ``prior`` as :data:`DEFAULT_RESPONSE_PRIOR`. Hashable, so a solve
    can be cached on it.
    """

    counts: tuple[tuple[tuple[int, int, int], ...], ...]
    prior: float = DEFAULT_RESPONSE_PRIOR

    def shares(self, context: int, fraction: float) -> tuple[float, float, float] | None:
        """``(weight, fold share, raise share)`` for a bet of ``fraction`` of the pot, or None
        when no such bet was answered yet; ``weight`` is n / (n + prior)."""
        if context >= len(self.counts):  # raises not counted (BetResponses without raises)
            return None
        folds, calls, raises = self.counts[context][size_bucket(fraction)]
        total = folds + calls + raises
        if total == 0:
            return None
        return total / (total + self.prior), folds / total, raises / total


DEFAULT_MIN_SHOWDOWNS = 30
"""Showdowns after the opponent's river check before its learnt cap is used
(:class:`~pokerai.agents.opponent.RiverCheckCap`)."""
CAP_FLOOR = 0.05
"""The factor :func:`capped_beliefs` leaves on an opponent hand above its cap (not 0, so that a
cap learnt from too few showdowns cannot empty a range that holds only such hands)."""


def capped_beliefs(
    beliefs: npt.NDArray[np.float64], board: tuple[int, ...], opponent: int, cap: float
) -> npt.NDArray[np.float64]:
    """``beliefs`` float64 ``[2, 1326]`` with ``opponent``'s hands stronger than ``cap`` (by
    :func:`~pokerai.search.showdown.river_strength` on ``board``) weighted :data:`CAP_FLOOR` times,
    rows summing to 1 again."""
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


def _weakest_shares(
    strength: npt.NDArray[np.float64], reach: npt.NDArray[np.float64]
) -> npt.NDArray[np.float64]:
    """For each hand, the share of ``reach`` held by weaker hands plus half its own (by ``strength``)."""
    order = np.argsort(strength, kind="stable")
    weakest = np.empty(len(order))
    weakest[order] = (np.cumsum(reach[order]) - reach[order] / 2) / reach.sum()
    return weakest


def _answers(
    labels: Sequence[object], weakest: npt.NDArray[np.float64], fold_share: float, raise_share: float
) -> npt.NDArray[np.float64]:
    """float64 ``[H, len(labels)]``: the weakest ``fold_share`` of the range folds, the strongest
    ``raise_share`` raises (spread evenly over the raise children; a call where none is left), the
    rest calls. ``labels`` are the answer node's child labels (menu slots; any other is a raise)."""
    slots = [int(label) if isinstance(label, (int, np.integer)) else None for label in labels]
    raises = [index for index, slot in enumerate(slots) if slot not in (FOLD_SLOT, CHECK_CALL_SLOT)]
    call = slots.index(CHECK_CALL_SLOT)
    strategy = np.zeros((len(weakest), len(labels)))
    folds = weakest < fold_share
    raising = (weakest > 1.0 - raise_share) & ~folds
    strategy[folds, slots.index(FOLD_SLOT)] = 1.0
    strategy[~folds & ~raising, call] = 1.0
    if raises:
        strategy[np.ix_(np.flatnonzero(raising), np.asarray(raises, dtype=np.int64))] = 1.0 / len(raises)
    else:
        strategy[raising, call] = 1.0
    return strategy


def response_strategies(
    river: RiverSubgame, counts: ResponseCounts
) -> dict[int, tuple[float, npt.NDArray[np.float64]]]:
    """The opponent's modelled answers to the searcher's first river bet, for :func:`solve`'s ``fixed``.

    Only where the searcher opens the betting at the root (nothing to call): for each of its bets,
    the node where the opponent answers gets the strategy that folds the weakest hands of the
    opponent's root range (by :func:`~pokerai.search.showdown.river_strength`, weighted by its
    reach) with the fold share of ``counts``, raises the strongest with the raise share (spread
    evenly over the raise children; a call where none is left) and calls with the rest, trusted with
    ``counts``' weight. A bet size ``counts`` has never seen gets no model.
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
    if reach.sum() <= 0:
        return {}
    weakest = _weakest_shares(river_strength(river.board)[river.hands], reach)
    fixed: dict[int, tuple[float, npt.NDArray[np.float64]]] = {}
    for node, (slot, nested) in zip(subgame.children(0), root.children, strict=True):
        if slot in (FOLD_SLOT, CHECK_CALL_SLOT) or not isinstance(nested, Decision):
            continue
        # The bet as a fraction of the pot before it, as BetResponses counts it.
        shares = counts.shares(context, states[node].bets[searcher] / states[0].pot)
        if shares is None:
            continue
        weight, fold_share, raise_share = shares
        labels = [int(label) for label, _ in nested.children]
        fixed[node] = (weight, _answers(labels, weakest, fold_share, raise_share))
    return fixed


def street_response_strategies(
    tree: StreetTree, board: Sequence[int], searcher: int, counts: ResponseCounts
) -> dict[int, tuple[float, npt.NDArray[np.float64]]]:
    """The modelled answers of :func:`response_strategies` in a tree of the street pipeline.

    ``counts`` are the answers to the searcher's first bet of the tree's street (the flop, the
    turn or the river, by the number of ``board`` cards), and, where ``counts`` has the row, to
    its raises over the opponent's bets and raises (:data:`RAISE_CONTEXT`). The tree starts at the
    street's start, so the first bet may come at its root or after the opponent's check: every
    node where the opponent answers a counted bet or raise gets the modelled strategy (the
    weakest hands by :func:`street_strength` and the opponent's reach at the street's start fold,
    the strongest raise, the rest call), with ``counts``' weight for that context and bet size.
    Keys are ``tree.subgame``'s node indices.
    """
    subgame = tree.subgame
    opponent = 1 - searcher
    reach = subgame.reach[opponent]
    street = {3: Street.FLOP, 4: Street.TURN, 5: Street.RIVER}.get(len(board))
    if street is None or reach.sum() <= 0:
        return {}
    weakest = _weakest_shares(street_strength(tuple(board))[tree.hands], reach)
    fixed: dict[int, tuple[float, npt.NDArray[np.float64]]] = {}
    for node, state in tree.decision_states.items():
        if state.to_act != opponent:
            continue
        actions = state.history[state.street_starts[street] :]
        if not actions or actions[-1].player != searcher or actions[-1].kind != ActionKind.RAISE:
            continue
        opening = int(opened_with_check(state.history, state.street_starts, opponent, street))
        context = answer_context(actions, len(actions) - 1, opening)
        if context is None:
            continue
        bet = actions[-1].amount  # a raise-to: sized over the pot without it, as BetResponses does
        shares = counts.shares(context, bet / (state.pot - bet))
        if shares is None:
            continue
        weight, fold_share, raise_share = shares
        labels = [subgame.label[child] for child in subgame.children(node)]
        fixed[node] = (weight, _answers(labels, weakest, fold_share, raise_share))
    return fixed


__all__ = [
    "AGGRESSION_REFERENCE",
    "CAP_FLOOR",
    "DEFAULT_MIN_SHOWDOWNS",
    "DEFAULT_RESPONSE_PRIOR",
    "MAX_PATH_FLOOR",
    "OVERBET",
    "RAISE_CONTEXT",
    "RESPONSE_SIZES",
    "SHOWN_REFERENCE",
    "STRENGTH_RUNOUTS",
    "PathFloors",
    "ResponseCounts",
    "answer_context",
    "capped_beliefs",
    "opened_river_with_check",
    "opened_with_check",
    "raise_fraction",
    "response_strategies",
    "size_bucket",
    "street_response_strategies",
    "street_strength",
]
