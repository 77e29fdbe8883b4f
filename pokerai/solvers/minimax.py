"""Perfect-information search: minimax, alpha-beta and expectimax.

The searches follow Russell & Norvig, *Artificial Intelligence: A Modern
Approach* (4th ed., ch. 5), and Knuth & Moore, "An Analysis of Alpha-Beta Pruning" (Artificial
Intelligence, 1975) for alpha-beta. They see
a game through ``PerfectInfoState``, a protocol smaller than the poker
``State``: both players see everything, MAX maximises ``utility()`` and MIN
minimises it, and a state may be a chance node whose value is the
probability-weighted average of its children (expectimax).

* ``minimax`` and ``alphabeta`` refuse chance nodes: alpha-beta cannot bound a
  chance node's average from some of its children, and minimax has no rule for
  them. ``expectimax`` handles MAX, MIN and chance nodes.
* ``depth`` limits the search to that many edges (a chance deal counts as one);
  a non-terminal state at the limit is scored by ``evaluate(state)`` from
  MAX's point of view. A depth limit without an evaluation function is an
  error.
* ``nodes`` in a ``SearchResult`` counts the states the search visited, root
  included: terminal, chance and decision states, and states scored by
  ``evaluate`` at the depth limit. With a transposition ``table``, states whose
  value the table already held are not counted.
* Ties between moves go to the first best move in the order searched.

The module also holds three small example games that the tests and the
node-count benchmark use: ``ExplicitTreeState`` (a game tree
written out as nested lists, with optional ``ChanceNode``), ``TicTacToeState``
and ``DiceGameState`` (a one-die gamble with chance nodes).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

MAX, MIN = 0, 1
"""``PerfectInfoState.to_move()`` values: MAX maximises ``utility()``, MIN minimises it."""


@runtime_checkable
class PerfectInfoState(Protocol):
    """A state of a two-player zero-sum game of perfect information, possibly with chance.

    States are immutable; ``result`` returns a new state. A transposition
    table (``table=`` of ``minimax`` / ``expectimax``) needs hashable states
    whose equality means "the same position".
    """

    def is_terminal(self) -> bool:
        """True when the game is over and ``utility()`` is defined."""
        ...

    def is_chance(self) -> bool:
        """True at a chance node (a die is rolled, a card is dealt)."""
        ...

    def to_move(self) -> int:
        """``MAX`` or ``MIN`` at a decision; undefined at terminal and chance nodes."""
        ...

    def actions(self) -> Sequence[Any]:
        """The legal moves at a decision, in a fixed order. Empty elsewhere."""
        ...

    def result(self, action: Any) -> PerfectInfoState:
        """The state after ``action`` (a move, or an outcome at a chance node)."""
        ...

    def utility(self) -> float:
        """MAX's payoff at a terminal state (MIN's is the negative: the game is zero-sum)."""
        ...

    def chance_outcomes(self) -> Sequence[tuple[Any, float]]:
        """``(outcome, probability)`` pairs at a chance node; probabilities sum to 1."""
        ...


Evaluation = Callable[[PerfectInfoState], float]
"""Scores a non-terminal state from MAX's point of view (used at the depth limit)."""

MoveOrder = Callable[[PerfectInfoState, Any], float]
"""Scores playing a move at a state for the player to move; alpha-beta searches high scores first."""


@dataclass(frozen=True)
class SearchResult:
    """What a search found at its root.

    ``value`` is the root's value from MAX's point of view, ``move`` the best
    move at a decision root (None at a terminal or chance root, or when the
    root itself was scored by ``evaluate`` at depth 0), and ``nodes`` the
    number of states visited.
    """

    value: float
    move: Any
    nodes: int


def evaluation_order(evaluate: Evaluation) -> MoveOrder:
    """Shallow-evaluation move ordering: score a move by ``evaluate`` of the state it leads to.

    MAX tries the moves whose successors evaluate highest first, MIN the lowest.
    """

    def order(state: PerfectInfoState, action: Any) -> float:
        value = evaluate(state.result(action))
        return value if state.to_move() == MAX else -value

    return order


