"""Opponent models learnt in a match: the river check's cap, the answers to a bet, how often it raises.

The search's beliefs (:func:`pokerai.search.beliefs.public_beliefs`) assume the
opponent plays like the blueprint. Against an opponent that does not, the
opponent's range can be far from the blueprint's; the clearest case is a
*capped* check: a player that bets every strong hand on the river, so that its
check holds only weak and middling hands, while the blueprint sometimes checks
strong hands too. Searching over the blueprint's range then checks behind hands
that should bet.

:class:`RiverCheckCap` learns that cap from the hands the opponent showed
down after opening the river with a check (as the player out of position).
Each such hand adds its :func:`~pokerai.search.showdown.river_strength` on the
board (the share of hands it beats). After ``min_showdowns`` of them the cap
is the strongest one seen plus ``margin`` (at most 1), and the river search
(:func:`~pokerai.search.river.solve_river`, ``opponent_cap``) keeps only
:data:`~pokerai.search.responses.CAP_FLOOR` of its belief in each hand above the cap
when the opponent has checked. One strong hand shown after a check lifts the
cap above it, so against an opponent that checks strong hands as often as
the blueprint (or the blueprint itself) the cap soon reaches 1 and changes nothing.

:class:`BetResponses` counts how the opponent answered the agent's first bet
of a street (fold, call or raise), by the bet's size and by whether the
opponent had checked first; folds count too, so it needs no showdown. The
search of that street mixes the matching strategy into the opponent's answer
(:func:`~pokerai.search.responses.response_strategies` on the river,
:func:`~pokerai.search.responses.street_response_strategies` in the street
pipeline): the weakest hands of its
range fold and the strongest raise in the counted shares, trusted
``n / (n + prior)`` after ``n`` answers.

:class:`Aggression` counts how often the opponent bet or raised at its postflop decisions
where it could, separately with nothing to call and facing a bet. Where it raises more
often than :data:`~pokerai.search.responses.AGGRESSION_REFERENCE` (the blueprint's own share),
the street search puts a floor on its bets and raises on the street's path, and where it raises
less often, on its checks and calls (:meth:`Aggression.path_floors`,
:func:`~pokerai.search.street.path_trembles`): its range after the action keeps more of the
hands that would not have taken it in the blueprint. With ``overbets`` it also counts the raises
of more than :data:`~pokerai.search.responses.OVERBET` pots, which the blueprint never makes, and
floors those by how often the opponent makes them.

The models see only what the seat sees (:class:`~pokerai.agents.base.HandSummary`):
a hand that ended in a fold shows nothing. They learn from every hand of the
process's match, so in a duplicate match each worker's copy learns from its own
hands.
"""

from __future__ import annotations

import math

from pokerai.agents.base import HandSummary
from pokerai.engine.state import BOARD_SIZES, ActionKind, HUNLState, Street
from pokerai.search.combos import combo_index
from pokerai.search.responses import (
    AGGRESSION_REFERENCE,
    DEFAULT_MIN_SHOWDOWNS,
    DEFAULT_RESPONSE_PRIOR,
    MAX_PATH_FLOOR,
    OVERBET,
    RAISE_CONTEXT,
    RESPONSE_SIZES,
    SHOWN_REFERENCE,
    PathFloors,
    ResponseCounts,
    answer_context,
    opened_river_with_check,
    opened_with_check,
    raise_fraction,
    size_bucket,
    street_strength,
)
from pokerai.search.showdown import river_strength

DEFAULT_MARGIN = 0.02
"""Strength added to the strongest checked hand seen."""


class RiverCheckCap:
    """The strongest river strength the opponent has shown after opening the river with a check.

    ``min_showdowns`` (a positive whole number) such showdowns are needed before :attr:`cap` is
    given; ``margin`` (in [0, 1)) is added to the strongest one.
    """

    def __init__(self, min_showdowns: int = DEFAULT_MIN_SHOWDOWNS, margin: float = DEFAULT_MARGIN) -> None:
        if isinstance(min_showdowns, bool) or not isinstance(min_showdowns, int) or min_showdowns < 1:
            raise ValueError(f"min_showdowns {min_showdowns!r} is not a positive whole number")
        if isinstance(margin, bool) or not isinstance(margin, (int, float)) or not 0.0 <= margin < 1.0:
            raise ValueError(f"margin {margin!r} is not a number in [0, 1)")
        self.min_showdowns = min_showdowns
        self.margin = float(margin)
        self.showdowns = 0
        """Showdowns seen after the opponent opened the river with a check."""
        self.strongest = 0.0
        """The strongest of those hands (:func:`~pokerai.search.showdown.river_strength`); 0 before any."""

    def observe(self, summary: HandSummary) -> bool:
        """Learn from a finished hand; True if it was a showdown after the opponent's river check."""
        opponent = 1 - summary.player
        if (
            summary.opponent_cards is None
            or len(summary.board) != 5
            or not opened_river_with_check(summary.history, summary.street_starts, opponent)
        ):
            return False
        strength = float(river_strength(tuple(summary.board))[combo_index(*summary.opponent_cards)])
        self.showdowns += 1
        self.strongest = max(self.strongest, strength)
        return True

    @property
    def cap(self) -> float | None:
        """The strength above which the opponent is modelled not to check, or None (too few showdowns)."""
        if self.showdowns < self.min_showdowns:
            return None
        return min(1.0, self.strongest + self.margin)


