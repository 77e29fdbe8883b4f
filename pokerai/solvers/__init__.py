"""Tabular solvers, policies, best response and exploitability for games of the protocol."""

from __future__ import annotations

from pokerai.solvers.best_response import (
    BestResponse,
    best_response,
    expected_values,
    exploitability,
    nash_conv,
    tree_of,
)
from pokerai.solvers.cfr import VARIANTS, CFRSolver, CFRVariant, dcfr_variant
from pokerai.solvers.mccfr import SAMPLERS, MCCFRSolver
from pokerai.solvers.minimax import MAX, MIN, PerfectInfoState, SearchResult, alphabeta, expectimax, minimax
from pokerai.solvers.pimc import PIMCResult, pimc
from pokerai.solvers.policy import TabularPolicy
from pokerai.solvers.qre import (
    DEFAULT_TOLERANCE,
    QREError,
    QREPoint,
    QREResult,
    conditional_action_values,
    logit_residual,
    trace_logit_qre,
)
from pokerai.solvers.solve import ALGORITHMS, SolveResult, make_solver, solve
from pokerai.solvers.tree import GameTree, compile_tree

__all__ = [
    "ALGORITHMS",
    "DEFAULT_TOLERANCE",
    "MAX",
    "MIN",
    "SAMPLERS",
    "VARIANTS",
    "BestResponse",
    "CFRSolver",
    "CFRVariant",
    "GameTree",
    "MCCFRSolver",
    "PIMCResult",
    "PerfectInfoState",
    "QREError",
    "QREPoint",
    "QREResult",
    "SearchResult",
    "SolveResult",
    "TabularPolicy",
    "alphabeta",
    "best_response",
    "compile_tree",
    "conditional_action_values",
    "dcfr_variant",
    "expected_values",
    "expectimax",
    "exploitability",
    "logit_residual",
    "make_solver",
    "minimax",
    "nash_conv",
    "pimc",
    "solve",
    "trace_logit_qre",
    "tree_of",
]
