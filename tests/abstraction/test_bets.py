"""Bet menus, action slots and pseudo-harmonic translation of off-menu raises.

Blinds are 50/100 throughout. With the default menu (0.5, 1, 2 pot and all-in)
there are six slots: 0 fold, 1 check/call, 2 half pot, 3 pot, 4 two pots, 5 all-in.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from pokerai.abstraction.bets import (
    CHECK_CALL_SLOT,
    FOLD_SLOT,
    MAX_POT_FRACTIONS,
    BetAbstraction,
    BetMenu,
    legal_raise_slots,
    pot_fraction_of_raise,
    pseudo_harmonic,
    raise_to_for_pot_fraction,
    sample_translation,
    slot_actions,
    slot_names,
    translate,
)
from pokerai.config import ConfigError, load_config
from pokerai.engine.state import Action, ActionKind, HUNLConfig, HUNLState
from tests.engine.test_state import choose, random_config

DEFAULT = BetAbstraction()


def new_hand(stacks: tuple[int, int] = (20_000, 20_000)) -> HUNLState:
    """A fresh hand, button (player 0) to act preflop: bets 50/100, pot 150."""
    return HUNLState.new(HUNLConfig(stacks=stacks), button=0, rng=np.random.default_rng(0))


def facing_three_bet() -> HUNLState:
    """The button opened to 300 and the big blind 3-bet to 900; the button is to act (pot 1200, owes 600)."""
    state = new_hand()
    state.raise_to(300)
    state.raise_to(900)
    return state


def fresh_flop() -> HUNLState:
    """Preflop limped and checked: flop, pot 200, the big blind (player 1) to act."""
    state = new_hand()
    state.call()
    state.check()
    assert state.street == 1 and state.pot == 200 and state.to_act == 1
    return state


def short_stacked() -> HUNLState:
    """Stacks of 500: the button's two-pot raise (100 + 2 × 200) is exactly its all-in."""
    return new_hand((500, 500))


def very_short() -> HUNLState:
    """Stacks of 250: the pot raise (300) does not fit, all-in is 250."""
    return new_hand((250, 1000))


def named_states() -> list[HUNLState]:
    return [new_hand(), facing_three_bet(), fresh_flop(), short_stacked(), very_short()]


def random_states(count: int, seed: int) -> list[HUNLState]:
    """States reached by random legal play with random blinds and stacks (deep, short, unequal)."""
    rng = np.random.default_rng(seed)
    states: list[HUNLState] = []
    while len(states) < count:
        state = HUNLState.new(random_config(rng), button=int(rng.integers(2)), rng=rng)
        while not state.is_over:
            states.append(state.clone())
            kind, amount = choose(state, rng)
            if kind is ActionKind.RAISE:
                state.raise_to(amount)
            elif kind is ActionKind.FOLD:
                state.fold()
            else:
                state.check_or_call()
    return states


# ---------------------------------------------------------------------------- menus and config


def test_menu_validation() -> None:
    assert BetMenu([1, 2]).pot_fractions == (1.0, 2.0)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="not a positive finite number"):
        BetMenu((0.0, 1.0))
    with pytest.raises(ValueError, match="not a positive finite number"):
        BetMenu((-0.5,))
    with pytest.raises(ValueError, match=r"not strictly increasing \(0.5 follows 1.0\)"):
        BetMenu((1.0, 0.5))
    with pytest.raises(ValueError, match="not strictly increasing"):
        BetMenu((1.0, 1.0))
    with pytest.raises(ValueError, match=f"at most {MAX_POT_FRACTIONS} pot fractions, got 17"):
        BetMenu(tuple(0.1 * (index + 1) for index in range(17)))
    BetMenu(tuple(0.1 * (index + 1) for index in range(16)))
    BetMenu(())  # only all-in


def test_menu_by_street_and_slot_count() -> None:
    abstraction = BetAbstraction(flop=BetMenu((0.25, 0.5, 1.0, 2.0)))
    assert abstraction.menu(0) is abstraction.preflop
    assert abstraction.menu(1) is abstraction.flop
    assert abstraction.menu(3) is abstraction.river
    assert DEFAULT.num_slots == 6
    assert abstraction.num_slots == 7  # the longest menu sets the shared slot count
    assert abstraction.all_in_slot == 6
    with pytest.raises(ValueError, match="street 4 is not"):
        abstraction.menu(4)


def test_loads_from_config_mapping() -> None:
    abstraction = load_config(
        {"flop": {"pot_fractions": [0.33, 0.75, 1.5]}, "river": {"all_in": False}}, BetAbstraction
    )
    assert abstraction.flop == BetMenu((0.33, 0.75, 1.5))
    assert abstraction.preflop == BetMenu()
    assert abstraction.river == BetMenu(all_in=False)
    assert abstraction.num_slots == 6


