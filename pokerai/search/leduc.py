"""Real-time search on Leduc hold'em, where the policy it plays can be checked exactly.

:class:`LeducSearch` re-solves every decision of a Leduc blueprint (a
:class:`~pokerai.solvers.policy.TabularPolicy`) the way the hold'em search
does, but small enough that the policy of the search agent at *every*
information set can be assembled (:meth:`LeducSearch.policy`) and its exact
exploitability computed.

At a public state (the board, if dealt, and the betting so far) with player
``p`` to act:

1. **Beliefs.** Each player's range over the six cards is the product of the
   blueprint's probabilities of that player's observed actions holding each
   card (Bayes; the prior is uniform), 0 for the board card. Which pairs of
   cards can be dealt together is in the payoff matrices.
2. **Subgame.** The public tree from this state to the end of the current
   round. In the second round that is the end of the game (folds and
   showdowns); in the first round the round's end is a leaf.
3. **Leaf values** (first round only), by ``leaves``:

   * ``"depth_limited"`` (Brown, Sandholm & Amos, "Depth-Limited Solving for
     Imperfect-Information Games", NeurIPS 2018): at each leaf the opponent of
     ``p`` picks, for each of its cards, one of ``k`` continuation strategies
     for the rest of the game -- the blueprint and the blueprint biased towards
     folding, calling and raising (that action's probability multiplied by
     ``bias``, then renormalised) -- while ``p`` plays the blueprint. The leaf
     is a decision of the opponent with one terminal per continuation, whose
     payoff is the exact expected value of the rest of the game over the board
     card. The opponent may pick the continuation that exploits ``p``'s new
     strategy, so the solution must be robust to how play goes on.
   * ``"blueprint"``: each leaf is worth the rest of the game with both
     players on the blueprint (one continuation). This is the unsafe choice:
     it assumes the opponent keeps playing the blueprint whatever ``p`` does.

4. **Solve and blend.** CFR+ over the subgame (:func:`~pokerai.search.subgame.solve`)
   for ``iterations`` iterations, then
   ``strategy = (1 − b)·blueprint + b·local`` with ``b = min(done / full_iterations, 1)``.
   Zero iterations play the blueprint exactly.

Two settings follow the hold'em street search (:mod:`pokerai.search.street`):

* ``root="round"`` roots the subgame at the **start of the current round**
  instead of at the decision (Brown & Sandholm, "Superhuman AI for multiplayer
  poker", Science 2019). The actions already taken in the round are on the
  tree; ``p``'s earlier decisions in the round are frozen at the strategies it
  played there (``solve(..., fixed=...)``), so the opponent's actions in the
  round come out of the solve, not out of Bayes' rule on the blueprint. The
  ranges are those at the round's start (step 1 over the earlier round), and
  ``p`` plays the solution at the node of its current decision. With ``safe``
  the gadget goes around the round's tree, whose blueprint layout has the
  frozen strategies at the frozen nodes.
* ``floor``: each of the opponent's actions multiplies its range by
  ``floor + (1 − floor)·p`` rather than by the blueprint's probability ``p``,
  so an opponent who is not the blueprint keeps every card it could hold.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt

from pokerai.games.leduc import CALL, CARD_NAMES, FOLD, RAISE, LeducPoker, LeducState
from pokerai.search.subgame import (
    Decision,
    Solution,
    Subgame,
    Terminal,
    blend,
    is_count,
    solve,
    with_resolve_gadget,
)
from pokerai.solvers.policy import TabularPolicy, normalize_rows_or

NUM_CARDS = len(CARD_NAMES)
LEAF_MODES = ("depth_limited", "blueprint")
OWN_RANGES = ("search", "blueprint")
ROOTS = ("decision", "round")
CONTINUATIONS = ("blueprint", "fold", "call", "raise")
"""The continuation strategies an opponent picks from at a depth-limited leaf."""
_BIASED_ACTION = {"fold": FOLD, "call": CALL, "raise": RAISE}
VALID, SHOWDOWN = 0, 1
"""Indices of the two shared payoff matrices of a subgame."""


@dataclass(frozen=True)
class LeducSearchConfig:
    """Settings of :class:`LeducSearch`.

    Attributes:
        iterations: CFR+ iterations per decision.
        full_iterations: the iterations at which the search result fully
            replaces the blueprint (the blend's denominator); ``None`` means
            ``iterations``.
        leaves: ``"depth_limited"`` or ``"blueprint"`` (module docstring).
        bias: factor on the favoured action's probability in the biased
            continuation strategies.
        own_range: ``"search"`` (the searcher's range from the strategies it
            played at its earlier decisions) or ``"blueprint"`` (Bayes on the
            blueprint, as for the opponent).
        safe: wrap the subgame in the re-solving gadget (half the opponent's root reach uniform).
        root: ``"decision"`` (the subgame starts at the current decision) or
            ``"round"`` (at the start of the current round, the searcher's
            earlier decisions in it frozen; module docstring).
        floor: the least factor an opponent's action puts on its range, in [0, 1).
    """

    iterations: int = 100
    full_iterations: int | None = 200
    leaves: str = "depth_limited"
    bias: float = 5.0
    own_range: str = "search"
    safe: bool = True
    root: Literal["decision", "round"] = "decision"
    floor: float = 0.0

    def __post_init__(self) -> None:
        if not is_count(self.iterations):
            raise ValueError(f"iterations must be a non-negative int, got {self.iterations!r}")
        if self.full_iterations is not None and not is_count(self.full_iterations, 1):
            raise ValueError(f"full_iterations must be a positive int or None, got {self.full_iterations!r}")
        if self.leaves not in LEAF_MODES:
            raise ValueError(f"leaves must be one of {', '.join(LEAF_MODES)}, got {self.leaves!r}")
        if self.own_range not in OWN_RANGES:
            raise ValueError(f"own_range must be one of {', '.join(OWN_RANGES)}, got {self.own_range!r}")
        if self.root not in ROOTS:
            raise ValueError(f"root must be one of {', '.join(ROOTS)}, got {self.root!r}")
        floor = self.floor
        if isinstance(floor, bool) or not isinstance(floor, (int, float)) or not 0.0 <= floor < 1.0:
            raise ValueError(f"floor must be a number in [0, 1), got {floor!r}")
        if not self.bias >= 1.0:
            raise ValueError(f"bias must be at least 1, got {self.bias!r}")

    @property
    def blend_iterations(self) -> int:
        return self.full_iterations if self.full_iterations is not None else max(self.iterations, 1)


@dataclass(frozen=True)
class PublicState:
    """What both players see: the board card (or ``None``) and the betting letters of each round."""

    board: int | None
    rounds: tuple[str, ...]

    @classmethod
    def of(cls, state: LeducState) -> PublicState:
        return cls(state.board, state.rounds)

    def state(self, first: int, second: int) -> LeducState:
        """The full history with private cards ``first`` (player 0) and ``second`` (player 1)."""
        cards = (first, second) if self.board is None else (first, second, self.board)
        return LeducState(cards, self.rounds)

    def key(self, card: int) -> str:
        """The information-state key of a player holding ``card`` here."""
        state = self.state(card, card)
        return state.information_state_key(0)

    @property
    def round_start(self) -> PublicState:
        """The public state at the first action of the current round."""
        return PublicState(self.board, (*self.rounds[:-1], ""))

    def child(self, action: int) -> PublicState:
        """The public state after the player to act takes ``action``."""
        return PublicState(self.board, (*self.rounds[:-1], self.rounds[-1] + "fcr"[action]))

    @property
    def representative(self) -> LeducState:
        """A history with this betting (private cards chosen not to clash with the board)."""
        free = [card for card in range(NUM_CARDS) if card != self.board]
        return self.state(free[0], free[1])


def _strength(card: int, board: int) -> int:
    rank = card // 2
    return 10 + rank if rank == board // 2 else rank


@functools.cache
def _matrices(board: int | None) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """(valid pairs, showdown signs) ``[6, 6]`` for ``board``; the showdown matrix is 0 before the board."""
    cards = np.arange(NUM_CARDS)
    valid = (cards[:, None] != cards[None, :]).astype(np.float64)
    showdown = np.zeros_like(valid)
    if board is not None:
        valid[board, :] = 0.0
        valid[:, board] = 0.0
        strength = np.array([_strength(card, board) for card in range(NUM_CARDS)])
        showdown = np.sign(strength[:, None] - strength[None, :]) * valid
    valid.flags.writeable = False
    showdown.flags.writeable = False
    return valid, showdown


@dataclass(frozen=True, eq=False)
class LeducSubgame:
    """A decision's subgame, ready for :func:`~pokerai.search.subgame.solve`.

    Attributes:
        game: the public tree from ``start`` to the end of the round (inside the
            re-solving gadget with ``safe``); its hands are the six cards.
        path: the node in ``game`` of each decision from ``start`` to the
            current one, which is last (one node unless ``root="round"``).
        fixed: the searcher's frozen decisions, in ``game``'s node indices:
            ``(1.0, strategy)`` with float64 ``[6, num_children]`` the strategy it
            played there (uniform for the board card, which no one holds).
        start: the public state at the tree's root (below the gadget).
        searcher: the player to act at the current decision.
    """

    game: Subgame
    path: tuple[int, ...]
    fixed: dict[int, tuple[float, npt.NDArray[np.float64]]]
    start: PublicState
    searcher: int

    @property
    def node(self) -> int:
        """The current decision's node in ``game``."""
        return self.path[-1]


class LeducSearch:
    """Depth-limited re-solving of a Leduc ``blueprint`` at each decision (module docstring)."""

    def __init__(self, blueprint: TabularPolicy, config: LeducSearchConfig | None = None) -> None:
        if not isinstance(blueprint, TabularPolicy) or not isinstance(blueprint.tree.game, LeducPoker):
            raise ValueError(f"LeducSearch needs a TabularPolicy of Leduc hold'em, got {blueprint!r}")
        self.blueprint = blueprint
        self.config = config if config is not None else LeducSearchConfig()
        self.tree = blueprint.tree
        self._leaf_cache: dict[tuple[str, int, str], npt.NDArray[np.float64]] = {}
        self._decision_cache: dict[
            PublicState, tuple[npt.NDArray[np.float64], tuple[LeducSubgame, Solution] | None]
        ] = {}
        self.solutions: list[Solution] = []
        """Every solve run so far (for timing)."""

    # ------------------------------------------------------------------ beliefs

    def _row(self, key: str) -> npt.NDArray[np.float64]:
        return self.blueprint.probabilities[self.tree.infoset_index(key)]

    def beliefs(self, public: PublicState, searcher: int | None = None) -> npt.NDArray[np.float64]:
        """float64 ``[2, 6]``: each player's range over its card at ``public``, normalised to sum to 1.

        ``searcher`` (default: the player to act at ``public``) is the player
        whose own actions count through the strategies the search played there
        when ``own_range`` is ``"search"``; the other player's actions count
        through the blueprint, floored at ``floor``.

        Raises ``ValueError`` when the blueprint gives the observed betting
        probability 0 whatever the player holds.
        """
        reach = np.ones((2, NUM_CARDS))
        if public.board is not None:
            reach[:, public.board] = 0.0
        if searcher is None:
            searcher = public.representative.current_player()
        floor = self.config.floor
        for round_index, letters in enumerate(public.rounds):
            prefix_rounds = (*public.rounds[:round_index], "")
            board = public.board if round_index == 1 else None
            for position, letter in enumerate(letters):
                player = position % 2
                prefix = PublicState(board, (*prefix_rounds[:-1], letters[:position]))
                action = "fcr".index(letter)
                if player == searcher and self.config.own_range == "search":
                    reach[player] *= self.decide(prefix)[:, action]
                    continue
                floored = floor if player != searcher else 0.0
                for card in range(NUM_CARDS):
                    if reach[player, card] > 0.0:
                        probability = self._row(prefix.key(card))[action]
                        reach[player, card] *= floored + (1.0 - floored) * probability
        totals = reach.sum(axis=1, keepdims=True)
        if np.any(totals <= 0.0):
            player = int(np.flatnonzero(totals[:, 0] <= 0.0)[0])
            raise ValueError(f"the blueprint never plays player {player}'s betting in {public} with any card")
        result: npt.NDArray[np.float64] = reach / totals
        return result

    # ------------------------------------------------------------------ leaves

    def _continuation(self, key: str, continuation: str) -> npt.NDArray[np.float64]:
        row = self._row(key)
        if continuation == "blueprint":
            return row
        biased = row.copy()
        biased[_BIASED_ACTION[continuation]] *= self.config.bias
        result: npt.NDArray[np.float64] = biased / biased.sum()
        return result

    def _value(self, state: LeducState, chooser: int, continuation: str) -> float:
        """Player 0's expected return from ``state`` (second round) with ``chooser`` on ``continuation``."""
        if state.is_terminal():
            return state.returns()[0]
        player = state.current_player()
        key = state.information_state_key(player)
        row = self._continuation(key, continuation) if player == chooser else self._row(key)
        return sum(
            float(row[action]) * self._value(state.child(action), chooser, continuation)
            for action in state.legal_actions()
            if row[action] > 0.0
        )

    def leaf_matrix(self, letters: str, chooser: int, continuation: str) -> npt.NDArray[np.float64]:
        """float64 ``[6, 6]``: player 0's return when the first round ends with ``letters``.

        Entry ``[i, j]`` is the mean over the four possible board cards of the
        rest of the game with player 0 holding ``i`` and player 1 ``j``, player
        ``chooser`` playing ``continuation`` and the other the blueprint; 0 when
        ``i == j``.
        """
        cache_key = (letters, chooser, continuation)
        matrix = self._leaf_cache.get(cache_key)
        if matrix is None:
            matrix = np.zeros((NUM_CARDS, NUM_CARDS))
            for first in range(NUM_CARDS):
                for second in range(NUM_CARDS):
                    if first == second:
                        continue
                    boards = [card for card in range(NUM_CARDS) if card not in (first, second)]
                    matrix[first, second] = np.mean(
                        [
                            self._value(
                                LeducState((first, second, board), (letters, "")), chooser, continuation
                            )
                            for board in boards
                        ]
                    )
            matrix.flags.writeable = False
            self._leaf_cache[cache_key] = matrix
        return matrix

    # ------------------------------------------------------------------ subgame

    def subgame(self, public: PublicState) -> LeducSubgame:
        """The subgame to solve at the decision ``public`` (module docstring, steps 2 and 3).

        It is rooted at ``public`` or, with ``root="round"``, at the start of its
        round, with the searcher's earlier decisions in the round frozen at the
        strategies :meth:`decide` played there. The root reach is the beliefs at
        the root. With ``safe`` the tree starts with the opponent's opt-out
        choice of the re-solving gadget (:func:`~pokerai.search.subgame.opt_out_matrix`),
        whose alternative is the opponent's value of the subgame with both
        players on the blueprint (the searcher on its frozen strategies where
        they are frozen).
        """
        valid, showdown = _matrices(public.board)
        matrices: list[npt.NDArray[np.float64]] = [valid, showdown]
        searcher = public.representative.current_player()
        if searcher not in (0, 1):
            raise ValueError(f"{public} is not a decision")
        opponent = 1 - searcher
        start = public if self.config.root == "decision" else public.round_start

        def leaf(letters: str) -> Decision | Terminal:
            continuations = CONTINUATIONS if self.config.leaves == "depth_limited" else ("blueprint",)
            terminals: list[tuple[str, Decision | Terminal]] = []
            for continuation in continuations:
                matrices.append(self.leaf_matrix(letters, opponent, continuation))
                terminals.append((continuation, Terminal(len(matrices) - 1)))
            if len(terminals) == 1:
                return terminals[0][1]
            return Decision(opponent, terminals)

        def build(state: LeducState) -> Decision | Terminal:
            if state.is_terminal():
                chips = state.contributions()
                letters = state.rounds[-1]
                if letters.endswith("f"):
                    folder = (len(letters) - 1) % 2
                    return Terminal(VALID, -chips[0] if folder == 0 else chips[1])
                return Terminal(SHOWDOWN, chips[0])
            if state.is_chance():
                return leaf(state.rounds[0])
            return Decision(
                state.current_player(),
                [(action, build(state.child(action))) for action in state.legal_actions()],
            )

        root = build(start.representative)
        inner = Subgame.from_nested(root, matrices, self.beliefs(start, searcher))
        # Walk the round's actions from the root to the current decision, freezing the searcher's.
        path = [0]
        fixed: dict[int, tuple[float, npt.NDArray[np.float64]]] = {}
        walked = start
        for letter in public.rounds[-1][len(start.rounds[-1]) :]:
            node = path[-1]
            children = inner.children(node)
            labels = [int(inner.label[child]) for child in children]
            action = "fcr".index(letter)
            if int(inner.player[node]) == searcher:
                rows = self.decide(walked)[:, labels]
                # The board card's row is all zeros; it has no reach, any distribution will do.
                fixed[node] = (1.0, normalize_rows_or(rows, 1 / len(labels)))
            path.append(children[labels.index(action)])
            walked = walked.child(action)
        assert walked == public
        if not self.config.safe:
            return LeducSubgame(inner, tuple(path), fixed, start, searcher)
        layout = self.blueprint_strategy(inner, start)
        for node, (_, rows) in fixed.items():
            layout[inner.child_rows(node)] = rows.T
        possible = np.arange(NUM_CARDS) != public.board
        gadget = with_resolve_gadget(root, inner, layout, searcher, valid=VALID, possible=possible)
        return LeducSubgame(
            gadget.game,
            tuple(gadget.node(node) for node in path),
            {gadget.node(node): value for node, value in fixed.items()},
            start,
            searcher,
        )

    def blueprint_strategy(self, subgame: Subgame, public: PublicState) -> npt.NDArray[np.float64]:
        """The blueprint in :attr:`~pokerai.search.subgame.Solution.average` layout, rooted at ``public``.

        At a depth-limited leaf the opponent takes the ``"blueprint"`` continuation.
        """
        strategy = np.ones((subgame.num_nodes, NUM_CARDS))
        publics: dict[int, PublicState] = {0: public}
        for node in subgame.decisions:
            node_public = publics[int(node)]
            children = subgame.children(int(node))
            if node_public.representative.is_chance():  # a leaf: the opponent's choice of continuation
                for child in children:
                    strategy[child] = 1.0 if subgame.label[child] == "blueprint" else 0.0
                continue
            for child in children:
                action = int(subgame.label[child])
                publics[child] = node_public.child(action)
                for card in range(NUM_CARDS):
                    if card != public.board:
                        strategy[child, card] = self._row(node_public.key(card))[action]
        return strategy

    # ------------------------------------------------------------------ decisions

    def decide(self, public: PublicState) -> npt.NDArray[np.float64]:
        """float64 ``[6, 3]``: the search's blended strategy at ``public`` for each card of the player to act.

        Rows of the board card and columns of illegal actions are 0.
        """
        cached = self._decision_cache.get(public)
        if cached is not None:
            return cached[0]
        representative = public.representative
        legal = list(representative.legal_actions())
        cards = [card for card in range(NUM_CARDS) if card != public.board]
        blueprint = np.zeros((NUM_CARDS, 3))
        for card in cards:
            blueprint[card] = self._row(public.key(card))
        searched: tuple[LeducSubgame, Solution] | None = None
        local = blueprint
        if self.config.iterations > 0:
            subgame = self.subgame(public)
            solution = solve(subgame.game, self.config.iterations, fixed=subgame.fixed or None)
            self.solutions.append(solution)
            searched = (subgame, solution)
            node = subgame.node
            node_strategy = solution.strategy(subgame.game, node)  # [6, len(legal)]
            local = np.zeros((NUM_CARDS, 3))
            for column, child in enumerate(subgame.game.children(node)):
                local[:, subgame.game.label[child]] = node_strategy[:, column]
            assert [subgame.game.label[child] for child in subgame.game.children(node)] == legal
        done = 0 if searched is None else searched[1].iterations
        strategy = blend(blueprint, local, done, self.config.blend_iterations)
        if public.board is not None:
            strategy[public.board] = 0.0
        self._decision_cache[public] = (strategy, searched)
        return strategy

    def searched(self, public: PublicState) -> tuple[LeducSubgame, Solution] | None:
        """The subgame and CFR+ solution behind :meth:`decide` at ``public`` (None with 0 iterations)."""
        self.decide(public)
        return self._decision_cache[public][1]

    def action_probabilities(self, state: LeducState) -> dict[int, float]:
        """``{action: probability}`` of the search agent at a decision ``state`` (protocol policy form)."""
        player = state.current_player()
        if player not in (0, 1):
            raise ValueError(f"{state} is not a decision")
        row = self.decide(PublicState.of(state))[state.cards[player]]
        return {int(action): float(row[action]) for action in state.legal_actions()}

    def policy(self) -> TabularPolicy:
        """The search agent's policy at every information set (one search per public decision state)."""
        probabilities = self.blueprint.probabilities.copy()
        for public in public_decision_states():
            strategy = self.decide(public)
            for card in range(NUM_CARDS):
                if card != public.board:
                    probabilities[self.tree.infoset_index(public.key(card))] = strategy[card]
        return TabularPolicy(self.tree, probabilities)


def public_decision_states() -> Iterator[PublicState]:
    """Every public state of Leduc where a player acts (6 in the first round, 180 in the second)."""

    def walk(public: PublicState) -> Iterator[PublicState]:
        state = public.representative
        if state.is_terminal():
            return
        if state.is_chance():
            for board in range(NUM_CARDS):
                yield from walk(PublicState(board, (*public.rounds, "")))
            return
        yield public
        for action in state.legal_actions():
            yield from walk(public.child(action))

    yield from walk(PublicState(None, ("",)))


__all__ = [
    "CONTINUATIONS",
    "LEAF_MODES",
    "ROOTS",
    "LeducSearch",
    "LeducSearchConfig",
    "LeducSubgame",
    "PublicState",
    "public_decision_states",
]
