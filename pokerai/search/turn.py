"""Depth-limited search on the turn: the turn's betting solved over leaves valued by blueprint rollouts.

On the turn the rest of the hand is too large to solve at the table, so the
search stops at the end of the street and values what follows, as in
depth-limited solving (Brown, Sandholm & Amos, "Depth-Limited Solving for
Imperfect-Information Games", NeurIPS 2018):

1. **Beliefs**: :func:`~pokerai.search.beliefs.public_beliefs`, as on the river.
2. **Turn subgame** (:func:`build_turn_subgame`): the public tree from the
   current turn state to the end of the turn on the blueprint's menu, at most
   ``max_raises`` raises inside it. Its terminals:

   * a fold: the valid-pair matrix (1 where the two hands share no card) times
     player 0's chip result;
   * a called all-in: the *equity* matrix, the mean of the showdown sign over
     the 44 river cards that neither hand holds, times the chips each player
     put in;
   * a **leaf**, where the turn's betting closes with chips behind: a decision
     of the searcher's opponent, who picks, for each of its hands, one of
     ``k`` continuation strategies for the river -- the blueprint, or the
     blueprint with its fold, check/call or raise probabilities multiplied by
     ``bias`` and renormalised -- while the searcher plays the blueprint on
     the river. Each choice ends in a terminal whose matrix is player 0's
     expected chip result under that pair of river strategies
     (:func:`leaf_matrices`). Because the opponent may switch continuation
     whenever the searcher's turn strategy invites it, the solution cannot rely
     on one fixed way the river goes (the paper's point; on Leduc these
     leaves are what keep search safe, ``docs/RESULTS.md``). With
     ``continuations=("blueprint",)`` the leaf is one terminal: the unsafe
     "blueprint leaves".

3. **Leaf rollouts** (:func:`leaf_matrices`): for ``river_cards`` river cards
   (a seeded sample of the cards not on the board; all of them with
   ``river_cards=None``), the river tree from the leaf with at most
   ``rollout_raises`` raises, one batched network call per river decision over
   every hand and sampled card. For each continuation, both players' reaches
   of every river terminal give that card's value matrix by one matrix product
   per terminal kind; a pair's leaf value is the mean over the sampled cards
   neither hand holds (at least one when five or more are sampled).
4. **Solve**: CFR+ (:func:`~pokerai.search.subgame.solve`) for an iteration or
   time budget, then the blend with the blueprint, as on the river.

All values are player 0's whole-hand chip results, as in the river subgame,
so the leaf and terminal matrices are in the same units. The solve depends
only on the public state. The leaves cost far more than the solve: about one
network call per river decision per leaf, each over a few thousand rows.
"""

from __future__ import annotations

import functools
import hashlib
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from pokerai.abstraction.bets import CHECK_CALL_SLOT, FOLD_SLOT, BetAbstraction
from pokerai.engine.cards import NUM_CARDS
from pokerai.engine.evaluator import rank_hands
from pokerai.engine.state import HUNLState, Street
from pokerai.search.beliefs import public_beliefs
from pokerai.search.combos import ALL_COMBOS, CARD_IN_COMBO, NUM_COMBOS, combos_holding
from pokerai.search.street import LeafSettings, rollout_matrices
from pokerai.search.subgame import (
    Decision,
    Solution,
    Subgame,
    Terminal,
    counterfactual_values,
    inner_solution,
    solve,
    with_resolve_gadget,
)
from pokerai.search.tree import blueprint_layout, breadth_first, menu_children
from pokerai.tabular.blueprint import AnyBlueprint

VALID_MATRIX, EQUITY_MATRIX = 0, 1
"""Indices of the two matrices every turn subgame shares: pairs that can meet, and the all-in equity."""

CONTINUATIONS: tuple[str, ...] = ("blueprint", "fold", "call", "raise")
"""The continuation strategies an opponent picks from at a depth-limited leaf (Brown et al. 2018)."""

DEFAULT_RIVER_CARDS = 8
"""River cards sampled per leaf rollout."""
DEFAULT_ROLLOUT_RAISES = 1
"""Raises allowed in the river trees of the leaf rollouts."""
DEFAULT_BIAS = 5.0
"""Factor on the favoured action's probability in a biased continuation."""


