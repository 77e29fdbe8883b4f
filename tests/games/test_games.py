"""The small games: rules, counts and the protocol's error behaviour."""

from __future__ import annotations

import math

import pytest

from pokerai.games import GAME_NAMES, AKQGame, Game, KuhnPoker, LeducPoker, State, make_game
from pokerai.games.leduc import CALL, FOLD, RAISE, LeducState


def all_states(game: Game) -> list[State]:
    found: list[State] = []

    def walk(state: State) -> None:
        found.append(state)
        if state.is_terminal():
            return
        moves = [o for o, _ in state.chance_outcomes()] if state.is_chance() else state.legal_actions()
        for move in moves:
            walk(state.child(move))

    walk(game.initial_state())
    return found


def infoset_keys(game: Game) -> set[str]:
    return {
        s.information_state_key(s.current_player())
        for s in all_states(game)
        if not s.is_terminal() and not s.is_chance()
    }


@pytest.mark.parametrize("name", GAME_NAMES)
def test_protocol_invariants(name: str) -> None:
    game = make_game(name)
    assert isinstance(game, Game)
    for state in all_states(game):
        assert isinstance(state, State)
        if state.is_terminal():
            returns = state.returns()
            assert returns[0] + returns[1] == 0.0
            assert not state.legal_actions()
        elif state.is_chance():
            assert math.isclose(sum(p for _, p in state.chance_outcomes()), 1.0)
        else:
            assert state.current_player() in (0, 1)
            actions = list(state.legal_actions())
            assert actions == sorted(actions)
            assert all(0 <= a < game.num_distinct_actions for a in actions)


def test_information_set_counts() -> None:
    assert len(infoset_keys(KuhnPoker())) == 12
    assert len(infoset_keys(LeducPoker())) == 936
    assert infoset_keys(AKQGame(2.0)) == {"A:", "Q:", "K:b"}


def test_kuhn_has_30_terminal_histories() -> None:
    assert sum(s.is_terminal() for s in all_states(KuhnPoker())) == 30


def test_leduc_tree_size() -> None:
    states = all_states(LeducPoker())
    # 9,457 nodes, the figure OpenSpiel's leduc_poker also has.
    assert len(states) == 9457
    assert sum(s.is_terminal() for s in states) == 30 * (4 + 5 * 4 * 9)


def play(state: State, *moves: int) -> State:
    for move in moves:
        state = state.child(move)
    return state


def test_leduc_payoffs() -> None:
    root = LeducPoker().initial_state()
    ks, kh, qs, js = 4, 5, 2, 0
    # Raise 2, re-raise 2, call: 1 + 2 + 2 = 5 each in round one; then check-check.
    # Board Qs pairs nobody; K beats J.
    state = play(root, ks, js, RAISE, RAISE, CALL, qs, CALL, CALL)
    assert state.is_terminal() and state.returns() == (5.0, -5.0)
    # Same, but the board pairs player 1's jack: pair beats the higher card.
    state = play(root, ks, js, RAISE, RAISE, CALL, 1, CALL, CALL)
    assert state.returns() == (-5.0, 5.0)
    # Second round raises are 4: check, raise 4, raise 4 more, call -> 1 + 8 each.
    state = play(root, ks, js, CALL, CALL, qs, CALL, RAISE, RAISE, CALL)
    assert state.returns() == (9.0, -9.0)
    # Equal ranks split the pot.
    state = play(root, ks, kh, CALL, CALL, qs, CALL, CALL)
    assert state.returns() == (0.0, 0.0)
    # Player 0 folds to a first-round raise: loses only the ante.
    state = play(root, qs, ks, CALL, RAISE, FOLD)
    assert state.returns() == (-1.0, 1.0)


def test_leduc_betting_structure() -> None:
    state = play(LeducPoker().initial_state(), 0, 2)
    assert list(state.legal_actions()) == [CALL, RAISE]  # no fold without a bet
    assert state.action_name(CALL) == "check" and state.action_name(RAISE) == "bet"
    state = play(state, RAISE, RAISE)
    assert list(state.legal_actions()) == [FOLD, CALL]  # two raises a round at most
    assert state.current_player() == 0
    state = play(state, CALL)
    assert state.is_chance() and len(state.chance_outcomes()) == 4
    state = play(state, 4)
    assert state.current_player() == 0  # player 0 opens the second round too
    assert isinstance(state, LeducState)
    assert state.information_state_key(1) == "Qs Ks:rrc/"


def test_kuhn_payoffs_and_keys() -> None:
    root = KuhnPoker().initial_state()
    state = play(root, 0, 2, 0, 1, 1)  # J vs K: check, bet, call
    assert state.returns() == (-2.0, 2.0)
    assert play(root, 0, 2, 1, 0).returns() == (1.0, -1.0)  # bet, fold
    assert play(root, 2, 1, 0).information_state_key(1) == "Q:p"


def test_akq_payoffs() -> None:
    root = AKQGame(2.0).initial_state()
    assert play(root, 0, 0).returns() == (0.5, -0.5)  # A checks and wins the antes
    assert play(root, 1, 1, 1).returns() == (-2.5, 2.5)  # Q bets 2, called
    assert play(root, 1, 1, 0).returns() == (0.5, -0.5)  # Q bets, K folds


@pytest.mark.parametrize("name", GAME_NAMES)
def test_illegal_action_is_a_clear_error(name: str) -> None:
    root = make_game(name).initial_state()
    with pytest.raises(ValueError, match="chance outcome 9 is not possible"):
        root.child(9)
    state = root
    while state.is_chance():
        state = state.child(state.chance_outcomes()[0][0])
    with pytest.raises(ValueError, match=r"action 7 is not legal here; legal actions are"):
        state.child(7)
    while not state.is_terminal():
        moves = [o for o, _ in state.chance_outcomes()] if state.is_chance() else state.legal_actions()
        state = state.child(moves[0])
    with pytest.raises(ValueError, match="the game is over"):
        state.child(0)


def test_bad_game_arguments() -> None:
    with pytest.raises(ValueError, match="unknown game 'chess'"):
        make_game("chess")
    for bad in (0, -1.0, math.inf, math.nan):
        with pytest.raises(ValueError, match="bet size must be a positive number"):
            AKQGame(bad)
    with pytest.raises(ValueError, match="only applies to the akq game"):
        make_game("kuhn", bet_size=2.0)
    with pytest.raises(ValueError, match="returns are only defined"):
        KuhnPoker().initial_state().returns()
