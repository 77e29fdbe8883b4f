"""Which discount schedule should the spot solver's DCFR run?

Question: on the benchmark's river and turn spots (``benchmarks/bench_spot.py``), how many
iterations does each schedule need to reach 0.5% and 0.3% of the pot? Candidates, all Discounted
CFR (Brown & Sandholm, AAAI 2019; ``pokerai solve --algorithm dcfr`` proves the family on Leduc):

* ``postflop-solver``: positive regrets times ``t^1.5 / (t^1.5 + 1)``, negative ones halved (β = 0),
  strategy sums times ``((t - p) / (t - p + 1))^3`` with ``p`` the largest power of 4 up to ``t``
  (the average restarts at each power of 4), as postflop-solver runs it;
* ``dcfr-1.5-0-2``: the paper's recommended α = 1.5, β = 0, γ = 2, no restarts;
* ``linear``: Linear CFR (α = β = γ = 1);
* ``cfr+``: regret matching+ as CFR+ runs it (α = ∞: positive regrets kept, β = −∞: negative ones
  reset to 0 before the new regret is added, which CFR+ floors after) with its linear average (γ = 1).

Answer: docs/RESULTS.md, "The spot solver". The library keeps the winner (``kernel.discount``).
Run: ``OMP_NUM_THREADS=1 python experiments/spot_cfr_variants.py``.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from pokerai.solvers.postflop import SpotConfig, build_spot, solve_spot
from pokerai.solvers.postflop import kernel as K
from pokerai.solvers.postflop.spot import _Solver

OOP = "66+,A8s+,A5s-A4s,AJo+,K9s+,KQo,QTs+,JTs,96s+,85s+,75s+,65s,54s"
IP = "QQ-22,AQs-A2s,ATo+,K5s+,KJo+,Q8s+,J8s+,T7s+,96s+,86s+,75s+,64s+,53s+"
SPOTS = {
    "river": SpotConfig("Td9d6hQc7s", OOP, IP, 200, 900, "60%,e,a", "2.5x"),
    "turn": SpotConfig("Td9d6hQc", OOP, IP, 200, 900, "60%,e,a", "2.5x"),
}


def _dcfr(alpha: float, beta: float, gamma: float) -> Callable[[int], npt.NDArray[np.float64]]:
    def factors(iteration: int) -> npt.NDArray[np.float64]:
        t = float(iteration + 1)
        return np.array([t**alpha / (t**alpha + 1), t**beta / (t**beta + 1), (t / (t + 1)) ** gamma])

    return factors


def _linear(iteration: int) -> npt.NDArray[np.float64]:
    t = float(iteration + 1)
    return np.array([t / (t + 1), t / (t + 1), t / (t + 1)])


def _cfr_plus(iteration: int) -> npt.NDArray[np.float64]:
    t = float(iteration + 1)
    return np.array([1.0, 0.0, t / (t + 1)])


SCHEDULES: dict[str, Callable[[int], npt.NDArray[np.float64]]] = {
    "postflop-solver": K.discount,
    "dcfr-1.5-0-2": _dcfr(1.5, 0.0, 2.0),
    "linear": _linear,
    "cfr+": _cfr_plus,
}


Schedule = Callable[[int], npt.NDArray[np.float64]]


def iterations_to(config: SpotConfig, schedule: Schedule, cap: int) -> list[int]:
    """Iterations (measured every 10, as the solver does) to 0.5% and 0.3% of the pot; -1: not in ``cap``."""
    spot = build_spot(config)
    state = solve_spot(spot, max_iterations=0).state  # zeroed storage of the right size
    solver = _Solver(spot, state)
    reached = [-1, -1]
    for iteration in range(cap):
        state.discount[:] = schedule(iteration)
        for player in range(2):
            solver.traverse(player, K.TRAIN)
        if (iteration + 1) % 10:
            continue
        exploitability = solver.exploitability_pct()
        for index, target in enumerate((0.5, 0.3)):
            if reached[index] < 0 and exploitability <= target:
                reached[index] = iteration + 1
        if min(reached) > 0 or math.isnan(exploitability):
            break
    return reached


def main() -> None:
    print("| spot | schedule | iterations to 0.5% | iterations to 0.3% |")
    print("|---|---|---:|---:|")
    for name, config in SPOTS.items():
        for schedule_name, schedule in SCHEDULES.items():
            half, third = iterations_to(config, schedule, 2000)
            print(f"| {name} | {schedule_name} | {half} | {third} |", flush=True)


if __name__ == "__main__":
    main()
