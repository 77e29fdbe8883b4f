"""Search at every postflop street: one pipeline from the ranges to the strategy the agent plays.

At a decision of player ``p`` (the *searcher*) on the flop, turn or river,
:func:`solve_street` re-solves the whole street from its start:

1. **Ranges at the street's start.** The searcher's own range is what it
   actually played: for every combination, the product over its earlier
   decisions of the probability its played strategy gave the action it took
   (the caller keeps those strategies). The opponent's range comes by Bayes'
   rule from the blueprint over the earlier streets
   (:func:`~pokerai.search.beliefs.opponent_range`), every action's probability
   floored: an opponent who is not the blueprint keeps every hand it could hold.
2. **The street's public tree** (:func:`~pokerai.search.tree.build_street_tree`).
   From the street's start to its end on the blueprint's menu, the actions already
   taken at their exact sizes, at most ``max_raises`` raises off the actual path.
3. **Terminals and leaves** (:mod:`pokerai.search.payoffs`). A fold pays the chips in;
   a showdown or a called all-in pays the chips in times the showdown sign (river)
   or the all-in equity (:mod:`pokerai.search.equity`). Where the street's betting
   closes with chips behind and a card to come, a depth-limited leaf valued by
   blueprint rollouts (:mod:`pokerai.search.rollouts`).
4. **Frozen own decisions, buckets and the gadget.** The searcher's earlier
   decisions on this street are fixed at what it played (Brown & Sandholm,
   Pluribus, Science 2019), so the opponent's actions on this street come out of
   the solve: an opponent that bets more hands than the blueprint meets the
   answers an equilibrium would give. With ``buckets`` the hands are merged into
   buckets that share a strategy (:mod:`pokerai.search.buckets`). With ``safe`` the
   tree starts with the re-solving gadget
   (:func:`~pokerai.search.subgame.with_resolve_gadget`): the opponent may decline
   to enter with any hand, at its best-response value against the blueprint.
5. **Solve.** CFR+ (:func:`~pokerai.search.subgame.solve`) for an iteration or
   time budget; the strategy at the current node for every combination
   (:class:`StreetSolution`), which the caller blends with the blueprint.

How the subgame is built is one :class:`StreetOptions`. The solve depends only on
the public state and the searcher's earlier played strategies, which are themselves
functions of the public states where they were played, so one solve answers for every
hand the searcher could hold.
"""

from __future__ import annotations

import importlib
import time
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from pokerai.engine.state import HUNLState
from pokerai.games.holdem import Blueprint
from pokerai.search.buckets import bucket_rows, bucketed_layout, bucketed_subgame, hand_buckets
from pokerai.search.combos import NUM_COMBOS, combos_holding
from pokerai.search.payoffs import VALID_MATRIX, RiverPayoffs, RolloutPayoffs, make_payoffs
from pokerai.search.rollouts import LeafSettings
from pokerai.search.subgame import (
    Gadget,
    Solution,
    Subgame,
    inner_solution,
    is_count,
    solve,
    with_resolve_gadget,
)
from pokerai.search.tree import Exact, StreetTree, build_street_tree, street_blueprint
from pokerai.solvers.policy import normalize_rows_or


@dataclass(frozen=True)
class StreetOptions:
    """How a street's subgame is built (module docstring).

    Attributes:
        max_raises: raises off the street's actual path (None: no cap).
        safe: the re-solving gadget at the root.
        leaf: how the depth-limited leaves of the flop and turn are valued.
        threshold: the threshold of the blueprint in the leaves and the gadget.
        buckets: hands merged into at most this many buckets (None: every hand its own).
    """

    max_raises: int | None = 2
    safe: bool = True
    leaf: LeafSettings = field(default_factory=LeafSettings)
    threshold: float = 0.0
    buckets: int | None = None


@dataclass(frozen=True)
class StreetSolution:
    """The searcher's strategy at the current decision, solved for every combination.

    Attributes:
        strategy: float64 ``[1326, num_slots]``; rows of combinations outside the subgame are 0.
        iterations: CFR+ iterations run.
        seconds: wall-clock time of the whole search (ranges excluded).
        leaf_seconds: the part spent on leaf rollouts.
        num_nodes, num_hands, leaves: the size of the subgame.
    """

    strategy: npt.NDArray[np.float64]
    iterations: int
    seconds: float
    leaf_seconds: float = 0.0
    num_nodes: int = 0
    num_hands: int = 0
    leaves: int = 0


