"""The agent interface: every policy that picks a hold'em action sits behind it.

An agent sees only what its seat may see -- an ``Observation`` built from the
engine state for the player to act: its own hole cards, the board dealt so
far, the public action history, stacks, bets and the legal action bounds --
and returns a legal engine ``Action``. Agents that can say how likely each
action is (needed by local best response, which updates a range over the
agent's hidden cards by Bayes' rule) also implement ``action_probability``.
Agents that can give their whole strategy at a public state for many hole-card
pairs at once (a :class:`RangePolicy`) also implement ``range_policy``: local best
response and AIVAT ask it for all 1,326 pairs in one call instead of 1,326 calls.
When a hand is over, ``end_hand`` tells each seat what it saw (a
``HandSummary``: the opponent's cards only if they were shown at a showdown).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from pokerai.engine.state import Action, ActionKind, HUNLConfig, HUNLState


@dataclass(frozen=True, slots=True)
class Observation:
    """What the player to act may see. Chips are ints; ``bets`` are this street's."""

    player: int
    """The observing (acting) player, 0 or 1."""
    button: int
    """The player on the button (small blind)."""
    config: HUNLConfig
    hole_cards: tuple[int, int]
    board: tuple[int, ...]
    """Board cards dealt so far (0, 3, 4 or 5)."""
    street: int
    history: tuple[Action, ...]
    """Every action of the hand so far, both players, all streets (blinds not included)."""
    stacks: tuple[int, int]
    """Chips behind, by player."""
    bets: tuple[int, int]
    """Chips bet on the current street, by player."""
    pot: int
    """Chips in the middle, current bets included."""
    legal_actions: tuple[ActionKind, ...]
    call_amount: int
    min_raise_to: int | None
    max_raise_to: int | None

    @classmethod
    def from_state(cls, state: HUNLState, hole_cards: tuple[int, int] | None = None) -> Observation:
        """The observation of ``state.to_act``.

        ``hole_cards`` replaces the player's own cards: a local best response
        asks what the agent would do holding each possible hand.
        """
        player = state.to_act
        if player is None:
            raise ValueError("the hand is over: nobody is to act, so there is nothing to observe")
        return cls(
            player=player,
            button=state.button,
            config=state.config,
            hole_cards=hole_cards if hole_cards is not None else state.hole_cards(player),
            board=state.board,
            street=state.street,
            history=tuple(state.history),
            stacks=(state.stacks[0], state.stacks[1]),
            bets=(state.bets[0], state.bets[1]),
            pot=state.pot,
            legal_actions=state.legal_actions(),
            call_amount=state.call_amount,
            min_raise_to=state.min_raise_to,
            max_raise_to=state.max_raise_to,
        )

    def check_or_call(self) -> Action:
        """The passive action: check when nothing is owed, call otherwise."""
        if ActionKind.CHECK in self.legal_actions:
            return Action(self.player, ActionKind.CHECK)
        return Action(self.player, ActionKind.CALL, self.call_amount)

    def raise_to(self, amount: int) -> Action:
        """A raise to ``amount`` clamped into the legal range; check/call when raising is not legal."""
        if self.min_raise_to is None or self.max_raise_to is None:
            return self.check_or_call()
        clamped = min(max(int(amount), self.min_raise_to), self.max_raise_to)
        return Action(self.player, ActionKind.RAISE, clamped)


@dataclass(frozen=True, slots=True)
class HandSummary:
    """What one seat sees of a hand that is over: the public hand, its own cards and, if the
    hand went to a showdown, the opponent's. Given to :meth:`Agent.end_hand`."""

    player: int
    """The seat the agent played, 0 or 1."""
    button: int
    config: HUNLConfig
    hole_cards: tuple[int, int]
    board: tuple[int, ...]
    """Board cards dealt before the hand ended (0, 3, 4 or 5)."""
    history: tuple[Action, ...]
    street_starts: tuple[int, ...]
    """``history`` index where each street reached began (preflop first)."""
    opponent_cards: tuple[int, int] | None
    """The opponent's hole cards when they were shown (a showdown), else None."""
    returns: tuple[int, int]
    """Chips won (lost if negative) by each player."""

    @classmethod
    def from_state(cls, state: HUNLState, player: int) -> HandSummary:
        """The summary for ``player`` of the finished hand ``state``."""
        if not state.is_over:
            raise ValueError("the hand is not over: there is no summary of it yet")
        if player not in (0, 1):
            raise ValueError(f"player {player!r} is not 0 or 1")
        other = 1 - player
        shown = state.folded is None and state.hole_cards_known[other]
        return cls(
            player=player,
            button=state.button,
            config=state.config,
            hole_cards=state.hole_cards(player),
            board=state.board,
            history=tuple(state.history),
            street_starts=tuple(state.street_starts),
            opponent_cards=state.hole_cards(other) if shown else None,
            returns=state.returns(),
        )


