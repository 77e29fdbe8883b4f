"""Duplicate heads-up matches: every deal is played twice with the seats swapped.

Hand 1 of deal pair ``i`` seats agent A as player 0 and agent B as player 1;
hand 2 deals the very same nine cards with the same button, and swaps the
agents, so A holds the cards (and the position) that B held. Luck of the cards
cancels within a pair, which is why a duplicate confidence interval is much
narrower than a plain one over the same number of hands. Stacks are reset
every hand (ACPC style: 200 big blinds at the default 50/100 blinds).

Reproducibility. Pair ``i`` draws everything from ``numpy.random.default_rng([seed, i])``:
the deal, and one seed per seat. In both hands of the pair the agent in seat
``s`` acts with a fresh Generator built from seat ``s``'s seed, so the random
numbers follow the seat, not the agent (common random numbers): an agent
against itself replays hand 1 exactly in hand 2 and scores exactly 0, and
between different agents the shared streams only lower the variance. Pass
``mirror_randomness=False`` to give every hand and seat its own independent
stream instead. Results depend only on ``seed`` and the pair count, never on
the number of worker processes (agents must not carry state from hand to hand
that changes how they play; ``begin_hand`` is called before each hand). The
exception is an agent that learns about its opponent from ``end_hand``
(called after each hand, for both seats, with a
:class:`~pokerai.agents.base.HandSummary`): each worker process holds its own
copy, which learns from the chunks of pairs that worker happens to take, so with
more than one worker its results depend on the workers' timing and are not
reproducible hand for hand. With one worker the caller's agent itself learns,
and keeps what it learnt after the match.

Agents see only ``Observation.from_state(state)`` for their own seat: never the
engine state, so never the opponent's hole cards or the undealt board while the
hand runs. After it, ``end_hand`` shows the opponent's cards only if the hand
ended at a showdown.

Swapped cards. With ``swap_cards`` each pair is played four times: the two
hands above, then the same two with the players' hole cards exchanged, so
each agent plays each hole-card pair from each position. The random numbers
still follow the seat (the position), so a card-blind agent repeats its
actions when only the cards change, and the cards' luck cancels too. Every
hand is still a hand with uniformly dealt cards, so the estimate stays
unbiased; it resolves edges that the luck of card-blind, high-variance play
(``random``'s all-in raises) buries in a two-hand duplicate.

Scores. ``mbb_per_hand`` is A's mean result in milli-big-blinds per hand. Its
95% confidence interval is the normal approximation over the per-pair sums,
``mean ± 1.96·sd/√pairs``, divided by the hands per pair (2, or 4 with
``swap_cards``) to put it per hand. ``plain_ci95`` is
the interval the same hands would give if they were treated as independent
(over the ``2·pairs`` single-hand results), for comparison.
"""

from __future__ import annotations

import math
import multiprocessing
import os
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from pokerai.agents.base import Agent, HandSummary, Observation
from pokerai.atomic import write_text_atomically
from pokerai.engine.history import to_acpc
from pokerai.engine.state import HUNLConfig, HUNLState
from pokerai.eval.aivat import AIVATConfig, AIVATSummary, hand_aivat, knows_policy, variance_reduction
from pokerai.eval.distributed import limit_threads, run_on_ray

Z95 = 1.959963984540054
"""The two-sided 95% quantile of the standard normal distribution."""

_SEED_BOUND = 2**63


@dataclass(frozen=True)
class Estimate:
    """A mean in mbb/hand with its 95% confidence interval ``(low, high)`` (normal approximation)."""

    mean: float
    low: float
    high: float

    @property
    def half_width(self) -> float:
        return (self.high - self.low) / 2


def mean_ci95(values: npt.ArrayLike, scale: float = 1.0) -> Estimate:
    """The mean of ``values`` times ``scale`` with a 95% interval ``± 1.96·sd/√n`` (sample sd, n-1).

    With one value (or none) the interval is unbounded on both sides except when
    there is nothing to estimate: no values give ``nan`` everywhere.
    """
    array = np.asarray(values, dtype=np.float64)
    n = array.size
    if n == 0:
        return Estimate(math.nan, math.nan, math.nan)
    mean = float(array.mean()) * scale
    if n == 1:
        return Estimate(mean, -math.inf, math.inf)
    half = Z95 * float(array.std(ddof=1)) / math.sqrt(n) * abs(scale)
    return Estimate(mean, mean - half, mean + half)


