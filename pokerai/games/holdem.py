"""Hold'em as both blueprint kinds play it: the learning game's settings, its decisions, and a blueprint.

A hold'em blueprint is an average strategy of the learning game :class:`~pokerai.games.hunl.HUNLGame`,
either Deep CFR's policy networks (:mod:`pokerai.deepcfr`) or a tabular MCCFR table
(:mod:`pokerai.tabular`). The two kinds import nothing from each other; what they share lives here,
below both:

* :class:`HUNLSettings`: the blinds, stacks and bet menu a run learns (a config's ``hunl`` key), and
  :func:`abstraction_config`, the card abstraction a run config names (its ``abstraction`` key).
* :class:`DecisionView` (:func:`decision_view`): the decision of the player to act at an engine state,
  in a blueprint's chips: its seat, street, board, pot, both stacks behind, amount to call and
  raises on the street. The tabular blueprint finds its betting node from it; Deep CFR makes a
  record of it (:func:`decision_records`).
* :data:`HUNL_RECORD_DTYPE`: the compact record of what a seat knows at a decision (Deep CFR keeps
  millions in its reservoirs and turns them into network features); :data:`NOT_DEALT` marks a
  board card not dealt yet. :class:`DecisionRecords` makes the record of a learning-game state.
* :class:`Blueprint`: what the agents and the search ask of either kind: the action probabilities
  of many hands at one engine state, each hand on the state's board or on a board of its own.

Chips of another game are read in the blueprint's by the ratio of the big blinds
(:func:`chip_scale`), rounded to whole chips.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from pokerai.abstraction.bets import BetAbstraction
from pokerai.abstraction.buckets import AbstractionConfig, load_abstraction_config
from pokerai.config import ConfigError
from pokerai.engine.state import HUNLConfig, HUNLState
from pokerai.games.hunl import HUNLGame, HUNLGameState, check_seat, street_raises

NOT_DEALT = 255
"""Record value of a card slot whose card has not been dealt yet."""
_NO_BOARD = (NOT_DEALT,) * 5

HUNL_RECORD_DTYPE = np.dtype(
    [
        ("player", np.uint8),
        ("hole", np.uint8, (2,)),
        ("board", np.uint8, (5,)),
        ("street", np.uint8),
        ("pot", np.int32),
        ("own_stack", np.int32),
        ("opponent_stack", np.int32),
        ("to_call", np.int32),
        ("raises", np.uint8),
    ]
)
"""One hold'em information state (26 bytes, packed): the player's seat, its hole cards (lower id first),
the board (flop ascending, turn, river; ``NOT_DEALT`` where not dealt), the street, the pot, both stacks
behind and the amount to call in chips, and the bets and raises on this street."""


@dataclass(frozen=True)
class HUNLSettings:
    """The hold'em game a HUNL run learns: blinds, stacks and the bet menu."""

    small_blind: int = field(default=50, metadata={"min": 1})
    big_blind: int = field(default=100, metadata={"min": 1})
    stack: int = field(default=20_000, metadata={"min": 1, "help": "each player's starting stack in chips"})
    bets: BetAbstraction = field(default_factory=BetAbstraction)

    def game(self) -> HUNLGame:
        config = HUNLConfig(self.small_blind, self.big_blind, (self.stack, self.stack))
        return HUNLGame(config, self.bets)


def abstraction_config(source: str | dict[str, Any], where: str = "") -> AbstractionConfig:
    """The card abstraction config at the path or in the mapping ``source`` (a run config's
    ``abstraction``); ``ConfigError`` naming ``{where}abstraction:`` when it is missing or bad."""
    if isinstance(source, str) and not Path(source).is_file():
        raise ConfigError(
            f"{where}abstraction: config file {source} does not exist (a relative path starts at the "
            f"working directory, {Path.cwd()})"
        )
    try:
        return load_abstraction_config(source)
    except ConfigError as error:
        raise ConfigError(f"{where}abstraction: {error}") from None


def record_board(board: Sequence[int]) -> tuple[int, int, int, int, int]:
    """The dealt ``board`` as a record holds it: the flop ascending, turn, river, then ``NOT_DEALT``."""
    cards = (*sorted(board[:3]), *board[3:], *_NO_BOARD)
    return cards[0], cards[1], cards[2], cards[3], cards[4]


def chip_scale(blueprint: HUNLGame, config: HUNLConfig) -> float:
    """The factor that turns chips of a game of ``config`` into ``blueprint``'s: the big blinds' ratio."""
    return blueprint.config.big_blind / config.big_blind


@dataclass(frozen=True)
class DecisionView:
    """The decision of the player to act at an engine state, as a blueprint reads it (module docstring).

    ``seat`` is 0 for the button and 1 for the big blind, as in the learning game; ``board`` is
    :func:`record_board`'s; ``pot``, ``stacks`` (behind: own, opponent) and ``to_call`` are in the
    blueprint's chips; ``raises`` counts the bets and raises on the street (at most 255).
    """

    seat: int
    street: int
    board: tuple[int, int, int, int, int]
    pot: int
    stacks: tuple[int, int]
    to_call: int
    raises: int

    def committed(self, stack: int) -> tuple[int, int]:
        """Each seat's chips in (button first): the blueprint's starting ``stack`` less its stack behind."""
        own, opponent = stack - self.stacks[0], stack - self.stacks[1]
        return (own, opponent) if self.seat == 0 else (opponent, own)


