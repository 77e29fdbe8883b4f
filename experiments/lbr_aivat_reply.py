"""How much of LBR's variance AIVAT removes when it values the bets LBR answers by LBR's real hand.

Question: LBR's policy is unknown to AIVAT, which averages over the target's hands and scores
LBR's real one. Without a look ahead, a target's bet is valued as if LBR called it; where LBR in
fact folds (a flop shove, a river overbet), the control variate swings by the whole stack, and a
few such hands carry most of the variance (677 hands against the default bot: the top 10 hands
hold half of it). With ``lookahead`` (the default), the bet's child is worth the better answer for
LBR's real hand, fold or call, against the target's range after the bet. Both estimators are
unbiased, so on the same hands their difference has mean 0.

    OMP_NUM_THREADS=1 python experiments/lbr_aivat_reply.py --hands 400 --seed 26120801 \\
        search:checkpoints/hunl_blueprint

Prints each estimator's mean, 95% interval and standard deviation in mbb/hand, and the paired
difference of the two AIVAT estimators.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from pokerai.agents.spec import make_agent
from pokerai.engine.state import HUNLConfig
from pokerai.eval.aivat import AIVATConfig, hand_aivat
from pokerai.eval.duplicate import AIVAT_STREAM, check_conservation, mean_ci95
from pokerai.eval.lbr import LBR_MENUS, LocalBestResponse, play_lbr_hand

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from common import parse_single_threaded, script_parser


def main() -> None:
    parser = script_parser(__doc__, hands=300, seed=7)
    parser.add_argument("target")
    parser.add_argument("--menu", default="lisy-bowling", choices=sorted(LBR_MENUS))
    args = parse_single_threaded(parser)
    target = make_agent(args.target)
    target.drop_time_budgets()
    exploiter = LocalBestResponse(target, LBR_MENUS[args.menu])
    configs = {"no look ahead": AIVATConfig(lookahead=0), "LBR's answer ahead": AIVATConfig()}
    scores: dict[str, list[float]] = {name: [] for name in ["plain", *configs]}
    for hand in range(args.hands):
        state, me, agents = play_lbr_hand(target, exploiter, HUNLConfig(), args.seed, hand)
        scores["plain"].append(float(check_conservation(state)[me]))
        for name, config in configs.items():
            rng = np.random.default_rng([args.seed, hand, AIVAT_STREAM])
            scores[name].append(hand_aivat(state, me, agents, rng, config))
        if (hand + 1) % 25 == 0:
            spreads = {name: round(float(np.std(values)) * 10) for name, values in scores.items()}
            print(f"{hand + 1} hands; sd", spreads, flush=True)
    scale = 1000.0 / HUNLConfig().big_blind
    print(f"\n{args.hands} LBR hands ({args.menu}), seed {args.seed}, target {args.target}\n")
    print("| estimator | mbb/hand | 95% interval | sd, mbb |")
    print("|---|---:|---:|---:|")
    new, old = (scores[name] for name in reversed(configs))
    rows = {**scores, "difference of the two AIVAT": list(np.subtract(new, old))}
    for name, values in rows.items():
        estimate = mean_ci95(values, scale)
        print(
            f"| {name} | {estimate.mean:+,.0f} | {estimate.low:+,.0f} to {estimate.high:+,.0f} | "
            f"{np.std(values, ddof=1) * scale:,.0f} |"
        )


if __name__ == "__main__":
    main()
