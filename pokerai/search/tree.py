"""Public-tree helpers shared by the hold'em street searches (river, turn, preflop).

Each street's search builds a nested public tree
(:class:`~pokerai.search.subgame.Decision`, :class:`~pokerai.search.subgame.Terminal`)
from an engine state on a bet menu and lays it out as a
:class:`~pokerai.search.subgame.Subgame`. :func:`menu_children` gives a decision's
children on the menu under a raise cap, :func:`breadth_first` the nested nodes in the
subgame's node order, and :func:`blueprint_layout` the blueprint's strategy at the
subgame's decisions in the solver's layout.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from pokerai.abstraction.bets import CHECK_CALL_SLOT, FOLD_SLOT, BetAbstraction, legal_slot_amounts
from pokerai.engine.state import ActionKind, HUNLState
from pokerai.search.beliefs import combo_probabilities
from pokerai.search.subgame import Decision, Subgame, Terminal
from pokerai.tabular.blueprint import AnyBlueprint


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


def breadth_first(root: Decision | Terminal) -> list[Decision | Terminal]:
    """The nodes of a nested description in :meth:`~pokerai.search.subgame.Subgame.from_nested`'s order."""
    order: list[Decision | Terminal] = [root]
    for nested in order:
        if isinstance(nested, Decision):
            order.extend(child for _, child in nested.children)
    return order


def blueprint_layout(
    blueprint: AnyBlueprint,
    subgame: Subgame,
    decision_states: dict[int, HUNLState],
    hands: npt.NDArray[np.int64],
    threshold: float = 0.0,
) -> npt.NDArray[np.float64]:
    """The blueprint in :attr:`~pokerai.search.subgame.Solution.average` layout at ``decision_states``.

    One batched network call per decision (its engine state in ``decision_states``) over
    ``hands``; where a raise cap removed slots, the remaining children are renormalised
    (uniform when none of them has probability). Other rows are 1.
    """
    strategy = np.ones((subgame.num_nodes, subgame.num_hands))
    for node, node_state in decision_states.items():
        _, _, probabilities = combo_probabilities(blueprint, node_state, hands, threshold)
        children = subgame.children(node)
        slots = [int(subgame.label[child]) for child in children]
        rows = probabilities[:, slots].T  # [children, H]
        totals = rows.sum(axis=0)
        strategy[children.start : children.stop] = np.where(
            totals > 0, rows / np.where(totals > 0, totals, 1.0), 1.0 / len(slots)
        )
    return strategy


__all__ = [
    "blueprint_layout",
    "breadth_first",
    "menu_children",
]
