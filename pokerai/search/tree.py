"""The public tree of a hold'em street's subgame, and how it maps back to the game.

A street's search builds a nested public tree (:class:`~pokerai.search.subgame.Decision`,
:class:`~pokerai.search.subgame.Terminal`) from the street's start on the blueprint's bet
menu and lays it out as a :class:`~pokerai.search.subgame.Subgame`
(:func:`build_street_tree`). The actions already taken on the street are on it at their
exact sizes: an off-menu bet or all-in of the opponent is a child of its own
(:class:`Exact`), so no translation error carries into the searcher's decision. Every other
branch follows the menu (:func:`menu_children`) with at most ``max_raises`` raises inside
it; along the actual path the menu is whole. What ends the tree -- terminals, and leaves
where the street's betting closes with a card to come -- comes from the street's
:class:`StreetPayoffs` (:mod:`pokerai.search.payoffs`). :func:`street_blueprint` lays the
blueprint's strategy out on the tree, as the safe gadget needs it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from pokerai.abstraction.bets import CHECK_CALL_SLOT, FOLD_SLOT, BetAbstraction, legal_slot_amounts
from pokerai.engine.state import Action, ActionKind, HUNLState
from pokerai.games.holdem import Blueprint
from pokerai.search.beliefs import action_slots, combo_probabilities, history_prefix, raise_slot
from pokerai.search.subgame import CardPayoffs, Decision, Subgame, Terminal


@dataclass(frozen=True)
class Exact:
    """The label of a tree child for an action taken at a size the menu lacks: raise to ``amount``."""

    amount: int


Label = int | Exact | str
"""A child's label: a menu slot, an :class:`Exact` raise, or a continuation's name at a leaf."""


def menu_children(
    state: HUNLState, abstraction: BetAbstraction, raises: int, max_raises: int | None
) -> list[tuple[int, HUNLState, int]]:
    """The children of a search tree's decision ``state`` on the menu: (slot, child state, raises so far).

    Fold and check/call are always there when legal; a raise slot only while ``raises`` is
    below ``max_raises`` (None: no cap), and it counts one more raise.
    """
    legal, amounts = legal_slot_amounts(state, abstraction)
    children: list[tuple[int, HUNLState, int]] = []
    for slot in legal:
        if slot == FOLD_SLOT:
            children.append((slot, state.after(ActionKind.FOLD), raises))
        elif slot == CHECK_CALL_SLOT:
            children.append((slot, state.after(ActionKind.CALL), raises))
        elif max_raises is None or raises < max_raises:
            children.append((slot, state.after(ActionKind.RAISE, amounts[slot]), raises + 1))
    return children


class StreetPayoffs(Protocol):
    """What a street contributes to the pipeline: its hands, matrices, terminals and leaves."""

    hands: npt.NDArray[np.int64]
    matrices: list[npt.NDArray[np.float64]]
    card_payoffs: CardPayoffs | None

    def terminal(self, state: HUNLState) -> Terminal:
        """The terminal of a state where the hand is over."""
        ...

    def leaf(self, state: HUNLState) -> Decision | Terminal:
        """The node for a state where the street's betting closed with chips behind."""
        ...


def street_start(state: HUNLState) -> HUNLState:
    """The engine state at the first action of ``state``'s street (the same deal, the history before it)."""
    return history_prefix(state, state.street_starts[state.street])


@dataclass(frozen=True, eq=False)
class StreetTree:
    """A street's public tree (module docstring, step 2) and how it maps back to the game.

    Attributes:
        subgame: the tree; subgame player ``p`` is engine player ``p``.
        root: the nested description it was laid out from.
        hands: int64 ``[H]``, the :data:`~pokerai.search.combos.ALL_COMBOS` index of each hand.
        decision_states: the engine state at each betting decision, by node index (the
            continuation choices at leaves are not betting decisions and are not in it).
        path: the node index of each decision on the street's actual path, in order; the
            last is the current decision.
        path_actions: the history index of the action taken at each path node but the last.
    """

    subgame: Subgame
    root: Decision
    hands: npt.NDArray[np.int64]
    decision_states: dict[int, HUNLState]
    path: tuple[int, ...]
    path_actions: tuple[int, ...]

    @property
    def current(self) -> int:
        """The node index of the current decision."""
        return self.path[-1]


def action_label(state: HUNLState, action: Action, abstraction: BetAbstraction) -> Label:
    """The child label of ``action`` at ``state``: its menu slot, or :class:`Exact` for an off-menu raise."""
    if action.kind is ActionKind.FOLD:
        return FOLD_SLOT
    if action.kind is not ActionKind.RAISE:
        return CHECK_CALL_SLOT
    slot = raise_slot(*legal_slot_amounts(state, abstraction), action.amount)
    return Exact(int(action.amount)) if slot is None else slot


