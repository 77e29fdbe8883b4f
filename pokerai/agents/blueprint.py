"""A hold'em blueprint as an agent: the average strategy of its seat, played on the bet menu.

The blueprint is either kind (:class:`~pokerai.games.holdem.Blueprint`): a tabular MCCFR
table (:class:`~pokerai.tabular.blueprint.TabularBlueprint`) or Deep CFR's policy networks
(:class:`~pokerai.deepcfr.export.Blueprint`). A :class:`BlueprintAgent` sees an engine
:class:`~pokerai.agents.base.Observation` and answers the way the blueprint's learning game
(:class:`~pokerai.games.hunl.HUNLGame`) would at the same point:

1. **Seat.** The learning game always seats the button as player 0, so the
   blueprint seat is 0 when the observer is on the button and 1 otherwise,
   whatever the engine's player index.
2. **State.** The observation carries the public history but no street
   boundaries, which the raise count needs, and the bet menu is defined on
   an engine state. So the agent replays ``observation.history`` on a fresh
   :class:`~pokerai.engine.state.HUNLState` of the observed game, dealt from
   a deck of its own hole cards, placeholder cards for the opponent and the
   known board (placeholders never influence the betting), and checks that the
   replay reaches the observed stacks, bets and street.
3. **Strategy.** The blueprint reads the decision at that state
   (:func:`~pokerai.games.holdem.decision_view`: seat, street, board, pot, both
   stacks, amount to call, bets and raises on this street) with the observer's
   hole cards (:meth:`~pokerai.games.holdem.Blueprint.hand_probabilities`).
4. **Action.** :func:`~pokerai.abstraction.bets.slot_actions` on the replayed
   state gives the legal slots of the blueprint's bet menu and their engine
   actions; the agent samples a slot from the strategy and returns its action.

All-ins off the menu. With ``allin="solve"``, an opponent's all-in that the
menu does not have is answered by a small solved game instead
(:mod:`pokerai.search.allin`): the blueprint never met such a state in training.

Many hands at once. :meth:`BlueprintAgent.range_policy` gives the strategy for
many hole-card pairs at one public state (what local best response asks): one
replay, one all-in solve where one answers, one blueprint call for the rest.

Other games than the blueprint's. The agent plays any blinds and stacks: chip
amounts are rescaled by the ratio of the big blinds
(:func:`~pokerai.games.holdem.chip_scale`), so a blueprint trained at 50/100 reads
a 1/2 game in big blinds. Opponent bets off the menu need no translation: a network
reads only the features of the current state, never the action sequence, and a
table plays the nearest node of its betting tree. The menu's sizes are computed on
the observed state, so every returned action is legal there. Stacks deeper or
shallower (in big blinds) than in training are outside what the blueprint saw; it
still plays, but off its training distribution.
"""

from __future__ import annotations

import dataclasses
import os
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
from typing import Any, Generic, TypeVar

import numpy as np
import numpy.typing as npt

from pokerai.abstraction.bets import CHECK_CALL_SLOT, FOLD_SLOT, BetAbstraction, slot_actions
from pokerai.agents.base import Agent, Observation, RangePolicy
from pokerai.agents.baselines import is_same_action
from pokerai.deepcfr.export import Blueprint
from pokerai.engine.cards import NUM_CARDS
from pokerai.engine.state import Action, ActionKind, HUNLState, Street
from pokerai.games.holdem import Blueprint as AnyBlueprint
from pokerai.games.hunl import HUNLGame
from pokerai.search.allin import (
    CALL,
    FOLD,
    AllinSolution,
    before_last_action,
    is_offtree_allin,
    solve_allin,
    solver_ready,
    warm_up_allin,
)
from pokerai.search.beliefs import threshold_probabilities
from pokerai.search.combos import ALL_COMBOS, COMBO_INDEX, combo_index
from pokerai.shipped import resolve_checkpoint
from pokerai.tabular.blueprint import TabularBlueprint, is_tabular_blueprint

