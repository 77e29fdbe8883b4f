"""One entry point for every tabular solver: run, evaluate on a schedule, report."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from pokerai.games.protocol import Game
from pokerai.solvers.best_response import expected_values, exploitability
from pokerai.solvers.cfr import VARIANTS, CFRSolver, dcfr_variant
from pokerai.solvers.mccfr import MCCFRSolver
from pokerai.solvers.policy import TabularPolicy

ALGORITHMS = (
    "cfr",
    "cfr-simultaneous",
    "cfr+",
    "lcfr",
    "dcfr",
    "pcfr+",
    "mccfr-chance",
    "mccfr-external",
    "mccfr-outcome",
)


class Solver(Protocol):
    """What ``solve`` needs of a solver."""

    iteration: int

    def run(self, iterations: int) -> None: ...

    def average_policy(self) -> TabularPolicy: ...


def make_solver(game: Game, algorithm: str, *, seed: int = 0,
                dcfr_exponents: tuple[float, float, float] | None = None) -> Solver:  # fmt: skip
    """A fresh solver for ``algorithm`` (one of ``ALGORITHMS``) on ``game``.

    ``seed`` drives the MCCFR samplers (the full-tree solvers are
    deterministic); ``dcfr_exponents`` = (alpha, beta, gamma) overrides DCFR's
    default (1.5, 0, 2).
    """
    if algorithm not in ALGORITHMS:
        raise ValueError(f"unknown algorithm {algorithm!r}; choose one of {', '.join(ALGORITHMS)}")
    if dcfr_exponents is not None and algorithm != "dcfr":
        raise ValueError("DCFR exponents only apply to the dcfr algorithm")
    if algorithm.startswith("mccfr-"):
        return MCCFRSolver(game, algorithm.removeprefix("mccfr-"), seed=seed)
    variant = dcfr_variant(*dcfr_exponents) if dcfr_exponents else VARIANTS[algorithm]
    return CFRSolver(game, variant)


def default_schedule(iterations: int) -> list[int]:
    """Iterations at which to measure exploitability: 1, 2, 5, 10, 20, 50, ... and the last."""
    points = []
    scale = 1
    while scale <= iterations:
        points += [m * scale for m in (1, 2, 5) if m * scale <= iterations]
        scale *= 10
    if not points or points[-1] != iterations:
        points.append(iterations)
    return points


@dataclass
class SolveResult:
    """What a solve produced.

    ``seconds`` counts time spent iterating only, not measuring
    exploitability; ``curve`` holds ``(iteration, seconds, exploitability)``
    at each measurement; ``game_value`` is player 0's (the first player's)
    expected return under ``policy``.
    """

    game: str
    algorithm: str
    iterations: int
    seconds: float
    policy: TabularPolicy
    exploitability: float
    game_value: float
    curve: list[tuple[int, float, float]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """The ``pokerai solve --json`` object."""
        return {
            "game": self.game,
            "algorithm": self.algorithm,
            "iterations": self.iterations,
            "seconds": self.seconds,
            "exploitability": self.exploitability,
            "game_value": self.game_value,
            "curve": [[i, s, e] for i, s, e in self.curve],
            "policy": self.policy.to_dict(),
        }


def solve(
    game: Game,
    algorithm: str,
    iterations: int,
    *,
    seed: int = 0,
    eval_every: int | None = None,
    target_exploitability: float | None = None,
    dcfr_exponents: tuple[float, float, float] | None = None,
    on_progress: Callable[[int], None] | None = None,
) -> SolveResult:
    """Run ``algorithm`` on ``game`` for ``iterations`` iterations, measuring as it goes.

    Exploitability (exact, ``exploitability``) is measured every
    ``eval_every`` iterations, or on the 1-2-5 schedule of
    ``default_schedule`` when it is None, and always at the end. With
    ``target_exploitability`` the run stops at the first measurement at or
    below it. ``on_progress(done)`` is called as iterations complete.
    """
    if iterations <= 0:
        raise ValueError(f"iterations must be positive, got {iterations}")
    if eval_every is not None and eval_every <= 0:
        raise ValueError(f"eval-every must be positive, got {eval_every}")
    solver = make_solver(game, algorithm, seed=seed, dcfr_exponents=dcfr_exponents)
    solver.run(0)  # loads or compiles the numba kernels outside the timed iterations
    if eval_every is None:
        schedule = default_schedule(iterations)
    else:
        schedule = list(range(eval_every, iterations + 1, eval_every))
        if not schedule or schedule[-1] != iterations:
            schedule.append(iterations)
    # Chunks keep progress reports frequent without calling into numba per iteration.
    chunk = max(1, min(1000, iterations // 100))
    curve: list[tuple[int, float, float]] = []
    seconds = 0.0
    for point in schedule:
        while solver.iteration < point:
            step = min(chunk, point - solver.iteration)
            start = time.perf_counter()
            solver.run(step)
            seconds += time.perf_counter() - start
            if on_progress is not None:
                on_progress(solver.iteration)
        value = exploitability(solver.average_policy())
        curve.append((solver.iteration, seconds, value))
        if target_exploitability is not None and value <= target_exploitability:
            break
    policy = solver.average_policy()
    return SolveResult(
        game=game.name,
        algorithm=algorithm,
        iterations=solver.iteration,
        seconds=seconds,
        policy=policy,
        exploitability=curve[-1][2],
        game_value=expected_values(policy)[0],
        curve=curve,
    )


__all__ = ["ALGORITHMS", "SolveResult", "Solver", "default_schedule", "make_solver", "solve"]
