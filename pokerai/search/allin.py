"""The answer to an all-in the blueprint's menu does not have: a small call-or-fold game solved at the table.

A blueprint trained on a capped menu (``all_in_max_pots``, ``max_raises``) never
meets an all-in larger than the menu allows, so its policy network, asked to
answer one, reads features it never saw in training. Against an opponent that
shoves many pots into a small pot only with strong hands, that answer was the
largest part of the shipped blueprint's loss (``docs/RESULTS.md``). The
all-in ends the betting, so its answer is a small game that can be solved
exactly at the table, as Libratus re-solved its answers to actions off its
abstraction (Brown & Sandholm, Science 2018), over both players' ranges:

1. **Ranges** (:func:`~pokerai.search.beliefs.public_beliefs`): both players'
   beliefs at the state *before* the all-in, from the blueprint along the
   history. The all-in itself is not in the blueprint, so it says nothing about
   the shover's hand by itself; the solve decides which hands shove.
2. **The game** (:func:`build_allin_subgame`). At the shover's decision the
   shover chooses, per hand, between the all-in and its alternatives: check,
   or fold and call when it faced a bet. An alternative ends in a leaf worth
   the shover's equity on the pot as it stands after it (a blueprint-free leaf,
   as the street pipeline's preflop: betting on later streets is not modelled).
   After the all-in the searcher folds or calls; a call pays each pair of hands
   its all-in equity (river: the showdown).
3. **Equity matrices** (:func:`allin_matrices`) over the hands that hold no
   board card: preflop, the 1,326 hands' equities over seeded sampled boards
   (:func:`~pokerai.search.preflop.preflop_equity_matrix`); flop, the mean
   over :data:`FLOP_RUNOUTS` turn and river cards drawn with a seed from the
   board; turn, all 44 rivers each pair can meet; river, the showdown.
4. **Solve**: CFR+ (:func:`~pokerai.search.subgame.solve`) over every hand that
   holds no board card. The searcher plays the solved strategy at the all-in
   for its hand; a hand outside the searcher's range (its earlier actions need
   not be the blueprint's) never reaches the answer in the game, so it plays
   the last iteration's regret matching, which answers the solved shoving
   range by its regrets.

In this game the shover shoves its strongest hands and, for a large all-in,
a few of its weakest, and the searcher calls with about as much of its range
as keeps those bluffs from paying: facing an all-in of ``x`` pots it folds
most of its range, calls with its best hands and does not pay off an
opponent who shoves only strong hands more than the game requires.

All values are engine player 0's whole-hand chip results (the convention of
:mod:`pokerai.search.subgame`). The solve depends only on the public state.
"""

from __future__ import annotations

import functools
import threading
import time
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from pokerai.abstraction.bets import BetAbstraction, legal_slot_amounts
from pokerai.engine.cards import BOARD_SIZES, NUM_CARDS
from pokerai.engine.state import Action, ActionKind, HUNLConfig, HUNLState, Street
from pokerai.games.holdem import Blueprint
from pokerai.search.beliefs import history_prefix, public_beliefs, raise_slot
from pokerai.search.combos import NUM_COMBOS, combos_holding
from pokerai.search.equity import ranks_on_boards, sample_seed, turn_street_matrices
from pokerai.search.payoffs import SHOWDOWN_MATRIX, VALID_MATRIX, street_terminal
from pokerai.search.preflop import PREFLOP_MATRIX_BUILT, equity_payoffs, preflop_equity_matrix
from pokerai.search.showdown import river_matrices
from pokerai.search.subgame import Decision, Subgame, Terminal, solve

EQUITY_MATRIX = SHOWDOWN_MATRIX
"""Indices of the two matrices of an all-in game: pairs that can meet (folds), and the all-in equity."""
FLOP_RUNOUTS = 300
"""Turn and river cards sampled for a flop's equity matrix (each pair meets about 250 of them)."""
DEFAULT_ITERATIONS = 200
"""CFR+ iterations of an all-in solve."""
FOLD, CALL = 0, 1
"""The searcher's two answers to an all-in, in the order of :attr:`AllinSolution.strategy`'s columns."""


