"""Opponent models learnt during a match (the river check cap, the answers to a river bet) and how
the river search uses them."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from pokerai.abstraction.bets import CHECK_CALL_SLOT
from pokerai.agents.base import HandSummary, Observation
from pokerai.agents.heuristic import HeuristicAgent
from pokerai.agents.opponent import Aggression, BetResponses, RiverCheckCap
from pokerai.agents.search import SearchAgent
from pokerai.agents.spec import make_agent
from pokerai.deepcfr.export import Blueprint
from pokerai.engine.cards import parse_cards
from pokerai.engine.evaluator import rank_hand
from pokerai.engine.state import Action, ActionKind, HUNLState, Street
from pokerai.eval.duplicate import duplicate_match
from pokerai.eval.lbr import lbr_match
from pokerai.search.beliefs import public_beliefs
from pokerai.search.combos import ALL_COMBOS, combo_index, combos_holding
from pokerai.search.config import RiverSearch, SearchConfig
from pokerai.search.responses import (
    AGGRESSION_REFERENCE,
    CAP_FLOOR,
    MAX_PATH_FLOOR,
    OVERBET,
    RAISE_CONTEXT,
    RESPONSE_SIZES,
    SHOWN_REFERENCE,
    ResponseCounts,
    capped_beliefs,
    opened_river_with_check,
    raise_fraction,
    response_strategies,
    size_bucket,
    street_strength,
)
from pokerai.search.river import RiverSubgame, build_river_subgame, solve_river
from pokerai.search.showdown import river_strength
from pokerai.search.subgame import solve
from tests.eval.toy_agents import RecordingCaller, RecordingFolder
from tests.search.hunl_spots import CAPPED, CHECKED_DOWN, DECK, scripted

BOARD = tuple(DECK[4:9])
RIVER_CHECK = (1, ActionKind.CHECK, 0)
"""Player 1, first to act on the river after CHECKED_DOWN, checks: player 0 (the button) searches."""


def test_river_strength_is_the_share_of_hands_beaten() -> None:
    strength = river_strength(BOARD)
    live = np.flatnonzero(~combos_holding(BOARD))
    assert len(live) == 1081 and np.all(strength[combos_holding(BOARD)] == 0)
    ranks = {int(k): rank_hand([*ALL_COMBOS[k].tolist(), *BOARD]) for k in live}
    for k in (
        int(live[0]),
        int(live[500]),
        combo_index(*parse_cards("QhQd")),
        combo_index(*parse_cards("7c7d")),
    ):
        beaten = sum(ranks[k] > other for other in ranks.values())
        tied = sum(ranks[k] == other for other in ranks.values()) - 1
        assert strength[k] == pytest.approx((beaten + 0.5 * tied) / 1080)
    # On Qs 9h 2c 5d 3s the nuts is the six-high straight: the 16 combinations of a 6 and a 4.
    nuts = np.flatnonzero(strength == strength.max())
    assert sorted({tuple(sorted(int(card) >> 2 for card in ALL_COMBOS[k])) for k in nuts}) == [(2, 4)]
    assert len(nuts) == 16 and strength.max() == pytest.approx((1080 - 15 + 7.5) / 1080)


def test_opened_river_with_check(blueprint: Blueprint) -> None:
    river = scripted(blueprint, CHECKED_DOWN)
    assert not opened_river_with_check(river.history, river.street_starts, 1), "nobody has acted yet"
    river.apply(Action(*RIVER_CHECK))
    assert opened_river_with_check(river.history, river.street_starts, 1)
    assert not opened_river_with_check(river.history, river.street_starts, 0)
    turn = scripted(blueprint, CHECKED_DOWN[:-2])
    turn.apply(Action(1, ActionKind.CHECK, 0))
    assert not opened_river_with_check(turn.history, turn.street_starts, 1), "a turn check is not a river one"
    bet = scripted(blueprint, CHECKED_DOWN)
    bet.apply(Action(1, ActionKind.RAISE, 100))
    assert not opened_river_with_check(bet.history, bet.street_starts, 1)


def test_capped_beliefs_keep_the_floor_above_the_cap(blueprint: Blueprint) -> None:
    state = scripted(blueprint, CHECKED_DOWN)
    state.apply(Action(*RIVER_CHECK))
    beliefs = public_beliefs(blueprint, state)
    capped = capped_beliefs(beliefs, BOARD, 1, 0.6)
    np.testing.assert_array_equal(capped[0], beliefs[0])
    np.testing.assert_allclose(capped.sum(axis=1), 1.0)
    above = river_strength(BOARD) > 0.6
    assert beliefs[1, above].sum() > 0, "the spot tests something"
    ratio = capped[1] / np.where(beliefs[1] > 0, beliefs[1], 1.0)
    below = ~above & (beliefs[1] > 0)
    np.testing.assert_allclose(ratio[above & (beliefs[1] > 0)], CAP_FLOOR * ratio[below][0])
    np.testing.assert_allclose(ratio[below], ratio[below][0])
    np.testing.assert_array_equal(capped_beliefs(beliefs, BOARD, 1, 1.0), beliefs)
    for bad in (-0.1, 1.5):
        with pytest.raises(ValueError, match="strength cap"):
            capped_beliefs(beliefs, BOARD, 1, bad)


def _summary(
    actions: list[tuple[int, ActionKind, int]], blueprint: Blueprint, player: int = 0
) -> HandSummary:
    state = scripted(blueprint, actions)
    assert state.is_over
    return HandSummary.from_state(state, player)


def test_hand_summaries_show_the_opponents_cards_only_at_a_showdown(blueprint: Blueprint) -> None:
    showdown = _summary([*CHECKED_DOWN, RIVER_CHECK, (0, ActionKind.CHECK, 0)], blueprint)
    assert showdown.opponent_cards == tuple(DECK[2:4]) and showdown.hole_cards == tuple(DECK[0:2])
    assert showdown.board == BOARD and showdown.street_starts == (0, 2, 4, 6)
    assert showdown.returns == (-100, 100), "ace-king high loses to the sevens"
    folded = _summary([*CHECKED_DOWN, (1, ActionKind.RAISE, 100), (0, ActionKind.FOLD, 0)], blueprint)
    assert folded.opponent_cards is None and folded.board == BOARD
    running = scripted(blueprint, CHECKED_DOWN)
    with pytest.raises(ValueError, match="not over"):
        HandSummary.from_state(running, 0)


def test_the_model_learns_the_strongest_checked_hand(blueprint: Blueprint) -> None:
    model = RiverCheckCap(min_showdowns=2, margin=0.01)
    checked_down = [*CHECKED_DOWN, RIVER_CHECK, (0, ActionKind.CHECK, 0)]
    assert model.observe(_summary(checked_down, blueprint, player=0))
    assert model.cap is None, "one showdown is fewer than min_showdowns"
    # The other seat: player 1's opponent (player 0, the button) did not open the river.
    assert not model.observe(_summary(checked_down, blueprint, player=1))
    assert not model.observe(
        _summary([*CHECKED_DOWN, (1, ActionKind.RAISE, 100), (0, ActionKind.FOLD, 0)], blueprint)
    )
    assert not model.observe(
        _summary([*CHECKED_DOWN, (1, ActionKind.RAISE, 100), (0, ActionKind.CALL, 100)], blueprint)
    ), "a showdown after a river bet says nothing about its checks"
    assert model.observe(
        _summary(
            [*CHECKED_DOWN, RIVER_CHECK, (0, ActionKind.RAISE, 100), (1, ActionKind.CALL, 100)], blueprint
        )
    )
    sevens = float(river_strength(BOARD)[combo_index(*DECK[2:4])])
    assert (model.showdowns, model.strongest) == (2, sevens)
    assert model.cap == pytest.approx(sevens + 0.01)
    for bad in ({"min_showdowns": 0}, {"min_showdowns": True}, {"margin": 1.0}, {"margin": -0.1}):
        with pytest.raises(ValueError):
            RiverCheckCap(**bad)


def test_the_cap_changes_the_solve_only_after_the_opponents_river_check(blueprint: Blueprint) -> None:
    checked = scripted(blueprint, CHECKED_DOWN)
    checked.apply(Action(*RIVER_CHECK))
    options: dict[str, Any] = {"iterations": 20, "threshold": 0.3, "max_raises": 2}
    plain = solve_river(blueprint, checked, **options)
    capped = solve_river(blueprint, checked, opponent_cap=0.5, **options)
    assert not np.allclose(plain.strategy, capped.strategy)
    np.testing.assert_array_equal(
        solve_river(blueprint, checked, opponent_cap=1.0, **options).strategy, plain.strategy
    )
    facing = scripted(blueprint, CHECKED_DOWN)
    facing.apply(Action(1, ActionKind.RAISE, 100))
    np.testing.assert_array_equal(
        solve_river(blueprint, facing, opponent_cap=0.5, **options).strategy,
        solve_river(blueprint, facing, **options).strategy,
    )
    # Fewer strong hands in the checking range: over its range, the searcher checks behind less.
    reach = public_beliefs(blueprint, checked, threshold=0.3)[0]
    assert reach @ capped.strategy[:, CHECK_CALL_SLOT] < reach @ plain.strategy[:, CHECK_CALL_SLOT]


def test_a_duplicate_match_tells_both_seats_how_each_hand_ended() -> None:
    first, second = RecordingCaller(), RecordingCaller()
    duplicate_match(first, second, 5, seed=2)
    assert len(first.summaries) == len(second.summaries) == 10
    for mine, theirs in zip(first.summaries, second.summaries, strict=True):
        assert mine.player == 1 - theirs.player
        assert mine.opponent_cards == theirs.hole_cards, "two callers always reach a showdown"
        assert len(mine.board) == 5


def test_the_agent_learns_against_heuristic_and_solves_with_its_cap(capped: Blueprint) -> None:
    agent = SearchAgent(
        capped,
        SearchConfig(river=RiverSearch(iterations=5, budget_ms=None), check_cap=True, cap_showdowns=3),
        threshold=0.3,
    )
    assert agent.opponent_cap is None
    duplicate_match(agent, HeuristicAgent(samples=50), 40, seed=5)
    model = agent.check_model
    assert model is not None and model.showdowns >= 3
    assert agent.opponent_cap == pytest.approx(model.strongest + model.margin)
    state = HUNLState.new(capped.game.config, 0, deck=DECK)
    for action in [*CHECKED_DOWN, RIVER_CHECK]:
        state.apply(Action(*action))
    solution = agent.river_solution(Observation.from_state(state))
    expected = solve_river(
        capped,
        state,
        iterations=5,
        threshold=0.3,
        max_raises=agent.config.river.max_raises,
        opponent_cap=agent.opponent_cap,
    )
    np.testing.assert_array_equal(solution.strategy, expected.strategy)
    plain = SearchAgent(capped, SearchConfig(river=RiverSearch(iterations=5, budget_ms=None)), threshold=0.3)
    duplicate_match(plain, HeuristicAgent(samples=50), 2, seed=5)
    assert plain.check_model is None and plain.opponent_cap is None


def test_the_spec_turns_the_model_on_and_refuses_bad_options() -> None:
    agent = make_agent(f"search:{CAPPED}?check_cap=1&cap_showdowns=7")
    assert isinstance(agent, SearchAgent) and agent.check_model is not None
    assert agent.check_model.min_showdowns == 7
    default = make_agent(f"search:{CAPPED}")
    assert isinstance(default, SearchAgent) and default.check_model is None
    with pytest.raises(ValueError, match="check_cap"):
        make_agent(f"search:{CAPPED}?check_cap=yes")
    with pytest.raises(ValueError, match="cap_showdowns= needs check_cap=1"):
        make_agent(f"search:{CAPPED}?cap_showdowns=7")
    with pytest.raises(ValueError, match="check_cap"):
        SearchAgent(Blueprint.load(CAPPED), SearchConfig(check_cap=1))  # type: ignore[arg-type]


# ---------------------------------------------------------------------- the opponent's answers to a bet


def _checked_river(blueprint: Blueprint) -> RiverSubgame:
    """The river subgame after CHECKED_DOWN and player 1's check, over the hands either may hold."""
    state = scripted(blueprint, CHECKED_DOWN)
    state.apply(Action(*RIVER_CHECK))
    beliefs = public_beliefs(blueprint, state, threshold=0.3)
    hands = np.flatnonzero((beliefs[0] > 0) | (beliefs[1] > 0))
    return build_river_subgame(state, blueprint.game.bets, beliefs, max_raises=2, hands=hands)


