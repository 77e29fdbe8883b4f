"""Compile a small game into flat arrays, once, for the tabular solvers.

The tree is stored breadth first: node 0 is the root, every node's children
have consecutive indices after it, so iterating forwards visits parents before
children and iterating backwards visits children before parents. Information
sets are numbered with all of player 0's before player 1's, so each player's
block of a ``[num_infosets, num_actions]`` table is one contiguous slice.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from pokerai.games.protocol import Game, State

TERMINAL_NODE, CHANCE_NODE, DECISION_NODE = 0, 1, 2

MAX_TREE_NODES = 5_000_000
"""Refuse to enumerate larger trees: tabular solvers are for small games."""


@dataclass(frozen=True, eq=False)
class GameTree:
    """A game enumerated into contiguous arrays (all of length ``num_nodes`` unless stated).

    Attributes:
        game: the game that was compiled.
        kind: int8, ``TERMINAL_NODE``, ``CHANCE_NODE`` or ``DECISION_NODE``.
        player: int8, the acting player at decisions, -1 elsewhere.
        infoset: int32, the information-set index at decisions, -1 elsewhere.
        first_child, num_children: int32, children are
            ``first_child[n] .. first_child[n] + num_children[n] - 1``.
        parent: int32, -1 at the root.
        action: int32, the action (or chance outcome) that leads from the parent here.
        chance_probability: float64, probability of this node given its parent
            when the parent is a chance node, 1 otherwise.
        utility: float64, player 0's return at terminal nodes (player 1's is the
            negative: the games are zero-sum), 0 elsewhere.
        depth: int32, number of edges from the root.
        infoset_keys: the key of each information set, ``num_infosets`` long.
        infoset_player: int8 ``[num_infosets]``.
        legal_mask: bool ``[num_infosets, num_actions]``.
        action_names: per information set, ``{action_id: name}`` of its legal actions.
        player_slices: information sets of player p are ``player_slices[p]``.
        depth_first_decisions: int32, the decision nodes in depth-first
            (pre-)order, children in action order -- the order in which a
            recursive solver would reach them.
    """

    game: Game
    kind: np.ndarray
    player: np.ndarray
    infoset: np.ndarray
    first_child: np.ndarray
    num_children: np.ndarray
    parent: np.ndarray
    action: np.ndarray
    chance_probability: np.ndarray
    utility: np.ndarray
    depth: np.ndarray
    infoset_keys: tuple[str, ...]
    infoset_player: np.ndarray
    legal_mask: np.ndarray
    action_names: tuple[dict[int, str], ...]
    player_slices: tuple[slice, slice]
    depth_first_decisions: np.ndarray

    @property
    def num_nodes(self) -> int:
        return int(self.kind.shape[0])

    @property
    def num_infosets(self) -> int:
        return len(self.infoset_keys)

    @property
    def num_actions(self) -> int:
        return int(self.legal_mask.shape[1])

    def infoset_index(self, key: str) -> int:
        """Index of the information set with ``key``; ``KeyError`` naming it if unknown."""
        try:
            return self._key_to_index[key]
        except KeyError:
            raise KeyError(f"{self.game.name} has no information set {key!r}") from None

    @property
    def _key_to_index(self) -> dict[str, int]:
        cache = self.__dict__.get("_key_cache")
        if cache is None:
            cache = {key: i for i, key in enumerate(self.infoset_keys)}
            object.__setattr__(self, "_key_cache", cache)
        return cache


@dataclass
class _Nodes:
    """A tree's nodes as they are enumerated: one entry per node in each list, in node order."""

    game: Game
    kinds: list[int] = field(default_factory=list)
    players: list[int] = field(default_factory=list)
    infoset_of_node: list[str | None] = field(default_factory=list)
    first_child: list[int] = field(default_factory=list)
    num_children: list[int] = field(default_factory=list)
    parents: list[int] = field(default_factory=lambda: [-1])
    actions: list[int] = field(default_factory=lambda: [-1])
    chance_probabilities: list[float] = field(default_factory=lambda: [1.0])
    utilities: list[float] = field(default_factory=list)
    depths: list[int] = field(default_factory=lambda: [0])
    infoset_order: dict[str, tuple[int, int]] = field(default_factory=dict)  # key -> (player, first seen)
    names: dict[str, dict[int, str]] = field(default_factory=dict)

    def enqueue(self, queue: list[State], node: int, state: State, action: int, probability: float) -> None:
        """Append ``state``, the child of ``node`` by ``action``, to the breadth-first ``queue``."""
        queue.append(state)
        self.parents.append(node)
        self.actions.append(action)
        self.chance_probabilities.append(probability)
        self.depths.append(self.depths[node] + 1)

    def add_terminal(self, state: State, next_index: int) -> None:
        returns = state.returns()
        if abs(returns[0] + returns[1]) > 1e-12:
            raise ValueError(f"{self.game.name} is not zero-sum: returns {returns} at {state}")
        self.kinds.append(TERMINAL_NODE)
        self.players.append(-1)
        self.infoset_of_node.append(None)
        self.utilities.append(float(returns[0]))
        self.first_child.append(next_index)
        self.num_children.append(0)

    def add_chance(self, queue: list[State], node: int, state: State) -> None:
        outcomes = list(state.chance_outcomes())
        total = sum(p for _, p in outcomes)
        if abs(total - 1.0) > 1e-9:
            raise ValueError(f"{self.game.name}: chance probabilities sum to {total} at {state}")
        self.kinds.append(CHANCE_NODE)
        self.players.append(-1)
        self.infoset_of_node.append(None)
        self.num_children.append(len(outcomes))
        for outcome, probability in outcomes:
            self.enqueue(queue, node, state.child(outcome), outcome, float(probability))

    def add_decision(self, queue: list[State], node: int, state: State) -> None:
        player = state.current_player()
        key = state.information_state_key(player)
        legal = list(state.legal_actions())
        if key not in self.infoset_order:
            self.infoset_order[key] = (player, len(self.infoset_order))
            self.names[key] = {a: state.action_name(a) for a in legal}
        elif list(self.names[key]) != legal or self.infoset_order[key][0] != player:
            raise ValueError(f"{self.game.name}: information set {key!r} has inconsistent actions")
        self.kinds.append(DECISION_NODE)
        self.players.append(player)
        self.infoset_of_node.append(key)
        self.num_children.append(len(legal))
        for a in legal:
            self.enqueue(queue, node, state.child(a), a, 1.0)

    def depth_first_decisions(self) -> list[int]:
        """The decision nodes in depth-first order, children left to right."""
        depth_first: list[int] = []
        stack = [0]
        while stack:
            node = stack.pop()
            if self.kinds[node] == DECISION_NODE:
                depth_first.append(node)
            first = self.first_child[node]
            stack.extend(range(first + self.num_children[node] - 1, first - 1, -1))
        return depth_first

    def tree(self) -> GameTree:
        """The enumerated nodes as a ``GameTree``."""
        infoset_order = self.infoset_order
        names = self.names
        # Player 0's information sets first, each block in order of first appearance.
        keys = sorted(infoset_order, key=lambda k: infoset_order[k])
        index = {key: i for i, key in enumerate(keys)}
        infoset_player = np.array([infoset_order[k][0] for k in keys], dtype=np.int8)
        legal_mask = np.zeros((len(keys), self.game.num_distinct_actions), dtype=np.bool_)
        for i, key in enumerate(keys):
            legal_mask[i, list(names[key])] = True
        num_player0 = int(np.sum(infoset_player == 0))
        return GameTree(
            game=self.game,
            kind=np.array(self.kinds, dtype=np.int8),
            player=np.array(self.players, dtype=np.int8),
            infoset=np.array([-1 if k is None else index[k] for k in self.infoset_of_node], dtype=np.int32),
            first_child=np.array(self.first_child, dtype=np.int32),
            num_children=np.array(self.num_children, dtype=np.int32),
            parent=np.array(self.parents, dtype=np.int32),
            action=np.array(self.actions, dtype=np.int32),
            chance_probability=np.array(self.chance_probabilities, dtype=np.float64),
            utility=np.array(self.utilities, dtype=np.float64),
            depth=np.array(self.depths, dtype=np.int32),
            infoset_keys=tuple(keys),
            infoset_player=infoset_player,
            legal_mask=legal_mask,
            action_names=tuple(names[k] for k in keys),
            player_slices=(slice(0, num_player0), slice(num_player0, len(keys))),
            depth_first_decisions=np.array(self.depth_first_decisions(), dtype=np.int32),
        )


def compile_tree(game: Game) -> GameTree:
    """Enumerate ``game`` breadth first into a ``GameTree``.

    Raises ``ValueError`` if the game is not two-player zero-sum, if chance
    probabilities do not sum to 1, or if the tree has more than
    ``MAX_TREE_NODES`` nodes.
    """
    if game.num_players != 2:
        raise ValueError(f"{game.name}: tabular solvers need a two-player game")
    nodes = _Nodes(game)
    # Breadth-first with an explicit queue so that children get consecutive indices.
    queue: list[State] = [game.initial_state()]
    head = 0
    while head < len(queue):
        if len(queue) > MAX_TREE_NODES:
            raise ValueError(
                f"{game.name} has more than {MAX_TREE_NODES:,} nodes; too big for a tabular solver"
            )
        state = queue[head]
        node = head
        head += 1
        if state.is_terminal():
            nodes.add_terminal(state, len(queue))
            continue
        nodes.utilities.append(0.0)
        nodes.first_child.append(len(queue))
        if state.is_chance():
            nodes.add_chance(queue, node, state)
        else:
            nodes.add_decision(queue, node, state)
    return nodes.tree()
