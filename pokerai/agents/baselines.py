"""Simple baseline agents: random, calling station, pot raiser, all-in.

Each one sees only an :class:`~pokerai.agents.base.Observation` and returns a
legal engine :class:`~pokerai.engine.state.Action`. They all say exactly how
likely each action is (``action_probability``), which local best response needs:

* ``RandomAgent``: uniform over the legal action kinds; a raise is a uniform
  whole-chip raise-to in ``[min_raise_to, max_raise_to]``. Its choice ignores
  the hole cards, so its probabilities do too.
* ``CallAgent``: always checks or calls.
* ``RaiseAgent``: raises to the pot-size raise (the pot-limit maximum, see
  :func:`pot_raise_to`), all-in when that is more than the stack; checks or
  calls when raising is not legal.
* ``AllInAgent``: raises all-in whenever raising is legal; else checks or calls.

None of them looks at its hole cards, so each one's ``range_policy`` is one column
(probabilities ``[A, 1]``) that holds for every hand.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from pokerai.agents.base import Agent, Observation, RangePolicy
from pokerai.engine.state import Action, ActionKind


def is_same_action(observation: Observation, first: Action, second: Action) -> bool:
    """Whether two actions are the same move here (a call's amount may be given as 0 or in full)."""
    if first.player != second.player or first.kind is not second.kind:
        return False
    if first.kind is ActionKind.RAISE:
        return first.amount == second.amount
    if first.kind is ActionKind.CALL:
        return {first.amount, second.amount} <= {0, observation.call_amount}
    return True


def pot_raise_to(observation: Observation) -> int:
    """The pot-size raise-to (not clamped): the highest bet plus the pot after calling.

    With ``pot`` the chips in the middle (this street's bets included) and ``call``
    the chips owed, the raise-to is ``highest bet + pot + call`` -- the pot-limit
    maximum. Preflop with blinds 50/100 the button's pot raise is 100 + 150 + 50 = 300.
    """
    highest_bet = max(observation.bets)
    owed = highest_bet - observation.bets[observation.player]
    return highest_bet + observation.pot + owed


class RandomAgent(Agent):
    """Uniform over the legal action kinds; a raise-to is uniform over the legal whole-chip range."""

    name = "random"

    def act(self, observation: Observation, rng: np.random.Generator) -> Action:
        kinds = observation.legal_actions
        kind = kinds[int(rng.integers(len(kinds)))]
        if kind is ActionKind.RAISE:
            assert observation.min_raise_to is not None and observation.max_raise_to is not None
            amount = int(rng.integers(observation.min_raise_to, observation.max_raise_to + 1))
            return Action(observation.player, ActionKind.RAISE, amount)
        if kind is ActionKind.CALL:
            return Action(observation.player, ActionKind.CALL, observation.call_amount)
        return Action(observation.player, kind)

    def action_probability(self, observation: Observation, action: Action) -> float:
        kinds = observation.legal_actions
        if action.player != observation.player or action.kind not in kinds:
            return 0.0
        kind_probability = 1.0 / len(kinds)
        if action.kind is ActionKind.RAISE:
            low, high = observation.min_raise_to, observation.max_raise_to
            assert low is not None and high is not None
            if not low <= action.amount <= high:
                return 0.0
            return kind_probability / (high - low + 1)
        if action.kind is ActionKind.CALL and action.amount not in (0, observation.call_amount):
            return 0.0
        return kind_probability

    def range_policy(self, observation: Observation, hands: npt.NDArray[np.int64]) -> RangePolicy:
        """One row per legal fold, check and call, then one per whole-chip raise-to from
        ``min_raise_to`` to ``max_raise_to``; probabilities float64 ``[A, 1]`` (card-blind)."""
        kinds = observation.legal_actions
        kind_probability = 1.0 / len(kinds)
        passive = [kind for kind in kinds if kind is not ActionKind.RAISE]
        row_kinds = [np.array([int(kind) for kind in passive], dtype=np.int64)]
        row_amounts = [
            np.array(
                [observation.call_amount if kind is ActionKind.CALL else 0 for kind in passive],
                dtype=np.int64,
            )
        ]
        row_probabilities = [np.full(len(passive), kind_probability)]
        if ActionKind.RAISE in kinds:
            low, high = observation.min_raise_to, observation.max_raise_to
            assert low is not None and high is not None
            sizes = high - low + 1
            row_kinds.append(np.full(sizes, int(ActionKind.RAISE), dtype=np.int64))
            row_amounts.append(np.arange(low, high + 1, dtype=np.int64))
            # The same expression as action_probability, so that the two agree to the last bit.
            row_probabilities.append(np.full(sizes, kind_probability / (high - low + 1)))
        return RangePolicy(
            np.concatenate(row_kinds),
            np.concatenate(row_amounts),
            np.concatenate(row_probabilities)[:, None],
        )


class _DeterministicAgent(Agent):
    """An agent with one action per observation, chosen without randomness and without looking at
    the hole cards (so its ``range_policy`` is that action with probability 1 for every hand)."""

    def choose(self, observation: Observation) -> Action:
        raise NotImplementedError

    def act(self, observation: Observation, rng: np.random.Generator) -> Action:
        return self.choose(observation)

    def action_probability(self, observation: Observation, action: Action) -> float:
        return 1.0 if is_same_action(observation, self.choose(observation), action) else 0.0

    def range_policy(self, observation: Observation, hands: npt.NDArray[np.int64]) -> RangePolicy | None:
        """The one chosen action; probabilities float64 ``[1, 1]`` (card-blind). (Typed as the base
        method so that subclasses may still return None.)"""
        return RangePolicy.from_actions([self.choose(observation)], [[1.0]])


class CallAgent(_DeterministicAgent):
    """The calling station: checks when it may, calls otherwise; never folds or raises."""

    name = "call"

    def choose(self, observation: Observation) -> Action:
        return observation.check_or_call()


class RaiseAgent(_DeterministicAgent):
    """Raises to the pot-size raise (all-in when that exceeds the stack); checks or calls otherwise."""

    name = "raise"

    def choose(self, observation: Observation) -> Action:
        return observation.raise_to(pot_raise_to(observation))


class AllInAgent(_DeterministicAgent):
    """Goes all-in whenever raising is legal; checks or calls otherwise."""

    name = "allin"

    def choose(self, observation: Observation) -> Action:
        if observation.max_raise_to is None:
            return observation.check_or_call()
        return observation.raise_to(observation.max_raise_to)


__all__ = [
    "AllInAgent",
    "CallAgent",
    "RaiseAgent",
    "RandomAgent",
    "is_same_action",
    "pot_raise_to",
]
