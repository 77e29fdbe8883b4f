"""Where LBR wins against a target: by street, by LBR's action, by the target's answer.

Question: local best response in Lisý & Bowling's menu (fold or call preflop; fold, call, pot or
all-in after) wins against the default bot. Which of its lines win: bets the target folds to too
often, calls it makes too often, or showdowns the target reaches with worse hands?

Plays the hands of ``pokerai eval --lbr --lbr-menu lisy-bowling`` (hand ``i`` dealt from
``default_rng([seed, i])``, so the same seed gives the same deals as that command) and writes one
JSON line per hand to ``--out``: LBR's seat, its winnings in chips, the AIVAT estimate of them, and
the hand's actions as ``street:who:kind`` (``who`` is ``L`` for LBR, ``T`` for the target). A run
that stops is resumed by running it again (hands already in the file are skipped), and a longer
run extends it. ``--table`` prints the breakdown of a file without playing.

Each hand is credited to its last exchange: the street it ended on, LBR's last action there
(pot, all-in, call, check, fold) and what followed (the target folds, calls, raises; a showdown).
The shares sum to LBR's mean winnings; the AIVAT shares to its AIVAT estimate.

    OMP_NUM_THREADS=1 python experiments/lbr_leaks.py --hands 1500 --seed 8181 \\
        --out runs/lbr_leaks.jsonl "search:checkpoints/hunl_blueprint"
    python experiments/lbr_leaks.py --table runs/lbr_leaks.jsonl
    python experiments/lbr_leaks.py --paired runs/lbr_leaks.jsonl runs/lbr_leaks_other.jsonl

``--paired`` compares two runs of the same seed (two targets on the same deals) hand by hand.
"""

from __future__ import annotations

import json
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from pokerai.agents.spec import make_agent
from pokerai.engine.history import STREET_NAMES as STREETS
from pokerai.engine.state import ActionKind, HUNLConfig, HUNLState
from pokerai.eval.aivat import AIVATConfig, hand_aivat
from pokerai.eval.duplicate import AIVAT_STREAM, check_conservation, mean_ci95
from pokerai.eval.lbr import LBR_MENUS, LocalBestResponse, play_lbr_hand

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from common import parse_single_threaded, script_parser


def hand_record(state: HUNLState, me: int) -> list[str]:
    """The hand's actions as ``street:who:kind``; a raise is ``pot`` or ``all-in`` (LBR) or ``raise``."""
    replay = HUNLState.new(state.config, state.button, deck=state.deal)
    moves = []
    for action in state.history:
        who = "L" if action.player == me else "T"
        kind = action.kind.name.lower()
        if action.kind is ActionKind.RAISE:
            allin = action.amount >= replay.bets[action.player] + replay.stacks[action.player]
            kind = "all-in" if allin else ("pot" if who == "L" else "raise")
        elif action.kind is ActionKind.CALL and replay.call_amount == 0:
            kind = "check"
        moves.append(f"{STREETS[replay.street]}:{who}:{kind}")
        replay.apply(action)
    return moves


def last_exchange(moves: list[str], folded_by: str | None) -> tuple[str, str, str]:
    """(street, LBR's last action, what followed) for a hand's moves (:func:`hand_record`)."""
    lbr_moves = [index for index, move in enumerate(moves) if move.split(":")[1] == "L"]
    if not lbr_moves:
        return "preflop", "none", "target folds" if folded_by == "T" else "—"
    index = lbr_moves[-1]
    street, _, kind = moves[index].split(":")
    after = [move.split(":")[2] for move in moves[index + 1 :] if move.split(":")[1] == "T"]
    if folded_by == "L":
        followed = "LBR folds"
    elif folded_by == "T":
        followed = "target folds" if after == ["fold"] else "target " + "/".join(after)
    else:
        followed = "showdown" + (f" (target {'/'.join(after)})" if after else "")
    return street, kind, followed


