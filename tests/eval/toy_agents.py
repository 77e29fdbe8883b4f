"""Tiny agents for the eval tests: simple, card-driven or fixed policies whose matches are easy to reason
about (``uniform`` plays ``random``'s choice of action kind, with minimum raises)."""

from __future__ import annotations

import dataclasses

import numpy as np

from pokerai.agents.base import Agent, HandSummary, Observation
from pokerai.agents.baselines import RandomAgent
from pokerai.engine.state import Action, ActionKind


class FoldAgent(Agent):
    """Folds whenever it faces a bet, checks otherwise; says so with probability 1."""

    name = "fold"

    def choose(self, observation: Observation) -> Action:
        if ActionKind.FOLD in observation.legal_actions:
            return Action(observation.player, ActionKind.FOLD)
        return observation.check_or_call()

    def act(self, observation: Observation, rng: np.random.Generator) -> Action:
        return self.choose(observation)

    def action_probability(self, observation: Observation, action: Action) -> float:
        chosen = self.choose(observation)
        return 1.0 if (chosen.kind, chosen.amount) == (action.kind, action.amount) else 0.0


class PairRaiser(FoldAgent):
    """Raises to the pot with a pocket pair whenever it may, otherwise checks or calls."""

    name = "pair_raiser"

    def choose(self, observation: Observation) -> Action:
        first, second = observation.hole_cards
        if first >> 2 == second >> 2 and observation.max_raise_to is not None:
            return observation.raise_to(max(observation.bets) + observation.pot + observation.call_amount)
        return observation.check_or_call()


class SilentCaller(Agent):
    """A calling station that does not expose its action probabilities."""

    name = "silent"

    def act(self, observation: Observation, rng: np.random.Generator) -> Action:
        return observation.check_or_call()


class NoneCaller(SilentCaller):
    """Overrides ``action_probability`` but still answers None."""

    def action_probability(self, observation: Observation, action: Action) -> float | None:
        return None


class StrengthAgent(Agent):
    """A card-driven player with a little randomness: strong hands raise, weak ones fold to bets.

    Its results depend mostly on its cards, so duplicate pairing cancels most of the luck.
    """

    name = "strength"

    def act(self, observation: Observation, rng: np.random.Generator) -> Action:
        first, second = observation.hole_cards
        strength = (first >> 2) + (second >> 2) + (8 if first >> 2 == second >> 2 else 0)
        if rng.random() < 0.1:
            return observation.check_or_call()
        if strength >= 18 and observation.max_raise_to is not None and observation.street == 0:
            return observation.raise_to(3 * max(observation.bets))
        if strength < 10 and ActionKind.FOLD in observation.legal_actions:
            return Action(observation.player, ActionKind.FOLD)
        return observation.check_or_call()


class UniformKindAgent(Agent):
    """Uniform over fold / check-call / min-raise (whichever are legal): ``random``'s choice of kind
    with every raise at the minimum; small pots, modest variance."""

    name = "uniform"

    def act(self, observation: Observation, rng: np.random.Generator) -> Action:
        return RandomAgent().act(dataclasses.replace(observation, max_raise_to=observation.min_raise_to), rng)


class RecordingCaller(Agent):
    """Checks or calls, and keeps what ``end_hand`` tells it."""

    name = "recording"

    def __init__(self) -> None:
        self.summaries: list[HandSummary] = []

    def act(self, observation: Observation, rng: np.random.Generator) -> Action:
        return observation.check_or_call()

    def end_hand(self, summary: HandSummary) -> None:
        self.summaries.append(summary)