def test_a_fixed_node_plays_its_strategy_at_full_weight(blueprint: Blueprint) -> None:
    river = _checked_river(blueprint)
    subgame = river.subgame
    node = next(
        child
        for child, slot in zip(subgame.children(0), river.root_slots, strict=True)
        if slot > CHECK_CALL_SLOT
    )
    width = len(subgame.children(node))
    rng = np.random.default_rng(0)
    rows = rng.random((subgame.num_hands, width))
    rows /= rows.sum(axis=1, keepdims=True)
    solution = solve(subgame, 30, fixed={node: (1.0, rows)})
    children = subgame.children(node)
    np.testing.assert_allclose(solution.average[children.start : children.stop].T, rows, atol=1e-12)
    half = solve(subgame, 30, fixed={node: (0.5, rows)}).average[children.start : children.stop].T
    assert np.all(half >= 0.5 * rows - 1e-12), "the fixed half is always played"
    assert not np.allclose(half, rows)
    for bad, message in (
        ({node: (1.0, rows[:, :-1])}, "shape"),
        ({node: (True, rows)}, "weight"),
        ({-1: (1.0, rows)}, "not a decision"),
        ({node: (0.0, rows)}, "weight"),
        ({node: (1.0, rows * 2)}, "not a distribution"),
    ):
        with pytest.raises(ValueError, match=message):
            solve(subgame, 1, fixed=bad)  # type: ignore[arg-type]


