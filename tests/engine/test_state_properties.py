"""Property tests: random hands with random legal actions, short and unequal stacks included.

Checked at every step: chips are conserved; whose turn it is follows the
positions (button first preflop, big blind first after, players alternate);
the minimum and maximum raise-to agree with an independent tally of the
largest raise on the street; raises just outside the bounds are refused. At
the end: no action is legal, returns sum to zero, nobody loses more than its
stack, and a showdown has all five board cards.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from pokerai.engine.state import ActionKind, HUNLConfig, HUNLState


@st.composite
def configs(draw: st.DrawFn) -> HUNLConfig:
    big = draw(st.integers(1, 200))
    small = draw(st.integers(1, big))
    stack = st.one_of(st.integers(1, 6 * big), st.integers(big, 300 * big))
    return HUNLConfig(small, big, (draw(stack), draw(stack)))


def check_terminal(state: HUNLState) -> None:
    total = sum(state.config.stacks)
    assert state.to_act is None and state.legal_actions() == ()
    assert not state.can_fold() and not state.can_check_or_call() and not state.can_check()
    assert not state.can_call() and not state.can_raise_to(state.config.big_blind)
    assert state.min_raise_to is None and state.max_raise_to is None and state.call_amount == 0
    returns = state.returns()
    assert sum(returns) == 0 and sum(state.stacks) == total and state.pot == 0
    assert all(stack >= 0 for stack in state.stacks)
    assert all(returns[p] >= -state.config.stacks[p] for p in (0, 1))
    if state.folded is None:
        assert len(state.board) == 5 and state.street == 3
    else:
        assert returns[state.folded] < 0


@settings(max_examples=600, deadline=None)
@given(config=configs(), button=st.integers(0, 1), seed=st.integers(0, 2**32 - 1), data=st.data())
def test_random_hands_keep_the_invariants(
    config: HUNLConfig, button: int, seed: int, data: st.DataObject
) -> None:
    state = HUNLState.new(config, button, rng=np.random.default_rng(seed))
    total = sum(config.stacks)
    big_blind_player = 1 - button
    street, previous_actor, largest_increment = -1, None, 0
    while not state.is_over:
        assert sum(state.stacks) + state.pot == total
        assert state.pot == sum(state.committed) and all(
            b <= c for b, c in zip(state.bets, state.committed, strict=True)
        )
        actor = state.to_act
        assert actor is not None and state.stacks[actor] > 0
        if state.street != street:  # the first decision of a street
            street, previous_actor, largest_increment = state.street, None, 0
            if street == 0:
                assert actor == button or state.stacks[button] == 0
            else:
                assert actor == big_blind_player and state.bets == [0, 0]
        else:
            assert actor != previous_actor, "players alternate within a street"
        previous_actor = actor
        assert len(state.board) == (0, 3, 4, 5)[state.street]

        kinds = state.legal_actions()
        facing = state.bets[1 - actor] - state.bets[actor]
        assert (ActionKind.FOLD in kinds) == (facing > 0) == (ActionKind.CALL in kinds)
        assert (ActionKind.CHECK in kinds) == (facing == 0)
        assert state.call_amount == min(facing, state.stacks[actor])
        if ActionKind.RAISE in kinds:
            low, high = state.min_raise_to, state.max_raise_to
            assert low is not None and high is not None
            assert high == state.stacks[actor] + state.bets[actor]
            assert low == min(state.bets[1 - actor] + max(largest_increment, config.big_blind), high)
            assert state.can_raise_to(low) and state.can_raise_to(high)
            assert not state.can_raise_to(low - 1) and not state.can_raise_to(high + 1)
        else:
            assert state.min_raise_to is None and not state.can_raise_to(
                state.stacks[actor] + state.bets[actor]
            )
            assert state.stacks[1 - actor] == 0 or state.stacks[actor] <= facing

        kind = data.draw(st.sampled_from(kinds))
        if kind is ActionKind.RAISE:
            assert state.min_raise_to is not None and state.max_raise_to is not None
            amount = data.draw(
                st.one_of(
                    st.just(state.min_raise_to),
                    st.just(state.max_raise_to),
                    st.integers(state.min_raise_to, state.max_raise_to),
                )
            )
            increment = amount - state.bets[1 - actor]
            all_in = amount == state.stacks[actor] + state.bets[actor]
            assert all_in or increment >= max(largest_increment, config.big_blind), "the minimum raise rule"
            largest_increment = max(largest_increment, increment)
            state.raise_to(amount)
        elif kind is ActionKind.FOLD:
            state.fold()
        elif kind is ActionKind.CHECK:
            state.check()
        else:
            state.call()
    check_terminal(state)


@settings(max_examples=200, deadline=None)
@given(config=configs(), button=st.integers(0, 1), seed=st.integers(0, 2**32 - 1))
def test_always_calling_reaches_a_showdown(config: HUNLConfig, button: int, seed: int) -> None:
    state = HUNLState.new(config, button, rng=np.random.default_rng(seed))
    while not state.is_over:
        state.check_or_call()
    check_terminal(state)
    assert state.folded is None and state.final_pot == 2 * min(state.committed)
