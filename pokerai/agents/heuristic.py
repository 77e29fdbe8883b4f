"""A rule-based hold'em player: hand strength against a random hand, pot odds, a few bet sizes.

The strongest of the simple baselines. Every decision starts from one number,
the hand's *equity against a uniformly random opponent hand* (its share of the
pot at showdown):

* Preflop it is read from a table over the 169 starting-hand classes
  (:func:`preflop_equity_table`), computed once per process by Monte Carlo
  with a fixed seed and cached. AA is about 0.85, 72o about 0.35.
* Postflop it is estimated per decision: ``samples`` opponent hands and board
  run-outs drawn from the unseen cards with the agent's rng and ranked with the
  vectorised evaluator (on the river all opponent hands are enumerated, exact).

Rules, with ``e`` the equity, ``to_call`` the chips owed and ``pot`` the chips
in the middle (current bets included); shares of hands are of the 1,326 combos:

* Facing a bet it has no rule to raise, the agent calls when ``e`` beats the
  price ``to_call / (pot + to_call)`` by a margin of 0.03 plus 0.08 times the
  share of its stack the call would commit (so a shove needs about 0.11 more
  than the price), and folds otherwise. It never folds when it may check.
* Preflop, button first in: raise to 2.5 big blinds with ``e >= 0.5`` (about
  half the hands), limp with ``e >= 0.4``, fold the rest (about 16%). Big
  blind after a limp: raise by 2.5 big blinds with ``e >= 0.57`` (about 23%),
  else check. Facing a raise: re-raise to three times the bet with
  ``e >= 0.62`` (about 9%) while the bet is at most 4 big blinds, and with
  ``e >= 0.68`` (about 3%: 88+) at any size; a re-raise that would commit
  over 35% of the stack goes all-in instead. Otherwise call or fold by price.
* Postflop, nobody has bet: all-in with ``e >= 0.9``, a pot bet with
  ``e >= 0.75``, a half-pot bet with ``e >= 0.6`` (either becomes all-in when
  it would commit 60% of the stack); otherwise check, except for a half-pot
  bluff with probability ``bluff_frequency`` holding ``e < 0.35``.
* Postflop, facing a bet: a pot raise with ``e >= 0.85`` (all-in when it
  would commit half the stack), else call or fold by price.

Bet sizes are raise-to amounts clamped into the legal range by
``Observation.raise_to``. The agent is deterministic given the rng and cannot
report its action probabilities (``action_probability`` returns None).
"""

from __future__ import annotations

import numpy as np

from pokerai.agents.base import Agent, Observation
from pokerai.engine.equity import (
    combinations,
    hand_class,
    preflop_equity_table,
    sampled_equity,
    showdown_equity,
    unseen_cards,
)
from pokerai.engine.state import Action, ActionKind, Street


def preflop_equity(hole_cards: tuple[int, int]) -> float:
    """The table equity of two hole cards against a random hand."""
    return float(preflop_equity_table()[hand_class(hole_cards)])


def _river_equity(hole_cards: tuple[int, int], board: tuple[int, ...]) -> float:
    """Exact river equity against every opponent hand from the unseen cards."""
    unseen = unseen_cards((*hole_cards, *board))
    opponent = unseen[combinations(unseen.size, 2)]
    count = opponent.shape[0]
    board_rows = np.broadcast_to(np.array(board, np.uint8), (count, 5))
    mine = np.concatenate([np.broadcast_to(np.array(hole_cards, np.uint8), (count, 2)), board_rows], axis=1)
    theirs = np.concatenate([opponent, board_rows], axis=1)
    return showdown_equity(mine, theirs)


def postflop_equity(
    hole_cards: tuple[int, int], board: tuple[int, ...], rng: np.random.Generator, samples: int = 300
) -> float:
    """Equity against a random hand on a flop or turn (Monte Carlo) or river (exact)."""
    if len(board) == 5:
        return _river_equity(hole_cards, board)
    return sampled_equity(hole_cards, board, rng, samples)


