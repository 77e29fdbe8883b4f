"""The blueprint with a street search at every decision (:mod:`pokerai.search.street`) as a hold'em agent.

At each decision on a searched street the agent re-solves the street from its
start (:func:`~pokerai.search.street.solve_street`) and plays
``(1 − b)·blueprint + b·solved`` with ``b = min(iterations done / full_iterations, 1)``.
Its own range at the street's start is the product of the probabilities it
played for the actions it took, for every combination; the strategies it played
earlier on the same street are frozen in the solve. On a street without search
it plays the blueprint (thresholded at ``threshold``). With ``responses`` it learns how the
opponent answers its first river bet (with ``response_streets: postflop``, its first bet of
each of the flop, turn and river; with ``response_raises``, also its raises over the opponent's
bets and raises; :class:`~pokerai.agents.opponent.BetResponses`, from
:meth:`StreetSearchAgent.end_hand`) and the solves of those streets mix that model into the
opponent's answers.

Everything depends only on the public state: the played strategy at a public
state is computed for all 1,326 combinations at once and kept
(:meth:`StreetSearchAgent.policy`), so the strategies of earlier decisions are at
hand when a later one needs them, and a local best response that asks all
hands at one state costs one solve.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from pokerai.abstraction.bets import slot_actions
from pokerai.agents.base import HandSummary, Observation
from pokerai.agents.blueprint import BlueprintAgent, SolutionCache, load_blueprint, replay_observation
from pokerai.agents.opponent import Aggression, BetResponses
from pokerai.config import config_to_dict
from pokerai.engine.state import Action, HUNLState, Street
from pokerai.search.allin import load_solver_kernel
from pokerai.search.beliefs import combo_probabilities
from pokerai.search.combos import COMBO_INDEX, NUM_COMBOS, combo_index, combos_holding
from pokerai.search.config import STREETS, FlopSearch, SearchConfig, TurnSearch, load_search_config
from pokerai.search.responses import PathFloors, ResponseCounts
from pokerai.search.street import (
    CONTINUATIONS,
    Exact,
    LeafSettings,
    action_label,
    avoid_hugepage_stalls,
    opponent_range,
    solve_street,
)
from pokerai.search.subgame import blend
from pokerai.tabular.blueprint import AnyBlueprint

RESPONSE_STREETS = (Street.FLOP, Street.TURN, Street.RIVER)
"""The streets whose first bet's answers ``response_streets: postflop`` learns."""
LEAF_GROUPS_PER_DOUBLING = 0.5
"""Leaves whose stack-to-pot ratios lie within a factor of 4 share one rollout (:class:`LeafSettings`)."""
POLICY_CACHE_SIZE = 256
"""Public states whose played strategies are kept (a hand has a few dozen at most)."""


@dataclass(frozen=True)
class SearchStats:
    """What the last search of a decision cost: its street, iterations, seconds (leaves included)."""

    street: int
    iterations: int
    seconds: float
    leaf_seconds: float
    num_nodes: int
    num_hands: int