def test_config_unknown_key() -> None:
    known = "pot_fractions, all_in, all_in_max_pots, max_raises"
    with pytest.raises(ConfigError, match=rf"unknown key 'pot_fraction' in flop \(known keys: {known}\)"):
        load_config({"flop": {"pot_fraction": [0.5]}}, BetAbstraction)
    with pytest.raises(ConfigError, match="unknown key 'flopp' at the top level"):
        load_config({"flopp": {}}, BetAbstraction)


def test_config_menu_errors_name_the_street() -> None:
    with pytest.raises(ConfigError, match=r"^turn: pot fractions \[1.0, 0.5\] are not strictly increasing"):
        load_config({"turn": {"pot_fractions": [1, 0.5]}}, BetAbstraction)
    with pytest.raises(ConfigError, match=r"^river\.pot_fractions: expected a list"):
        load_config({"river": {"pot_fractions": 0.5}}, BetAbstraction)


def test_slot_names() -> None:
    assert slot_names(DEFAULT, 0) == ["fold", "check/call", "bet 0.5 pot", "bet 1 pot", "bet 2 pot", "all-in"]
    abstraction = BetAbstraction(river=BetMenu((0.75,), all_in=False), flop=BetMenu((0.33, 0.66, 1.0, 1.5)))
    assert slot_names(abstraction, 3) == [
        "fold",
        "check/call",
        "bet 0.75 pot",
        "unused",
        "unused",
        "unused",
        "unused",
    ]


# ---------------------------------------------------------------------------- pot-fraction arithmetic


def test_pot_fraction_arithmetic() -> None:
    opening = new_hand()
    # Pot 150, the button owes 50: the pot after calling is 200.
    assert raise_to_for_pot_fraction(opening, 1.0) == 300
    assert raise_to_for_pot_fraction(opening, 0.5) == 200
    assert raise_to_for_pot_fraction(opening, 2.0) == 500
    flop = fresh_flop()
    assert raise_to_for_pot_fraction(flop, 0.5) == 100
    assert raise_to_for_pot_fraction(flop, 1.0) == 200
    three_bet = facing_three_bet()
    # Highest bet 900, pot 1200, owes 600: the pot after calling is 1800.
    assert raise_to_for_pot_fraction(three_bet, 1.0) == 2700
    assert raise_to_for_pot_fraction(three_bet, 0.5) == 1800
    assert pot_fraction_of_raise(three_bet, 2700) == 1.0
    assert pot_fraction_of_raise(opening, 250) == 0.75
    assert raise_to_for_pot_fraction(flop, 0.33) == 66  # nearest chip


def test_default_slots_preflop_open() -> None:
    state = new_hand()
    mask, actions = slot_actions(state, DEFAULT)
    # The button faces the big blind, so folding is legal.
    assert mask.tolist() == [True, True, True, True, True, True]
    assert actions == [
        Action(0, ActionKind.FOLD),
        Action(0, ActionKind.CALL, 50),
        Action(0, ActionKind.RAISE, 200),
        Action(0, ActionKind.RAISE, 300),
        Action(0, ActionKind.RAISE, 500),
        Action(0, ActionKind.RAISE, 20_000),
    ]


def test_no_fold_when_checking_is_free() -> None:
    mask, actions = slot_actions(fresh_flop(), DEFAULT)
    assert not mask[FOLD_SLOT] and actions[FOLD_SLOT] is None
    assert actions[CHECK_CALL_SLOT] == Action(1, ActionKind.CHECK)
    assert [action.amount for action in actions[2:] if action is not None] == [100, 200, 400, 19_900]


def test_two_pot_equal_to_all_in_yields_to_the_all_in_slot() -> None:
    mask, actions = slot_actions(short_stacked(), DEFAULT)
    assert mask.tolist() == [True, True, True, True, False, True]
    assert actions[4] is None
    assert actions[5] == Action(0, ActionKind.RAISE, 500)


def test_clamped_to_all_in() -> None:
    mask, actions = slot_actions(very_short(), DEFAULT)
    # Half pot is 200 (legal); pot and two pots clamp to the all-in of 250 and merge into it.
    assert mask.tolist() == [True, True, True, False, False, True]
    assert actions[2] == Action(0, ActionKind.RAISE, 200)
    assert actions[5] == Action(0, ActionKind.RAISE, 250)


