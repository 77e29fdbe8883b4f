"""The heuristic agent: its equity estimates against the engine's, legal and sane actions, and that it
beats the simple baselines in duplicate matches."""

from __future__ import annotations

import numpy as np
import pytest

from pokerai.agents.base import Observation
from pokerai.agents.baselines import AllInAgent, CallAgent, RaiseAgent, RandomAgent
from pokerai.agents.heuristic import (
    HeuristicAgent,
    hand_class,
    postflop_equity,
    preflop_equity,
    preflop_equity_table,
)
from pokerai.engine.cards import parse_cards
from pokerai.engine.equity import hand_vs_range
from pokerai.engine.state import Action, ActionKind, HUNLState
from tests.agents.test_baselines import duplicate_match, random_states

FOLD, CHECK, CALL, RAISE = ActionKind.FOLD, ActionKind.CHECK, ActionKind.CALL, ActionKind.RAISE


def cards(text: str) -> tuple[int, ...]:
    return tuple(parse_cards(text))


def hole(text: str) -> tuple[int, int]:
    first, second = parse_cards(text)
    return first, second


def every_hand(excluded: tuple[int, ...]) -> list[tuple[int, int]]:
    rest = [card for card in range(52) if card not in excluded]
    return [(a, b) for i, a in enumerate(rest) for b in rest[i + 1 :]]


# ---------------------------------------------------------------------------------------- equity


def test_hand_class_cells() -> None:
    assert hand_class(hole("AsAh")) == (12, 12)
    assert hand_class(hole("AsKs")) == (12, 11)  # suited: (high, low)
    assert hand_class(hole("KsAh")) == (11, 12)  # offsuit: (low, high)
    assert hand_class(hole("2c7d")) == (0, 5)
    assert len({hand_class((a, b)) for a, b in every_hand(())}) == 169


def test_preflop_table_matches_known_equities_and_orderings() -> None:
    table = preflop_equity_table()
    assert table.shape == (13, 13) and not table.flags.writeable
    # Published all-in equities against a random hand: AA 85.2%, KK 82.4%, AKs 67.0%, 72o 34.6%.
    assert preflop_equity(hole("AsAh")) == pytest.approx(0.852, abs=0.012)
    assert preflop_equity(hole("KdKc")) == pytest.approx(0.824, abs=0.012)
    assert preflop_equity(hole("AhKh")) == pytest.approx(0.670, abs=0.012)
    assert preflop_equity(hole("7h2c")) == pytest.approx(0.346, abs=0.012)
    assert table.max() == table[12, 12] and table.min() == table[0, 1]  # AA best, 32o worst vs random
    pairs = np.diag(table)
    assert (np.diff(pairs) > 0).all()  # 22 < 33 < ... < AA
    for high in range(13):
        for low in range(high):
            assert table[high, low] > table[low, high]  # suited beats offsuit


def test_preflop_table_against_the_engine_equity() -> None:
    # QJs against a random hand, by the engine's Monte Carlo range equity.
    reference = hand_vs_range("QhJh", every_hand(cards("QhJh")), samples=20_000, seed=3)
    assert preflop_equity(hole("QhJh")) == pytest.approx(reference.equity[0], abs=0.015)


def test_river_equity_is_exact() -> None:
    board = cards("As7d2c9hKs")
    for text in ("AhKd", "7h2d", "QcJc", "3c4d"):
        expected = hand_vs_range(text, every_hand(cards(text) + board), board).equity[0]
        assert postflop_equity(hole(text), board, np.random.default_rng(0)) == pytest.approx(
            expected, abs=1e-12
        )


@pytest.mark.parametrize(
    ("text", "board_text"), [("AhKd", "As7d2c"), ("8c9c", "TcJd2c"), ("4d4h", "AsKdQc5h")]
)
def test_flop_and_turn_equity_close_to_the_engine(text: str, board_text: str) -> None:
    board = cards(board_text)
    expected = hand_vs_range(text, every_hand(cards(text) + board), board, samples=20_000, seed=1).equity[0]
    estimate = postflop_equity(hole(text), board, np.random.default_rng(2), samples=3000)
    assert estimate == pytest.approx(expected, abs=0.03)


# ---------------------------------------------------------------------------------------- actions


def test_every_action_is_legal_over_random_states() -> None:
    agent = HeuristicAgent()
    rng = np.random.default_rng(4)
    kinds = set()
    streets = set()
    for state in random_states(seed=9, hands=120):
        action = agent.act(Observation.from_state(state), rng)
        state.verify(action)  # raises if illegal
        kinds.add(action.kind)
        streets.add(state.street)
        if state.can_check():
            assert action.kind is not FOLD
    assert kinds == {FOLD, CHECK, CALL, RAISE} and streets == {0, 1, 2, 3}


