"""PIMC on Kuhn and Leduc: hand-derived Kuhn policy, an array oracle, and exploitability vs CFR+."""

from __future__ import annotations

import numpy as np
import pytest

from pokerai.games import Game, KuhnPoker, LeducPoker
from pokerai.solvers import exploitability, nash_conv, solve, tree_of
from pokerai.solvers.minimax import expectimax
from pokerai.solvers.pimc import Determinised, pimc
from pokerai.solvers.tree import CHANCE_NODE, DECISION_NODE, TERMINAL_NODE


def perfect_information_values(game: Game) -> tuple[np.ndarray, np.ndarray]:
    """Oracle on the compiled tree's arrays: player 0's expectimax value of every node with
    all cards face up (max at player 0, min at player 1, mean at chance), and every node's
    chance reach (product of the chance probabilities on its path)."""
    tree = tree_of(game)
    values = np.zeros(tree.num_nodes)
    for node in range(tree.num_nodes - 1, -1, -1):
        children = slice(tree.first_child[node], tree.first_child[node] + tree.num_children[node])
        if tree.kind[node] == TERMINAL_NODE:
            values[node] = tree.utility[node]
        elif tree.kind[node] == CHANCE_NODE:
            values[node] = np.dot(tree.chance_probability[children], values[children])
        elif tree.player[node] == 0:
            values[node] = values[children].max()
        else:
            values[node] = values[children].min()
    reach = np.ones(tree.num_nodes)
    for node in range(1, tree.num_nodes):  # breadth first: parents come first
        reach[node] = reach[tree.parent[node]] * tree.chance_probability[node]
    return values, reach


def oracle_action_values(game: Game) -> np.ndarray:
    tree = tree_of(game)
    values, reach = perfect_information_values(game)
    sums = np.zeros((tree.num_infosets, tree.num_actions))
    weights = np.zeros(tree.num_infosets)
    for node in np.flatnonzero(tree.kind == DECISION_NODE):
        infoset, sign = tree.infoset[node], (1.0 if tree.player[node] == 0 else -1.0)
        weights[infoset] += reach[node]
        for child in range(tree.first_child[node], tree.first_child[node] + tree.num_children[node]):
            sums[infoset, tree.action[child]] += reach[node] * sign * values[child]
    return np.where(tree.legal_mask, sums / weights[:, None], np.nan)


@pytest.mark.parametrize("game", [KuhnPoker(), LeducPoker()], ids=["kuhn", "leduc"])
def test_action_values_match_the_array_oracle(game: Game) -> None:
    tree = tree_of(game)
    result = pimc(game)
    np.testing.assert_allclose(result.action_values, oracle_action_values(game), rtol=0, atol=1e-12)
    # Every node below the two private deals is evaluated exactly once (shared table).
    assert result.nodes == tree.num_nodes - 1 - int(np.sum(tree.depth == 1)) - int(np.sum(tree.depth == 2))
    values, _ = perfect_information_values(game)
    assert expectimax(Determinised(game.initial_state())).value == pytest.approx(values[0], abs=1e-12)


def test_kuhn_pimc_policy_by_hand() -> None:
    """Every card face up, Kuhn is easy: the better card wins, the worse one gives up cheaply.

    Player 0 with J: checking loses 1 (player 1 checks or bets and J folds), betting
    loses 2 (called) -> check. With Q: against J both actions win 1, against K
    checking loses 1 and betting 2 -> Q(check) = 0, Q(bet) = -0.5 -> check. With K
    both actions win 1 in every deal -> a tie, split 50/50. Facing a bet, J folds
    (-1 > -2) and Q calls (0 = (2 - 2)/2 > -1); player 1 mirrors this, and after a
    check bets K half the time (tie) and checks J and Q. J never bluffs.
    """
    result = pimc(KuhnPoker())
    table = result.policy.to_dict()
    expected = {
        "J:": "check", "Q:": "check", "J:pb": "fold", "Q:pb": "call", "K:pb": "call",
        "J:b": "fold", "Q:b": "call", "K:b": "call", "J:p": "check", "Q:p": "check",
    }  # fmt: skip
    for key, action in expected.items():
        assert table[key][action] == 1.0, (key, table[key])
    assert table["K:"] == {"check": 0.5, "bet": 0.5}
    assert table["K:p"] == {"check": 0.5, "bet": 0.5}
    tree = tree_of(KuhnPoker())
    assert result.action_values[tree.infoset_index("Q:")].tolist() == [0.0, -0.5]
    assert result.action_values[tree.infoset_index("Q:pb")].tolist() == [-1.0, 0.0]


def test_kuhn_pimc_exploitability_by_hand() -> None:
    """Best responses to the policy above, per card (each 1/3 likely):

    Player 1 against it: J folds to bets and checks behind (-1); Q folds to a bet
    (only K bets) and checks behind, winning J's ante and losing K's (0); K bets
    after a check, J folds and Q calls (+1.5). BR_1 = (-1 + 0 + 1.5)/3 = 1/6.
    Player 0 by symmetry of the reasoning: J -1, Q 0 (check: +1 vs J, -1 vs K),
    K bets (J folds +1, Q calls +2) 1.5. BR_0 = 1/6. NashConv 1/3, exploitability 1/6.
    """
    policy = pimc(KuhnPoker()).policy
    assert nash_conv(policy) == pytest.approx(1 / 3, abs=1e-12)
    assert exploitability(policy) == pytest.approx(1 / 6, abs=1e-12)


@pytest.mark.parametrize("game", [KuhnPoker(), LeducPoker()], ids=["kuhn", "leduc"])
def test_pimc_is_far_more_exploitable_than_cfr_plus(game: Game) -> None:
    """Measured (scripts/pimc_exploitability.py): about 1,900x CFR+'s exploitability on both games."""
    pimc_value = exploitability(pimc(game).policy)
    cfr_value = solve(game, "cfr+", 1000, eval_every=1000).exploitability
    assert cfr_value < 1e-3
    assert pimc_value > 0.1
    assert pimc_value > 100 * cfr_value


@pytest.mark.parametrize("game", [KuhnPoker(), LeducPoker()], ids=["kuhn", "leduc"])
def test_pimc_policy_is_pure_except_at_ties(game: Game) -> None:
    result = pimc(game)
    tree = tree_of(game)
    values = np.where(tree.legal_mask, result.action_values, -np.inf)
    tied = np.isclose(values, values.max(axis=1, keepdims=True), rtol=0, atol=1e-9)
    # Uniform over the tied best actions, 0 elsewhere: pure wherever the best is unique.
    expected = tied / tied.sum(axis=1, keepdims=True)
    np.testing.assert_array_equal(result.policy.probabilities, expected)
    unique = tied.sum(axis=1) == 1
    assert unique.mean() > 0.5  # most rows really are pure
    assert set(np.unique(result.policy.probabilities[unique])) == {0.0, 1.0}


def test_bad_tie_tolerance() -> None:
    with pytest.raises(ValueError, match="tie_tolerance"):
        pimc(KuhnPoker(), tie_tolerance=-1.0)
