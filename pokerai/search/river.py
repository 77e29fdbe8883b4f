"""Real-time search for hold'em on the river: a river subgame over the beliefs, solved for one decision.

Endgame re-solving (Ganzfried & Sandholm, "Endgame Solving in Large
Imperfect-Information Games", AAMAS 2015; the river part of Libratus, Brown &
Sandholm, Science 2018): when the river is dealt, the rest of the hand is
small enough to solve at the table. Three steps, all vectorised over the
1,326 two-card combinations (:mod:`pokerai.search.combos`):

1. **Beliefs** (:func:`~pokerai.search.beliefs.public_beliefs`). Both players'
   ranges at the current public state, by Bayes' rule from the (thresholded)
   blueprint.
2. **River subgame** (:func:`build_river_subgame`). The public tree from the
   current state to the end of the hand with the blueprint's bet menu (children
   labelled by action slot), optionally with at most ``max_raises`` raises
   inside the search (then only fold and check/call). Its terminals share two
   payoff matrices over the combinations that hold no board card
   (:mod:`pokerai.search.showdown`): "valid pair" (1 where the two hands share
   no card) for folds and the showdown sign matrix for showdowns, each scaled by
   the chips at stake. Payoffs are whole-hand chip results of engine player 0;
   subgame players are engine player indices.
   :func:`solve_river` keeps only the combinations one player or the other may
   hold (a few hundred of the 1,081 on the first blueprint's spots, most of them on
   the shipped blueprint's), and the solve applies both matrices
   by a card-removal sweep linear in those hands
   (:func:`~pokerai.search.showdown.river_card_payoffs`,
   :class:`~pokerai.search.subgame.CardPayoffs`) rather than as ``[H, H]``
   products.
3. **Solve and blend** (:func:`solve_river`, :func:`search_probabilities`,
   :func:`search_decision`). :func:`~pokerai.search.subgame.solve` (CFR+) for
   an iteration budget and an optional time budget; a hand outside the
   searcher's range gets the best response to the solved opponent. Then
   :func:`~pokerai.search.subgame.blend` of the root strategy with the
   blueprint's, weight ``min(iterations done / full iterations, 1)``: 0
   iterations give the blueprint's probabilities exactly.

The solve depends only on the public state: the searcher's range is the
public one (the opponent's view of it), and the opponent's range is not
conditioned on the searcher's hole cards, because card removal for the actual
hand is already in the matrices (a pair that shares a card has payoff 0). So
one solve answers for every hand the searcher could hold, which is what a
local best response asks.

Opponent models learnt during a match enter the solve through
:mod:`pokerai.search.responses`; :func:`with_any_allin` opens the all-in on the
river search's menu.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from pokerai.abstraction.bets import CHECK_CALL_SLOT, FOLD_SLOT, BetAbstraction
from pokerai.engine.state import HUNLState, Street
from pokerai.search.beliefs import combo_probabilities, public_beliefs
from pokerai.search.combos import NUM_COMBOS, combo_index
from pokerai.search.responses import (
    ResponseCounts,
    capped_beliefs,
    opened_river_with_check,
    response_strategies,
)
from pokerai.search.showdown import (
    FOLD_MATRIX,
    SHOWDOWN_MATRIX,
    river_card_payoffs,
    river_matrices,
    river_pair_matrices,
    river_ranks,
)
from pokerai.search.subgame import (
    TERMINAL,
    Decision,
    Subgame,
    Terminal,
    back_up_values,
    blend,
    inner_solution,
    solve,
    with_resolve_gadget,
)
from pokerai.search.tree import blueprint_layout, breadth_first, menu_children
from pokerai.tabular.blueprint import AnyBlueprint


@dataclass(frozen=True, eq=False)
class RiverSubgame:
    """A river subgame (module docstring) and how it maps back to the game.

    Attributes:
        subgame: the public tree; subgame player ``p`` is engine player ``p``.
        hands: int64 ``[H]``, the :data:`~pokerai.search.combos.ALL_COMBOS` index of each subgame hand.
        root_slots: the action slot of each child of the root, in child order.
        root_player: the engine player to act at the root (the searcher).
        board: the five board cards.
        root: the nested description the subgame was laid out from.
        decision_states: the engine state at each decision node, by node index.
    """

    subgame: Subgame
    hands: npt.NDArray[np.int64]
    root_slots: tuple[int, ...]
    root_player: int
    board: tuple[int, ...]
    root: Decision | None = None
    decision_states: dict[int, HUNLState] | None = None


def build_river_subgame(
    state: HUNLState,
    abstraction: BetAbstraction,
    beliefs: npt.ArrayLike,
    *,
    max_raises: int | None = None,
    hands: npt.ArrayLike | None = None,
) -> RiverSubgame:
    """The public tree from the river ``state`` to the end of the hand on the menu of ``abstraction``.

    ``beliefs`` float ``[2, 1326]`` (by engine player) is the root reach.
    ``hands`` (indices into :data:`~pokerai.search.combos.ALL_COMBOS`, none holding a board card;
    default: every such combination) are the subgame's hands: leaving out the
    hands that neither player can hold makes the solve faster (linearly with the card
    sweep of :func:`~pokerai.search.showdown.river_card_payoffs`, by the square with dense products). With
    ``max_raises``, at most that many raises are made inside the tree, after
    which a player may only fold, check or call. Terminals: a fold scales the
    valid-pair matrix by engine player 0's chip result, a showdown scales the
    showdown matrix by the chips each player has in the pot.
    """
    if state.street != Street.RIVER or state.to_act is None:
        raise ValueError(f"river search needs a river decision, got {state!r}")
    if max_raises is not None and (isinstance(max_raises, bool) or max_raises < 0):
        raise ValueError(f"max_raises {max_raises!r} is not a non-negative whole number")
    reach = np.asarray(beliefs, dtype=np.float64)
    if reach.shape != (2, NUM_COMBOS):
        raise ValueError(f"beliefs must have shape [2, {NUM_COMBOS}], got {list(reach.shape)}")
    board = tuple(state.board)
    if hands is None:
        hands, valid, showdown = river_matrices(board)
    else:
        hands = np.asarray(hands, dtype=np.int64)
        valid, showdown = river_pair_matrices(board, hands, hands)  # ValueError on a board card

    states: dict[int, HUNLState] = {}

    def node(current: HUNLState, raises: int) -> Decision | Terminal:
        if current.is_over:
            if current.folded is not None:
                return Terminal(FOLD_MATRIX, float(current.returns()[0]))
            assert current.committed[0] == current.committed[1], (
                "uncalled chips are returned before a showdown"
            )
            return Terminal(SHOWDOWN_MATRIX, float(current.committed[0]))
        player = current.to_act
        assert player is not None
        children: list[tuple[Any, Decision | Terminal]] = [
            (slot, node(child, child_raises))
            for slot, child, child_raises in menu_children(current, abstraction, raises, max_raises)
        ]
        decision = Decision(player, children)
        states[id(decision)] = current
        return decision

    root = node(state.clone(), 0)
    assert isinstance(root, Decision)
    subgame = Subgame.from_nested(root, [valid, showdown], reach[:, hands])
    order = breadth_first(root)
    return RiverSubgame(
        subgame=subgame,
        hands=hands,
        root_slots=tuple(int(label) for label, _ in root.children),
        root_player=int(root.player),
        board=tuple(state.board),
        root=root,
        decision_states={
            index: states[id(nested)] for index, nested in enumerate(order) if id(nested) in states
        },
    )


def river_blueprint_strategy(
    blueprint: AnyBlueprint, river: RiverSubgame, threshold: float = 0.0
) -> npt.NDArray[np.float64]:
    """The blueprint in :attr:`~pokerai.search.subgame.Solution.average` layout for ``river.subgame``.

    :func:`~pokerai.search.tree.blueprint_layout` at every decision of the river tree.
    """
    assert river.decision_states is not None
    return blueprint_layout(blueprint, river.subgame, river.decision_states, river.hands, threshold)


@dataclass(frozen=True)
class RiverSolution:
    """The solved root of a river subgame for every hand of the searcher.

    Attributes:
        strategy: float64 ``[1326, num_slots]``, the searcher's strategy at the
            root for each combination (0 on slots not at the root; rows of
            combinations that hold a board card are 0): the solver's average
            strategy for hands in its range, a best response to the solved
            opponent for hands outside it.
        iterations: CFR+ iterations run.
        seconds: wall-clock time of beliefs, tree and solve together.
        num_nodes: nodes of the subgame tree.
        num_hands: hands of the subgame (combinations either player may hold).
    """

    strategy: npt.NDArray[np.float64]
    iterations: int
    seconds: float
    num_nodes: int
    num_hands: int = 0


def with_any_allin(abstraction: BetAbstraction) -> BetAbstraction:
    """``abstraction`` with all-in on the river menu at any size (its ``all_in_max_pots`` lifted).

    A finer menu for the river search (``river_allin``): the slots stay the blueprint's, so
    the solved strategy maps onto the same action slots, but the all-in slot is also legal
    where it would be an overbet beyond the blueprint menu's limit. The river subgame needs
    no blueprint values at its leaves (it ends at showdowns and folds), so both players'
    answers to such all-ins are solved, not read from a network that never met them (except
    that the safe gadget's opt-out values ask the network at every node, these included).
    A menu whose largest pot fraction exceeds its all-in cap is a ``ValueError``: there a
    fraction clamped to the stack is the blueprint's all-in, which would change slot.
    """
    river = abstraction.river
    if not river.all_in:
        raise ValueError("the blueprint's river menu has no all-in slot to open")
    if river.all_in_max_pots > 0 and river.pot_fractions and river.pot_fractions[-1] > river.all_in_max_pots:
        # A fraction above the cap can be the blueprint's all-in (clamped to the stack) where the open
        # menu gives that amount to the all-in slot, so the two menus' slots would disagree.
        raise ValueError(
            f"the river menu's largest pot fraction {river.pot_fractions[-1]:g} exceeds its all-in cap of "
            f"{river.all_in_max_pots:g} pots, so opening the all-in would move a blueprint slot"
        )
    return dataclasses.replace(abstraction, river=dataclasses.replace(river, all_in_max_pots=0.0))


def solve_river(
    blueprint: AnyBlueprint,
    state: HUNLState,
    *,
    iterations: int,
    time_budget_s: float | None = None,
    threshold: float = 0.0,
    max_raises: int | None = None,
    safe: bool = False,
    bets: BetAbstraction | None = None,
    opponent_threshold: float | None = None,
    opponent_cap: float | None = None,
    opponent_responses: ResponseCounts | None = None,
) -> RiverSolution:
    """Beliefs, river subgame and CFR+ at the river decision ``state`` (module docstring).

    ``bets`` is the menu of the subgame tree (default: the blueprint's); it must have the
    blueprint's slots (as :func:`with_any_allin` keeps them). Beliefs always use the blueprint's
    menu; ``opponent_threshold`` is :func:`~pokerai.search.beliefs.public_beliefs`'s.
    ``opponent_cap`` (None: none), if the opponent opened the river with a check, keeps only
    :data:`~pokerai.search.responses.CAP_FLOOR` of the belief in each opponent hand of
    :func:`~pokerai.search.showdown.river_strength` above it
    (:func:`~pokerai.search.responses.capped_beliefs`): a model, learnt from its showdowns, of an
    opponent that checks only hands up to that strength (:mod:`pokerai.agents.opponent`).
    ``opponent_responses`` (None: none; not with ``safe``) mixes a model of how the opponent answers
    the searcher's first river bet into the solve
    (:func:`~pokerai.search.responses.response_strategies`).

    With ``safe`` the subgame starts with the re-solving gadget
    (:func:`~pokerai.search.subgame.with_resolve_gadget`): the opponent may take,
    hand by hand, its best-response value against the blueprint instead of
    entering, and its root reach is half beliefs, half uniform over the
    subgame's hands. That costs one blueprint call per decision node.

    The subgame holds only the combinations that one player or the other may
    hold (positive belief), often fewer than the 1,081 free of the board. A hand
    outside the searcher's range (one the blueprint would not have
    played this way, such as a hand whose earlier river actions were searched)
    gets the best response to the solved opponent strategy (pure, the most
    passive action on ties). Depends only on the public part of ``state`` (its
    hole cards are never read). With 0 iterations nothing is solved and the
    strategy is all zeros.
    """
    started = time.perf_counter()
    num_slots = blueprint.game.bets.num_slots
    if iterations == 0:
        return RiverSolution(np.zeros((NUM_COMBOS, num_slots)), 0, time.perf_counter() - started, 0)
    beliefs = public_beliefs(blueprint, state, threshold=threshold, opponent_threshold=opponent_threshold)
    searcher = state.to_act
    assert searcher is not None
    if opponent_cap is not None and opened_river_with_check(state.history, state.street_starts, 1 - searcher):
        beliefs = capped_beliefs(beliefs, state.board, 1 - searcher, opponent_cap)
    hands = np.flatnonzero((beliefs[0] > 0) | (beliefs[1] > 0))
    menu = blueprint.game.bets if bets is None else bets
    if menu.num_slots != num_slots:
        raise ValueError(f"a search menu of {menu.num_slots} slots does not fit the blueprint's {num_slots}")
    river = build_river_subgame(state, menu, beliefs, max_raises=max_raises, hands=hands)
    solved_game = river.subgame
    fixed = None
    if opponent_responses is not None:
        if safe:
            raise ValueError("opponent_responses does not work with the safe gadget")
        fixed = response_strategies(river, opponent_responses)
    if safe:
        assert river.root is not None
        solved_game = with_resolve_gadget(
            river.root,
            river.subgame,
            river_blueprint_strategy(blueprint, river, threshold),
            searcher,
            valid=FOLD_MATRIX,
            uniform_weight=0.5,
        )
    structure = river_card_payoffs(state.board, river.hands)  # the gadget keeps matrices 0 and 1
    remaining = None if time_budget_s is None else max(0.0, time_budget_s - (time.perf_counter() - started))
    solution = solve(solved_game, iterations, time_budget_s=remaining, card_payoffs=structure, fixed=fixed)
    if safe:
        solution = inner_solution(solution, river.subgame)
    slots = np.asarray(river.root_slots)
    strategy = np.zeros((NUM_COMBOS, num_slots))
    possible = river_ranks(tuple(state.board))[0]
    outside = possible[beliefs[searcher, possible] == 0]
    if len(outside):
        values = _best_response_root_values(river, solution.average, outside)  # [children, outside]
        # Ties go to the most passive action: check/call first, then fold, then raises by size.
        order = np.argsort(
            [0 if slot == CHECK_CALL_SLOT else 1 if slot == FOLD_SLOT else slot for slot in slots]
        )
        best = order[np.argmax(values[order], axis=0)]
        strategy[outside, slots[best]] = 1.0
    inside = np.flatnonzero(beliefs[searcher, river.hands] > 0)
    strategy[np.ix_(river.hands[inside], slots)] = solution.strategy(river.subgame, 0)[inside]
    return RiverSolution(
        strategy,
        solution.iterations,
        time.perf_counter() - started,
        river.subgame.num_nodes,
        river.subgame.num_hands,
    )


def _best_response_root_values(
    river: RiverSubgame, average: npt.NDArray[np.float64], hands: npt.NDArray[np.int64]
) -> npt.NDArray[np.float64]:
    """float64 ``[root children, len(hands)]``: the searcher's best-response value of each root action.

    For ``hands`` (combination indices, none holding a board card, any of them
    outside the subgame's hands) against the opponent playing ``average`` (the
    :attr:`~pokerai.search.subgame.Solution.average` layout) from its root
    beliefs; deeper decisions of the searcher take their best child.
    """
    subgame = river.subgame
    searcher, opponent = river.root_player, 1 - river.root_player
    reach = np.empty((subgame.num_nodes, subgame.num_hands))
    reach[0] = subgame.reach[opponent]
    for node in subgame.decisions:  # parents before children
        children = subgame.children(node)
        own = subgame.player[node] == opponent
        reach[children.start : children.stop] = (
            reach[node] * average[children.start : children.stop] if own else reach[node]
        )
    # Player 0's payoff is M[i, j] with player 0 holding i; player 1 holding i gets -M[j, i].
    if searcher == 0:
        blocks = river_pair_matrices(river.board, hands, river.hands)  # [len(hands), subgame hands]
    else:
        blocks = tuple(-block.T for block in river_pair_matrices(river.board, river.hands, hands))
    values = np.zeros((subgame.num_nodes, len(hands)))
    for matrix_index in (FOLD_MATRIX, SHOWDOWN_MATRIX):
        nodes = np.flatnonzero((subgame.kind == TERMINAL) & (subgame.matrix == matrix_index))
        if not len(nodes):
            continue
        block = blocks[matrix_index]
        values[nodes] = subgame.scale[nodes, np.newaxis] * (reach[nodes] @ block.T)
    back_up_values(subgame, values, searcher, None)
    root = subgame.children(0)
    result: npt.NDArray[np.float64] = values[root.start : root.stop]
    return result


def search_probabilities(
    blueprint_probabilities: npt.ArrayLike,
    solution: RiverSolution,
    hole_cards: Sequence[int],
    full_iterations: int,
) -> npt.NDArray[np.float64]:
    """The searched policy of the hand ``hole_cards``: float64 ``[num_slots]``.

    :func:`~pokerai.search.subgame.blend` of the blueprint's probabilities for
    this hand (float ``[num_slots]``) with the solved root strategy, weight
    ``min(solution.iterations / full_iterations, 1)``; with 0 iterations the
    blueprint's probabilities come back exactly.
    """
    local = solution.strategy[combo_index(int(hole_cards[0]), int(hole_cards[1]))]
    return blend(
        np.asarray(blueprint_probabilities, dtype=np.float64), local, solution.iterations, full_iterations
    )


def search_decision(
    blueprint: AnyBlueprint,
    state: HUNLState,
    hole_cards: tuple[int, int],
    *,
    iterations: int,
    full_iterations: int,
    time_budget_s: float | None = None,
    threshold: float = 0.0,
    max_raises: int | None = None,
) -> npt.NDArray[np.float64]:
    """The searched policy of the player to act at river ``state`` with ``hole_cards``.

    Returns float64 ``[num_slots]``: :func:`solve_river` then
    :func:`search_probabilities` against the blueprint's (thresholded)
    probabilities for this hand, which come back exactly with 0 iterations.
    :class:`pokerai.agents.search.SearchAgent` does the same with a cache of
    solutions per public state.
    """
    hand = np.array([combo_index(*hole_cards)], dtype=np.int64)
    blueprint_probabilities = combo_probabilities(blueprint, state, hand, threshold)[2][0]
    solution = solve_river(
        blueprint,
        state,
        iterations=iterations,
        time_budget_s=time_budget_s,
        threshold=threshold,
        max_raises=max_raises,
    )
    return search_probabilities(blueprint_probabilities, solution, hole_cards, full_iterations)


__all__ = [
    "RiverSolution",
    "RiverSubgame",
    "build_river_subgame",
    "river_blueprint_strategy",
    "search_decision",
    "search_probabilities",
    "solve_river",
    "with_any_allin",
]
