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
from pokerai.solvers.policy import TabularPolicy
from pokerai.solvers.solve import ALGORITHMS, SolveResult, make_solver, solve
from pokerai.solvers.tree import GameTree, compile_tree

__all__ = [
    "ALGORITHMS",
    "SAMPLERS",
    "VARIANTS",
    "BestResponse",
    "CFRSolver",
    "CFRVariant",
    "GameTree",
    "MCCFRSolver",
    "SolveResult",
    "TabularPolicy",
    "best_response",
    "compile_tree",
    "dcfr_variant",
    "expected_values",
    "exploitability",
    "make_solver",
    "nash_conv",
    "solve",
    "tree_of",
]
