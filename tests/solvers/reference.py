"""Slow, obvious reference implementations: oracles for the fast compiled solvers.

They walk ``State`` objects of the game protocol recursively, keep tables in
dicts keyed by information-state strings, and share no code with
``pokerai.solvers`` beyond the games themselves.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable

from pokerai.games.protocol import Game, State

PolicyFunction = Callable[[State], dict[int, float]]


def expected_value(game: Game, policy: PolicyFunction) -> float:
    """Player 0's expected return when both players follow ``policy``."""

    def value(state: State) -> float:
        if state.is_terminal():
            return state.returns()[0]
        if state.is_chance():
            return sum(p * value(state.child(o)) for o, p in state.chance_outcomes())
        return sum(p * value(state.child(a)) for a, p in policy(state).items())

    return value(game.initial_state())


def best_response_value(game: Game, policy: PolicyFunction, responder: int) -> float:
    """Value to ``responder`` of a best response against the other player's ``policy``."""
    histories: dict[str, list[tuple[State, float]]] = defaultdict(list)

    def collect(state: State, reach: float) -> None:
        if state.is_terminal():
            return
        if state.is_chance():
            for outcome, p in state.chance_outcomes():
                collect(state.child(outcome), reach * p)
        elif state.current_player() == responder:
            histories[state.information_state_key(responder)].append((state, reach))
            for a in state.legal_actions():
                collect(state.child(a), reach)
        else:
            for a, p in policy(state).items():
                collect(state.child(a), reach * p)

    collect(game.initial_state(), 1.0)
    best: dict[str, int] = {}
    memo: dict[State, float] = {}

    def value(state: State) -> float:
        if state in memo:
            return memo[state]
        if state.is_terminal():
            result = state.returns()[responder]
        elif state.is_chance():
            result = sum(p * value(state.child(o)) for o, p in state.chance_outcomes())
        elif state.current_player() == responder:
            key = state.information_state_key(responder)
            if key not in best:
                best[key] = max(
                    state.legal_actions(),
                    key=lambda a: sum(r * value(h.child(a)) for h, r in histories[key]),
                )
            result = value(state.child(best[key]))
        else:
            result = sum(p * value(state.child(a)) for a, p in policy(state).items())
        memo[state] = result
        return result

    return value(game.initial_state())


def reference_exploitability(game: Game, policy: PolicyFunction) -> float:
    """Mean over both players of the best-response gain, from the functions above."""
    game_value = expected_value(game, policy)
    gains = best_response_value(game, policy, 0) - game_value
    gains += best_response_value(game, policy, 1) + game_value
    return gains / 2.0


def reference_cfr(game: Game, iterations: int) -> dict[str, dict[int, float]]:
    """Textbook vanilla CFR with alternating updates; returns the average strategy.

    Each player's traversal plays the strategy its regrets gave at the start
    of that traversal. Counterfactual regrets weight by the opponent's and
    chance's reach; the average weights by the player's own reach.
    """
    regret: dict[str, dict[int, float]] = defaultdict(lambda: defaultdict(float))
    strategy_sum: dict[str, dict[int, float]] = defaultdict(lambda: defaultdict(float))

    def regret_matching(key: str, actions: list[int]) -> dict[int, float]:
        positive = {a: max(regret[key][a], 0.0) for a in actions}
        total = sum(positive.values())
        return {a: (positive[a] / total if total > 0 else 1.0 / len(actions)) for a in actions}

    for _ in range(iterations):
        for updating in (0, 1):
            current: dict[str, dict[int, float]] = {}

            def walk(state: State, reach: tuple[float, float, float], updating: int = updating,
                     current: dict[str, dict[int, float]] = current) -> float:  # fmt: skip
                if state.is_terminal():
                    return state.returns()[0]
                if state.is_chance():
                    return sum(
                        p * walk(state.child(o), (reach[0], reach[1], reach[2] * p))
                        for o, p in state.chance_outcomes()
                    )
                player = state.current_player()
                key = state.information_state_key(player)
                actions = list(state.legal_actions())
                sigma = current.setdefault(key, regret_matching(key, actions))
                child_values = {}
                for a in actions:
                    child_reach = list(reach)
                    child_reach[player] *= sigma[a]
                    child_values[a] = walk(state.child(a), tuple(child_reach))  # type: ignore[arg-type]
                value = sum(sigma[a] * child_values[a] for a in actions)
                if player == updating:
                    sign = 1.0 if player == 0 else -1.0
                    for a in actions:
                        regret[key][a] += reach[1 - player] * reach[2] * sign * (child_values[a] - value)
                        strategy_sum[key][a] += reach[player] * sigma[a]
                return value

            walk(game.initial_state(), (1.0, 1.0, 1.0))
    average = {}
    for key, sums in strategy_sum.items():
        total = sum(sums.values())
        average[key] = {a: (s / total if total > 0 else 1.0 / len(sums)) for a, s in sums.items()}
    return average
