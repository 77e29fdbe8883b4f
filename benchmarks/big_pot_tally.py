"""Where an agent's big hands are won and lost: a tally of ACPC hand histories from ``pokerai eval --log``.

Each hand the agent won or lost by at least ``--min-bb`` big blinds is put in
one group by its last raise: who made it (the agent or its opponent), on which
street, whether it was an all-in, and whether the hand then ended in a fold or a
showdown. For each group the table gives the hands and their sum in mbb per hand
of the whole log, for the agent named ``--agent``, so the groups plus the
smaller pots add up to the agent's result in the match.

    pokerai eval --a "blueprint:checkpoints/hunl_tiny?threshold=0.3" --b heuristic --pairs 1000 \\
        --seed 1 --workers 2 --log bp.log
    python benchmarks/big_pot_tally.py bp.log --agent blueprint

Heads-up ACPC betting: seat 1 (the button) acts first preflop, seat 0 first on
later streets; ``r`` amounts are raise-to totals for the hand.
"""

from __future__ import annotations

import argparse
import collections
import re

STREETS = ("preflop", "flop", "turn", "river")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("log", help="hand histories written by pokerai eval --log")
    parser.add_argument("--agent", default="blueprint", help="the player name the table is for")
    parser.add_argument("--min-bb", type=float, default=50.0, help="big hands: won or lost by at least this")
    parser.add_argument("--big-blind", type=int, default=100)
    parser.add_argument("--stack", type=int, default=20_000, help="raise-to amount of an all-in")
    args = parser.parse_args()
    groups: dict[tuple[str, str, str, str], list[float]] = collections.defaultdict(lambda: [0, 0.0])
    hands = 0
    total = 0.0
    small = 0.0
    with open(args.log, encoding="utf-8") as lines:
        for line in lines:
            fields = line.strip().split(":")
            if len(fields) != 6 or fields[0] != "STATE":
                raise SystemExit(f"{args.log}: not an ACPC STATE line: {line.strip()!r}")
            _, _, betting, _, results, names = fields
            players = names.split("|")
            if args.agent not in players:
                raise SystemExit(f"{args.log}: {args.agent!r} does not play in {line.strip()!r}")
            seat = players.index(args.agent)
            result = float(results.split("|")[seat])
            hands += 1
            total += result
            if abs(result) < args.min_bb * args.big_blind:
                small += result
                continue
            last: tuple[int, int, int] | None = None
            for street, actions in enumerate(betting.split("/")):
                actor = 1 if street == 0 else 0
                for token in re.findall(r"[fc]|r\d+", actions):
                    if token.startswith("r"):
                        last = (actor, street, int(token[1:]))
                    actor = 1 - actor
            if last is None:
                key = ("nobody", "-", "-", "showdown")
            else:
                key = (
                    "agent" if last[0] == seat else "opponent",
                    STREETS[last[1]],
                    "all-in" if last[2] == args.stack else "bet",
                    "fold" if betting.endswith("f") else "showdown",
                )
            groups[key][0] += 1
            groups[key][1] += result
    if not hands:
        raise SystemExit(f"{args.log}: no hands")
    scale = 1000.0 / args.big_blind / hands  # chips summed over the log -> mbb per hand
    print(f"{hands} hands, {args.agent} {total * scale:+,.0f} mbb/hand in all")
    print(f"hands won or lost by under {args.min_bb:g} bb: {small * scale:+,.0f}")
    print()
    print("| last raise by | street | size | end | hands | mbb/hand of the log |")
    print("|---|---|---|---|---:|---:|")
    for key, (count, chips) in sorted(groups.items(), key=lambda item: item[1][1]):
        print(f"| {' | '.join(key)} | {count:,.0f} | {chips * scale:+,.0f} |")


if __name__ == "__main__":
    main()