def test_without_all_in_the_clamped_fraction_keeps_its_slot() -> None:
    abstraction = BetAbstraction(preflop=BetMenu(all_in=False))
    mask, actions = slot_actions(very_short(), abstraction)
    assert mask.tolist() == [True, True, True, True, False, False]
    assert actions[3] == Action(0, ActionKind.RAISE, 250)


def test_small_fractions_clamp_up_to_the_min_raise_and_merge() -> None:
    abstraction = BetAbstraction(preflop=BetMenu((0.1, 0.25, 0.5, 1.0)))
    # 0.1 and 0.25 pot (120 and 150) are below the min raise to 200, and 0.5 pot is exactly 200.
    mask, actions = slot_actions(new_hand(), abstraction)
    assert mask.tolist() == [True, True, True, False, False, True, True]
    assert actions[2] == Action(0, ActionKind.RAISE, 200)
    assert actions[5] == Action(0, ActionKind.RAISE, 300)


def test_all_in_beyond_the_overbet_limit_is_not_an_action() -> None:
    capped = BetAbstraction(preflop=BetMenu(all_in_max_pots=2.0), flop=BetMenu(all_in_max_pots=2.0))
    # Preflop the button's all-in raises 19,900 over a pot after calling of 200: 99.5 pots.
    mask, actions = slot_actions(new_hand(), capped)
    assert mask.tolist() == [True, True, True, True, True, False]
    assert actions[5] is None
    # Facing a 3-bet to 12,500 (pot after calling 25,000), all-in raises 7,500 more: 0.3 pots.
    state = new_hand()
    state.raise_to(2_500)
    state.raise_to(12_500)
    mask, actions = slot_actions(state, capped)
    assert mask.tolist() == [True, True, False, False, False, True]
    assert actions[5] == Action(0, ActionKind.RAISE, 20_000)
    # The limit is inclusive: stacks of 500 make the button's all-in exactly 2 pots (400 over 200).
    assert slot_actions(short_stacked(), capped)[0].tolist() == [True, True, True, True, False, True]
    tighter = BetAbstraction(preflop=BetMenu(all_in_max_pots=1.99))
    # Without the all-in slot the two-pot raise, which is the all-in, keeps its own slot.
    assert slot_actions(short_stacked(), tighter)[1][4] == Action(0, ActionKind.RAISE, 500)
    # 0 is no limit: the default menu.
    assert BetMenu().all_in_max_pots == 0.0
    assert slot_actions(new_hand(), BetAbstraction(preflop=BetMenu(all_in_max_pots=0)))[0][5]


def test_all_in_limit_validation() -> None:
    for bad in (-1.0, float("inf"), float("nan"), True, "2"):
        with pytest.raises(ValueError, match="all_in_max_pots"):
            BetMenu(all_in_max_pots=bad)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="all_in_max_pots"):
        load_config({"flop": {"all_in_max_pots": -2}}, BetAbstraction)


def test_raise_cap_leaves_fold_and_call_once_the_street_has_its_raises() -> None:
    capped = BetAbstraction(preflop=BetMenu(max_raises=2), flop=BetMenu(max_raises=1))
    # Preflop the blinds are not raises: the button may open and the big blind may 3-bet.
    state = new_hand()
    assert slot_actions(state, capped)[0].tolist() == [True] * 6
    state.raise_to(300)
    assert slot_actions(state, capped)[0].tolist() == [True] * 6
    state.raise_to(900)
    # Two raises made: the button may only fold or call the 3-bet; uncapped it could 4-bet.
    mask, actions = slot_actions(state, capped)
    assert mask.tolist() == [True, True, False, False, False, False]
    assert actions[1] == Action(0, ActionKind.CALL, 600)
    assert slot_actions(state, DEFAULT)[0].tolist() == [True] * 6
    state.call()
    # The count starts again on the flop, where one bet is allowed: the big blind bets, the button
    # may fold or call, not raise.
    assert slot_actions(state, capped)[0].tolist() == [False, True, True, True, True, True]
    state.raise_to(900)
    assert slot_actions(state, capped)[0].tolist() == [True, True, False, False, False, False]
    # 0 is no cap (the default).
    assert BetMenu().max_raises == 0


def test_raise_cap_validation() -> None:
    for bad in (-1, 1.5, True, "2"):
        with pytest.raises(ValueError, match="max_raises"):
            BetMenu(max_raises=bad)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="max_raises"):
        load_config({"turn": {"max_raises": -1}}, BetAbstraction)