@functools.lru_cache(maxsize=4)
def turn_matrices(
    board: tuple[int, ...],
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.int64]]:
    """The hands, shared matrices and river ranks of a turn subgame on the four-card ``board``.

    Returns ``hands`` int64 ``[H]`` (the :data:`~pokerai.search.combos.ALL_COMBOS`
    indices of the combinations that hold no board card, ascending; H = 1,128),
    float64 ``[H, H]`` valid-pair and equity matrices (the equity matrix is the
    mean over the 44 river cards neither hand holds of +1 / 0 / −1 for a win, tie
    or loss of hand ``i`` against hand ``j``; 0 on invalid pairs), and int64
    ``[52, H]`` ranks of each hand with each river card (−1 where the river card
    is on the board or in the hand). Cached for the last few boards (read-only).
    """
    if len(board) != 4 or len(set(board)) != 4 or not all(0 <= card < NUM_CARDS for card in board):
        raise ValueError(f"a turn board is four distinct card ids, got {list(board)}")
    hands = np.flatnonzero(~combos_holding(board)).astype(np.int64)
    cards = ALL_COMBOS[hands]
    membership = CARD_IN_COMBO[:, hands]  # [52, H]
    float_membership = membership.astype(np.float64)
    valid = (float_membership.T @ float_membership == 0).astype(np.float64)
    ranks = np.full((NUM_CARDS, len(hands)), -1, dtype=np.int64)
    equity = np.zeros((len(hands), len(hands)))
    for river in range(NUM_CARDS):
        if river in board:
            continue
        free = ~membership[river]
        seven = np.concatenate(
            [cards[free], np.broadcast_to(np.asarray([*board, river], dtype=np.int64), (int(free.sum()), 5))],
            axis=1,
        )
        ranks[river, free] = rank_hands(seven, validate=False)
        live = ranks[river]
        sign = np.sign(live[:, np.newaxis] - live[np.newaxis, :]).astype(np.float64)
        sign[~free, :] = 0.0
        sign[:, ~free] = 0.0
        equity += sign
    equity *= valid / 44.0  # every valid pair leaves 48 − 4 = 44 river cards
    for array in (hands, valid, equity, ranks):
        array.flags.writeable = False
    return hands, valid, equity, ranks


def river_card_sample(board: Sequence[int], history_key: str, count: int | None) -> tuple[int, ...]:
    """``count`` river cards not on ``board`` (all 48 with None), drawn with a seed from the public state.

    The same public state always gets the same cards, so a solve is a function
    of the public state alone.
    """
    remaining = [card for card in range(NUM_CARDS) if card not in set(board)]
    if count is None or count >= len(remaining):
        return tuple(remaining)
    digest = hashlib.sha256(f"{list(board)}|{history_key}".encode()).digest()
    rng = np.random.default_rng(int.from_bytes(digest[:8], "little"))
    return tuple(sorted(int(card) for card in rng.choice(remaining, size=count, replace=False)))


def leaf_matrices(
    blueprint: AnyBlueprint,
    leaf: HUNLState,
    hands: npt.NDArray[np.int64],
    river_cards: Sequence[int],
    chooser: int,
    continuations: Sequence[str] = CONTINUATIONS,
    *,
    threshold: float = 0.0,
    max_raises: int | None = DEFAULT_ROLLOUT_RAISES,
    bias: float = DEFAULT_BIAS,
) -> list[npt.NDArray[np.float64]]:
    """Player 0's expected chip result from the river-start ``leaf`` per pair of ``hands`` and continuation.

    ``leaf`` is an engine state at the start of the river with chips behind
    (its river card is a placeholder, never read). ``hands`` are
    :data:`~pokerai.search.combos.ALL_COMBOS` indices free of the turn board.
    For continuation ``c``, player ``chooser`` plays the blueprint biased
    towards ``c`` and the other player the blueprint (both thresholded at
    ``threshold``), on the river tree with at most ``max_raises`` raises.
    Returns one float64 ``[H, H]`` matrix per continuation: the mean over the
    ``river_cards`` that neither hand holds (0 for pairs that share a card).
    """
    if leaf.street != Street.RIVER or leaf.is_over or len(leaf.board) != 5:
        raise ValueError(f"a leaf is the first river decision of a hand still running, got {leaf!r}")
    board = tuple(leaf.board[:4])
    all_hands, all_valid, _, ranks = turn_matrices(board)
    rows = np.searchsorted(all_hands, hands)
    if np.any(rows >= len(all_hands)) or np.any(all_hands[np.minimum(rows, len(all_hands) - 1)] != hands):
        raise ValueError("leaf hands must be combinations free of the turn board")
    cards = np.asarray(river_cards, dtype=np.int64)
    if (
        len(cards) < 5
        or len(set(cards.tolist())) != len(cards)
        or any(card in board for card in cards.tolist())
    ):
        raise ValueError(f"river cards {cards.tolist()} must be at least five distinct cards off the board")
    # showdown[k, i, j]: the sign of hand i against hand j with river card k, 0 where a pair
    # cannot meet that card.
    card_ranks = ranks[np.ix_(cards, rows)]  # [K, H], -1 where the hand holds the card
    free = card_ranks >= 0
    showdown = np.sign(card_ranks[:, :, np.newaxis] - card_ranks[:, np.newaxis, :]).astype(np.float64)
    showdown *= (free[:, :, np.newaxis] & free[:, np.newaxis, :]) * all_valid[np.ix_(rows, rows)]
    settings = LeafSettings(tuple(continuations), len(cards), max_raises, bias)
    return rollout_matrices(blueprint, leaf, hands, cards.tolist(), showdown, chooser, settings, threshold)


