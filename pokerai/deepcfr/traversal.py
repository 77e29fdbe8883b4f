"""Batched external-sampling MCCFR traversals for Deep CFR (Brown, Lerer, Gross & Sandholm 2019).

One traversal for the *traverser* walks a sampled part of the game tree:

* at the traverser's decisions every legal slot is explored; the node's sampled
  instantaneous regrets ``v(a) - v`` become an **advantage sample** (its information state,
  legal mask, the regrets as targets, and the iteration);
* at the opponent's decisions one slot is sampled from the opponent's current strategy, and
  that strategy becomes a **strategy sample** (for the opponent's average policy);
* chance is sampled -- or, with ``chance="enumerate"`` (small games such as Leduc), every
  chance outcome is explored and valued by its probability. Sampling chance is the largest
  source of variance in the regret samples; enumerating it leaves only the opponent's
  sampled actions. It needs each chance node's outcomes to be equally likely (cards dealt
  from a deck), so that every history in an information state has the same chance reach
  and the samples need no extra weights.

The current strategy at a decision is regret matching on the acting player's advantage
network. Asking a network once per node is the known bottleneck of Python Deep CFR, so here
many traversals run at once, and each is split into tasks: a task is a Python generator that
follows chance and the opponent's sampled actions in a loop and *yields* a query (player,
compact information record, id of its legal mask) at each decision. At a traverser decision the query
also carries the children, which start at once as tasks of their own, so a traversal has as
many queries in flight as its tree is wide, and the number of rounds follows the number of
opponent decisions on a path rather than the size of the tree. Each round answers all
waiting queries of a player with **one** call of ``strategy_fn`` on the stacked records
(a ``strategy_fn`` that answers its rows one at a time is the one-call-per-node baseline of
``benchmarks/bench_deepcfr_traversal.py``).

Randomness comes from a 64-bit key per task: the root key is drawn from a generator seeded
by ``(seed, traverser, iteration, traversal index)``; each chance draw or opponent sample
advances the key with SplitMix64, and the child for slot ``a`` of a traverser decision gets
a key mixed from its parent's and ``a``. The samples are therefore a function of the seed
and the path alone: runs with any number of concurrent traversals produce the same samples.
"""

from __future__ import annotations

import gc
import math
from collections.abc import Callable, Generator
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from pokerai.games.protocol import CHANCE, TERMINAL
from pokerai.rng import splitmix64

StrategyFunction = Callable[[int, npt.NDArray[Any], npt.NDArray[np.bool_]], npt.NDArray[np.float64]]
"""``strategy_fn(player, records [N] (record dtype), masks bool [N, S]) -> probabilities [N, S]``."""


class RecordEncoder(Protocol):
    """What traversals need from an encoder: compact records of information states."""

    @property
    def record_dtype(self) -> np.dtype[Any]: ...

    def record(self, state: Any, player: int) -> Any: ...


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
    """One SplitMix64 step from the state ``value`` (any integer, taken modulo 2**64): its output."""
    return int(splitmix64(np.uint64(value & _MASK64))[1])


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


_Query = tuple[int, Any, int, "list[tuple[Any, int]] | None"]
"""What a suspended task asks: (player, compact information record, mask id, children).

The mask id indexes the run's table of distinct legal masks; the children (at a traverser
decision only) are each legal slot's child state and its task key."""

_Answer = tuple[int, list[float], float]
"""A query's answer: (query index, the strategy at the node as a list, the strategy's sum)."""

_Reply = tuple[_Answer, list[float]]
"""What a suspended traversal task receives: the answer to its query and its children's values."""