def test_no_raise_slots_when_raising_is_illegal() -> None:
    state = new_hand()
    state.raise_to(20_000)  # the big blind faces an all-in
    mask, actions = slot_actions(state, DEFAULT)
    assert mask.tolist() == [True, True, False, False, False, False]
    assert actions[CHECK_CALL_SLOT] == Action(1, ActionKind.CALL, 19_900)
    assert legal_raise_slots(state, DEFAULT) == []


def test_short_street_menu_leaves_slots_unused() -> None:
    abstraction = BetAbstraction(flop=BetMenu((0.5,)), preflop=BetMenu((0.5, 1.0, 2.0, 3.0)))
    mask, _ = slot_actions(fresh_flop(), abstraction)
    assert mask.tolist() == [False, True, True, False, False, False, True]


def test_hand_over_is_an_error() -> None:
    state = new_hand()
    state.fold()
    with pytest.raises(ValueError, match="the hand is over"):
        slot_actions(state, DEFAULT)


@pytest.mark.parametrize(
    "abstraction",
    [DEFAULT, BetAbstraction(preflop=BetMenu((0.1, 0.33, 3.0, 10.0)), turn=BetMenu((0.75,), all_in=False))],
)
def test_mask_never_marks_an_illegal_action_legal(abstraction: BetAbstraction) -> None:
    for state in random_states(400, seed=3):
        mask, actions = slot_actions(state, abstraction)
        raise_amounts = []
        for slot in range(abstraction.num_slots):
            action = actions[slot]
            assert (action is not None) == bool(mask[slot])
            if action is None:
                continue
            assert state.can_apply(action), (state, action)
            if action.kind is ActionKind.RAISE:
                assert state.can_raise_to(action.amount)
                raise_amounts.append(action.amount)
        assert raise_amounts == sorted(set(raise_amounts))  # distinct and increasing with the slot
        assert bool(mask[FOLD_SLOT]) == state.can_fold()
        assert mask[CHECK_CALL_SLOT]
        menu = abstraction.menu(state.street)
        can_raise = ActionKind.RAISE in state.legal_actions()
        assert bool(mask[abstraction.all_in_slot]) == (can_raise and menu.all_in)
        if can_raise and menu.all_in:
            assert raise_amounts[-1] == state.max_raise_to


# ---------------------------------------------------------------------------- pseudo-harmonic mapping


def test_pseudo_harmonic_known_points() -> None:
    assert pseudo_harmonic(0.5, 1.0, 0.5) == 1.0
    assert pseudo_harmonic(0.5, 1.0, 1.0) == 0.0
    assert pseudo_harmonic(0.5, 1.0, 0.75) == pytest.approx(3 / 7)
    # (2 − 1.5)(1 + 1) / ((2 − 1)(1 + 1.5)) = 1 / 2.5
    assert pseudo_harmonic(1.0, 2.0, 1.5) == pytest.approx(0.4)
    # From a check (0) to a pot bet (1): a half-pot bet maps to the check a third of the time.
    assert pseudo_harmonic(0.0, 1.0, 0.5) == pytest.approx(1 / 3)


def test_pseudo_harmonic_is_decreasing() -> None:
    for smaller, larger in [(0.5, 1.0), (1.0, 2.0), (0.33, 99.5), (0.0, 0.1)]:
        sizes = np.linspace(smaller, larger, 101)
        values = [pseudo_harmonic(smaller, larger, float(size)) for size in sizes]
        assert all(0.0 <= value <= 1.0 for value in values)
        assert all(later < earlier for earlier, later in itertools.pairwise(values))


def test_pseudo_harmonic_validation() -> None:
    with pytest.raises(ValueError, match=r"bet sizes 1\.0 and 0\.5 must satisfy"):
        pseudo_harmonic(1.0, 0.5, 0.75)
    with pytest.raises(ValueError, match=r"bet sizes 1\.0 and 1\.0 must satisfy"):
        pseudo_harmonic(1.0, 1.0, 1.0)
    with pytest.raises(ValueError, match=r"bet size 2\.5 is not between the menu sizes 1\.0 and 2\.0"):
        pseudo_harmonic(1.0, 2.0, 2.5)
    with pytest.raises(ValueError, match=r"bet sizes -0\.5 and 1\.0"):
        pseudo_harmonic(-0.5, 1.0, 0.0)
    with pytest.raises(ValueError, match="not a finite pot fraction"):
        pseudo_harmonic(0.5, float("inf"), 1.0)


# ---------------------------------------------------------------------------- translation


def test_on_menu_raises_map_to_themselves() -> None:
    abstractions = [
        DEFAULT,
        BetAbstraction(preflop=BetMenu((0.1, 0.25, 0.5, 1.0)), flop=BetMenu(all_in=False)),
    ]
    for abstraction in abstractions:
        for state in [*named_states(), *random_states(150, seed=5)]:
            for slot, amount in legal_raise_slots(state, abstraction):
                assert translate(state, amount, abstraction) == [(slot, 1.0)], (state, slot, amount)


