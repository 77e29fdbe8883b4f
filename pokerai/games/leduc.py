"""Leduc hold'em, the standard two-round research game.

From Southey, Bowling, Larson, Piccione, Burch, Billings & Rayner, "Bayes' Bluff:
Opponent Modelling in Poker", UAI 2005.

Six cards: J, Q, K in two suits. Both players ante 1 and get one private card.
Two betting rounds; the raise is 2 in the first round and 4 in the second; at
most two raises a round; player 0 acts first in both rounds; a round ends on
check-check or on a call. After the first round one public card is dealt. At
showdown a player whose card pairs the board wins, otherwise the higher rank
wins; equal ranks split. 936 information sets; game value for player 0 is
about -0.0856.

Cards are ints 0..5: rank ``card // 2`` (J, Q, K), suit ``card % 2`` (s, h).
Action ids: 0 = fold (only legal facing a raise), 1 = check/call, 2 = bet/raise.
Information-state key: ``"<card>[ <board>]:<round-1 letters>[/<round-2 letters>]"``
with letters ``f``/``c``/``r``, e.g. ``"Ks:cr"`` or ``"Ks Qh:rc/c"``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pokerai.games.protocol import CHANCE, TERMINAL, PlayerDerivedFlags, check_legal, deal_outcomes

FOLD, CALL, RAISE = 0, 1, 2
CARD_NAMES = ("Js", "Jh", "Qs", "Qh", "Ks", "Kh")
RAISE_SIZES = (2, 4)
MAX_RAISES_PER_ROUND = 2
ANTE = 1


def _round_over(letters: str) -> bool:
    """True when a round's betting letters close the round (check-check or a call)."""
    return letters == "cc" or (len(letters) >= 2 and letters[-1] == "c" and "r" in letters)


@dataclass(frozen=True, slots=True)
class LeducState(PlayerDerivedFlags):
    """A Leduc history: cards dealt (two private, then the board) and each round's letters."""

    cards: tuple[int, ...] = ()
    rounds: tuple[str, ...] = ("",)

    @property
    def board(self) -> int | None:
        return self.cards[2] if len(self.cards) > 2 else None

    def contributions(self) -> list[int]:
        """Chips each player has put in so far, antes included (depends only on the betting)."""
        chips = [ANTE, ANTE]
        for round_index, letters in enumerate(self.rounds):
            to_match = 0  # what the player to act must add to call
            for i, letter in enumerate(letters):
                player = i % 2
                if letter == "c":
                    chips[player] += to_match
                    to_match = 0
                elif letter == "r":
                    chips[player] += to_match + RAISE_SIZES[round_index]
                    to_match = RAISE_SIZES[round_index]
        return chips

    def current_player(self) -> int:
        if len(self.cards) < 2:
            return CHANCE
        letters = self.rounds[-1]
        if letters.endswith("f"):
            return TERMINAL
        if _round_over(letters):
            return CHANCE if len(self.rounds) == 1 and self.board is None else TERMINAL
        return len(letters) % 2

    def legal_actions(self) -> Sequence[int]:
        if self.current_player() < 0:
            return ()
        letters = self.rounds[-1]
        facing_raise = letters.endswith("r")
        actions = [FOLD] if facing_raise else []
        actions.append(CALL)
        if letters.count("r") < MAX_RAISES_PER_ROUND:
            actions.append(RAISE)
        return tuple(actions)

    def chance_outcomes(self) -> Sequence[tuple[int, float]]:
        if not self.is_chance():
            return ()
        return deal_outcomes(6, self.cards)

    def child(self, action: int) -> LeducState:
        check_legal(self, action)
        if self.is_chance():
            cards = (*self.cards, action)
            # Dealing the board opens the second round.
            return LeducState(cards, (*self.rounds, "") if len(cards) == 3 else self.rounds)
        letter = "fcr"[action]
        return LeducState(self.cards, (*self.rounds[:-1], self.rounds[-1] + letter))

    def returns(self) -> tuple[float, float]:
        if not self.is_terminal():
            raise ValueError(f"returns are only defined at the end of the game, not at {self}")
        chips = self.contributions()
        letters = self.rounds[-1]
        if letters.endswith("f"):
            loser = (len(letters) - 1) % 2
            winner = 1 - loser
        else:
            strength = [self._showdown_strength(self.cards[p]) for p in (0, 1)]
            if strength[0] == strength[1]:
                return (0.0, 0.0)
            winner = 0 if strength[0] > strength[1] else 1
            loser = 1 - winner
        amount = float(chips[loser])
        return (amount, -amount) if winner == 0 else (-amount, amount)

    def _showdown_strength(self, card: int) -> int:
        assert self.board is not None
        rank = card // 2
        return 10 + rank if rank == self.board // 2 else rank

    def information_state_key(self, player: int) -> str:
        cards = CARD_NAMES[self.cards[player]]
        if self.board is not None:
            cards += " " + CARD_NAMES[self.board]
        return f"{cards}:{'/'.join(self.rounds)}"

    def action_name(self, action: int) -> str:
        if self.is_chance():
            return CARD_NAMES[action]
        letters = self.rounds[-1]
        if action == FOLD:
            return "fold"
        if action == CALL:
            return "call" if letters.endswith("r") else "check"
        return "raise" if "r" in letters else "bet"

    def __str__(self) -> str:
        return " ".join(CARD_NAMES[c] for c in self.cards) + " " + "/".join(self.rounds)


class LeducPoker:
    """Leduc hold'em; see the module docstring for the rules and encoding."""

    name = "leduc"
    num_players = 2
    num_distinct_actions = 3

    def initial_state(self) -> LeducState:
        return LeducState()
