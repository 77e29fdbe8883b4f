"""Scripted hands with fixed cards: final stacks, the min-raise rule, errors leaving the state unchanged.

Also holds the random-play helpers (``random_config``, ``choose``) shared with the history and
pokerkit differential tests.
"""

from __future__ import annotations

import numpy as np
import pytest

from pokerai.engine.cards import parse_cards
from pokerai.engine.state import Action, ActionKind, HUNLConfig, HUNLState, Street

FOLD, CHECK, CALL, RAISE = ActionKind.FOLD, ActionKind.CHECK, ActionKind.CALL, ActionKind.RAISE


def deal(text: str) -> list[int]:
    """Nine cards: player 0's hole, player 1's hole, flop, turn, river."""
    cards = parse_cards(text)
    assert len(cards) == 9
    return cards


def random_config(rng: np.random.Generator) -> HUNLConfig:
    """Blinds and stacks drawn to cover deep, short, unequal and below-a-blind stacks."""
    big = int(rng.integers(2, 201))
    small = int(rng.integers(1, big))  # not equal: pokerkit then lets the big blind open preflop
    shape = rng.random()
    if shape < 0.4:
        stacks = (int(rng.integers(big, 300 * big)), int(rng.integers(big, 300 * big)))
    elif shape < 0.7:
        stacks = (int(rng.integers(1, 6 * big)), int(rng.integers(1, 6 * big)))
    elif shape < 0.85:
        stacks = (int(rng.integers(1, 4 * big)), int(rng.integers(big, 200 * big)))
    else:
        equal = int(rng.integers(1, 200 * big))
        stacks = (equal, equal)
    return HUNLConfig(small, big, stacks)


def choose(state: HUNLState, rng: np.random.Generator) -> tuple[ActionKind, int]:
    """A random legal action: (kind, raise-to). Raises are min, all-in or uniform between, a third each."""
    kinds = state.legal_actions()
    weights = [{ActionKind.FOLD: 1.0, ActionKind.CHECK: 4.0, ActionKind.CALL: 4.0, ActionKind.RAISE: 3.0}[k]
               for k in kinds]  # fmt: skip
    pick = rng.random() * sum(weights)
    kind = kinds[-1]
    for candidate, weight in zip(kinds, weights, strict=True):
        if pick < weight:
            kind = candidate
            break
        pick -= weight
    if kind is not ActionKind.RAISE:
        return kind, 0
    low, high = state.min_raise_to, state.max_raise_to
    assert low is not None and high is not None
    shape = rng.random()
    amount = low if shape < 1 / 3 else high if shape < 2 / 3 else int(rng.integers(low, high + 1))
    return kind, amount


def snapshot(state: HUNLState) -> tuple[object, ...]:
    return (
        tuple(state.stacks), tuple(state.bets), tuple(state.committed), state.street, state.to_act,
        state.is_over, state.folded, tuple(state.history), tuple(state.street_starts),
        state.last_raise_size, tuple(state.acted), state.board, state.pot,
    )  # fmt: skip


def test_blinds_positions_and_board_dealt_so_far() -> None:
    state = HUNLState.new(HUNLConfig(), button=1, deck=deal("2c3c AhKh 7d8d9d Td Jd"))
    assert state.stacks == [19_900, 19_950] and state.bets == [100, 50] and state.pot == 150
    assert state.to_act == 1 and state.street == Street.PREFLOP and state.board == ()
    assert state.hole_cards(1) == tuple(parse_cards("AhKh"))
    assert state.legal_actions() == (FOLD, CALL, RAISE)
    assert (state.call_amount, state.min_raise_to, state.max_raise_to) == (50, 200, 20_000)
    state.call()  # the button limps; the big blind has the option
    assert state.to_act == 0 and state.legal_actions() == (CHECK, RAISE) and state.min_raise_to == 200
    state.check()
    assert state.street == Street.FLOP and state.board == tuple(parse_cards("7d8d9d"))
    assert state.to_act == 0, "the big blind acts first after the flop"
    assert state.bets == [0, 0] and state.min_raise_to == 100
    state.check()
    assert state.to_act == 1
    state.check()
    assert state.street == Street.TURN and len(state.board) == 4 and state.to_act == 0
    state.raise_to(150)  # a bet
    assert state.min_raise_to == 300 and state.to_act == 1
    state.call()
    assert state.street == Street.RIVER and len(state.board) == 5
    state.check()
    state.check()
    assert state.is_over and state.to_act is None
    # The board 7d8d9dTdJd is a straight flush that neither player improves: a split.
    assert state.returns() == (0, 0) and state.stacks == [20_000, 20_000] and state.final_pot == 500


