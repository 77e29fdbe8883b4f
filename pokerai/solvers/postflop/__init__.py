"""The postflop range solver: any spot in, a strategy for every hand and its exploitability out.

:mod:`~pokerai.solvers.postflop.sizes` and :mod:`~pokerai.solvers.postflop.tree` build the
betting tree from postflop-solver's size strings and all-in rules;
:mod:`~pokerai.solvers.postflop.game` lays the spot out in flat arrays (every card that can come,
suit-isomorphic ones merged); :mod:`~pokerai.solvers.postflop.kernel` runs Discounted CFR over
every hand at once; :mod:`~pokerai.solvers.postflop.spot` is the interface (build, solve, browse,
lock, save).
"""

from pokerai.solvers.postflop.spot import (
    NodeView,
    Spot,
    SpotConfig,
    SpotError,
    SpotSolution,
    build_spot,
    check_locks,
    decision_at,
    equity_vs_range,
    estimate_memory,
    format_bytes,
    load_solution,
    solve_spot,
)

__all__ = [
    "NodeView", "Spot", "SpotConfig", "SpotError", "SpotSolution", "build_spot", "check_locks",
    "decision_at", "equity_vs_range", "estimate_memory", "format_bytes", "load_solution", "solve_spot",
]  # fmt: skip