def decision_view(state: HUNLState, scale: float = 1.0) -> DecisionView:
    """The :class:`DecisionView` of the player to act at the engine ``state``, chips times ``scale``
    (:func:`chip_scale`; rounded to whole chips unless it is 1)."""
    player = state.to_act
    if player is None:
        raise ValueError("the hand is over, so there is no player to act and no decision to view")
    opponent = 1 - player
    owed = max(0, min(state.bets[opponent] - state.bets[player], state.stacks[player]))

    def chips(amount: int) -> int:
        return amount if scale == 1.0 else round(amount * scale)

    return DecisionView(
        seat=0 if player == state.button else 1,
        street=state.street,
        board=record_board(state.board),
        pot=chips(state.pot),
        stacks=(chips(state.stacks[player]), chips(state.stacks[opponent])),
        to_call=chips(owed),
        raises=min(street_raises(state), 255),
    )


def record_boards(boards: npt.ArrayLike) -> npt.NDArray[np.int64]:
    """Each row of ``boards`` (int ``[H, cards]``, as dealt) as a record holds it, int64 ``[H, cards]``:
    the flop ascending, then the turn and river."""
    cards = np.asarray(boards, dtype=np.int64)
    return np.concatenate([np.sort(cards[:, :3], axis=1), cards[:, 3:]], axis=1)


def decision_records(
    view: DecisionView, hands: npt.ArrayLike, boards: npt.ArrayLike | None = None
) -> npt.NDArray[np.void]:
    """The records of ``view``'s player holding each of ``hands`` (int ``[H, 2]``): ``[H]`` of
    :data:`HUNL_RECORD_DTYPE`, hole cards sorted. ``boards`` (int ``[H, cards]``, as dealt; None:
    ``view``'s board) puts each hand on a board of its own."""
    cards = np.asarray(hands).reshape(-1, 2)
    records = np.empty(len(cards), dtype=HUNL_RECORD_DTYPE)
    records[:] = (
        view.seat, (0, 1), view.board, view.street, view.pot, *view.stacks, view.to_call, view.raises,
    )  # fmt: skip
    records["hole"] = np.sort(cards, axis=1)
    if boards is not None and len(cards):
        dealt = record_boards(boards)
        records["board"][:, : dealt.shape[1]] = dealt
    return records


class DecisionRecords:
    """Records (:data:`HUNL_RECORD_DTYPE`) of learning-game states, what Deep CFR's reservoirs keep."""

    record_dtype: np.dtype[Any] = HUNL_RECORD_DTYPE

    def record(self, state: HUNLGameState, player: int) -> tuple[Any, ...]:
        """What seat ``player`` knows at ``state`` (any state after the deal), as a record tuple."""
        if type(state) is not HUNLGameState and not isinstance(state, HUNLGameState):
            raise ValueError(f"{type(self).__name__} records hold'em states after the deal, not {state!r}")
        seat = player if type(player) is int and 0 <= player <= 1 else check_seat(player)
        engine = state.engine
        opponent = 1 - seat
        deal = engine.deal
        first, second = deal[2 * seat], deal[2 * seat + 1]
        hole = (first, second) if first <= second else (second, first)
        street = engine.street
        # The board dealt so far, the flop in ascending order, NOT_DEALT after it.
        if street == 0:
            board: tuple[int, ...] = _NO_BOARD
        else:
            flop = sorted(deal[4:7])
            if street == 1:
                board = (*flop, NOT_DEALT, NOT_DEALT)
            elif street == 2:
                board = (*flop, deal[7], NOT_DEALT)
            else:
                board = (*flop, deal[7], deal[8])
        bets = engine.bets
        stacks = engine.stacks
        owed = max(0, min(bets[opponent] - bets[seat], stacks[seat]))
        committed = engine.committed
        return (
            seat,
            hole,
            board,
            street,
            0 if engine.is_over else committed[0] + committed[1],  # engine.pot
            stacks[seat],
            stacks[opponent],
            owed,
            min(street_raises(engine), 255),
        )


@runtime_checkable
class Blueprint(Protocol):
    """A playable hold'em average strategy of either kind (module docstring).

    ``game`` is the learning game (seat 0 is the button), ``num_slots`` the action slots of its bet
    menu.
    """

    @property
    def game(self) -> HUNLGame: ...
    @property
    def num_slots(self) -> int: ...

    def hand_probabilities(
        self,
        state: HUNLState,
        hands: npt.NDArray[np.int64],
        mask: npt.NDArray[np.bool_],
        boards: npt.NDArray[np.int64] | None = None,
    ) -> npt.NDArray[np.float64]:
        """The strategy of the player to act at the engine ``state`` (any blinds and stacks, read in the
        blueprint's chips by :func:`chip_scale`) holding each of ``hands`` (int64 ``[H, 2]``), with the
        legal slots ``mask`` (bool ``[num_slots]``): float64 ``[H, num_slots]``, 0 on illegal slots.
        ``boards`` (int64 ``[H, len(state.board)]``, as dealt; None: the state's) puts each hand on a
        board of its own at the state's betting, as a rollout asks over the next cards."""
        ...

    def probabilities(self, state: Any) -> npt.NDArray[np.float64]:
        """The strategy of the player to act at a learning-game ``state``: float64 ``[num_slots]``."""
        ...


__all__ = [
    "HUNL_RECORD_DTYPE",
    "NOT_DEALT",
    "Blueprint",
    "DecisionRecords",
    "DecisionView",
    "HUNLSettings",
    "abstraction_config",
    "chip_scale",
    "decision_records",
    "decision_view",
    "record_board",
    "record_boards",
]
