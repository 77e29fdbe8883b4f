"""What a seat is told when a hand ends (``HandSummary``), and that every match tells both seats."""

from __future__ import annotations

import pytest

from pokerai.agents.base import HandSummary
from pokerai.engine.state import Action, ActionKind, HUNLConfig, HUNLState
from pokerai.eval.duplicate import duplicate_match
from tests.eval.toy_agents import RecordingCaller
from tests.search.hunl_spots import CHECKED_DOWN, DECK

BOARD = tuple(DECK[4:9])
RIVER_CHECK = (1, ActionKind.CHECK, 0)


def _summary(actions: list[tuple[int, ActionKind, int]], player: int = 0) -> HandSummary:
    state = _scripted(actions)
    assert state.is_over
    return HandSummary.from_state(state, player)


def _scripted(actions: list[tuple[int, ActionKind, int]]) -> HUNLState:
    state = HUNLState.new(HUNLConfig(), 0, deck=DECK)
    for player, kind, amount in actions:
        state.apply(Action(player, kind, amount))
    return state


def test_hand_summaries_show_the_opponents_cards_only_at_a_showdown() -> None:
    showdown = _summary([*CHECKED_DOWN, RIVER_CHECK, (0, ActionKind.CHECK, 0)])
    assert showdown.opponent_cards == tuple(DECK[2:4]) and showdown.hole_cards == tuple(DECK[0:2])
    assert showdown.board == BOARD and showdown.street_starts == (0, 2, 4, 6)
    assert showdown.returns == (-100, 100), "ace-king high loses to the sevens"
    folded = _summary([*CHECKED_DOWN, (1, ActionKind.RAISE, 100), (0, ActionKind.FOLD, 0)])
    assert folded.opponent_cards is None and folded.board == BOARD
    with pytest.raises(ValueError, match="not over"):
        HandSummary.from_state(_scripted(CHECKED_DOWN), 0)


def test_a_duplicate_match_tells_both_seats_how_each_hand_ended() -> None:
    first, second = RecordingCaller(), RecordingCaller()
    duplicate_match(first, second, 5, seed=2)
    assert len(first.summaries) == len(second.summaries) == 10
    for mine, theirs in zip(first.summaries, second.summaries, strict=True):
        assert mine.player == 1 - theirs.player
        assert mine.opponent_cards == theirs.hole_cards, "two callers always reach a showdown"
        assert len(mine.board) == 5