class StreetSearchAgent(BlueprintAgent):
    """Searches every decision of the streets its config searches (module docstring).

    ``config`` is a :class:`~pokerai.search.config.SearchConfig` with ``pipeline: street``
    (None: the default config with the street pipeline, which searches the river only). A
    street whose ``iterations`` is 0 plays the blueprint, answering off-menu all-ins as
    ``allin`` says; a searched street puts every action taken, at its size, into its tree.
    ``sample``, ``threshold``, ``allin`` and ``allin_budget_ms`` are the blueprint agent's.
    """

    name = "search"

    def __init__(
        self,
        blueprint: AnyBlueprint,
        config: SearchConfig | None = None,
        *,
        sample: bool = True,
        threshold: float = 0.0,
        allin: str = "policy",
        allin_budget_ms: float | None = None,
    ) -> None:
        super().__init__(
            blueprint, sample=sample, threshold=threshold, allin=allin, allin_budget_ms=allin_budget_ms
        )
        avoid_hugepage_stalls()
        if config is None:
            config = SearchConfig(pipeline="street")
        # Through the loader, so that a config built in code meets the rules a file does.
        self.config = load_search_config(config_to_dict(config))
        if self.config.pipeline != "street":
            raise ValueError("StreetSearchAgent plays pipeline: street; SearchAgent plays pipeline: river")
        opponent = self.config.opponent_threshold
        self.opponent_threshold = self.threshold if opponent is None else float(opponent)
        modelled = (Street.RIVER,) if self.config.response_streets == "river" else RESPONSE_STREETS
        self.response_models = (
            {
                street: BetResponses(self.config.response_prior, street, raises=self.config.response_raises)
                for street in modelled
            }
            if self.config.responses
            else {}
        )
        """The opponent models of ``responses`` by street (learnt in :meth:`end_hand`); empty without it."""
        self.aggression = (
            Aggression(
                self.config.response_prior,
                showdowns=self.config.aggression_showdowns,
                overbets=self.config.aggression_overbets,
            )
            if self.config.aggression
            else None
        )
        """With ``aggression``: how often the opponent raises, for the floors on its path actions."""
        self._policies: SolutionCache[npt.NDArray[np.float64]] = SolutionCache(POLICY_CACHE_SIZE)
        self.stats: list[SearchStats] = []
        """One entry per search run (cache misses), oldest first."""

    def leaf_settings(self, street: int) -> LeafSettings:
        """How the depth-limited leaves of ``street`` are valued (flop and turn; the default elsewhere)."""
        search = self.config.street(street)
        if isinstance(search, FlopSearch):
            cards, leaves = search.turn_cards, search.leaves
        elif isinstance(search, TurnSearch):
            cards, leaves = (48 if search.river_cards is None else search.river_cards), search.leaves
        else:
            return LeafSettings()
        continuations = CONTINUATIONS if leaves == "depth_limited" else ("blueprint",)
        return LeafSettings(
            continuations, cards, search.rollout_raises, search.bias, LEAF_GROUPS_PER_DOUBLING
        )

    def warm_up(self) -> None:
        """The blueprint agent's warm-up (its network's first decision, no search), and the CFR+ kernel
        that every search uses. Safe to run in a thread while the agent plays: it touches no solve."""
        super().warm_up()
        load_solver_kernel()

    def searches(self, street: int) -> bool:
        """Whether the agent searches ``street``."""
        return self.config.street(street).iterations > 0

    def budget_solves(self, seconds: float) -> None:
        """Give every searched street without a time budget one of ``seconds`` (and the all-in answer)."""
        super().budget_solves(seconds)
        changes: dict[str, Any] = {}
        for street, name in enumerate(STREETS):
            search = self.config.street(street)
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
        floors = None if self.aggression is None else self.aggression.path_floors()
        key = (
            state.config, state.button, tuple(state.board), tuple(state.history), self._responses(), floors
        )  # fmt: skip
        policy, _ = self._policies.get(key, lambda: self._solve(state, floors))
        return policy

    def _prefix(self, state: HUNLState, length: int) -> HUNLState:
        """``state``'s hand after its first ``length`` actions (same deal)."""
        replay = HUNLState.new(state.config, state.button, deck=state.deal)
        for action in state.history[:length]:
            replay.apply(action)
        return replay

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
            before = self._prefix(state, index)
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

    def _solve(self, state: HUNLState, path_floors: PathFloors | None) -> npt.NDArray[np.float64]:
        """The policy at ``state``: the blueprint's, or the street's solve blended into it, with
        ``path_floors`` the learnt floors the policy is kept under (None without ``aggression``)."""
        blueprint_rows = self.blueprint_rows(state)
        search = self.config.street(state.street)
        if search.iterations == 0:
            return blueprint_rows
        searcher = state.to_act
        assert searcher is not None
        own, played = self.own_range(state)
        if own.sum() <= 0:  # a hand the agent could not have played this way: the blueprint then
            return blueprint_rows
        opponent = opponent_range(
            self.blueprint, state, 1 - searcher, threshold=self.opponent_threshold, floor=self.config.floor
        )
        started = time.perf_counter()
        solution = solve_street(
            self.blueprint, state, own, opponent, played,
            iterations=search.iterations,
            time_budget_s=None if search.budget_ms is None else search.budget_ms / 1000.0,
            max_raises=search.max_raises, safe=self.config.safe_on(state.street),
            leaf=self.leaf_settings(state.street),
            threshold=self.threshold, buckets=getattr(search, "buckets", None),
            opponent_responses=self._responses_on(state.street), path_floor=self.config.path_floor,
            path_floors=path_floors,
        )  # fmt: skip
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
        rows[solved] = blend(
            blueprint_rows[solved], solution.strategy[solved], solution.iterations, search.full_iterations
        )
        return rows

    def _responses(self) -> tuple[ResponseCounts, ...]:
        """What ``responses`` has learnt, a snapshot per modelled street: it changes only between hands."""
        return tuple(model.snapshot for model in self.response_models.values())

    def _responses_on(self, street: int) -> ResponseCounts | None:
        """What ``responses`` has learnt of the answers to ``street``'s first bet (None: not modelled)."""
        model = self.response_models.get(Street(street))
        return None if model is None else model.snapshot

    def end_hand(self, summary: HandSummary) -> None:
        """Learn from the finished hand: the answers to the agent's bets (``responses``), and how
        often the opponent raises (``aggression``)."""
        super().end_hand(summary)
        for model in self.response_models.values():
            model.observe(summary)
        if self.aggression is not None:
            self.aggression.observe(summary)

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
        totals = rows.sum(axis=1, keepdims=True)
        uniform = mask / max(int(mask.sum()), 1)
        return np.where(totals > 0, rows / np.where(totals > 0, totals, 1.0), uniform), actions


__all__ = [
    "LEAF_GROUPS_PER_DOUBLING",
    "RESPONSE_STREETS",
    "SearchStats",
    "StreetSearchAgent",
    "load_street_search_agent",
]


def load_street_search_agent(
    path: str, config: SearchConfig | None = None, **options: Any
) -> StreetSearchAgent:
    """A :class:`StreetSearchAgent` on the blueprint folder (or ``policy.pt``) at ``path``."""
    return StreetSearchAgent(load_blueprint(path), config, **options)
