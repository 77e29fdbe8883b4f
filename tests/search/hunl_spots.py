"""Scripted hold'em spots for the search tests, on the shipped blueprint's game."""

from __future__ import annotations

from pathlib import Path

from pokerai.deepcfr.export import Blueprint
from pokerai.engine.cards import parse_cards
from pokerai.engine.state import Action, ActionKind, HUNLState

CHECKPOINT = Path(__file__).resolve().parents[2] / "checkpoints" / "hunl_tiny_v1"
CAPPED = Path(__file__).resolve().parents[2] / "checkpoints" / "hunl_tiny"
"""The shipped blueprint: its menu has no all-in over 2 pots and at most two raises a street."""
DECK = parse_cards("AhKd 7c7d Qs9h2c 5d 3s")
"""Player 0's hole cards, player 1's, then the board."""
CHECKED_DOWN = [
    (0, ActionKind.CALL, 50),
    (1, ActionKind.CHECK, 0),
    (1, ActionKind.CHECK, 0),
    (0, ActionKind.CHECK, 0),
    (1, ActionKind.CHECK, 0),
    (0, ActionKind.CHECK, 0),
]
"""Limp, check, and checks to the river, where player 1 (the big blind) acts first."""


def scripted(blueprint: Blueprint, actions: list[tuple[int, ActionKind, int]]) -> HUNLState:
    """A hand on DECK, player 0 on the button, with ``actions`` (player, kind, amount) applied."""
    state = HUNLState.new(blueprint.game.config, 0, deck=DECK)
    for player, kind, amount in actions:
        state.apply(Action(player, kind, amount))
    return state