def _traverse(
    state: Any,
    traverser: int,
    record: Callable[[Any, int], Any],
    node_slots: Callable[[Any], tuple[tuple[int, ...], int]],
    num_slots: int,
    key: int,
    advantage: list[tuple[int, list[float]]],
    strategy_samples: list[int],
    enumerate_chance: bool = False,
    all_in_equity: bool = False,
    terminal_responses: bool = False,
) -> Generator[_Query, _Reply, float]:
    """The part of an external-sampling traversal below ``state``; returns the traverser's value.

    Opponent decisions and chance are followed in a loop (one sampled child each). At a
    traverser decision the task yields its query *with* the children to explore; the
    scheduler runs those as tasks of their own and resumes this one with the strategy and
    the children's values. ``key`` is this task's randomness: a chance draw or an opponent
    sample consumes ``key = _mix(key)``, and child ``slot`` of a traverser decision gets
    ``_child_key(key, slot)``, so every sample is a function of the traversal's seed and
    the path alone, never of how tasks were scheduled. Samples are appended to
    ``advantage`` (query index, regrets) and ``strategy_samples`` (query index).

    With ``enumerate_chance`` a chance node yields a query of player ``CHANCE`` carrying one
    child per outcome (child ``i`` gets ``_child_key(key, i)``); the scheduler answers it with
    the children's values alone, and the task returns their mean (the outcomes are equally
    likely).

    With ``all_in_equity`` a terminal is valued by the state's ``expected_returns()`` (hold'em:
    an all-in before the river at its equity over the run-outs) instead of ``returns()``.

    With ``terminal_responses`` an opponent decision adds the exact value of its *terminal*
    children, weighted by the opponent's strategy, and still draws one slot from that strategy
    as external sampling does: a drawn terminal slot adds nothing more (its value is already
    in), a drawn non-terminal slot adds the value of the hand that continues. The node's value
    ``sum_terminal p(a) u(a) + [drawn not terminal] u(drawn)`` has the expectation of one
    sampled slot, with the luck of a fold or a final call taken out, and the traversal visits
    exactly the nodes (and keeps exactly the samples) that external sampling would, so the
    samples below keep their distribution. The task adds those terminal parts up in ``offset``,
    which it adds to the value of the state it continues with.
    """
    offset = 0.0
    while True:
        player = state.current_player()
        if enumerate_chance and player == CHANCE:
            outcomes = _uniform_outcomes(state)
            child = state.child
            children = [(child(outcome), _child_key(key, i)) for i, outcome in enumerate(outcomes)]
            _, child_values = yield (CHANCE, None, -1, children)
            return offset + math.fsum(child_values) / len(child_values)  # equally likely outcomes
        while player == CHANCE:
            key = _mix(key)
            state = _sample_chance_keyed(state, key)
            player = state.current_player()
        if player == TERMINAL:
            utility = float((state.expected_returns() if all_in_equity else state.returns())[traverser])
            return offset + utility
        slots, mask_id = node_slots(state)
        if player == traverser:
            child = state.child
            children = [(child(slot), _child_key(key, slot)) for slot in slots]
            (index, strategy, _), child_values = yield (player, record(state, player), mask_id, children)
            value = 0.0
            for slot, child_value in zip(slots, child_values, strict=True):
                value += strategy[slot] * child_value
            regrets = [0.0] * num_slots
            for slot, child_value in zip(slots, child_values, strict=True):
                regrets[slot] = child_value - value
            advantage.append((index, regrets))
            return offset + value
        (index, strategy, total), _ = yield (player, record(state, player), mask_id, None)
        strategy_samples.append(index)
        key = _mix(key)
        drawn = _draw_uniform(strategy, total, _uniform(key))
        next_state = None
        if terminal_responses:
            ended = False
            ended_value = 0.0
            for slot in slots:
                probability = strategy[slot]
                if probability > 0:
                    child_state = state.child(slot)
                    if slot == drawn:
                        next_state = child_state
                    if child_state.current_player() == TERMINAL:
                        returns = child_state.expected_returns() if all_in_equity else child_state.returns()
                        ended = True
                        ended_value += probability * float(returns[traverser])
            if ended:
                offset += ended_value / total
                assert next_state is not None, "the drawn slot has positive probability"
                if next_state.current_player() == TERMINAL:
                    return offset
        state = next_state if next_state is not None else state.child(drawn)


def _uniform_outcomes(state: Any) -> list[int]:
    """A chance node's outcomes, refused unless all are equally likely (what enumeration needs)."""
    outcomes = state.chance_outcomes()
    first = outcomes[0][1]
    if any(abs(probability - first) > 1e-12 * max(first, 1.0) for _, probability in outcomes):
        raise ValueError(
            "chance='enumerate' needs equally likely chance outcomes (cards dealt from a deck); "
            f"this node has probabilities {[probability for _, probability in outcomes]}"
        )
    return [outcome for outcome, _ in outcomes]