def table(path: Path) -> None:
    records = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    hands = len(records)
    scale = 1000.0 / HUNLConfig().big_blind
    won = np.array([record["won"] for record in records], dtype=float) * scale
    aivat = np.array([record["aivat"] for record in records], dtype=float) * scale
    plain, corrected = mean_ci95(won), mean_ci95(aivat)
    print(f"{path}: {hands} hands, target {records[0]['target']}, seed {records[0]['seed']}")
    print(
        f"LBR wins {plain.mean:+,.0f} [{plain.low:+,.0f}, {plain.high:+,.0f}] mbb/hand; "
        f"AIVAT {corrected.mean:+,.0f} [{corrected.low:+,.0f}, {corrected.high:+,.0f}]\n"
    )
    shares: dict[tuple[str, str, str], list[int]] = defaultdict(list)
    for row, record in enumerate(records):
        shares[last_exchange(record["moves"], record["folded"])].append(row)
    print("| street | LBR's last action | then | hands | share, mbb/hand | AIVAT share |")
    print("|---|---|---|---:|---:|---:|")
    order = sorted(shares, key=lambda key: (STREETS.index(key[0]), -abs(won[shares[key]].sum())))
    for key in order:
        rows = shares[key]
        print(
            f"| {key[0]} | {key[1]} | {key[2]} | {len(rows)} | {won[rows].sum() / hands:+,.0f} "
            f"| {aivat[rows].sum() / hands:+,.0f} |"
        )
    faced: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0, 0])
    for record in records:
        moves = record["moves"]
        for index, move in enumerate(moves):
            street, who, kind = move.split(":")
            if who == "L" and kind in ("pot", "all-in") and index + 1 < len(moves):
                answer = moves[index + 1].split(":")[2]
                tally = faced[street, kind]
                tally[0] += 1
                tally[1] += answer == "fold"
                tally[2] += answer in ("raise", "all-in")
    print("\n| street | LBR bets | faced | target folds | target raises |")
    print("|---|---|---:|---:|---:|")
    for (street, kind), (count, folds, raises) in sorted(
        faced.items(), key=lambda item: STREETS.index(item[0][0])
    ):
        print(f"| {street} | {kind} | {count} | {folds / count:.0%} | {raises / count:.0%} |")


def play(args: Any) -> None:
    out = Path(args.out)
    done = set()
    if out.exists():
        for line in out.read_text().splitlines():
            if line.strip():
                record = json.loads(line)
                if record["target"] != args.target or record["seed"] != args.seed:
                    raise SystemExit(f"{out} holds hands of another target or seed")
                done.add(record["hand"])
    target = make_agent(args.target)
    target.drop_time_budgets()  # solves stop on iteration counts, as in pokerai eval --lbr
    exploiter = LocalBestResponse(target, LBR_MENUS["lisy-bowling"])
    game, aivat_config = HUNLConfig(), AIVATConfig()
    started = time.perf_counter()
    with out.open("a") as stream:
        for hand in range(args.hands):
            if hand in done:
                continue
            state, me, agents = play_lbr_hand(target, exploiter, game, args.seed, hand)
            won = check_conservation(state)[me]
            aivat = hand_aivat(
                state, me, agents, np.random.default_rng([args.seed, hand, AIVAT_STREAM]), aivat_config
            )
            folded = None if state.folded is None else ("L" if state.folded == me else "T")
            record = {
                "target": args.target, "seed": args.seed, "hand": hand, "lbr_seat": me, "won": int(won),
                "aivat": float(aivat), "folded": folded, "moves": hand_record(state, me),
            }  # fmt: skip
            stream.write(json.dumps(record) + "\n")
            stream.flush()
            if hand % 50 == 49:
                print(f"hand {hand + 1}: {time.perf_counter() - started:.0f} s", flush=True)


def paired(first: Path, second: Path) -> None:
    """LBR's winnings against two targets on the hands both files hold (the same seed): each file's
    AIVAT estimate and their paired difference, with 95% intervals."""
    runs = []
    for path in (first, second):
        records = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        runs.append({record["hand"]: record for record in records})
    if len({record["seed"] for run in runs for record in run.values()}) > 1:
        raise SystemExit("the files hold hands of different seeds: nothing to pair")
    hands = sorted(set(runs[0]) & set(runs[1]))
    scale = 1000.0 / HUNLConfig().big_blind
    values = [np.array([run[hand]["aivat"] for hand in hands]) * scale for run in runs]
    print(f"{len(hands)} hands played against both (AIVAT, mbb/hand, LBR's winnings)")
    for path, value in zip((first, second), values, strict=True):
        estimate = mean_ci95(value)
        print(f"  {runs[0 if path == first else 1][hands[0]]['target']}: {estimate.mean:+,.0f} "
              f"[{estimate.low:+,.0f}, {estimate.high:+,.0f}]")  # fmt: skip
    difference = mean_ci95(values[1] - values[0])
    print(f"  second minus first: {difference.mean:+,.0f} [{difference.low:+,.0f}, {difference.high:+,.0f}]")


def main() -> None:
    parser = script_parser(__doc__, hands=1500, seed=8181)
    parser.add_argument("target", metavar="SPEC", nargs="?")
    parser.add_argument("--out", help="JSON lines file the hands are appended to")
    parser.add_argument("--table", metavar="FILE", help="print the breakdown of a file and stop")
    parser.add_argument(
        "--paired", nargs=2, metavar="FILE", help="compare two files' targets on the same hands"
    )
    args = parse_single_threaded(parser)
    if args.paired:
        paired(Path(args.paired[0]), Path(args.paired[1]))
        return
    if args.table:
        table(Path(args.table))
        return
    if not args.target or not args.out:
        raise SystemExit("give a target SPEC and --out FILE (or --table FILE)")
    play(args)
    table(Path(args.out))


if __name__ == "__main__":
    main()
