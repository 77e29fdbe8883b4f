"""Hold'em as a protocol game: scripted hands, legality against the engine, information-state keys."""

from __future__ import annotations

import dataclasses
import itertools

import numpy as np
import pytest

from pokerai.abstraction.bets import BetAbstraction, BetMenu
from pokerai.engine.cards import format_cards, parse_cards
from pokerai.engine.equity import equity
from pokerai.engine.state import HUNLConfig, HUNLState
from pokerai.games.hunl import HUNLGame, HUNLGameState
from pokerai.games.protocol import CHANCE, TERMINAL, Game, State

# Player 0 (button) AhKd, player 1 (big blind) a pair of deuces; the board gives player 1 trips.
DECK = parse_cards("Ah Kd 2c 2d Qs 7d 2h 3c 4c")
FOLD, CHECK_CALL, HALF_POT, POT, TWO_POT, ALL_IN = range(6)


def play(state: HUNLGameState, slots: list[int]) -> HUNLGameState:
    for slot in slots:
        state = state.child(slot)
    return state


def test_game_describes_itself() -> None:
    game = HUNLGame()
    assert isinstance(game, Game)
    assert game.name == "hunl(50/100, 200bb, menu 0.5/1/2+all-in)"
    assert game.num_players == 2
    assert game.num_distinct_actions == BetAbstraction().num_slots == 6
    short = HUNLGame(HUNLConfig(stacks=(5_000, 3_000)), BetAbstraction(flop=BetMenu((1.0,), all_in=False)))
    assert short.name == (
        "hunl(50/100, 50bb/30bb, menu preflop 0.5/1/2+all-in flop 1 turn 0.5/1/2+all-in river 0.5/1/2+all-in)"
    )
    capped = BetMenu(all_in_max_pots=2)
    limited = HUNLGame(bets=BetAbstraction(capped, capped, capped, capped))
    assert limited.name == "hunl(50/100, 200bb, menu 0.5/1/2+all-in<=2pot)"
    assert limited.num_distinct_actions == 6  # the all-in slot stays; it is legal only within the limit
    raises = BetMenu(max_raises=2)
    assert HUNLGame(bets=BetAbstraction(raises, raises, raises, raises)).name == (
        "hunl(50/100, 200bb, menu 0.5/1/2+all-in (<=2 raises))"
    )


def test_scripted_hand_goes_to_showdown_with_the_right_returns() -> None:
    state = HUNLGame().from_deck(DECK)
    assert isinstance(state, State)
    assert state.current_player() == 0 and state.street == 0
    assert state.action_name(POT) == "raise to 300"
    state = play(state, [POT])
    assert state.current_player() == 1 and state.raises_this_street == 1
    assert state.action_name(CHECK_CALL) == "call 200"
    state = state.child(CHECK_CALL)
    # The big blind acts first after the flop.
    assert state.street == 1 and state.current_player() == 1 and state.raises_this_street == 0
    assert state.action_name(CHECK_CALL) == "check"
    assert state.action_name(HALF_POT) == "bet 300"
    state = play(state, [CHECK_CALL, HALF_POT])
    assert state.current_player() == 1 and state.raises_this_street == 1
    state = play(state, [CHECK_CALL, CHECK_CALL, CHECK_CALL])
    assert state.street == 3 and state.current_player() == 1
    state = play(state, [CHECK_CALL, CHECK_CALL])
    assert state.is_terminal() and state.current_player() == TERMINAL
    assert state.returns() == (-600.0, 600.0)
    assert state.legal_actions() == ()
    assert not state.legal_mask().any()


def test_fold_and_all_in_hands() -> None:
    game = HUNLGame()
    folded = game.from_deck(DECK).child(FOLD)
    assert folded.is_terminal() and folded.returns() == (-50.0, 50.0)
    shove = game.from_deck(DECK)
    assert shove.action_name(ALL_IN) == "all-in 20000"
    called = play(shove, [ALL_IN, CHECK_CALL])
    assert called.is_terminal() and called.street == 3
    assert called.returns() == (-20_000.0, 20_000.0)


def test_information_state_keys() -> None:
    state = play(HUNLGame().from_deck(DECK), [POT, CHECK_CALL, CHECK_CALL, HALF_POT])
    button_key = state.information_state_key(0)
    big_blind_key = state.information_state_key(1)
    assert button_key == "0|KdAh|2h7dQs|r300,c200/x,b300"
    assert big_blind_key == "1|2c2d|2h7dQs|r300,c200/x,b300"
    for key, opponent_cards in ((button_key, DECK[2:4]), (big_blind_key, DECK[0:2])):
        for card in opponent_cards:
            assert format_cards([card]) not in key
    # Undealt board cards never appear.
    for card in DECK[7:9]:
        assert format_cards([card]) not in button_key
    # The opponent's cards and the order of one's own cards or of the flop do not matter.
    swapped = [DECK[1], DECK[0], 48, 49, DECK[6], DECK[4], DECK[5], 40, 41]
    other = play(HUNLGame().from_deck(swapped), [POT, CHECK_CALL, CHECK_CALL, HALF_POT])
    assert other.information_state_key(0) == button_key
    assert other.information_state_key(1) != big_blind_key
    # Different bet sizes are different histories.
    bigger = play(HUNLGame().from_deck(DECK), [TWO_POT, CHECK_CALL, CHECK_CALL, HALF_POT])
    assert bigger.information_state_key(0) != button_key
    with pytest.raises(ValueError, match="player 2"):
        state.information_state_key(2)


