"""Batched external-sampling MCCFR traversals for Deep CFR (Brown, Lerer, Gross & Sandholm 2019).

One traversal for the *traverser* walks a sampled part of the game tree:

* at the traverser's decisions every legal slot is explored; the node's sampled
  instantaneous regrets ``v(a) - v`` become an **advantage sample** (its information state,
  legal mask, the regrets as targets, and the iteration);
* at the opponent's decisions one slot is sampled from the opponent's current strategy, and
  that strategy becomes a **strategy sample** (for the opponent's average policy);
* chance is sampled.

The current strategy at a decision is regret matching on the acting player's advantage
network. Asking a network once per node is the known bottleneck of Python Deep CFR, so here
many traversals run at once, and each is split into tasks: a task is a Python generator that
follows chance and the opponent's sampled actions in a loop and *yields* a query (player,
compact information record, legal mask) at each decision. At a traverser decision the query
also carries the children, which start at once as tasks of their own, so a traversal has as
many queries in flight as its tree is wide, and the number of rounds follows the number of
opponent decisions on a path rather than the size of the tree. Each round answers all
waiting queries of a player with **one** call of ``strategy_fn`` on the stacked records;
``batch=False`` (one call per query) with ``concurrent=1`` is the one-call-per-node
baseline for benchmarks.

Randomness comes from a 64-bit key per task: the root key is drawn from a generator seeded
by ``(seed, traverser, iteration, traversal index)``; each chance draw or opponent sample
advances the key with SplitMix64, and the child for slot ``a`` of a traverser decision gets
a key mixed from its parent's and ``a``. The samples are therefore a function of the seed
and the path alone: batched and unbatched runs, with any number of concurrent traversals,
produce the same samples.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Generator
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from pokerai.games.protocol import CHANCE, TERMINAL

StrategyFunction = Callable[[int, npt.NDArray[Any], npt.NDArray[np.bool_]], npt.NDArray[np.float64]]
"""``strategy_fn(player, records [N] (record dtype), masks bool [N, S]) -> probabilities [N, S]``."""


class RecordEncoder(Protocol):
    """What traversals need from an encoder: compact records of information states."""

    @property
    def record_dtype(self) -> np.dtype[Any]: ...

    def record(self, state: Any, player: int) -> Any: ...


@dataclass
class _Query:
    player: int
    record: Any
    mask: npt.NDArray[np.bool_]
    children: list[tuple[Any, int]] | None
    """At a traverser decision: each legal slot's child state and its task key."""


@dataclass
class TraversalSamples:
    """What a batch of traversals produced.

    ``advantage_*``: samples at the traverser's decisions (targets = sampled regrets divided
    by ``value_scale``); ``strategy_*``: samples at the opponent's decisions (targets = the
    strategy played), with ``strategy_players`` saying whose strategy it was. Records are
    structured arrays of the encoder's record dtype; masks bool [N, S]; targets float32 [N, S].
    ``nodes`` counts decision nodes visited; ``queries`` strategy requests; ``calls`` the
    ``strategy_fn`` calls made (batched: far fewer than queries).
    """

    advantage_records: npt.NDArray[Any]
    advantage_masks: npt.NDArray[np.bool_]
    advantage_targets: npt.NDArray[np.float32]
    strategy_records: npt.NDArray[Any]
    strategy_masks: npt.NDArray[np.bool_]
    strategy_targets: npt.NDArray[np.float32]
    strategy_players: npt.NDArray[np.int8]
    root_values: npt.NDArray[np.float64]
    nodes: int
    queries: int
    calls: int


def legal_mask(state: Any, num_slots: int) -> npt.NDArray[np.bool_]:
    """The legal mask of a protocol state (``legal_mask()`` when the state has one)."""
    getter = getattr(state, "legal_mask", None)
    if getter is not None:
        return np.asarray(getter(), dtype=bool)
    mask = np.zeros(num_slots, dtype=bool)
    mask[list(state.legal_actions())] = True
    return mask


_MASK64 = (1 << 64) - 1


def _mix(value: int) -> int:
    """SplitMix64's finaliser: a well-mixed 64-bit integer from any integer."""
    z = (value + 0x9E3779B97F4A7C15) & _MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    return z ^ (z >> 31)


def _uniform(key: int) -> float:
    """A uniform number in [0, 1) from a mixed key (its top 53 bits)."""
    return (key >> 11) * (1.0 / (1 << 53))


def _child_key(key: int, slot: int) -> int:
    return _mix((key * 0x5851F42D4C957F2D + slot + 1) & _MASK64)


