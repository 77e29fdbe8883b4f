"""The answer to an off-menu all-in: detection, equity matrices, the all-in game, its solve and the agent."""

from __future__ import annotations

import numpy as np
import pytest

from pokerai.abstraction.bets import CHECK_CALL_SLOT, FOLD_SLOT, BetAbstraction, BetMenu
from pokerai.agents.base import Observation
from pokerai.agents.blueprint import BlueprintAgent
from pokerai.agents.search import SearchAgent
from pokerai.agents.spec import make_agent
from pokerai.deepcfr.export import Blueprint
from pokerai.engine.cards import parse_cards
from pokerai.engine.equity import runout_equity
from pokerai.engine.state import Action, ActionKind, HUNLConfig, HUNLState
from pokerai.search.allin import (
    EQUITY_MATRIX,
    VALID_MATRIX,
    allin_matrices,
    before_last_action,
    build_allin_subgame,
    is_offtree_allin,
    solve_allin,
)
from pokerai.search.beliefs import public_beliefs
from pokerai.search.combos import ALL_COMBOS, combo_index, combos_holding
from pokerai.search.config import FlopSearch, RiverSearch, SearchConfig, TurnSearch
from pokerai.search.subgame import DECISION, TERMINAL, counterfactual_values, solve
from tests.search.hunl_spots import CAPPED, CHECKED_DOWN, DECK

MENU = BetMenu(pot_fractions=(0.5, 1.0, 2.0), all_in=True, all_in_max_pots=2, max_raises=2)


def hand(config: HUNLConfig, actions: list[tuple[int, ActionKind, int]]) -> HUNLState:
    """A hand on DECK, player 0 on the button, with ``actions`` (player, kind, amount) applied."""
    state = HUNLState.new(config, 0, deck=DECK)
    for player, kind, amount in actions:
        state.apply(Action(player, kind, amount))
    return state


# Raise to 250, call; on the flop the big blind checks: the button to act with 500 in the pot.
FLOP_CHECKED_TO = [(0, ActionKind.RAISE, 250), (1, ActionKind.CALL, 150), (1, ActionKind.CHECK, 0)]


def test_only_all_ins_the_menu_lacks_are_off_the_tree() -> None:
    bets = BetAbstraction(MENU, MENU, MENU, MENU)
    deep = HUNLConfig(stacks=(20_000, 20_000))
    opening = hand(deep, [])
    assert is_offtree_allin(opening, Action(0, ActionKind.RAISE, 20_000), bets)  # 99 pots
    assert not is_offtree_allin(opening, Action(0, ActionKind.RAISE, 300), bets)  # not all-in
    assert not is_offtree_allin(opening, Action(0, ActionKind.CALL, 50), bets)
    assert not is_offtree_allin(opening, Action(1, ActionKind.RAISE, 20_000), bets)  # not its turn
    # 4 big blinds deep the all-in raises 1.5 pots: the menu's all-in slot.
    shallow = HUNLConfig(stacks=(400, 400))
    assert not is_offtree_allin(hand(shallow, []), Action(0, ActionKind.RAISE, 400), bets)
    # A third raise on a street with max_raises 2: the menu has no raise at all, all-in included.
    raised_twice = hand(shallow, [(0, ActionKind.RAISE, 200), (1, ActionKind.RAISE, 300)])
    assert is_offtree_allin(raised_twice, Action(0, ActionKind.RAISE, 400), bets)


def test_flop_equity_matrix_agrees_with_exact_run_outs() -> None:
    board = tuple(parse_cards("Qs9h2c"))
    hands, valid, payoff = allin_matrices(board)
    assert np.array_equal(hands, np.flatnonzero(~combos_holding(board)))
    assert valid.shape == payoff.shape == (hands.size, hands.size)
    assert np.array_equal(payoff, -payoff.T) and not payoff[valid == 0].any()
    rng = np.random.default_rng(2)
    checked = 0
    while checked < 8:
        i, j = (int(x) for x in rng.choice(hands.size, size=2, replace=False))
        if valid[i, j] == 0:
            continue
        first, second = tuple(ALL_COMBOS[hands[i]].tolist()), tuple(ALL_COMBOS[hands[j]].tolist())
        exact = runout_equity(first, second, board)  # all 990 run-outs
        # About 250 sampled run-outs per pair: a standard error of at most 0.032.
        assert abs((payoff[i, j] + 1) / 2 - exact) < 0.12, (first, second)
        checked += 1
    # Top set against a flush draw's overcards: far ahead.
    sets, overcards = combo_index(*parse_cards("QhQd")), combo_index(*parse_cards("AdKd"))
    i, j = int(np.searchsorted(hands, sets)), int(np.searchsorted(hands, overcards))
    assert (payoff[i, j] + 1) / 2 > 0.85


