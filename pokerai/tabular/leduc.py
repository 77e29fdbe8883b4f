"""The tabular MCCFR on Leduc hold'em, where exact exploitability checks it.

Leduc (:mod:`pokerai.games.leduc`) runs on the same kernels as hold'em: its betting tree
(:func:`~pokerai.tabular.tree.leduc_betting_tree`), a deal of three cards per iteration,
and a bucket per player and round from a :class:`LeducBuckets` map:

* :data:`IDENTITY`: the first round's bucket is the private card (0..5), the second
  round's the pair (private card, board card): every information set of the real game
  is its own, so the run converges to a Nash equilibrium of Leduc.
* :data:`MERGED_JQ`: the first round cannot tell a jack from a queen (two buckets:
  J or Q, and K); the second round sees the real cards. An abstraction with known
  answer only in its own game: :func:`bucketed_leduc` is that game, on which
  exploitability is exact again.

:func:`leduc_policy` turns the run's average strategy into a
:class:`~pokerai.solvers.policy.TabularPolicy` of either game.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from pokerai.games.leduc import LeducPoker, LeducState
from pokerai.solvers.best_response import tree_of
from pokerai.solvers.policy import TabularPolicy
from pokerai.solvers.tree import GameTree
from pokerai.tabular.mccfr import TabularMCCFR
from pokerai.tabular.tree import BettingTree


@dataclass(frozen=True)
class LeducBuckets:
    """A Leduc card abstraction: ``first(card)`` and ``second(card, board)`` give the buckets of the
    two rounds, with ``counts`` buckets in each (ints in, int out; int arrays in, arrays out)."""

    name: str
    counts: tuple[int, int]
    first: Callable[[Any], Any]
    second: Callable[[Any, Any], Any]


IDENTITY = LeducBuckets("identity", (6, 36), lambda card: card, lambda card, board: 6 * card + board)
"""Every card its own bucket: the real game."""
MERGED_JQ = LeducBuckets(
    "merged-jq", (2, 36), lambda card: (card >= 4) * 1, lambda card, board: 6 * card + board
)
"""The first round sees only "J or Q" against "K"; the second round the real cards."""


def _strength(card: Any, board: Any) -> Any:
    """The showdown strength of ``card`` (ints or int arrays) on ``board``: a pair beats any high card."""
    rank = card // 2
    return rank + 10 * (rank == board // 2)


def leduc_deals(
    rng: np.random.Generator, count: int, buckets: LeducBuckets
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]:
    """``count`` uniform deals (two private cards, then the board): the buckets int64 ``[count, 2, 2]``
    and player 0's showdown result (+1, 0, -1) float64 ``[count]``."""
    cards = np.argsort(rng.random((count, 6)), axis=1)[:, :3].astype(np.int64)
    board = cards[:, 2]
    out = np.zeros((count, 2, 2), dtype=np.int64)
    for player in (0, 1):
        out[:, player, 0] = buckets.first(cards[:, player])
        out[:, player, 1] = buckets.second(cards[:, player], board)
    results = np.sign(_strength(cards[:, 0], board) - _strength(cards[:, 1], board)).astype(np.float64)
    return out, results


@dataclass(frozen=True)
class _BucketedState:
    """A Leduc state whose information-state key shows the bucket instead of the cards."""

    inner: LeducState
    buckets: LeducBuckets

    def current_player(self) -> int:
        return self.inner.current_player()

    def is_chance(self) -> bool:
        return self.inner.is_chance()

    def is_terminal(self) -> bool:
        return self.inner.is_terminal()

    def legal_actions(self) -> Sequence[int]:
        return self.inner.legal_actions()

    def chance_outcomes(self) -> Sequence[tuple[int, float]]:
        return self.inner.chance_outcomes()

    def child(self, action: int) -> _BucketedState:
        return _BucketedState(self.inner.child(action), self.buckets)

    def returns(self) -> tuple[float, float]:
        return self.inner.returns()

    def action_name(self, action: int) -> str:
        return self.inner.action_name(action)

    def information_state_key(self, player: int) -> str:
        card, board = self.inner.cards[player], self.inner.board
        bucket = self.buckets.first(card) if board is None else self.buckets.second(card, board)
        return f"{len(self.inner.rounds) - 1}.{bucket}:{'/'.join(self.inner.rounds)}"


@dataclass(frozen=True)
class _BucketedLeduc:
    buckets: LeducBuckets
    num_players: int = 2
    num_distinct_actions: int = 3

    @property
    def name(self) -> str:
        return f"leduc[{self.buckets.name}]"

    def initial_state(self) -> _BucketedState:
        return _BucketedState(LeducPoker().initial_state(), self.buckets)


def bucketed_leduc(buckets: LeducBuckets) -> _BucketedLeduc:
    """Leduc in which each player knows only its buckets: the abstract game of ``buckets``."""
    return _BucketedLeduc(buckets)


def _node_of(tree: BettingTree, rounds: Sequence[str]) -> int:
    """The betting-tree node after the letters of ``rounds`` (``f``/``c``/``r``)."""
    node = 0
    for letter in "".join(rounds):
        action = "fcr".index(letter)
        count = int(tree.num_actions[node])
        slots = tree.slots[node, :count].tolist()
        node = int(tree.children[node, slots.index(action)])
    return node


def leduc_policy(
    solver: TabularMCCFR, buckets: LeducBuckets, game_tree: GameTree | None = None
) -> TabularPolicy:
    """The average strategy of ``solver`` (a run on the Leduc betting tree with ``buckets``) as a
    policy of Leduc (``game_tree`` None or Leduc's) or of :func:`bucketed_leduc` (its tree)."""
    tree = game_tree if game_tree is not None else tree_of(LeducPoker())
    weights = np.zeros((tree.num_infosets, tree.num_actions))
    for row, key in enumerate(tree.infoset_keys):
        cards, letters = key.split(":")
        rounds = letters.split("/")
        node = _node_of(solver.tree, rounds)
        if cards[0].isdigit():  # a key of the bucketed game: "<round>.<bucket>"
            bucket = int(cards.split(".")[1])
        else:
            names = cards.split(" ")
            card = _card_id(names[0])
            bucket = buckets.first(card) if len(names) == 1 else buckets.second(card, _card_id(names[1]))
        count = int(solver.tree.num_actions[node])
        strategy = solver.average_strategy(node, [bucket])[0]
        weights[row, solver.tree.slots[node, :count]] = strategy
    return TabularPolicy.from_weights(tree, weights)


def _card_id(name: str) -> int:
    from pokerai.games.leduc import CARD_NAMES

    return CARD_NAMES.index(name)


__all__ = ["IDENTITY", "MERGED_JQ", "LeducBuckets", "bucketed_leduc", "leduc_deals", "leduc_policy"]
