"""Search only the decisions that face a bet, and let the blueprint check and bet?

Question: the street pipeline wins less than the blueprint against opponents who call too
much, because its own river bets are smaller (docs/RESULTS.md, "The pipeline's report against
the blueprint's"). Most of what LBR wins against the blueprint comes from its answers to
bets: folds to flop and turn bets, calls of river shoves. Does a policy that searches only
where it faces a bet, and plays the blueprint's checks and bets everywhere else, keep the
search's gains and the blueprint's value bets?
Answer: docs/RESULTS.md, same section.

Where no bet is to be answered the policy is the blueprint's, and the street's later solves
freeze it there as any strategy played (the agent's own-range bookkeeping does this already).

    OMP_NUM_THREADS=1 python experiments/facing_bet_search.py leduc           # exact, 10 seconds
    OMP_NUM_THREADS=1 python experiments/facing_bet_search.py holdem --pairs 1000 --seed 20261210
"""

from __future__ import annotations

import argparse
import dataclasses

import numpy as np
import numpy.typing as npt

from pokerai.agents.spec import make_agent
from pokerai.agents.street import StreetSearchAgent
from pokerai.engine.state import HUNLState
from pokerai.eval.duplicate import duplicate_match
from pokerai.games.leduc import LeducPoker
from pokerai.search.leduc import NUM_CARDS, LeducSearch, LeducSearchConfig, PublicState
from pokerai.search.responses import PathFloors
from pokerai.solvers import CFRSolver, exploitability

BLUEPRINT = "blueprint:checkpoints/hunl_tiny?threshold=0.3&allin=solve"
PIPELINE = (
    "search:checkpoints/hunl_tiny?threshold=0.3&allin=solve&pipeline=street&opponent_threshold=0"
    "&flop.iterations=1000&flop.budget_ms=900&turn.iterations=1000&turn.budget_ms=900"
    "&river.budget_ms=75&river.full_iterations=40"
)
"""``$S`` of docs/RESULTS.md: the street pipeline on the flop, turn and river within a time budget."""


class FacingBetLeducSearch(LeducSearch):
    """Leduc search at the decisions that face a raise; the blueprint at the others."""

    def decide(self, public: PublicState) -> npt.NDArray[np.float64]:
        if public.rounds[-1].endswith("r"):
            return super().decide(public)
        cached = self._decision_cache.get(public)
        if cached is not None:
            return cached[0]
        strategy = np.zeros((NUM_CARDS, 3))
        for card in range(NUM_CARDS):
            if card != public.board:
                strategy[card] = self._row(public.key(card))
        self._decision_cache[public] = (strategy, None)
        return strategy


class FacingBetAgent(StreetSearchAgent):
    """The street pipeline at the decisions that face a bet; the blueprint at the others."""

    def _solve(self, state: HUNLState, path_floors: PathFloors | None) -> npt.NDArray[np.float64]:
        if state.call_amount == 0:
            return self.blueprint_rows(state)
        return super()._solve(state, path_floors)


def leduc() -> None:
    """Exact exploitability of both policies on weak and good CFR+ blueprints (chips per game)."""
    print("| CFR+ blueprint | blueprint | gadget | every decision | decisions facing a raise |")
    print("|---|---:|---|---:|---:|")
    for iterations in (10, 30):
        solver = CFRSolver(LeducPoker(), "cfr+")
        solver.run(iterations)
        blueprint = solver.average_policy()
        base = exploitability(blueprint)
        for safe in (False, True):
            config = LeducSearchConfig(
                root="round", floor=0.05, safe=safe, full_iterations=100 if not safe else 200
            )
            every = exploitability(LeducSearch(blueprint, config).policy())
            facing = exploitability(FacingBetLeducSearch(blueprint, config).policy())
            gadget = "safe, blend 1/2" if safe else "unsafe"
            print(f"| {iterations} iterations | {base:.4f} | {gadget} | {every:.4f} | {facing:.4f} |")


def holdem(opponent: str, pairs: int, seed: int, workers: int) -> None:
    """The facing-bet agent (on ``$S``'s settings) against ``opponent`` in duplicate, with AIVAT."""
    built = make_agent(PIPELINE)
    assert isinstance(built, StreetSearchAgent)
    agent = FacingBetAgent(built.blueprint, dataclasses.replace(built.config), threshold=0.3, allin="solve")
    result = duplicate_match(agent, make_agent(opponent), pairs, seed=seed, workers=workers, aivat=None)
    plain = result.estimate
    print(f"facing-bet search against {opponent}, {pairs} pairs, seed {seed}")
    print(f"plain: {plain.mean:+,.0f} [{plain.low:+,.0f}, {plain.high:+,.0f}] mbb/hand")
    if result.aivat is not None:
        low, high = result.aivat.ci95
        print(f"AIVAT: {result.aivat.mbb_per_hand:+,.0f} [{low:+,.0f}, {high:+,.0f}] mbb/hand")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("game", choices=["leduc", "holdem"])
    parser.add_argument("--b", default=BLUEPRINT, help="hold'em: the opponent (default: the blueprint)")
    parser.add_argument("--pairs", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=20261210)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    if args.game == "leduc":
        leduc()
    else:
        holdem(args.b, args.pairs, args.seed, args.workers)


if __name__ == "__main__":
    main()