def test_allin_game_pays_folds_in_chips_and_calls_by_equity(capped: Blueprint) -> None:
    flop = hand(capped.game.config, FLOP_CHECKED_TO)
    allin = Action(0, ActionKind.RAISE, flop.max_raise_to or 0)
    beliefs = public_beliefs(capped, flop, threshold=0.3)
    game = build_allin_subgame(flop, allin, beliefs)
    subgame = game.subgame
    assert game.shover == 0 and subgame.player[0] == 0
    labels = [subgame.label[node] for node in subgame.children(0)]
    assert labels == ["check/call", "all-in"]
    check, answer = subgame.children(0)
    assert answer == game.answer_node
    assert (subgame.kind[check], subgame.matrix[check], subgame.scale[check]) == (
        TERMINAL,
        EQUITY_MATRIX,
        250.0,
    )
    assert subgame.kind[answer] == DECISION and subgame.player[answer] == 1
    fold, call = subgame.children(answer)
    assert (subgame.matrix[fold], subgame.scale[fold]) == (
        VALID_MATRIX,
        250.0,
    )  # player 0 wins the 250 the folder put in
    assert (subgame.matrix[call], subgame.scale[call]) == (EQUITY_MATRIX, 20_000.0)
    # Facing a bet, the shover may also fold: it loses what it has in.
    bet = hand(capped.game.config, [*FLOP_CHECKED_TO, (0, ActionKind.RAISE, 250)])
    game = build_allin_subgame(bet, Action(1, ActionKind.RAISE, bet.max_raise_to or 0), beliefs)
    labels = [game.subgame.label[node] for node in game.subgame.children(0)]
    assert labels == ["fold", "check/call", "all-in"]
    assert game.answer_node == game.subgame.children(0)[-1] and game.subgame.player[game.answer_node] == 0
    fold = game.subgame.children(0)[0]
    assert (game.subgame.matrix[fold], game.subgame.scale[fold]) == (VALID_MATRIX, 250.0)
    with pytest.raises(ValueError, match="not an all-in"):
        build_allin_subgame(bet, Action(1, ActionKind.RAISE, 2_000), beliefs)


def _exploitability(subgame, average) -> float:  # type: ignore[no-untyped-def]
    """Both players' best-response gains against ``average`` in the subgame, in chips (zero-sum)."""
    reach = subgame.reach / subgame.reach.sum(axis=1, keepdims=True)
    total = 0.0
    for player in (0, 1):
        best = counterfactual_values(subgame, average, player, best_response=True)[0]
        total += float(reach[player] @ best)
    return total


@pytest.mark.slow  # about 5 s
def test_the_solve_reaches_an_equilibrium_that_defends_little_against_an_overbet(capped: Blueprint) -> None:
    river = hand(
        capped.game.config,
        [*FLOP_CHECKED_TO, (0, ActionKind.CHECK, 0), (1, ActionKind.CHECK, 0), (0, ActionKind.CHECK, 0),
         (1, ActionKind.CHECK, 0)],
    )  # fmt: skip
    assert len(river.board) == 5 and river.to_act == 0
    allin = Action(0, ActionKind.RAISE, river.max_raise_to or 0)  # 19,750 into 500: about 40 pots
    beliefs = public_beliefs(capped, river, threshold=0.3)
    game = build_allin_subgame(river, allin, beliefs)
    uniform = np.full((game.subgame.num_nodes, game.subgame.num_hands), 0.5)  # two actions at each decision
    uniform[0] = 1.0
    solved = solve(game.subgame, 1000)
    pot = 500.0
    # Measured: about 4,900 chips for the uniform strategy, 0.05 for the solve.
    assert _exploitability(game.subgame, uniform) > 5 * pot
    assert _exploitability(game.subgame, solved.average) < 0.01 * pot
    # The caller's share of its range that calls: about what keeps the shover's bluffs from paying,
    # the pot over the pot and the bet (1/40), not the half of a network that never met the bet.
    reach = game.subgame.reach[1] / game.subgame.reach[1].sum()
    calls = float(reach @ solved.strategy(game.subgame, game.answer_node)[:, 1])
    assert 0.0 < calls < 3 * pot / (pot + 19_750)
    # solve_allin replays the state before the all-in and returns the same answer for every hand.
    answered = river.clone()
    answered.apply(allin)
    solution = solve_allin(capped, answered, iterations=1000, threshold=0.3)
    assert solution.iterations == 1000
    assert np.allclose(solution.strategy[game.hands], solved.strategy(game.subgame, game.answer_node))
    assert not solution.strategy[combos_holding(river.board)].any()
    assert np.allclose(solution.strategy[game.hands].sum(axis=1), 1.0)


def test_before_last_action_replays_all_but_the_last(capped: Blueprint) -> None:
    flop = hand(capped.game.config, FLOP_CHECKED_TO)
    before = before_last_action(flop)
    assert before.history == flop.history[:-1] and before.to_act == 1 and len(before.board) == 3
    with pytest.raises(ValueError, match="no action yet"):
        before_last_action(hand(capped.game.config, []))