def _draw_uniform(probabilities: list[float], total: float, uniform: float) -> int:
    """The index of ``probabilities`` (non-negative, sum ``total`` > 0) that ``uniform`` in [0, 1) selects."""
    threshold = uniform * total
    cumulative = 0.0
    last = 0
    for index, probability in enumerate(probabilities):
        if probability > 0:
            cumulative += probability
            last = index
            if threshold < cumulative:
                return index
    return last  # rounding left the threshold at the very top


class _Task:
    """A suspended traversal generator, its query and what it still waits for."""

    __slots__ = ("answer", "generator", "parent", "pending", "query", "root", "slot", "values")

    def __init__(
        self, generator: Generator[_Query, _Reply, float], parent: _Task | None, slot: int, root: int
    ):
        self.generator = generator
        self.parent = parent
        self.slot = slot
        self.root = root
        self.query: _Query | None = None
        self.answer: _Answer | None = None
        self.values: list[float] = []
        self.pending = 0


class _LegalMasks:
    """The distinct legal masks seen in a run (a handful), each with an id, cached by legal actions."""

    def __init__(self, num_slots: int) -> None:
        self.num_slots = num_slots
        self.ids: dict[Any, tuple[tuple[int, ...], int]] = {}
        self.rows: list[list[bool]] = []
        self._table = np.zeros((0, num_slots), dtype=bool)

    def node_slots(self, state: Any) -> tuple[tuple[int, ...], int]:
        """A decision's legal slots (ascending) and the id of its legal mask."""
        legal = state.legal_actions()
        key = legal if type(legal) is tuple else tuple(legal)
        found = self.ids.get(key)
        if found is None:
            slots = tuple(int(slot) for slot in np.flatnonzero(legal_mask(state, self.num_slots)))
            found = self.ids.get(slots)
            if found is None:
                row = [False] * self.num_slots
                for slot in slots:
                    row[slot] = True
                found = (slots, len(self.rows))
                self.rows.append(row)
                self.ids[slots] = found
            self.ids[key] = found
        return found

    def table(self) -> npt.NDArray[np.bool_]:
        """bool ``[num_masks, num_slots]``: row ``i`` is the mask of id ``i``."""
        if len(self._table) < len(self.rows):
            self._table = np.array(self.rows, dtype=bool).reshape(len(self.rows), self.num_slots)
        return self._table


