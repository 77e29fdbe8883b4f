"""Preflop search: re-solve the preflop betting over both players' ranges, leaves valued by equity.

A short Deep CFR run's preflop is far from an equilibrium (``docs/RESULTS.md``:
the first blueprint, ``checkpoints/hunl_tiny_v1``, limps hands that would win tens
of big blinds by shoving into its own big blind, and shoves medium hands that
``heuristic`` calls only with better). :func:`solve_preflop` re-solves the rest of the preflop betting at
a preflop decision:

1. beliefs from the blueprint along the history (:func:`~pokerai.search.beliefs.public_beliefs`;
   uniform over the 1,326 combinations at the first decision);
2. the public tree from the current state to the end of the preflop betting, on
   the blueprint's menu with at most ``max_raises`` raises inside it;
3. terminals: a fold pays the blinds and bets as the engine does; a called
   all-in pays each pair of hands its all-in equity over the board run-outs
   (:func:`preflop_equity_matrix`); where the betting closes with chips behind
   (a flop to come), the leaf also pays each pair its equity on the pot. That is a
   *blueprint-free* leaf (Brown, Sandholm & Amos 2018 call leaves valued so, with
   no room for the opponent to change its continuation, unsafe): it assumes
   both players realise their equity after the flop. The point of this search is
   the all-in and fold decisions, which it values exactly; the pots that go to
   a flop are left to the blueprint's postflop play;
4. CFR+ (:func:`~pokerai.search.subgame.solve`) for an iteration or time budget.

A limitation: later beliefs (on the river, say) still take the searcher's own
range from the blueprint's preflop probabilities, not from what the preflop
search played, so after a searched preflop they describe the wrong range.

The solve depends only on the public state, and at the first decision of a hand
the public state is always the same, so a caller keeps solutions by public state
(:class:`pokerai.agents.search.SearchAgent` does).
"""

from __future__ import annotations

import functools
import threading
import time
from dataclasses import dataclass
from typing import Any

import numba
import numpy as np
import numpy.typing as npt

from pokerai.abstraction.bets import BetAbstraction
from pokerai.engine.evaluator import rank_hands
from pokerai.engine.state import HUNLState, Street
from pokerai.search.beliefs import public_beliefs
from pokerai.search.combos import ALL_COMBOS, CARD_IN_COMBO, NUM_COMBOS
from pokerai.search.subgame import Decision, Subgame, Terminal, inner_solution, solve, with_resolve_gadget
from pokerai.search.tree import blueprint_layout, breadth_first, menu_children
from pokerai.tabular.blueprint import AnyBlueprint

FOLD_MATRIX, EQUITY_MATRIX = 0, 1
"""Indices of the preflop subgame's two payoff matrices: valid pairs (folds) and all-in equity."""
EQUITY_BOARDS = 3000
"""Boards sampled for :func:`preflop_equity_matrix` (about 2,000 usable per pair: a standard error
of about 0.011 in each pair's equity)."""
EQUITY_SEED = 20261201
"""Seed of the boards of :func:`preflop_equity_matrix`, fixed so every process gets the same matrix."""


# nogil: a warm-up thread may build the matrix (seconds) while the main thread serves the table.
@numba.njit(cache=True, nogil=True)
def _pair_scores(ranks: npt.NDArray[np.int32]) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """For ranks ``[B, H]`` (-1 where a hand holds a board card): wins (ties 1/2) and boards per pair
    (a hand against itself: 0 and 0).

    Counted for ``i < j`` only: the boards of a pair are the same either way round, and
    ``wins[j, i] = counts[i, j] - wins[i, j]`` exactly (sums of halves are exact in float64).
    """
    boards, hands = ranks.shape
    wins = np.zeros((hands, hands))
    counts = np.zeros((hands, hands))
    for i in range(hands):
        # Slices that start at j = i + 1: LLVM vectorises a loop from 0 over them, not one from i + 1.
        row_wins, row_counts = wins[i, i + 1 :], counts[i, i + 1 :]
        for b in range(boards):
            mine = ranks[b, i]
            if mine < 0:
                continue
            theirs_row = ranks[b, i + 1 :]
            for k in range(hands - i - 1):
                theirs = theirs_row[k]
                if theirs < 0:
                    continue
                row_counts[k] += 1.0
                if mine > theirs:
                    row_wins[k] += 1.0
                elif mine == theirs:
                    row_wins[k] += 0.5
    for i in range(hands):
        for j in range(i + 1, hands):
            counts[j, i] = counts[i, j]
            wins[j, i] = counts[i, j] - wins[i, j]
    return wins, counts