@dataclass(frozen=True, eq=False)
class PreparedStreet:
    """A street's search before the solve: the tree, its payoffs, the frozen decisions and the game solved.

    Attributes:
        tree: the street's tree.
        payoffs: its :class:`~pokerai.search.tree.StreetPayoffs`.
        fixed: the searcher's frozen decisions for :func:`~pokerai.search.subgame.solve`, in
            ``game``'s node indices.
        game: the subgame to solve: ``tree.subgame``, or the gadget around it with ``safe``.
        layout: the blueprint in ``tree.subgame``'s layout (frozen decisions as played), with
            ``safe``; else None.
        searcher: the engine player to act.
        labels: each hand's bucket in ``game`` (int64 ``[H]``), or None when ``game``'s hands
            are the tree's.
        gadget: the gadget around the tree with ``safe`` (its ``game`` is ``game``); else None.
    """

    tree: StreetTree
    payoffs: RiverPayoffs | RolloutPayoffs
    fixed: dict[int, tuple[float, npt.NDArray[np.float64]]]
    game: Subgame
    layout: npt.NDArray[np.float64] | None
    searcher: int
    labels: npt.NDArray[np.int64] | None = None
    gadget: Gadget | None = None


def prepare_street(
    blueprint: Blueprint,
    state: HUNLState,
    own: npt.ArrayLike,
    opponent: npt.ArrayLike,
    played: Mapping[int, npt.NDArray[np.float64]],
    options: StreetOptions = StreetOptions(),
) -> PreparedStreet:
    """Steps 1 to 4 of the module docstring at the decision ``state`` (arguments as :func:`solve_street`)."""
    searcher = state.to_act
    if searcher is None:
        raise ValueError("street search needs a decision, and the hand is over")
    ranges = np.stack([np.asarray(own, dtype=np.float64), np.asarray(opponent, dtype=np.float64)])
    if ranges.shape != (2, NUM_COMBOS) or not np.all(ranges >= 0):
        raise ValueError(f"ranges must be non-negative vectors of {NUM_COMBOS} combinations")
    live = ~combos_holding(state.board)
    hands = np.flatnonzero(live & ((ranges[0] > 0) | (ranges[1] > 0))).astype(np.int64)
    if ranges[0, hands].sum() <= 0 or ranges[1, hands].sum() <= 0:
        raise ValueError("a range is empty at the street's start")
    reach = np.zeros((2, len(hands)))
    reach[searcher] = ranges[0, hands] / ranges[0, hands].sum()
    reach[1 - searcher] = ranges[1, hands] / ranges[1, hands].sum()
    payoffs = make_payoffs(blueprint, state, hands, 1 - searcher, options.leaf, options.threshold)
    tree = build_street_tree(state, blueprint.game.bets, payoffs, reach, max_raises=options.max_raises)
    subgame = tree.subgame
    fixed: dict[int, tuple[float, npt.NDArray[np.float64]]] = {}
    for node, history_index in zip(tree.path[:-1], tree.path_actions, strict=True):
        if int(subgame.player[node]) != searcher:
            continue
        if history_index not in played:
            raise ValueError(f"the strategy played at history index {history_index} is missing")
        children = subgame.children(node)
        labels = [subgame.label[child] for child in children]
        if any(isinstance(label, Exact) for label in labels):
            raise ValueError("the searcher's own earlier action is not on the menu")
        columns = np.array([int(label) for label in labels], dtype=np.int64)
        rows = np.asarray(played[history_index], dtype=np.float64)[np.ix_(hands, columns)]
        fixed[node] = (1.0, normalize_rows_or(rows, 1.0 / len(labels)))
    bucket_of = None
    inner = subgame
    if options.buckets is not None and options.buckets < subgame.num_hands:
        bucket_of = hand_buckets(subgame, fixed, options.buckets)
        inner = bucketed_subgame(subgame, bucket_of)
        fixed = {
            node: (weight, bucket_rows(rows.T, bucket_of, subgame.reach[searcher]).T)
            for node, (weight, rows) in fixed.items()
        }
    if not options.safe:
        return PreparedStreet(tree, payoffs, fixed, inner, None, searcher, bucket_of)
    layout = street_blueprint(blueprint, tree, options.threshold)
    if bucket_of is not None:
        layout = bucketed_layout(subgame, layout, bucket_of)
    for node, (_, rows) in fixed.items():
        layout[subgame.child_rows(node)] = rows.T
    gadget = with_resolve_gadget(tree.root, inner, layout, searcher, valid=VALID_MATRIX)
    shifted = {gadget.node(node): value for node, value in fixed.items()}
    return PreparedStreet(tree, payoffs, shifted, gadget.game, layout, searcher, bucket_of, gadget)