def json_number(value: float) -> float | None:
    """``value``, or None where JSON has no number for it (an unbounded interval from one sample)."""
    return value if math.isfinite(value) else None


def check_conservation(state: HUNLState) -> tuple[int, int]:
    """The returns of a finished hand, after checking that no chip was made or lost.

    Raises ``AssertionError`` (even under ``python -O``) if the hand is not over,
    the returns do not sum to 0, or the final stacks do not add up to the starting ones.
    """
    if not state.is_over:
        raise AssertionError(f"hand is not over: {state!r}")
    returns = state.returns()
    if returns[0] + returns[1] != 0 or sum(state.stacks) != sum(state.config.stacks):
        raise AssertionError(f"chips not conserved: returns {returns}, stacks {state.stacks}")
    if min(state.stacks) < 0:
        raise AssertionError(f"negative stack at the end of the hand: {state!r}")
    return returns


def play_hand(
    state: HUNLState,
    agents: Sequence[Agent],
    rngs: Sequence[np.random.Generator],
) -> HUNLState:
    """Play ``state`` to the end; ``agents[p]`` acts for player ``p`` with ``rngs[p]``.

    Each agent gets only its own observation. An illegal action is a ``ValueError`` naming the agent.
    """
    while state.to_act is not None:
        player = state.to_act
        agent = agents[player]
        action = agent.act(Observation.from_state(state), rngs[player])
        if action.player != player:
            raise ValueError(f"agent {agent.name!r} acted for player {action.player} as player {player}")
        try:
            state.apply(action)
        except ValueError as error:
            raise ValueError(f"agent {agent.name!r} chose an illegal action ({action}): {error}") from None
    return state


def acpc_name(name: str, fallback: str) -> str:
    """A player name usable in an ACPC ``STATE`` line (no ``:``, ``|``, whitespace)."""
    cleaned = "".join("_" if char in ":|" or char.isspace() else char for char in name)
    return cleaned or fallback


@dataclass(frozen=True)
class _PairChunk:
    """One chunk of pairs: ``a_results`` int64 [pairs, hands per pair] (A's chips each hand), STATE
    lines, and with AIVAT its estimates float64 [pairs, hands per pair] and the seconds they took."""

    start: int
    a_results: npt.NDArray[np.int64]
    log_lines: list[str]
    aivat_results: npt.NDArray[np.float64] | None = None
    aivat_seconds: float = 0.0


AIVAT_STREAM = 0xA1
"""Appended to a hand's seed words to seed the Generator of its AIVAT equities (independent of play)."""


