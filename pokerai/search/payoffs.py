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
from pokerai.search.combos import ALL_COMBOS
from pokerai.search.equity import card_showdowns, flop_matrices, next_cards, turn_street_matrices
from pokerai.search.rollouts import LeafSettings, RolloutLeaves
from pokerai.search.showdown import river_card_payoffs, river_pair_matrices
from pokerai.search.subgame import SHARES_NO_CARD, CardPayoffs, Decision, Terminal
from pokerai.tabular.blueprint import AnyBlueprint

VALID_MATRIX, SHOWDOWN_MATRIX = 0, 1
"""Indices of the two matrices every street subgame has: pairs that can meet, and the showdown
sign (river) or all-in equity (earlier streets) of hand ``i`` against hand ``j``."""


def _terminal(state: HUNLState) -> Terminal:
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
    rows = np.searchsorted(all_hands, hands)
    if np.any(rows >= len(all_hands)) or np.any(all_hands[np.minimum(rows, len(all_hands) - 1)] != hands):
        raise ValueError("subgame hands must be combinations free of the board")
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

    terminal = staticmethod(_terminal)

    def leaf(self, state: HUNLState) -> Decision | Terminal:
        raise AssertionError("the river has no leaves")


class _RolloutStreet:
    """A street whose depth-limited leaves are blueprint rollouts (:class:`RolloutLeaves`).

    Keeps ``hands`` and their blocks of the street's valid-pair and all-in equity matrices
    (:meth:`_tables`), and values its leaves over the next cards and check-down signs that
    :meth:`_leaf_cards` gives for those hands' rows.
    """

    def __init__(
        self,
        blueprint: AnyBlueprint,
        board: tuple[int, ...],
        hands: npt.NDArray[np.int64],
        chooser: int,
        settings: LeafSettings,
        threshold: float,
        key: object,
    ) -> None:
        all_hands, valid, equity = self._tables(board)
        rows, self.matrices = _select(hands, all_hands, valid, equity)
        self.hands = hands
        self.card_payoffs: CardPayoffs | None = _fold_structure(hands)
        cards, showdown = self._leaf_cards(board, rows, settings, key)
        self._leaves = RolloutLeaves(
            blueprint, hands, self.matrices, cards, showdown, chooser, settings, threshold, (board, key)
        )

    terminal = staticmethod(_terminal)

    @staticmethod
    def _tables(
        board: tuple[int, ...],
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        """The street's hands (all free of the board), valid-pair matrix and all-in equity matrix."""
        raise NotImplementedError

    def _leaf_cards(
        self, board: tuple[int, ...], rows: npt.NDArray[np.int64], settings: LeafSettings, key: object
    ) -> tuple[Sequence[int], npt.NDArray[np.float32]]:
        """The next cards of the leaves' rollouts and the check-down sign per card, ``[K, H, H]``."""
        raise NotImplementedError

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


class TurnPayoffs(_RolloutStreet):
    """The turn: all-in equity over the river cards; leaves valued by river rollouts."""

    @staticmethod
    def _tables(
        board: tuple[int, ...],
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        all_hands, valid, equity, _ = turn_street_matrices(board)
        return all_hands, valid, equity

    def _leaf_cards(
        self, board: tuple[int, ...], rows: npt.NDArray[np.int64], settings: LeafSettings, key: object
    ) -> tuple[Sequence[int], npt.NDArray[np.float32]]:
        ranks = turn_street_matrices(board)[3]
        cards = next_cards(board, settings.cards, key)
        card_ranks = np.ascontiguousarray(ranks[np.asarray(cards)][:, rows])  # [K, H], −1: holds the card
        return cards, card_showdowns(card_ranks, self.matrices[VALID_MATRIX])


class FlopPayoffs(_RolloutStreet):
    """The flop: all-in equity over sampled run-outs; leaves valued by turn rollouts ending in check-down."""

    @staticmethod
    def _tables(
        board: tuple[int, ...],
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        all_hands, valid, equity, _, _ = flop_matrices(board)
        return all_hands, valid, equity

    def _leaf_cards(
        self, board: tuple[int, ...], rows: npt.NDArray[np.int64], settings: LeafSettings, key: object
    ) -> tuple[Sequence[int], npt.NDArray[np.float32]]:
        _, _, _, turns, per_turn = flop_matrices(board)
        count = min(settings.cards, len(per_turn))
        showdown = per_turn[:count][:, rows][:, :, rows] * self.matrices[VALID_MATRIX].astype(np.float32)
        return turns[:count], showdown


def make_payoffs(
    blueprint: AnyBlueprint,
    state: HUNLState,
    hands: npt.NDArray[np.int64],
    chooser: int,
    leaf: LeafSettings,
    threshold: float,
) -> RiverPayoffs | TurnPayoffs | FlopPayoffs:
    """The :class:`~pokerai.search.tree.StreetPayoffs` of ``state``'s postflop street over ``hands``."""
    board = tuple(state.board)
    if state.street == Street.RIVER:
        return RiverPayoffs(board, hands)
    key = ";".join(str(action) for action in state.history[: state.street_starts[state.street]])
    if state.street == Street.TURN:
        return TurnPayoffs(blueprint, board, hands, chooser, leaf, threshold, key)
    if state.street == Street.FLOP:
        return FlopPayoffs(blueprint, board, hands, chooser, leaf, threshold, key)
    raise ValueError("street search starts on the flop: the blueprint plays the preflop")


__all__ = [
    "SHOWDOWN_MATRIX",
    "VALID_MATRIX",
    "FlopPayoffs",
    "RiverPayoffs",
    "TurnPayoffs",
    "make_payoffs",
]
