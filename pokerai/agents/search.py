"""The blueprint with a street search at every postflop decision as a hold'em agent.

At each decision on a searched street the agent re-solves the street from its start
(:func:`~pokerai.search.street.solve_street`) and plays ``(1 − b)·blueprint + b·solved`` with
``b = min(iterations done / full_iterations, 1)``, thresholded as the blueprint is. Its own range
at the street's start is the product of the probabilities it played for the actions it took, for
every combination; its earlier strategies on the same street are frozen in the solve. The
opponent's range comes from the blueprint thresholded at ``opponent_threshold``, each action
floored at ``floor``. The preflop, and a street without search, is the blueprint's (an all-in off
the menu answered as ``allin`` says). What it searches with is one
:class:`~pokerai.search.config.SearchConfig` (``configs/search_default.yaml``).

Everything depends only on the public state: the played strategy at a public state is computed
for all 1,326 combinations at once and kept for the hand (:meth:`SearchAgent.policy`), so earlier
decisions' strategies are at hand for later ones, and a local best response or AIVAT that asks
all hands at a state gets what was played there, for one solve.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections import deque
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from pokerai.abstraction.bets import slot_actions
from pokerai.agents.base import Observation
from pokerai.agents.blueprint import (
    BlueprintAgent,
    SolutionCache,
    default_threshold,
    load_blueprint,
    replay_observation,
)
from pokerai.config import config_to_dict
from pokerai.engine.state import Action, ActionKind, HUNLState, Street
from pokerai.games.holdem import Blueprint
from pokerai.search.allin import WARM_UP_DECK, load_solver_kernel
from pokerai.search.beliefs import (
    combo_probabilities,
    history_prefix,
    opponent_range,
    threshold_probabilities,
)
from pokerai.search.buckets import load_clustering
from pokerai.search.combos import COMBO_INDEX, NUM_COMBOS, combo_index, combos_holding
from pokerai.search.config import STREETS, FlopSearch, SearchConfig, TurnSearch, load_search_config
from pokerai.search.rollouts import LeafSettings
from pokerai.search.street import StreetOptions, avoid_hugepage_stalls, solve_street
from pokerai.search.subgame import blend
from pokerai.search.tree import Exact, action_label
from pokerai.solvers.policy import normalize_rows_or

LEAF_GROUPS_PER_DOUBLING = 0.5
"""Leaves whose stack-to-pot ratios lie within a factor of 4 share one rollout (:class:`LeafSettings`)."""
POLICY_CACHE_SIZE = 256
"""Public states whose played strategies are kept (a hand has a few dozen at most)."""
STATS_KEPT = 10_000
"""Searches whose :class:`SearchStats` are kept (the newest), so that a long match holds bounded memory."""
WARM_UP_ITERATIONS = 2
"""Iterations of each street's solve in :meth:`SearchAgent.warm_up`: enough to run every kernel once."""

_WARMED: set[int] = set()  # the streets whose search has run in this process (SearchAgent.warm_up)
_WARM_LOCK, _WARM_SOLVES = threading.Lock(), threading.Lock()
_warm_thread: threading.Thread | None = None
_warm_errors: list[BaseException] = []


@dataclass(frozen=True)
class SearchStats:
    """What the last search of a decision cost: its street, iterations, seconds (leaves included)."""

    street: int
    iterations: int
    seconds: float
    leaf_seconds: float
    num_nodes: int
    num_hands: int


