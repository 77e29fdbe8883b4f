"""Heads-up no-limit hold'em as a protocol game: the engine's hand with a bet menu as its actions.

The learning game behind the Deep CFR blueprint (Brown et al., "Deep
Counterfactual Regret Minimization", ICML 2019). It wraps the engine's
:class:`~pokerai.engine.state.HUNLState` and offers the fixed action slots of
a :class:`~pokerai.abstraction.bets.BetAbstraction` as its actions.

Conventions
-----------
* **Player 0 is always the button** (small blind: acts first preflop, last
  after the flop) and player 1 the big blind, so each seat can have its own
  networks.
* Actions are slot ids (:mod:`pokerai.abstraction.bets`): 0 fold, 1 check or
  call, ``2 ..`` the menu's pot fractions, the last slot all-in. A slot means
  the same action in every state; ``legal_mask()`` says which are legal here.
* The root (:meth:`HUNLGame.initial_state`) is a chance node whose deal is
  *sampled*, never enumerated (there are about 2.8 × 10^12 deals of nine
  cards): call :meth:`HUNLDealState.sample_chance` with a
  ``np.random.Generator``. After the deal the board is revealed street by
  street by the engine, so every later state is a decision or terminal.
* Returns are in chips, as floats.

Information-state key
---------------------
``"<seat>|<hole>|<board>|<history>"``, e.g. ``"0|AhKd|2c7dQs|r300,c/x,b200"``:
the player's seat, its hole cards (lower card id first), the board dealt so
far (the flop's three cards in ascending id order, then the turn and the
river), and the betting of each street reached, streets separated by ``/``
and actions by ``,``: ``f`` fold, ``x`` check, ``c<chips>`` call,
``b<chips>`` bet and ``r<chips>`` raise to a street total. Hole cards and the
flop are sorted because a player cannot tell the order in which they were
dealt.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from pokerai.abstraction.bets import (
    CHECK_CALL_SLOT,
    FOLD_SLOT,
    BetAbstraction,
    BetMenu,
    legal_slot_amounts,
    slot_actions,
    slot_names,
)
from pokerai.engine.cards import BOARD_SIZES, format_cards
from pokerai.engine.equity import runout_equity
from pokerai.engine.state import Action, ActionKind, HUNLConfig, HUNLState, Street
from pokerai.games.protocol import CHANCE, TERMINAL, PlayerDerivedFlags, check_legal

DEAL_SIZE = 9
"""Cards in one deal: player 0's two hole cards, player 1's two, then the five board cards."""
BUTTON = 0
"""The seat of the button (small blind) in the learning game; the big blind is seat 1."""



@functools.lru_cache(maxsize=1 << 14)
def _all_in_share(first: tuple[int, ...], second: tuple[int, ...], board: tuple[int, ...]) -> float:
    """Seat 0's pot share over the run-outs, cached: a traversal meets one deal's all-ins many times."""
    return runout_equity((first[0], first[1]), (second[0], second[1]), board)


def _format_menu(menu: BetMenu) -> str:
    sizes = "/".join(f"{fraction:g}" for fraction in menu.pot_fractions)
    if menu.all_in:
        all_in = f"all-in<={menu.all_in_max_pots:g}pot" if menu.all_in_max_pots > 0 else "all-in"
        text = f"{sizes}+{all_in}" if sizes else all_in
    else:
        text = sizes or "none"
    return f"{text} (<={menu.max_raises} raises)" if menu.max_raises else text


def _format_abstraction(bets: BetAbstraction) -> str:
    menus = [bets.menu(street) for street in Street]
    if all(menu == menus[0] for menu in menus):
        return _format_menu(menus[0])
    return " ".join(f"{Street(street).name.lower()} {_format_menu(menus[street])}" for street in Street)


def _format_depth(config: HUNLConfig) -> str:
    depths = [f"{stack / config.big_blind:g}bb" for stack in config.stacks]
    return depths[0] if depths[0] == depths[1] else "/".join(depths)


class HUNLGame:
    """Heads-up no-limit hold'em with a bet menu; see the module docstring.

    ``config`` gives the blinds and starting stacks (by seat; seat 0 is the
    button), ``bets`` the menu of raise sizes per street.
    """

    num_players = 2

    def __init__(self, config: HUNLConfig | None = None, bets: BetAbstraction | None = None) -> None:
        if config is not None and not isinstance(config, HUNLConfig):
            raise ValueError(f"config {config!r} is not a HUNLConfig")
        if bets is not None and not isinstance(bets, BetAbstraction):
            raise ValueError(f"bets {bets!r} is not a BetAbstraction")
        self._config = config if config is not None else HUNLConfig()
        self._bets = bets if bets is not None else BetAbstraction()
        self._num_slots = self._bets.num_slots

    @property
    def config(self) -> HUNLConfig:
        """Blinds and starting stacks by seat."""
        return self._config

    @property
    def bets(self) -> BetAbstraction:
        """The bet menu whose slots are the actions."""
        return self._bets

    @property
    def name(self) -> str:
        """E.g. ``"hunl(50/100, 200bb, menu 0.5/1/2+all-in)"``."""
        config = self._config
        return (
            f"hunl({config.small_blind}/{config.big_blind}, {_format_depth(config)}, "
            f"menu {_format_abstraction(self._bets)})"
        )

    @property
    def num_distinct_actions(self) -> int:
        """The number of action slots of the bet menu."""
        return self._num_slots

    def initial_state(self) -> HUNLDealState:
        """The root: a chance node that deals nine cards (sampled by :meth:`HUNLDealState.sample_chance`)."""
        return HUNLDealState(self)

    def deal(self, rng: np.random.Generator) -> HUNLGameState:
        """The first decision of a hand whose nine cards are drawn from ``rng``."""
        return self.initial_state().sample_chance(rng)

    def from_deck(self, deck: Sequence[int]) -> HUNLGameState:
        """The first decision of a hand with fixed cards.

        ``deck`` is nine distinct card ids: player 0's hole cards, player 1's,
        then the flop, turn and river.
        """
        if len(deck) != DEAL_SIZE:
            raise ValueError(f"a deck of {len(deck)} cards is not a deal: give exactly {DEAL_SIZE} card ids")
        return HUNLGameState(self, HUNLState.new(self._config, button=BUTTON, deck=deck))

    def __repr__(self) -> str:
        return f"HUNLGame({self.name})"


class HUNLDealState(PlayerDerivedFlags):
    """The root of a :class:`HUNLGame`: the deal, a chance node sampled rather than enumerated."""

    __slots__ = ("_game",)

    def __init__(self, game: HUNLGame) -> None:
        self._game = game

    @property
    def game(self) -> HUNLGame:
        return self._game

    def current_player(self) -> int:
        return CHANCE

    def legal_actions(self) -> Sequence[int]:
        return ()

    def chance_outcomes(self) -> Sequence[tuple[int, float]]:
        raise ValueError(
            "hold'em deals are sampled, not enumerated (there are about 2.8e12 of them): "
            "call sample_chance(rng) on the deal node instead"
        )

    def sample_chance(self, rng: np.random.Generator) -> HUNLGameState:
        """Deal nine cards drawn from ``rng`` and return the first decision (the button's, preflop)."""
        if not isinstance(rng, np.random.Generator):
            raise ValueError(f"rng {rng!r} is not a numpy Generator (use np.random.default_rng(seed))")
        return HUNLGameState(self._game, HUNLState.new(self._game.config, button=BUTTON, rng=rng))

    def child(self, action: int) -> HUNLGameState:
        raise ValueError(
            f"outcome {action!r} cannot be dealt: hold'em deals are sampled, not enumerated; "
            "call sample_chance(rng) on the deal node instead"
        )

    def returns(self) -> tuple[float, float]:
        raise ValueError("returns are only defined at the end of a hand, not before the deal")

    def information_state_key(self, player: int) -> str:
        check_seat(player)
        return f"{player}|deal"

    def action_name(self, action: int) -> str:
        return f"deal {action}"

    def __repr__(self) -> str:
        return f"HUNLDealState({self._game.name})"


_NO_AMOUNTS: list[int] = []
_FOLD = ActionKind.FOLD
_CHECK_OR_CALL = ActionKind.CALL
_RAISE = ActionKind.RAISE


def check_seat(player: object) -> int:
    """``player`` as an int, if it is a seat: 0 (button) or 1 (big blind); else ``ValueError``."""
    if isinstance(player, bool) or not isinstance(player, (int, np.integer)) or not 0 <= player <= 1:
        raise ValueError(f"player {player!r} is not 0 (button) or 1 (big blind)")
    return int(player)


def street_raises(state: HUNLState) -> int:
    """Bets and raises made on ``state``'s current street (the blinds are not counted)."""
    raises = 0
    for action in state.history[state.street_starts[state.street] :]:
        if action.kind is _RAISE:
            raises += 1
    return raises


def _history_token(action: Action, street_has_bet: bool) -> str:
    kind = action.kind
    if kind is ActionKind.FOLD:
        return "f"
    if kind is ActionKind.CHECK:
        return "x"
    if kind is ActionKind.CALL:
        return f"c{action.amount}"
    return f"r{action.amount}" if street_has_bet else f"b{action.amount}"


class HUNLGameState(PlayerDerivedFlags):
    """A hand after the deal: a decision of seat 0 or 1, or the end of the hand. Immutable from the outside.

    Wraps one engine state that it never mutates; :meth:`child` clones it and
    applies the slot's action to the copy. The legal slots and their chip
    amounts are computed once, on first use, and so are the legal mask and the
    slots' engine actions.
    """

    __slots__ = ("_actions", "_amounts", "_engine", "_game", "_legal", "_mask")

    def __init__(self, game: HUNLGame, engine: HUNLState) -> None:
        self._game = game
        self._engine = engine
        self._legal: tuple[int, ...] | None = None
        self._amounts: list[int] = _NO_AMOUNTS
        self._mask: npt.NDArray[np.bool_] | None = None
        self._actions: list[Action | None] | None = None

    # ------------------------------------------------------------------ read-only views

    @property
    def game(self) -> HUNLGame:
        return self._game

    @property
    def engine(self) -> HUNLState:
        """The wrapped engine state. Read it, never mutate it: states share nothing but must stay as built."""
        return self._engine

    @property
    def street(self) -> int:
        """0 preflop, 1 flop, 2 turn, 3 river (3 at a showdown)."""
        return self._engine.street

    @property
    def raises_this_street(self) -> int:
        """Bets and raises made on the current street (the blinds are not counted)."""
        return street_raises(self._engine)

    def _legal_slots(self) -> tuple[int, ...]:
        """The legal slots, ascending (computed once, with each slot's chips in ``_amounts``)."""
        legal = self._legal
        if legal is None:
            if self._engine.is_over:
                legal = ()
            else:
                legal, self._amounts = legal_slot_amounts(self._engine, self._game.bets)
            self._legal = legal
        return legal

    def _slots(self) -> tuple[npt.NDArray[np.bool_], list[Action | None]]:
        if self._mask is None or self._actions is None:
            if self._engine.is_over:
                mask = np.zeros(self._game.num_distinct_actions, dtype=np.bool_)
                actions: list[Action | None] = [None] * self._game.num_distinct_actions
            else:
                mask, actions = slot_actions(self._engine, self._game.bets)
            mask.flags.writeable = False
            self._mask, self._actions = mask, actions
        return self._mask, self._actions

    def legal_mask(self) -> npt.NDArray[np.bool_]:
        """Which slots are legal: bool ``[num_slots]``, read-only; all False at the end of the hand."""
        return self._slots()[0]

    def slot_action(self, slot: int) -> Action:
        """The engine action that legal ``slot`` plays here."""
        self._check_slot_legal(slot)
        action = self._slots()[1][slot]
        assert action is not None
        return action

    # ------------------------------------------------------------------ protocol

    def current_player(self) -> int:
        to_act = self._engine.to_act
        return TERMINAL if to_act is None else to_act

    def legal_actions(self) -> tuple[int, ...]:
        """The legal slots in ascending order (the True entries of :meth:`legal_mask`)."""
        legal = self._legal
        return legal if legal is not None else self._legal_slots()

    def chance_outcomes(self) -> Sequence[tuple[int, float]]:
        return ()

    def _check_slot_legal(self, slot: int) -> None:
        mask = self._slots()[0]
        if (
            isinstance(slot, bool)
            or not isinstance(slot, (int, np.integer))
            or not 0 <= slot < mask.shape[0]
            or not mask[slot]
        ):
            check_legal(self, slot)  # raises with the legal slots named
            raise AssertionError(f"slot {slot!r} passed check_legal but is not in the legal mask")

    def child(self, action: int) -> HUNLGameState:
        """The state after playing slot ``action``; ``ValueError`` naming the legal slots if it is illegal."""
        legal = self._legal
        if legal is None:
            legal = self._legal_slots()
        if type(action) is not int or action not in legal:
            self._check_slot_legal(action)  # raises for an illegal slot
            action = int(action)  # a legal numpy integer
        # The slots' actions were built from this state's legal bounds, so they need no second check.
        if action == FOLD_SLOT:
            engine = self._engine.after(_FOLD)
        elif action == CHECK_CALL_SLOT:
            engine = self._engine.after(_CHECK_OR_CALL)
        else:
            engine = self._engine.after(_RAISE, self._amounts[action])
        return HUNLGameState(self._game, engine)

    def returns(self) -> tuple[float, float]:
        """Each seat's net chips won (zero-sum); only at the end of the hand."""
        if not self._engine.is_over:
            raise ValueError("returns are only defined at the end of a hand, and this hand is still running")
        first, second = self._engine.returns()
        return float(first), float(second)

    def expected_returns(self) -> tuple[float, float]:
        """:meth:`returns`, with an all-in called before the river valued over its run-outs.

        When the betting ended before the river with both players in, the deal's own board
        is one draw of the run-out; this returns each seat's expected net chips over all the
        run-outs instead: ``committed * (2 * equity - 1)``, the equity exact from the flop on
        and from 1,024 seeded run-outs preflop (:func:`~pokerai.engine.equity.runout_equity`).
        Folds and river showdowns are returned as :meth:`returns` has them. Deep CFR's
        traversals use it (``all_in_equity``) for lower-variance advantage targets.
        """
        engine = self._engine
        if not engine.is_over or engine.folded is not None:
            return self.returns()
        actions = len(engine.history)
        starts = engine.street_starts
        street = 0
        for index, start in enumerate(starts):
            if start < actions:
                street = index
        if street == Street.RIVER:
            return self.returns()
        deal = engine.deal
        share = _all_in_share(deal[0:2], deal[2:4], deal[4 : 4 + BOARD_SIZES[street]])
        committed = engine.committed[0]
        assert committed == engine.committed[1], "a showdown with unequal commitments"
        first = committed * (2.0 * share - 1.0)
        return first, -first

    def information_state_key(self, player: int) -> str:
        """What ``player`` knows: seat, hole cards, board so far and the betting (module docstring)."""
        seat = check_seat(player)
        engine = self._engine
        hole = sorted(engine.hole_cards(seat))
        board = engine.board
        visible_board = [*sorted(board[:3]), *board[3:]]
        streets: list[str] = []
        boundaries = [*engine.street_starts, len(engine.history)]
        for start, stop in itertools.pairwise(boundaries):
            tokens: list[str] = []
            # Preflop the big blind counts as a bet, so the first voluntary chips are a raise.
            street_has_bet = start == 0
            for action in engine.history[start:stop]:
                tokens.append(_history_token(action, street_has_bet))
                street_has_bet = street_has_bet or action.kind is ActionKind.RAISE
            streets.append(",".join(tokens))
        return f"{seat}|{format_cards(hole)}|{format_cards(visible_board)}|{'/'.join(streets)}"

    def action_name(self, action: int) -> str:
        """E.g. ``"fold"``, ``"check"``, ``"call 50"``, ``"bet 200"``, ``"raise to 300"``, ``"all-in 20000"``.

        A slot that is not legal here gets the menu's name for it with ``"(not legal here)"``.
        """
        num_slots = self._game.num_distinct_actions
        if (
            isinstance(action, bool)
            or not isinstance(action, (int, np.integer))
            or not 0 <= action < num_slots
        ):
            raise ValueError(f"slot {action!r} is not one of the slots 0..{num_slots - 1}")
        mask, actions = self._slots()
        engine_action = actions[action]
        if not mask[action] or engine_action is None:
            return f"{slot_names(self._game.bets, self._engine.street)[action]} (not legal here)"
        if action == FOLD_SLOT:
            return "fold"
        if action == CHECK_CALL_SLOT:
            return "check" if engine_action.kind is ActionKind.CHECK else f"call {engine_action.amount}"
        if action == self._game.bets.all_in_slot:
            return f"all-in {engine_action.amount}"
        if max(self._engine.bets) == 0:
            return f"bet {engine_action.amount}"
        return f"raise to {engine_action.amount}"

    def __repr__(self) -> str:
        return f"HUNLGameState({self._engine!r})"


__all__ = [
    "BUTTON",
    "DEAL_SIZE",
    "HUNLDealState",
    "HUNLGame",
    "HUNLGameState",
    "check_seat",
    "street_raises",
]
