"""The blueprint with real-time search on the river (and optionally the turn) as a hold'em agent.

A :class:`SearchAgent` is a :class:`~pokerai.agents.blueprint.BlueprintAgent`
that, on the river, re-solves the rest of the hand instead of reading its
policy network (:mod:`pokerai.search.hunl`):

1. both players' ranges at the current public state from the blueprint's
   (thresholded) probabilities along the history, by Bayes' rule;
2. the public river tree on the blueprint's bet menu, at most ``max_raises``
   further raises, solved by CFR+ for ``iterations`` iterations or until
   ``budget_ms`` milliseconds have passed;
3. the solved root strategy of the agent's hand blended with the blueprint's,
   weight ``min(iterations done / full_iterations, 1)`` -- a solve cut short by
   the time budget leans on the blueprint, and 0 iterations plays the blueprint.

Before the river it plays the blueprint exactly, unless ``turn`` is set: then
each turn decision is a depth-limited solve to the end of the turn
(:func:`pokerai.search.turn.solve_turn`: leaves where the opponent picks one of
four continuation strategies, valued by blueprint rollouts over
``river_cards`` sampled river cards), blended the same way; ``turn_budget_ms``
bounds the solve after the leaves are built, ``turn_max_raises`` the raises
inside it and ``turn_leaves="blueprint"`` keeps only the blueprint
continuation. With ``preflop`` each preflop decision is re-solved to the end of
the preflop betting (:func:`pokerai.search.preflop.solve_preflop`: all-in
equity at called all-ins, equity on the pot where a flop is to come), within
``preflop_budget_ms`` and ``preflop_max_raises``. ``allin="solve"`` answers an
all-in off the menu as the blueprint agent does (:mod:`pokerai.search.allin`),
on every street. ``river_allin`` lets the river search go all-in at any size
(the blueprint's menu may cap all-in at a few pots): the river subgame ends at
showdowns and folds, so both players' answers to such an all-in are solved
there. ``safe`` applies to every
searched street. ``threshold`` and ``sample``
mean what they mean for the blueprint agent: the blueprint's probabilities
(in the beliefs and in the blend) are thresholded, and the agent samples from
the final probabilities or, with ``sample=False``, plays the most likely slot.
``opponent_threshold`` (default None: ``threshold``) thresholds the blueprint
only where it models the opponent's actions in the beliefs of the river, turn
and preflop solves (not in the all-in answer of ``allin="solve"``): 0 keeps every
action the network gives any probability, so an opponent who is not this
blueprint keeps a range of plausible hands instead of the few the thresholded
blueprint would have played that way.

``check_cap`` turns on an opponent model learnt during the match
(:class:`~pokerai.agents.opponent.RiverCheckCap`, fed by :meth:`end_hand`):
after ``cap_min_showdowns`` showdowns in which the opponent had opened the
river with a check, the river search keeps only a small part of its belief in
opponent hands stronger than any it has shown after such a check, whenever it
has checked again. Off by default; it changes nothing before those showdowns
and nothing once the opponent has shown a check with a near-best hand.
``responses`` turns on a second one
(:class:`~pokerai.agents.opponent.RiverResponses`): how often the opponent
folded, called and raised when the agent made the first bet of the river, by
bet size and by whether it had checked first. Where the agent opens the river
betting, the solve then mixes into the opponent's answer to each bet the
strategy that folds its weakest hands, raises its strongest and calls with the
rest in those shares, trusted ``n / (n + response_prior)`` after ``n``
answers (:func:`~pokerai.search.hunl.response_strategies`).

The solve depends only on the public state (module docstring of
:mod:`pokerai.search.hunl`), so the agent keeps the last few solutions keyed on
the public state: :meth:`action_probability` asked for all 1,326 hands at one
state (as local best response does) solves once.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

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
from pokerai.agents.opponent import DEFAULT_MIN_SHOWDOWNS, RiverCheckCap, RiverResponses
from pokerai.engine.state import Action, HUNLState, Street
from pokerai.search.allin import load_solver_kernel, solver_ready
from pokerai.search.hunl import (
    COMBO_INDEX,
    DEFAULT_RESPONSE_PRIOR,
    RiverSolution,
    combo_index,
    search_probabilities,
    solve_river,
    with_any_allin,
)
from pokerai.search.preflop import PreflopSolution, preflop_equity_matrix, solve_preflop
from pokerai.search.subgame import blend
from pokerai.search.turn import CONTINUATIONS, DEFAULT_RIVER_CARDS, TurnSolution, solve_turn
from pokerai.tabular.blueprint import AnyBlueprint

DEFAULT_ITERATIONS = 1000
"""The most CFR+ iterations a river solve runs (the time budget usually stops it first)."""
DEFAULT_BUDGET_MS = 65.0
"""Milliseconds a river solve may take (beliefs and tree included) before it stops early. A
decision overshoots by a few milliseconds (the last chunk of iterations and the blend), so the
budget sits below the 75 ms goal per decision; docs/BENCHMARKS.md has the measured decision
times and iteration counts."""
DEFAULT_FULL_ITERATIONS = 100
"""Iterations after which the blend trusts the solve alone (by then the solve's exploitability
within the subgame is a small fraction of the blueprint's)."""
DEFAULT_MAX_RAISES = 2
"""Raises allowed inside the river subgame (the tree grows about threefold with each more)."""
CACHE_SIZE = 8
"""Public states whose solutions (river and turn) are kept."""
DEFAULT_TURN_BUDGET_MS = 1000.0
"""Milliseconds a turn solve may take after its leaves are built (with ``turn=True``)."""
DEFAULT_TURN_MAX_RAISES = 1
"""Raises allowed inside the turn subgame (each one more multiplies its leaves and their rollouts)."""
TURN_LEAVES = ("depth_limited", "blueprint")
"""Turn leaf kinds: the opponent picks among the four continuations, or both play the blueprint."""
DEFAULT_PREFLOP_BUDGET_MS = 5000.0
"""Milliseconds a preflop solve may take. A preflop solve depends only on the public history, so
one solve serves every later hand that reaches the same history (docs/BENCHMARKS.md has the
iterations it runs)."""
DEFAULT_PREFLOP_MAX_RAISES = 2
"""Raises allowed inside the preflop subgame (100 nodes at the first decision; 316 with 3)."""
PREFLOP_CACHE_SIZE = 64
"""Preflop public states whose solutions are kept (a match meets few distinct preflop histories)."""


class SearchAgent(BlueprintAgent):
    """The blueprint before the river (or turn), re-solving on it from there (module docstring).

    ``iterations`` (a non-negative int) is the solve's iteration budget;
    ``budget_ms`` (positive, or None for no time limit) stops the solve early;
    ``full_iterations`` (positive) is the blend's full iteration count;
    ``max_raises`` (a non-negative int, or None for no cap) limits raises
    inside the subgame; ``safe`` adds the re-solving gadget (the opponent may
    take its best-response value against the blueprint instead of entering).
    ``turn`` also searches turn decisions (module docstring), with
    ``turn_budget_ms`` (positive or None), ``turn_max_raises`` (as
    ``max_raises``), ``turn_leaves`` (one of :data:`TURN_LEAVES`) and
    ``river_cards`` (at least 5, or None for all 48). ``preflop`` also searches
    preflop decisions, with ``preflop_budget_ms`` (positive or None) and
    ``preflop_max_raises`` (as ``max_raises``). ``allin`` and ``allin_budget_ms`` are the blueprint
    agent's.
    ``check_cap`` (with ``cap_min_showdowns``, a positive whole number) learns the
    opponent's river check cap from showdowns, ``responses`` (with ``response_prior``, a
    positive number; not with ``safe``) how it answers the agent's first river bet (module
    docstring).
    """

    name = "search"

    def __init__(
        self,
        blueprint: AnyBlueprint,
        *,
        sample: bool = True,
        threshold: float = 0.0,
        iterations: int = DEFAULT_ITERATIONS,
        budget_ms: float | None = DEFAULT_BUDGET_MS,
        full_iterations: int = DEFAULT_FULL_ITERATIONS,
        max_raises: int | None = DEFAULT_MAX_RAISES,
        safe: bool = False,
        turn: bool = False,
        turn_budget_ms: float | None = DEFAULT_TURN_BUDGET_MS,
        turn_max_raises: int | None = DEFAULT_TURN_MAX_RAISES,
        turn_leaves: str = "depth_limited",
        river_cards: int | None = DEFAULT_RIVER_CARDS,
        preflop: bool = False,
        preflop_budget_ms: float | None = DEFAULT_PREFLOP_BUDGET_MS,
        preflop_max_raises: int | None = DEFAULT_PREFLOP_MAX_RAISES,
        allin: str = "policy",
        allin_budget_ms: float | None = None,
        river_allin: bool = False,
        opponent_threshold: float | None = None,
        check_cap: bool = False,
        cap_min_showdowns: int = DEFAULT_MIN_SHOWDOWNS,
        responses: bool = False,
        response_prior: float = DEFAULT_RESPONSE_PRIOR,
    ) -> None:
        super().__init__(
            blueprint, sample=sample, threshold=threshold, allin=allin, allin_budget_ms=allin_budget_ms
        )
        if not isinstance(check_cap, bool):
            raise ValueError(f"check_cap {check_cap!r} is not true or false")
        self.check_model = RiverCheckCap(cap_min_showdowns) if check_cap else None
        """The opponent model of ``check_cap`` (learnt in :meth:`end_hand`), or None."""
        if not isinstance(responses, bool):
            raise ValueError(f"responses {responses!r} is not true or false")
        if responses and safe:
            raise ValueError("responses does not work with safe (the gadget's tree has no modelled nodes)")
        self.response_model = RiverResponses(response_prior) if responses else None
        """The opponent model of ``responses`` (learnt in :meth:`end_hand`), or None."""
        if opponent_threshold is not None and (
            isinstance(opponent_threshold, bool)
            or not isinstance(opponent_threshold, (int, float))
            or not 0.0 <= opponent_threshold < 1.0
        ):
            raise ValueError(
                f"opponent_threshold {opponent_threshold!r} is not a number in [0, 1) (None: threshold)"
            )
        self.opponent_threshold = None if opponent_threshold is None else float(opponent_threshold)
        if not isinstance(river_allin, bool):
            raise ValueError(f"river_allin {river_allin!r} is not true or false")
        self.river_allin = river_allin
        self._river_bets = with_any_allin(blueprint.game.bets) if river_allin else blueprint.game.bets
        if isinstance(iterations, bool) or not isinstance(iterations, int) or iterations < 0:
            raise ValueError(f"iterations {iterations!r} is not a non-negative whole number")
        if budget_ms is not None and (
            isinstance(budget_ms, bool) or not isinstance(budget_ms, (int, float)) or not budget_ms > 0
        ):
            raise ValueError(f"budget_ms {budget_ms!r} is not a positive number of milliseconds")
        if isinstance(full_iterations, bool) or not isinstance(full_iterations, int) or full_iterations < 1:
            raise ValueError(f"full_iterations {full_iterations!r} is not a positive whole number")
        if max_raises is not None and (
            isinstance(max_raises, bool) or not isinstance(max_raises, int) or max_raises < 0
        ):
            raise ValueError(f"max_raises {max_raises!r} is not a non-negative whole number")
        if turn_budget_ms is not None and (
            isinstance(turn_budget_ms, bool)
            or not isinstance(turn_budget_ms, (int, float))
            or not turn_budget_ms > 0
        ):
            raise ValueError(f"turn_budget_ms {turn_budget_ms!r} is not a positive number of milliseconds")
        if turn_max_raises is not None and (
            isinstance(turn_max_raises, bool) or not isinstance(turn_max_raises, int) or turn_max_raises < 0
        ):
            raise ValueError(f"turn_max_raises {turn_max_raises!r} is not a non-negative whole number")
        if turn_leaves not in TURN_LEAVES:
            raise ValueError(f"turn_leaves {turn_leaves!r} is not one of {', '.join(TURN_LEAVES)}")
        if river_cards is not None and (
            isinstance(river_cards, bool) or not isinstance(river_cards, int) or not 5 <= river_cards <= 48
        ):
            raise ValueError(f"river_cards {river_cards!r} is not a whole number from 5 to 48 (None for all)")
        if preflop_budget_ms is not None and (
            isinstance(preflop_budget_ms, bool)
            or not isinstance(preflop_budget_ms, (int, float))
            or not preflop_budget_ms > 0
        ):
            raise ValueError(
                f"preflop_budget_ms {preflop_budget_ms!r} is not a positive number of milliseconds"
            )
        if preflop_max_raises is not None and (
            isinstance(preflop_max_raises, bool)
            or not isinstance(preflop_max_raises, int)
            or preflop_max_raises < 0
        ):
            raise ValueError(f"preflop_max_raises {preflop_max_raises!r} is not a non-negative whole number")
        self.iterations = iterations
        self.preflop = bool(preflop)
        self.preflop_budget_ms = None if preflop_budget_ms is None else float(preflop_budget_ms)
        self.preflop_max_raises = preflop_max_raises
        self._preflop_solutions: SolutionCache[PreflopSolution] = SolutionCache(PREFLOP_CACHE_SIZE)
        self.preflop_solves = 0
        """Preflop solves run so far (cache misses)."""
        self.turn = bool(turn)
        self.turn_budget_ms = None if turn_budget_ms is None else float(turn_budget_ms)
        self.turn_max_raises = turn_max_raises
        self.turn_leaves = turn_leaves
        self.river_cards = river_cards
        self.budget_ms = None if budget_ms is None else float(budget_ms)
        self.full_iterations = full_iterations
        self.max_raises = max_raises
        self.safe = bool(safe)
        self._solutions: SolutionCache[RiverSolution | TurnSolution] = SolutionCache(CACHE_SIZE)
        self.solves = 0
        """Solves run so far, river and turn (cache misses)."""
        self.turn_solves = 0
        """Turn solves run so far (cache misses)."""
        self.searches_unready = 0
        """Decisions the blueprint played because the solver was not ready within the search's budget."""
        self._waited_s = 0.0

    def budget_solves(self, seconds: float) -> None:
        """Give every solve without a time budget one of ``seconds``: the all-in answer and the river,
        turn and preflop searches (whose budgets are ``None`` only when asked for)."""
        super().budget_solves(seconds)
        milliseconds = 1000.0 * seconds
        if self.budget_ms is None:
            self.budget_ms = milliseconds
        if self.turn_budget_ms is None:
            self.turn_budget_ms = milliseconds
        if self.preflop_budget_ms is None:
            self.preflop_budget_ms = milliseconds

    def warm_up(self) -> None:
        """The blueprint agent's warm-up, and the CFR+ kernel that every search uses (with ``preflop``,
        the preflop equity matrix too)."""
        super().warm_up()
        load_solver_kernel()
        if self.preflop:
            preflop_equity_matrix()

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
        ready = solver_ready(budget_ms / 1000.0, preflop=observation.street == Street.PREFLOP)
        self._waited_s = time.perf_counter() - started
        self.searches_unready += not ready
        return ready

    def _budget_ms_of(self, observation: Observation) -> float | None:
        """The time budget of the search at ``observation``'s street (None: none, or no search there)."""
        if observation.street == Street.PREFLOP:
            return self.preflop_budget_ms if self.preflop else None
        if observation.street == Street.TURN:
            return self.turn_budget_ms if self.turn else None
        return self.budget_ms if observation.street == Street.RIVER else None

    def _left_of(self, budget_ms: float | None) -> float | None:
        """Seconds of ``budget_ms`` left after the wait of the last :meth:`_solver_ready`, or None."""
        return None if budget_ms is None else max(budget_ms / 1000.0 - self._waited_s, 0.0)

    def end_hand(self, summary: HandSummary) -> None:
        """Learn from the finished hand: with ``check_cap`` its showdown (:class:`RiverCheckCap`),
        with ``responses`` the answer to the agent's first river bet (:class:`RiverResponses`)."""
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
        solve: Callable[[HUNLState], RiverSolution | TurnSolution],
        model: Any = None,
    ) -> RiverSolution | TurnSolution:
        """The solution at ``observation``'s public state (and ``model``, what the solve knows of
        the opponent): from the cache, or ``solve`` of its replay."""
        solution, solved = self._solutions.get(
            (public_key(observation), model), lambda: solve(replay_observation(observation))
        )
        self.solves += solved
        return solution

    def preflop_solution(self, observation: Observation) -> PreflopSolution:
        """The solved preflop subgame at ``observation``'s public state (cached apart from the river and
        turn ones, since every hand's first decision meets the same public state; hole cards unused)."""
        key = (observation.config, observation.button, observation.player, observation.history)
        solution, solved = self._preflop_solutions.get(
            key,
            lambda: solve_preflop(
                self.blueprint,
                replay_observation(observation),
                iterations=self.iterations,
                time_budget_s=self._left_of(self.preflop_budget_ms),
                threshold=self.threshold,
                max_raises=self.preflop_max_raises,
                safe=self.safe,
                opponent_threshold=self.opponent_threshold,
            ),
        )
        self.preflop_solves += solved
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
                iterations=self.iterations,
                time_budget_s=self._left_of(self.budget_ms),
                threshold=self.threshold,
                max_raises=self.max_raises,
                safe=self.safe,
                bets=self._river_bets,
                opponent_threshold=self.opponent_threshold,
                opponent_cap=cap,
                opponent_responses=responses,
            ),
            (cap, responses),
        )
        assert isinstance(solution, RiverSolution)
        return solution

    def turn_solution(self, observation: Observation) -> TurnSolution:
        """The solved turn subgame at ``observation``'s public state (cached; hole cards unused)."""
        solves = self.solves
        solution = self._cached(
            observation,
            lambda state: solve_turn(
                self.blueprint,
                state,
                iterations=self.iterations,
                time_budget_s=self._left_of(self.turn_budget_ms),
                threshold=self.threshold,
                max_raises=self.turn_max_raises,
                continuations=CONTINUATIONS if self.turn_leaves == "depth_limited" else ("blueprint",),
                river_cards=self.river_cards,
                safe=self.safe,
                opponent_threshold=self.opponent_threshold,
            ),
        )
        self.turn_solves += self.solves - solves
        assert isinstance(solution, TurnSolution)
        return solution

    def decision(self, observation: Observation) -> tuple[npt.NDArray[np.float64], list[Action | None]]:
        """The probabilities float64 ``[num_slots]`` it plays (0 on illegal slots) and each slot's action.

        The blueprint's before the river, except on searched streets (preflop with ``preflop``, the
        turn with ``turn``); on the river the searched ones (module docstring). With
        ``allin="solve"`` an all-in off the menu is answered by its solved all-in game on every
        street, not by the street's search.
        """
        probabilities, actions = super().decision(observation)
        if self.iterations == 0 or self.answers_offtree_allin(observation):
            return probabilities, actions
        if not self._solver_ready(observation):
            return probabilities, actions
        if observation.street == Street.PREFLOP and self.preflop:
            preflop = self.preflop_solution(observation)
            local = preflop.strategy[combo_index(*observation.hole_cards)]
            if local.sum() == 0:  # a hand outside the searcher's range: the blueprint plays it
                return probabilities, actions
            searched = blend(probabilities, local, preflop.iterations, self.full_iterations)
        elif observation.street == Street.TURN and self.turn:
            turn = self.turn_solution(observation)
            local = turn.strategy[combo_index(*observation.hole_cards)]
            if local.sum() == 0:  # a hand outside the subgame: neither range holds it
                return probabilities, actions
            searched = blend(probabilities, local, turn.iterations, self.full_iterations)
        elif observation.street == Street.RIVER:
            solution = self.river_solution(observation)
            searched = search_probabilities(
                probabilities, solution, observation.hole_cards, self.full_iterations
            )
            if self.river_allin and actions[self._game.bets.all_in_slot] is None:
                # The search's menu may hold an all-in that the blueprint's lacks here.
                _, actions = slot_actions(replay_observation(observation), self._river_bets)
        else:
            return probabilities, actions
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
        if self.iterations == 0 or self.answers_offtree_allin(observation):
            return probabilities, actions
        if not self._solver_ready(observation):
            return probabilities, actions
        combos = COMBO_INDEX[hands[:, 0], hands[:, 1]]
        solution: PreflopSolution | TurnSolution | RiverSolution
        if observation.street == Street.PREFLOP and self.preflop:
            solution = self.preflop_solution(observation)
        elif observation.street == Street.TURN and self.turn:
            solution = self.turn_solution(observation)
        elif observation.street == Street.RIVER:
            solution = self.river_solution(observation)
            if self.river_allin and actions[self._game.bets.all_in_slot] is None:
                # The search's menu may hold an all-in that the blueprint's lacks here.
                _, actions = slot_actions(replay_observation(observation), self._river_bets)
        else:
            return probabilities, actions
        local = solution.strategy[combos]
        # Before the river a hand outside the subgame (its row all 0) plays the blueprint.
        searched_rows = np.ones(len(hands), dtype=np.bool_)
        if observation.street != Street.RIVER:
            searched_rows = local.sum(axis=1) != 0
        searched = blend(
            probabilities[searched_rows], local[searched_rows], solution.iterations, self.full_iterations
        )
        legal = np.array([action is not None for action in actions])
        assert not np.any(searched[:, ~legal] > 0), "the subgame's root offers only legal slots"
        probabilities[searched_rows] = searched / searched.sum(axis=1, keepdims=True)
        return probabilities, actions


def load_search_agent(path: str, **options: Any) -> SearchAgent:
    """A :class:`SearchAgent` on the blueprint folder (or ``policy.pt``) at ``path``; ``options`` as for it.

    Raises ``ValueError`` (a ``CheckpointError`` for file problems) in one sentence naming the bad value.
    """
    return SearchAgent(load_blueprint(path), **options)


__all__ = [
    "CACHE_SIZE",
    "DEFAULT_BUDGET_MS",
    "DEFAULT_FULL_ITERATIONS",
    "DEFAULT_ITERATIONS",
    "DEFAULT_MAX_RAISES",
    "DEFAULT_PREFLOP_BUDGET_MS",
    "DEFAULT_PREFLOP_MAX_RAISES",
    "DEFAULT_TURN_BUDGET_MS",
    "DEFAULT_TURN_MAX_RAISES",
    "PREFLOP_CACHE_SIZE",
    "TURN_LEAVES",
    "SearchAgent",
    "load_search_agent",
]
