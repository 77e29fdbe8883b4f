"""Perfect-information search node counts: minimax against alpha-beta, with and without move ordering.

Tic-tac-toe from the empty board (every search finds the value 0, a draw), then the sample of
``tests/solvers/test_minimax.py::test_alphabeta_equals_minimax_on_random_positions_with_fewer_nodes``
(60 random tic-tac-toe positions and 60 random trees, seed 7). "nodes" counts the states each
search visited, the root included. Run from the repository root (it imports the test's sample):

    python benchmarks/bench_minimax.py

Prints two Markdown tables: value, move, nodes and seconds of each search from the empty board,
and each search's total nodes over the sample.
"""

from __future__ import annotations

import functools
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from pokerai.solvers.minimax import (
    ExplicitTreeState,
    SearchResult,
    TicTacToeState,
    alphabeta,
    evaluation_order,
    minimax,
    tictactoe_order,
)

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.solvers.test_minimax import random_tictactoe_positions, random_tree


def main() -> None:
    empty = TicTacToeState()
    searches: list[tuple[str, Callable[[], SearchResult]]] = [
        ("minimax", lambda: minimax(empty)),
        ("minimax + transposition table", lambda: minimax(empty, table={})),
        ("alpha-beta", lambda: alphabeta(empty)),
        ("alpha-beta + move ordering", lambda: alphabeta(empty, order=tictactoe_order)),
    ]
    print("| search | value | move | nodes | seconds |\n|---|---|---|---|---|")
    for name, run in searches:
        started = time.perf_counter()
        result = run()
        seconds = time.perf_counter() - started
        print(f"| {name} | {result.value:g} | {result.move} | {result.nodes:,} | {seconds:.2f} |")

    rng = np.random.default_rng(7)
    samples: dict[str, list[Any]] = {"tic-tac-toe": random_tictactoe_positions(rng, 60)}
    samples["random trees"] = [
        ExplicitTreeState(random_tree(rng, int(rng.integers(2, 6)))) for _ in range(60)
    ]
    print("\n| sample | positions | minimax nodes | alpha-beta nodes | alpha-beta + ordering nodes |")
    print("|---|---|---|---|---|")
    for name, states in samples.items():
        order = tictactoe_order if name == "tic-tac-toe" else evaluation_order(lambda s: minimax(s).value)
        counts = [
            sum(search(state).nodes for state in states)
            for search in (minimax, alphabeta, functools.partial(alphabeta, order=order))
        ]
        print(f"| {name} | {len(states)} | " + " | ".join(f"{count:,}" for count in counts) + " |")


if __name__ == "__main__":
    main()