def _counts(context: int, bucket: int, answers: tuple[int, int, int]) -> ResponseCounts:
    cells = [[(0, 0, 0)] * (len(RESPONSE_SIZES) + 1) for _ in range(2)]
    cells[context][bucket] = answers
    return ResponseCounts(tuple(tuple(row) for row in cells))


def test_modelled_answers_fold_the_weakest_and_raise_the_strongest(blueprint: Blueprint) -> None:
    river = _checked_river(blueprint)
    fractions = {}
    for node, slot in zip(river.subgame.children(0), river.root_slots, strict=True):
        if slot > CHECK_CALL_SLOT:
            child = river.decision_states[node]  # type: ignore[index]
            fractions[node] = child.call_amount / (child.pot - child.call_amount)
    pot_bets = [node for node, fraction in fractions.items() if size_bucket(fraction) == 1]
    assert pot_bets and len(pot_bets) < len(fractions), "one bucket is modelled, not every bet"
    fixed = response_strategies(river, _counts(1, 1, (50, 40, 10)))
    assert sorted(fixed) == sorted(pot_bets)
    assert response_strategies(river, _counts(0, 1, (50, 40, 10))) == {}, "it checked: context 1"
    reach = river.subgame.reach[1] / river.subgame.reach[1].sum()
    strength = river_strength(BOARD)[river.hands]
    for weight, strategy in fixed.values():
        assert weight == pytest.approx(100 / 120)
        fold, call, raises = strategy[:, 0], strategy[:, 1], strategy[:, 2:].sum(axis=1)
        np.testing.assert_allclose(fold + call + raises, 1.0)
        # The shares are met up to one hand's weight of the range (a hand is not split).
        assert abs(reach @ fold - 0.5) <= reach.max() and abs(reach @ raises - 0.1) <= reach.max()
        assert strength[fold > 0].max() <= strength[call > 0].min()
        assert strength[call > 0].max() <= strength[raises > 0].min()
    opening = scripted(blueprint, CHECKED_DOWN)
    opening_river = build_river_subgame(
        opening, blueprint.game.bets, public_beliefs(blueprint, opening), max_raises=2
    )
    assert response_strategies(opening_river, _counts(0, 1, (5, 5, 0))), "the searcher opens: context 0"
    facing = scripted(blueprint, CHECKED_DOWN)
    facing.apply(Action(1, ActionKind.RAISE, 100))
    facing_river = build_river_subgame(
        facing, blueprint.game.bets, public_beliefs(blueprint, facing), max_raises=2
    )
    assert response_strategies(facing_river, _counts(1, 0, (5, 5, 0))) == {}, "only the searcher's first bet"