@dataclass
class _Scheduler:
    """The tasks of a run's traversals: started, suspended on queries, resumed with answers.

    Tasks are resumed as soon as they have all they wait for (their strategy and, at a traverser
    decision, their children's values), so one answered round can run many tasks on to their
    next query; those wait for the next round.
    """

    traverser: int
    record: Callable[[Any, int], Any]
    num_slots: int
    count: int
    enumerate_chance: bool
    all_in_equity: bool
    terminal_responses: bool

    def __post_init__(self) -> None:
        self.masks = _LegalMasks(self.num_slots)
        self.advantage_samples: list[list[tuple[int, list[float]]]] = [[] for _ in range(self.count)]
        self.strategy_samples: list[list[int]] = [[] for _ in range(self.count)]
        self.root_values = np.zeros(self.count)
        self.live = 0
        self.waiting: list[_Task] = []

    def spawn(self, state: Any, key: int, parent: _Task | None, slot: int, root: int) -> None:
        """Start the task that traverses below ``state`` and run it to its first query."""
        generator = _traverse(
            state,
            self.traverser,
            self.record,
            self.masks.node_slots,
            self.num_slots,
            key,
            self.advantage_samples[root],
            self.strategy_samples[root],
            self.enumerate_chance,
            self.all_in_equity,
            self.terminal_responses,
        )
        self.advance(_Task(generator, parent, slot, root), None)

    def advance(self, task: _Task, reply: _Reply | None) -> None:
        """Resume ``task`` with ``reply`` to its next query (spawning its children) or its end."""
        try:
            query = task.generator.send(reply)  # type: ignore[arg-type]  # None starts the generator
        except StopIteration as finished:
            self.finish(task, finished.value)
            return
        task.query = query
        if query[0] == CHANCE:  # an enumerated chance node waits for its children only
            task.answer = (-1, [], 0.0)
        else:
            self.waiting.append(task)
        children = query[3]
        if children is None:
            task.pending = 1
            return
        values = task.values = [0.0] * len(children)
        running = []
        for slot, (child, key) in enumerate(children):
            if child.current_player() == TERMINAL:  # e.g. a fold: valued here, without a task
                returns = child.expected_returns() if self.all_in_equity else child.returns()
                values[slot] = float(returns[self.traverser])
            else:
                running.append((slot, child, key))
        # Those children, and the strategy; an enumerated chance node's extra count is a
        # guard released below, so that children finishing during the loop cannot resume it.
        task.pending = len(running) + 1
        root = task.root
        for slot, child, key in running:
            self.spawn(child, key, task, slot, root)
        if query[0] == CHANCE:
            task.pending -= 1
            if task.pending == 0:
                self.advance(task, (task.answer, values))  # type: ignore[arg-type]

    def finish(self, task: _Task, value: float) -> None:
        """Hand a finished task's ``value`` to its parent (resumed if that was all it waited for)."""
        parent = task.parent
        if parent is None:
            self.root_values[task.root] = value
            self.live -= 1
            return
        parent.values[task.slot] = value
        parent.pending -= 1
        if parent.pending == 0:
            assert parent.answer is not None
            self.advance(parent, (parent.answer, parent.values))

    def take_round(self) -> list[list[_Task]]:
        """The waiting tasks by player, grouped before any is answered: an answer can resume a task
        that then yields its next query, which belongs to the next round."""
        groups: list[list[_Task]] = [[], []]
        for task in self.waiting:
            assert task.query is not None
            groups[task.query[0]].append(task)
        self.waiting.clear()
        return groups


