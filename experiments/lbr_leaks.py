"""Where LBR wins against a target: by the street a hand ends on and how it ends.

Question: LBR in Lisý & Bowling's configuration still wins about 1,400–2,200 mbb/hand against
the street pipeline (docs/RESULTS.md, "Search" > "Hold'em: search at every postflop
street"). Which of its lines win: bets the target folds to, or showdowns the target reaches with worse hands?

Plays the same hands as ``benchmarks/compare_lbr.py`` (hand ``i`` dealt from
``default_rng([seed, i])``, LBR raising pot or all-in on the flop, turn and river) and splits
LBR's winnings by the hand's last street and its end: the target folds, LBR folds, or a
showdown. It also counts, per street, how often the target folds when LBR bets the pot or goes
all-in (break-even for a pure bluff: 50% against the pot).

    OMP_NUM_THREADS=1 python experiments/lbr_leaks.py --hands 300 --seed 5151 \\
        search:checkpoints/hunl_blueprint
"""

from __future__ import annotations

import sys
from collections import defaultdict
from pathlib import Path

from pokerai.agents.base import Agent
from pokerai.agents.spec import make_agent
from pokerai.engine.history import STREET_NAMES as STREETS
from pokerai.engine.state import ActionKind, HUNLConfig, HUNLState, Street
from pokerai.eval.lbr import LBRConfig, LocalBestResponse, play_lbr_hand

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from common import parse_single_threaded, script_parser


def main() -> None:
    parser = script_parser(__doc__, hands=300, seed=5151)
    parser.add_argument("target", metavar="SPEC")
    args = parse_single_threaded(parser)
    target: Agent = make_agent(args.target)
    config = LBRConfig(raise_streets=(Street.FLOP, Street.TURN, Street.RIVER))
    exploiter = LocalBestResponse(target, config)
    game = HUNLConfig()
    won: dict[tuple[str, str], list[int]] = defaultdict(list)
    # per street and LBR bet kind: [times the target faced it, times it folded]
    faced: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    for hand in range(args.hands):
        state, me, _ = play_lbr_hand(target, exploiter, game, args.seed, hand)
        replay = HUNLState.new(game, state.button, deck=state.deal)
        last = STREETS[0]
        for index, action in enumerate(state.history):
            last = STREETS[replay.street]
            if action.player == me and action.kind is ActionKind.RAISE and replay.street > Street.PREFLOP:
                kind = "all-in" if action.amount >= replay.bets[me] + replay.stacks[me] else "pot"
                answer = state.history[index + 1] if index + 1 < len(state.history) else None
                tally = faced[STREETS[replay.street], kind]
                tally[0] += 1
                tally[1] += answer is not None and answer.kind is ActionKind.FOLD
            replay.apply(action)
        ends = {None: "showdown", me: "LBR folds", 1 - me: "target folds"}
        end = ends[state.folded]
        won[last, end].append(state.returns()[me])
    scale = 1000.0 / game.big_blind / args.hands
    print(f"{args.target}: {args.hands} hands, seed {args.seed}")
    total = sum(sum(values) for values in won.values())
    print(f"LBR wins {total * scale:+,.0f} mbb/hand")
    print("| last street | end | hands | LBR's share, mbb/hand |")
    print("|---|---|---:|---:|")
    for street in STREETS:
        for end in ("target folds", "LBR folds", "showdown"):
            values = won.get((street, end))
            if values:
                print(f"| {street} | {end} | {len(values)} | {sum(values) * scale:+,.0f} |")
    print("\n| street | LBR bets | faced | target folds |")
    print("|---|---|---:|---:|")
    for (street, kind), (count, folds) in sorted(faced.items(), key=lambda item: STREETS.index(item[0][0])):
        print(f"| {street} | {kind} | {count} | {folds / count:.0%} |")


if __name__ == "__main__":
    main()