def test_the_response_model_counts_answers_to_the_agents_first_river_bet(blueprint: Blueprint) -> None:
    model = BetResponses(prior=10)
    # Player 1 checks, the button (player 0, the agent) bets half the pot of 200, player 1 folds.
    assert model.observe(
        _summary([*CHECKED_DOWN, RIVER_CHECK, (0, ActionKind.RAISE, 100), (1, ActionKind.FOLD, 0)], blueprint)
    )
    # ... bets 1.5 pots and is called.
    assert model.observe(
        _summary(
            [*CHECKED_DOWN, RIVER_CHECK, (0, ActionKind.RAISE, 300), (1, ActionKind.CALL, 300)], blueprint
        )
    )
    # Player 1 (the agent) opens with a pot bet, and the button raises.
    raised = [*CHECKED_DOWN, (1, ActionKind.RAISE, 200), (0, ActionKind.RAISE, 600), (1, ActionKind.FOLD, 0)]
    assert model.observe(_summary(raised, blueprint, player=1))
    assert not model.observe(_summary(raised, blueprint, player=0)), "the opponent bet first"
    assert not model.observe(_summary([*CHECKED_DOWN, RIVER_CHECK, (0, ActionKind.CHECK, 0)], blueprint))
    assert not model.observe(_summary([(0, ActionKind.FOLD, 0)], blueprint)), "no river"
    counts = model.snapshot
    assert counts.counts[1][0] == (1, 0, 0) and counts.counts[1][2] == (0, 1, 0)
    assert counts.counts[0][1] == (0, 0, 1)
    assert sum(sum(cell) for row in counts.counts for cell in row) == 3
    assert counts.shares(1, 0.5) == (1 / 11, 1.0, 0.0)
    assert counts.shares(1, 1.0) is None
    with pytest.raises(ValueError, match="prior"):
        BetResponses(prior=0)