@dataclass(frozen=True, eq=False)
class TurnSubgame:
    """A turn subgame (module docstring) and how it maps back to the game.

    Attributes:
        subgame: the public tree; subgame player ``p`` is engine player ``p``.
        hands: int64 ``[H]``, the :data:`~pokerai.search.combos.ALL_COMBOS` index of each subgame hand.
        root_slots: the action slot of each child of the root, in child order.
        root_player: the engine player to act at the root (the searcher).
        leaves: how many depth-limited leaves the tree has.
        river_cards: the river cards the leaf rollouts used.
        decision_states: the engine state at each betting decision, by node index (the
            continuation choices at the leaves are not betting decisions and are not in it).
        root: the nested description the subgame was laid out from.
    """

    subgame: Subgame
    hands: npt.NDArray[np.int64]
    root_slots: tuple[int, ...]
    root_player: int
    leaves: int
    river_cards: tuple[int, ...]
    decision_states: dict[int, HUNLState]
    root: Decision


def build_turn_subgame(
    blueprint: AnyBlueprint,
    state: HUNLState,
    beliefs: npt.ArrayLike,
    *,
    hands: npt.ArrayLike | None = None,
    max_raises: int | None = 2,
    continuations: Sequence[str] = CONTINUATIONS,
    river_cards: int | None = DEFAULT_RIVER_CARDS,
    rollout_raises: int | None = DEFAULT_ROLLOUT_RAISES,
    bias: float = DEFAULT_BIAS,
    threshold: float = 0.0,
) -> TurnSubgame:
    """The public tree from the turn ``state`` to the end of the turn, with depth-limited leaves.

    ``beliefs`` float ``[2, 1326]`` (by engine player) is the root reach;
    ``hands`` (default: every combination free of the board) the subgame's
    hands. ``continuations`` (a non-empty subset of :data:`CONTINUATIONS`) are
    the opponent's choices at each leaf; ``river_cards``, ``rollout_raises``,
    ``bias`` and ``threshold`` are passed to :func:`leaf_matrices`.
    """
    if state.street != Street.TURN or state.to_act is None:
        raise ValueError(f"turn search needs a turn decision, got {state!r}")
    for name, value in (("max_raises", max_raises), ("rollout_raises", rollout_raises)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
            raise ValueError(f"{name} {value!r} is not a non-negative whole number")
    if not continuations or any(name not in CONTINUATIONS for name in continuations):
        raise ValueError(
            f"continuations {list(continuations)} must be a non-empty subset of {list(CONTINUATIONS)}"
        )
    if river_cards is not None and (isinstance(river_cards, bool) or not 5 <= river_cards <= 48):
        raise ValueError(f"river_cards {river_cards!r} must be from 5 to 48 (or None for all 48)")
    if not bias >= 1.0:
        raise ValueError(f"bias must be at least 1, got {bias!r}")
    reach = np.asarray(beliefs, dtype=np.float64)
    if reach.shape != (2, NUM_COMBOS):
        raise ValueError(f"beliefs must have shape [2, {NUM_COMBOS}], got {list(reach.shape)}")
    board = tuple(state.board)
    possible, valid, equity, _ = turn_matrices(board)
    if hands is None:
        hands = possible
        valid_block, equity_block = valid, equity
    else:
        hands = np.asarray(hands, dtype=np.int64)
        rows = np.searchsorted(possible, hands)
        if np.any(rows >= len(possible)) or np.any(possible[np.minimum(rows, len(possible) - 1)] != hands):
            raise ValueError(f"subgame hands {hands.tolist()} are not all combinations free of board cards")
        valid_block, equity_block = valid[np.ix_(rows, rows)], equity[np.ix_(rows, rows)]
    searcher = state.to_act
    opponent = 1 - searcher
    history_key = ";".join(f"{action.player}{action.kind.name}{action.amount}" for action in state.history)
    cards = river_card_sample(board, history_key, river_cards)
    abstraction: BetAbstraction = blueprint.game.bets
    matrices: list[npt.NDArray[np.float64]] = [valid_block, equity_block]
    leaves = 0
    states: dict[int, HUNLState] = {}

    def node(current: HUNLState, raises: int) -> Decision | Terminal:
        nonlocal leaves
        if current.is_over:
            if current.folded is not None:
                return Terminal(VALID_MATRIX, float(current.returns()[0]))
            assert current.committed[0] == current.committed[1], (
                "uncalled chips are returned before a showdown"
            )
            return Terminal(EQUITY_MATRIX, float(current.committed[0]))
        if current.street != Street.TURN:
            leaves += 1
            values = leaf_matrices(
                blueprint, current, hands, cards, opponent, continuations,
                threshold=threshold, max_raises=rollout_raises, bias=bias,
            )  # fmt: skip
            terminals: list[tuple[Any, Decision | Terminal]] = []
            for name, matrix in zip(continuations, values, strict=True):
                matrices.append(matrix)
                terminals.append((name, Terminal(len(matrices) - 1)))
            if len(terminals) == 1:
                return terminals[0][1]
            return Decision(opponent, terminals)
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
    subgame = Subgame.from_nested(root, matrices, reach[:, hands])
    order = breadth_first(root)  # the layout's order gives each decision's node index
    return TurnSubgame(
        subgame=subgame,
        hands=hands,
        root_slots=tuple(int(label) for label, _ in root.children),
        root_player=int(root.player),
        leaves=leaves,
        river_cards=cards,
        decision_states={
            index: states[id(nested)] for index, nested in enumerate(order) if id(nested) in states
        },
        root=root,
    )


def turn_blueprint_strategy(
    blueprint: AnyBlueprint, turn: TurnSubgame, threshold: float = 0.0
) -> npt.NDArray[np.float64]:
    """The blueprint in :attr:`~pokerai.search.subgame.Solution.average` layout for ``turn.subgame``.

    One batched network call per betting decision over the subgame's hands
    (renormalised over the children the raise cap left, uniform when none has
    probability); at a leaf's continuation choice the opponent takes
    ``"blueprint"`` (an error if the leaves do not offer it).
    """
    subgame = turn.subgame
    strategy = blueprint_layout(blueprint, subgame, turn.decision_states, turn.hands, threshold)
    for node in subgame.decisions:
        if int(node) in turn.decision_states:
            continue
        # A continuation choice at a leaf: the blueprint's own.
        children = subgame.children(int(node))
        labels = [subgame.label[child] for child in children]
        if "blueprint" not in labels:
            raise ValueError(f"a leaf offers {labels}: the blueprint strategy needs 'blueprint' among them")
        strategy[children.start : children.stop] = 0.0
        strategy[children.start + labels.index("blueprint")] = 1.0
    return strategy


@dataclass(frozen=True)
class TurnSolution:
    """The solved root of a turn subgame for every hand of the searcher.

    Attributes:
        strategy: float64 ``[1326, num_slots]``, the searcher's root strategy per
            combination: the solver's average strategy for hands in its range,
            the best response to the solved opponent for other subgame hands,
            and a row of zeros for combinations outside the subgame (the agent
            plays the blueprint there).
        iterations: CFR+ iterations run.
        seconds: wall-clock time of beliefs, tree, leaves and solve together.
        leaf_seconds: the part of ``seconds`` spent building the subgame: the tree, its leaf
            rollouts and, for a board not seen lately, the shared matrices (:func:`turn_matrices`).
        num_nodes: nodes of the subgame tree.
        num_hands: hands of the subgame.
        leaves: depth-limited leaves of the tree.
    """

    strategy: npt.NDArray[np.float64]
    iterations: int
    seconds: float
    leaf_seconds: float = 0.0
    num_nodes: int = 0
    num_hands: int = 0
    leaves: int = 0


def solve_turn(
    blueprint: AnyBlueprint,
    state: HUNLState,
    *,
    iterations: int,
    time_budget_s: float | None = None,
    threshold: float = 0.0,
    max_raises: int | None = 2,
    continuations: Sequence[str] = CONTINUATIONS,
    river_cards: int | None = DEFAULT_RIVER_CARDS,
    rollout_raises: int | None = DEFAULT_ROLLOUT_RAISES,
    bias: float = DEFAULT_BIAS,
    safe: bool = False,
    opponent_threshold: float | None = None,
) -> TurnSolution:
    """Beliefs, the turn subgame with its leaves, and CFR+ at the turn decision ``state``.

    The subgame holds the combinations either player may hold. The time budget
    bounds the solve only: the leaves are built first, whatever the budget.
    With ``safe`` the subgame starts with the re-solving gadget, as on the
    river (:func:`~pokerai.search.river.solve_river`): the opponent may take, hand
    by hand, its best-response value against the blueprint in this subgame
    (choosing its best continuation at each leaf) instead of entering, and its
    root reach is half beliefs, half uniform.
    With 0 iterations nothing is built or solved and the strategy is all zeros.
    Depends only on the public part of ``state``.
    """
    started = time.perf_counter()
    num_slots = blueprint.game.bets.num_slots
    if iterations == 0:
        return TurnSolution(np.zeros((NUM_COMBOS, num_slots)), 0, time.perf_counter() - started)
    beliefs = public_beliefs(blueprint, state, threshold=threshold, opponent_threshold=opponent_threshold)
    searcher = state.to_act
    assert searcher is not None
    hands = np.flatnonzero((beliefs[0] > 0) | (beliefs[1] > 0))
    leaf_started = time.perf_counter()
    turn = build_turn_subgame(
        blueprint, state, beliefs, hands=hands, max_raises=max_raises, continuations=continuations,
        river_cards=river_cards, rollout_raises=rollout_raises, bias=bias, threshold=threshold,
    )  # fmt: skip
    leaf_seconds = time.perf_counter() - leaf_started
    subgame = turn.subgame
    if safe:
        gadget = with_resolve_gadget(
            turn.root,
            subgame,
            turn_blueprint_strategy(blueprint, turn, threshold),
            searcher,
            valid=VALID_MATRIX,
            uniform_weight=0.5,
        )
        solution: Solution = inner_solution(solve(gadget, iterations, time_budget_s=time_budget_s), subgame)
    else:
        solution = solve(subgame, iterations, time_budget_s=time_budget_s)
    slots = np.asarray(turn.root_slots)
    strategy = np.zeros((NUM_COMBOS, num_slots))
    root = subgame.children(0)
    inside = beliefs[searcher, turn.hands] > 0
    average = solution.strategy(subgame, 0)  # [H, children]
    if not np.all(inside):
        values = counterfactual_values(subgame, solution.average, searcher, best_response=True)[
            root.start : root.stop
        ]
        order = np.argsort(
            [0 if slot == CHECK_CALL_SLOT else 1 if slot == FOLD_SLOT else slot for slot in slots]
        )
        best = order[np.argmax(values[order][:, ~inside], axis=0)]
        pure = np.zeros((int((~inside).sum()), len(slots)))
        pure[np.arange(len(best)), best] = 1.0
        average[~inside] = pure
    strategy[np.ix_(turn.hands, slots)] = average
    return TurnSolution(
        strategy,
        solution.iterations,
        time.perf_counter() - started,
        leaf_seconds,
        subgame.num_nodes,
        subgame.num_hands,
        turn.leaves,
    )


__all__ = [
    "CONTINUATIONS",
    "DEFAULT_BIAS",
    "DEFAULT_RIVER_CARDS",
    "DEFAULT_ROLLOUT_RAISES",
    "EQUITY_MATRIX",
    "VALID_MATRIX",
    "TurnSolution",
    "TurnSubgame",
    "build_turn_subgame",
    "leaf_matrices",
    "river_card_sample",
    "solve_turn",
    "turn_blueprint_strategy",
    "turn_matrices",
]
