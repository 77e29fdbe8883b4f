"""What a button open-shove earns against the blueprint's own big blind: a check of the preflop policy.

Question: how far is the blueprint's preflop from a best response to itself?
Answer: docs/RESULTS.md, "Deep CFR on hold'em" > "What did not make the first blueprint stronger"
(its preflop against itself).

For each named button hand, over every big-blind hand it does not block (1,225),
the blueprint's big blind answers a 200 bb open-shove with its policy: call with
probability ``c(j)``, else fold. The shove then wins, in big blinds,

    EV = mean_j [ (1 − c(j)) · big blind + c(j) · (2·equity(i, j) − 1) · stack ]

with the all-in equity of :func:`pokerai.search.preflop.preflop_equity_matrix`. The
big blind's call frequency is also printed by bands of its hand's equity against a random hand.
Folding the button costs half a big blind. Near an equilibrium no hand gains much
by shoving over what the blueprint does with it; a hand that the blueprint
folds or limps while a shove would win many big blinds shows that its button
and big blind are far from best responses to each other. The table also gives the
button's probability of each action at the first decision.

    OMP_NUM_THREADS=1 python experiments/preflop_shove_ev.py checkpoints/hunl_tiny_v1 KsQd 8s8d Js7s 7c2d

``--threshold T`` thresholds the policy first, as ``blueprint:PATH?threshold=T`` plays it.
"""

from __future__ import annotations

import argparse

import numpy as np
import torch

from pokerai.abstraction.bets import FOLD_SLOT, slot_names
from pokerai.deepcfr.export import Blueprint
from pokerai.engine.cards import parse_cards
from pokerai.engine.equity import hand_class, preflop_equity_table
from pokerai.engine.state import ActionKind, HUNLState
from pokerai.search.beliefs import combo_probabilities
from pokerai.search.combos import ALL_COMBOS, combo_index
from pokerai.search.preflop import preflop_equity_matrix


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("blueprint", help="a blueprint folder (or policy.pt)")
    parser.add_argument("hands", nargs="+", help="button hands, e.g. KsQd")
    parser.add_argument("--threshold", type=float, default=0.0)
    args = parser.parse_args()
    torch.set_num_threads(1)
    blueprint = Blueprint.load(args.blueprint)
    config = blueprint.game.config
    valid, payoff = preflop_equity_matrix()
    everyone = np.arange(len(ALL_COMBOS))
    root = HUNLState.new(config, 0, deck=list(range(9)))
    _, _, button = combo_probabilities(blueprint, root, everyone, args.threshold)
    assert root.max_raise_to is not None
    shove = root.after(ActionKind.RAISE, root.max_raise_to)
    _, _, answers = combo_probabilities(blueprint, shove, everyone, args.threshold)
    call = 1.0 - answers[:, FOLD_SLOT]
    names = slot_names(blueprint.game.bets, 0)
    table = preflop_equity_table()
    depth = config.stacks[0] / config.big_blind
    print(f"blueprint {args.blueprint}, threshold {args.threshold}, stacks {depth:g} bb")
    strength = np.array([table[hand_class((int(a), int(b)))] for a, b in ALL_COMBOS])
    bands = [(0.0, 0.4), (0.4, 0.5), (0.5, 0.6), (0.6, 0.7), (0.7, 1.0)]
    by_band = ", ".join(
        f"{low:.1f}-{high:.1f}: {call[(strength >= low) & (strength < high)].mean():.0%}"
        for low, high in bands
    )
    print(f"big blind calls a shove with {call.mean():.1%} of its hands")
    print(f"  by equity against a random hand: {by_band}\n")
    print(
        "| hand | equity vs random | button's policy at the first decision | BB calls | EV of shoving (bb) |"
    )
    print("|---|---:|---|---:|---:|")
    for text in args.hands:
        first, second = parse_cards(text)
        combo = combo_index(min(first, second), max(first, second))
        mine = valid[combo] > 0
        stake = config.stacks[0]
        values = (1.0 - call[mine]) * config.big_blind + call[mine] * payoff[combo, mine] * stake
        policy = ", ".join(
            f"{names[slot]} {button[combo, slot]:.2f}"
            for slot in range(button.shape[1])
            if button[combo, slot] > 0.005
        )
        print(
            f"| {text} | {table[hand_class((first, second))]:.2f} | {policy} | {call[mine].mean():.2f} "
            f"| {values.mean() / config.big_blind:+.1f} |"
        )


if __name__ == "__main__":
    main()