def test_a_flop_response_model_counts_answers_to_the_agents_first_flop_bet(blueprint: Blueprint) -> None:
    flop, river = BetResponses(prior=10, street=Street.FLOP), BetResponses(prior=10)
    limp = [(0, ActionKind.CALL, 50), (1, ActionKind.CHECK, 0)]
    # The big blind (player 1, the agent) checks the flop; the button bets the pot of 200; player 1 calls.
    opponent_bet = [*limp, (1, ActionKind.CHECK, 0), (0, ActionKind.RAISE, 200), (1, ActionKind.FOLD, 0)]
    assert not flop.observe(_summary(opponent_bet, blueprint, player=1)), "the opponent bet first"
    # Player 1 checks, the agent (the button) bets twice the pot and is called; then checks to the end.
    called = [*limp, (1, ActionKind.CHECK, 0), (0, ActionKind.RAISE, 400), (1, ActionKind.CALL, 400)]
    called += [(1, ActionKind.CHECK, 0), (0, ActionKind.CHECK, 0), RIVER_CHECK, (0, ActionKind.CHECK, 0)]
    summary = _summary(called, blueprint)
    assert flop.observe(summary) and not river.observe(summary), "a flop bet, and no river bet"
    assert flop.observe(_summary(opponent_bet, blueprint, player=0)), "the agent's bet, folded to"
    counts = flop.snapshot.counts
    assert counts[1][size_bucket(2.0)] == (0, 1, 0) and counts[1][size_bucket(1.0)] == (1, 0, 0)
    assert sum(sum(cell) for row in counts for cell in row) == 2
    with pytest.raises(ValueError, match="flop, turn or river"):
        BetResponses(street=Street.PREFLOP)


def test_with_raises_the_model_also_counts_answers_to_the_agents_raises(blueprint: Blueprint) -> None:
    limp = [(0, ActionKind.CALL, 50), (1, ActionKind.CHECK, 0)]
    # The big blind (player 1) bets 100 into 200 on the flop; the button (the agent) raises to 250;
    # player 1 raises to 1,000; the agent raises to 2,500; player 1 folds.
    fight = [*limp, (1, ActionKind.RAISE, 100), (0, ActionKind.RAISE, 250), (1, ActionKind.RAISE, 1000)]
    fight += [(0, ActionKind.RAISE, 2500), (1, ActionKind.FOLD, 0)]
    plain, raises = BetResponses(street=Street.FLOP), BetResponses(street=Street.FLOP, raises=True)
    assert not plain.observe(_summary(fight, blueprint)), "no first bet of the agent"
    assert raises.observe(_summary(fight, blueprint))
    assert len(plain.snapshot.counts) == 2 and len(raises.snapshot.counts) == 3
    counts = raises.snapshot.counts
    # Sized as the solve sizes them: the raise-to over the pot without it.
    assert counts[RAISE_CONTEXT][size_bucket(250 / 300)] == (0, 0, 1)  # the pot 200 + 100, then the 250
    assert counts[RAISE_CONTEXT][size_bucket(2500 / 1200)] == (1, 0, 0)  # 200 + 1,000, then the 2,500
    assert sum(sum(cell) for row in counts for cell in row) == 2
    assert raises.snapshot.shares(RAISE_CONTEXT, 250 / 300) == (1 / 21, 0.0, 1.0)
    assert plain.snapshot.shares(RAISE_CONTEXT, 250 / 300) is None
    # The agent's first bet, raised and raised again: context 0, then the raise context.
    first = [*limp, (1, ActionKind.CHECK, 0), (0, ActionKind.RAISE, 200), (1, ActionKind.RAISE, 600)]
    first += [(0, ActionKind.RAISE, 1400), (1, ActionKind.CALL, 800), (1, ActionKind.CHECK, 0)]
    first += [(0, ActionKind.CHECK, 0), RIVER_CHECK, (0, ActionKind.CHECK, 0)]
    assert raises.observe(_summary(first, blueprint))
    counts = raises.snapshot.counts
    assert counts[1][size_bucket(1.0)] == (0, 0, 1) and counts[RAISE_CONTEXT][size_bucket(1400 / 800)][1] == 1