def test_illegal_slots_are_errors_that_name_the_legal_ones() -> None:
    state = play(HUNLGame().from_deck(DECK), [POT, CHECK_CALL])
    assert not state.legal_mask()[FOLD]
    with pytest.raises(ValueError, match=r"action 0 is not legal here; legal actions are 1 \(check\)"):
        state.child(FOLD)
    with pytest.raises(ValueError, match="action 6 is not legal"):
        state.child(6)
    with pytest.raises(ValueError, match="slot 7"):
        state.action_name(7)
    assert state.action_name(FOLD) == "fold (not legal here)"
    with pytest.raises(ValueError, match="still running"):
        state.returns()
    with pytest.raises(ValueError):
        state.legal_mask()[FOLD] = True  # the mask is read-only
    terminal = state.child(CHECK_CALL).child(ALL_IN).child(FOLD)
    with pytest.raises(ValueError, match="game is over"):
        terminal.child(CHECK_CALL)


def test_deal_node_is_sampled_not_enumerated() -> None:
    game = HUNLGame()
    root = game.initial_state()
    assert root.current_player() == CHANCE and root.is_chance()
    with pytest.raises(ValueError, match="sampled, not enumerated"):
        root.chance_outcomes()
    with pytest.raises(ValueError, match="sampled, not enumerated"):
        root.child(0)
    first = root.sample_chance(np.random.default_rng(7))
    second = root.sample_chance(np.random.default_rng(7))
    assert first.engine.deal == second.engine.deal
    assert first.engine.deal == game.deal(np.random.default_rng(7)).engine.deal
    assert first.engine.deal != root.sample_chance(np.random.default_rng(8)).engine.deal
    assert first.current_player() == 0 and first.engine.button == 0
    with pytest.raises(ValueError, match="not a numpy Generator"):
        root.sample_chance(7)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="8 cards"):
        game.from_deck(DECK[:8])


@pytest.mark.parametrize(
    "game",
    [
        HUNLGame(),
        HUNLGame(
            HUNLConfig(small_blind=1, big_blind=2, stacks=(13, 40)), BetAbstraction(preflop=BetMenu(()))
        ),
    ],
    ids=["default", "short-uneven"],
)
def test_random_playouts_terminate_zero_sum_with_engine_legal_slots(game: HUNLGame) -> None:
    rng = np.random.default_rng(2024)
    starting_chips = sum(game.config.stacks)
    for _ in range(150):
        state = game.deal(rng)
        for _ in range(200):
            if state.is_terminal():
                break
            legal = state.legal_actions()
            assert legal, "a decision must offer at least one slot"
            assert list(np.flatnonzero(state.legal_mask())) == list(legal)
            for slot in legal:
                assert state.engine.can_apply(state.slot_action(slot)), state.action_name(slot)
                child = state.child(slot)
                assert sum(child.engine.stacks) + child.engine.pot == starting_chips
            before = state.engine.history[:]
            state = state.child(int(rng.choice(legal)))
            assert len(before) + 1 == len(state.engine.history)
        assert state.is_terminal()
        returns = state.returns()
        assert returns[0] + returns[1] == 0.0


def test_child_does_not_touch_the_parent() -> None:
    state = HUNLGame().from_deck(DECK)
    key = state.information_state_key(0)
    stacks = state.engine.stacks[:]
    state.child(POT)
    state.child(FOLD)
    assert state.information_state_key(0) == key and state.engine.stacks == stacks
    assert state.current_player() == 0


def test_child_equals_a_verified_apply_of_the_slot_action() -> None:
    """The traversal fast path (cached slot amounts, unverified ``after``) plays what ``apply`` would."""
    game = HUNLGame()
    rng = np.random.default_rng(11)
    names = [field.name for field in dataclasses.fields(HUNLState)]
    for _ in range(60):
        state = game.deal(rng)
        while not state.is_terminal():
            for slot in state.legal_actions():
                expected = state.engine.clone()
                expected.apply(state.slot_action(slot))
                child = state.child(slot)
                assert [getattr(child.engine, name) for name in names] == [
                    getattr(expected, name) for name in names
                ]
                if child.is_terminal():
                    assert child.returns() == tuple(float(chips) for chips in expected.returns())
            state = state.child(int(rng.choice(state.legal_actions())))


def test_expected_returns_average_the_all_in_run_outs() -> None:
    game = HUNLGame()
    # Folds and river showdowns: the deal's own returns.
    folded = game.from_deck(DECK).child(FOLD)
    assert folded.expected_returns() == folded.returns()
    river = play(game.from_deck(DECK), [POT, CHECK_CALL] + [CHECK_CALL] * 6)
    assert river.is_terminal() and river.expected_returns() == river.returns() == (-300.0, 300.0)
    # All-in on the flop: the mean of returns() over every turn and river is the expected value.
    line = [POT, CHECK_CALL, ALL_IN, CHECK_CALL]
    flop_all_in = play(game.from_deck(DECK), line)
    first, second = flop_all_in.expected_returns()
    assert first == -second
    dealt = set(DECK[:7])
    outcomes = [
        play(game.from_deck([*DECK[:7], turn, river]), line).returns()[0]
        for turn, river in itertools.permutations([card for card in range(52) if card not in dealt], 2)
    ]
    assert first == pytest.approx(float(np.mean(outcomes)), abs=1e-6)
    assert first != flop_all_in.returns()[0]
    # Preflop: committed * (2 * equity - 1) from seeded run-outs, near the exact equity.
    preflop = play(game.from_deck(DECK), [ALL_IN, CHECK_CALL])
    exact = equity(DECK[0:2], DECK[2:4]).equity[0]
    assert preflop.expected_returns()[0] == pytest.approx(20_000 * (2 * exact - 1), abs=20_000 * 0.1)
    assert preflop.expected_returns() == preflop.expected_returns()
    with pytest.raises(ValueError, match="still running"):
        game.from_deck(DECK).expected_returns()