def _sample_chance_keyed(state: Any, key: int) -> Any:
    """A chance node's child drawn with the randomness of ``key``."""
    if getattr(state, "sample_chance", None) is not None:
        return state.sample_chance(np.random.default_rng(key))
    outcomes = state.chance_outcomes()
    threshold = _uniform(key) * sum(probability for _, probability in outcomes)
    cumulative = 0.0
    for outcome, probability in outcomes:
        cumulative += probability
        if threshold < cumulative:
            return state.child(outcome)
    return state.child(outcomes[-1][0])


class _Collector:
    def __init__(self) -> None:
        self.advantage: list[tuple[Any, npt.NDArray[np.bool_], npt.NDArray[np.float64]]] = []
        self.strategy: list[tuple[Any, npt.NDArray[np.bool_], npt.NDArray[np.float64], int]] = []
        self.nodes = 0


_Reply = tuple[npt.NDArray[np.float64], list[float]]
"""What a suspended traversal task receives: the strategy at its node and its children's values."""


def _traverse(
    state: Any,
    traverser: int,
    encoder: RecordEncoder,
    num_slots: int,
    key: int,
    collector: _Collector,
) -> Generator[_Query, _Reply, float]:
    """The part of an external-sampling traversal below ``state``; returns the traverser's value.

    Opponent decisions and chance are followed in a loop (one sampled child each). At a
    traverser decision the task yields its query *with* the children to explore; the
    scheduler runs those as tasks of their own and resumes this one with the strategy and
    the children's values. ``key`` is this task's randomness: a chance draw or an opponent
    sample consumes ``key = _mix(key)``, and child ``slot`` of a traverser decision gets
    ``_child_key(key, slot)``, so every sample is a function of the traversal's seed and
    the path alone, never of how tasks were scheduled.
    """
    while True:
        player = state.current_player()
        while player == CHANCE:
            key = _mix(key)
            state = _sample_chance_keyed(state, key)
            player = state.current_player()
        if player == TERMINAL:
            return float(state.returns()[traverser])
        collector.nodes += 1
        mask = legal_mask(state, num_slots)
        record = encoder.record(state, player)
        if player == traverser:
            slots = [int(slot) for slot in np.flatnonzero(mask)]
            children = [(state.child(slot), _child_key(key, slot)) for slot in slots]
            strategy, child_values = yield _Query(player, record, mask, children)
            values = np.zeros(num_slots)
            values[slots] = child_values
            value = float(strategy @ values)
            regrets = np.where(mask, values - value, 0.0)
            collector.advantage.append((record, mask, regrets))
            return value
        strategy, _ = yield _Query(player, record, mask, None)
        collector.strategy.append((record, mask, strategy, player))
        key = _mix(key)
        state = state.child(_draw_uniform(strategy, _uniform(key)))


def _draw_uniform(probabilities: npt.NDArray[np.float64], uniform: float) -> int:
    """The index of ``probabilities`` (non-negative, positive sum) that ``uniform`` in [0, 1) selects."""
    threshold = uniform * float(probabilities.sum())
    cumulative = 0.0
    last = 0
    for index, probability in enumerate(probabilities.tolist()):
        if probability > 0:
            cumulative += probability
            last = index
            if threshold < cumulative:
                return index
    return last  # rounding left the threshold at the very top


class _Task:
    """A suspended traversal generator, its query and what it still waits for."""

    __slots__ = ("generator", "parent", "pending", "query", "root", "slot", "strategy", "values")

    def __init__(
        self, generator: Generator[_Query, _Reply, float], parent: _Task | None, slot: int, root: int
    ):
        self.generator = generator
        self.parent = parent
        self.slot = slot
        self.root = root
        self.query: _Query | None = None
        self.strategy: npt.NDArray[np.float64] | None = None
        self.values: list[float] = []
        self.pending = 0