class SearchAgent(BlueprintAgent):
    """Searches every decision of the streets its config searches (module docstring).

    ``config`` (None: the defaults) is re-checked by :func:`~pokerai.search.config.load_search_config`.
    A searched street puts every action taken, at its size, into its tree. ``threshold``,
    ``allin`` and ``allin_budget_ms`` are the blueprint agent's.
    """

    name = "search"

    def __init__(
        self,
        blueprint: Blueprint,
        config: SearchConfig | None = None,
        *,
        threshold: float = 0.0,
        allin: str = "policy",
        allin_budget_ms: float | None = None,
    ) -> None:
        super().__init__(blueprint, threshold=threshold, allin=allin, allin_budget_ms=allin_budget_ms)
        avoid_hugepage_stalls()
        self.config = load_search_config(None if config is None else config_to_dict(config))
        """What the agent searches with (checked); :meth:`budget_solves` may fill in its budgets."""
        self._policies: SolutionCache[npt.NDArray[np.float64]] = SolutionCache(POLICY_CACHE_SIZE)
        self._unready: set[tuple[Any, ...]] = set()
        self.stats: deque[SearchStats] = deque(maxlen=STATS_KEPT)
        """One entry per search run (cache misses), oldest first: the last :data:`STATS_KEPT`."""
        self.searches_run = 0  # searches run so far (cache misses), all of them
        self.searches_unready = 0  # decisions the blueprint played while the search was warming up

    def street_options(self, street: int) -> StreetOptions:
        """How the subgame of the searched ``street`` is built, from the config."""
        search = self.config.street(street)
        assert search is not None, "the preflop is not searched"
        leaf = LeafSettings()
        buckets = None
        if isinstance(search, FlopSearch | TurnSearch):
            if isinstance(search, FlopSearch):
                cards = search.turn_cards
            else:
                cards = 48 if search.river_cards is None else search.river_cards
            leaf = LeafSettings(
                cards=cards,
                rollout_raises=search.rollout_raises,
                bias=search.bias,
                groups_per_doubling=LEAF_GROUPS_PER_DOUBLING,
            )
            buckets = search.buckets
        return StreetOptions(search.max_raises, self.config.safe, leaf, self.threshold, buckets=buckets)

    def warm_up(self) -> None:
        """Do this process's first-time work now: the blueprint agent's warm-up, the CFR+ kernel, k-means
        where a street uses buckets, and a solve of :data:`WARM_UP_ITERATIONS` iterations of each
        searched street on a fixed deal. Safe in a thread while the agent plays: it touches none of
        the agent's policies, and timed searches wait for it (:meth:`_warm_within`)."""
        super().warm_up()
        load_solver_kernel()
        if any(
            search.iterations > 0 and search.buckets is not None
            for search in (self.config.flop, self.config.turn)
        ):
            load_clustering()
        streets = [street for street in (Street.FLOP, Street.TURN, Street.RIVER) if self.searches(street)]
        with _WARM_SOLVES:  # one warm-up at a time: pokerai play's thread and a decision's may both start one
            if set(streets) <= _WARMED:
                return
            state = HUNLState.new(self._game.config, 0, deck=WARM_UP_DECK)
            for street in streets:
                while state.street < street:
                    state = state.after(ActionKind.CALL)  # the blinds complete, then checks
                hands = np.random.default_rng(street).random((2, NUM_COMBOS))  # distinct: no k-means ties
                hands[:, combos_holding(state.board)] = 0.0
                solve_street(
                    self.blueprint, state, hands[0], hands[1], {}, self.street_options(street),
                    iterations=WARM_UP_ITERATIONS,
                )  # fmt: skip
            _WARMED.update(streets)  # all at once: no search at the table runs beside one of these

    def searches(self, street: int) -> bool:
        """Whether the agent searches ``street``."""
        return self.config.searches(street)

    def begin_hand(self, player: int, button: int) -> None:
        """Forget the last hand's policies: within a hand a public state keeps the policy it was first
        given (searched, or the blueprint's while the solver was not ready), so that what AIVAT asks
        after the hand is what the agent played; the next hand searches afresh."""
        super().begin_hand(player, button)
        self._policies = SolutionCache(POLICY_CACHE_SIZE)
        self._unready.clear()

    def forget_unready(self) -> None:
        """Forget the policies given while the solver was not ready, so that the next question at those
        states searches: for a tool that asks about spots outside a hand (the analyzer)."""
        for key in self._unready:
            self._policies.discard(key)
        self._unready.clear()

    def _searches_now(self, street: int) -> bool:
        """Whether the agent searches ``street`` now: always without a time budget, with one once warm
        (:meth:`_warm_within`); ``searches_unready`` counts the decisions left to the blueprint."""
        search = self.config.street(street)
        if search is None or search.iterations == 0:
            return False
        if search.budget_ms is None:
            return True
        ready = self._warm_within(street, search.budget_ms / 1000.0)
        self.searches_unready += not ready
        return ready

    def _warm_within(self, street: int, seconds: float) -> bool:
        """Whether ``street``'s search has run in this process (:meth:`warm_up`, started in a daemon thread
        if none runs), waiting at most ``seconds``; a solve cut short by first-time work is never kept."""
        global _warm_thread
        if street not in _WARMED:
            deadline = time.perf_counter() + seconds
            with _WARM_LOCK:
                if _warm_thread is None or not _warm_thread.is_alive():
                    _warm_thread = threading.Thread(target=self._warm_up_logged, daemon=True)
                    _warm_thread.start()
            _warm_thread.join(max(deadline - time.perf_counter(), 0.0))
            if _warm_errors:
                raise RuntimeError("warming up the search failed") from _warm_errors.pop()
        return street in _WARMED

    def _warm_up_logged(self) -> None:
        try:
            self.warm_up()
        except BaseException as error:  # raised in the deciding thread by _warm_within
            _warm_errors.append(error)

    def drop_time_budgets(self) -> None:
        """Stop every street's solve, and the all-in answer's, on its iteration count."""
        super().drop_time_budgets()
        changes = {name: dataclasses.replace(getattr(self.config, name), budget_ms=None) for name in STREETS}
        self.config = dataclasses.replace(self.config, **changes)

    def budget_solves(self, seconds: float) -> None:
        """Give every searched street without a time budget one of ``seconds`` (and the all-in answer)."""
        super().budget_solves(seconds)
        changes: dict[str, Any] = {}
        for name in STREETS:
            search = getattr(self.config, name)
            if search.iterations > 0 and search.budget_ms is None:
                changes[name] = dataclasses.replace(search, budget_ms=1000.0 * seconds)
        self.config = dataclasses.replace(self.config, **changes)

    # ------------------------------------------------------------------ the played strategy

    def blueprint_rows(self, state: HUNLState) -> npt.NDArray[np.float64]:
        """The thresholded blueprint float64 ``[1326, num_slots]`` at ``state`` (0 rows off the board)."""
        rows = np.zeros((NUM_COMBOS, self.blueprint.game.bets.num_slots))
        live = np.flatnonzero(~combos_holding(state.board))
        _, _, probabilities = combo_probabilities(self.blueprint, state, live, self.threshold)
        rows[live] = probabilities
        return rows

    def policy(self, state: HUNLState) -> npt.NDArray[np.float64]:
        """What the agent plays at the public ``state`` for each combination: float64 ``[1326, num_slots]``.

        Kept by public state; hole cards in ``state`` are never read.
        """
        key = (state.config, state.button, tuple(state.board), tuple(state.history))
        policy, _ = self._policies.get(key, lambda: self._solve(state, key))
        return policy

    def own_range(
        self, state: HUNLState
    ) -> tuple[npt.NDArray[np.float64], dict[int, npt.NDArray[np.float64]]]:
        """The range of the player to act at ``state``'s street start, and its strategies on this street.

        The range, float64 ``[1326]``, is the product over that player's actions before the
        street of the probability its played strategy (:meth:`policy`) gave the action, 0 for
        combinations that hold a board card. The second value maps the history index of each
        of its actions on this street to the strategy it played there.
        """
        player = state.to_act
        if player is None:
            raise ValueError("the hand is over, so no player has a range to act with")
        start = state.street_starts[state.street]
        own = np.ones(NUM_COMBOS)
        played: dict[int, npt.NDArray[np.float64]] = {}
        for index, action in enumerate(state.history):
            if action.player != player:
                continue
            before = history_prefix(state, index)
            rows = self.policy(before)
            if index >= start:
                played[index] = rows
                continue
            label = action_label(before, action, self.blueprint.game.bets)
            if isinstance(label, Exact | str):
                raise ValueError(f"the agent's own action {action} is not on its menu")
            own *= rows[:, label]
        own[combos_holding(state.board)] = 0.0
        return own, played

    def _solve(self, state: HUNLState, key: tuple[Any, ...]) -> npt.NDArray[np.float64]:
        """The policy at ``state`` (public ``key``): the blueprint's, or the street's solve blended in."""
        blueprint_rows = self.blueprint_rows(state)
        search = self.config.street(state.street)
        if search is None or search.iterations == 0:
            return blueprint_rows
        if not self._searches_now(state.street):
            self._unready.add(key)
            return blueprint_rows
        searcher = state.to_act
        assert searcher is not None
        own, played = self.own_range(state)
        if own.sum() <= 0:  # a hand the agent could not have played this way: the blueprint then
            return blueprint_rows
        opponent = opponent_range(
            self.blueprint, state, 1 - searcher, threshold=self.config.opponent_threshold,
            floor=self.config.floor,
        )  # fmt: skip
        started = time.perf_counter()
        solution = solve_street(
            self.blueprint, state, own, opponent, played, self.street_options(state.street),
            iterations=search.iterations,
            time_budget_s=None if search.budget_ms is None else search.budget_ms / 1000.0,
        )  # fmt: skip
        self.searches_run += 1
        self.stats.append(
            SearchStats(
                int(state.street),
                solution.iterations,
                time.perf_counter() - started,
                solution.leaf_seconds,
                solution.num_nodes,
                solution.num_hands,
            )
        )
        solved = solution.strategy.sum(axis=1) > 0
        rows = blueprint_rows.copy()
        mixed = blend(
            blueprint_rows[solved], solution.strategy[solved], solution.iterations, search.full_iterations
        )
        rows[solved] = threshold_probabilities(mixed, self.threshold)
        return rows

    # ------------------------------------------------------------------ the agent interface

    def decision(self, observation: Observation) -> tuple[npt.NDArray[np.float64], list[Action | None]]:
        if not self.searches(observation.street):
            return super().decision(observation)
        state = replay_observation(observation)
        mask, actions = slot_actions(state, self._game.bets)
        row = self.policy(state)[combo_index(*observation.hole_cards)] * mask
        total = row.sum()
        if total <= 0:
            return super().decision(observation)
        return row / total, actions

    def range_decision(
        self, observation: Observation, hands: npt.NDArray[np.int64]
    ) -> tuple[npt.NDArray[np.float64], list[Action | None]]:
        if not self.searches(observation.street):
            return super().range_decision(observation, hands)
        state = replay_observation(observation)
        mask, actions = slot_actions(state, self._game.bets)
        rows = self.policy(state)[COMBO_INDEX[hands[:, 0], hands[:, 1]]] * mask
        return normalize_rows_or(rows, mask / max(int(mask.sum()), 1)), actions


def load_search_agent(path: str, config: SearchConfig | None = None, **options: Any) -> SearchAgent:
    """A :class:`SearchAgent` on the blueprint folder (or ``policy.pt``) at ``path``; ``config`` and
    ``options`` (the blueprint agent's keywords) as for it.

    A ``threshold`` of None is the default of the blueprint's kind
    (:func:`~pokerai.agents.blueprint.default_threshold`).

    Raises ``ValueError`` (a ``CheckpointError`` for file problems) in one sentence naming the bad value.
    """
    blueprint = load_blueprint(path)
    if options.get("threshold", 0.0) is None:
        options = {**options, "threshold": default_threshold(blueprint)}
    return SearchAgent(blueprint, config, **options)


__all__ = [
    "LEAF_GROUPS_PER_DOUBLING",
    "POLICY_CACHE_SIZE",
    "STATS_KEPT",
    "WARM_UP_ITERATIONS",
    "SearchAgent",
    "SearchStats",
    "load_search_agent",
]
