"""The heads-up no-limit hold'em state machine.

One mutable :class:`HUNLState` per hand. Every action is a small frozen
:class:`Action` appended to ``state.history``. Each action has three faces
(after pokerkit): ``verify_x()`` raises ``ValueError`` with a sentence that
names the bad value and leaves the state untouched, ``can_x()`` returns a bool,
and ``x()`` verifies and then mutates. Chips are ``int``.

Conventions
-----------
* Players are 0 and 1. ``button`` is the player who posts the small blind,
  acts first preflop and last on the flop, turn and river. The other player
  posts the big blind.
* A player who cannot cover a blind posts what it has and is all-in.
* ``raise_to(amount)``: ``amount`` is the player's total bet *on this street*
  after the raise (a bet when nobody has bet yet). The minimum is the highest
  bet on the street plus the larger of the big blind and the largest bet or
  raise increment made on this street so far; a player who cannot afford
  that may still go all-in for less. The maximum is the player's whole stack
  (its bet on this street plus its chips behind), even if the opponent has
  fewer chips: the uncalled part is returned when the betting round ends.
* Folding is legal only when facing a bet (checking is free), as in pokerkit.
* Nobody may raise an all-in player. In heads-up this is also what the rule
  "an all-in for less than a full raise does not reopen the betting for a
  player who has already acted" reduces to: a short all-in always leaves its
  maker with no chips, so the one player who could re-raise faces an all-in
  opponent and may only call or fold. A player who is all-in, or who faces
  an all-in and has matched it, has no decision left: the rest of the board
  is dealt and the hand goes to showdown (so, unlike pokerkit, there is no
  forced check by a big blind who already covers an all-in call).
* The deal is nine cards: ``deck[0:2]`` are player 0's hole cards,
  ``deck[2:4]`` player 1's and ``deck[4:9]`` the board (flop, turn, river).
  The board is revealed street by street; ``state.board`` holds only the
  cards dealt so far.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from pokerai.engine.cards import BOARD_SIZES, check_distinct, format_cards
from pokerai.engine.evaluator import rank_hand

NUM_PLAYERS = 2


class Street(enum.IntEnum):
    PREFLOP = 0
    FLOP = 1
    TURN = 2
    RIVER = 3


class ActionKind(enum.IntEnum):
    """What a player does. ``RAISE`` covers a bet (nobody has bet yet this street) and a raise."""

    FOLD = 0
    CHECK = 1
    CALL = 2
    RAISE = 3


@dataclass(frozen=True, slots=True)
class Action:
    """One player action.

    ``amount`` is 0 for a fold or check, the chips added for a call, and the
    player's total bet on the street after a raise (raise-to) for ``RAISE``.
    """

    player: int
    kind: ActionKind
    amount: int = 0

    def __str__(self) -> str:
        if self.kind is ActionKind.RAISE:
            return f"player {self.player} raises to {self.amount}"
        if self.kind is ActionKind.CALL:
            return f"player {self.player} calls {self.amount}"
        return f"player {self.player} {self.kind.name.lower()}s"


def _is_int(value: object) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


@dataclass(frozen=True, slots=True)
class HUNLConfig:
    """Blinds and starting stacks (by player index) of one heads-up hand. Validated on construction."""

    small_blind: int = 50
    big_blind: int = 100
    stacks: tuple[int, int] = (20_000, 20_000)

    def __post_init__(self) -> None:
        if not _is_int(self.small_blind) or self.small_blind <= 0:
            raise ValueError(f"small blind {self.small_blind!r} is not a positive whole number of chips")
        if not _is_int(self.big_blind) or self.big_blind <= 0:
            raise ValueError(f"big blind {self.big_blind!r} is not a positive whole number of chips")
        if self.small_blind > self.big_blind:
            raise ValueError(f"small blind {self.small_blind} is larger than the big blind {self.big_blind}")
        stacks = tuple(self.stacks)
        if len(stacks) != NUM_PLAYERS:
            raise ValueError(f"stacks {self.stacks!r} must hold exactly two starting stacks")
        for stack in stacks:
            if not _is_int(stack) or stack <= 0:
                raise ValueError(f"starting stack {stack!r} is not a positive whole number of chips")
        object.__setattr__(self, "small_blind", int(self.small_blind))
        object.__setattr__(self, "big_blind", int(self.big_blind))
        object.__setattr__(self, "stacks", (int(stacks[0]), int(stacks[1])))


_new_state = object.__new__
# Enum members as module constants: reading ``ActionKind.RAISE`` costs an attribute lookup on the
# enum class, noticeable in the transitions that tree traversals run millions of times.
_FOLD = ActionKind.FOLD
_CHECK = ActionKind.CHECK
_CALL = ActionKind.CALL
_RAISE = ActionKind.RAISE
_RIVER = int(Street.RIVER)
_SHOWDOWN_WINNERS: dict[tuple[int, ...], int | None] = {}
"""The showdown winner (None: a split) of recent deals: a tree traversal reaches many showdowns of
one deal. Cleared when it holds ``_SHOWDOWN_CACHE_SIZE`` deals."""
_SHOWDOWN_CACHE_SIZE = 4096


def _passes(verify: Callable[..., None], *arguments: object) -> bool:
    """Whether ``verify(*arguments)`` returns without raising ``ValueError`` (a ``can_x`` of ``verify_x``)."""
    try:
        verify(*arguments)
    except ValueError:
        return False
    return True


def _check_player(player: object) -> int:
    if not _is_int(player) or not 0 <= int(player) < NUM_PLAYERS:  # type: ignore[call-overload]
        raise ValueError(f"player {player!r} is not 0 or 1")
    return int(player)  # type: ignore[call-overload]


@dataclass(slots=True, eq=False)
class HUNLState:
    """One heads-up no-limit hold'em hand in progress. Build it with :meth:`new`.

    Public attributes are read-only by convention; change the state only through
    the action methods.
    """

    config: HUNLConfig
    button: int
    deal: tuple[int, ...]
    """Nine cards: player 0's hole cards, player 1's, then the five board cards, the undealt ones
    included. Engine-internal: what a player may see is ``board`` and its own ``hole_cards``."""
    stacks: list[int]
    """Chips behind for each player (at the end: final stacks, pot awarded)."""
    bets: list[int]
    """Each player's bet on the current street."""
    committed: list[int]
    """Each player's chips put in the pot this hand, current street included (net of returned chips)."""
    street: int = 0
    to_act: int | None = None
    """The player whose turn it is, or None when the hand is over."""
    is_over: bool = False
    folded: int | None = None
    """The player who folded, if one did."""
    history: list[Action] = field(default_factory=list)
    street_starts: list[int] = field(default_factory=lambda: [0])
    """``history`` index where each street reached so far began."""
    last_raise_size: int = 0
    """The largest bet or raise increment on this street (0 before any)."""
    acted: list[bool] = field(default_factory=lambda: [False, False])
    """Whether each player has acted on this street (posting a blind is not acting)."""
    final_pot: int = 0
    """The pot that was awarded at the end (0 while the hand is running)."""
    hole_cards_known: tuple[bool, bool] = (True, True)
    """False for a player whose hole cards are placeholders (a state rebuilt from a MATCHSTATE line)."""

    # ------------------------------------------------------------------ construction

    @classmethod
    def new(
        cls,
        config: HUNLConfig | None = None,
        button: int = 0,
        *,
        rng: np.random.Generator | None = None,
        deck: Sequence[int] | None = None,
    ) -> HUNLState:
        """A fresh hand with the blinds posted.

        Exactly one of ``rng`` (nine cards drawn without replacement) and ``deck``
        (at least nine distinct card ids, the first nine used as described in the
        module docstring) gives the cards.

        >>> from pokerai.engine.cards import format_cards, parse_cards
        >>> state = HUNLState.new(button=0, deck=parse_cards("AhKh QsQd Ks7d2c 3h 4s"))
        >>> state.to_act, state.call_amount, state.min_raise_to
        (0, 50, 200)
        >>> state.apply(Action(0, ActionKind.RAISE, 300))
        Action(player=0, kind=<ActionKind.RAISE: 3>, amount=300)
        >>> state.apply(Action(1, ActionKind.CALL, 200))
        Action(player=1, kind=<ActionKind.CALL: 2>, amount=200)
        >>> state.street, format_cards(state.board), state.stacks, state.to_act
        (1, 'Ks7d2c', [19700, 19700], 1)
        >>> state.apply(Action(1, ActionKind.RAISE, 50))
        Traceback (most recent call last):
        ...
        ValueError: raise to 50 is below the minimum raise to 100
        >>> for action in (Action(1, ActionKind.CHECK), Action(0, ActionKind.RAISE, 400)):
        ...     print(state.apply(action))
        player 1 checks
        player 0 raises to 400
        >>> print(state.apply(Action(1, ActionKind.FOLD)))
        player 1 folds
        >>> state.is_over, state.returns()
        (True, (300, -300))
        """
        config = config if config is not None else HUNLConfig()
        button = _check_player(button)
        if (rng is None) == (deck is None):
            raise ValueError("give exactly one of rng (a numpy Generator) and deck (at least nine cards)")
        if rng is not None:
            cards = tuple(rng.permutation(52)[:9].tolist())
        else:
            assert deck is not None
            if len(deck) < 9:
                raise ValueError(f"a deck of {len(deck)} cards is too short: a hand needs nine")
            check_distinct(deck)
            cards = tuple(int(card) for card in deck[:9])
        return cls._posted(config, button, cards)

    @classmethod
    def _posted(cls, config: HUNLConfig, button: int, cards: tuple[int, ...]) -> HUNLState:
        big = 1 - button
        stacks = list(config.stacks)
        bets = [0, 0]
        bets[button] = min(config.small_blind, stacks[button])
        bets[big] = min(config.big_blind, stacks[big])
        stacks[button] -= bets[button]
        stacks[big] -= bets[big]
        state = cls(config=config, button=button, deal=cards, stacks=stacks, bets=bets, committed=bets[:])
        state._advance(big)
        return state

    def clone(self) -> HUNLState:
        """An independent copy (history list and counters copied; actions are immutable)."""
        # Slot by slot rather than through __init__: cloning is the hot path of tree traversals.
        copy = _new_state(HUNLState)
        copy.config = self.config
        copy.button = self.button
        copy.deal = self.deal
        copy.stacks = self.stacks[:]
        copy.bets = self.bets[:]
        copy.committed = self.committed[:]
        copy.street = self.street
        copy.to_act = self.to_act
        copy.is_over = self.is_over
        copy.folded = self.folded
        copy.history = self.history[:]
        copy.street_starts = self.street_starts[:]
        copy.last_raise_size = self.last_raise_size
        copy.acted = self.acted[:]
        copy.final_pot = self.final_pot
        copy.hole_cards_known = self.hole_cards_known
        return copy

    def after(self, kind: ActionKind, amount: int = 0) -> HUNLState:
        """A copy of this state with an action of ``kind`` played, *unverified*.

        As ``clone()`` then ``apply(Action(to_act, kind, amount), verify=False)``: for callers
        that took ``kind`` and ``amount`` (the raise-to of a ``RAISE``; ignored otherwise) from
        this very state's legal bounds, such as the bet-menu slots of a traversal.
        """
        copy = self.clone()
        if kind is _FOLD:
            copy._fold()
        elif kind is _RAISE:
            copy._raise_to(amount)
        else:
            copy._check_or_call()
        return copy

    # ------------------------------------------------------------------ views

    @property
    def board(self) -> tuple[int, ...]:
        """The board cards dealt so far (0, 3, 4 or 5 of them)."""
        return self.deal[4 : 4 + BOARD_SIZES[self.street]]

    def hole_cards(self, player: int) -> tuple[int, int]:
        player = _check_player(player)
        return self.deal[2 * player], self.deal[2 * player + 1]

    @property
    def pot(self) -> int:
        """Chips in the middle, bets on this street included; 0 once the pot has been awarded."""
        return 0 if self.is_over else self.committed[0] + self.committed[1]

    @property
    def big_blind_player(self) -> int:
        return 1 - self.button

    @property
    def call_amount(self) -> int:
        """Chips the player to act must add to call (capped by its stack); 0 when it may check."""
        player = self.to_act
        if player is None:
            return 0
        return min(self.bets[1 - player] - self.bets[player], self.stacks[player])

    def legal_actions(self) -> tuple[ActionKind, ...]:
        """The legal action kinds, in ``ActionKind`` order; empty when the hand is over."""
        player = self.to_act
        if player is None:
            return ()
        facing = self.bets[1 - player] - self.bets[player]
        can_raise = self.stacks[1 - player] > 0 and self.stacks[player] > facing
        if facing > 0:
            if can_raise:
                return (ActionKind.FOLD, ActionKind.CALL, ActionKind.RAISE)
            return (ActionKind.FOLD, ActionKind.CALL)
        if can_raise:
            return (ActionKind.CHECK, ActionKind.RAISE)
        return (ActionKind.CHECK,)

    @property
    def min_raise_to(self) -> int | None:
        """The smallest legal raise-to (a street total), or None when raising is not legal."""
        player = self.to_act
        if player is None or not self._raise_possible(player):
            return None
        full = self.bets[1 - player] + max(self.last_raise_size, self.config.big_blind)
        return min(full, self.stacks[player] + self.bets[player])

    @property
    def max_raise_to(self) -> int | None:
        """The largest legal raise-to (all-in), or None when raising is not legal."""
        player = self.to_act
        if player is None or not self._raise_possible(player):
            return None
        return self.stacks[player] + self.bets[player]

    def returns(self) -> tuple[int, int]:
        """Each player's net chips won in the hand (they sum to 0). Only defined once the hand is over."""
        if not self.is_over:
            raise ValueError("the hand is not over, so it has no returns yet")
        starting = self.config.stacks
        return (self.stacks[0] - starting[0], self.stacks[1] - starting[1])

    # ------------------------------------------------------------------ verification

    def _raise_possible(self, player: int) -> bool:
        return self.stacks[1 - player] > 0 and self.stacks[player] > self.bets[1 - player] - self.bets[player]

    def _verify_turn(self, player: int | None) -> int:
        actor = self.to_act
        if actor is None:
            raise ValueError("the hand is over; no action is legal")
        if player is not None and player != actor:
            raise ValueError(f"it is player {actor}'s turn, not player {player}'s")
        return actor

    def _verify_facing_bet(self, player: int | None, verb: str) -> None:
        actor = self._verify_turn(player)
        if self.bets[1 - actor] <= self.bets[actor]:
            raise ValueError(f"player {actor} cannot {verb}: there is no bet to call, so check instead")

    def verify_fold(self, player: int | None = None) -> None:
        self._verify_facing_bet(player, "fold")

    def can_fold(self, player: int | None = None) -> bool:
        return _passes(self.verify_fold, player)

    def verify_check(self, player: int | None = None) -> None:
        actor = self._verify_turn(player)
        facing = self.bets[1 - actor] - self.bets[actor]
        if facing > 0:
            raise ValueError(f"player {actor} cannot check: it faces a bet of {facing} more")

    def can_check(self, player: int | None = None) -> bool:
        return _passes(self.verify_check, player)

    def verify_call(self, player: int | None = None) -> None:
        self._verify_facing_bet(player, "call")

    def can_call(self, player: int | None = None) -> bool:
        return _passes(self.verify_call, player)

    def verify_check_or_call(self, player: int | None = None) -> None:
        self._verify_turn(player)

    def can_check_or_call(self, player: int | None = None) -> bool:
        return self.to_act is not None and (player is None or player == self.to_act)

    def verify_raise_to(self, amount: int, player: int | None = None) -> None:
        actor = self._verify_turn(player)
        if not _is_int(amount):
            raise ValueError(f"raise to {amount!r} is not a whole number of chips")
        opponent = 1 - actor
        if self.stacks[opponent] == 0:
            last = self.history[-1] if self.history else None
            if (
                last is not None
                and last.kind is ActionKind.RAISE
                and last.player == opponent
                and self.acted[actor]
                and self.bets[actor] > 0
                and last.amount - self.bets[actor] < max(self.last_raise_size, self.config.big_blind)
            ):
                raise ValueError(
                    f"player {actor} cannot raise: player {opponent}'s all-in raise to {last.amount} was "
                    f"less than a full raise and does not reopen the betting"
                )
            raise ValueError(f"player {actor} cannot raise: player {opponent} is all-in")
        facing = self.bets[opponent] - self.bets[actor]
        if self.stacks[actor] <= facing:
            raise ValueError(
                f"player {actor} cannot raise: its stack of {self.stacks[actor]} does not cover more "
                f"than the call of {facing}"
            )
        maximum = self.stacks[actor] + self.bets[actor]
        minimum = min(self.bets[opponent] + max(self.last_raise_size, self.config.big_blind), maximum)
        if amount < minimum:
            raise ValueError(f"raise to {amount} is below the minimum raise to {minimum}")
        if amount > maximum:
            raise ValueError(f"raise to {amount} is above player {actor}'s all-in raise to {maximum}")

    def can_raise_to(self, amount: int, player: int | None = None) -> bool:
        return _passes(self.verify_raise_to, amount, player)

    def verify(self, action: Action) -> None:
        """Raise ``ValueError`` saying why ``action`` is not legal here; return if it is."""
        kind = action.kind
        if kind is ActionKind.FOLD:
            self.verify_fold(action.player)
        elif kind is ActionKind.CHECK:
            self.verify_check(action.player)
        elif kind is ActionKind.CALL:
            self.verify_call(action.player)
            if action.amount and action.amount != self.call_amount:
                raise ValueError(
                    f"call of {action.amount} does not match the amount to call, {self.call_amount}"
                )
        elif kind is ActionKind.RAISE:
            self.verify_raise_to(action.amount, action.player)
        else:  # pragma: no cover - ActionKind is closed
            raise ValueError(f"unknown action kind {kind!r}")

    def can_apply(self, action: Action) -> bool:
        return _passes(self.verify, action)

    # ------------------------------------------------------------------ actions

    def fold(self) -> Action:
        self.verify_fold()
        return self._fold()

    def _fold(self) -> Action:
        actor = self.to_act
        assert actor is not None
        action = Action(actor, _FOLD, 0)
        self.history.append(action)
        self.acted[actor] = True
        self.folded = actor
        self._finish(winner=1 - actor)
        return action

    def check(self) -> Action:
        self.verify_check()
        return self._check_or_call()

    def call(self) -> Action:
        self.verify_call()
        return self._check_or_call()

    def check_or_call(self) -> Action:
        self._verify_turn(None)
        return self._check_or_call()

    def _check_or_call(self) -> Action:
        actor = self.to_act
        assert actor is not None
        bets = self.bets
        stacks = self.stacks
        amount = bets[1 - actor] - bets[actor]
        if stacks[actor] < amount:
            amount = stacks[actor]
        if amount > 0:
            stacks[actor] -= amount
            bets[actor] += amount
            self.committed[actor] += amount
            action = Action(actor, _CALL, amount)
        else:
            action = Action(actor, _CHECK, 0)
        self.history.append(action)
        self.acted[actor] = True
        self._advance(actor)
        return action

    def raise_to(self, amount: int) -> Action:
        self.verify_raise_to(amount)
        return self._raise_to(amount)

    def _raise_to(self, amount: int) -> Action:
        actor = self.to_act
        assert actor is not None
        amount = int(amount)
        bets = self.bets
        increment = amount - bets[1 - actor]
        added = amount - bets[actor]
        self.stacks[actor] -= added
        bets[actor] = amount
        self.committed[actor] += added
        if increment > self.last_raise_size:
            self.last_raise_size = increment
        action = Action(actor, _RAISE, amount)
        self.history.append(action)
        self.acted[actor] = True
        self._advance(actor)
        return action

    def apply(self, action: Action, *, verify: bool = True) -> Action:
        """Verify and play a typed action; returns the action as recorded (a call with its amount).

        A ``CALL`` may leave ``amount`` at 0; a non-zero amount must equal ``call_amount``.
        ``verify=False`` skips the check, for callers that built ``action`` from this very
        state's legal bounds (the bet-menu slots of a traversal); an illegal action then
        corrupts the state.
        """
        if verify:
            self.verify(action)
        kind = action.kind
        if kind is _FOLD:
            return self._fold()
        if kind is _RAISE:
            return self._raise_to(action.amount)
        return self._check_or_call()

    # ------------------------------------------------------------------ transitions

    def _needs_to_act(self, player: int, other: int) -> bool:
        """Whether ``player`` has a decision after ``other`` acted (or posted)."""
        stacks = self.stacks
        if stacks[player] == 0:
            return False
        if self.bets[player] < self.bets[other]:
            return True
        return not self.acted[player] and stacks[other] > 0

    def _advance(self, last: int) -> None:
        """Pick the next player after ``last`` acted; end the street or the hand when nobody can act."""
        other = 1 - last
        stacks = self.stacks
        # _needs_to_act(other, last), inlined: this runs after every action.
        if stacks[other] != 0 and (
            self.bets[other] < self.bets[last] or (not self.acted[other] and stacks[last] > 0)
        ):
            self.to_act = other
            return
        if not self.history and self._needs_to_act(last, other):
            # Preflop before any action: the button could not act (all-in on its blind), the big blind may.
            self.to_act = last
            return
        self._return_uncalled()
        if stacks[0] > 0 and stacks[1] > 0 and self.street < _RIVER:
            self.street += 1
            self.bets[0] = self.bets[1] = 0
            self.acted[0] = self.acted[1] = False
            self.last_raise_size = 0
            self.street_starts.append(len(self.history))
            self.to_act = 1 - self.button
            return
        while self.street < _RIVER:  # all-in: deal the rest of the board
            self.street += 1
            self.street_starts.append(len(self.history))
        self._showdown()

    def _return_uncalled(self) -> None:
        bets = self.bets
        excess = bets[0] - bets[1]
        if excess:
            player = 0 if excess > 0 else 1
            excess = abs(excess)
            bets[player] -= excess
            self.stacks[player] += excess
            self.committed[player] -= excess

    def _showdown(self) -> None:
        deal = self.deal
        cached = type(deal) is tuple
        winner = _SHOWDOWN_WINNERS.get(deal, -1) if cached else -1
        if winner == -1:
            board = deal[4:9]
            rank0 = rank_hand([deal[0], deal[1], *board])
            rank1 = rank_hand([deal[2], deal[3], *board])
            winner = 0 if rank0 > rank1 else 1 if rank1 > rank0 else None
            if cached:
                if len(_SHOWDOWN_WINNERS) >= _SHOWDOWN_CACHE_SIZE:
                    _SHOWDOWN_WINNERS.clear()
                _SHOWDOWN_WINNERS[deal] = winner
        self._finish(winner=winner)

    def _finish(self, winner: int | None) -> None:
        """Award the pot to ``winner`` (None: split; the pot is even after uncalled chips are returned)."""
        if winner is not None:
            self._return_uncalled()
        pot = self.committed[0] + self.committed[1]
        if winner is None:
            assert self.committed[0] == self.committed[1]
            self.stacks[0] += pot // 2
            self.stacks[1] += pot // 2
        else:
            self.stacks[winner] += pot
        self.final_pot = pot
        self.to_act = None
        self.is_over = True

    # ------------------------------------------------------------------ readable

    def __repr__(self) -> str:
        return (
            f"HUNLState(street={Street(self.street).name}, board={format_cards(self.board) or '-'}, "
            f"stacks={self.stacks}, bets={self.bets}, pot={self.pot}, to_act={self.to_act}, "
            f"actions={len(self.history)})"
        )


__all__ = [
    "BOARD_SIZES",
    "Action",
    "ActionKind",
    "HUNLConfig",
    "HUNLState",
    "Street",
]