class BetResponses:
    """Learns :class:`ResponseCounts` of one street from finished hands (every hand, showdown or not).

    It counts the opponent's answers to the agent's first bet of ``street`` (flop, turn or river;
    by default the river): context 0 when the agent opened the street's betting, 1 when the
    opponent had checked first. With ``raises`` it also counts, as context 2, the answers to every
    raise the agent made over a bet or raise of the opponent on the street. ``prior`` (a positive
    finite number) is the number of observations at which the solve trusts the model half.
    """

    def __init__(
        self, prior: float = DEFAULT_RESPONSE_PRIOR, street: int = Street.RIVER, *, raises: bool = False
    ) -> None:
        if isinstance(prior, bool) or not isinstance(prior, (int, float)) or not 0 < prior < math.inf:
            raise ValueError(f"prior {prior!r} is not a positive finite number")
        if street not in (Street.FLOP, Street.TURN, Street.RIVER):
            raise ValueError(f"answers to bets are learnt on the flop, turn or river, not street {street!r}")
        self.prior = float(prior)
        self.street = Street(street)
        self.raises = bool(raises)
        contexts = 3 if self.raises else 2
        self._counts = [[[0, 0, 0] for _ in range(len(RESPONSE_SIZES) + 1)] for _ in range(contexts)]

    def observe(self, summary: HandSummary) -> bool:
        """Learn from a finished hand; True if it counted an answer to a bet or raise of the agent."""
        me, opponent = summary.player, 1 - summary.player
        starts = summary.street_starts
        if len(starts) <= self.street:
            return False
        start = starts[self.street]
        actions = summary.history[start:]
        opening = int(opened_with_check(summary.history, starts, opponent, self.street))
        replay = HUNLState.new(summary.config, summary.button, deck=_PLACEHOLDER_DECK)
        for action in summary.history[:start]:
            replay.apply(action)
        counted = False
        for index, bet in enumerate(actions[:-1]):
            replay.apply(bet)
            if bet.player != me or bet.kind != ActionKind.RAISE:
                continue
            answer = actions[index + 1]
            if answer.player != opponent:
                raise ValueError(f"the hand's history does not alternate: {answer} answers {bet}")
            context = answer_context(actions, index, opening)
            if context is None or (context == RAISE_CONTEXT and not self.raises):
                continue
            # As the solve sizes it (street_response_strategies): the raise-to over the pot without it.
            fraction = bet.amount / (replay.pot - bet.amount)
            self._counts[context][size_bucket(fraction)][_RESPONSE_INDEX[answer.kind]] += 1
            counted = True
        return counted

    @property
    def snapshot(self) -> ResponseCounts:
        """The counts so far, frozen."""
        counts = tuple(tuple((cell[0], cell[1], cell[2]) for cell in row) for row in self._counts)
        return ResponseCounts(counts, self.prior)