@dataclass(frozen=True)
class RangePolicy:
    """An agent's strategy at one public state, for many hole-card pairs at once.

    Row ``i`` is the action ``(kinds[i], amounts[i])``: ``kinds`` int64 ``[A]`` holds
    :class:`~pokerai.engine.state.ActionKind` values, ``amounts`` int64 ``[A]`` the
    raise-to of a raise, the chips of a call and 0 otherwise. The rows are distinct
    legal actions. ``probabilities`` is float64 ``[A, H]``, column ``j`` the strategy
    holding the ``j``-th pair asked for, or ``[A, 1]`` when the strategy does not
    depend on the hole cards; every column sums to 1.
    """

    kinds: npt.NDArray[np.int64]
    amounts: npt.NDArray[np.int64]
    probabilities: npt.NDArray[np.float64]

    def __post_init__(self) -> None:
        rows = self.kinds.shape[0]
        if (
            self.amounts.shape != (rows,)
            or self.probabilities.ndim != 2
            or self.probabilities.shape[0] != rows
        ):
            raise ValueError(
                f"a range policy needs kinds [A], amounts [A] and probabilities [A, H]; got shapes "
                f"{self.kinds.shape}, {self.amounts.shape}, {self.probabilities.shape}"
            )

    @classmethod
    def from_actions(cls, actions: list[Action], probabilities: npt.ArrayLike) -> RangePolicy:
        """The policy over ``actions`` (distinct) with float64 ``[len(actions), H]`` probabilities."""
        return cls(
            np.array([int(action.kind) for action in actions], dtype=np.int64),
            np.array([action.amount for action in actions], dtype=np.int64),
            np.asarray(probabilities, dtype=np.float64).reshape(len(actions), -1),
        )

    def row(self, observation: Observation, action: Action) -> int | None:
        """The row of ``action`` (a call given as 0 chips or in full), or None if it is not a row."""
        matches = self.kinds == int(action.kind)
        if action.kind is ActionKind.RAISE:
            matches &= self.amounts == action.amount
        elif action.kind is ActionKind.CALL and action.amount not in (0, observation.call_amount):
            return None
        found = np.flatnonzero(matches)
        return int(found[0]) if found.size else None

    def probability(self, observation: Observation, action: Action) -> npt.NDArray[np.float64]:
        """float64 ``[H]`` (or ``[1]``): the probability of ``action`` holding each pair (0 if not a row)."""
        row = self.row(observation, action)
        if row is None:
            return np.zeros(self.probabilities.shape[1])
        return np.asarray(self.probabilities[row], dtype=np.float64)


class Agent(ABC):
    """A hold'em player. Subclasses implement ``act``; stateful agents may use ``begin_hand`` and
    ``end_hand``."""

    name: str = "agent"

    def begin_hand(self, player: int, button: int) -> None:  # noqa: B027 -- optional hook
        """Called before each hand with the agent's player index and the button."""

    def end_hand(self, summary: HandSummary) -> None:  # noqa: B027 -- optional hook
        """Called after each hand of a match or session with what this seat saw of it (the
        opponent's cards only at a showdown). An agent that learns about its opponent uses it."""

    def drop_time_budgets(self) -> None:  # noqa: B027 -- optional hook
        """Make every solve this agent runs stop on its iteration count, never on a clock, so that a seed
        reproduces its play on any machine and under any load. Matches, local best response and the
        report call it on the agents they measure; an agent that solves nothing has nothing to drop."""

    @abstractmethod
    def act(self, observation: Observation, rng: np.random.Generator) -> Action:
        """A legal action for ``observation.player``; randomness only from ``rng``."""

    def action_probability(self, observation: Observation, action: Action) -> float | None:
        """Probability that ``act`` returns ``action`` here, or None if the agent cannot say."""
        return None

    def range_policy(self, observation: Observation, hands: npt.NDArray[np.int64]) -> RangePolicy | None:
        """The strategy at ``observation``'s public state holding each of ``hands`` (int64 ``[H, 2]``
        card pairs, none holding a visible card; ``observation.hole_cards`` is ignored), or None if
        the agent cannot say. It must agree with ``action_probability`` for every pair."""
        return None
