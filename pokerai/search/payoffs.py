"""What each street contributes to its subgame: the hands, payoff matrices, terminals and leaves.

Every street's subgame shares two matrices over its hands: :data:`VALID_MATRIX` (1 where
two hands share no card) and :data:`SHOWDOWN_MATRIX` (the showdown sign on the river, the
all-in equity before it, :mod:`pokerai.search.equity`). A fold pays the chips in on the
first, a showdown or a called all-in on the second. Payoffs are engine player 0's chip
results. The river has no leaves, and its solve applies both matrices by the card-removal
sweep (:func:`~pokerai.search.showdown.river_card_payoffs`); the flop and the turn end
their betting in depth-limited leaves valued by blueprint rollouts
(:class:`~pokerai.search.rollouts.RolloutLeaves`), each a matrix of its own, and apply
the fold matrix by the sweep. :func:`make_payoffs` gives the :class:`~pokerai.search.tree.StreetPayoffs`
of a state's street.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from pokerai.engine.state import HUNLState, Street
from pokerai.games.holdem import Blueprint
from pokerai.search.combos import ALL_COMBOS, combo_rows
from pokerai.search.equity import card_showdowns, flop_matrices, next_cards, turn_street_matrices
from pokerai.search.rollouts import LeafSettings, RolloutLeaves
from pokerai.search.showdown import river_card_payoffs, river_pair_matrices
from pokerai.search.subgame import SHARES_NO_CARD, CardPayoffs, Decision, Terminal

VALID_MATRIX, SHOWDOWN_MATRIX = 0, 1
"""Indices of the two matrices every street subgame has: pairs that can meet, and the showdown
sign (river) or all-in equity (earlier streets) of hand ``i`` against hand ``j``."""


def street_terminal(state: HUNLState) -> Terminal:
    """A fold pays the chips in on the valid-pair matrix; a showdown the chips in on the showdown one."""
    if state.folded is not None:
        return Terminal(VALID_MATRIX, float(state.returns()[0]))
    return Terminal(SHOWDOWN_MATRIX, float(min(state.committed)))


def _fold_structure(hands: npt.NDArray[np.int64]) -> CardPayoffs:
    """The valid-pair matrix as card-structured: fold terminals then cost time linear in the hands."""
    return CardPayoffs(
        cards=ALL_COMBOS[hands].astype(np.int64),
        ranks=np.zeros(len(hands), dtype=np.int64),
        kinds={VALID_MATRIX: SHARES_NO_CARD},
    )


def _select(
    hands: npt.NDArray[np.int64], all_hands: npt.NDArray[np.int64], *matrices: npt.NDArray[np.float64]
) -> tuple[npt.NDArray[np.int64], list[npt.NDArray[np.float64]]]:
    """The rows and blocks of ``matrices`` (over ``all_hands``) for the subset ``hands``."""
    rows = combo_rows(all_hands, hands)
    block = np.ix_(rows, rows)
    return rows, [np.ascontiguousarray(matrix[block]) for matrix in matrices]


class RiverPayoffs:
    """The river: folds and showdowns, no leaves; the solver applies both matrices by the card sweep."""

    def __init__(self, board: tuple[int, ...], hands: npt.NDArray[np.int64]) -> None:
        self.hands = hands
        valid, showdown = river_pair_matrices(board, hands, hands)
        self.matrices = [valid, showdown]
        self.card_payoffs: CardPayoffs | None = river_card_payoffs(board, hands)
        self.leaves = 0
        self.leaf_seconds = 0.0

    terminal = staticmethod(street_terminal)

    def leaf(self, state: HUNLState) -> Decision | Terminal:
        raise AssertionError("the river has no leaves")


class RolloutPayoffs:
    """A flop or turn: folds, and showdowns and called all-ins on its all-in equity; its depth-limited
    leaves are blueprint rollouts (:class:`RolloutLeaves`).

    Keeps ``hands`` and their blocks of the street's valid-pair and all-in equity matrices, and
    values its leaves over the next cards and the check-down sign per card that :func:`_leaf_cards`
    gives for those hands.
    """

    def __init__(
        self,
        blueprint: Blueprint,
        board: tuple[int, ...],
        hands: npt.NDArray[np.int64],
        chooser: int,
        settings: LeafSettings,
        threshold: float,
        key: object,
    ) -> None:
        if len(board) == 4:
            all_hands, valid, equity, _ = turn_street_matrices(board)
        else:
            all_hands, valid, equity, _, _ = flop_matrices(board)
        rows, self.matrices = _select(hands, all_hands, valid, equity)
        self.hands = hands
        self.card_payoffs: CardPayoffs | None = _fold_structure(hands)
        cards, showdown = _leaf_cards(board, rows, self.matrices[VALID_MATRIX], settings, key)
        self._leaves = RolloutLeaves(
            blueprint, hands, self.matrices, cards, showdown, chooser, settings, threshold, (board, key)
        )

    terminal = staticmethod(street_terminal)

    def leaf(self, state: HUNLState) -> Decision | Terminal:
        return self._leaves.leaf(state)

    @property
    def leaves(self) -> int:
        """Leaves built so far."""
        return self._leaves.count

    @property
    def leaf_seconds(self) -> float:
        """Seconds spent on their rollouts."""
        return self._leaves.seconds


def _leaf_cards(
    board: tuple[int, ...],
    rows: npt.NDArray[np.int64],
    valid: npt.NDArray[np.float64],
    settings: LeafSettings,
    key: object,
) -> tuple[Sequence[int], npt.NDArray[np.float32]]:
    """The next cards of a street's leaf rollouts and each pair's check-down sign with each, ``[K, H, H]``
    over the hands ``rows`` of the street's tables: on the turn, seeded river cards; on the flop, the
    first turn cards of its run-outs, with the check-down equity over each one's river cards."""
    if len(board) == 4:
        ranks = turn_street_matrices(board)[3]
        cards = next_cards(board, settings.cards, key)
        card_ranks = np.ascontiguousarray(ranks[np.asarray(cards)][:, rows])  # [K, H], −1: holds the card
        return cards, card_showdowns(card_ranks, valid)
    _, _, _, turns, per_turn = flop_matrices(board)
    count = min(settings.cards, len(per_turn))
    return turns[:count], per_turn[:count][:, rows][:, :, rows] * valid.astype(np.float32)


def make_payoffs(
    blueprint: Blueprint,
    state: HUNLState,
    hands: npt.NDArray[np.int64],
    chooser: int,
    leaf: LeafSettings,
    threshold: float,
) -> RiverPayoffs | RolloutPayoffs:
    """The :class:`~pokerai.search.tree.StreetPayoffs` of ``state``'s postflop street over ``hands``."""
    board = tuple(state.board)
    if state.street == Street.RIVER:
        return RiverPayoffs(board, hands)
    key = ";".join(str(action) for action in state.history[: state.street_starts[state.street]])
    if state.street in (Street.FLOP, Street.TURN):
        return RolloutPayoffs(blueprint, board, hands, chooser, leaf, threshold, key)
    raise ValueError("street search starts on the flop: the blueprint plays the preflop")


__all__ = [
    "SHOWDOWN_MATRIX",
    "VALID_MATRIX",
    "RiverPayoffs",
    "RolloutPayoffs",
    "make_payoffs",
    "street_terminal",
]
