"""The AKQ game: the textbook half-street bluffing game.

Player 0 holds A or Q (probability 1/2 each), player 1 always holds K. Both
ante 1/2, so the pot is 1 and returns are zero-sum. Player 0 checks (showdown)
or bets ``bet_size`` (a fraction of the pot); facing a bet player 1 folds or
calls, and a call goes to showdown. A beats K beats Q.

Nash equilibrium (Chen & Ankenman, *The Mathematics of Poker*, 2006): bet A
always, bet Q with probability B/(1+B); call with probability 1/(1+B). Player
0's value is B / (2 (1 + B)) -- its pot share (1+2B)/(2(1+B)) less the ante of
1/2.

Action ids: 0 = pass (check, or fold facing the bet), 1 = bet (bet, or call).
Information-state keys: ``"A:"``, ``"Q:"`` for player 0 and ``"K:b"`` for
player 1.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from pokerai.games.protocol import CHANCE, TERMINAL, PlayerDerivedFlags, check_legal

ACE, QUEEN = 0, 1
CARD_NAMES = ("A", "Q")
PASS, BET = 0, 1


def nash_equilibrium(bet_size: float) -> dict[str, float]:
    """Closed-form equilibrium of the AKQ game with bet ``bet_size`` (a fraction of the pot).

    Returns the probabilities ``bet_ace``, ``bet_queen``, ``call_king`` and
    player 0's ``value`` (net of the ante).
    """
    b = float(bet_size)
    return {
        "bet_ace": 1.0,
        "bet_queen": b / (1.0 + b),
        "call_king": 1.0 / (1.0 + b),
        "value": b / (2.0 * (1.0 + b)),
    }


@dataclass(frozen=True, slots=True)
class AKQState(PlayerDerivedFlags):
    """An AKQ history: player 0's card (None before the deal) and the betting letters."""

    bet_size: float
    card: int | None = None
    history: str = ""

    def current_player(self) -> int:
        if self.card is None:
            return CHANCE
        if self.history in ("p", "bp", "bb"):
            return TERMINAL
        return len(self.history)

    def legal_actions(self) -> Sequence[int]:
        return (PASS, BET) if self.current_player() >= 0 else ()

    def chance_outcomes(self) -> Sequence[tuple[int, float]]:
        return ((ACE, 0.5), (QUEEN, 0.5)) if self.is_chance() else ()

    def child(self, action: int) -> AKQState:
        check_legal(self, action)
        if self.is_chance():
            return AKQState(self.bet_size, action, self.history)
        return AKQState(self.bet_size, self.card, self.history + "pb"[action])

    def returns(self) -> tuple[float, float]:
        if not self.is_terminal():
            raise ValueError(f"returns are only defined at the end of the game, not at {self!r}")
        if self.history == "bp":  # player 1 folds: player 0 takes the pot of 1
            amount = 0.5
        else:
            stake = 0.5 if self.history == "p" else 0.5 + self.bet_size
            amount = stake if self.card == ACE else -stake
        return (amount, -amount)

    def information_state_key(self, player: int) -> str:
        if player == 0:
            return f"{CARD_NAMES[self.card]}:{self.history}" if self.card is not None else ":"
        return f"K:{self.history}"

    def action_name(self, action: int) -> str:
        if self.is_chance():
            return CARD_NAMES[action]
        facing_bet = self.history == "b"
        if action == PASS:
            return "fold" if facing_bet else "check"
        return "call" if facing_bet else "bet"


class AKQGame:
    """The AKQ game with a bet of ``bet_size`` times the pot (default 1)."""

    num_players = 2
    num_distinct_actions = 2

    def __init__(self, bet_size: float = 1.0) -> None:
        if not (isinstance(bet_size, (int, float)) and math.isfinite(bet_size) and bet_size > 0):
            raise ValueError(f"bet size must be a positive number, got {bet_size!r}")
        self.bet_size = float(bet_size)

    @property
    def name(self) -> str:
        return f"akq(B={self.bet_size:g})"

    def initial_state(self) -> AKQState:
        return AKQState(self.bet_size)
