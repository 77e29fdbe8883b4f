"""Agents (layer 6): every policy that picks a hold'em action, behind one interface."""

from __future__ import annotations

from pokerai.agents.base import Agent, Observation

__all__ = ["Agent", "Observation"]
