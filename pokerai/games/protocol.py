"""The Game / State protocol every game in pokerai implements.

Solvers, evaluators and agents see a game only through this small interface
(after OpenSpiel's game API): an initial state; whether a state is terminal, a
chance node or a player's decision; chance outcomes with their probabilities;
legal actions; the child reached by an action; the returns at a terminal; and
an information-state key per player.

Conventions
-----------
* Players are numbered 0 and 1 ("player 1" in the docs and the papers is
  player index 0). ``CHANCE`` and ``TERMINAL`` are the pseudo-players of chance
  nodes and terminal states.
* Actions are small non-negative ints below ``Game.num_distinct_actions``; the
  same int means the same kind of action everywhere in a game (for example
  Leduc: 0 fold, 1 check/call, 2 bet/raise), so a dense policy table can have
  one column per action id.
* States are immutable: ``child`` returns a new state.
* ``information_state_key(player)`` is a string that identifies everything
  ``player`` knows at that state (own private cards, public cards, the public
  action history). Two states share the key exactly when the player cannot
  tell them apart.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

CHANCE = -1
"""``State.current_player()`` at a chance node."""

TERMINAL = -2
"""``State.current_player()`` at a terminal state."""


@runtime_checkable
class State(Protocol):
    """One history of a game. Immutable."""

    def current_player(self) -> int:
        """0 or 1 at a decision, ``CHANCE`` at a chance node, ``TERMINAL`` at the end."""
        ...

    def is_terminal(self) -> bool:
        """True when the game is over and ``returns()`` is defined."""
        ...

    def is_chance(self) -> bool:
        """True at a chance node (cards are dealt)."""
        ...

    def legal_actions(self) -> Sequence[int]:
        """Legal action ids at a decision node, ascending. Empty elsewhere."""
        ...

    def chance_outcomes(self) -> Sequence[tuple[int, float]]:
        """``(outcome, probability)`` pairs at a chance node; probabilities sum to 1."""
        ...

    def child(self, action: int) -> State:
        """The state reached by playing ``action`` (or dealing chance outcome ``action``).

        Raises ``ValueError`` naming the action when it is not legal here.
        """
        ...

    def returns(self) -> tuple[float, float]:
        """Each player's payoff at a terminal state (zero-sum: they add up to 0)."""
        ...

    def information_state_key(self, player: int) -> str:
        """A string identifying what ``player`` knows at this state."""
        ...

    def action_name(self, action: int) -> str:
        """A readable name for ``action`` at this state (``"check"``, ``"raise"``, ``"Ks"``)."""
        ...


@runtime_checkable
class Game(Protocol):
    """A two-player zero-sum extensive-form game with chance."""

    @property
    def name(self) -> str:
        """Short name, e.g. ``"kuhn"``; parameters included where they matter (``"akq(B=2)"``)."""
        ...

    @property
    def num_players(self) -> int:
        """Always 2 here."""
        ...

    @property
    def num_distinct_actions(self) -> int:
        """Action ids are ``0 .. num_distinct_actions - 1``."""
        ...

    def initial_state(self) -> State:
        """The root of the game tree (usually a chance node that deals cards)."""
        ...


class PlayerDerivedFlags:
    """Mixin: ``is_terminal`` and ``is_chance`` read off ``current_player()``."""

    __slots__ = ()

    def current_player(self) -> int:
        raise NotImplementedError

    def is_terminal(self) -> bool:
        return self.current_player() == TERMINAL

    def is_chance(self) -> bool:
        return self.current_player() == CHANCE


def deal_outcomes(deck_size: int, dealt: Sequence[int]) -> tuple[tuple[int, float], ...]:
    """The chance outcomes of dealing one card, equally likely, from cards ``0 .. deck_size - 1``
    not in ``dealt``: ``((card, probability), ...)`` in card order."""
    remaining = [card for card in range(deck_size) if card not in dealt]
    return tuple((card, 1.0 / len(remaining)) for card in remaining)


def check_legal(state: State, action: int) -> None:
    """Raise ``ValueError`` with a plain sentence if ``action`` is not legal at ``state``."""
    if state.is_terminal():
        raise ValueError(f"no action can be played: the game is over (action {action!r})")
    if state.is_chance():
        outcomes = [outcome for outcome, _ in state.chance_outcomes()]
        if action not in outcomes:
            raise ValueError(
                f"chance outcome {action!r} is not possible here; possible outcomes are {outcomes}"
            )
        return
    legal = list(state.legal_actions())
    if action not in legal:
        names = ", ".join(f"{a} ({state.action_name(a)})" for a in legal)
        raise ValueError(f"action {action!r} is not legal here; legal actions are {names}")
