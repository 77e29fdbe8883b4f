"""How much of its range a search configuration folds to local best response's first flop or turn bet.

Question: the default bot folds 55–60% of its dealt hands to LBR's first pot or all-in bet of the
flop (``experiments/lbr_leaks.py``). Is that more than a bluff needs, and which setting of the
solve moves it: its iterations, buckets, leaves, raises, or the model of the opponent's range?

Counting dealt hands needs hundreds of hands per configuration for ±5%. This script reads the
answer off the solve instead: at each spot, the share of the bot's whole range at the node (its
range at the street's start times the strategies it played on the street) that the configuration
folds. The spots are those of an ``lbr_leaks.py`` file where LBR's first bet of the street
(``--street``) was a pot-size one (all-ins, which need far less defence, are left out); each hand
is replayed with ``play_lbr_hand`` against the default bot to reach its public state, and every
configuration is asked at that same public state (its own solves giving its own range on the way).

    OMP_NUM_THREADS=1 python experiments/bet_defence.py --leaks L.jsonl --spots 40 "" \
        "flop.iterations=3000" "flop.buckets=none" "flop.turn_cards=8" "flop.max_raises=2" \
        "flop.bias=1" "floor=0.5"

Prints, per configuration, the mean over spots of the range share folded, its 95% interval, the
mean paired difference from the first configuration, and the mean excess over the share a pure
bluff of that size needs to break even (the bettor's chips at risk over those at risk plus the pot
before the bet: 50% for a pot bet, 67% for a pot raise of a pot bet). Above 0, a bluff with no
equity wins.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import numpy as np

from pokerai.abstraction.bets import slot_actions
from pokerai.agents.search import SearchAgent
from pokerai.agents.spec import make_agent
from pokerai.engine.state import ActionKind, HUNLConfig, HUNLState
from pokerai.eval.duplicate import mean_ci95
from pokerai.eval.lbr import LBR_MENUS, LocalBestResponse, play_lbr_hand
from pokerai.search.beliefs import history_prefix
from pokerai.search.tree import action_label

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import parse_single_threaded, script_parser
from lbr_leaks import hand_record

BASE = "search:checkpoints/hunl_blueprint"


def spot_index(moves: list[str], street_name: str = "flop") -> int | None:
    """The history index of the target's answer to LBR's first bet of the street, if that bet was pot-size."""
    for index, move in enumerate(moves):
        street, who, kind = move.split(":")
        if street == street_name and who == "L" and kind in ("pot", "all-in"):
            return index + 1 if kind == "pot" and index + 1 < len(moves) else None
    return None


def break_even(state: HUNLState) -> float:
    """The fold share at which a bluff of the last action breaks even: the chips it risks over those
    plus the pot before it."""
    last = state.history[-1]
    before = history_prefix(state, len(state.history) - 1)
    risked = last.amount - before.bets[last.player]
    return risked / (risked + before.pot)


def folded_share(agent: SearchAgent, state: HUNLState) -> float:
    """The share of the agent's range at ``state`` that its policy folds."""
    own, played = agent.own_range(state)
    for index, rows in played.items():
        label = action_label(history_prefix(state, index), state.history[index], agent.blueprint.game.bets)
        assert isinstance(label, int)  # the agent's own actions are on its menu
        own = own * rows[:, label]
    _, actions = slot_actions(state, agent.blueprint.game.bets)
    fold = next(slot for slot, action in enumerate(actions) if action and action.kind is ActionKind.FOLD)
    return float(own @ agent.policy(state)[:, fold] / own.sum())


def spots(leaks: Path, count: int, street: str = "flop") -> list[HUNLState]:
    """The public states of the first ``count`` hands in ``leaks`` where the target answers LBR's first
    flop bet, a pot-size one."""
    records = [json.loads(line) for line in leaks.read_text().splitlines()]
    target = make_agent(records[0]["target"])
    target.drop_time_budgets()
    exploiter = LocalBestResponse(target, LBR_MENUS["lisy-bowling"])
    found = []
    for record in records:
        index = spot_index(record["moves"], street)
        if index is None:
            continue
        state, me, _ = play_lbr_hand(target, exploiter, HUNLConfig(), record["seed"], record["hand"])
        if hand_record(state, me) != record["moves"]:
            raise SystemExit(f"hand {record['hand']} did not replay as recorded")
        found.append(history_prefix(state, index))
        if len(found) == count:
            break
    return found


def main() -> None:
    parser = script_parser(__doc__)
    parser.add_argument("--leaks", required=True, type=Path, help="a file that lbr_leaks.py wrote")
    parser.add_argument("--spots", type=int, default=40)
    parser.add_argument("--street", choices=("flop", "turn"), default="flop", help="whose first bet")
    parser.add_argument("options", nargs="*", metavar="OPTIONS", help='search options, "" for the default')
    args = parse_single_threaded(parser)
    states = spots(args.leaks, args.spots, args.street)
    evens = np.array([break_even(state) for state in states])
    even = mean_ci95(evens)
    print(f"{len(states)} spots; a bluff breaks even at {even.mean:.1%} folds\n")
    print(
        "| options | range folded | 95% interval | minus the first | 95% interval | "
        "over break-even | s/spot |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|")
    first = None
    for options in args.options or [""]:
        agent = make_agent(BASE + (f"?{options}" if options else ""))
        assert isinstance(agent, SearchAgent)
        agent.drop_time_budgets()
        started = time.perf_counter()
        shares = np.array([folded_share(agent, state) for state in states])
        seconds = (time.perf_counter() - started) / len(states)
        estimate = mean_ci95(shares)
        first = shares if first is None else first
        diff = mean_ci95(shares - first)
        over = mean_ci95(shares - evens)
        print(
            f"| {options or 'default'} | {estimate.mean:.1%} | {estimate.low:.1%} to {estimate.high:.1%} | "
            f"{diff.mean:+.1%} | {diff.low:+.1%} to {diff.high:+.1%} | "
            f"{over.mean:+.1%} ({over.low:+.1%} to {over.high:+.1%}) | {seconds:.1f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