class _Search:
    """One search: its options and its node counter."""

    def __init__(
        self,
        algorithm: str,
        depth: int | None,
        evaluate: Evaluation | None,
        table: dict[Hashable, float] | None = None,
        order: MoveOrder | None = None,
    ) -> None:
        if depth is not None:
            if depth < 0:
                raise ValueError(f"depth must be None or a non-negative int, got {depth}")
            if evaluate is None:
                raise ValueError(
                    f"a depth limit ({depth}) needs an evaluation function to score the states "
                    "where the search stops; pass evaluate=..."
                )
        self.algorithm = algorithm
        self.chance_allowed = algorithm == "expectimax"
        self.evaluate = evaluate
        self.table = table
        self.order = order
        self.nodes = 0

    def check_not_chance(self, state: PerfectInfoState) -> None:
        if state.is_chance() and not self.chance_allowed:
            if self.algorithm == "alphabeta":
                reason = (
                    "a chance node's value is the average of all its children, so no bound "
                    "from some of them can prune the rest"
                )
            else:
                reason = "minimax has no rule for chance nodes"
            raise ValueError(
                f"{self.algorithm} cannot search the chance node {state!r}: {reason}; use expectimax"
            )

    def moves(self, state: PerfectInfoState) -> list[Any]:
        actions = list(state.actions())
        if not actions:
            raise ValueError(f"the non-terminal state {state!r} has no legal moves")
        if self.order is not None:
            order = self.order
            # sorted() is stable: equal scores keep the game's own order.
            actions.sort(key=lambda action: -order(state, action))
        return actions

    def player(self, state: PerfectInfoState) -> int:
        player = state.to_move()
        if player not in (MAX, MIN):
            raise ValueError(f"to_move() must be MAX (0) or MIN (1), got {player!r} at {state!r}")
        return player

    # Minimax and expectimax: one recursion, chance nodes allowed or not.

    def value(self, state: PerfectInfoState, depth: int | None) -> float:
        key: Hashable = None
        if self.table is not None:
            key = (state, depth)
            cached = self.table.get(key)
            if cached is not None:
                return cached
        self.nodes += 1
        if state.is_terminal():
            value = float(state.utility())
        else:
            self.check_not_chance(state)
            if depth == 0:
                assert self.evaluate is not None
                value = float(self.evaluate(state))
            else:
                next_depth = None if depth is None else depth - 1
                if state.is_chance():
                    value = math.fsum(
                        probability * self.value(state.result(outcome), next_depth)
                        for outcome, probability in state.chance_outcomes()
                    )
                else:
                    values = [self.value(state.result(a), next_depth) for a in self.moves(state)]
                    value = max(values) if self.player(state) == MAX else min(values)
        if self.table is not None:
            self.table[key] = value
        return value

    def root(self, state: PerfectInfoState, depth: int | None) -> SearchResult:
        """Search the root move by move so that the best move is known."""
        if state.is_terminal() or state.is_chance() or depth == 0:
            return SearchResult(self.value(state, depth), None, self.nodes)
        # The move is not in the table, so the root is always searched; it counts as
        # a visit only when the table did not already hold its value.
        key = (state, depth)
        if self.table is None or key not in self.table:
            self.nodes += 1
        maximising = self.player(state) == MAX
        next_depth = None if depth is None else depth - 1
        best_value, best_move = -math.inf if maximising else math.inf, None
        for action in self.moves(state):
            value = self.value(state.result(action), next_depth)
            if (value > best_value) if maximising else (value < best_value):
                best_value, best_move = value, action
        if self.table is not None:
            self.table[key] = best_value
        return SearchResult(best_value, best_move, self.nodes)

    # Alpha-beta (fail-soft, as in the seed's pseudo-code).

    def alphabeta(self, state: PerfectInfoState, depth: int | None, alpha: float, beta: float) -> float:
        self.nodes += 1
        if state.is_terminal():
            return float(state.utility())
        self.check_not_chance(state)
        if depth == 0:
            assert self.evaluate is not None
            return float(self.evaluate(state))
        next_depth = None if depth is None else depth - 1
        if self.player(state) == MAX:
            best = -math.inf
            for action in self.moves(state):
                best = max(best, self.alphabeta(state.result(action), next_depth, alpha, beta))
                if best >= beta:
                    return best  # beta cut-off: MIN above will never let play reach here
                alpha = max(alpha, best)
        else:
            best = math.inf
            for action in self.moves(state):
                best = min(best, self.alphabeta(state.result(action), next_depth, alpha, beta))
                if best <= alpha:
                    return best  # alpha cut-off: MAX above has something better already
                beta = min(beta, best)
        return best

    def alphabeta_root(self, state: PerfectInfoState, depth: int | None) -> SearchResult:
        if state.is_terminal() or depth == 0:
            return SearchResult(self.alphabeta(state, depth, -math.inf, math.inf), None, self.nodes)
        self.check_not_chance(state)
        self.nodes += 1
        maximising = self.player(state) == MAX
        next_depth = None if depth is None else depth - 1
        alpha, beta = -math.inf, math.inf
        best_value, best_move = -math.inf if maximising else math.inf, None
        for action in self.moves(state):
            value = self.alphabeta(state.result(action), next_depth, alpha, beta)
            # A child that fails low (high for MIN) returns only a bound, never strictly
            # better than the best so far, so the first exact best move is kept.
            if maximising and value > best_value:
                best_value, best_move = value, action
                alpha = max(alpha, value)
            elif not maximising and value < best_value:
                best_value, best_move = value, action
                beta = min(beta, value)
        return SearchResult(best_value, best_move, self.nodes)