def _play_pairs(
    agent_a: Agent,
    agent_b: Agent,
    config: HUNLConfig,
    seed: int,
    start: int,
    stop: int,
    mirror_randomness: bool,
    log: bool,
    swap_cards: bool = False,
    aivat: AIVATConfig | None = None,
) -> _PairChunk:
    hands_per_pair = 4 if swap_cards else 2
    results = np.zeros((stop - start, hands_per_pair), dtype=np.int64)
    aivat_results = np.zeros((stop - start, hands_per_pair)) if aivat is not None else None
    aivat_seconds = 0.0
    lines: list[str] = []
    names = (acpc_name(agent_a.name, "A"), acpc_name(agent_b.name, "B"))
    if names[0] == names[1]:
        names = (names[0] + "_A", names[1] + "_B")
    for row, pair in enumerate(range(start, stop)):
        pair_rng = np.random.default_rng([seed, pair])
        deck = pair_rng.permutation(52)[:9].tolist()
        button = pair & 1
        seat_seeds = pair_rng.integers(_SEED_BOUND, size=2 + 2 * hands_per_pair).tolist()
        decks = (deck, [*deck[2:4], *deck[0:2], *deck[4:]]) if swap_cards else (deck,)
        for column in range(hands_per_pair):
            cards, hand = decks[column // 2], column % 2
            agents = (agent_a, agent_b) if hand == 0 else (agent_b, agent_a)
            a_player = hand  # hand 1: A is player 0; hand 2: A is player 1 (same cards, same button)
            offset = 0 if mirror_randomness else 2 + 2 * column
            rngs = (
                np.random.Generator(np.random.PCG64(seat_seeds[offset])),
                np.random.Generator(np.random.PCG64(seat_seeds[offset + 1])),
            )
            for player in (0, 1):
                agents[player].begin_hand(player, button)
            state = play_hand(HUNLState.new(config, button, deck=cards), agents, rngs)
            returns = check_conservation(state)
            results[row, column] = returns[a_player]
            if aivat_results is not None:  # before end_hand: the policies as they were during the hand
                started = time.perf_counter()
                aivat_rng = np.random.default_rng([seed, pair, column, AIVAT_STREAM])
                aivat_results[row, column] = hand_aivat(state, a_player, agents, aivat_rng, aivat)
                aivat_seconds += time.perf_counter() - started
            for player in (0, 1):
                agents[player].end_hand(HandSummary.from_state(state, player))
            if log:
                by_player = names if hand == 0 else (names[1], names[0])
                lines.append(to_acpc(state, hand_number=hands_per_pair * pair + column, names=by_player))
    return _PairChunk(start, results, lines, aivat_results, aivat_seconds)


# ---------------------------------------------------------------------- parallel chunks

_WORKER_OBJECTS: tuple[Any, ...] = ()


def _init_worker(*objects: Any) -> None:
    global _WORKER_OBJECTS
    _WORKER_OBJECTS = objects
    limit_threads()


def _call_in_worker(function: Callable[..., Any], *args: Any) -> Any:
    return function(*_WORKER_OBJECTS, *args)


def _pool_context() -> multiprocessing.context.BaseContext:
    """Forked workers where that is safe: they share the agents' memory and start at once. A process
    that has loaded GNU OpenMP (scikit-learn's k-means in a search's buckets, torch) starts them from
    a fork server instead, since a child forked after OpenMP's threads started aborts."""
    try:
        with open("/proc/self/maps") as maps:
            openmp = "libgomp" in maps.read()
    except OSError:  # not Linux: the platform's own default
        return multiprocessing.get_context()
    return multiprocessing.get_context("forkserver" if openmp else "fork")


def run_chunks(
    function: Callable[..., Any],
    shared: tuple[Any, ...],
    total: int,
    before: tuple[Any, ...] = (),
    after: tuple[Any, ...] = (),
    *,
    workers: int = 1,
    on_progress: Callable[[int], None] | None = None,
    chunk_size: int | None = None,
    address: str | None = None,
) -> list[Any]:
    """``function(*shared, *before, start, stop, *after)`` over chunks of ``[0, total)``, in order.

    With ``workers`` > 1 the chunks run in a process pool and the ``shared`` objects
    (agents) are pickled to each worker once. With ``address`` they run as tasks on the Ray
    cluster there, at most ``workers`` at a time (``local`` starts a Ray on this machine;
    :func:`pokerai.eval.distributed.run_on_ray`). ``on_progress`` gets the number of items
    done so far. The chunks' results come back in index order.
    """
    if chunk_size is None:
        chunk_size = max(1, min(200, math.ceil(total / (max(workers, 1) * 16)), total))
    bounds = [(start, min(start + chunk_size, total)) for start in range(0, total, chunk_size)]
    done = 0
    if address is not None:

        def chunk_done(index: int) -> None:
            nonlocal done
            done += bounds[index][1] - bounds[index][0]
            if on_progress is not None:
                on_progress(done)

        calls = [(*before, start, stop, *after) for start, stop in bounds]
        return run_on_ray(function, shared, calls, address=address, workers=workers, on_done=chunk_done)
    if workers <= 1:
        results = []
        for start, stop in bounds:
            results.append(function(*shared, *before, start, stop, *after))
            done += stop - start
            if on_progress is not None:
                on_progress(done)
        return results
    ordered: list[Any] = [None] * len(bounds)
    with ProcessPoolExecutor(workers, _pool_context(), initializer=_init_worker, initargs=shared) as pool:
        futures: dict[Future[Any], int] = {
            pool.submit(_call_in_worker, function, *before, start, stop, *after): index
            for index, (start, stop) in enumerate(bounds)
        }
        pending = set(futures)
        while pending:
            finished, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in finished:
                index = futures[future]
                ordered[index] = future.result()
                done += bounds[index][1] - bounds[index][0]
            if on_progress is not None:
                on_progress(done)
    return ordered


# ---------------------------------------------------------------------- the match


@dataclass(frozen=True, kw_only=True)
class ScoredMatch:
    """What match results share: the run's settings and timing, the AIVAT estimates of each hand,
    and the read-outs; subclasses give ``estimate`` (mbb/hand with its CI) and ``hands``."""

    seed: int
    workers: int
    big_blind: int
    seconds: float
    aivat_results: npt.NDArray[np.float64] | None = field(default=None, repr=False)
    """The AIVAT estimate of each hand, float64, shaped like the plain results (None without AIVAT)."""
    aivat_seconds: float = 0.0
    """Seconds spent on the AIVAT estimates, summed over the workers."""
    on_ray: bool = False
    """Whether the chunks ran as tasks on a Ray cluster (``workers`` of them at a time)."""

    @property
    def estimate(self) -> Estimate:
        raise NotImplementedError

    @property
    def mbb_per_hand(self) -> float:
        return self.estimate.mean

    @property
    def ci95(self) -> tuple[float, float]:
        estimate = self.estimate
        return (estimate.low, estimate.high)

    @staticmethod
    def rate(hands: int, seconds: float) -> float:
        """Hands per second (infinite for a run too short to time)."""
        return hands / seconds if seconds > 0 else math.inf

    @staticmethod
    def aivat_summary(
        plain: npt.NDArray[Any], corrected: npt.NDArray[np.float64], scale: float
    ) -> AIVATSummary:
        """The AIVAT estimate of ``corrected`` (per unit, times ``scale``) with its 95% interval, and
        the share of the variance of ``plain``, the same units' plain results, that it removes."""
        estimate = mean_ci95(corrected, scale)
        removed = variance_reduction(plain, corrected)
        return AIVATSummary(estimate.mean, (estimate.low, estimate.high), removed)


@dataclass(frozen=True)
class DuplicateResult(ScoredMatch):
    """The outcome of a duplicate match, from agent A's side.

    ``a_results`` is int64 ``[pairs, hands per pair]``: A's chips won in each hand of
    each pair (2 hands, or 4 with swapped cards); ``aivat_results`` holds A's AIVAT estimates
    in the same shape.
    """

    a: str
    b: str
    pairs: int
    a_results: npt.NDArray[np.int64] = field(repr=False)

    @property
    def hands(self) -> int:
        return int(self.a_results.size)

    @property
    def hands_per_pair(self) -> int:
        return int(self.a_results.shape[1])

    @property
    def _scale(self) -> float:
        return 1000.0 / self.big_blind

    @property
    def estimate(self) -> Estimate:
        """mbb/hand with the duplicate 95% interval (over per-pair sums, scaled to per hand)."""
        return mean_ci95(self.a_results.sum(axis=1), self._scale / self.hands_per_pair)

    @property
    def plain_estimate(self) -> Estimate:
        """The same mean with the interval of all the hands taken as independent."""
        return mean_ci95(self.a_results.reshape(-1), self._scale)

    @property
    def hands_per_second(self) -> float:
        return self.rate(self.hands, self.seconds)

    @property
    def aivat(self) -> AIVATSummary | None:
        """The AIVAT estimate with its 95% interval over deal pairs, and the share of the duplicate
        estimate's variance it removes; None without AIVAT."""
        if self.aivat_results is None:
            return None
        return self.aivat_summary(
            self.a_results.sum(axis=1), self.aivat_results.sum(axis=1), self._scale / self.hands_per_pair
        )

    def to_json(self) -> dict[str, Any]:
        plain = self.plain_estimate
        aivat = self.aivat
        return {
            "a": self.a,
            "b": self.b,
            "pairs": self.pairs,
            "hands": self.hands,
            "swap_cards": self.hands_per_pair == 4,
            "mbb_per_hand": self.mbb_per_hand,
            "ci95": [json_number(bound) for bound in self.ci95],
            "plain_ci95": [json_number(plain.low), json_number(plain.high)],
            "seed": self.seed,
            "workers": self.workers,
            "ray": self.on_ray,
            "seconds": self.seconds,
            "hands_per_second": json_number(self.hands_per_second),
            "aivat": aivat.to_json() if aivat is not None else None,
            "aivat_seconds": self.aivat_seconds,
        }


def duplicate_match(
    agent_a: Agent,
    agent_b: Agent,
    pairs: int,
    *,
    seed: int = 0,
    workers: int = 1,
    config: HUNLConfig | None = None,
    log_path: str | os.PathLike[str] | None = None,
    on_progress: Callable[[int], None] | None = None,
    mirror_randomness: bool = True,
    names: tuple[str, str] | None = None,
    swap_cards: bool = False,
    aivat: AIVATConfig | bool | None = False,
    address: str | None = None,
) -> DuplicateResult:
    """Play ``pairs`` duplicate deal pairs of A against B: ``2·pairs`` hands, or ``4·pairs`` (``swap_cards``).

    ``workers`` > 1 plays chunks of pairs in that many processes (the agents are
    pickled to each once); the result is the same as with one, unless an agent learns from
    ``end_hand`` (module docstring). Solves stop on their iteration counts, never on a clock
    (each agent's ``drop_time_budgets()`` is called first), so the machine does not matter
    either. ``log_path`` receives every hand's ACPC ``STATE`` line in hand order, written atomically.
    ``on_progress`` gets the number of pairs done. ``names`` label A and B in the
    result (default: the agents' ``name``). ``aivat`` (an :class:`~pokerai.eval.aivat.AIVATConfig`,
    or True for the default one) also scores every hand with AIVAT; None does so when either
    agent's policy is known (it implements ``range_policy``); False, the default, does not.
    ``address`` plays the chunks as tasks on the Ray cluster there (``local``: a Ray started
    here), ``workers`` at a time, with the same result (:mod:`pokerai.eval.distributed`).
    """
    if isinstance(pairs, bool) or not isinstance(pairs, (int, np.integer)) or pairs <= 0:
        raise ValueError(f"the number of deal pairs must be a positive whole number, got {pairs!r}")
    if isinstance(workers, bool) or not isinstance(workers, (int, np.integer)) or workers <= 0:
        raise ValueError(f"the number of workers must be a positive whole number, got {workers!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"the seed must be a non-negative whole number, got {seed!r}")
    config = config if config is not None else HUNLConfig()
    if aivat is None:
        aivat = knows_policy(agent_a) or knows_policy(agent_b)
    aivat_config = (AIVATConfig() if aivat else None) if isinstance(aivat, bool) else aivat
    for agent in (agent_a, agent_b):
        agent.drop_time_budgets()
    started = time.perf_counter()
    chunks: list[_PairChunk] = run_chunks(
        _play_pairs,
        (agent_a, agent_b),
        int(pairs),
        (config, int(seed)),
        (mirror_randomness, log_path is not None, swap_cards, aivat_config),
        workers=int(workers),
        on_progress=on_progress,
        address=address,
    )
    seconds = time.perf_counter() - started
    results = np.concatenate([chunk.a_results for chunk in chunks])
    if log_path is not None:
        write_text_atomically(log_path, "".join(line + "\n" for chunk in chunks for line in chunk.log_lines))
    name_a, name_b = names if names is not None else (agent_a.name, agent_b.name)
    aivat_results = (
        np.concatenate([chunk.aivat_results for chunk in chunks if chunk.aivat_results is not None])
        if aivat_config is not None
        else None
    )
    return DuplicateResult(
        a=name_a,
        b=name_b,
        pairs=int(pairs),
        seed=int(seed),
        workers=int(workers),
        big_blind=config.big_blind,
        a_results=results,
        seconds=seconds,
        aivat_results=aivat_results,
        aivat_seconds=sum(chunk.aivat_seconds for chunk in chunks),
        on_ray=address is not None,
    )


__all__ = [
    "Z95",
    "DuplicateResult",
    "Estimate",
    "ScoredMatch",
    "check_conservation",
    "duplicate_match",
    "mean_ci95",
    "play_hand",
    "run_chunks",
]