class HeuristicAgent(Agent):
    """Equity against a random hand versus pot odds, with open, 3-bet, value and all-in sizes.

    ``samples``: Monte Carlo draws per flop or turn decision. ``bluff_frequency``: the
    chance of a half-pot bet with little equity when checked to.
    """

    name = "heuristic"

    def __init__(self, samples: int = 300, bluff_frequency: float = 0.1) -> None:
        if samples < 1:
            raise ValueError(f"samples {samples!r} must be at least 1")
        if not 0.0 <= bluff_frequency <= 1.0:
            raise ValueError(f"bluff frequency {bluff_frequency!r} must lie in [0, 1]")
        self.samples = samples
        self.bluff_frequency = bluff_frequency

    def act(self, observation: Observation, rng: np.random.Generator) -> Action:
        if observation.street == Street.PREFLOP:
            return self._preflop(observation, preflop_equity(observation.hole_cards))
        equity = postflop_equity(observation.hole_cards, observation.board, rng, self.samples)
        return self._postflop(observation, equity, rng)

    # ------------------------------------------------------------------ helpers

    @staticmethod
    def _total_chips(observation: Observation) -> int:
        """The chips this player has in play on this street: its bet plus its stack."""
        player = observation.player
        return observation.bets[player] + observation.stacks[player]

    def _call_or_fold(self, observation: Observation, equity: float) -> Action:
        """Call when the equity beats the price by a margin that grows with the stake; else fold."""
        to_call = observation.call_amount
        if to_call == 0:
            return observation.check_or_call()
        price = to_call / (observation.pot + to_call)
        committed = (observation.bets[observation.player] + to_call) / max(self._total_chips(observation), 1)
        margin = 0.03 + 0.08 * min(committed, 1.0)
        if equity >= price + margin:
            return observation.check_or_call()
        return Action(observation.player, ActionKind.FOLD)

    def _sized_raise(self, observation: Observation, amount: int, shove_share: float = 0.45) -> Action:
        """Raise to ``amount``, or all-in when that would put ``shove_share`` of the stack in."""
        if observation.max_raise_to is None:
            return observation.check_or_call()
        if amount >= shove_share * self._total_chips(observation):
            amount = observation.max_raise_to
        return observation.raise_to(amount)

    # ------------------------------------------------------------------ streets

    def _preflop(self, observation: Observation, equity: float) -> Action:
        big_blind = observation.config.big_blind
        highest_bet = max(observation.bets)
        can_raise = observation.max_raise_to is not None
        unopened = highest_bet <= big_blind
        if unopened and observation.call_amount > 0:
            # The button's first decision: facing only the big blind.
            if equity >= 0.5 and can_raise:
                return self._sized_raise(observation, int(2.5 * big_blind))
            if equity >= 0.4:
                return observation.check_or_call()
            return Action(observation.player, ActionKind.FOLD)
        if unopened:
            # The big blind after a limp: raise good hands, check the rest.
            if equity >= 0.57 and can_raise:
                return self._sized_raise(observation, highest_bet + int(2.5 * big_blind))
            return observation.check_or_call()
        # Facing a raise.
        if equity >= 0.68 and can_raise:
            return self._sized_raise(observation, 3 * highest_bet, shove_share=0.35)
        if equity >= 0.62 and can_raise and highest_bet <= 4 * big_blind:
            return self._sized_raise(observation, 3 * highest_bet, shove_share=0.35)
        return self._call_or_fold(observation, equity)

    def _postflop(self, observation: Observation, equity: float, rng: np.random.Generator) -> Action:
        pot = observation.pot
        highest_bet = max(observation.bets)
        can_raise = observation.max_raise_to is not None
        if observation.call_amount == 0:
            if can_raise:
                if equity >= 0.9:
                    return self._sized_raise(observation, observation.max_raise_to or 0)
                if equity >= 0.75:
                    return self._sized_raise(observation, pot, shove_share=0.6)
                if equity >= 0.6:
                    return self._sized_raise(observation, pot // 2, shove_share=0.6)
                if equity < 0.35 and rng.random() < self.bluff_frequency:
                    return self._sized_raise(observation, pot // 2, shove_share=1.1)
            return observation.check_or_call()
        if can_raise and equity >= 0.85:
            # Pot raise: the highest bet plus the pot after calling.
            owed = observation.call_amount
            return self._sized_raise(observation, highest_bet + pot + owed, shove_share=0.5)
        return self._call_or_fold(observation, equity)


__all__ = [
    "HeuristicAgent",
    "hand_class",
    "postflop_equity",
    "preflop_equity",
    "preflop_equity_table",
]
