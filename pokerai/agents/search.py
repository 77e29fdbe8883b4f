"""The blueprint with real-time search on the river as a hold'em agent (``pipeline: river``).

A :class:`SearchAgent` is a :class:`~pokerai.agents.blueprint.BlueprintAgent`
that, on the river, re-solves the rest of the hand instead of reading its
policy network (:mod:`pokerai.search.river`). What it searches with is one
:class:`~pokerai.search.config.SearchConfig` (``configs/search_default.yaml``
writes out the defaults); below, ``river.budget_ms`` is that config's key.

1. both players' ranges at the current public state from the blueprint's
   (thresholded) probabilities along the history, by Bayes' rule;
2. the public river tree on the blueprint's bet menu, at most ``river.max_raises``
   further raises, solved by CFR+ for ``river.iterations`` iterations or until
   ``river.budget_ms`` milliseconds have passed;
3. the solved root strategy of the agent's hand blended with the blueprint's,
   weight ``min(iterations done / river.full_iterations, 1)`` -- a solve cut short by
   the time budget leans on the blueprint, and 0 iterations plays the blueprint.

Before the river it plays the blueprint exactly; search on the other streets is the
street pipeline's (:class:`~pokerai.agents.street.StreetSearchAgent`, ``pipeline: street``).
``allin="solve"`` answers an all-in off the menu as the blueprint agent does
(:mod:`pokerai.search.allin`), on every street. ``river_allin`` lets the river
search go all-in at any size (the blueprint's menu may cap all-in at a few pots):
the river subgame ends at showdowns and folds, so both players' answers to such an
all-in are solved there. ``safe`` adds the re-solving gadget. ``threshold``
and ``sample`` mean what they mean for the blueprint agent: the blueprint's
probabilities (in the beliefs and in the blend) are thresholded, and the agent
samples from the final probabilities or, with ``sample=False``, plays the most
likely slot. ``opponent_threshold`` (default None: ``threshold``) thresholds the
blueprint only where it models the opponent's actions in the beliefs of the river
solve (not in the all-in answer of ``allin="solve"``): 0 keeps every
action the network gives any probability, so an opponent who is not this
blueprint keeps a range of plausible hands instead of the few the thresholded
blueprint would have played that way.

``check_cap`` turns on an opponent model learnt during the match
(:class:`~pokerai.agents.opponent.RiverCheckCap`, fed by :meth:`end_hand`):
after ``cap_showdowns`` showdowns in which the opponent had opened the
river with a check, the river search keeps only a small part of its belief in
opponent hands stronger than any it has shown after such a check, whenever it
has checked again. Off by default; it changes nothing before those showdowns
and nothing once the opponent has shown a check with a near-best hand.
``responses`` turns on a second one
(:class:`~pokerai.agents.opponent.BetResponses`): how often the opponent
folded, called and raised when the agent made the first bet of the river, by
bet size and by whether it had checked first. Where the agent opens the river
betting, the solve then mixes into the opponent's answer to each bet the
strategy that folds its weakest hands, raises its strongest and calls with the
rest in those shares, trusted ``n / (n + response_prior)`` after ``n``
answers (:func:`~pokerai.search.responses.response_strategies`).

The solve depends only on the public state (module docstring of
:mod:`pokerai.search.river`), so the agent keeps the last few solutions keyed on
the public state: :meth:`action_probability` asked for all 1,326 hands at one
state (as local best response does) solves once.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt

from pokerai.abstraction.bets import slot_actions
from pokerai.agents.base import HandSummary, Observation
from pokerai.agents.blueprint import (
    BlueprintAgent,
    SolutionCache,
    load_blueprint,
    public_key,
    replay_observation,
)
from pokerai.agents.opponent import BetResponses, RiverCheckCap
from pokerai.config import config_to_dict
from pokerai.engine.state import Action, HUNLState
from pokerai.search.allin import load_solver_kernel, solver_ready
from pokerai.search.combos import COMBO_INDEX
from pokerai.search.config import SearchConfig, StreetSearch, load_search_config
from pokerai.search.river import RiverSolution, search_probabilities, solve_river, with_any_allin
from pokerai.search.subgame import blend
from pokerai.tabular.blueprint import AnyBlueprint

CACHE_SIZE = 8
"""Public states whose river solutions are kept."""

_Search = TypeVar("_Search", bound=StreetSearch)


class SearchAgent(BlueprintAgent):
    """The blueprint, re-solving on the river (module docstring).

    ``config`` (None: :class:`~pokerai.search.config.SearchConfig`'s defaults) is re-checked
    through :func:`~pokerai.search.config.load_search_config`, so a config built in code meets
    the same rules as one read from a file; the agent keeps the checked copy as :attr:`config`.
    Its pipeline must be ``river`` (which searches no street before the river).
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
        self.config = load_search_config(None if config is None else config_to_dict(config))
        """What the agent searches with (checked); :meth:`budget_solves` may fill in its budgets."""
        if self.config.pipeline != "river":
            raise ValueError("SearchAgent plays pipeline: river; StreetSearchAgent plays pipeline: street")
        self.check_model = RiverCheckCap(self.config.cap_showdowns) if self.config.check_cap else None
        """The opponent model of ``check_cap`` (learnt in :meth:`end_hand`), or None."""
        self.response_model = BetResponses(self.config.response_prior) if self.config.responses else None
        """The opponent model of ``responses`` (learnt in :meth:`end_hand`), or None."""
        bets = blueprint.game.bets
        self._river_bets = with_any_allin(bets) if self.config.river_allin else bets
        self._solutions: SolutionCache[RiverSolution] = SolutionCache(CACHE_SIZE)
        self.solves = 0
        """River solves run so far (cache misses)."""
        self.searches_unready = 0
        """Decisions the blueprint played because the solver was not ready within the search's budget."""
        self._waited_s = 0.0

    def budget_solves(self, seconds: float) -> None:
        """Give every solve without a time budget one of ``seconds``: the all-in answer and the river
        search (whose budget is ``None`` only when asked for)."""
        super().budget_solves(seconds)
        milliseconds = 1000.0 * seconds

        def budgeted(search: _Search) -> _Search:
            return (
                search
                if search.budget_ms is not None
                else dataclasses.replace(search, budget_ms=milliseconds)
            )

        config = self.config
        self.config = dataclasses.replace(
            config,
            preflop=budgeted(config.preflop),
            flop=budgeted(config.flop),
            turn=budgeted(config.turn),
            river=budgeted(config.river),
        )

    def warm_up(self) -> None:
        """The blueprint agent's warm-up, and the CFR+ kernel that every search uses."""
        super().warm_up()
        load_solver_kernel()

    def _solver_ready(self, observation: Observation) -> bool:
        """Whether the search at ``observation``'s street may run: always without a time budget; with
        one, when the solver's first-time work in this process is done within it
        (:func:`solver_ready`). The wait is taken off the search's budget (:meth:`_left_of`);
        ``searches_unready`` counts the decisions left to the blueprint."""
        self._waited_s = 0.0
        budget_ms = self._budget_ms_of(observation)
        if budget_ms is None:
            return True
        started = time.perf_counter()
        ready = solver_ready(budget_ms / 1000.0)
        self._waited_s = time.perf_counter() - started
        self.searches_unready += not ready
        return ready

    def _budget_ms_of(self, observation: Observation) -> float | None:
        """The time budget of the search at ``observation``'s street (None: none, or no search there)."""
        search = self._search_of(observation)
        return None if search is None else search.budget_ms

    def _search_of(self, observation: Observation) -> StreetSearch | None:
        """The config of the search at ``observation``'s street, or None where the blueprint plays it."""
        search = self.config.street(observation.street)
        return search if search.iterations > 0 else None

    def _left_of(self, budget_ms: float | None) -> float | None:
        """Seconds of ``budget_ms`` left after the wait of the last :meth:`_solver_ready`, or None."""
        return None if budget_ms is None else max(budget_ms / 1000.0 - self._waited_s, 0.0)

    def end_hand(self, summary: HandSummary) -> None:
        """Learn from the finished hand: with ``check_cap`` its showdown (:class:`RiverCheckCap`),
        with ``responses`` the answer to the agent's first river bet (:class:`BetResponses`)."""
        if self.check_model is not None:
            self.check_model.observe(summary)
        if self.response_model is not None:
            self.response_model.observe(summary)

    @property
    def opponent_cap(self) -> float | None:
        """The river strength cap of the opponent's check that the river search uses, or None."""
        return None if self.check_model is None else self.check_model.cap

    def _cached(
        self,
        observation: Observation,
        solve: Callable[[HUNLState], RiverSolution],
        model: Any = None,
    ) -> RiverSolution:
        """The solution at ``observation``'s public state (and ``model``, what the solve knows of
        the opponent): from the cache, or ``solve`` of its replay."""
        solution, solved = self._solutions.get(
            (public_key(observation), model), lambda: solve(replay_observation(observation))
        )
        self.solves += solved
        return solution

    def river_solution(self, observation: Observation) -> RiverSolution:
        """The solved river subgame at ``observation``'s public state (cached; hole cards unused)."""
        cap = self.opponent_cap
        responses = None if self.response_model is None else self.response_model.snapshot
        solution = self._cached(
            observation,
            lambda state: solve_river(
                self.blueprint,
                state,
                iterations=self.config.river.iterations,
                time_budget_s=self._left_of(self.config.river.budget_ms),
                threshold=self.threshold,
                max_raises=self.config.river.max_raises,
                safe=self.config.safe_on(3),
                bets=self._river_bets,
                opponent_threshold=self.config.opponent_threshold,
                opponent_cap=cap,
                opponent_responses=responses,
            ),
            (cap, responses),
        )
        return solution

    def decision(self, observation: Observation) -> tuple[npt.NDArray[np.float64], list[Action | None]]:
        """The probabilities float64 ``[num_slots]`` it plays (0 on illegal slots) and each slot's action.

        The blueprint's on the streets the config does not search (``iterations`` 0), the searched
        ones elsewhere (module docstring). With ``allin="solve"`` an all-in off the menu is answered
        by its solved all-in game on every street, not by the street's search.
        """
        probabilities, actions = super().decision(observation)
        search = self._search_of(observation)
        if search is None or self.answers_offtree_allin(observation):
            return probabilities, actions
        if not self._solver_ready(observation):
            return probabilities, actions
        solution = self.river_solution(observation)
        hole_cards = observation.hole_cards
        searched = search_probabilities(probabilities, solution, hole_cards, search.full_iterations)
        if self.config.river_allin and actions[self._game.bets.all_in_slot] is None:
            # The search's menu may hold an all-in that the blueprint's lacks here.
            _, actions = slot_actions(replay_observation(observation), self._river_bets)
        legal = np.array([action is not None for action in actions])
        assert not np.any(searched[~legal] > 0), "the subgame's root offers only legal slots"
        return searched / searched.sum(), actions

    def range_decision(
        self, observation: Observation, hands: npt.NDArray[np.int64]
    ) -> tuple[npt.NDArray[np.float64], list[Action | None]]:
        """:meth:`decision` holding each of ``hands`` (int64 ``[H, 2]``): float64 ``[H, num_slots]`` and
        each slot's action. One blueprint call for all the hands and one solve (cached) for the public
        state, then the same blend per hand as :meth:`decision`."""
        probabilities, actions = super().range_decision(observation, hands)
        search = self._search_of(observation)
        if search is None or self.answers_offtree_allin(observation):
            return probabilities, actions
        if not self._solver_ready(observation):
            return probabilities, actions
        combos = COMBO_INDEX[hands[:, 0], hands[:, 1]]
        solution = self.river_solution(observation)
        if self.config.river_allin and actions[self._game.bets.all_in_slot] is None:
            # The search's menu may hold an all-in that the blueprint's lacks here.
            _, actions = slot_actions(replay_observation(observation), self._river_bets)
        local = solution.strategy[combos]
        searched = blend(probabilities, local, solution.iterations, search.full_iterations)
        legal = np.array([action is not None for action in actions])
        assert not np.any(searched[:, ~legal] > 0), "the subgame's root offers only legal slots"
        return searched / searched.sum(axis=1, keepdims=True), actions


def load_search_agent(path: str, config: SearchConfig | None = None, **options: Any) -> SearchAgent:
    """A :class:`SearchAgent` on the blueprint folder (or ``policy.pt``) at ``path``; ``config`` and
    ``options`` (the blueprint agent's keywords) as for it.

    Raises ``ValueError`` (a ``CheckpointError`` for file problems) in one sentence naming the bad value.
    """
    return SearchAgent(load_blueprint(path), config, **options)


__all__ = [
    "CACHE_SIZE",
    "SearchAgent",
    "load_search_agent",
]