def test_uncalled_raise_is_returned_when_the_other_folds() -> None:
    state = HUNLState.new(HUNLConfig(), button=0, deck=deal("AhAd KcKd 2c7h9s Jd 3c"))
    state.raise_to(300)
    state.raise_to(900)
    state.fold()
    assert state.folded == 0 and state.is_over and state.final_pot == 600
    assert state.returns() == (-300, 300) and state.stacks == [19_700, 20_300]


def test_uncalled_part_of_a_bet_returned_when_a_short_stack_calls_all_in() -> None:
    config = HUNLConfig(stacks=(3_000, 20_000))
    state = HUNLState.new(config, button=0, deck=deal("7c2d AhAs KdKc9h 4s 3d"))
    state.call()
    state.check()
    assert state.street == Street.FLOP and state.to_act == 1
    state.raise_to(10_000)  # player 1 bets far more than player 0 has
    assert state.legal_actions() == (FOLD, CALL) and state.call_amount == 2_900
    state.call()  # all-in for less: 7,100 of the bet is uncalled
    assert state.is_over and state.street == Street.RIVER and len(state.board) == 5
    assert state.final_pot == 6_000
    assert state.stacks == [0, 23_000] and state.returns() == (-3_000, 3_000)


def test_short_all_in_raise_does_not_reopen_the_betting() -> None:
    config = HUNLConfig(stacks=(20_000, 450))
    state = HUNLState.new(config, button=0, deck=deal("AhAd KcKd 2c7h9s Jd 3c"))
    state.raise_to(300)
    assert state.min_raise_to == 450 and state.max_raise_to == 450, "the short stack can only go all-in"
    state.raise_to(450)  # a raise by 150, less than the full 200
    assert state.to_act == 0
    assert state.legal_actions() == (FOLD, CALL)
    assert state.min_raise_to is None and state.max_raise_to is None
    before = snapshot(state)
    with pytest.raises(
        ValueError, match="all-in raise to 450 was less than a full raise and does not reopen"
    ):
        state.raise_to(1_000)
    assert snapshot(state) == before
    state.call()
    assert state.is_over and state.stacks == [20_450, 0] and state.returns() == (450, -450)


def test_a_player_who_has_not_acted_cannot_raise_an_all_in_opponent() -> None:
    config = HUNLConfig(stacks=(150, 20_000))
    state = HUNLState.new(config, button=0, deck=deal("AhAd KcKd 2c7h9s Jd 3c"))
    assert state.min_raise_to == 150 == state.max_raise_to
    state.raise_to(150)  # all-in for a raise of 50
    assert state.to_act == 1 and state.legal_actions() == (FOLD, CALL)
    with pytest.raises(ValueError, match="player 1 cannot raise: player 0 is all-in"):
        state.raise_to(400)
    state.call()
    assert state.stacks == [300, 19_850]


def test_minimum_raise_tracks_the_largest_raise_on_the_street() -> None:
    state = HUNLState.new(HUNLConfig(), button=0, deck=deal("AhAd KcKd 2c7h9s Jd 3c"))
    state.raise_to(300)  # +200
    assert state.min_raise_to == 500
    state.raise_to(1_000)  # +700
    assert state.min_raise_to == 1_700
    before = snapshot(state)
    with pytest.raises(ValueError, match=r"^raise to 1600 is below the minimum raise to 1700$"):
        state.raise_to(1_600)
    assert snapshot(state) == before
    state.call()
    assert state.street == Street.FLOP and state.min_raise_to == 100, "a new street starts at one big blind"
    state.raise_to(250)
    assert state.min_raise_to == 500


def test_split_pot() -> None:
    state = HUNLState.new(HUNLConfig(), button=0, deck=deal("2c3d 4h5c AsKsQsJsTs"))
    state.raise_to(300)
    state.call()
    for _ in range(3):
        state.raise_to(200)
        state.call()
    assert state.is_over and state.folded is None and state.final_pot == 1_800
    assert state.returns() == (0, 0) and state.stacks == [20_000, 20_000]