PREFLOP_MATRIX_BUILT = threading.Event()
"""Set once :func:`preflop_equity_matrix` has built the table's matrix (its default boards and seed)."""
_EQUITY_MATRIX_LOCK = threading.Lock()
"""Held while :func:`preflop_equity_matrix` looks up or builds its matrix: a caller that arrives while
another thread (a warm-up) builds it waits for that build instead of starting a second one."""


def preflop_equity_matrix(
    boards: int = EQUITY_BOARDS, seed: int = EQUITY_SEED
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """The valid-pair and all-in payoff matrices of two preflop hands: float64 ``[1326, 1326]`` each.

    ``valid[i, j]`` is 1 where combinations ``i`` and ``j`` (indices into
    :data:`~pokerai.search.combos.ALL_COMBOS`) share no card, else 0.
    ``payoff[i, j] = 2·equity − 1`` for valid pairs (0 otherwise): the share of
    each player's stake that ``i`` wins from ``j`` when both are all-in preflop,
    with ``equity`` (ties counting half) estimated over ``boards`` five-card
    boards drawn uniformly with ``seed``; each pair uses the boards that hold
    neither hand's cards, which are uniform over the boards it can meet.
    ``payoff`` is antisymmetric. Cached per process (a few seconds to build), one build at a time.
    """
    with _EQUITY_MATRIX_LOCK:
        matrices = _preflop_equity_matrix(boards, seed)
    if (boards, seed) == (EQUITY_BOARDS, EQUITY_SEED):
        PREFLOP_MATRIX_BUILT.set()
    return matrices


@functools.lru_cache(maxsize=1)
def _preflop_equity_matrix(boards: int, seed: int) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    rng = np.random.default_rng(seed)
    drawn = np.argsort(rng.random((boards, 52)), axis=1)[:, :5].astype(np.int64)
    ranks = np.full((boards, NUM_COMBOS), -1, dtype=np.int32)
    combos = ALL_COMBOS.astype(np.int64)
    for index, board in enumerate(drawn):
        live = ~(CARD_IN_COMBO[board].any(axis=0))
        seven = np.concatenate([combos[live], np.broadcast_to(board, (int(live.sum()), 5))], axis=1)
        ranks[index, live] = rank_hands(seven, validate=False)
    wins, counts = _pair_scores(ranks)
    membership = CARD_IN_COMBO.astype(np.float64)
    valid = (membership.T @ membership == 0).astype(np.float64)
    equity = wins / np.maximum(counts, 1.0)
    payoff = (2.0 * equity - 1.0) * valid
    payoff = 0.5 * (payoff - payoff.T)  # exactly antisymmetric; each side's estimate counts half
    for array in (valid, payoff):
        array.flags.writeable = False
    return valid, payoff


@dataclass(frozen=True)
class PreflopSubgame:
    """A preflop subgame and how it maps back to the game (as :class:`~pokerai.search.river.RiverSubgame`)."""

    subgame: Subgame
    hands: npt.NDArray[np.int64]
    root_slots: tuple[int, ...]
    root_player: int
    root: Decision
    decision_states: dict[int, HUNLState]


def build_preflop_subgame(
    state: HUNLState,
    abstraction: BetAbstraction,
    beliefs: npt.ArrayLike,
    *,
    max_raises: int | None = None,
    hands: npt.ArrayLike | None = None,
) -> PreflopSubgame:
    """The public tree from the preflop decision ``state`` to the end of the preflop betting.

    ``beliefs`` float ``[2, 1326]`` (by engine player) is the root reach; ``hands``
    (indices into :data:`~pokerai.search.combos.ALL_COMBOS`, default all) are the
    subgame's hands. At most ``max_raises`` raises inside the tree (None: no
    cap). Terminals (module docstring): a fold scales the valid-pair matrix by
    engine player 0's chip result; a called all-in or a closed preflop scales the
    equity matrix by the chips each player has in.
    """
    if state.street != Street.PREFLOP or state.to_act is None:
        raise ValueError(f"preflop search needs a preflop decision, got {state!r}")
    if max_raises is not None and (isinstance(max_raises, bool) or max_raises < 0):
        raise ValueError(f"max_raises {max_raises!r} is not a non-negative whole number")
    reach = np.asarray(beliefs, dtype=np.float64)
    if reach.shape != (2, NUM_COMBOS):
        raise ValueError(f"beliefs must have shape [2, {NUM_COMBOS}], got {list(reach.shape)}")
    chosen = np.arange(NUM_COMBOS) if hands is None else np.asarray(hands, dtype=np.int64)
    if chosen.ndim != 1 or np.any(chosen < 0) or np.any(chosen >= NUM_COMBOS) or np.any(np.diff(chosen) <= 0):
        raise ValueError("subgame hands must be ascending, distinct combination indices 0..1325")
    valid, payoff = preflop_equity_matrix()
    states: dict[int, HUNLState] = {}

    def node(current: HUNLState, raises: int) -> Decision | Terminal:
        if current.is_over and current.folded is not None:
            return Terminal(FOLD_MATRIX, float(current.returns()[0]))
        if current.is_over or current.street != Street.PREFLOP or current.to_act is None:
            # A called all-in, or the preflop betting closed with a flop to come.
            stake = min(current.committed)
            return Terminal(EQUITY_MATRIX, float(stake))
        children: list[tuple[Any, Decision | Terminal]] = [
            (slot, node(child, child_raises))
            for slot, child, child_raises in menu_children(current, abstraction, raises, max_raises)
        ]
        decision = Decision(int(current.to_act), children)
        states[id(decision)] = current
        return decision

    root = node(state.clone(), 0)
    assert isinstance(root, Decision)
    block = np.ix_(chosen, chosen)
    subgame = Subgame.from_nested(root, [valid[block], payoff[block]], reach[:, chosen])
    order = breadth_first(root)
    return PreflopSubgame(
        subgame=subgame,
        hands=chosen,
        root_slots=tuple(int(label) for label, _ in root.children),
        root_player=int(root.player),
        root=root,
        decision_states={
            index: states[id(nested)] for index, nested in enumerate(order) if id(nested) in states
        },
    )


@dataclass(frozen=True)
class PreflopSolution:
    """The solved root of a preflop subgame: ``strategy`` float64 ``[1326, num_slots]`` (rows of hands
    outside the searcher's range are 0), CFR+ ``iterations``, wall-clock ``seconds``, tree and hand sizes."""

    strategy: npt.NDArray[np.float64]
    iterations: int
    seconds: float
    num_nodes: int
    num_hands: int = 0


def solve_preflop(
    blueprint: AnyBlueprint,
    state: HUNLState,
    *,
    iterations: int,
    time_budget_s: float | None = None,
    threshold: float = 0.0,
    max_raises: int | None = None,
    safe: bool = False,
    opponent_threshold: float | None = None,
) -> PreflopSolution:
    """Beliefs, preflop subgame and CFR+ at the preflop decision ``state`` (module docstring).

    ``safe`` adds the re-solving gadget as :func:`~pokerai.search.river.solve_river`
    does. The subgame holds the combinations either player may hold. Hands
    outside the searcher's range (the blueprint would not have played them this
    way) get a zero row: the caller plays the blueprint for them. Depends only on
    the public part of ``state``. With 0 iterations nothing is solved and the
    strategy is all zeros.
    """
    started = time.perf_counter()
    num_slots = blueprint.game.bets.num_slots
    if iterations == 0:
        return PreflopSolution(np.zeros((NUM_COMBOS, num_slots)), 0, time.perf_counter() - started, 0)
    beliefs = public_beliefs(blueprint, state, threshold=threshold, opponent_threshold=opponent_threshold)
    searcher = state.to_act
    assert searcher is not None
    hands = np.flatnonzero((beliefs[0] > 0) | (beliefs[1] > 0))
    preflop = build_preflop_subgame(state, blueprint.game.bets, beliefs, max_raises=max_raises, hands=hands)
    solved_game = preflop.subgame
    if safe:
        solved_game = with_resolve_gadget(
            preflop.root,
            preflop.subgame,
            blueprint_layout(blueprint, preflop.subgame, preflop.decision_states, preflop.hands, threshold),
            searcher,
            valid=FOLD_MATRIX,
            uniform_weight=0.5,
        )
    remaining = None if time_budget_s is None else max(0.0, time_budget_s - (time.perf_counter() - started))
    solution = solve(solved_game, iterations, time_budget_s=remaining)
    if safe:
        solution = inner_solution(solution, preflop.subgame)
    strategy = np.zeros((NUM_COMBOS, num_slots))
    inside = np.flatnonzero(beliefs[searcher, preflop.hands] > 0)
    strategy[np.ix_(preflop.hands[inside], np.asarray(preflop.root_slots))] = solution.strategy(
        preflop.subgame, 0
    )[inside]
    return PreflopSolution(
        strategy,
        solution.iterations,
        time.perf_counter() - started,
        preflop.subgame.num_nodes,
        preflop.subgame.num_hands,
    )


__all__ = [
    "EQUITY_BOARDS",
    "EQUITY_MATRIX",
    "EQUITY_SEED",
    "FOLD_MATRIX",
    "PREFLOP_MATRIX_BUILT",
    "PreflopSolution",
    "PreflopSubgame",
    "build_preflop_subgame",
    "preflop_equity_matrix",
    "solve_preflop",
]