def test_the_aggression_model_counts_the_opponents_postflop_raises_by_context(blueprint: Blueprint) -> None:
    model = Aggression(prior=10)
    # Preflop raises are not counted. On the flop the big blind (player 1, the opponent) bets 100
    # into 200, the agent raises to 300, player 1 raises to 500 and the agent calls; player 1 checks
    # the turn and calls a bet; on the river player 1 checks and folds to a bet.
    hand = [(0, ActionKind.RAISE, 200), (1, ActionKind.CALL, 100)]
    hand += [(1, ActionKind.RAISE, 100), (0, ActionKind.RAISE, 300), (1, ActionKind.RAISE, 500)]
    hand += [(0, ActionKind.CALL, 200), (1, ActionKind.CHECK, 0), (0, ActionKind.RAISE, 700)]
    hand += [(1, ActionKind.CALL, 700), (1, ActionKind.CHECK, 0), (0, ActionKind.RAISE, 2000)]
    hand += [(1, ActionKind.FOLD, 0)]
    assert model.observe(_summary(hand, blueprint)) == 6
    # Nothing to call: the flop bet and the checks of the turn and river; facing a bet: the
    # re-raise, the turn call and the river fold.
    assert model.counts == [[2, 1], [2, 1]]
    # Seen from player 1, the opponent is player 0: its flop raise faces a bet, its turn and
    # river bets follow checks.
    other = Aggression(prior=10)
    assert other.observe(_summary(hand, blueprint, player=1)) == 4
    assert other.counts == [[0, 2], [1, 1]]
    assert Aggression().observe(_summary([(0, ActionKind.FOLD, 0)], blueprint)) == 0
    # A shove leaves no raise to make: the answer to it is not counted.
    shove = [(0, ActionKind.CALL, 50), (1, ActionKind.CHECK, 0), (1, ActionKind.RAISE, 19_900)]
    shove += [(0, ActionKind.CALL, 19_900)]
    checked = Aggression()
    assert checked.observe(_summary(shove, blueprint, player=1)) == 0
    with pytest.raises(ValueError, match="prior"):
        Aggression(prior=0)


def test_the_aggression_floors_match_the_counted_share_of_raises() -> None:
    model = Aggression(prior=10)
    assert model.path_floors().floors == ((0.0, 0.0), (0.0, 0.0)), "nothing counted, no floor"
    calm, facing = AGGRESSION_REFERENCE
    assert 0 < calm < 1 and 0 < facing < 1
    # 30 decisions with nothing to call, 24 of them bets; 10 facing a bet, none a raise.
    model.counts = [[6, 24], [10, 0]]
    floors = model.path_floors()
    weight = 30 / 40
    aggressive = weight * (0.8 - calm) / (1 - calm)
    assert floors.floor(0, aggressive=True) == pytest.approx(aggressive)
    assert floors.floor(0, aggressive=False) == 0.0
    # The floor makes the blueprint's share the counted one, up to the weight: (1 − λ)·a + λ = f.
    assert (1 - aggressive / weight) * calm + aggressive / weight == pytest.approx(0.8)
    passive = 0.5 * (facing - 0.0) / facing
    assert floors.floor(1, aggressive=False) == pytest.approx(passive)
    assert floors.floor(1, aggressive=True) == 0
    model.counts = [[0, 10_000], [0, 0]]
    assert model.path_floors().floor(0, aggressive=True) == MAX_PATH_FLOOR


def test_the_aggression_model_scores_the_hands_shown_after_bets_and_scales_the_floors(
    blueprint: Blueprint,
) -> None:
    # Player 1 (the opponent) bets the flop and the river and is called to a showdown.
    hand = [(0, ActionKind.CALL, 50), (1, ActionKind.CHECK, 0), (1, ActionKind.RAISE, 100)]
    hand += [(0, ActionKind.CALL, 100), (1, ActionKind.CHECK, 0), (0, ActionKind.CHECK, 0)]
    hand += [(1, ActionKind.RAISE, 300), (0, ActionKind.CALL, 300)]
    summary = _summary(hand, blueprint)
    assert summary.opponent_cards is not None
    model = Aggression(prior=10, showdowns=True)
    model.observe(summary)
    combo = combo_index(*summary.opponent_cards)
    expected = street_strength(BOARD[:3])[combo] + street_strength(BOARD)[combo]
    assert model.shown == [pytest.approx(expected), 2]
    mean = (expected + 10 * SHOWN_REFERENCE) / 12
    weakness = min(1.0, max(0.0, (SHOWN_REFERENCE - mean) / (SHOWN_REFERENCE - 0.5)))
    assert model.weakness() == pytest.approx(weakness)
    folded = Aggression(prior=10)
    folded.observe(_summary([*hand[:3], (0, ActionKind.FOLD, 0)], blueprint))
    assert folded.shown == [0.0, 0] and folded.counts == [[0, 1], [0, 0]], "no showdown, nothing shown"
    assert Aggression().weakness() == 0.0, "nothing shown: as strong as the blueprint's"
    # Raising more often than the blueprint with random hands (strength 0.5 on average): the
    # floor on raises is nearly whole; with hands as strong as the blueprint's, none.
    random_hands = ([0.5 * 1000, 1000], 1000 / 1010)
    strong_hands = ([0.9 * 100, 100], 0.0)
    for shown, weakness in (random_hands, strong_hands):
        scaled, plain = Aggression(prior=10, showdowns=True), Aggression(prior=10)
        for one in (scaled, plain):
            one.counts = [[6, 24], [10, 0]]
        scaled.shown = shown
        assert scaled.weakness() == pytest.approx(weakness)
        assert scaled.path_floors().floor(0, aggressive=True) == pytest.approx(
            plain.path_floors().floor(0, aggressive=True) * scaled.weakness()
        )
        passive = plain.path_floors().floor(1, aggressive=False)
        assert scaled.path_floors().floor(1, aggressive=False) == passive > 0


