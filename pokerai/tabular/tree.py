"""The public betting tree of an abstracted poker game, as flat arrays for the MCCFR kernels.

The betting of a hold'em hand on a bet menu does not depend on the cards, so one
tree serves every deal: decision nodes, fold terminals and showdown terminals. A
node's information set for a player is (node, that player's bucket on the node's
street), so the tree and the bucket counts fix the size of the regret tables.

Merged nodes. Two betting sequences that reach the same situation (street, player to
act, both players' chips in, this street's bets and raise count, the minimum raise)
have the same future: the same legal actions, children and payoffs. They are one node,
so the tree is a directed acyclic graph and a blueprint can look a state up from its
chips alone (:meth:`BettingTree.lookup`) without the sequence that led there. The
player forgets which of those sequences was played (imperfect recall of the betting,
as the card abstraction already forgets cards).

Terminals. A fold is worth ``amount`` to player 0 (negative when player 0 folds). At a
showdown both players have ``amount`` chips in and player 0 wins ``amount × result``,
where ``result`` is +1, 0 or -1 from the deal. An all-in that is called before the river
goes straight to the showdown of the whole board.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from pokerai.abstraction.bets import BetAbstraction, legal_slot_amounts, slot_actions
from pokerai.engine.state import ActionKind, HUNLConfig, HUNLState

FOLD_NODE = -1
"""``BettingTree.player`` of a fold terminal."""
SHOWDOWN_NODE = -2
"""``BettingTree.player`` of a showdown terminal."""


@dataclass(frozen=True)
class BettingTree:
    """A betting tree in arrays, node 0 the root (module docstring). All arrays are ``[num_nodes]``
    unless stated.

    ``player``: int8, the player to act, or :data:`FOLD_NODE` / :data:`SHOWDOWN_NODE`.
    ``street``: int8. ``num_actions``: int16. ``slots``, ``children``: int16 / int32
    ``[num_nodes, max_actions]``, each action's slot id and child (-1 past ``num_actions``).
    ``amount``: float64, the terminal payoff (module docstring), 0 at decisions.
    ``committed``: int64 ``[num_nodes, 2]``, each player's chips in. ``raises``: int16, bets
    and raises on the node's street so far. ``num_slots``: the action slots of the game.
    """

    player: npt.NDArray[np.int8]
    street: npt.NDArray[np.int8]
    num_actions: npt.NDArray[np.int16]
    slots: npt.NDArray[np.int16]
    children: npt.NDArray[np.int32]
    amount: npt.NDArray[np.float64]
    committed: npt.NDArray[np.int64]
    raises: npt.NDArray[np.int16]
    num_slots: int

    @property
    def num_nodes(self) -> int:
        return int(self.player.size)

    @property
    def decisions(self) -> npt.NDArray[np.intp]:
        """The decision nodes, ascending."""
        return np.flatnonzero(self.player >= 0)

    def offsets(self, buckets: tuple[int, ...]) -> tuple[npt.NDArray[np.int64], int]:
        """Where each decision node's rows start in a flat regret table, and the table's length.

        Node ``n`` holding bucket ``b`` has its ``num_actions[n]`` entries at
        ``offset[n] + b * num_actions[n]``; ``buckets[s]`` is the bucket count of street ``s``.
        Terminal nodes get offset -1.
        """
        counts = np.asarray(buckets, dtype=np.int64)
        if counts.size <= int(self.street.max()) or np.any(counts < 1):
            raise ValueError(f"bucket counts {list(buckets)} do not cover the tree's streets")
        sizes = np.where(self.player >= 0, counts[self.street] * self.num_actions, 0).astype(np.int64)
        ends = np.cumsum(sizes)
        offsets = np.where(self.player >= 0, ends - sizes, -1).astype(np.int64)
        return offsets, int(ends[-1]) if ends.size else 0

    def lookup(self, street: int, player: int, committed: tuple[int, int], raises: int) -> int:
        """The decision node of ``player`` on ``street`` nearest to ``committed`` chips and ``raises``.

        Exact when the tree has a node with those chips and raise count; otherwise the node
        of the same street and player with the smallest distance in log chips (both
        players') plus a quarter per raise of difference: a state off the tree, after an
        opponent's bet that is not on the menu, plays as the nearest one on it.
        """
        candidates = self._by_street_player().get((int(street), int(player)))
        if candidates is None:
            raise ValueError(f"the betting tree has no decision of player {player} on street {street}")
        nodes, logs, raise_counts = candidates
        wanted = np.log(np.maximum(np.asarray(committed, dtype=np.float64), 1.0))
        distance = np.abs(logs - wanted).sum(axis=1) + 0.25 * np.abs(raise_counts - raises)
        return int(nodes[int(np.argmin(distance))])

    def _by_street_player(self) -> dict[tuple[int, int], tuple[Any, Any, Any]]:
        cached = self.__dict__.get("_lookup_cache")
        if cached is None:
            cached = {}
            for street in np.unique(self.street).tolist():
                for player in (0, 1):
                    nodes = np.flatnonzero((self.player == player) & (self.street == street))
                    if nodes.size:
                        logs = np.log(np.maximum(self.committed[nodes].astype(np.float64), 1.0))
                        cached[(street, player)] = (nodes, logs, self.raises[nodes].astype(np.float64))
            object.__setattr__(self, "_lookup_cache", cached)
        return cached


class _Builder:
    """Collects nodes in arrays of Python lists; a node id is its position."""

    def __init__(self, num_slots: int) -> None:
        self.num_slots = num_slots
        self.player: list[int] = []
        self.street: list[int] = []
        self.slots: list[list[int]] = []
        self.children: list[list[int]] = []
        self.amount: list[float] = []
        self.committed: list[tuple[int, int]] = []
        self.raises: list[int] = []

    def add(self, player: int, street: int, amount: float, committed: tuple[int, int], raises: int) -> int:
        self.player.append(player)
        self.street.append(street)
        self.slots.append([])
        self.children.append([])
        self.amount.append(amount)
        self.committed.append(committed)
        self.raises.append(raises)
        return len(self.player) - 1

    def finish(self) -> BettingTree:
        width = max((len(row) for row in self.slots), default=0)
        count = len(self.player)
        slots = np.full((count, max(width, 1)), -1, dtype=np.int16)
        children = np.full((count, max(width, 1)), -1, dtype=np.int32)
        for node, (row_slots, row_children) in enumerate(zip(self.slots, self.children, strict=True)):
            slots[node, : len(row_slots)] = row_slots
            children[node, : len(row_children)] = row_children
        return BettingTree(
            player=np.asarray(self.player, dtype=np.int8),
            street=np.asarray(self.street, dtype=np.int8),
            num_actions=np.asarray([len(row) for row in self.slots], dtype=np.int16),
            slots=slots,
            children=children,
            amount=np.asarray(self.amount, dtype=np.float64),
            committed=np.asarray(self.committed, dtype=np.int64).reshape(count, 2),
            raises=np.asarray(self.raises, dtype=np.int16),
            num_slots=self.num_slots,
        )


def _raises_on_street(state: HUNLState) -> int:
    start = state.street_starts[state.street]
    return sum(1 for action in state.history[start:] if action.kind is ActionKind.RAISE)


def hunl_betting_tree(config: HUNLConfig, bets: BetAbstraction) -> BettingTree:
    """The betting tree of hold'em ``config`` on the menu ``bets``, player 0 on the button.

    Raises ``ValueError`` when the stacks differ (the showdown terminal assumes equal
    chips in, as heads-up hold'em with equal stacks has).
    """
    if len(set(config.stacks)) != 1:
        raise ValueError(f"the tabular blueprint needs equal stacks, got {list(config.stacks)}")
    builder = _Builder(bets.num_slots)
    known: dict[tuple[Any, ...], int] = {}
    root = HUNLState.new(config, 0, deck=range(9))

    def key(state: HUNLState) -> tuple[Any, ...]:
        return (
            state.street,
            state.to_act,
            tuple(state.committed),
            tuple(state.bets),
            _raises_on_street(state),
            state.min_raise_to,
        )

    def node(state: HUNLState) -> int:
        committed = (int(state.committed[0]), int(state.committed[1]))
        if state.is_over:
            if state.folded is not None:
                loser = int(state.folded)
                payoff = float(committed[loser]) * (-1.0 if loser == 0 else 1.0)
                return builder.add(FOLD_NODE, state.street, payoff, committed, 0)
            return builder.add(SHOWDOWN_NODE, state.street, float(min(committed)), committed, 0)
        identity = key(state)
        if identity in known:
            return known[identity]
        player = state.to_act
        assert player is not None
        made = builder.add(player, state.street, 0.0, committed, _raises_on_street(state))
        known[identity] = made
        legal, _ = legal_slot_amounts(state, bets)
        _, actions = slot_actions(state, bets)
        for slot in legal:
            action = actions[slot]
            assert action is not None
            child = state.clone()
            child.apply(action, verify=False)
            child_id = node(child)
            builder.slots[made].append(slot)
            builder.children[made].append(child_id)
        return made

    node(root)
    return builder.finish()


def leduc_betting_tree() -> BettingTree:
    """The betting tree of Leduc hold'em (:mod:`pokerai.games.leduc`): slots are its action ids
    (0 fold, 1 check/call, 2 bet/raise), street 0 the first round and 1 the second."""
    from pokerai.games.leduc import LeducState

    builder = _Builder(3)
    deal = (0, 2)  # any private cards: the betting does not depend on them

    def node(state: LeducState) -> int:
        street = len(state.rounds) - 1
        chips = state.contributions()
        committed = (int(chips[0]), int(chips[1]))
        if state.is_chance():
            return node(state.child(4))  # the board card: the betting does not depend on it
        if state.is_terminal():
            if state.rounds[-1].endswith("f"):
                return builder.add(FOLD_NODE, street, float(state.returns()[0]), committed, 0)
            return builder.add(SHOWDOWN_NODE, street, float(min(committed)), committed, 0)
        raises = state.rounds[-1].count("r")
        made = builder.add(state.current_player(), street, 0.0, committed, raises)
        for action in state.legal_actions():
            child_id = node(state.child(action))
            builder.slots[made].append(action)
            builder.children[made].append(child_id)
        return made

    start = LeducState(deal, ("",))
    node(start)
    return builder.finish()


__all__ = ["FOLD_NODE", "SHOWDOWN_NODE", "BettingTree", "hunl_betting_tree", "leduc_betting_tree"]
