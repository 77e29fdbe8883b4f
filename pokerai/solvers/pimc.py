"""Perfect-information Monte Carlo (PIMC) as a tabular policy: why minimax is not enough in poker.

PIMC (Levy, "The Million Pound Bridge Program", 1989; Ginsberg, "GIB: Imperfect
Information in a Computationally Challenging Game", JAIR 2001) plays an imperfect-information
game by *determinising* it: deal the hidden cards in a way consistent with what
the player has seen, solve each deal as a perfect-information game, and play
the action with the best average value. Here the games are small, so nothing
is sampled: at each information set of the acting player, every history in the
set is one determinisation (the opponent's private card differs; one's own card,
the board and the betting are what the player knows), weighted by the
probability chance gives it. Future cards (Leduc's board) stay chance nodes,
which ``expectimax`` averages. Player 0 is MAX and player 1 is MIN in every
determinised game; values are player 0's returns, negated for player 1.

For action ``a`` at information set ``I`` of player ``p``::

    Q(I, a) = sum_{h in I} chance_reach(h) * v_p(h a) / sum_{h in I} chance_reach(h)

where ``v_p`` is the expectimax value for ``p`` with every card face up. The
policy plays ``argmax_a Q(I, a)``, splitting ties uniformly.

Two known flaws make the result exploitable (Frank & Basin, "Search in Games with
Incomplete Information: A Case Study Using Bridge Card Play", Artificial
Intelligence 1998, call them strategy fusion and non-locality; Long, Sturtevant,
Buro & Furtak, "Understanding the Success of Perfect Information Monte Carlo
Sampling in Game Tree Search", AAAI 2010, study when PIMC does well anyway),
and ``exploitability`` of the policy measures by how much:

* **Strategy fusion.** In each determinised game the player may choose
  differently in every deal at its own later decisions, as if it could see the
  opponent's card; the real player must choose one action per information set.
* **No inference (non-locality).** Deals are weighted by chance alone: the opponent's betting
  (the opponent's reach probability) is ignored, so a bet says nothing about
  the bettor's card. And the opponent is modelled as seeing our card too.

The result is a pure (deterministic) strategy wherever there is no tie, which
never bluffs deliberately and cannot balance its bets; a best response reads
its cards from its actions.

This is a solver-style policy builder (a function from a game to a
``TabularPolicy``), so it lives with the solvers (layer 3) next to the exact
exploitability it is measured with; an agent that plays PIMC online would
belong to ``agents/`` (layer 6) and can wrap this.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import numpy as np

from pokerai.games.protocol import Game, State
from pokerai.solvers.best_response import tree_of
from pokerai.solvers.minimax import MAX, MIN, expectimax
from pokerai.solvers.policy import TabularPolicy


@dataclass(frozen=True, slots=True)
class Determinised:
    """A protocol ``State`` with every card face up, seen as a ``PerfectInfoState``.

    Player 0 is MAX and player 1 is MIN; ``utility()`` is player 0's return;
    chance nodes (cards still to be dealt) stay chance nodes.
    """

    state: State

    def is_terminal(self) -> bool:
        return self.state.is_terminal()

    def is_chance(self) -> bool:
        return self.state.is_chance()

    def to_move(self) -> int:
        return MAX if self.state.current_player() == 0 else MIN

    def actions(self) -> Sequence[int]:
        return self.state.legal_actions()

    def result(self, action: int) -> Determinised:
        return Determinised(self.state.child(action))

    def utility(self) -> float:
        return float(self.state.returns()[0])

    def chance_outcomes(self) -> Sequence[tuple[int, float]]:
        return self.state.chance_outcomes()


@dataclass(frozen=True)
class PIMCResult:
    """The PIMC policy of a game and the numbers behind it.

    ``action_values`` is float64 ``[num_infosets, num_actions]`` in the
    compiled tree's information-set order: ``Q(I, a)`` for the player acting at
    ``I`` (its own return, averaged over the determinisations), NaN on illegal
    actions. ``nodes`` counts the states expectimax evaluated (each distinct
    state once: the determinised games share subtrees through one table).
    """

    policy: TabularPolicy
    action_values: np.ndarray
    nodes: int


def pimc(game: Game, *, tie_tolerance: float = 1e-9) -> PIMCResult:
    """The PIMC policy of ``game`` (exact enumeration of determinisations; see the module docs).

    Actions whose values are within ``tie_tolerance`` of the best share the
    probability equally. The game's states must be hashable (the expectimax
    transposition table is keyed by them); the game must be small enough to
    compile (``tree_of``).
    """
    if tie_tolerance < 0:
        raise ValueError(f"tie_tolerance must be non-negative, got {tie_tolerance}")
    tree = tree_of(game)
    value_sums = np.zeros((tree.num_infosets, tree.num_actions))
    weight_sums = np.zeros(tree.num_infosets)
    table: dict[Hashable, float] = {}
    nodes = 0

    def player0_value(state: State) -> float:
        nonlocal nodes
        result = expectimax(Determinised(state), table=table)
        nodes += result.nodes
        return result.value

    # Depth-first over the real game, carrying the chance probability of the history.
    stack: list[tuple[State, float]] = [(game.initial_state(), 1.0)]
    while stack:
        state, chance_reach = stack.pop()
        if state.is_terminal():
            continue
        if state.is_chance():
            stack.extend((state.child(o), chance_reach * p) for o, p in state.chance_outcomes() if p > 0)
            continue
        player = state.current_player()
        infoset = tree.infoset_index(state.information_state_key(player))
        sign = 1.0 if player == 0 else -1.0
        weight_sums[infoset] += chance_reach
        for action in state.legal_actions():
            child = state.child(action)
            value_sums[infoset, action] += chance_reach * sign * player0_value(child)
            stack.append((child, chance_reach))

    assert np.all(weight_sums > 0), "every information set is reached with positive chance probability"
    means = value_sums / weight_sums[:, None]
    best = np.max(np.where(tree.legal_mask, means, -np.inf), axis=1, keepdims=True)
    chosen = tree.legal_mask & (means >= best - tie_tolerance)
    action_values = np.where(tree.legal_mask, means, np.nan)
    policy = TabularPolicy.from_weights(tree, chosen.astype(np.float64))
    return PIMCResult(policy=policy, action_values=action_values, nodes=nodes)
