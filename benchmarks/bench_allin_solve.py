"""Time the answer to an off-menu all-in (``blueprint:PATH?allin=solve``) on each street.

For a scripted hand of the Deep CFR blueprint (``--blueprint``, ``checkpoints/hunl_tiny``; raise
to 250, call, then checks) the button or the big blind shoves its whole stack on each street,
and the big blind or the button answers. Reports the seconds to build the street's equity matrices
(the first time on a board; cached afterwards) and the median of ``--repeats``
solves of the all-in game (beliefs, game, CFR+), with the hands in the game and
the solved shares: of the shover's range (its beliefs before the all-in) that
shoves, and of the answerer's range that calls.

    OMP_NUM_THREADS=1 python benchmarks/bench_allin_solve.py [--blueprint PATH] [--repeats 3]
"""

from __future__ import annotations

import statistics
import time

from common import deep_cfr_blueprint_arguments

from pokerai.engine.cards import parse_cards
from pokerai.engine.state import Action, ActionKind, HUNLState
from pokerai.search.allin import DEFAULT_ITERATIONS, allin_matrices, before_last_action, solve_allin
from pokerai.search.beliefs import public_beliefs

DECK = parse_cards("AhKd 7c7d Qs9h2c 5d 3s")
CHECKS = [(1, ActionKind.CHECK, 0), (0, ActionKind.CHECK, 0)]
SPOTS: dict[str, list[tuple[int, ActionKind, int]]] = {
    "preflop (the button open-shoves)": [],
    "flop (the big blind checks, the button shoves)": [
        (0, ActionKind.RAISE, 250),
        (1, ActionKind.CALL, 150),
        CHECKS[0],
    ],
    "turn": [(0, ActionKind.RAISE, 250), (1, ActionKind.CALL, 150), *CHECKS, CHECKS[0]],
    "river": [(0, ActionKind.RAISE, 250), (1, ActionKind.CALL, 150), *CHECKS, *CHECKS, CHECKS[0]],
}


def main() -> None:
    args, blueprint = deep_cfr_blueprint_arguments(__doc__, repeats=3)
    print(f"blueprint {args.blueprint}, {DEFAULT_ITERATIONS} CFR+ iterations per solve, threshold 0.3\n")
    print(
        "| spot | hands in the game (in either range) | equity matrices, first time (s) | solve, median (s) "
        "| shover's range that shoves | answerer's range that calls |"
    )
    print("|---|---:|---:|---:|---:|---:|")
    for name, actions in SPOTS.items():
        state = HUNLState.new(blueprint.game.config, 0, deck=DECK)
        for player, kind, amount in actions:
            state.apply(Action(player, kind, amount))
        shover = state.to_act
        assert shover is not None
        state.apply(Action(shover, ActionKind.RAISE, state.max_raise_to or 0))
        started = time.perf_counter()
        hands, _, _ = allin_matrices(tuple(state.board))
        matrices = time.perf_counter() - started
        beliefs = public_beliefs(blueprint, before_last_action(state), threshold=0.3)
        inside = int(((beliefs[0, hands] > 0) | (beliefs[1, hands] > 0)).sum())
        times = []
        for _ in range(args.repeats):
            solution = solve_allin(blueprint, state, threshold=0.3)
            times.append(solution.seconds)
        answerer = 1 - shover
        shoves = float(beliefs[shover] @ solution.shove)
        calls = float(beliefs[answerer] @ solution.strategy[:, 1])
        print(
            f"| {name} | {hands.size} ({inside}) | {matrices:.2f} | {statistics.median(times):.2f} "
            f"| {shoves:.1%} | {calls:.1%} |"
        )


if __name__ == "__main__":
    main()
