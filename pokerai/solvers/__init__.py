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
from pokerai.solvers.solve import ALGORITHMS, SolveResult, make_solver, solve
from pokerai.solvers.tree import GameTree, compile_tree

__all__ = [
    "ALGORITHMS",
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
    "SearchResult",
    "SolveResult",
    "TabularPolicy",
    "alphabeta",
    "best_response",
    "compile_tree",
    "dcfr_variant",
    "expected_values",
    "expectimax",
    "exploitability",
    "make_solver",
    "minimax",
    "nash_conv",
    "pimc",
    "solve",
    "tree_of",
]
