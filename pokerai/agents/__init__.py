"""Agents (layer 6): every policy that picks a hold'em action, behind one interface."""

from __future__ import annotations

from pokerai.agents.base import Agent, Observation, RangePolicy
from pokerai.agents.baselines import AllInAgent, CallAgent, RaiseAgent, RandomAgent, pot_raise_to
from pokerai.agents.exploiters import MinRaiserAgent, ShoverAgent, StationAgent
from pokerai.agents.heuristic import HeuristicAgent
from pokerai.agents.spec import AGENT_NAMES, make_agent

__all__ = [
    "AGENT_NAMES",
    "Agent",
    "AllInAgent",
    "CallAgent",
    "HeuristicAgent",
    "MinRaiserAgent",
    "Observation",
    "RaiseAgent",
    "RandomAgent",
    "RangePolicy",
    "ShoverAgent",
    "StationAgent",
    "make_agent",
    "pot_raise_to",
]