def test_raise_fraction_sizes_bets_and_raises_over_the_pot_after_the_call(blueprint: Blueprint) -> None:
    state = scripted(blueprint, CHECKED_DOWN)  # the river, 200 in the pot, player 1 to act
    assert raise_fraction(state, 200) == 1.0 and raise_fraction(state, 100) == 0.5
    state.apply(Action(1, ActionKind.RAISE, 100))
    # Facing 100 in a pot of 300: a pot-size raise calls 100 and adds the 400 then in the pot.
    assert raise_fraction(state, 500) == 1.0
    state.apply(Action(0, ActionKind.FOLD, 0))
    with pytest.raises(ValueError, match="over"):
        raise_fraction(state, 500)


def test_the_aggression_model_counts_overbets_and_floors_them_only_when_asked(blueprint: Blueprint) -> None:
    # Player 1 (the opponent) bets the flop 100 into 200 and the turn 5 pots (2,000 into 400),
    # and the agent folds the turn.
    hand = [(0, ActionKind.CALL, 50), (1, ActionKind.CHECK, 0), (1, ActionKind.RAISE, 100)]
    hand += [(0, ActionKind.CALL, 100), (1, ActionKind.RAISE, 2000), (0, ActionKind.FOLD, 0)]
    assert 2000 / 400 > OVERBET > 100 / 200
    plain, sized = Aggression(prior=10), Aggression(prior=10, overbets=True)
    for model in (plain, sized):
        assert model.observe(_summary(hand, blueprint)) == 2
        assert model.counts == [[0, 2], [0, 0]] and model.overbets == [1, 0]
    assert plain.path_floors().overbets == (0.0, 0.0)
    # Two decisions with nothing to call, one an overbet: w·o = 2/12 · 1/2.
    assert sized.path_floors().overbets == (pytest.approx(2 / 12 * 0.5), 0.0)
    assert sized.path_floors().floors == plain.path_floors().floors
    sized.counts, sized.overbets = [[30, 50], [0, 0]], [40, 0]
    floors = sized.path_floors()
    aggressive = floors.floor(0, aggressive=True)
    assert floors.floor(0, aggressive=True, overbet=True) == pytest.approx(80 / 90 * 0.5)
    assert 0 < aggressive < 80 / 90 * 0.5
    assert floors.floor(0, aggressive=False, overbet=True) == floors.floor(0, aggressive=False)
    # With showdowns the floor on raises is scaled by the weakness of the hands shown; the one on
    # overbets is not.
    strong = Aggression(prior=10, showdowns=True, overbets=True)
    strong.counts, strong.overbets, strong.shown = [[30, 50], [0, 0]], [40, 0], [0.9 * 100, 100]
    assert strong.weakness() == 0.0 and strong.path_floors().floor(0, aggressive=True) == 0.0
    assert strong.path_floors().floor(0, aggressive=True, overbet=True) == pytest.approx(80 / 90 * 0.5)


def test_street_strength_ranks_made_hands_on_the_flop_and_turn_and_is_the_river_strength_on_the_river() -> (
    None
):
    flop = tuple(parse_cards("Qs9h2c"))
    strength = street_strength(flop)
    assert np.array_equal(street_strength(flop), strength) and not strength.flags.writeable
    assert np.all(strength[combos_holding(flop)] == 0.0)
    queens = combo_index(*parse_cards("QhQd"))  # top set
    top_pair = combo_index(*parse_cards("AhQd"))
    nothing = combo_index(*parse_cards("4d3h"))
    assert strength[queens] > strength[top_pair] > strength[nothing]
    assert strength[queens] > 0.9 and strength[nothing] < 0.3
    turn = (*flop, *parse_cards("5d"))
    assert street_strength(turn)[combo_index(*parse_cards("5h5s"))] > 0.9, "a set of fives"
    river = (*turn, *parse_cards("3s"))
    np.testing.assert_array_equal(street_strength(river), river_strength(river))
    with pytest.raises(ValueError, match="3 to 5 cards"):
        street_strength(flop[:2])


def test_the_solve_uses_the_modelled_answers(blueprint: Blueprint) -> None:
    checked = scripted(blueprint, CHECKED_DOWN)
    checked.apply(Action(*RIVER_CHECK))
    options: dict[str, Any] = {"iterations": 30, "threshold": 0.3, "max_raises": 2}
    plain = solve_river(blueprint, checked, **options)
    other_context = solve_river(blueprint, checked, opponent_responses=_counts(0, 1, (9, 0, 0)), **options)
    np.testing.assert_array_equal(other_context.strategy, plain.strategy)
    folding = _counts(1, 0, (900, 100, 0))  # folds 90% to a bet of up to 0.6 pots after checking
    exploiting = solve_river(blueprint, checked, opponent_responses=folding, **options)
    reach = public_beliefs(blueprint, checked, threshold=0.3)[0]
    assert reach @ exploiting.strategy[:, CHECK_CALL_SLOT] < 0.5 * (
        reach @ plain.strategy[:, CHECK_CALL_SLOT]
    )
    with pytest.raises(ValueError, match="safe"):
        solve_river(blueprint, checked, opponent_responses=folding, safe=True, **options)