def test_showdown_winner_takes_the_pot() -> None:
    state = HUNLState.new(HUNLConfig(), button=1, deck=deal("AhAd KcKd 2c7h9s Jd 3c"))
    state.raise_to(300)
    state.call()
    for _ in range(3):
        state.check()
        state.check()
    assert state.returns() == (300, -300) and state.stacks == [20_300, 19_700]


def test_blinds_larger_than_a_stack_are_posted_all_in() -> None:
    config = HUNLConfig(stacks=(30, 20_000))
    state = HUNLState.new(config, button=0, deck=deal("AhAd KcKd 2c7h9s Jd 3c"))
    assert state.is_over and state.history == [] and len(state.board) == 5
    assert state.stacks == [60, 19_970] and state.final_pot == 60, "70 of the big blind is uncalled"
    short_big_blind = HUNLState.new(
        HUNLConfig(stacks=(20_000, 80)), button=0, deck=deal("AhAd KcKd 2c7h9s Jd 3c")
    )
    assert short_big_blind.to_act == 0 and short_big_blind.legal_actions() == (FOLD, CALL)
    assert short_big_blind.call_amount == 30
    short_big_blind.call()
    assert short_big_blind.stacks == [20_080, 0]


def test_small_blind_calling_all_in_ends_the_betting() -> None:
    config = HUNLConfig(stacks=(80, 20_000))
    state = HUNLState.new(config, button=0, deck=deal("KcKd AhAd 2c7h9s Jd 3c"))
    assert state.legal_actions() == (FOLD, CALL) and state.call_amount == 30
    state.call()  # all-in for 80 against the 100 big blind: nothing left to decide
    assert state.is_over and state.final_pot == 160 and state.stacks == [0, 20_080]


def test_illegal_actions_say_why_and_leave_the_state_unchanged() -> None:
    state = HUNLState.new(HUNLConfig(), button=0, deck=deal("AhAd KcKd 2c7h9s Jd 3c"))
    state.raise_to(300)
    cases = [
        (lambda: state.raise_to(150), r"^raise to 150 is below the minimum raise to 500$"),
        (lambda: state.raise_to(20_001), "raise to 20001 is above player 1's all-in raise to 20000"),
        (lambda: state.raise_to(300.5), r"raise to 300\.5 is not a whole number of chips"),  # type: ignore[arg-type]
        (lambda: state.check(), "player 1 cannot check: it faces a bet of 200 more"),
        (lambda: state.apply(Action(0, CALL)), "it is player 1's turn, not player 0's"),
        (lambda: state.apply(Action(1, CALL, 150)), "call of 150 does not match the amount to call, 200"),
    ]
    for attempt, message in cases:
        before = snapshot(state)
        with pytest.raises(ValueError, match=message):
            attempt()
        assert snapshot(state) == before
    state.call()
    before = snapshot(state)
    with pytest.raises(ValueError, match="player 1 cannot fold: there is no bet to call, so check instead"):
        state.fold()
    with pytest.raises(ValueError, match="player 1 cannot call: there is no bet to call"):
        state.call()
    assert snapshot(state) == before and not state.can_fold() and state.can_check()
    state.raise_to(20_000 - 300)
    state.call()
    assert state.is_over
    after = snapshot(state)
    for attempt in (state.fold, state.check_or_call, lambda: state.raise_to(100)):
        with pytest.raises(ValueError, match="the hand is over; no action is legal"):
            attempt()
    assert snapshot(state) == after and state.legal_actions() == ()


def test_apply_records_typed_actions() -> None:
    state = HUNLState.new(HUNLConfig(), button=0, deck=deal("AhAd KcKd 2c7h9s Jd 3c"))
    assert state.apply(Action(0, RAISE, 250)) == Action(0, RAISE, 250)
    assert state.apply(Action(1, CALL)) == Action(1, CALL, 150)
    assert state.apply(Action(1, CHECK)) == Action(1, CHECK, 0)
    state.apply(Action(0, RAISE, 100))
    state.apply(Action(1, FOLD))
    assert state.history == [
        Action(0, RAISE, 250), Action(1, CALL, 150), Action(1, CHECK), Action(0, RAISE, 100), Action(1, FOLD)
    ]  # fmt: skip
    assert state.street_starts == [0, 2]
    assert state.returns() == (250, -250)


