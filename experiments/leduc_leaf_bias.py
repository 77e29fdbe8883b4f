"""Leduc, exact: how the leaves' continuation bias changes the exploitability of the search policy.

Question: on hold'em the default bot folds too often to local best response's pot-size bets, and a
smaller bias of the opponent's continuation strategies at the leaves (``flop.bias``, ``turn.bias``;
1 makes every continuation the blueprint's) makes it fold far less. Is a smaller bias still safe
where exploitability can be computed exactly?

For each blueprint (CFR+ after 10, 30 and 1,000 iterations) and each bias, the policy the Leduc
search agent plays at hold'em's settings (the subgame rooted at the round's start, depth-limited
leaves, the opponent's earlier actions floored at 0.05, 100 CFR+ iterations that fully replace the
blueprint), unsafe as the hold'em default and with the safe gadget, scored by exact exploitability.

    python experiments/leduc_leaf_bias.py
"""

from __future__ import annotations

from pokerai.games.leduc import LeducPoker
from pokerai.search.leduc import LeducSearch, LeducSearchConfig
from pokerai.solvers.best_response import exploitability
from pokerai.solvers.cfr import CFRSolver

BIASES = (1.0, 1.5, 2.0, 3.0, 5.0)


def main() -> None:
    print("| blueprint (exploitability) | gadget | " + " | ".join(f"bias {bias:g}" for bias in BIASES) + " |")
    print("|---|---|" + "---:|" * len(BIASES))
    for iterations in (10, 30, 1000):
        solver = CFRSolver(LeducPoker(), "cfr+")
        solver.run(iterations)
        blueprint = solver.average_policy()
        for safe in (False, True):
            cells = []
            for bias in BIASES:
                config = LeducSearchConfig(
                    iterations=100, full_iterations=100, bias=bias, safe=safe, root="round", floor=0.05
                )
                cells.append(f"{float(exploitability(LeducSearch(blueprint, config).policy())):.4f}")
            label = f"CFR+ {iterations} ({float(exploitability(blueprint)):.4f})"
            print(f"| {label} | {'safe' if safe else 'unsafe'} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
