"""How often search configurations fold to local best response's flop and turn bets, on the same deals.

Question: LBR in Lisý & Bowling's menu wins most against the default bot with pot-size bets on
the flop and turn that the bot folds to (``experiments/lbr_leaks.py``: 55% against flop pot bets,
59% against turn ones; a pure bluff of the pot breaks even at 50%). The bot's range for the
opponent at a street's start comes from the blueprint's model of the opponent's earlier actions,
each floored at ``floor``; LBR calls preflop with far more hands than the blueprint would. Does a
wider model of the opponent (a higher ``floor``), or another search setting, fold less?

Plays the hands of ``pokerai eval --lbr --lbr-menu lisy-bowling`` (``play_lbr_hand``, without AIVAT)
for each configuration and counts the target's answers to LBR's first pot or all-in bet of the
flop or turn. Each
configuration is a search spec's options added to the default bot's (``&``-joined).

    OMP_NUM_THREADS=1 python experiments/flop_fold_rates.py --hands 300 --seed 8282 \\
        "" "floor=0.25" "floor=0.5"

Prints, per configuration and street, the bets answered and the shares folded, called and raised.
A share moves by about 1.96·sqrt(p(1 − p)/n): ±6% at n = 250 bets.
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from collections.abc import Callable, Iterable
from functools import partial
from pathlib import Path

from pokerai.agents.spec import make_agent
from pokerai.engine.history import STREET_NAMES as STREETS
from pokerai.engine.state import HUNLConfig
from pokerai.eval.lbr import LBR_MENUS, LocalBestResponse, play_lbr_hand

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import parse_single_threaded, script_parser
from lbr_leaks import hand_record

BASE = "search:checkpoints/hunl_blueprint"


def tally_first_answers(hands_moves: Iterable[list[str]]) -> dict[int, list[int]]:
    """Per street, [bets answered, folds, calls, raises]: the target's answer to LBR's first pot or all-in
    bet of the flop or turn in each hand (moves as :func:`lbr_leaks.hand_record` writes them)."""
    tally: dict[int, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    for hand in hands_moves:
        moves = [move.split(":") for move in hand]
        for index, (street, who, kind) in enumerate(moves):
            if (
                who == "L"
                and kind in ("pot", "all-in")
                and street in ("flop", "turn")
                and index + 1 < len(moves)
            ):
                counts = tally[STREETS.index(street)]
                counts[0] += 1
                counts[{"fold": 1, "call": 2}.get(moves[index + 1][2], 3)] += 1
                break
    return tally


def first_answer(spec: str, hands: int, seed: int) -> dict[int, list[int]]:
    """The tally over ``hands`` LBR hands against ``spec`` (those of ``pokerai eval --lbr``)."""
    target = make_agent(spec)
    target.drop_time_budgets()
    exploiter = LocalBestResponse(target, LBR_MENUS["lisy-bowling"])
    played = (play_lbr_hand(target, exploiter, HUNLConfig(), seed, hand)[:2] for hand in range(hands))
    return tally_first_answers(hand_record(state, me) for state, me in played)


def from_leaks(path: Path, hands: int) -> dict[int, list[int]]:
    """The same tally from the first ``hands`` hands that ``experiments/lbr_leaks.py`` wrote to ``path``."""
    lines = path.read_text().splitlines()[:hands]
    return tally_first_answers(json.loads(line)["moves"] for line in lines)


def main() -> None:
    parser = script_parser(__doc__, hands=300, seed=8282)
    parser.add_argument("options", nargs="*", metavar="OPTIONS", help='search options, "" for the default')
    parser.add_argument(
        "--leaks", metavar="FILE", help="also the default bot's row, from lbr_leaks.py's hands"
    )
    args = parse_single_threaded(parser)
    print(f"{args.hands} LBR deals, seed {args.seed}\n")
    print("| options | street | bets | folds | calls | raises |")
    print("|---|---|---:|---:|---:|---:|")
    runs: list[tuple[str, Callable[[], dict[int, list[int]]]]] = []
    if args.leaks:
        runs.append(("default (lbr_leaks.py)", lambda: from_leaks(Path(args.leaks), args.hands)))
    for options in args.options:
        spec = BASE + (f"?{options}" if options else "")
        runs.append((options or "default", partial(first_answer, spec, args.hands, args.seed)))
    for label, run in runs:
        for street, (count, folds, calls, raises) in sorted(run().items()):
            print(
                f"| {label} | {STREETS[street]} | {count} | {folds / count:.0%} | "
                f"{calls / count:.0%} | {raises / count:.0%} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