@dataclass(eq=False)
class _StreetTreeBuilder:
    """Builds :func:`build_street_tree`'s nested tree. A class rather than a recursive closure: a
    closure that calls itself is a reference cycle, which would keep the payoffs (hundreds of
    megabytes of leaf matrices on the flop) until the cyclic collector's next full pass."""

    street: int
    abstraction: BetAbstraction
    payoffs: StreetPayoffs
    actions: Sequence[Action]
    max_raises: int | None
    states: dict[int, HUNLState] = field(default_factory=dict)
    """The engine state of each decision built, by ``id`` of the decision."""
    on_path: dict[int, int] = field(default_factory=dict)
    """The path index of each decision on the actual path, by ``id`` of the decision."""

    def node(self, current: HUNLState, raises: int, depth: int | None) -> Decision | Terminal:
        """The subtree at ``current``; ``depth`` is its index on the actual path (None: off it)."""
        if current.is_over:
            return self.payoffs.terminal(current)
        if current.street != self.street:
            return self.payoffs.leaf(current)
        player = current.to_act
        assert player is not None
        taken: Label | None = None
        if depth is not None and depth < len(self.actions):
            taken = action_label(current, self.actions[depth], self.abstraction)
        children: list[tuple[Any, Decision | Terminal]] = []
        menu = (
            menu_children(current, self.abstraction, 0, None)
            if depth is not None
            else menu_children(current, self.abstraction, raises, self.max_raises)
        )
        for slot, child, child_raises in menu:
            follows = depth is not None and slot == taken
            children.append(
                (slot, self.node(child, child_raises, depth + 1 if follows and depth is not None else None))
            )
        if isinstance(taken, Exact):
            assert depth is not None
            child = current.clone()
            child.apply(self.actions[depth])
            children.append((taken, self.node(child, 0, depth + 1)))
        decision = Decision(player, children)
        self.states[id(decision)] = current
        if depth is not None:
            self.on_path[id(decision)] = depth
        return decision


def build_street_tree(
    state: HUNLState,
    abstraction: BetAbstraction,
    payoffs: StreetPayoffs,
    reach: npt.ArrayLike,
    *,
    max_raises: int | None,
) -> StreetTree:
    """The public tree of ``state``'s street from its start, through the actions taken, to its end.

    ``reach`` float ``[2, H]`` (by engine player, over ``payoffs.hands``) is the reach at
    the street's start. Decisions on the actual path offer the whole menu plus the action
    actually taken if the menu lacks its size; elsewhere at most ``max_raises`` raises
    (None: no cap) follow a path node. Terminals and leaves come from ``payoffs``.
    """
    if state.to_act is None:
        raise ValueError("street search needs a decision, and the hand is over")
    start = street_start(state)
    first = state.street_starts[state.street]
    actions = state.history[first:]
    builder = _StreetTreeBuilder(state.street, abstraction, payoffs, actions, max_raises)
    root = builder.node(start, 0, 0)
    states, on_path = builder.states, builder.on_path
    if not isinstance(root, Decision):
        raise ValueError("the street's tree has no decision at its start")
    subgame = Subgame.from_nested(root, payoffs.matrices, reach)
    order: list[Decision | Terminal] = [root]
    for nested in order:
        if isinstance(nested, Decision):
            order.extend(child for _, child in nested.children)
    index_of = {id(nested): index for index, nested in enumerate(order)}
    path = sorted(on_path, key=on_path.__getitem__)
    if len(path) != len(actions) + 1:
        raise ValueError("the street's actions do not replay on its tree")
    return StreetTree(
        subgame=subgame,
        root=root,
        hands=payoffs.hands,
        decision_states={index_of[key]: value for key, value in states.items()},
        path=tuple(index_of[key] for key in path),
        path_actions=tuple(range(first, first + len(actions))),
    )


def _children_rows(
    probabilities: npt.NDArray[np.float64],
    labels: Sequence[Label],
    state: HUNLState,
    legal: Sequence[int],
    amounts: Sequence[int],
    abstraction: BetAbstraction,
) -> npt.NDArray[np.float64]:
    """``probabilities`` ``[H, num_slots]`` over a decision's children ``[children, H]``, renormalised.

    An :class:`Exact` child gets the probability of its translation into menu slots (without
    double counting the slots that are also children)."""
    rows = np.zeros((len(labels), probabilities.shape[0]))
    for position, label in enumerate(labels):
        if isinstance(label, Exact):
            action = Action(int(state.to_act or 0), ActionKind.RAISE, label.amount)
            pairs = action_slots(state, action, legal, amounts, abstraction)
            rows[position] = sum(weight * probabilities[:, slot] for slot, weight in pairs)
        else:
            rows[position] = probabilities[:, int(label)]
    totals = rows.sum(axis=0)
    result: npt.NDArray[np.float64] = np.where(
        totals > 0, rows / np.where(totals > 0, totals, 1.0), 1.0 / len(labels)
    )
    return result


def street_blueprint(
    blueprint: Blueprint, tree: StreetTree, threshold: float = 0.0
) -> npt.NDArray[np.float64]:
    """The blueprint in :attr:`~pokerai.search.subgame.Solution.average` layout for ``tree``.

    One batched blueprint call per betting decision over the tree's hands; at a leaf's
    continuation choice the opponent takes ``"blueprint"``.
    """
    subgame = tree.subgame
    abstraction: BetAbstraction = blueprint.game.bets
    strategy = np.ones((subgame.num_nodes, subgame.num_hands))
    for node in subgame.decisions:
        children = subgame.children(int(node))
        labels = [subgame.label[child] for child in children]
        node_state = tree.decision_states.get(int(node))
        if node_state is None:
            strategy[children.start : children.stop] = 0.0
            strategy[children.start + labels.index("blueprint")] = 1.0
            continue
        legal, amounts, probabilities = combo_probabilities(blueprint, node_state, tree.hands, threshold)
        strategy[children.start : children.stop] = _children_rows(
            probabilities, labels, node_state, legal, amounts, abstraction
        )
    return strategy


__all__ = [
    "Exact",
    "Label",
    "StreetPayoffs",
    "StreetTree",
    "action_label",
    "build_street_tree",
    "menu_children",
    "street_blueprint",
    "street_start",
]
