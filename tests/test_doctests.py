"""The examples in the docstrings of ``pokerai.engine`` and ``pokerai.solvers`` run as doctests."""

from __future__ import annotations

import doctest
import importlib
import pkgutil
from types import ModuleType

import pytest

import pokerai.engine
import pokerai.solvers

MODULES = sorted(
    info.name
    for package in (pokerai.engine, pokerai.solvers)
    for info in pkgutil.iter_modules(package.__path__, prefix=f"{package.__name__}.")
)


def test_the_engine_and_the_solvers_have_examples() -> None:
    """Fails when these modules carry no examples, or this file no longer finds them."""
    with_examples = {name for name in MODULES if _has_examples(importlib.import_module(name))}
    expected = {f"pokerai.engine.{name}" for name in ("cards", "equity", "evaluator", "state")}
    expected |= {f"pokerai.solvers.{name}" for name in ("best_response", "cfr", "minimax")}
    assert expected <= with_examples


def _has_examples(module: ModuleType) -> bool:
    return any(test.examples for test in doctest.DocTestFinder().find(module))


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)  # not the package attribute: solvers.best_response is a function
    results = doctest.testmod(module, optionflags=doctest.ELLIPSIS, report=True)
    assert results.failed == 0, f"{results.failed} of {results.attempted} examples in {name} failed (above)"