def minimax(
    state: PerfectInfoState,
    depth: int | None = None,
    evaluate: Evaluation | None = None,
    *,
    table: dict[Hashable, float] | None = None,
) -> SearchResult:
    """Minimax value and best move of ``state`` (no chance nodes: ``ValueError`` if one is reached).

    ``table`` is an optional transposition table (pass ``{}``; reuse it only
    for searches of the same game with the same ``evaluate``): values of
    ``(state, remaining depth)`` are stored and reused, so each distinct
    position is searched once.
    """
    return _Search("minimax", depth, evaluate, table).root(state, depth)


def expectimax(
    state: PerfectInfoState,
    depth: int | None = None,
    evaluate: Evaluation | None = None,
    *,
    table: dict[Hashable, float] | None = None,
) -> SearchResult:
    """Expectiminimax value and best move of ``state``: MAX, MIN and chance nodes.

    A chance node's value is the probability-weighted sum of its outcomes'
    values, so, unlike minimax, the answer depends on the scale of the
    utilities and not only on their order. ``table`` as in ``minimax``.
    """
    return _Search("expectimax", depth, evaluate, table).root(state, depth)


def alphabeta(
    state: PerfectInfoState,
    depth: int | None = None,
    evaluate: Evaluation | None = None,
    *,
    order: MoveOrder | None = None,
) -> SearchResult:
    """Minimax value and best move of ``state`` by alpha-beta pruning (Knuth & Moore 1975).

    The value equals ``minimax``'s; the search skips subtrees that cannot
    change it, and visits fewer nodes the better ``order`` sorts moves (best
    first: about ``b^(m/2)`` instead of ``b^m`` nodes with perfect ordering).
    ``order(state, action)`` scores a move for the player to move; higher
    scores are searched first (see ``evaluation_order``). With an ``order``
    the best move returned may differ from ``minimax``'s among equally good
    moves. Reaching a chance node is a ``ValueError``: use ``expectimax``.

    Tic-tac-toe is a draw; alpha-beta visits 18,297 nodes of the 549,946 of the whole tree:

    >>> alphabeta(TicTacToeState())
    SearchResult(value=0.0, move=0, nodes=18297)
    """
    return _Search("alphabeta", depth, evaluate, order=order).alphabeta_root(state, depth)


# ---------------------------------------------------------------------------------------------
# Example games.


@dataclass(frozen=True)
class ChanceNode:
    """A chance node of an ``ExplicitTreeState`` tree: ``(probability, subtree)`` pairs."""

    outcomes: tuple[tuple[float, Any], ...]

    def __post_init__(self) -> None:
        total = math.fsum(p for p, _ in self.outcomes)
        if not self.outcomes or abs(total - 1.0) > 1e-9:
            raise ValueError(f"chance probabilities must sum to 1, got {total} in {self.outcomes!r}")


@dataclass(frozen=True)
class ExplicitTreeState:
    """A position in a game tree written out by hand.

    A subtree is a number (a leaf: MAX's utility), a ``Mapping`` from move
    names to subtrees or a sequence of subtrees (a decision; moves are the
    names or the indices), or a ``ChanceNode``. MAX moves at the root and the
    players alternate at each decision; a chance node passes the move on
    unchanged. States compare by their path from the root, so a transposition
    table must not be shared between different trees.

    The seed's example (AIMA fig. 5.2)::

        ExplicitTreeState({"a1": [3, 12, 8], "a2": [2, 4, 6], "a3": [14, 5, 2]})
    """

    subtree: Any = field(compare=False)
    player: int = MAX
    path: tuple[Any, ...] = ()

    def is_terminal(self) -> bool:
        return isinstance(self.subtree, (int, float))

    def is_chance(self) -> bool:
        return isinstance(self.subtree, ChanceNode)

    def to_move(self) -> int:
        return self.player

    def actions(self) -> Sequence[Any]:
        if isinstance(self.subtree, Mapping):
            return tuple(self.subtree)
        if self.is_terminal() or self.is_chance():
            return ()
        return tuple(range(len(self.subtree)))

    def result(self, action: Any) -> ExplicitTreeState:
        if self.is_chance():
            if action not in range(len(self.subtree.outcomes)):
                raise ValueError(f"chance outcome {action!r} is not possible here at path {self.path}")
            _, child = self.subtree.outcomes[action]
            return ExplicitTreeState(child, self.player, (*self.path, action))
        if action not in self.actions():
            raise ValueError(f"move {action!r} is not legal here; legal moves are {list(self.actions())}")
        return ExplicitTreeState(self.subtree[action], 1 - self.player, (*self.path, action))

    def utility(self) -> float:
        if not self.is_terminal():
            raise ValueError(f"utility is only defined at a leaf, not at path {self.path}")
        return float(self.subtree)

    def chance_outcomes(self) -> Sequence[tuple[Any, float]]:
        if not self.is_chance():
            return ()
        return tuple((i, p) for i, (p, _) in enumerate(self.subtree.outcomes))


_LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))


@dataclass(frozen=True, slots=True)
class TicTacToeState:
    """Tic-tac-toe: X (MAX) moves first; utility +1 if X wins, -1 if O wins, 0 for a draw.

    ``board`` is nine characters ``"X"``, ``"O"`` or ``"."``, row by row;
    a move is the index 0..8 of an empty square.
    """

    board: str = "........."

    def winner(self) -> str | None:
        board = self.board
        for a, b, c in _LINES:
            if board[a] != "." and board[a] == board[b] == board[c]:
                return board[a]
        return None

    def is_terminal(self) -> bool:
        return self.winner() is not None or "." not in self.board

    def is_chance(self) -> bool:
        return False

    def to_move(self) -> int:
        return MAX if self.board.count("X") == self.board.count("O") else MIN

    def actions(self) -> Sequence[int]:
        if self.is_terminal():
            return ()
        return tuple(i for i, square in enumerate(self.board) if square == ".")

    def result(self, action: int) -> TicTacToeState:
        if not (isinstance(action, int) and 0 <= action < 9 and self.board[action] == "."):
            raise ValueError(f"square {action!r} is not an empty square of {self.board!r}")
        mark = "X" if self.to_move() == MAX else "O"
        return TicTacToeState(self.board[:action] + mark + self.board[action + 1 :])

    def utility(self) -> float:
        winner = self.winner()
        return 1.0 if winner == "X" else -1.0 if winner == "O" else 0.0

    def chance_outcomes(self) -> Sequence[tuple[int, float]]:
        return ()


def tictactoe_order(state: PerfectInfoState, action: Any) -> float:
    """Move ordering for tic-tac-toe: win now, then block, then centre, corners, edges."""
    assert isinstance(state, TicTacToeState)
    mine, theirs = ("X", "O") if state.to_move() == MAX else ("O", "X")
    score = {4: 3.0, 0: 2.0, 2: 2.0, 6: 2.0, 8: 2.0}.get(action, 1.0)
    for line in _LINES:
        if action in line:
            others = [state.board[i] for i in line if i != action]
            if others == [mine, mine]:
                score += 100.0
            elif others == [theirs, theirs]:
                score += 10.0
    return score


@dataclass(frozen=True, slots=True)
class DiceGameState:
    """A one-die gamble with chance nodes, for expectimax.

    MAX either stands, for a payoff of ``stand_value``, or rolls a fair die
    with ``sides`` faces. MIN sees the roll ``d`` and either accepts it (MAX
    gets ``d``) or makes MAX reroll once (MAX gets the new roll, whatever it
    is). MAX's utility is what MAX gets.

    ``stage``: ``"start"`` (MAX decides), ``"roll"`` / ``"reroll"`` (chance),
    ``"respond"`` (MIN decides, ``roll`` holds d), ``"end"`` (``roll`` is the payoff).
    """

    stand_value: float = 2.5
    sides: int = 6
    stage: str = "start"
    roll: float = 0.0

    def is_terminal(self) -> bool:
        return self.stage == "end"

    def is_chance(self) -> bool:
        return self.stage in ("roll", "reroll")

    def to_move(self) -> int:
        return MAX if self.stage == "start" else MIN

    def actions(self) -> Sequence[str]:
        return {"start": ("stand", "roll"), "respond": ("accept", "reroll")}.get(self.stage, ())

    def result(self, action: Any) -> DiceGameState:
        if self.is_chance():
            if action not in range(1, self.sides + 1):
                raise ValueError(f"a {self.sides}-sided die cannot show {action!r}")
            stage = "respond" if self.stage == "roll" else "end"
            return DiceGameState(self.stand_value, self.sides, stage, float(action))
        if action not in self.actions():
            raise ValueError(f"move {action!r} is not legal here; legal moves are {list(self.actions())}")
        if action == "stand":
            return DiceGameState(self.stand_value, self.sides, "end", self.stand_value)
        if action == "roll":
            return DiceGameState(self.stand_value, self.sides, "roll")
        if action == "accept":
            return DiceGameState(self.stand_value, self.sides, "end", self.roll)
        return DiceGameState(self.stand_value, self.sides, "reroll")

    def utility(self) -> float:
        if not self.is_terminal():
            raise ValueError(f"utility is only defined at the end of the game, not at stage {self.stage!r}")
        return self.roll

    def chance_outcomes(self) -> Sequence[tuple[int, float]]:
        if not self.is_chance():
            return ()
        return tuple((face, 1.0 / self.sides) for face in range(1, self.sides + 1))
