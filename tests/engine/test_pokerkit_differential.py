"""Differential test: pokerai's HUNL engine against pokerkit, the same deals and actions in both.

At every decision both engines must agree on whose turn it is, the legal action
kinds, the amount to call and the minimum and maximum raise-to; at the end, on
every player's final stack.

Seat mapping: pokerkit's heads-up hold'em gives player index 0 the big blind and
index 1 the small blind (the button), so pokerkit index = 1 if our player is the
button else 0 (the same numbering as the ACPC seats).

One deliberate difference: when the small blind calls all-in preflop for no
more than the big blind, pokerkit still asks the big blind to check (its only
legal action); pokerai has no decision there and deals the board. The driver
plays that forced check in pokerkit. The random blinds are never equal: with
equal blinds pokerkit lets the big blind act first preflop, pokerai the button.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

from pokerai.engine.cards import format_cards
from pokerai.engine.state import ActionKind, HUNLConfig, HUNLState
from tests.engine.test_state import choose, random_config

pokerkit = pytest.importorskip("pokerkit")

AUTOMATIONS = (
    pokerkit.Automation.ANTE_POSTING,
    pokerkit.Automation.BET_COLLECTION,
    pokerkit.Automation.BLIND_OR_STRADDLE_POSTING,
    pokerkit.Automation.HOLE_CARDS_SHOWING_OR_MUCKING,
    pokerkit.Automation.HAND_KILLING,
    pokerkit.Automation.CHIPS_PUSHING,
    pokerkit.Automation.CHIPS_PULLING,
)


def _pokerkit_state(config: HUNLConfig, button: int, deal: tuple[int, ...]) -> Any:
    seat_stacks = (config.stacks[1 - button], config.stacks[button])  # pokerkit 0: big blind, 1: button
    state = pokerkit.NoLimitTexasHoldem.create_state(
        AUTOMATIONS, True, 0, (config.small_blind, config.big_blind), config.big_blind, seat_stacks, 2
    )
    holes = {1 - button: format_cards(deal[2 * (1 - button) : 2 * (1 - button) + 2]),
             button: format_cards(deal[2 * button : 2 * button + 2])}  # fmt: skip
    while state.can_deal_hole():
        seat = state.hole_dealee_index
        player = button if seat == 1 else 1 - button
        state.deal_hole(holes[player])
    return state


def _pokerkit_progress(pk: Any, deal: tuple[int, ...], dealt: list[int]) -> None:
    """Burn and deal board cards in pokerkit until it waits for a player or is over."""
    while True:
        if pk.can_burn_card():
            pk.burn_card("??")
        elif pk.can_deal_board():
            count = pk.board_dealing_count
            pk.deal_board(format_cards(deal[4 + dealt[0] : 4 + dealt[0] + count]))
            dealt[0] += count
        else:
            return


def play_both(config: HUNLConfig, button: int, rng: np.random.Generator) -> tuple[HUNLState, int]:
    """Play one random hand in both engines, asserting agreement at every step; returns (ours, decisions)."""
    ours = HUNLState.new(config, button, rng=rng)
    pk = _pokerkit_state(config, button, ours.deal)
    dealt = [0]

    def seat(player: int) -> int:
        return 1 if player == button else 0

    decisions = 0
    while True:
        _pokerkit_progress(pk, ours.deal, dealt)
        actor = pk.actor_index
        if ours.to_act is None and actor is not None:
            # pokerkit's forced check by a player who already covers an all-in (see the module docstring).
            assert pk.checking_or_calling_amount == 0
            assert not pk.can_fold() and not pk.can_complete_bet_or_raise_to()
            pk.check_or_call()
            continue
        context = f"{config}, button {button}, history {[str(a) for a in ours.history]}"
        if ours.to_act is None:
            assert actor is None, context
            break
        assert actor == seat(ours.to_act), context
        assert len(pk.board_cards) == len(ours.board), context
        kinds = set(ours.legal_actions())
        call = pk.checking_or_calling_amount
        theirs = set()
        if pk.can_fold():
            theirs.add(ActionKind.FOLD)
        if pk.can_check_or_call():
            theirs.add(ActionKind.CALL if call else ActionKind.CHECK)
        if pk.can_complete_bet_or_raise_to():
            theirs.add(ActionKind.RAISE)
        assert kinds == theirs, context
        assert ours.call_amount == call, context
        assert ours.min_raise_to == pk.min_completion_betting_or_raising_to_amount, context
        assert ours.max_raise_to == pk.max_completion_betting_or_raising_to_amount, context
        kind, amount = choose(ours, rng)
        decisions += 1
        if kind is ActionKind.FOLD:
            ours.fold()
            pk.fold()
        elif kind is ActionKind.RAISE:
            ours.raise_to(amount)
            pk.complete_bet_or_raise_to(amount)
        else:
            ours.check_or_call()
            pk.check_or_call()
    assert not pk.status
    final = [pk.stacks[seat(0)], pk.stacks[seat(1)]]
    assert ours.stacks == final, f"{config}, button {button}, {ours.history}, board {ours.board}"
    return ours, decisions


def _run(hands: int, seed: int) -> tuple[int, set[str]]:
    rng = np.random.default_rng(seed)
    decisions = 0
    endings: set[str] = set()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for hand in range(hands):
            state, count = play_both(random_config(rng), hand % 2, rng)
            decisions += count
            if state.folded is not None:
                endings.add("fold")
            elif 0 in state.stacks or 0 in [
                s - r for s, r in zip(state.config.stacks, state.returns(), strict=True)
            ]:
                endings.add("all-in showdown")
            else:
                endings.add("showdown")
            if state.returns() == (0, 0) and state.folded is None:
                endings.add("split")
    return decisions, endings


@pytest.mark.slow  # about 5 s
def test_same_bounds_and_results_as_pokerkit() -> None:
    decisions, endings = _run(2_000, seed=20261129)
    assert decisions > 4_000
    assert endings >= {"fold", "showdown", "all-in showdown", "split"}


@pytest.mark.slow
def test_same_bounds_and_results_as_pokerkit_many_hands() -> None:
    decisions, _ = _run(30_000, seed=7)
    assert decisions > 60_000