def test_between_two_sizes_uses_pseudo_harmonic() -> None:
    state = new_hand()
    # 250 is 0.75 pot, between the half-pot (200) and pot (300) slots.
    (lower, to_lower), (upper, to_upper) = translate(state, 250, DEFAULT)
    assert (lower, upper) == (2, 3)
    assert to_lower == pytest.approx(3 / 7)
    assert to_lower + to_upper == 1.0
    # 400 is 1.5 pots, between pot (300) and two pots (500).
    assert translate(state, 400, DEFAULT) == [(3, pytest.approx(0.4)), (4, pytest.approx(0.6))]


def test_between_the_largest_fraction_and_all_in() -> None:
    state = new_hand()
    # All-in to 20000 is (20000 − 100) / 200 = 99.5 pots; 1000 is 4.5 pots, just above two pots.
    pairs = translate(state, 1000, DEFAULT)
    assert [slot for slot, _ in pairs] == [4, 5]
    assert pairs[0][1] == pytest.approx(pseudo_harmonic(2.0, 99.5, 4.5))
    assert pairs[0][1] > 0.5


def test_below_smallest_and_above_largest() -> None:
    abstraction = BetAbstraction(preflop=BetMenu((1.0, 2.0), all_in=False))
    state = new_hand()
    assert translate(state, 200, abstraction) == [(2, 1.0)]  # the min raise is below the pot raise
    assert translate(state, 20_000, abstraction) == [(3, 1.0)]  # all-in is above two pots


def test_short_stacks_translate_onto_merged_slots() -> None:
    state = very_short()  # legal slots: half pot (200) and all-in (250)
    assert translate(state, 250, DEFAULT) == [(5, 1.0)]
    pairs = translate(state, 225, DEFAULT)
    assert [slot for slot, _ in pairs] == [2, 5]
    assert pairs[0][1] == pytest.approx(pseudo_harmonic(0.5, 0.75, 0.625))


def test_probabilities_sum_to_one_and_pick_neighbours() -> None:
    rng = np.random.default_rng(11)
    for state in random_states(300, seed=7):
        low, high = state.min_raise_to, state.max_raise_to
        if low is None or high is None:
            continue
        slots = legal_raise_slots(state, DEFAULT)
        for amount in {low, high, int(rng.integers(low, high + 1))}:
            pairs = translate(state, amount, DEFAULT)
            assert sum(probability for _, probability in pairs) == pytest.approx(1.0)
            assert all(0.0 < probability <= 1.0 for _, probability in pairs)
            amounts = dict(slots)
            if len(pairs) == 2:
                assert amounts[pairs[0][0]] < amount < amounts[pairs[1][0]]


def test_translation_probability_of_the_larger_slot_grows_with_the_amount() -> None:
    state = new_hand()
    to_larger = [translate(state, amount, DEFAULT)[-1][1] for amount in range(201, 300)]
    assert all(later > earlier for earlier, later in itertools.pairwise(to_larger))


def test_illegal_raise_is_an_error() -> None:
    with pytest.raises(
        ValueError, match="raise to 150 cannot be translated: legal raises are to 200 through 20000"
    ):
        translate(new_hand(), 150, DEFAULT)
    with pytest.raises(ValueError, match="raise to 20001 cannot be translated"):
        translate(new_hand(), 20_001, DEFAULT)
    state = new_hand()
    state.raise_to(20_000)
    with pytest.raises(ValueError, match="raise to 30000 cannot be translated: raising is not legal here"):
        translate(state, 30_000, DEFAULT)


def test_menu_without_raises_cannot_translate() -> None:
    abstraction = BetAbstraction(preflop=BetMenu((), all_in=False))
    with pytest.raises(ValueError, match="the preflop menu has no raise sizes"):
        translate(new_hand(), 300, abstraction)


def test_sample_translation() -> None:
    rng = np.random.default_rng(0)
    assert sample_translation([(3, 1.0)], rng) == 3
    draws = [sample_translation([(2, 0.25), (3, 0.75)], rng) for _ in range(4000)]
    assert set(draws) == {2, 3}
    assert draws.count(2) / len(draws) == pytest.approx(0.25, abs=0.03)
    with pytest.raises(ValueError, match="empty"):
        sample_translation([], rng)
    with pytest.raises(ValueError, match="not a distribution"):
        sample_translation([(2, 0.5), (3, 0.6)], rng)