def test_clone_is_independent() -> None:
    state = HUNLState.new(HUNLConfig(), button=0, rng=np.random.default_rng(3))
    copy = state.clone()
    copy.raise_to(500)
    assert state.history == [] and state.stacks == [19_950, 19_900] and copy.stacks == [19_500, 19_900]


def test_deals_come_from_the_generator_or_the_deck() -> None:
    first = HUNLState.new(HUNLConfig(), rng=np.random.default_rng(11))
    second = HUNLState.new(HUNLConfig(), rng=np.random.default_rng(11))
    assert first.deal == second.deal and len(set(first.deal)) == 9
    fixed = HUNLState.new(HUNLConfig(), deck=list(range(52)))
    assert fixed.deal == tuple(range(9))
    with pytest.raises(ValueError, match="a deck of 5 cards is too short"):
        HUNLState.new(HUNLConfig(), deck=[0, 1, 2, 3, 4])
    with pytest.raises(ValueError, match="card Ah appears more than once"):
        HUNLState.new(HUNLConfig(), deck=parse_cards("AhAh KcKd 2c7h9s Jd 3c", allow_duplicates=True))
    with pytest.raises(ValueError, match="give exactly one of rng"):
        HUNLState.new(HUNLConfig())
    with pytest.raises(ValueError, match="player 2 is not 0 or 1"):
        HUNLState.new(HUNLConfig(), button=2, rng=np.random.default_rng(0))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"small_blind": 0}, "small blind 0 is not a positive whole number"),
        ({"big_blind": 2.5}, "big blind 2.5 is not a positive whole number"),
        ({"small_blind": 200}, "small blind 200 is larger than the big blind 100"),
        ({"stacks": (100, -5)}, "starting stack -5 is not a positive whole number"),
        ({"stacks": (100, 100, 100)}, "must hold exactly two starting stacks"),
        ({"stacks": (True, 100)}, "starting stack True is not a positive whole number"),
    ],
)
def test_bad_config_is_an_error_naming_the_value(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        HUNLConfig(**kwargs)  # type: ignore[arg-type]


def test_config_defaults() -> None:
    config = HUNLConfig()
    assert (config.small_blind, config.big_blind, config.stacks) == (50, 100, (20_000, 20_000))


def test_equal_blinds_still_let_the_button_act_first() -> None:
    state = HUNLState.new(HUNLConfig(100, 100, (1_000, 1_000)), button=1, deck=deal("AhAd KcKd 2c7h9s Jd 3c"))
    assert state.to_act == 1 and state.legal_actions() == (CHECK, RAISE) and state.min_raise_to == 200
    state.check()
    assert state.to_act == 0 and state.street == Street.PREFLOP
    state.check()
    assert state.street == Street.FLOP and state.to_act == 0


def fields(state: HUNLState) -> dict[str, object]:
    """Every field of a state (HUNLState compares by identity)."""
    return {name: getattr(state, name) for name in HUNLState.__slots__}


def test_apply_without_verification_plays_legal_actions_identically() -> None:
    rng = np.random.default_rng(8)
    for hand in range(40):
        checked = HUNLState.new(HUNLConfig(), hand % 2, rng=rng)
        unchecked = checked.clone()
        while checked.to_act is not None:
            player = checked.to_act
            kinds = checked.legal_actions()
            kind = kinds[int(rng.integers(len(kinds)))]
            if kind is ActionKind.RAISE:
                low, high = checked.min_raise_to, checked.max_raise_to
                assert low is not None and high is not None
                action = Action(player, kind, int(rng.integers(low, high + 1)))
            else:
                action = Action(player, kind, checked.call_amount if kind is ActionKind.CALL else 0)
            assert checked.apply(action) == unchecked.apply(action, verify=False)
            assert fields(checked) == fields(unchecked)
    # The default still refuses an illegal action and leaves the state as it was.
    state = HUNLState.new(HUNLConfig(), 0, rng=rng)
    before = repr(state)
    with pytest.raises(ValueError, match="below the minimum raise"):
        state.apply(Action(0, ActionKind.RAISE, 150))
    assert repr(state) == before