def test_the_agent_learns_answers_and_the_spec_sets_them(capped: Blueprint) -> None:
    agent = SearchAgent(
        capped,
        SearchConfig(river=RiverSearch(iterations=5, budget_ms=None), responses=True, response_prior=5),
        threshold=0.3,
    )
    duplicate_match(agent, HeuristicAgent(samples=50), 20, seed=6)
    assert agent.response_model is not None
    counts = agent.response_model.snapshot
    assert counts.prior == 5 and sum(sum(cell) for row in counts.counts for cell in row) > 0
    with pytest.raises(ValueError, match="safe"):
        SearchAgent(capped, SearchConfig(responses=True, safe=True))
    spec = make_agent(f"search:{CAPPED}?responses=1&response_prior=7")
    assert (
        isinstance(spec, SearchAgent) and spec.response_model is not None and spec.response_model.prior == 7
    )
    with pytest.raises(ValueError, match="response_prior= needs responses=1"):
        make_agent(f"search:{CAPPED}?response_prior=7")
    with pytest.raises(ValueError, match="responses"):
        make_agent(f"search:{CAPPED}?responses=2")


def test_a_counted_answer_models_the_node_of_that_bet(blueprint: Blueprint) -> None:
    """End to end: the answer to a menu bet, counted from a finished hand, models that bet's node."""
    checked = scripted(blueprint, CHECKED_DOWN)
    checked.apply(Action(*RIVER_CHECK))
    beliefs = public_beliefs(blueprint, checked, threshold=0.3)
    river = build_river_subgame(checked, blueprint.game.bets, beliefs, max_raises=2)
    assert river.decision_states is not None
    bets = {
        node: river.decision_states[node].bets[0]
        for node, slot in zip(river.subgame.children(0), river.root_slots, strict=True)
        if slot > CHECK_CALL_SLOT
    }
    for node, amount in bets.items():
        model = BetResponses()
        hand = [*CHECKED_DOWN, RIVER_CHECK, (0, ActionKind.RAISE, amount), (1, ActionKind.FOLD, 0)]
        assert model.observe(_summary(hand, blueprint))
        fixed = response_strategies(river, model.snapshot)
        assert node in fixed, (amount, sorted(fixed))
        same_bucket = {other for other in bets if size_bucket(bets[other] / 200) == size_bucket(amount / 200)}
        assert set(fixed) == same_bucket
        weight, strategy = fixed[node]
        in_range = river.subgame.reach[1] > 0
        assert weight == pytest.approx(1 / 21) and np.all(strategy[in_range, 0] == 1.0), "it folded: all fold"


def test_the_agent_solves_with_what_it_learnt_and_solves_again_when_it_learns(capped: Blueprint) -> None:
    agent = SearchAgent(
        capped, SearchConfig(river=RiverSearch(iterations=5, budget_ms=None), responses=True), threshold=0.3
    )
    assert agent.response_model is not None
    checked = HUNLState.new(capped.game.config, 0, deck=DECK)
    for action in [*CHECKED_DOWN, RIVER_CHECK]:
        checked.apply(Action(*action))
    observation = Observation.from_state(checked)
    before = agent.river_solution(observation)
    solves = agent.solves
    agent.river_solution(observation)
    assert agent.solves == solves, "the same model: the cached solution"
    for bet in (100, 200, 400):  # every bucket the menu may use at this pot of 200
        hand = [*CHECKED_DOWN, RIVER_CHECK, (0, ActionKind.RAISE, bet), (1, ActionKind.FOLD, 0)]
        agent.end_hand(HandSummary.from_state(scripted(capped, hand), 0))
    after = agent.river_solution(observation)
    assert agent.solves == solves + 1, "a new model: a new solve"
    expected = solve_river(
        capped,
        checked,
        iterations=5,
        threshold=0.3,
        max_raises=agent.config.river.max_raises,
        opponent_responses=agent.response_model.snapshot,
    )
    np.testing.assert_array_equal(after.strategy, expected.strategy)
    assert not np.array_equal(after.strategy, before.strategy)


def test_lbr_measures_a_fixed_policy_and_tells_it_nothing() -> None:
    target = RecordingFolder()
    lbr_match(target, 4, seed=1)
    assert target.summaries == []