def run_traversals(
    game: Any,
    encoder: RecordEncoder,
    strategy_fn: StrategyFunction,
    *,
    traverser: int,
    count: int,
    iteration: int,
    seed: int,
    concurrent: int = 512,
    value_scale: float = 1.0,
    batch: bool = True,
) -> TraversalSamples:
    """Run ``count`` traversals for ``traverser``, at most ``concurrent`` at a time.

    ``strategy_fn`` must return, for each query row, a probability vector over the slots that
    is zero on illegal slots and sums to 1. With ``batch`` (the default) every round of
    queries is answered with one call per player; ``batch=False`` calls ``strategy_fn``
    once per query (the one-call-per-node baseline). Neither ``concurrent`` nor ``batch``
    changes the samples, only their order and the number of calls.
    """
    if count < 0 or concurrent < 1:
        raise ValueError(f"count must be >= 0 and concurrent >= 1, got {count} and {concurrent}")
    num_slots = int(game.num_distinct_actions)
    collectors = [_Collector() for _ in range(count)]
    root_values = np.zeros(count)
    counters = {"queries": 0, "calls": 0, "live": 0}
    waiting: list[_Task] = []

    def advance(task: _Task, reply: _Reply | None) -> None:
        try:
            query = task.generator.send(reply) if reply is not None else next(task.generator)
        except StopIteration as finished:
            finish(task, float(finished.value))
            return
        task.query = query
        task.strategy = None
        waiting.append(task)
        if query.children is not None:
            values = task.values = [0.0] * len(query.children)
            running = []
            for slot, (child, key) in enumerate(query.children):
                if child.current_player() == TERMINAL:  # e.g. a fold: valued here, without a task
                    values[slot] = float(child.returns()[traverser])
                else:
                    running.append((slot, child, key))
            task.pending = len(running) + 1  # those children and the strategy
            collector = collectors[task.root]
            for slot, child, key in running:
                generator = _traverse(child, traverser, encoder, num_slots, key, collector)
                advance(_Task(generator, task, slot, task.root), None)
        else:
            task.pending = 1

    def finish(task: _Task, value: float) -> None:
        parent = task.parent
        if parent is None:
            root_values[task.root] = value
            counters["live"] -= 1
            return
        parent.values[task.slot] = value
        settle(parent)

    def settle(task: _Task) -> None:
        task.pending -= 1
        if task.pending == 0:
            assert task.strategy is not None
            advance(task, (task.strategy, task.values))

    def start(index: int) -> None:
        counters["live"] += 1
        rng = np.random.default_rng([seed, traverser, iteration, index])
        key = int(rng.integers(0, 1 << 63))
        generator = _traverse(game.initial_state(), traverser, encoder, num_slots, key, collectors[index])
        advance(_Task(generator, None, 0, index), None)

    # The live tasks are many small objects without reference cycles; the cyclic collector
    # would scan them over and over (half the run time), so it is paused for the run.
    collecting = gc.isenabled()
    gc.disable()
    try:
        next_index = 0
        while next_index < count or waiting:
            while next_index < count and counters["live"] < concurrent:
                start(next_index)
                next_index += 1
            if not waiting:
                continue
            # Group this round's queries before answering any: an answer can resume a task that
            # then yields its next query, which belongs to the next round.
            groups: list[list[tuple[_Task, _Query]]] = [[], []]
            for task in waiting:
                assert task.query is not None
                groups[task.query.player].append((task, task.query))
            waiting.clear()
            for player, group in enumerate(groups):
                if not group:
                    continue
                records = np.array([query.record for _, query in group], dtype=encoder.record_dtype)
                masks = np.stack([query.mask for _, query in group])
                if batch:
                    strategies = np.asarray(strategy_fn(player, records, masks), dtype=np.float64)
                    counters["calls"] += 1
                else:
                    rows = [
                        strategy_fn(player, records[row : row + 1], masks[row : row + 1])
                        for row in range(len(group))
                    ]
                    strategies = np.concatenate([np.asarray(row, dtype=np.float64) for row in rows])
                    counters["calls"] += len(group)
                counters["queries"] += len(group)
                for (task, _), strategy in zip(group, strategies, strict=True):
                    task.strategy = strategy
                    settle(task)
    finally:
        if collecting:
            gc.enable()

    advantage = [sample for collector in collectors for sample in collector.advantage]
    strategy = [sample for collector in collectors for sample in collector.strategy]
    return TraversalSamples(
        advantage_records=np.array([record for record, _, _ in advantage], dtype=encoder.record_dtype),
        advantage_masks=_stack_masks([mask for _, mask, _ in advantage], num_slots),
        advantage_targets=_stack_targets([regret for _, _, regret in advantage], num_slots, value_scale),
        strategy_records=np.array([record for record, _, _, _ in strategy], dtype=encoder.record_dtype),
        strategy_masks=_stack_masks([mask for _, mask, _, _ in strategy], num_slots),
        strategy_targets=_stack_targets([probs for _, _, probs, _ in strategy], num_slots, 1.0),
        strategy_players=np.array([player for _, _, _, player in strategy], dtype=np.int8),
        root_values=root_values,
        nodes=sum(collector.nodes for collector in collectors),
        queries=counters["queries"],
        calls=counters["calls"],
    )


def _stack_masks(masks: list[npt.NDArray[np.bool_]], num_slots: int) -> npt.NDArray[np.bool_]:
    return np.stack(masks) if masks else np.zeros((0, num_slots), dtype=bool)


def _stack_targets(
    rows: list[npt.NDArray[np.float64]], num_slots: int, scale: float
) -> npt.NDArray[np.float32]:
    if not rows:
        return np.zeros((0, num_slots), dtype=np.float32)
    return (np.stack(rows) / scale).astype(np.float32)