class _QueryLog:
    """Every query's record, strategy, player and mask id, in the order asked: one array per group."""

    def __init__(self) -> None:
        self.records: list[npt.NDArray[Any]] = []
        self.strategies: list[npt.NDArray[np.float64]] = []
        self.players: list[int] = []
        self.sizes: list[int] = []
        self.mask_ids: list[int] = []
        self.queries = 0
        self.calls = 0

    def answer(self, scheduler: _Scheduler, player: int, group: list[_Task], strategy_fn: StrategyFunction,
               record_dtype: np.dtype[Any]) -> None:  # fmt: skip
        """Answer ``player``'s ``group`` of queries with one call of ``strategy_fn``, resuming each
        task that waited for nothing else."""
        asked = [task.query for task in group]
        records = np.array([query[1] for query in asked], dtype=record_dtype)  # type: ignore[index]
        ids = [query[2] for query in asked]  # type: ignore[index]
        strategies = np.asarray(strategy_fn(player, records, scheduler.masks.table()[ids]), dtype=np.float64)
        self.calls += 1
        self.records.append(records)
        self.strategies.append(strategies)
        self.players.append(player)
        self.sizes.append(len(group))
        self.mask_ids.extend(ids)
        # Strategies as lists (cheap to read one by one) and their sums as numpy sums them.
        totals = strategies.sum(axis=1).tolist()
        for index, (task, strategy, total) in enumerate(
            zip(group, strategies.tolist(), totals, strict=True), self.queries
        ):
            task.answer = (index, strategy, total)
            task.pending -= 1
            if task.pending == 0:
                scheduler.advance(task, (task.answer, task.values))
        self.queries += len(group)

    def samples(
        self, scheduler: _Scheduler, record_dtype: np.dtype[Any], value_scale: float
    ) -> TraversalSamples:
        """The run's samples: each advantage or strategy sample joined to its query's record and mask."""
        num_slots = scheduler.num_slots
        mask_table = scheduler.masks.table()
        all_records = np.concatenate(self.records) if self.records else np.zeros(0, dtype=record_dtype)
        all_strategies = np.concatenate(self.strategies) if self.strategies else np.zeros((0, num_slots))
        all_masks = np.asarray(self.mask_ids, dtype=np.intp)
        all_players = np.repeat(np.asarray(self.players, dtype=np.int8), self.sizes)
        advantage = [sample for samples in scheduler.advantage_samples for sample in samples]
        advantage_index = np.asarray([index for index, _ in advantage], dtype=np.intp)
        strategy_index = np.asarray(
            [index for samples in scheduler.strategy_samples for index in samples], dtype=np.intp
        )
        return TraversalSamples(
            advantage_records=all_records[advantage_index],
            advantage_masks=mask_table[all_masks[advantage_index]],
            advantage_targets=_stack_targets([regrets for _, regrets in advantage], num_slots, value_scale),
            strategy_records=all_records[strategy_index],
            strategy_masks=mask_table[all_masks[strategy_index]],
            strategy_targets=(all_strategies[strategy_index] / 1.0).astype(np.float32),
            strategy_players=all_players[strategy_index],
            root_values=scheduler.root_values,
            nodes=self.queries,
            queries=self.queries,
            calls=self.calls,
        )


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
    first: int = 0,
    chance: str = "sample",
    all_in_equity: bool = False,
    terminal_responses: bool = False,
) -> TraversalSamples:
    """Run traversals ``first .. first + count - 1`` for ``traverser``, ``concurrent`` at a time.

    ``strategy_fn`` must return, for each query row, a probability vector over the slots that
    is zero on illegal slots and sums to 1. Every round of queries is answered with one call
    per player. ``concurrent`` does not change the samples, only their order and the number
    of calls. A traversal's samples depend on its index, not on which call ran it, so
    splitting ``0 .. n - 1`` into ranges run by different workers (``first``) and
    concatenating the results in range order gives the samples of one call with ``count = n``.

    ``chance``: ``"sample"`` (external sampling: one outcome per chance node) or
    ``"enumerate"`` (every outcome, for games with few and equally likely ones, e.g. Leduc).
    ``all_in_equity``: value terminals by ``state.expected_returns()`` (hold'em states have it:
    an all-in called before the river is worth its equity over the run-outs, not one run-out).
    ``terminal_responses``: at the opponent's decisions, add the exact value of the slots that
    end the hand, weighted by its strategy; the drawn slot counts only if it continues the hand
    (:func:`_traverse`). The same nodes and samples as without it; only the values change.
    """
    if chance not in ("sample", "enumerate"):
        raise ValueError(f"chance must be 'sample' or 'enumerate', got {chance!r}")
    if count < 0 or concurrent < 1 or first < 0:
        raise ValueError(
            f"count and first must be >= 0 and concurrent >= 1, got {count}, {first} and {concurrent}"
        )
    record_dtype = encoder.record_dtype
    scheduler = _Scheduler(traverser, encoder.record, int(game.num_distinct_actions), count,
                           chance == "enumerate", all_in_equity, terminal_responses)  # fmt: skip
    log = _QueryLog()
    # The live tasks are many small objects without reference cycles; the cyclic collector
    # would scan them over and over (half the run time), so it is paused for the run.
    collecting = gc.isenabled()
    gc.disable()
    try:
        next_index = 0
        while next_index < count or scheduler.waiting:
            while next_index < count and scheduler.live < concurrent:
                scheduler.live += 1
                rng = np.random.default_rng([seed, traverser, iteration, first + next_index])
                key = int(rng.integers(0, 1 << 63))
                scheduler.spawn(game.initial_state(), key, None, 0, next_index)
                next_index += 1
            if not scheduler.waiting:
                continue
            for player, group in enumerate(scheduler.take_round()):
                if group:
                    log.answer(scheduler, player, group, strategy_fn, record_dtype)
    finally:
        if collecting:
            gc.enable()
    return log.samples(scheduler, record_dtype, value_scale)


def _stack_targets(rows: list[list[float]], num_slots: int, scale: float) -> npt.NDArray[np.float32]:
    if not rows:
        return np.zeros((0, num_slots), dtype=np.float32)
    return (np.array(rows, dtype=np.float64) / scale).astype(np.float32)
