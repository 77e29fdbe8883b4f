"""Decisions of seeded blueprint self-play, the spots that the search benchmarks time."""

from __future__ import annotations

import numpy as np

from pokerai.agents.base import Observation
from pokerai.agents.blueprint import BlueprintAgent
from pokerai.deepcfr.export import Blueprint
from pokerai.engine.state import HUNLState, Street


def street_decisions(
    blueprint: Blueprint, count: int, threshold: float, seed: int, street: int = Street.RIVER
) -> list[Observation]:
    """The first ``count`` decisions on ``street`` (the river by default) of seeded blueprint self-play."""
    agent = BlueprintAgent(blueprint, threshold=threshold)
    observations: list[Observation] = []
    hand = 0
    while len(observations) < count:
        rng = np.random.default_rng([seed, hand])
        state = HUNLState.new(blueprint.game.config, hand % 2, rng=rng)
        hand += 1
        while not state.is_over and len(observations) < count:
            observation = Observation.from_state(state)
            if state.street == street:
                observations.append(observation)
            state.apply(agent.act(observation, rng))
    return observations
