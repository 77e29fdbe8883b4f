"""Leduc, exact: how much variance AIVAT keeps when it averages over one seat's cards, or both.

Question: against LBR, AIVAT averages over the target's hands (the target's policy is known) and
scores LBR's real one; LBR's own card luck in big pots is most of what is left. LBR is a
deterministic function of its cards and the public state, so its policy can be known too. Would
averaging over LBR's cards, or over both seats' cards at once, remove much more?

On Leduc every trajectory can be enumerated, so each estimator's variance is exact. The target
plays CFR+'s average strategy after ``--iterations`` iterations; the exploiter (seat 0, scored) is
its exact best response, deterministic as LBR is. The value function is the check-down value
``(2e − 1)·m`` (``e`` the showdown equity over the board card to come, ``m`` the larger
contribution), as ``hand_aivat`` uses on hold'em. Estimators:

* ``plain``: the result;
* ``target's cards``: ``game_aivat`` with the target known, the exploiter unknown (today's LBR);
* ``exploiter's cards``: both known, averaged over the exploiter's card;
* ``both seats' cards``: both known, averaged over every pair of private cards, each weighted by
  the probability that both seats play the observed actions holding it.

    python experiments/leduc_joint_aivat.py --iterations 30 100 1000

Prints each estimator's mean (all equal the exploiter's value) and standard deviation.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator

import numpy as np

from pokerai.eval.aivat import game_aivat
from pokerai.games.leduc import LeducPoker, LeducState
from pokerai.games.protocol import State
from pokerai.solvers.best_response import best_response
from pokerai.solvers.cfr import CFRSolver
from pokerai.solvers.policy import TabularPolicy

GAME = LeducPoker()
EXPLOITER = 0


class Combined:
    """The exploiter's best response in seat 0, the target's policy in seat 1."""

    def __init__(self, target: TabularPolicy, actions: dict[str, int]) -> None:
        self.target, self.actions = target, actions

    def action_probabilities(self, state: State) -> dict[int, float]:
        if state.current_player() == EXPLOITER:
            return {self.actions[state.information_state_key(EXPLOITER)]: 1.0}
        return self.target.action_probabilities(state)


def checkdown(state: State) -> float:
    """Seat 0's check-down value: (2e − 1) times the larger contribution."""
    assert isinstance(state, LeducState)
    if len(state.cards) < 2:
        return 0.0
    stake = max(state.contributions())
    boards = [state.board] if state.board is not None else [c for c in range(6) if c not in state.cards[:2]]
    total = 0.0
    for board in boards:
        shown = LeducState((*state.cards[:2], board), state.rounds)
        strength = [shown._showdown_strength(shown.cards[p]) for p in (0, 1)]
        total += 1.0 if strength[0] > strength[1] else (0.0 if strength[0] < strength[1] else 0.5)
    return (2.0 * total / len(boards) - 1.0) * stake


def replay(trajectory: list[int]) -> list[State]:
    states: list[State] = [GAME.initial_state()]
    for action in trajectory:
        states.append(states[-1].child(action))
    return states


def terminals(policy: Combined) -> Iterator[tuple[list[int], float]]:
    def walk(state: State, trajectory: list[int], probability: float) -> Iterator[tuple[list[int], float]]:
        if state.is_terminal():
            yield trajectory, probability
            return
        pairs = state.chance_outcomes() if state.is_chance() else policy.action_probabilities(state).items()
        for action, p in pairs:
            if p > 0:
                yield from walk(state.child(action), [*trajectory, action], probability * p)

    return walk(GAME.initial_state(), [], 1.0)


def both_seats(trajectory: list[int], policy: Combined) -> float:
    """The AIVAT estimate (both policies known) averaged over every pair of private cards."""
    total_weight = total = 0.0
    for first in range(6):
        for second in range(6):
            imagined = [first, second, *trajectory[2:]]
            try:
                states = replay(imagined)
            except ValueError:  # a card dealt twice
                continue
            weight, estimate = 1.0, states[-1].returns()[EXPLOITER]
            for state, action, after in zip(states[:-1], imagined, states[1:], strict=True):
                distribution = (
                    dict(state.chance_outcomes()) if state.is_chance() else policy.action_probabilities(state)
                )
                weight *= distribution.get(action, 0.0)
                if weight == 0.0:
                    break
                expected = sum(p * (s.returns()[0] if (s := state.child(a)).is_terminal() else checkdown(s))
                               for a, p in distribution.items() if p > 0)  # fmt: skip
                estimate += expected - (after.returns()[0] if after.is_terminal() else checkdown(after))
            total_weight += weight
            total += weight * estimate
    return total / total_weight


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--iterations", type=int, nargs="+", default=[30, 100, 1000])
    args = parser.parse_args()
    print(
        "| target | exploiter's value | plain sd | target's cards | exploiter's cards | both seats' cards |"
    )
    print("|---|---:|---:|---:|---:|---:|")
    for iterations in args.iterations:
        solver = CFRSolver(GAME, "cfr+")
        solver.run(iterations)
        target = solver.average_policy()
        policy = Combined(target, best_response(target, EXPLOITER).actions)
        rows: dict[str, list[float]] = {"plain": [], "target": [], "exploiter": [], "both": []}
        weights = []
        for trajectory, probability in terminals(policy):
            weights.append(probability)
            rows["plain"].append(replay(trajectory)[-1].returns()[EXPLOITER])
            rows["target"].append(game_aivat(GAME, trajectory, EXPLOITER, [None, policy], checkdown))
            rows["exploiter"].append(game_aivat(GAME, trajectory, EXPLOITER, [policy, policy], checkdown))
            rows["both"].append(both_seats(trajectory, policy))
        p = np.array(weights)
        means = {name: float(p @ np.array(values)) for name, values in rows.items()}
        sds = {
            name: float(np.sqrt(p @ (np.array(values) - means[name]) ** 2)) for name, values in rows.items()
        }
        assert max(means.values()) - min(means.values()) < 1e-9, means
        print(
            f"| CFR+ {iterations} | {means['plain']:.4f} | {sds['plain']:.3f} | {sds['target']:.3f} | "
            f"{sds['exploiter']:.3f} | {sds['both']:.3f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
