"""AIVAT: unbiased, low-variance estimates of what an agent wins, hand by hand.

After Burch, Schmid, Moravčík, Morrill and Bowling, "AIVAT: A New Variance
Reduction Technique for Agent Evaluation in Imperfect Information Games"
(AAAI 2018). A hand's result mixes skill with luck: the cards dealt and the
random choices of the players. Wherever the distribution of an event is known
(a chance event, or the action of a player whose policy is known), AIVAT adds a
*control variate*, ``E_a[V(h·a)] − V(h·a*)``: the expected value of the node's
children under the known distribution minus the value of the child that
happened. Each term has mean 0 given everything before it, so the sum of the
result and the terms is an unbiased estimate of the expected result for *any*
value function ``V``; the better ``V`` predicts the result, the more luck the
terms cancel.

Imaginary observations. When the policy of one seat (the *known* seat) is
known, the estimate is averaged over every hand that seat could hold: each
candidate hand ``c`` is weighted by the probability that the known seat plays
the observed actions holding it (times 0 if ``c`` shares a card with the other
seat's hand or the board). Given the other seat's cards, the board and the
betting, that weight is exactly the posterior of ``c``, so the average is the
conditional expectation of the per-hand estimate (Rao-Blackwell): still
unbiased, and free of the known seat's card luck. The other seat's cards are
the real ones: the evaluator deals the hands, so it knows them even when they
are never shown.

Two implementations share these rules:

* :func:`game_aivat` works on any game of the :mod:`pokerai.games.protocol`
  (Kuhn, Leduc) with tabular policies and any value function; the tests
  enumerate every deal and action to show that its expectation equals the
  exact expected value.
* :func:`hand_aivat` estimates one finished hold'em hand of the engine, asking
  known agents for their strategy on all candidate hands in one call
  (:meth:`~pokerai.agents.base.Agent.range_policy`). A seat is known when its
  agent implements ``range_policy``; with no seat known only the chance events
  are corrected, with the real cards.

The hold'em value function is the check-down value of the pot. At a node where
the players have put ``c0`` and ``c1`` chips in, the contested amount is
``m = min(max(c0, c1), smaller starting stack)`` (a bet is assumed called), and
the known seat holding ``c`` is worth ``(2·e − 1)·m`` against the other seat's
hand, where ``e`` is its showdown equity (win + tie/2) over the rest of the
board: exact on the river and the turn (every river card), and estimated on
the flop and preflop from ``AIVATConfig.boards`` boards drawn from a generator
that play never sees. A fold is worth what it wins. Where both seats' policies
are known, an action's value looks one step ahead: the mean of its children's
values over the known reply (``AIVATConfig.lookahead``). Facing a shove that is
mostly folded, "the bet is called" is a poor guess; the reply's policy is not. Where the other
seat's policy is unknown (local best response), a bet it must answer is worth the better answer
for its real hand, fold or call, against the bettor's range after the bet.
Before the deal the value is 0 by symmetry, and ``V`` at a chance node equals
the mean over the next card of ``V`` after it (the equity is a martingale), so
every chance term is exact in expectation; sampled equities are unbiased, so
the estimate stays unbiased.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from pokerai.agents.base import Agent, Observation, RangePolicy
from pokerai.engine.cards import BOARD_SIZES, NUM_CARDS
from pokerai.engine.equity import combinations
from pokerai.engine.evaluator import ranks_from_key_sums, tables
from pokerai.engine.state import Action, ActionKind, HUNLState
from pokerai.games.protocol import Game, State

# ---------------------------------------------------------------------- games of the protocol


class GamePolicy(Protocol):
    """A policy of a protocol game: ``action_probabilities(state)`` for the player to act."""

    def action_probabilities(self, state: State) -> dict[int, float]: ...


def _replay(game: Game, trajectory: Sequence[int]) -> list[State]:
    """The states along ``trajectory`` (chance outcomes and actions from the root), root first."""
    states = [game.initial_state()]
    for action in trajectory:
        states.append(states[-1].child(action))
    return states


def game_aivat(
    game: Game,
    trajectory: Sequence[int],
    player: int,
    policies: Sequence[GamePolicy | None],
    value: Callable[[State], float],
    private_deals: Sequence[int] = (0, 1),
) -> float:
    """The AIVAT estimate of ``player``'s return for the finished ``trajectory`` of ``game``.

    ``trajectory`` lists every chance outcome and action from the initial state to
    a terminal one. ``policies[p]`` is player ``p``'s policy, or None where it is
    unknown. ``value(state)`` is any value of a non-terminal state for ``player``
    (terminal states are worth their returns). ``private_deals[p]`` is the index,
    among the trajectory's chance events, of the one that deals player ``p``'s
    private card (Kuhn and Leduc deal player 0's card first, then player 1's).

    The known seat is ``player`` if its policy is known, else the other player if
    its is, else there is none: then only the real trajectory is scored.
    """
    known = [policy is not None for policy in policies]
    seat = player if known[player] else (1 - player if known[1 - player] else None)
    states = _replay(game, trajectory)
    if not states[-1].is_terminal():
        raise ValueError("the trajectory does not end the game")
    if seat is None:
        return _game_estimate(states, trajectory, player, policies, value)[1]
    chance_steps = [step for step, state in enumerate(states[:-1]) if state.is_chance()]
    deal_step = chance_steps[private_deals[seat]]
    total_weight = total = 0.0
    for outcome, _ in states[deal_step].chance_outcomes():
        imagined = list(trajectory)
        imagined[deal_step] = outcome
        try:
            imagined_states = _replay(game, imagined)
        except ValueError:  # the card is held by the other seat or lies on the board
            continue
        weight, estimate = _game_estimate(imagined_states, imagined, player, policies, value, seat)
        total_weight += weight
        total += weight * estimate
    if total_weight <= 0:
        raise ValueError("the known seat's policy gives the observed actions probability 0 with every card")
    return total / total_weight


def _game_estimate(
    states: Sequence[State],
    trajectory: Sequence[int],
    player: int,
    policies: Sequence[GamePolicy | None],
    value: Callable[[State], float],
    seat: int | None = None,
) -> tuple[float, float]:
    """(weight, estimate) of one trajectory: the probability of everything but the other seat's
    play (chance and the known ``seat``'s actions), and the result plus its control variates."""

    def worth(state: State) -> float:
        return state.returns()[player] if state.is_terminal() else value(state)

    weight, estimate = 1.0, states[-1].returns()[player]
    for state, action, after in zip(states[:-1], trajectory, states[1:], strict=True):
        if state.is_chance():
            distribution = dict(state.chance_outcomes())
        else:
            policy = policies[state.current_player()]
            if policy is None:
                continue
            distribution = policy.action_probabilities(state)
        probability = distribution.get(action, 0.0)
        if state.is_chance() or state.current_player() == seat:
            weight *= probability
        if weight == 0.0:
            return 0.0, 0.0
        expected = sum(p * worth(state.child(a)) for a, p in distribution.items() if p > 0)
        estimate += expected - worth(after)
    return weight, estimate


# ---------------------------------------------------------------------- hold'em


@dataclass(frozen=True)
class AIVATConfig:
    """The hold'em value function's settings.

    ``boards``: sampled board completions for each preflop and flop equity (the
    turn and river are exact). ``growth``: for the preflop, flop and turn, the
    factor by which the contested chips are expected to grow before the showdown;
    the value is ``(2·e − 1)·min(growth·m, smaller stack)`` (1 on the river, where
    the value of a called pot is exact). Any fixed values keep the estimate unbiased;
    good ones remove more variance. ``lookahead``: at a known player's decision with at
    most this many actions (fold aside) that it may take, each action's value is the
    expectation over the reply of the next player when that player's policy is known
    too (one step ahead, :func:`hand_aivat`), and a bet's value is the better of fold and
    call for the next player's real hand when its policy is unknown; 0 turns it off. ``observer``: an
    :class:`AIVATObserver` told of every known decision and of the final weights; it sees
    the scoring and never changes it.
    """

    boards: int = 48
    growth: tuple[float, float, float] = (1.0, 1.0, 1.0)
    lookahead: int = 8
    observer: AIVATObserver | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        if isinstance(self.boards, bool) or not isinstance(self.boards, int) or self.boards < 1:
            raise ValueError(f"AIVAT boards {self.boards!r} is not a positive whole number")
        if isinstance(self.lookahead, bool) or not isinstance(self.lookahead, int) or self.lookahead < 0:
            raise ValueError(f"AIVAT lookahead {self.lookahead!r} is not a whole number >= 0")
        if len(self.growth) != 3 or not all(math.isfinite(g) and g >= 1.0 for g in self.growth):
            raise ValueError(f"AIVAT growth {self.growth!r} is not three numbers >= 1 (preflop, flop, turn)")

    def stake(self, contested: npt.ArrayLike, street: int, cap: int) -> npt.NDArray[np.float64]:
        """The chips at stake on ``street`` given the ``contested`` chips (float64, as ``contested``)."""
        factor = self.growth[street] if street < 3 else 1.0
        return np.minimum(np.asarray(contested, dtype=np.float64) * factor, cap)


ALL_HANDS: npt.NDArray[np.int64] = combinations(NUM_CARDS, 2).astype(np.int64)
"""int64 ``[1326, 2]``: every pair of hole cards."""


def knows_policy(agent: Agent) -> bool:
    """Whether ``agent`` can give its strategy for every hand (it implements ``range_policy``)."""
    return type(agent).range_policy is not Agent.range_policy


def showdown_equities(
    hands: npt.NDArray[np.int64],
    opponent: tuple[int, int],
    board: Sequence[int],
    boards: int,
    rng: np.random.Generator,
) -> npt.NDArray[np.float64]:
    """float64 ``[H]``: the equity (win + tie/2) of each of ``hands`` against ``opponent`` on ``board``.

    Exact on the river and the turn; with three or fewer board cards the mean over
    ``boards`` completions drawn from ``rng`` (each hand averages the completions that
    miss its cards, an unbiased estimate). ``hands`` must not hold a card of
    ``opponent`` or ``board``.
    """
    built = tables()
    known = np.zeros(NUM_CARDS, dtype=bool)
    known[list(opponent)] = True
    known[list(board)] = True
    deck = np.flatnonzero(~known)
    need = 5 - len(board)
    if need == 0:
        completions = np.zeros((1, 0), dtype=np.int64)
    elif need == 1:
        completions = deck[:, None]
    else:
        draws = rng.random((boards, deck.size)).argpartition(need, axis=1)[:, :need]
        completions = deck[draws]
    count = completions.shape[0]
    board_cards = np.concatenate(
        [np.broadcast_to(np.asarray(board, dtype=np.int64), (count, len(board))), completions], axis=1
    )
    board_keys = built.card_key[board_cards].sum(axis=1)
    opponent_cards = np.concatenate([np.broadcast_to(np.asarray(opponent), (count, 2)), board_cards], axis=1)
    opponent_ranks = ranks_from_key_sums(
        board_keys + built.card_key[list(opponent)].sum(), 7, lambda rows: opponent_cards[rows]
    )
    valid = np.ones((len(hands), count), dtype=bool)
    for column in range(need):
        drawn = completions[:, column][None, :]
        valid &= (hands[:, 0:1] != drawn) & (hands[:, 1:2] != drawn)
    hand_keys = built.card_key[hands].sum(axis=1)
    # A completion that holds one of the hand's cards is never scored: rank any valid hand instead.
    placeholder = built.card_key[:7].sum()
    totals = np.where(valid, hand_keys[:, None] + board_keys[None, :], placeholder).reshape(-1)

    def seven(rows: npt.NDArray[np.intp]) -> npt.NDArray[np.int64]:
        return np.concatenate([hands[rows // count], board_cards[rows % count]], axis=1)

    ranks = ranks_from_key_sums(totals, 7, seven).reshape(len(hands), count)
    score = (ranks > opponent_ranks[None, :]) + 0.5 * (ranks == opponent_ranks[None, :])
    if need == 0:
        return np.asarray(score[:, 0], dtype=np.float64)
    totals_valid = valid.sum(axis=1)
    equity = np.where(totals_valid > 0, (score * valid).sum(axis=1) / np.maximum(totals_valid, 1), 0.5)
    return np.asarray(equity, dtype=np.float64)


def _contested(committed: Sequence[int], cap: int) -> int:
    """The chips each player would have in if the bet were called: the larger commitment, capped by
    the smaller starting stack."""
    return min(max(committed), cap)


def child_contested(
    state: HUNLState, policy: RangePolicy
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.bool_]]:
    """For each row of ``policy`` at ``state``: the contested chips after it (float64 [A]), and
    whether it is a fold (bool [A])."""
    actor = state.to_act
    assert actor is not None
    cap = min(state.config.stacks)
    other = state.committed[1 - actor]
    mine = state.committed[actor]
    added = np.where(
        policy.kinds == int(ActionKind.RAISE),
        policy.amounts - state.bets[actor],
        np.where(policy.kinds == int(ActionKind.CALL), state.call_amount, 0),
    )
    contested = np.minimum(np.maximum(mine + added, other), cap).astype(np.float64)
    return contested, policy.kinds == int(ActionKind.FOLD)


@dataclass(frozen=True)
class KnownDecision:
    """A known agent's decision as :func:`hand_aivat` scores it, for an :class:`AIVATObserver`.

    At ``state`` (before ``action``), ``policy``'s columns are the ``live`` candidate hands (indices
    into the ``candidates`` hands of the imaginary seat, ``imaginary``), each of check-down strength
    ``strength`` (``2e − 1``, float64 ``[L]``, from the scored player's side); ``final`` is the
    finished hand.
    """

    state: HUNLState
    action: Action
    policy: RangePolicy
    live: npt.NDArray[np.intp]
    strength: npt.NDArray[np.float64]
    candidates: int
    imaginary: int
    final: HUNLState


class AIVATObserver(Protocol):
    """Watches :func:`hand_aivat` score a hand (``AIVATConfig.observer``), e.g. to record the control
    variates of other value functions on the same decisions; it never changes the estimate."""

    def decision(self, decision: KnownDecision) -> None:
        """A known agent's decision, after its control variate is added."""

    def finish(self, weights: npt.NDArray[np.float64]) -> None:
        """The hand is scored: AIVAT's final weights of the candidate hands (float64 [candidates])."""


@dataclass
class _HandWalk:
    """The running sums of :func:`hand_aivat` over the candidate hands of the imaginary seat."""

    hands: npt.NDArray[np.int64]
    weights: npt.NDArray[np.float64]
    terms: npt.NDArray[np.float64]
    equity: npt.NDArray[np.float64]


def hand_aivat(
    state: HUNLState,
    player: int,
    agents: Sequence[Agent],
    rng: np.random.Generator,
    config: AIVATConfig | None = None,
) -> float:
    """The AIVAT estimate of ``player``'s chips in the finished hand ``state`` (module docstring).

    ``agents[p]`` is the agent that played as player ``p``; those that implement
    ``range_policy`` are known. ``rng`` draws the boards of the sampled equities
    and must be independent of the play. Raises ``ValueError`` if a known agent's
    policy gives an action it played probability 0.
    """
    if not state.is_over:
        raise ValueError("AIVAT scores finished hands; this one is still running")
    config = config if config is not None else AIVATConfig()
    known = [knows_policy(agent) for agent in agents]
    seat = player if known[player] else (1 - player if known[1 - player] else None)
    imaginary = seat if seat is not None else player
    other = 1 - imaginary
    sign = 1.0 if imaginary == player else -1.0
    other_hand = state.hole_cards(other)
    final_board = state.board
    if seat is not None:
        blocked = np.zeros(NUM_CARDS, dtype=bool)
        blocked[[*other_hand, *final_board]] = True
        hands = ALL_HANDS[~blocked[ALL_HANDS].any(axis=1)]
    else:
        hands = np.array([state.hole_cards(imaginary)], dtype=np.int64)
    replay = HUNLState.new(state.config, state.button, deck=state.deal)
    cap = min(state.config.stacks)

    def equity(street_board: Sequence[int], live: npt.NDArray[np.intp]) -> npt.NDArray[np.float64]:
        values = np.full(len(hands), np.nan)
        values[live] = showdown_equities(hands[live], other_hand, street_board, config.boards, rng)
        return values

    everyone = np.arange(len(hands))
    walk = _HandWalk(hands, np.ones(len(hands)), np.zeros(len(hands)), equity(replay.board, everyone))
    # The deal: every hand's value before it is 0 (the game is symmetric), so the term is -V.
    walk.terms -= sign * (2.0 * walk.equity - 1.0) * config.stake(_contested(replay.committed, cap), 0, cap)
    street = replay.street
    ahead: _Ahead | None = None
    for action in state.history:
        actor = replay.to_act
        assert actor is not None and actor == action.player
        if known[actor]:
            ahead = _decision_terms(
                walk, replay, action, agents, known, imaginary, state, player, sign, config, ahead
            )
            if not walk.weights.any():
                raise ValueError(
                    f"agent {agents[actor].name!r} gives its own actions probability 0 with every hand"
                )
        replay.apply(action)
        while street < replay.street:
            street += 1
            live = np.flatnonzero(walk.weights > 0)
            after = equity(state.deal[4 : 4 + BOARD_SIZES[street]], live)
            stake = config.stake(_contested(replay.committed, cap), street, cap)
            walk.terms[live] += 2.0 * sign * stake * (walk.equity[live] - after[live])
            walk.equity = after
    if state.folded is not None:
        results = np.full(len(hands), float(state.returns()[player]))
    else:
        results = sign * (2.0 * walk.equity - 1.0) * state.committed[0]
    if config.observer is not None:
        config.observer.finish(walk.weights)
    kept = walk.weights > 0
    weights = walk.weights[kept]
    # Sums, not BLAS products: a multithreaded BLAS adds in another order, and the estimate must not
    # depend on how many threads the process has (duplicate matches give the same result on any
    # number of workers).
    return float((weights * (results[kept] + walk.terms[kept])).sum() / weights.sum())


@dataclass(frozen=True)
class _Ahead:
    """The policy of the next decision, asked while valuing the last one: its history length, the
    live hands it was asked for (indices into the walk's hands), and the policy."""

    moves: int
    live: npt.NDArray[np.intp]
    policy: RangePolicy


def _asked(
    walk: _HandWalk, live: npt.NDArray[np.intp], actor: int, imaginary: int, final: HUNLState
) -> npt.NDArray[np.int64]:
    """The hands to ask ``actor``'s policy for: the live candidates of the imaginary seat, else its
    real hand."""
    return walk.hands[live] if actor == imaginary else np.array([final.hole_cards(actor)], dtype=np.int64)


def _ask(agent: Agent, state: HUNLState, hands: npt.NDArray[np.int64]) -> RangePolicy:
    policy = agent.range_policy(Observation.from_state(state), hands)
    if policy is None:
        raise ValueError(f"agent {agent.name!r} implements range_policy but gave none at {state!r}")
    return policy


def _fold_value(state: HUNLState, player: int) -> float:
    """What ``player`` wins if the player to act at ``state`` folds."""
    actor = state.to_act
    assert actor is not None
    return float(state.committed[actor]) * (-1.0 if actor == player else 1.0)


def _stakes(
    state: HUNLState, policy: RangePolicy, config: AIVATConfig
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.bool_]]:
    """The chips at stake after each row of ``policy`` at ``state`` (float64 [A]) and which rows fold."""
    contested, folds = child_contested(state, policy)
    return config.stake(contested, state.street, min(state.config.stacks)), folds


def _mean_value(
    state: HUNLState,
    policy: RangePolicy,
    strength: npt.NDArray[np.float64],
    player: int,
    config: AIVATConfig,
) -> npt.NDArray[np.float64]:
    """float64 ``[L]``: the mean over ``policy``'s rows of their children's check-down values for
    ``player``, for each live hand of ``strength`` (``2e − 1`` from ``player``'s side); a fold is
    worth what it wins. Never forms the ``[A, L]`` values (a random agent has thousands of rows)."""
    stakes, folds = _stakes(state, policy, config)
    fold_probability = policy.probabilities[folds].sum(axis=0)
    expected_stake = (stakes[~folds, np.newaxis] * policy.probabilities[~folds]).sum(axis=0)
    values: npt.NDArray[np.float64] = fold_probability * _fold_value(state, player)
    return values + strength * expected_stake


def _child(state: HUNLState, policy: RangePolicy, row: int) -> HUNLState:
    """``state`` after the player to act takes ``policy``'s action ``row``."""
    actor = state.to_act
    assert actor is not None
    kind = ActionKind(int(policy.kinds[row]))
    amount = state.call_amount if kind is ActionKind.CALL else int(policy.amounts[row])
    child = state.clone()
    child.apply(Action(actor, kind, amount))
    return child


def _unknown_reply(
    state: HUNLState,
    policy: RangePolicy,
    candidate: int,
    weights: npt.NDArray[np.float64],
    called: npt.NDArray[np.float64],
    player: int,
) -> npt.NDArray[np.float64] | None:
    """The value of ``candidate``'s child when it is a bet that the other seat, whose policy is
    unknown, answers: the fold's value where folding is worth more to that seat than calling against
    the actor's range after the bet (``weights`` times the candidate's probabilities; ``called``, the
    check-down values of the call for each live hand), else None (the call's value stands). The other
    seat's cards are the real ones, so this is a function of the state like any value."""
    if policy.kinds[candidate] != int(ActionKind.RAISE):
        return None
    child = _child(state, policy, candidate)
    if child.to_act is None or child.street != state.street or child.call_amount == 0:
        return None
    after = weights * policy.probabilities[candidate]
    mass = after.sum()
    if mass <= 0:
        return None
    fold = _fold_value(child, player)
    call = float((after * called).sum() / mass)
    replier_gains = 1.0 if child.to_act == player else -1.0
    if replier_gains * call >= replier_gains * fold:
        return None
    return np.full(len(weights), fold)


def _decision_terms(
    walk: _HandWalk,
    replay: HUNLState,
    action: Action,
    agents: Sequence[Agent],
    known: Sequence[bool],
    imaginary: int,
    final: HUNLState,
    player: int,
    sign: float,
    config: AIVATConfig,
    ahead: _Ahead | None,
) -> _Ahead | None:
    """Add the control variate of a known agent's decision at ``replay`` (and, for the imaginary
    seat, multiply its hands' weights by the probability of the action).

    The value of each action the agent may take is the check-down value of its child, or, with
    the lookahead, the expectation of the child's values over the next player's reply when that
    player's policy is known and the street goes on. The choice depends only on the public state
    and the policies, never on the action taken, so the term keeps mean 0. Returns the next
    decision's policy when it was asked here (the child of the action taken), else None.
    """
    actor = replay.to_act
    assert actor is not None
    live = np.flatnonzero(walk.weights > 0)
    if ahead is not None and ahead.moves == len(replay.history):
        policy = ahead.policy
        if actor == imaginary and policy.probabilities.shape[1] > 1:  # live hands only shrink
            policy = RangePolicy(
                policy.kinds, policy.amounts, policy.probabilities[:, np.searchsorted(ahead.live, live)]
            )
    else:
        policy = _ask(agents[actor], replay, _asked(walk, live, actor, imaginary, final))
    observation = Observation.from_state(replay)
    row = policy.row(observation, action)
    chosen = policy.probabilities[row] if row is not None else np.zeros(policy.probabilities.shape[1])
    if actor != imaginary and chosen[0] <= 0:
        raise ValueError(f"agent {agents[actor].name!r} played {action} which its policy gives probability 0")
    strength = sign * (2.0 * walk.equity[live] - 1.0)
    stakes, folds = _stakes(replay, policy, config)

    def value(row: int) -> npt.NDArray[np.float64]:
        """The check-down value of ``row``'s child for each live hand."""
        return np.full(len(live), _fold_value(replay, player)) if folds[row] else stakes[row] * strength

    expected = _mean_value(replay, policy, strength, player, config)
    ahead_values: dict[int, npt.NDArray[np.float64]] = {}
    following: _Ahead | None = None
    candidates = np.flatnonzero((policy.probabilities > 0).any(axis=1) & ~folds)
    if known[1 - actor] and len(candidates) <= config.lookahead:  # the reply is the other seat's
        for candidate in candidates.tolist():
            child = _child(replay, policy, candidate)
            reply = child.to_act
            if reply is None or child.street != replay.street:
                continue
            reply_policy = _ask(agents[reply], child, _asked(walk, live, reply, imaginary, final))
            looked = ahead_values[candidate] = _mean_value(child, reply_policy, strength, player, config)
            expected = expected + policy.probabilities[candidate] * (looked - value(candidate))
            if candidate == row:
                following = _Ahead(len(child.history), live, reply_policy)
    elif len(candidates) <= config.lookahead:  # the reply is an unknown seat's, with its real cards
        for candidate in candidates.tolist():
            answer = _unknown_reply(replay, policy, candidate, walk.weights[live], value(candidate), player)
            if answer is not None:
                ahead_values[candidate] = answer
                expected = expected + policy.probabilities[candidate] * (answer - value(candidate))
    if row is None:
        happened = np.zeros(len(live))
    else:
        happened = ahead_values[row] if row in ahead_values else value(row)
    if config.observer is not None:
        config.observer.decision(
            KnownDecision(replay, action, policy, live, strength, len(walk.hands), imaginary, final)
        )
    walk.terms[live] += expected - happened
    if actor == imaginary:
        walk.weights[live] *= chosen
    return following


# ---------------------------------------------------------------------- scores


@dataclass(frozen=True)
class AIVATSummary:
    """AIVAT next to the plain estimate of the same hands: mbb/hand with 95% intervals.

    ``variance_reduction`` is the share of the plain estimate's variance that
    AIVAT removes, ``1 − var(AIVAT)/var(plain)`` over the same units (deal pairs
    or hands): 0.75 halves the interval, which is four times fewer hands for the
    same precision.
    """

    mbb_per_hand: float
    ci95: tuple[float, float]
    variance_reduction: float

    def to_json(self) -> dict[str, Any]:
        return {
            "mbb_per_hand": self.mbb_per_hand,
            "ci95": [_json_number(bound) for bound in self.ci95],
            "variance_reduction": _json_number(self.variance_reduction),
        }


def _json_number(value: float) -> float | None:
    return value if math.isfinite(value) else None


def variance_reduction(plain: npt.ArrayLike, corrected: npt.ArrayLike) -> float:
    """``1 − var(corrected)/var(plain)`` (sample variances; nan with fewer than two units)."""
    plain_array = np.asarray(plain, dtype=np.float64)
    corrected_array = np.asarray(corrected, dtype=np.float64)
    if plain_array.size < 2:
        return math.nan
    plain_variance = float(plain_array.var(ddof=1))
    if plain_variance == 0:
        return math.nan
    return 1.0 - float(corrected_array.var(ddof=1)) / plain_variance


__all__ = [
    "ALL_HANDS",
    "AIVATConfig",
    "AIVATObserver",
    "AIVATSummary",
    "GamePolicy",
    "KnownDecision",
    "child_contested",
    "game_aivat",
    "hand_aivat",
    "knows_policy",
    "showdown_equities",
    "variance_reduction",
]
