"""How often the street pipeline folds to a pot-size flop lead, against the blueprint it starts from.

Question: does re-solving the flop from its start fold less to a pot-size bet than the blueprint
(which folds 73–81% there under LBR), and what do the gadget, the leaves and the opponent's floor
change?
Answer: docs/RESULTS.md, "Search" > "Hold'em: the street pipeline at every street".

For each seed a hand is dealt with the agent on the button; it opens with the blueprint's most
likely raise, the big blind calls and leads the flop for the pot. The table gives, over the
agent's own range there (what it played preflop), the share of folds of the blueprint and of
each solve variant (100 CFR+ iterations unless named).

    OMP_NUM_THREADS=1 python experiments/street_fold_spots.py --seeds 0 1 2 3
"""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np
import torch

from pokerai.abstraction.bets import FOLD_SLOT, slot_actions
from pokerai.agents.spec import make_agent
from pokerai.agents.street import StreetSearchAgent
from pokerai.engine.state import HUNLState
from pokerai.search.street import LeafSettings, opponent_range, solve_street

LEAVES = LeafSettings(cards=3, groups_per_doubling=0.5)
VARIANTS: dict[str, dict[str, Any]] = {
    "safe": {"safe": True, "leaf": LEAVES},
    "safe, floor 0.3": {"safe": True, "leaf": LEAVES, "floor": 0.3},
    "unsafe": {"safe": False, "leaf": LEAVES},
    "safe, no uniform reach": {"safe": True, "leaf": LEAVES, "uniform_weight": 0.0},
    "safe, blueprint leaves": {"safe": True, "leaf": LeafSettings(("blueprint",), 3, 1, 5.0, 0.5)},
    "safe, 400 iterations": {"safe": True, "leaf": LEAVES, "iterations": 400},
    "unsafe, check-down leaves": {"safe": False, "leaf": LeafSettings(("blueprint",), 3, 0, 5.0, 0.5)},
    "unsafe, 400 iterations": {"safe": False, "leaf": LEAVES, "iterations": 400},
}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--blueprint", default="checkpoints/hunl_tiny")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3])
    parser.add_argument("--variants", nargs="+", choices=list(VARIANTS), default=list(VARIANTS))
    args = parser.parse_args()
    torch.set_num_threads(1)
    agent = make_agent(f"search:{args.blueprint}?threshold=0.3&pipeline=street&flop.iterations=100")
    assert isinstance(agent, StreetSearchAgent)
    blueprint = agent.blueprint
    variants = {name: VARIANTS[name] for name in args.variants}
    print("| seed | board | blueprint | " + " | ".join(variants) + " |")
    print("|---|---|---:|" + "---:|" * len(variants))
    for seed in args.seeds:
        state = HUNLState.new(blueprint.game.config, 0, rng=np.random.default_rng(seed))
        mask, actions = slot_actions(state, blueprint.game.bets)
        opens = (agent.policy(state) * mask).sum(axis=0)
        opening = actions[2 + int(np.argmax(opens[2:]))]  # the most likely raise
        assert opening is not None, "the button may always raise first in"
        state.apply(opening)
        state.call()
        state.raise_to(state.pot)
        own, played = agent.own_range(state)
        weights = own / own.sum()
        row = [f"{(weights * agent.blueprint_rows(state)[:, FOLD_SLOT]).sum():.2f}"]
        for settings in variants.values():
            options = dict(settings)
            floor = options.pop("floor", 0.05)
            iterations = options.pop("iterations", 100)
            opponent = opponent_range(blueprint, state, 1, floor=floor)
            solution = solve_street(
                blueprint, state, own, opponent, played, iterations=iterations, max_raises=1,
                threshold=0.3, buckets=200, **options,
            )  # fmt: skip
            row.append(f"{(weights * solution.strategy[:, FOLD_SLOT]).sum():.2f}")
        print(f"| {seed} | {state.board} | " + " | ".join(row) + " |", flush=True)


if __name__ == "__main__":
    main()
