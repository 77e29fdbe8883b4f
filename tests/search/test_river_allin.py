"""All-in at any size inside the river search (``river_allin``) on the shipped, capped blueprint."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from pokerai.abstraction.bets import BetAbstraction, BetMenu
from pokerai.agents.base import Observation
from pokerai.agents.search import SearchAgent
from pokerai.agents.spec import make_agent
from pokerai.deepcfr.export import Blueprint
from pokerai.engine.cards import parse_cards
from pokerai.engine.state import Action, ActionKind
from pokerai.search.combos import ALL_COMBOS, NUM_COMBOS, combo_index, combos_holding
from pokerai.search.config import RiverSearch, SearchConfig
from pokerai.search.river import build_river_subgame, with_any_allin
from pokerai.search.subgame import counterfactual_values, solve
from tests.search.hunl_spots import CAPPED, CHECKED_DOWN, scripted

RIVER_CHECKED = [*CHECKED_DOWN, (1, ActionKind.CHECK, 0)]
"""Limp and checks to the river, where the big blind checks: the button acts on a 200-chip pot.
The board is Qs 9h 2c 5d 3s, where 4-6 is the nuts."""


def combos(text: str, board: tuple[int, ...]) -> np.ndarray:
    """Indicator ``[1326]`` of every combination of the two ranks in ``text`` (e.g. "46") off the board."""
    first, second = (parse_cards("".join(f"{text[i]}{suit}" for suit in "cdhs")) for i in (0, 1))
    result = np.zeros(NUM_COMBOS)
    for a in first:
        for b in second:
            if a != b:
                result[combo_index(a, b)] = 1.0
    result[combos_holding(board)] = 0.0
    return result


def test_the_search_menu_opens_all_in_on_the_river_only() -> None:
    menu = BetMenu(pot_fractions=(0.5, 1.0, 2.0), all_in=True, all_in_max_pots=2, max_raises=2)
    bets = BetAbstraction(menu, menu, menu, menu)
    wide = with_any_allin(bets)
    assert wide.river.all_in_max_pots == 0.0 and wide.river.max_raises == 2
    assert wide.river.pot_fractions == menu.pot_fractions
    assert (wide.preflop, wide.flop, wide.turn) == (menu, menu, menu)
    assert wide.num_slots == bets.num_slots and wide.all_in_slot == bets.all_in_slot
    no_all_in = dataclasses.replace(menu, all_in=False)
    with pytest.raises(ValueError, match="no all-in slot"):
        with_any_allin(BetAbstraction(menu, menu, menu, no_all_in))
    # With a 3-pot fraction and a 2-pot cap, a stack of 2.5 pots makes the 3-pot slot the blueprint's
    # all-in, which the open menu would give to the all-in slot instead.
    above_cap = dataclasses.replace(menu, pot_fractions=(0.5, 1.0, 3.0))
    with pytest.raises(ValueError, match="largest pot fraction 3 exceeds its all-in cap of 2 pots"):
        with_any_allin(BetAbstraction(menu, menu, menu, above_cap))


def test_a_polarised_range_shoves_the_nuts_and_gains_from_the_open_all_in(capped: Blueprint) -> None:
    """The nuts and air against bluff-catchers: the larger the bet, the more the polarised player wins.

    Each player has 100 chips in a 200-chip pot. At equilibrium the opponent calls a bet of s pots
    with probability 1/(1 + s), so the bluffs get what checking gets (−100) and the nuts win
    100 + 200·s/(1 + s): 233.3 for the capped menu's 2-pot bet, 298.0 for the 99.5-pot all-in. With
    half the range nuts the bettor's value is 0.5·(233.3 − 100) = 66.7 chips capped, 0.5·(298.0 − 100)
    = 99.0 open.
    """
    state = scripted(capped, RIVER_CHECKED)
    assert state.to_act == 0 and state.pot == 200
    board = tuple(state.board)
    beliefs = np.zeros((2, NUM_COMBOS))
    beliefs[0] = combos("46", board) + combos("87", board)  # 16 nut straights, 16 air
    beliefs[1] = combos("JJ", board)  # 6 bluff-catchers
    beliefs /= beliefs.sum(axis=1, keepdims=True)
    hands = np.flatnonzero((beliefs[0] > 0) | (beliefs[1] > 0))
    all_in = capped.game.bets.all_in_slot
    values = {}
    for name, bets in (("capped", capped.game.bets), ("open", with_any_allin(capped.game.bets))):
        river = build_river_subgame(state, bets, beliefs, max_raises=1, hands=hands)
        assert (all_in in river.root_slots) == (name == "open")
        solution = solve(river.subgame, 2000)
        root_values = counterfactual_values(river.subgame, solution.average, 0)[0]
        values[name] = float(root_values @ river.subgame.reach[0] / river.subgame.reach[0].sum())
        if name == "open":
            nuts = np.isin(river.hands, np.flatnonzero(combos("46", board)))
            strategy = solution.strategy(river.subgame, 0)[nuts]
            assert strategy[:, river.root_slots.index(all_in)].mean() > 0.8
    assert values["capped"] == pytest.approx(66.7, abs=3)
    assert values["open"] == pytest.approx(99.0, abs=3)


def test_the_agent_offers_the_all_in_its_blueprint_lacks(capped: Blueprint) -> None:
    state = scripted(capped, RIVER_CHECKED)
    all_in = capped.game.bets.all_in_slot
    assert state.max_raise_to is not None
    shove = Action(0, ActionKind.RAISE, state.max_raise_to)
    river = RiverSearch(iterations=30, budget_ms=None)
    wide = SearchAgent(capped, SearchConfig(river=river, river_allin=True), threshold=0.3)
    plain = SearchAgent(capped, SearchConfig(river=river), threshold=0.3)
    _, plain_actions = plain.decision(Observation.from_state(state))
    assert plain_actions[all_in] is None  # a 99.5-pot all-in is off the capped menu
    shoved = 0
    for combo in np.flatnonzero(~combos_holding(state.board))[::23]:
        hole = (int(ALL_COMBOS[combo, 0]), int(ALL_COMBOS[combo, 1]))
        observation = dataclasses.replace(Observation.from_state(state), hole_cards=hole)
        probabilities, actions = wide.decision(observation)
        assert actions[all_in] == shove
        assert probabilities.sum() == pytest.approx(1.0)
        assert all(actions[slot] is not None for slot in np.flatnonzero(probabilities > 0))
        assert wide.action_probability(observation, shove) == pytest.approx(probabilities[all_in])
        shoved += probabilities[all_in] > 0
    assert wide.solves == 1
    assert shoved > 0, "some hand goes all-in when the search may"


def test_the_safe_search_with_the_open_all_in_plays_legal_slots(capped: Blueprint) -> None:
    state = scripted(capped, RIVER_CHECKED)
    agent = SearchAgent(
        capped,
        SearchConfig(river=RiverSearch(iterations=30, budget_ms=None), safe=True, river_allin=True),
        threshold=0.3,
    )
    for combo in np.flatnonzero(~combos_holding(state.board))[::97]:
        hole = (int(ALL_COMBOS[combo, 0]), int(ALL_COMBOS[combo, 1]))
        probabilities, actions = agent.decision(
            dataclasses.replace(Observation.from_state(state), hole_cards=hole)
        )
        assert probabilities.sum() == pytest.approx(1.0) and probabilities.min() >= 0
        assert actions[capped.game.bets.all_in_slot] is not None
        assert all(actions[slot] is not None for slot in np.flatnonzero(probabilities > 0))


def test_spec_option() -> None:
    agent = make_agent(f"search:{CAPPED}?threshold=0.3&river_allin=1")
    assert isinstance(agent, SearchAgent) and agent.config.river_allin
    assert not make_agent(f"search:{CAPPED}").config.river_allin  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match="river_allin: expected true or false, got 'yes'"):
        make_agent(f"search:{CAPPED}?river_allin=yes")
