"""The betting trees: every path agrees with the engine (or Leduc) on actions, chips and payoffs."""

from __future__ import annotations

import numpy as np
import pytest

from pokerai.abstraction.bets import BetAbstraction, BetMenu, slot_actions
from pokerai.engine.evaluator import rank_hand
from pokerai.engine.state import HUNLConfig, HUNLState
from pokerai.games.leduc import LeducState
from pokerai.tabular.tree import FOLD_NODE, SHOWDOWN_NODE, hunl_betting_tree, leduc_betting_tree

MENU = BetMenu(pot_fractions=(0.5, 1.0), all_in=True, all_in_max_pots=2, max_raises=2)
BETS = BetAbstraction(preflop=MENU, flop=MENU, turn=MENU, river=MENU)
CONFIG = HUNLConfig(50, 100, (20_000, 20_000))


def test_hunl_paths_agree_with_the_engine() -> None:
    tree = hunl_betting_tree(CONFIG, BETS)
    rng = np.random.default_rng(0)
    reached = {FOLD_NODE: 0, SHOWDOWN_NODE: 0}
    for _ in range(300):
        deck = rng.permutation(52)[:9].tolist()
        state = HUNLState.new(CONFIG, 0, deck=deck)
        node = 0
        while not state.is_over:
            mask, actions = slot_actions(state, BETS)
            count = int(tree.num_actions[node])
            assert tree.player[node] == state.to_act
            assert tree.street[node] == state.street
            assert sorted(tree.slots[node, :count].tolist()) == np.flatnonzero(mask).tolist()
            assert tuple(tree.committed[node]) == tuple(state.committed)
            choice = int(rng.integers(count))
            action = actions[int(tree.slots[node, choice])]
            assert action is not None
            state.apply(action)
            node = int(tree.children[node, choice])
        kind = int(tree.player[node])
        reached[kind] += 1
        if kind == FOLD_NODE:
            value = tree.amount[node]
        else:
            ranks = [rank_hand([*deck[2 * p : 2 * p + 2], *deck[4:9]]) for p in (0, 1)]
            value = tree.amount[node] * np.sign(ranks[0] - ranks[1])
        assert value == state.returns()[0]
    assert reached[FOLD_NODE] > 20 and reached[SHOWDOWN_NODE] > 20


def test_equal_situations_are_one_node() -> None:
    tree = hunl_betting_tree(CONFIG, BETS)
    # Flop, check-check after a limp and a check, or after a raise and a call: different chips, two nodes.
    # The same chips reached through different sequences share one node: lookup finds it exactly.
    decisions = tree.decisions
    seen: dict[tuple[int, ...], int] = {}
    for node in decisions.tolist():
        key = (
            int(tree.street[node]),
            int(tree.player[node]),
            *tree.committed[node].tolist(),
            int(tree.raises[node]),
        )
        seen.setdefault(key, node)
        assert tree.lookup(key[0], key[1], (key[2], key[3]), key[4]) == seen[key]
    assert len(decisions) < 20_000


def test_lookup_off_the_tree_takes_the_nearest_node() -> None:
    tree = hunl_betting_tree(CONFIG, BETS)
    # The big blind facing an open to 290 chips: the tree has the pot-size open to 300.
    node = tree.lookup(0, 1, (290, 100), 1)
    assert tuple(tree.committed[node]) == (300, 100)
    assert tree.player[node] == 1
    with pytest.raises(ValueError, match="no decision"):
        tree.lookup(7, 0, (100, 100), 0)


def test_unequal_stacks_are_refused() -> None:
    with pytest.raises(ValueError, match="equal stacks"):
        hunl_betting_tree(HUNLConfig(50, 100, (20_000, 10_000)), BETS)


def test_leduc_tree() -> None:
    tree = leduc_betting_tree()
    assert len(tree.decisions) == 36  # 6 first-round sequences, 5 that continue × 6 second-round ones
    # Walk every path against the Leduc rules with a fixed deal: K, J, board Q (player 0 wins).
    stack = [(0, LeducState((4, 0), ("",)))]
    while stack:
        node, state = stack.pop()
        if state.is_terminal():
            value = tree.amount[node]  # a fold's payoff, or the showdown's stake won by player 0's king
            assert value == state.returns()[0]
            continue
        count = int(tree.num_actions[node])
        assert tree.slots[node, :count].tolist() == list(state.legal_actions())
        for a in range(count):
            child = state.child(int(tree.slots[node, a]))
            if child.is_chance():
                child = child.child(2)
            stack.append((int(tree.children[node, a]), child))
