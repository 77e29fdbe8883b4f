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
many traversals run at once: each traversal is a Python generator that *yields* a query
(player, compact information record, legal mask) and receives the strategy; the scheduler
advances every live traversal to its next query, answers all queries of a player with **one**
call of ``strategy_fn`` on the stacked records, and repeats. ``concurrent=1`` gives the
one-call-per-node baseline for benchmarks.

Each traversal draws from its own ``numpy`` generator seeded by ``(seed, traverser,
iteration, traversal index)``, so the samples do not depend on how many traversals run
together -- batched and unbatched runs produce the same samples.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Sequence
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


def _draw(probabilities: Sequence[float] | npt.NDArray[np.float64], rng: np.random.Generator) -> int:
    """An index drawn from ``probabilities`` (non-negative, positive sum) with one uniform number.

    Cheaper than ``rng.choice(n, p=...)``, which validates and copies on every call.
    """
    threshold = rng.random() * float(np.sum(probabilities))
    cumulative = 0.0
    last = 0
    for index, probability in enumerate(probabilities):
        if probability > 0:
            cumulative += probability
            last = index
            if threshold < cumulative:
                return index
    return last  # rounding left the threshold at the very top


def sample_chance(state: Any, rng: np.random.Generator) -> Any:
    """The child of a chance node drawn from its outcome distribution (or ``state.sample_chance``)."""
    sampler = getattr(state, "sample_chance", None)
    if sampler is not None:
        return sampler(rng)
    outcomes = state.chance_outcomes()
    choice = _draw([probability for _, probability in outcomes], rng)
    return state.child(outcomes[choice][0])


class _Collector:
    def __init__(self) -> None:
        self.advantage: list[tuple[Any, npt.NDArray[np.bool_], npt.NDArray[np.float64]]] = []
        self.strategy: list[tuple[Any, npt.NDArray[np.bool_], npt.NDArray[np.float64], int]] = []
        self.nodes = 0


def _traverse(
    state: Any,
    traverser: int,
    encoder: RecordEncoder,
    num_slots: int,
    rng: np.random.Generator,
    collector: _Collector,
) -> Generator[_Query, npt.NDArray[np.float64], float]:
    """One external-sampling traversal from ``state``; returns the traverser's sampled value."""
    player = state.current_player()
    while player == CHANCE:
        state = sample_chance(state, rng)
        player = state.current_player()
    if player == TERMINAL:
        return float(state.returns()[traverser])
    collector.nodes += 1
    mask = legal_mask(state, num_slots)
    record = encoder.record(state, player)
    strategy = yield _Query(player, record, mask)
    if player == traverser:
        values = np.zeros(num_slots)
        for slot in np.flatnonzero(mask):
            values[slot] = yield from _traverse(
                state.child(int(slot)), traverser, encoder, num_slots, rng, collector
            )
        value = float(strategy @ values)
        regrets = np.where(mask, values - value, 0.0)
        collector.advantage.append((record, mask, regrets))
        return value
    collector.strategy.append((record, mask, strategy, player))
    sampled = _draw(strategy, rng)
    return (yield from _traverse(state.child(sampled), traverser, encoder, num_slots, rng, collector))


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
) -> TraversalSamples:
    """Run ``count`` traversals for ``traverser``, at most ``concurrent`` at a time.

    ``strategy_fn`` must return, for each query row, a probability vector over the slots that
    is zero on illegal slots and sums to 1.
    """
    if count < 0 or concurrent < 1:
        raise ValueError(f"count must be >= 0 and concurrent >= 1, got {count} and {concurrent}")
    num_slots = int(game.num_distinct_actions)
    collectors: list[_Collector] = []
    root_values = np.zeros(count)
    queries = 0
    calls = 0
    next_index = 0
    live: dict[int, tuple[Generator[_Query, npt.NDArray[np.float64], float], _Query]] = {}

    def start(index: int) -> None:
        rng = np.random.default_rng([seed, traverser, iteration, index])
        collector = _Collector()
        collectors.append(collector)
        generator = _traverse(game.initial_state(), traverser, encoder, num_slots, rng, collector)
        advance(index, generator, None)

    def advance(
        index: int,
        generator: Generator[_Query, npt.NDArray[np.float64], float],
        answer: npt.NDArray[np.float64] | None,
    ) -> None:
        try:
            query = generator.send(answer) if answer is not None else next(generator)
        except StopIteration as finished:
            root_values[index] = finished.value
            live.pop(index, None)
            return
        live[index] = (generator, query)

    while next_index < count or live:
        while next_index < count and len(live) < concurrent:
            start(next_index)
            next_index += 1
        if not live:
            continue
        pending = list(live.items())
        for player in (0, 1):
            rows = [
                (index, generator, query) for index, (generator, query) in pending if query.player == player
            ]
            if not rows:
                continue
            records = np.array([query.record for _, _, query in rows], dtype=encoder.record_dtype)
            masks = np.stack([query.mask for _, _, query in rows])
            strategies = np.asarray(strategy_fn(player, records, masks), dtype=np.float64)
            calls += 1
            queries += len(rows)
            for (index, generator, _), strategy in zip(rows, strategies, strict=True):
                advance(index, generator, strategy)

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
        queries=queries,
        calls=calls,
    )


def _stack_masks(masks: list[npt.NDArray[np.bool_]], num_slots: int) -> npt.NDArray[np.bool_]:
    return np.stack(masks) if masks else np.zeros((0, num_slots), dtype=bool)


def _stack_targets(
    rows: list[npt.NDArray[np.float64]], num_slots: int, scale: float
) -> npt.NDArray[np.float32]:
    if not rows:
        return np.zeros((0, num_slots), dtype=np.float32)
    return (np.stack(rows) / scale).astype(np.float32)
