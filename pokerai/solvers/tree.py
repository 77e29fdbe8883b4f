"""Compile a small game into flat arrays, once, for the tabular solvers.

The tree is stored breadth first: node 0 is the root, every node's children
have consecutive indices after it, so iterating forwards visits parents before
children and iterating backwards visits children before parents. Information
sets are numbered with all of player 0's before player 1's, so each player's
block of a ``[num_infosets, num_actions]`` table is one contiguous slice.
"""

from __future__ import annotations

from dataclasses import dataclass

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


def compile_tree(game: Game) -> GameTree:
    """Enumerate ``game`` breadth first into a ``GameTree``.

    Raises ``ValueError`` if the game is not two-player zero-sum, if chance
    probabilities do not sum to 1, or if the tree has more than
    ``MAX_TREE_NODES`` nodes.
    """
    if game.num_players != 2:
        raise ValueError(f"{game.name}: tabular solvers need a two-player game")
    kinds: list[int] = []
    players: list[int] = []
    infoset_of_node: list[str | None] = []
    first_child: list[int] = []
    num_children: list[int] = []
    parents: list[int] = []
    actions: list[int] = []
    chance_probabilities: list[float] = []
    utilities: list[float] = []
    depths: list[int] = []
    infoset_order: dict[str, tuple[int, int]] = {}  # key -> (player, first seen)
    names: dict[str, dict[int, str]] = {}

    # Breadth-first with explicit queues so that children get consecutive indices.
    queue: list[State] = [game.initial_state()]
    parents.append(-1)
    actions.append(-1)
    chance_probabilities.append(1.0)
    depths.append(0)
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
            returns = state.returns()
            if abs(returns[0] + returns[1]) > 1e-12:
                raise ValueError(f"{game.name} is not zero-sum: returns {returns} at {state}")
            kinds.append(TERMINAL_NODE)
            players.append(-1)
            infoset_of_node.append(None)
            utilities.append(float(returns[0]))
            first_child.append(len(queue))
            num_children.append(0)
            continue
        utilities.append(0.0)
        first_child.append(len(queue))
        if state.is_chance():
            outcomes = list(state.chance_outcomes())
            total = sum(p for _, p in outcomes)
            if abs(total - 1.0) > 1e-9:
                raise ValueError(f"{game.name}: chance probabilities sum to {total} at {state}")
            kinds.append(CHANCE_NODE)
            players.append(-1)
            infoset_of_node.append(None)
            num_children.append(len(outcomes))
            for outcome, probability in outcomes:
                queue.append(state.child(outcome))
                parents.append(node)
                actions.append(outcome)
                chance_probabilities.append(float(probability))
                depths.append(depths[node] + 1)
            continue
        player = state.current_player()
        key = state.information_state_key(player)
        legal = list(state.legal_actions())
        if key not in infoset_order:
            infoset_order[key] = (player, len(infoset_order))
            names[key] = {a: state.action_name(a) for a in legal}
        elif list(names[key]) != legal or infoset_order[key][0] != player:
            raise ValueError(f"{game.name}: information set {key!r} has inconsistent actions")
        kinds.append(DECISION_NODE)
        players.append(player)
        infoset_of_node.append(key)
        num_children.append(len(legal))
        for a in legal:
            queue.append(state.child(a))
            parents.append(node)
            actions.append(a)
            chance_probabilities.append(1.0)
            depths.append(depths[node] + 1)

    # Player 0's information sets first, each block in order of first appearance.
    keys = sorted(infoset_order, key=lambda k: infoset_order[k])
    index = {key: i for i, key in enumerate(keys)}
    infoset_player = np.array([infoset_order[k][0] for k in keys], dtype=np.int8)
    legal_mask = np.zeros((len(keys), game.num_distinct_actions), dtype=np.bool_)
    for i, key in enumerate(keys):
        legal_mask[i, list(names[key])] = True
    num_player0 = int(np.sum(infoset_player == 0))
    depth_first: list[int] = []
    stack = [0]
    while stack:
        node = stack.pop()
        if kinds[node] == DECISION_NODE:
            depth_first.append(node)
        stack.extend(range(first_child[node] + num_children[node] - 1, first_child[node] - 1, -1))
    return GameTree(
        game=game,
        kind=np.array(kinds, dtype=np.int8),
        player=np.array(players, dtype=np.int8),
        infoset=np.array([-1 if k is None else index[k] for k in infoset_of_node], dtype=np.int32),
        first_child=np.array(first_child, dtype=np.int32),
        num_children=np.array(num_children, dtype=np.int32),
        parent=np.array(parents, dtype=np.int32),
        action=np.array(actions, dtype=np.int32),
        chance_probability=np.array(chance_probabilities, dtype=np.float64),
        utility=np.array(utilities, dtype=np.float64),
        depth=np.array(depths, dtype=np.int32),
        infoset_keys=tuple(keys),
        infoset_player=infoset_player,
        legal_mask=legal_mask,
        action_names=tuple(names[k] for k in keys),
        player_slices=(slice(0, num_player0), slice(num_player0, len(keys))),
        depth_first_decisions=np.array(depth_first, dtype=np.int32),
    )