def solve_street(
    blueprint: Blueprint,
    state: HUNLState,
    own: npt.ArrayLike,
    opponent: npt.ArrayLike,
    played: Mapping[int, npt.NDArray[np.float64]],
    options: StreetOptions = StreetOptions(),
    *,
    iterations: int,
    time_budget_s: float | None = None,
) -> StreetSolution:
    """Re-solve ``state``'s street from its start for the player to act (module docstring).

    ``own`` and ``opponent`` float ``[1326]`` are the searcher's and the opponent's ranges at
    the street's start; ``played`` maps the history index of each of the searcher's earlier
    actions on this street to the strategy it played there, float ``[1326, num_slots]``;
    ``options`` says how the subgame is built. ``time_budget_s`` bounds the whole search, but
    the leaves are built whatever it says. With 0 iterations nothing is built and the
    strategy is all zeros.
    """
    started = time.perf_counter()
    num_slots = blueprint.game.bets.num_slots
    if not is_count(iterations):
        raise ValueError(f"iterations {iterations!r} is not a non-negative whole number")
    if time_budget_s is not None and not time_budget_s >= 0:
        raise ValueError(f"time budget {time_budget_s!r} is not a non-negative number of seconds")
    if iterations == 0:
        return StreetSolution(np.zeros((NUM_COMBOS, num_slots)), 0, time.perf_counter() - started)
    prepared = prepare_street(blueprint, state, own, opponent, played, options)
    tree, payoffs = prepared.tree, prepared.payoffs
    labels = prepared.labels
    remaining = None if time_budget_s is None else max(0.0, time_budget_s - (time.perf_counter() - started))
    solution: Solution = solve(
        prepared.game, iterations, time_budget_s=remaining,
        card_payoffs=payoffs.card_payoffs if labels is None else None, fixed=prepared.fixed or None,
    )  # fmt: skip
    subgame = tree.subgame
    if prepared.gadget is not None:
        solution = inner_solution(solution, prepared.gadget)
    average = solution.average
    if labels is not None:
        average = average[:, labels]
    children = subgame.children(tree.current)
    slots = np.array([int(subgame.label[child]) for child in children], dtype=np.int64)
    strategy = np.zeros((NUM_COMBOS, num_slots))
    strategy[np.ix_(tree.hands, slots)] = average[children.start : children.stop].T
    return StreetSolution(
        strategy,
        solution.iterations,
        time.perf_counter() - started,
        payoffs.leaf_seconds,
        subgame.num_nodes,
        subgame.num_hands,
        payoffs.leaves,
    )


def avoid_hugepage_stalls() -> None:
    """Stop numpy asking the kernel for transparent huge pages for its large arrays.

    A street search allocates and frees arrays of tens of megabytes at every decision. On a
    kernel whose huge-page defragmentation is ``madvise`` (the default of many
    distributions), each such allocation may stall in memory compaction: on the 2-core
    development machine a flop or turn decision took 2–5 times longer (docs/BENCHMARKS.md).
    The environment variable ``NUMPY_MADVISE_HUGEPAGE=0`` does the same before start-up.
    """
    for name in ("numpy._core.multiarray", "numpy.core.multiarray"):  # numpy 2, numpy 1
        try:
            switch = getattr(importlib.import_module(name), "_set_madvise_hugepage", None)
        except ImportError:
            continue
        if switch is not None:
            switch(False)
            return


__all__ = [
    "PreparedStreet",
    "StreetOptions",
    "StreetSolution",
    "avoid_hugepage_stalls",
    "prepare_street",
    "solve_street",
]