def is_offtree_allin(state: HUNLState, action: Action, abstraction: BetAbstraction) -> bool:
    """Whether ``action`` at ``state`` (before it) is an all-in raise to an amount no menu slot has there.

    That is an all-in larger than the largest raise the menu allows at ``state``,
    or one past the street's ``max_raises`` (where the menu has no raise at all).
    """
    if action.kind is not ActionKind.RAISE or state.to_act != action.player:
        return False
    if action.amount != state.max_raise_to:
        return False
    return raise_slot(*legal_slot_amounts(state, abstraction), action.amount) is None


def _flop_runouts(board: tuple[int, ...]) -> npt.NDArray[np.int64]:
    """:data:`FLOP_RUNOUTS` distinct (turn, river) pairs off ``board``, drawn with a seed from the board."""
    remaining = np.array([card for card in range(NUM_CARDS) if card not in board], dtype=np.int64)
    first, second = np.triu_indices(remaining.size, k=1)
    rng = np.random.default_rng(sample_seed(f"flop runouts {sorted(board)}"))
    chosen = np.sort(rng.choice(first.size, size=min(FLOP_RUNOUTS, first.size), replace=False))
    return np.stack([remaining[first[chosen]], remaining[second[chosen]]], axis=1)


@functools.lru_cache(maxsize=4)
def allin_matrices(
    board: tuple[int, ...],
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """The hands of an all-in game on ``board`` (0, 3, 4 or 5 cards) and its two matrices.

    Returns ``hands`` int64 ``[H]`` (indices into
    :data:`~pokerai.search.combos.ALL_COMBOS` of the combinations that hold no
    board card, ascending), the valid-pair matrix ``[H, H]`` and the equity
    matrix ``[H, H]``: ``2·equity − 1`` of hand ``i`` against hand ``j`` once
    all the cards are out (ties count half; 0 on invalid pairs), the share of
    each player's stake ``i`` wins from ``j``. Cached for the last few boards
    (read-only arrays).
    """
    if len(board) not in BOARD_SIZES or len(set(board)) != len(board):
        raise ValueError(f"a board is 0, 3, 4 or 5 distinct cards, got {list(board)}")
    if not all(isinstance(card, int) and 0 <= card < NUM_CARDS for card in board):
        raise ValueError(f"board cards {list(board)} are not card ids 0..{NUM_CARDS - 1}")
    if len(board) == 0:
        valid, payoff = preflop_equity_matrix()
        return np.arange(NUM_COMBOS, dtype=np.int64), valid, payoff
    if len(board) == 4:
        hands, valid, equity, _ = turn_street_matrices(board)
        return hands, valid, equity
    if len(board) == 5:
        return river_matrices(board)
    hands = np.flatnonzero(~combos_holding(board)).astype(np.int64)
    boards = [(*board, *runout) for runout in _flop_runouts(board)]
    valid, payoff = equity_payoffs(ranks_on_boards(boards, hands).astype(np.int32), hands)
    for array in (hands, valid, payoff):
        array.flags.writeable = False
    return hands, valid, payoff


@dataclass(frozen=True)
class AllinSubgame:
    """An all-in game (module docstring): the subgame, its hands and the searcher's decision node."""

    subgame: Subgame
    hands: npt.NDArray[np.int64]
    answer_node: int
    """The searcher's decision after the all-in (children: fold, call)."""
    shover: int
    """The engine player who went all-in."""


def build_allin_subgame(before: HUNLState, allin: Action, beliefs: npt.ArrayLike) -> AllinSubgame:
    """The all-in game at ``before`` (the shover to act) for the all-in ``allin``; ``beliefs`` ``[2, 1326]``.

    The shover's alternatives are every legal action but raising: fold (when facing a bet) and
    check or call, each a leaf: a fold's chip result, else the equity on the chips in
    (:func:`~pokerai.search.payoffs.street_terminal` on this game's matrices).
    """
    shover = before.to_act
    if shover is None or allin.player != shover or allin.kind is not ActionKind.RAISE:
        raise ValueError(f"{allin} is not a raise of the player to act at {before!r}")
    if allin.amount != before.max_raise_to:
        raise ValueError(f"{allin} is not an all-in: the most it can raise to is {before.max_raise_to}")
    reach = np.asarray(beliefs, dtype=np.float64)
    if reach.shape != (2, NUM_COMBOS):
        raise ValueError(f"beliefs must have shape [2, {NUM_COMBOS}], got {list(reach.shape)}")
    # Every hand off the board, those neither range holds included: the searcher's own hand may
    # be one of them (its earlier actions need not be the blueprint's), and it needs an answer.
    hands, valid, payoff = allin_matrices(tuple(before.board))
    alternatives: list[tuple[object, Decision | Terminal]] = []
    if before.call_amount > 0:
        alternatives.append(("fold", street_terminal(before.after(ActionKind.FOLD))))
    alternatives.append(("check/call", street_terminal(before.after(ActionKind.CALL))))
    facing = before.after(ActionKind.RAISE, allin.amount)
    answer = Decision(
        1 - shover,
        [
            ("fold", street_terminal(facing.after(ActionKind.FOLD))),
            ("call", street_terminal(facing.after(ActionKind.CALL))),
        ],
    )
    root = Decision(shover, [*alternatives, ("all-in", answer)])
    subgame = Subgame.from_nested(root, [valid, payoff], reach[:, hands])
    # Breadth first: the root, its children in order; the all-in's answer is the root's last child.
    return AllinSubgame(subgame=subgame, hands=hands, answer_node=len(alternatives) + 1, shover=shover)


@dataclass(frozen=True)
class AllinSolution:
    """The solved answer to an all-in: ``strategy`` float64 ``[1326, 2]`` (fold, call) for every hand
    (rows of hands that hold a board card are 0), the shover's ``shove`` probability per hand
    ``[1326]``, CFR+ ``iterations`` and wall-clock ``seconds``."""

    strategy: npt.NDArray[np.float64]
    shove: npt.NDArray[np.float64]
    iterations: int
    seconds: float


def before_last_action(state: HUNLState) -> HUNLState:
    """The state ``state`` was one action earlier: its history but the last replayed on its deal."""
    if not state.history:
        raise ValueError("the hand has no action yet, so there is no state before the last one")
    before = history_prefix(state, len(state.history) - 1)
    before.hole_cards_known = state.hole_cards_known
    return before


def solve_allin(
    blueprint: Blueprint,
    state: HUNLState,
    *,
    iterations: int = DEFAULT_ITERATIONS,
    time_budget_s: float | None = None,
    threshold: float = 0.0,
) -> AllinSolution:
    """Solve the answer to the all-in that is ``state``'s last action (the searcher to act at ``state``).

    Beliefs are the blueprint's (thresholded at ``threshold``) up to the state
    before the all-in. Depends only on the public part of ``state``.
    ``time_budget_s`` bounds the call after the kernel is loaded (:func:`load_solver_kernel`;
    compiling on a first run): the beliefs, the game's matrices and the CFR+ iterations, which
    stop early (at least one runs; the clock is read between chunks of them). When it does not
    bind, the answer is the one without it.
    """
    started = time.perf_counter()
    if not state.history or state.to_act is None:
        raise ValueError("an all-in answer needs a state whose last action was the opponent's all-in")
    allin = state.history[-1]
    before = before_last_action(state)
    if allin.kind is not ActionKind.RAISE or allin.amount != before.max_raise_to:
        raise ValueError(f"the last action {allin} is not an all-in")
    if time_budget_s is not None:
        load_solver_kernel()  # a first run's compiling must not eat the budget (one iteration is no answer)
        clock = time.perf_counter()
    beliefs = public_beliefs(blueprint, before, threshold=threshold)
    game = build_allin_subgame(before, allin, beliefs)
    if time_budget_s is not None:
        time_budget_s = max(time_budget_s - (time.perf_counter() - clock), 0.0)
    solution = solve(game.subgame, iterations, time_budget_s=time_budget_s)
    strategy = np.zeros((NUM_COMBOS, 2))
    strategy[game.hands] = solution.strategy(game.subgame, game.answer_node)
    shove = np.zeros(NUM_COMBOS)
    shove[game.hands] = solution.strategy(game.subgame, 0)[:, -1]
    return AllinSolution(strategy, shove, solution.iterations, time.perf_counter() - started)


WARM_UP_DECK = (0, 1, 2, 3, 8, 17, 26, 35, 44)
"""The deal of :func:`load_solver_kernel`'s all-in game: the hole cards, then a river board."""


_KERNEL_LOADED = threading.Event()
"""Set once :func:`load_solver_kernel` has run in this process."""
_KERNEL_LOCK = threading.Lock()


def load_solver_kernel() -> None:
    """Load the CFR+ kernel of :func:`~pokerai.search.subgame.solve` from numba's cache, or compile it
    on a first run (seconds): once per process; a second thread that calls it meanwhile waits.

    It solves a river all-in game with uniform ranges for one iteration, which calls the kernel
    with the argument types of every solve at the table (all-in answers, and river, turn and
    preflop searches alike). :func:`solve_allin` calls it before a solve with a time budget, so
    that the budget counts iterations, not compiling.
    """
    if _KERNEL_LOADED.is_set():
        return
    with _KERNEL_LOCK:
        if _KERNEL_LOADED.is_set():
            return
        state = HUNLState.new(HUNLConfig(), 0, deck=WARM_UP_DECK)
        while state.street < Street.RIVER:
            state = state.after(ActionKind.CALL)  # the blinds complete, then checks
        assert state.to_act is not None and state.max_raise_to is not None
        allin = Action(state.to_act, ActionKind.RAISE, state.max_raise_to)
        game = build_allin_subgame(state, allin, np.ones((2, NUM_COMBOS)))
        solve(game.subgame, 1)
        _KERNEL_LOADED.set()


def warm_up_allin() -> None:
    """Do the slow first-time work of all-in answers now, so the first answer at the table does not wait:
    :func:`load_solver_kernel`, and the preflop all-in equity matrix (a second or two;
    :func:`~pokerai.search.preflop.preflop_equity_matrix`, kept per process).
    """
    load_solver_kernel()
    preflop_equity_matrix()


_BACKGROUND_LOCK = threading.Lock()
_background: threading.Thread | None = None
_background_errors: list[BaseException] = []


def start_background_warm_up() -> threading.Thread:
    """:func:`warm_up_allin` in a daemon thread, started once per process (later calls return it)."""
    global _background
    with _BACKGROUND_LOCK:
        if _background is None:

            def run() -> None:
                try:
                    warm_up_allin()
                except BaseException as error:  # kept for solver_ready, which raises it in the caller
                    _background_errors.append(error)

            _background = threading.Thread(target=run, name="pokerai-solver-warm-up", daemon=True)
            _background.start()
        return _background


def solver_ready(seconds: float, *, preflop: bool = False) -> bool:
    """Whether the CFR+ kernel (and, with ``preflop``, the preflop all-in equity matrix) is ready,
    waiting for it at most ``seconds``.

    A decision with a time budget asks this before its first solve: when the work is not done, it
    starts in the background (:func:`start_background_warm_up`) and the decision waits for it
    only within its budget; on ``False`` it plays without the solve. On a fresh install the
    kernel compiles for a few seconds, so the first such decisions of a process may get ``False``.
    Raises ``RuntimeError`` when the background warm-up failed.
    """
    deadline = time.perf_counter() + seconds

    def ready() -> bool:
        return _KERNEL_LOADED.is_set() and (not preflop or PREFLOP_MATRIX_BUILT.is_set())

    if ready():
        return True
    thread = start_background_warm_up()
    while not ready():
        if _background_errors:
            raise RuntimeError("warming up the solver failed") from _background_errors[0]
        left = deadline - time.perf_counter()
        if left <= 0 or not thread.is_alive():
            break
        thread.join(min(left, 0.01))  # re-check the events every 10 ms: the kernel comes before the matrix
    return ready()


__all__ = [
    "CALL",
    "DEFAULT_ITERATIONS",
    "EQUITY_MATRIX",
    "FLOP_RUNOUTS",
    "FOLD",
    "VALID_MATRIX",
    "AllinSolution",
    "AllinSubgame",
    "allin_matrices",
    "before_last_action",
    "build_allin_subgame",
    "is_offtree_allin",
    "load_solver_kernel",
    "solve_allin",
    "solver_ready",
    "start_background_warm_up",
    "warm_up_allin",
]