def _observation(state: HUNLState) -> Observation:
    return Observation.from_state(state)


def test_the_agent_answers_an_offtree_allin_with_the_solve_and_nothing_else(capped: Blueprint) -> None:
    solving = BlueprintAgent(capped, threshold=0.3, allin="solve")
    policy = BlueprintAgent(capped, threshold=0.3)
    flop = hand(capped.game.config, FLOP_CHECKED_TO)
    # Before any all-in the two agents are the same agent.
    assert np.array_equal(solving.decision(_observation(flop))[0], policy.decision(_observation(flop))[0])
    flop.apply(Action(0, ActionKind.RAISE, flop.max_raise_to or 0))
    observation = _observation(flop)
    probabilities, actions = solving.decision(observation)
    solution = solve_allin(capped, flop, threshold=0.3)
    expected = solution.strategy[combo_index(*observation.hole_cards)]
    assert probabilities[FOLD_SLOT] == pytest.approx(expected[0] / expected.sum())
    assert probabilities[CHECK_CALL_SLOT] == pytest.approx(expected[1] / expected.sum())
    assert probabilities.sum() == pytest.approx(1.0) and np.count_nonzero(probabilities[2:]) == 0
    assert actions[CHECK_CALL_SLOT] == Action(1, ActionKind.CALL, flop.call_amount)
    # An underpair folds to about 40 pots; top set (the best hand on this flop) calls.
    assert probabilities[FOLD_SLOT] > 0.9
    queen, other_queen = parse_cards("QcQd")
    top_set = Observation.from_state(flop, hole_cards=(queen, other_queen))
    assert solving.decision(top_set)[0][CHECK_CALL_SLOT] > 0.9
    # One solve per public state: the same state again, or another hand there, is a cache hit.
    solving.decision(observation)
    assert solving.allin_solves == 1


def test_allin_option_in_specs_and_errors() -> None:
    agent = make_agent(f"blueprint:{CAPPED}?threshold=0.3&allin=solve")
    assert isinstance(agent, BlueprintAgent) and agent.allin == "solve" and agent.threshold == 0.3
    default = make_agent(f"blueprint:{CAPPED}")
    assert isinstance(default, BlueprintAgent) and (default.allin, default.threshold) == ("solve", 0.3)
    raw = make_agent(f"blueprint:{CAPPED}?allin=policy&threshold=0")
    assert isinstance(raw, BlueprintAgent) and (raw.allin, raw.threshold) == ("policy", 0.0)
    with pytest.raises(ValueError, match="allin='sometimes' is not one of policy, solve"):
        make_agent(f"blueprint:{CAPPED}?allin=sometimes")
    with pytest.raises(ValueError, match="allin 'x' is not one of"):
        BlueprintAgent(Blueprint.load(CAPPED), allin="x")


def test_search_agent_re_solves_an_offtree_allin_on_a_searched_street(capped: Blueprint) -> None:
    river = hand(capped.game.config, CHECKED_DOWN)  # the searcher's own earlier actions on its menu
    assert len(river.board) == 5 and river.to_act == 1
    config = SearchConfig(
        flop=FlopSearch(iterations=0), turn=TurnSearch(iterations=0), river=RiverSearch(20, budget_ms=None)
    )
    searching = SearchAgent(capped, config, threshold=0.3, allin="solve")
    river.apply(Action(1, ActionKind.RAISE, river.max_raise_to or 0))
    observation = Observation.from_state(river)
    assert searching.answers_offtree_allin(observation)
    probabilities, actions = searching.decision(observation)
    assert probabilities.sum() == pytest.approx(1.0)
    assert all(actions[slot] is not None for slot in np.flatnonzero(probabilities > 0))
    assert len(searching.stats) == 1 and searching.allin_solves == 0, "the all-in is in the river's tree"
    assert make_agent(f"search:{CAPPED}?allin=policy").allin == "policy"  # type: ignore[attr-defined]


def test_every_hand_off_the_board_gets_an_answer_on_the_turn(capped: Blueprint) -> None:
    turn = hand(capped.game.config, [*FLOP_CHECKED_TO, (0, ActionKind.CHECK, 0), (1, ActionKind.CHECK, 0)])
    assert len(turn.board) == 4 and turn.to_act == 0
    beliefs = public_beliefs(capped, turn, threshold=0.3)
    off_board = ~combos_holding(turn.board)
    # Some hands are in neither thresholded range: the game still answers for them.
    assert np.any(off_board & (beliefs[0] == 0) & (beliefs[1] == 0))
    turn.apply(Action(0, ActionKind.RAISE, turn.max_raise_to or 0))
    solution = solve_allin(capped, turn, threshold=0.3)
    assert np.allclose(solution.strategy[off_board].sum(axis=1), 1.0)
    assert not solution.strategy[~off_board].any()
    # The shover shoves with part of its range.
    assert float(beliefs[0] @ solution.shove) > 0
