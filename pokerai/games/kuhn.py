"""Kuhn poker (Kuhn 1950): the smallest poker game with bluffing.

Three cards J < Q < K, one dealt to each player; both ante 1. Player 0 checks
or bets 1; facing a bet a player folds or calls; after check, player 1 checks
(showdown for the antes) or bets. 30 terminal histories, 12 information sets,
game value for player 0 of -1/18.

Action ids: 0 = pass (check, or fold facing a bet), 1 = bet (bet, or call).
Information-state key: ``"<card>:<history>"`` with the history written in
``p``/``b`` letters, e.g. ``"Q:pb"`` (player 0 holding Q after check, bet).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pokerai.games.protocol import CHANCE, TERMINAL, PlayerDerivedFlags, check_legal, deal_outcomes

CARD_NAMES = ("J", "Q", "K")
PASS, BET = 0, 1
_TERMINAL_HISTORIES = frozenset({"pp", "pbp", "pbb", "bp", "bb"})


@dataclass(frozen=True, slots=True)
class KuhnState(PlayerDerivedFlags):
    """A Kuhn history: the cards dealt so far and the betting letters."""

    cards: tuple[int, ...] = ()
    history: str = ""

    def current_player(self) -> int:
        if len(self.cards) < 2:
            return CHANCE
        if self.history in _TERMINAL_HISTORIES:
            return TERMINAL
        return len(self.history) % 2

    def legal_actions(self) -> Sequence[int]:
        return (PASS, BET) if self.current_player() >= 0 else ()

    def chance_outcomes(self) -> Sequence[tuple[int, float]]:
        if not self.is_chance():
            return ()
        return deal_outcomes(3, self.cards)

    def child(self, action: int) -> KuhnState:
        check_legal(self, action)
        if self.is_chance():
            return KuhnState((*self.cards, action), self.history)
        return KuhnState(self.cards, self.history + "pb"[action])

    def returns(self) -> tuple[float, float]:
        if not self.is_terminal():
            raise ValueError(f"returns are only defined at the end of the game, not at {self!r}")
        if self.history == "bp":  # player 1 folds to a bet
            winner, amount = 0, 1.0
        elif self.history == "pbp":  # player 0 folds to a bet
            winner, amount = 1, 1.0
        else:
            winner = 0 if self.cards[0] > self.cards[1] else 1
            amount = 1.0 if self.history == "pp" else 2.0
        return (amount, -amount) if winner == 0 else (-amount, amount)

    def information_state_key(self, player: int) -> str:
        return f"{CARD_NAMES[self.cards[player]]}:{self.history}"

    def action_name(self, action: int) -> str:
        if self.is_chance():
            return CARD_NAMES[action]
        facing_bet = self.history.endswith("b")
        if action == PASS:
            return "fold" if facing_bet else "check"
        return "call" if facing_bet else "bet"

    def __str__(self) -> str:
        return " ".join(CARD_NAMES[c] for c in self.cards) + f" {self.history}".rstrip()


class KuhnPoker:
    """Kuhn poker; see the module docstring for the rules and encoding."""

    name = "kuhn"
    num_players = 2
    num_distinct_actions = 2

    def initial_state(self) -> KuhnState:
        return KuhnState()