def test_same_rng_same_actions() -> None:
    states = list(random_states(seed=10, hands=40, vary_config=False))
    first = [HeuristicAgent().act(Observation.from_state(s), np.random.default_rng(8)) for s in states]
    second = [HeuristicAgent().act(Observation.from_state(s), np.random.default_rng(8)) for s in states]
    assert first == second
    assert HeuristicAgent().action_probability(Observation.from_state(states[0]), first[0]) is None


def test_self_play_duplicate_match_is_exactly_zero() -> None:
    # Deterministic given the rng and no state carried between hands: mirrored hands cancel.
    result = duplicate_match(HeuristicAgent(), HeuristicAgent(), deals=30, seed=4)
    assert result.mbb_per_hand == 0.0


def test_folds_72o_to_a_big_shove_and_first_in_on_the_button() -> None:
    agent = HeuristicAgent()
    rng = np.random.default_rng(0)
    state = HUNLState.new(deck=parse_cards("AsAh 7d2c 3s4s5s Td Jc"))
    state.raise_to(20_000)  # the button shoves
    assert agent.act(Observation.from_state(state), rng) == Action(1, FOLD)
    state = HUNLState.new(deck=parse_cards("7d2c AsAh 3s4s5s Td Jc"))  # 72o first in on the button
    assert agent.act(Observation.from_state(state), rng) == Action(0, FOLD)


def test_never_folds_aces_preflop() -> None:
    agent = HeuristicAgent()
    rng = np.random.default_rng(1)
    seen = 0
    for state in random_states(seed=11, hands=400):
        if state.street != 0:
            continue
        for aces in (hole("AsAh"), hole("AdAc")):
            assert state.to_act is not None
            if set(aces) & set(state.hole_cards(1 - state.to_act)):
                continue
            action = agent.act(Observation.from_state(state, hole_cards=aces), rng)
            state.verify(action)
            assert action.kind is not FOLD
            seen += 1
    assert seen > 300


def test_value_bets_the_nuts_and_folds_air_to_a_pot_bet_on_the_river() -> None:
    agent = HeuristicAgent()
    rng = np.random.default_rng(0)
    # Player 0 (button) holds the royal flush on the river; player 1 checks to it.
    state = HUNLState.new(deck=parse_cards("AsKs 3d4c QsJsTs 2h 7c"))
    state.call()
    state.check()
    for _ in range(2):  # flop and turn checked through
        state.check()
        state.check()
    assert state.street == 3
    state.check()  # player 1 checks the river
    action = agent.act(Observation.from_state(state), rng)
    assert action.kind is RAISE and action.amount == state.max_raise_to
    # Player 1's 3d4c is drawing dead; facing a pot bet it folds.
    state.raise_to(state.pot)
    assert agent.act(Observation.from_state(state), rng) == Action(1, FOLD)


def test_calls_a_small_bet_with_a_medium_hand_and_raises_a_monster() -> None:
    agent = HeuristicAgent()
    rng = np.random.default_rng(0)
    # Flop 9h5c2d. Player 1 (big blind) bets 100 into 200; player 0 holds top pair (about 0.75 vs random)
    # in one deal and a set (about 0.95) in the other.
    for holding, expected in (("9s8s", {CALL}), ("5h5d", {RAISE})):
        state = HUNLState.new(deck=parse_cards(f"{holding} KcQd 9h5c2d 7s 3h"))
        state.call()
        state.check()
        state.raise_to(100)
        action = agent.act(Observation.from_state(state), rng)
        state.verify(action)
        assert action.kind in expected, (holding, action)


def test_bad_parameters_are_errors() -> None:
    with pytest.raises(ValueError, match="samples"):
        HeuristicAgent(samples=0)
    with pytest.raises(ValueError, match="bluff frequency"):
        HeuristicAgent(bluff_frequency=1.5)


# ---------------------------------------------------------------------------------------- matches


@pytest.mark.parametrize("opponent_type", [RandomAgent, CallAgent, RaiseAgent], ids=lambda t: t.name)
def test_heuristic_beats_baseline(opponent_type: type[RandomAgent | CallAgent | RaiseAgent]) -> None:
    result = duplicate_match(HeuristicAgent(), opponent_type(), deals=150, seed=21)
    assert result.mbb_per_hand - result.ci95 > 0, str(result)


@pytest.mark.slow
@pytest.mark.parametrize(
    "opponent_type", [RandomAgent, CallAgent, RaiseAgent, AllInAgent], ids=lambda t: t.name
)
def test_heuristic_beats_baseline_large(
    opponent_type: type[RandomAgent | CallAgent | RaiseAgent | AllInAgent],
) -> None:
    result = duplicate_match(HeuristicAgent(), opponent_type(), deals=2000, seed=22)
    print(f"heuristic vs {opponent_type.name}: {result}")
    assert result.mbb_per_hand - result.ci95 > 0, str(result)