class Aggression:
    """How often the opponent bet or raised at its postflop decisions where raising was legal.

    Two contexts: 0 when nothing was to call (a check or a bet), 1 when it faced a bet or raise
    (a fold or call, or a raise). Every hand counts, showdown or not. ``prior`` (a positive finite
    number) is the number of decisions of a context at which :meth:`path_floors` trusts it half.
    """

    def __init__(
        self, prior: float = DEFAULT_RESPONSE_PRIOR, *, showdowns: bool = False, overbets: bool = False
    ) -> None:
        if isinstance(prior, bool) or not isinstance(prior, (int, float)) or not 0 < prior < math.inf:
            raise ValueError(f"prior {prior!r} is not a positive finite number")
        self.prior = float(prior)
        self.showdowns = bool(showdowns)
        """Whether :meth:`path_floors` scales the floors on raises by :meth:`weakness`."""
        self.use_overbets = bool(overbets)
        """Whether :meth:`path_floors` gives floors on raises of more than
        :data:`~pokerai.search.responses.OVERBET` pots."""
        self.counts = [[0, 0], [0, 0]]
        """``counts[context]`` = [decisions without a raise, raises]."""
        self.overbets = [0, 0]
        """``overbets[context]``: how many of the raises counted in ``counts[context]`` raised by
        more than :data:`~pokerai.search.responses.OVERBET` pots
        (:func:`~pokerai.search.responses.raise_fraction`)."""
        self.shown = [0.0, 0]
        """[sum of :func:`~pokerai.search.responses.street_strength`, count] over the opponent's
        postflop bets and raises in hands it showed down, its hand's strength on the board of the time."""

    def observe(self, summary: HandSummary) -> int:
        """Learn from a finished hand; the number of the opponent's decisions it counted."""
        opponent = 1 - summary.player
        flop = summary.street_starts[Street.FLOP] if len(summary.street_starts) > Street.FLOP else None
        replay = HUNLState.new(summary.config, summary.button, deck=_PLACEHOLDER_DECK)
        counted = 0
        for index, action in enumerate(summary.history):
            if flop is not None and index >= flop and action.player == opponent:
                if replay.to_act != opponent:
                    raise ValueError(f"the hand's history does not replay: {action} out of turn")
                if ActionKind.RAISE in replay.legal_actions():
                    context = int(replay.call_amount > 0)
                    self.counts[context][int(action.kind == ActionKind.RAISE)] += 1
                    if action.kind == ActionKind.RAISE and raise_fraction(replay, action.amount) > OVERBET:
                        self.overbets[context] += 1
                    counted += 1
                if action.kind == ActionKind.RAISE and summary.opponent_cards is not None:
                    board = tuple(summary.board[: BOARD_SIZES[replay.street]])
                    self.shown[0] += float(street_strength(board)[combo_index(*summary.opponent_cards)])
                    self.shown[1] += 1
            replay.apply(action)
        return counted

    def weakness(self) -> float:
        """How weak the hands the opponent showed after its bets and raises were, in [0, 1].

        With ``m`` the mean strength of those hands (:attr:`shown`) after ``prior`` more at
        :data:`~pokerai.search.responses.SHOWN_REFERENCE` (the blueprint's), it is ``(r − m) /
        (r − 0.5)`` clipped to [0, 1], ``r`` that reference: 0 for hands as strong as the
        blueprint's, 1 for hands no stronger than a random hand's (0.5 on average).
        """
        strength, count = self.shown
        mean = (strength + self.prior * SHOWN_REFERENCE) / (count + self.prior)
        return min(1.0, max(0.0, (SHOWN_REFERENCE - mean) / (SHOWN_REFERENCE - 0.5)))

    def path_floors(self) -> PathFloors:
        """The floors on the opponent's path actions, by context, for the street search.

        With ``f`` the counted share of raises in a context, ``a`` the reference share there and
        ``w = n / (n + prior)`` after ``n`` decisions: a raise gets ``w·(f − a)/(1 − a)`` when
        ``f > a``, a check, call or fold ``w·(a − f)/a`` when ``f < a``, at most
        :data:`~pokerai.search.responses.MAX_PATH_FLOOR`. The floor ``λ`` on an action makes its
        modelled share ``(1 − λ)·(the model's) + λ``; with the reference share as the model's,
        that is ``f``. With :attr:`showdowns` the floor on a raise is also multiplied by
        :meth:`weakness`: an opponent that raises more often than the blueprint, but shows hands
        as strong as the blueprint's, raises for value and gets none.

        With :attr:`use_overbets` a raise of more than :data:`~pokerai.search.responses.OVERBET`
        pots gets ``w·o`` where that is more, ``o`` the share of such raises among the context's
        decisions (the blueprint's share is 0). The share of raises cannot see size: an opponent
        that bets no more often than the blueprint but bets thirty pots where the blueprint bets
        one is floored here. :meth:`weakness` does not scale it: the blueprint makes no such
        raise, so the solve's model of one holds only the hands that gain most by it, and the
        hands shown after raises come too slowly to wait for.
        """
        scale = self.weakness() if self.showdowns else 1.0
        floors = []
        overbets = []
        for (calm, raised), over, reference in zip(
            self.counts, self.overbets, AGGRESSION_REFERENCE, strict=True
        ):
            total = calm + raised
            if total == 0:
                floors.append((0.0, 0.0))
                overbets.append(0.0)
                continue
            weight = total / (total + self.prior)
            share = raised / total
            aggressive = weight * max(0.0, (share - reference) / (1.0 - reference)) * scale
            passive = weight * max(0.0, (reference - share) / reference)
            floors.append((min(passive, MAX_PATH_FLOOR), min(aggressive, MAX_PATH_FLOOR)))
            overbets.append(min(weight * over / total, MAX_PATH_FLOOR) if self.use_overbets else 0.0)
        return PathFloors((floors[0], floors[1]), (overbets[0], overbets[1]))


_RESPONSE_INDEX = {ActionKind.FOLD: 0, ActionKind.CALL: 1, ActionKind.CHECK: 1, ActionKind.RAISE: 2}
_PLACEHOLDER_DECK = tuple(range(9))
"""Replays for chips only never read the cards."""

__all__ = [
    "DEFAULT_MARGIN",
    "Aggression",
    "BetResponses",
    "RiverCheckCap",
]
