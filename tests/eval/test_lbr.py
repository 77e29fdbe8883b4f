"""Local best response: the range update, the action values, and its win rates against simple agents."""

from __future__ import annotations

import numpy as np
import pytest

from pokerai.agents.base import Observation
from pokerai.engine.cards import parse_cards
from pokerai.engine.equity import equity
from pokerai.engine.state import ActionKind, HUNLConfig, HUNLState
from pokerai.eval.lbr import ALL_COMBOS, LBRConfig, LocalBestResponse, combo_equities, lbr_match
from tests.eval.toy_agents import FoldAgent, NoneCaller, PairRaiser, SilentCaller

FAST = LBRConfig(runouts=50)


def _river_state() -> HUNLState:
    """Player 0 (big blind) holds Th9h on AhKhQhJh2c: a royal flush. Checked to its river decision."""
    deck = parse_cards("Th9h") + parse_cards("2d3d") + parse_cards("AhKhQhJh2c")
    state = HUNLState.new(HUNLConfig(), 1, deck=deck)
    state.call()  # the button limps
    state.check()
    for _ in range(2):  # flop and turn checked through
        state.check()
        state.check()
    assert state.street == 3 and state.to_act == 0
    return state


def _combo_index(cards: str) -> int:
    low, high = sorted(parse_cards(cards))
    return int(np.flatnonzero((ALL_COMBOS[:, 0] == low) & (ALL_COMBOS[:, 1] == high))[0])


def test_action_values_by_hand_against_a_caller() -> None:
    from pokerai.agents.baselines import CallAgent

    lbr = LocalBestResponse(CallAgent(), FAST)
    lbr.begin_hand(0, 1)
    actions, values = lbr.action_values(Observation.from_state(_river_state()), np.random.default_rng(0))
    # Equity 1 against every hand. Check: win the pot of 200 -> +200 relative to folding (not legal here).
    # Pot raise to 200: the caller matches 300 in all -> 100 + 300. All-in to 19,900 -> 100 + 20,000.
    assert [(a.kind, a.amount) for a in actions] == [
        (ActionKind.CHECK, 0),
        (ActionKind.RAISE, 200),
        (ActionKind.RAISE, 19_900),
    ]
    assert values == pytest.approx([200.0, 400.0, 20_100.0])
    assert lbr.act(Observation.from_state(_river_state()), np.random.default_rng(0)).amount == 19_900


def test_action_values_against_a_folder_prefer_the_passive_tie() -> None:
    lbr = LocalBestResponse(FoldAgent(), FAST)
    lbr.begin_hand(0, 1)
    observation = Observation.from_state(_river_state())
    _, values = lbr.action_values(observation, np.random.default_rng(0))
    assert values == pytest.approx([200.0, 200.0, 200.0])  # a raise only wins the pot that is there
    assert lbr.act(observation, np.random.default_rng(0)).kind is ActionKind.CHECK


def test_raise_menu_respects_streets_and_fractions() -> None:
    from pokerai.agents.baselines import CallAgent

    state = _river_state()
    observation = Observation.from_state(state)
    calling_only = LocalBestResponse(CallAgent(), LBRConfig(raise_streets=(0, 1, 2)))
    assert [a.kind for a in calling_only.candidate_actions(observation)] == [ActionKind.CHECK]
    sizes = LocalBestResponse(CallAgent(), LBRConfig(bet_fractions=(0.5, 1.0, 2.0), all_in=False))
    assert [a.amount for a in sizes.candidate_actions(observation)] == [0, 100, 200, 400]


def test_range_follows_bayes_rule() -> None:
    target = PairRaiser()
    lbr = LocalBestResponse(target, FAST)
    deck = parse_cards("AsKd") + parse_cards("7c7d") + parse_cards("2h3h4h5h6h")
    state = HUNLState.new(HUNLConfig(), 1, deck=deck)  # the target (player 1) is the button
    lbr.begin_hand(0, 1)
    target.begin_hand(1, 1)
    state.apply(target.act(Observation.from_state(state), np.random.default_rng(0)))  # pair: pot raise
    lbr.action_values(Observation.from_state(state), np.random.default_rng(0))
    live = np.flatnonzero(lbr._weights > 0)
    ranks = ALL_COMBOS[live] >> 2
    assert np.all(ranks[:, 0] == ranks[:, 1])  # only pocket pairs raise
    assert len(live) == 13 * 6 - 3 - 3  # every pair but the AA and KK combos holding As or Kd


def test_combo_equities_match_exact_enumeration() -> None:
    hole = tuple(parse_cards("AsKd"))
    for board_text in ("Ks7d2c9h", "Ks7d2c9h3s"):
        board = tuple(parse_cards(board_text))
        combos = np.array([_combo_index(text) for text in ("QcQd", "7c7h", "AhKh", "2d3d")])
        fast = combo_equities(hole, board, combos, 100, np.random.default_rng(0))
        for combo, value in zip(combos, fast, strict=True):
            exact = equity(list(hole), ALL_COMBOS[combo].tolist(), list(board)).equity[0]
            assert value == pytest.approx(exact, abs=1e-12)


def test_sampled_equity_is_close() -> None:
    hole = tuple(parse_cards("AsKd"))
    board = tuple(parse_cards("Ks7d2c"))
    combo = np.array([_combo_index("QcQd")])
    sampled = combo_equities(hole, board, combo, 4000, np.random.default_rng(1))[0]
    exact = equity(list(hole), ["Qc", "Qd"], list(board)).equity[0]
    assert sampled == pytest.approx(exact, abs=0.03)


def test_refuses_agents_without_probabilities() -> None:
    with pytest.raises(ValueError, match="LBR needs an agent that exposes its action probabilities"):
        LocalBestResponse(SilentCaller())
    with pytest.raises(ValueError, match="LBR needs an agent that exposes its action probabilities"):
        lbr_match(SilentCaller(), 2)
    with pytest.raises(ValueError, match="LBR needs an agent that exposes its action probabilities"):
        lbr_match(NoneCaller(), 4)


def test_an_always_folding_agent_gives_up_only_its_blinds() -> None:
    result = lbr_match(FoldAgent(), 40, seed=0, lbr_config=FAST)
    # By hand: LBR steals the big blind's 100 on the button and takes the small blind's 50 in
    # the big blind: 75 chips = 750 mbb/hand.
    assert result.mbb_per_hand <= 750.0 + result.estimate.half_width
    assert result.mbb_per_hand == pytest.approx(750.0)


def test_exploits_call_and_random_quickly() -> None:
    from pokerai.agents.spec import make_agent

    for spec in ("call", "random"):
        result = lbr_match(make_agent(spec), 40, seed=1, lbr_config=FAST)
        assert result.mbb_per_hand > 5 * 750, spec


@pytest.mark.slow
@pytest.mark.parametrize("spec", ["call", "random"])
def test_exploits_call_and_random_with_confidence(spec: str) -> None:
    from pokerai.agents.spec import make_agent

    result = lbr_match(make_agent(spec), 1000, seed=2, workers=2)
    assert result.ci95[0] > 750.0


def test_lbr_is_reproducible_and_independent_of_workers() -> None:
    from pokerai.agents.spec import make_agent

    one = lbr_match(make_agent("random"), 12, seed=3, lbr_config=FAST)
    two = lbr_match(make_agent("random"), 12, seed=3, lbr_config=FAST, workers=2)
    assert np.array_equal(one.exploiter_results, two.exploiter_results)