ALLIN_ANSWERS = ("policy", "solve")
"""How the agent answers an all-in its menu does not have: the blueprint's policy, or a solved all-in game."""
ALLIN_CACHE_SIZE = 8
"""Public states after the flop whose all-in solutions are kept."""
ALLIN_PREFLOP_CACHE_SIZE = 64
"""Preflop public states whose all-in solutions are kept, apart from the others: every hand meets the
same few preflop states, and a preflop solve is the dearest (all 1,326 hands); in local best response,
which considers an all-in at each decision, later streets' solves would otherwise push them out."""
RANGE_PREFLOP_CACHE_SIZE = 256
"""Preflop public states whose policy for all 1,326 hands :meth:`BlueprintAgent.range_decision` keeps:
AIVAT and local best response ask for whole ranges, and every hand meets the same few preflop states."""

BUTTON_SEAT, BIG_BLIND_SEAT = 0, 1
"""Seats of the blueprint's learning game."""
Solved = TypeVar("Solved")


class SolutionCache(Generic[Solved]):
    """The last ``size`` solutions by key (least recently used dropped first), for solves that depend
    only on the public state."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._entries: OrderedDict[Hashable, Solved] = OrderedDict()

    def __contains__(self, key: Hashable) -> bool:
        return key in self._entries

    def get(self, key: Hashable, solve: Callable[[], Solved]) -> tuple[Solved, bool]:
        """The solution under ``key``, from the cache or ``solve()``; and whether it was solved now."""
        if key in self._entries:
            self._entries.move_to_end(key)
            return self._entries[key], False
        solution = self._entries[key] = solve()
        if len(self._entries) > self.size:
            self._entries.popitem(last=False)
        return solution, True

    def discard(self, key: Hashable) -> None:
        """Forget the solution under ``key``, if there is one."""
        self._entries.pop(key, None)


def public_key(observation: Observation) -> tuple[Any, ...]:
    """The public state of ``observation`` (all but the observer's hole cards), as a cache key."""
    return (
        observation.config,
        observation.button,
        observation.player,
        observation.board,
        observation.history,
    )


def blueprint_seat(observation: Observation) -> int:
    """The learning-game seat of the observer: 0 on the button, 1 in the big blind."""
    return BUTTON_SEAT if observation.player == observation.button else BIG_BLIND_SEAT


def replay_observation(observation: Observation) -> HUNLState:
    """An engine state consistent with ``observation``: its history replayed with placeholder hidden cards.

    The observer's hole cards and the known board are real; the opponent's hole
    cards and the undealt board are the lowest unused card ids (marked unknown
    in ``hole_cards_known``). Raises ``ValueError`` if the history does not
    replay or does not reach the observed street, stacks, bets and pot.
    """
    player = observation.player
    known = [*observation.hole_cards, *observation.board]
    if len(set(known)) != len(known) or not all(0 <= card < NUM_CARDS for card in known):
        raise ValueError(
            f"observation cards {known} are not distinct card ids 0..{NUM_CARDS - 1} (hole cards, then board)"
        )
    filler = iter(card for card in range(NUM_CARDS) if card not in set(known))
    hole: list[list[int]] = [[], []]
    hole[player] = list(observation.hole_cards)
    hole[1 - player] = [next(filler), next(filler)]
    board = [*observation.board, *(next(filler) for _ in range(5 - len(observation.board)))]
    state = HUNLState.new(observation.config, observation.button, deck=[*hole[0], *hole[1], *board])
    state.hole_cards_known = (player == 0, player == 1)
    for action in observation.history:
        try:
            state.apply(action)
        except ValueError as error:
            raise ValueError(f"the observation's history does not replay at ({action}): {error}") from None
    replayed = (state.to_act, state.street, tuple(state.stacks), tuple(state.bets), state.pot)
    observed = (player, observation.street, observation.stacks, observation.bets, observation.pot)
    if replayed != observed:
        raise ValueError(
            f"the observation's history leads to (to act, street, stacks, bets, pot) = {replayed}, "
            f"not the observed {observed}"
        )
    return state


def facing_offtree_allin(state: HUNLState, bets: BetAbstraction) -> bool:
    """Whether the last action at ``state`` is the opponent's all-in, which the menu ``bets`` lacks."""
    if not state.history or state.to_act is None or state.history[-1].player == state.to_act:
        return False
    return is_offtree_allin(before_last_action(state), state.history[-1], bets)


class BlueprintAgent(Agent):
    """Plays a hold'em blueprint of either kind (module docstring).

    It draws a slot from the policy with one uniform number from the ``rng`` per decision.

    ``threshold`` (0 to 1) drops the slots whose probability is below it and
    renormalises the rest, keeping the most likely slot when none is left
    ("thresholding": Ganzfried, Sandholm & Waugh, "Strategy Purification and
    Thresholding: Effective Non-Equilibrium Approaches for Playing Large Games", AAMAS
    2012): a short run's average strategy keeps a little probability on actions it has
    not yet learned to avoid, and thresholding removes that noise. The probabilities
    :meth:`decision` reports are the thresholded ones, the ones :meth:`act`
    plays.

    ``allin`` says how the agent answers an opponent's all-in that its menu does
    not have (larger than the menu's largest raise there, or past the street's
    ``max_raises``): ``"policy"`` (the default) asks the blueprint, which never met
    that state in training; ``"solve"`` plays the solved call-or-fold game of
    :mod:`pokerai.search.allin` (not thresholded), cached by public state.
    ``allin_budget_ms`` (positive, or None for none) bounds each such answer's solve
    (:func:`~pokerai.search.allin.solve_allin`) and the wait for the solver's first-time work
    in a process (:func:`~pokerai.search.allin.solver_ready`): an answer whose solver is not
    ready within the budget is the blueprint's (``allin_unready`` counts them).
    """

    name = "blueprint"

    def __init__(
        self,
        blueprint: AnyBlueprint,
        *,
        threshold: float = 0.0,
        allin: str = "policy",
        allin_budget_ms: float | None = None,
    ) -> None:
        if not isinstance(blueprint, (Blueprint, TabularBlueprint)):
            raise ValueError(f"BlueprintAgent needs a Blueprint or a TabularBlueprint, not {blueprint!r}")
        if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or not 0 <= threshold < 1:
            raise ValueError(f"threshold {threshold!r} is not a probability in [0, 1)")
        if not isinstance(blueprint.game, HUNLGame):
            raise ValueError(
                f"blueprint of {getattr(blueprint.game, 'name', blueprint.game)!r} is not a hold'em "
                "blueprint; BlueprintAgent plays only HUNL ones"
            )
        if allin not in ALLIN_ANSWERS:
            raise ValueError(f"allin {allin!r} is not one of {', '.join(ALLIN_ANSWERS)}")
        if allin_budget_ms is not None and (
            isinstance(allin_budget_ms, bool)
            or not isinstance(allin_budget_ms, (int, float))
            or not allin_budget_ms > 0
        ):
            raise ValueError(f"allin_budget_ms {allin_budget_ms!r} is not a positive number of milliseconds")
        self.allin_budget_ms = None if allin_budget_ms is None else float(allin_budget_ms)
        self.blueprint = blueprint
        self.threshold = float(threshold)
        self.allin = allin
        self._game: HUNLGame = blueprint.game
        self._allin_solutions: SolutionCache[AllinSolution] = SolutionCache(ALLIN_CACHE_SIZE)
        self._allin_preflop_solutions: SolutionCache[AllinSolution] = SolutionCache(ALLIN_PREFLOP_CACHE_SIZE)
        self._preflop_ranges: SolutionCache[npt.NDArray[np.float64]] = SolutionCache(RANGE_PREFLOP_CACHE_SIZE)
        self.allin_solves = 0
        """All-in games solved so far (cache misses)."""
        self.allin_unready = 0
        """All-in answers left to the blueprint because the solver was not ready within the budget."""

    def decision(self, observation: Observation) -> tuple[npt.NDArray[np.float64], list[Action | None]]:
        """The policy's probabilities float64 ``[num_slots]`` (0 on illegal slots) and each slot's action."""
        state = replay_observation(observation)
        mask, actions = slot_actions(state, self._game.bets)
        solution = self._allin_answer(observation, state)
        if solution is not None:
            answer = solution.strategy[combo_index(*observation.hole_cards)]
            if answer.sum() > 0:  # every hand off the board has an answer; else the blueprint's below
                probabilities = np.zeros(mask.size)
                probabilities[FOLD_SLOT], probabilities[CHECK_CALL_SLOT] = answer[FOLD], answer[CALL]
                return probabilities / probabilities.sum(), actions
        hole = np.array([observation.hole_cards], dtype=np.int64)
        return self._blueprint_rows(state, mask, hole)[0], actions

    def range_decision(
        self, observation: Observation, hands: npt.NDArray[np.int64]
    ) -> tuple[npt.NDArray[np.float64], list[Action | None]]:
        """:meth:`decision` holding each of ``hands`` (int64 ``[H, 2]``) at ``observation``'s public state:
        float64 ``[H, num_slots]`` and each slot's action (the same for every hand), with one blueprint
        call for all the hands that the blueprint answers.

        A network's rows may differ from :meth:`decision`'s in the last bits (float32 matrix
        products group their sums by batch size); everything else is computed the same way. Preflop,
        the rows of all 1,326 hands are computed once per public state and kept
        (``RANGE_PREFLOP_CACHE_SIZE`` states).
        """
        state = replay_observation(observation)
        mask, actions = slot_actions(state, self._game.bets)
        probabilities = np.zeros((len(hands), mask.size))
        unsolved = np.ones(len(hands), dtype=np.bool_)
        solution = self._allin_answer(observation, state)
        if solution is not None:
            strategy = solution.strategy
            answers = strategy[COMBO_INDEX[hands[:, 0], hands[:, 1]]]
            solved = answers.sum(axis=1) > 0  # every hand off the board has an answer; else the blueprint's
            probabilities[solved, FOLD_SLOT] = answers[solved, FOLD]
            probabilities[solved, CHECK_CALL_SLOT] = answers[solved, CALL]
            probabilities[solved] /= probabilities[solved].sum(axis=1, keepdims=True)
            unsolved = ~solved
        if not unsolved.any():
            return probabilities, actions
        if observation.street == Street.PREFLOP:
            table, _ = self._preflop_ranges.get(
                public_key(observation), lambda: self._blueprint_rows(state, mask, ALL_COMBOS)
            )
            probabilities[unsolved] = table[COMBO_INDEX[hands[unsolved, 0], hands[unsolved, 1]]]
        else:
            probabilities[unsolved] = self._blueprint_rows(state, mask, hands[unsolved])
        return probabilities, actions

    def _blueprint_rows(
        self, state: HUNLState, mask: npt.NDArray[np.bool_], hands: npt.NDArray[np.int64]
    ) -> npt.NDArray[np.float64]:
        """The thresholded blueprint policy float64 ``[H, num_slots]`` holding each of ``hands``: one call."""
        rows = self.blueprint.hand_probabilities(state, hands, mask)
        if not np.all(np.isfinite(rows)):
            raise ValueError("the blueprint's policy gave non-finite probabilities")
        return threshold_probabilities(rows, self.threshold)

    def _allin_answer(self, observation: Observation, state: HUNLState) -> AllinSolution | None:
        """The solved answer (:meth:`allin_solution`) when the agent solves off-menu all-ins and
        ``state`` faces one; None otherwise."""
        if self.allin == "solve" and facing_offtree_allin(state, self._game.bets):
            return self.allin_solution(observation, state)
        return None

    def answers_offtree_allin(self, observation: Observation) -> bool:
        """Whether :meth:`decision` answers ``observation`` with a solved all-in game (``allin="solve"``
        and the opponent's last action an all-in off the menu)."""
        return self.allin == "solve" and facing_offtree_allin(
            replay_observation(observation), self._game.bets
        )

    def allin_solution(self, observation: Observation, state: HUNLState) -> AllinSolution | None:
        """The solved answer to the off-menu all-in at ``observation`` (cached on the public state).

        None when the agent has a budget and the solver's first-time work in this process is not
        done within it (class docstring): the answer is then the blueprint's.
        """
        preflop = observation.street == Street.PREFLOP
        cache = self._allin_preflop_solutions if preflop else self._allin_solutions
        key = public_key(observation)
        budget_s = None if self.allin_budget_ms is None else self.allin_budget_ms / 1000.0
        if budget_s is not None and key not in cache:
            started = time.perf_counter()
            if not solver_ready(budget_s, preflop=preflop):
                self.allin_unready += 1
                return None
            budget_s = max(budget_s - (time.perf_counter() - started), 0.0)
        solution, solved = cache.get(
            key, lambda: solve_allin(self.blueprint, state, threshold=self.threshold, time_budget_s=budget_s)
        )
        self.allin_solves += solved
        return solution

    def budget_solves(self, seconds: float) -> None:
        """Give every solve this agent runs without a time budget one of ``seconds`` (``pokerai play``
        does, so that no decision at the table waits on an unbounded solve): here the all-in answer."""
        if self.allin_budget_ms is None:
            self.allin_budget_ms = 1000.0 * seconds

    def drop_time_budgets(self) -> None:
        """Answer an all-in off the menu with a solve of its full iteration count
        (:meth:`Agent.drop_time_budgets <pokerai.agents.base.Agent.drop_time_budgets>`)."""
        self.allin_budget_ms = None

    def warm_up(self) -> None:
        """Do now the slow first-time work of this agent's decisions, kept per process, so that the first
        decisions that need it do not wait: one decision on a flop, which builds the blueprint's
        per-process tables (which every first decision would otherwise build); then, with
        ``allin="solve"``, the all-in answer's kernel and preflop equity matrix
        (:func:`~pokerai.search.allin.warm_up_allin`). ``pokerai play`` runs it in a background
        thread while the first hand is dealt. Decisions are the same with or without it.
        """
        state = HUNLState.new(self._game.config, 0, deck=range(9))
        while state.street < Street.FLOP:
            state = state.after(ActionKind.CALL)  # the button completes, the big blind checks
        BlueprintAgent.decision(self, Observation.from_state(state))  # the blueprint, never a search
        if self.allin == "solve":
            warm_up_allin()

    def _choose(self, probabilities: npt.NDArray[np.float64], rng: np.random.Generator) -> int:
        cumulative = np.cumsum(probabilities)
        slot = int(np.searchsorted(cumulative, rng.random() * cumulative[-1], side="right"))
        # Rounding can put the draw at the very end; the last slot with probability owns it.
        return min(slot, int(np.flatnonzero(probabilities > 0)[-1]))

    def act(self, observation: Observation, rng: np.random.Generator) -> Action:
        probabilities, actions = self.decision(observation)
        action = actions[self._choose(probabilities, rng)]
        assert action is not None, "the chosen slot has positive probability, so it is legal"
        return action

    def action_probability(self, observation: Observation, action: Action) -> float | None:
        """Probability that :meth:`act` returns ``action`` (0 for actions off the menu)."""
        probabilities, actions = self.decision(observation)
        return float(
            sum(
                probabilities[slot]
                for slot, candidate in enumerate(actions)
                if candidate is not None and is_same_action(observation, candidate, action)
            )
        )

    def range_policy(self, observation: Observation, hands: npt.NDArray[np.int64]) -> RangePolicy:
        """What :meth:`act` plays holding each of ``hands`` (int64 ``[H, 2]``): :meth:`range_decision`
        (one blueprint call) over the distinct legal actions.

        A subclass that overrides :meth:`decision` without :meth:`range_decision` is asked hand by hand.
        """
        hands = np.asarray(hands, dtype=np.int64).reshape(-1, 2)
        if _defined_in(type(self), "decision") is not _defined_in(type(self), "range_decision"):
            replay = replay_observation(observation)  # the menu, for when no hand is asked
            rows = [self.decision(with_hole_cards(observation, (first, second))) for first, second in hands]
            probabilities = np.array([row for row, _ in rows]).reshape(len(hands), -1)
            actions = rows[0][1] if rows else slot_actions(replay, self._game.bets)[1]
        else:
            probabilities, actions = self.range_decision(observation, hands)
        return slot_range_policy(probabilities, actions)


def _defined_in(cls: type, name: str) -> type:
    """The class of ``cls``'s method resolution order that defines ``name``."""
    return next(klass for klass in cls.__mro__ if name in vars(klass))


def with_hole_cards(observation: Observation, hole_cards: tuple[int, int]) -> Observation:
    """``observation`` with the observer holding ``hole_cards``."""
    return dataclasses.replace(observation, hole_cards=(int(hole_cards[0]), int(hole_cards[1])))


def slot_range_policy(
    probabilities: npt.NDArray[np.float64], actions: Sequence[Action | None]
) -> RangePolicy:
    """The :class:`RangePolicy` of slot probabilities float64 ``[H, num_slots]`` (row ``j`` holding the
    ``j``-th hand) over the slots' ``actions`` (None where illegal).

    Slots that stand for the same engine action are one row, their probabilities summed in slot
    order (as :meth:`BlueprintAgent.action_probability` sums them).
    """
    rows: list[Action] = []
    row_of_slot = np.full(len(actions), -1, dtype=np.int64)
    for slot, action in enumerate(actions):
        if action is None:
            continue
        for row, known in enumerate(rows):
            if (known.kind, known.amount) == (action.kind, action.amount):
                row_of_slot[slot] = row
                break
        else:
            row_of_slot[slot] = len(rows)
            rows.append(action)
    table = np.zeros((len(rows), probabilities.shape[0]))
    for slot in range(len(actions)):
        if row_of_slot[slot] >= 0:
            table[row_of_slot[slot]] += probabilities[:, slot]
    return RangePolicy.from_actions(rows, table)


def load_blueprint(path: str | os.PathLike[str]) -> AnyBlueprint:
    """The blueprint at ``path``: a tabular MCCFR folder (it holds ``strategy.npz``) or a Deep CFR one
    (``policy.npz`` or ``policy.pt``). A shipped ``checkpoints/<name>`` is found in the installed
    package from any folder (:func:`~pokerai.shipped.resolve_checkpoint`)."""
    path = resolve_checkpoint(path)
    if is_tabular_blueprint(path):
        return TabularBlueprint.load(path)
    return Blueprint.load(path)


NETWORK_THRESHOLD = 0.3
"""The threshold a Deep CFR network plays with by default: it removes the network's noise at small
probabilities (docs/RESULTS.md, chosen head to head)."""
TABULAR_THRESHOLD = 0.0
"""The threshold a tabular MCCFR strategy plays with by default: its average strategy has no such
noise, and thresholding it made it more exploitable by LBR at no gain head to head (docs/RESULTS.md)."""


def default_threshold(blueprint: AnyBlueprint) -> float:
    """:data:`TABULAR_THRESHOLD` for a tabular strategy, :data:`NETWORK_THRESHOLD` for a network."""
    return TABULAR_THRESHOLD if isinstance(blueprint, TabularBlueprint) else NETWORK_THRESHOLD


def load_blueprint_agent(
    path: str,
    *,
    threshold: float | None = 0.0,
    allin: str = "policy",
    allin_budget_ms: float | None = None,
) -> BlueprintAgent:
    """A :class:`BlueprintAgent` for the blueprint folder (or ``policy.pt``) at ``path``: either kind
    (:func:`load_blueprint`); ``threshold`` None is the blueprint's kind's default
    (:func:`default_threshold`).

    Raises ``ValueError`` (a ``CheckpointError`` for file problems) in one sentence naming the path.
    """
    blueprint = load_blueprint(path)
    chosen = default_threshold(blueprint) if threshold is None else threshold
    return BlueprintAgent(blueprint, threshold=chosen, allin=allin, allin_budget_ms=allin_budget_ms)


__all__ = [
    "ALLIN_ANSWERS",
    "ALLIN_CACHE_SIZE",
    "ALLIN_PREFLOP_CACHE_SIZE",
    "NETWORK_THRESHOLD",
    "TABULAR_THRESHOLD",
    "BlueprintAgent",
    "SolutionCache",
    "blueprint_seat",
    "default_threshold",
    "facing_offtree_allin",
    "load_blueprint",
    "load_blueprint_agent",
    "public_key",
    "replay_observation",
    "slot_range_policy",
    "with_hole_cards",
]
