"""Where two agents' results part on the same deals against the same opponent.

Reads two hand logs of ``pokerai eval --log`` (ACPC ``STATE`` lines) that played the same
deals against the same opponent (same ``--b``, ``--pairs`` and ``--seed``), and splits the
difference of the agents' results by the point where the two hands first differ: the street,
and the two agents' actions there. An opponent that plays by chance can make the hands part
at one of its own decisions; those are counted under the opponent.

    OMP_NUM_THREADS=1 pokerai eval --a "$B" --b minraise --pairs 300 --seed 20261214 --log runs/b.log
    OMP_NUM_THREADS=1 pokerai eval --a "$P" --b minraise --pairs 300 --seed 20261214 --log runs/p.log
    python experiments/divergence.py runs/b.log runs/p.log --opponent minraise
"""

from __future__ import annotations

import argparse
import re
from collections import defaultdict
from dataclasses import dataclass

STREETS = ("preflop", "flop", "turn", "river")
_ACTION = re.compile(r"[fc]|r\d+")


@dataclass(frozen=True)
class Hand:
    betting: str
    seat: int
    """The position of the agent (not the opponent) in the ACPC line."""
    result: int


def read_log(path: str, opponent: str) -> list[Hand]:
    hands = []
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            fields = line.strip().split(":")
            if len(fields) < 6 or fields[0] != "STATE":
                continue
            names = fields[5].split("|")
            outcome = [int(float(value)) for value in fields[4].split("|")]
            seats = [seat for seat, name in enumerate(names) if name != opponent]
            if len(seats) != 1:
                raise ValueError(f"{path}: cannot tell the agent from {opponent!r} in {fields[5]!r}")
            hands.append(Hand(fields[2], seats[0], outcome[seats[0]]))
    return hands


def actions(betting: str) -> list[tuple[int, int, str]]:
    """(street, index within the street, action) for each action of an ACPC betting string."""
    result = []
    for street, part in enumerate(betting.split("/")):
        for index, match in enumerate(_ACTION.findall(part)):
            result.append((street, index, match))
    return result


def actor(street: int, index: int, seat_of_button: int = 1) -> int:
    """The ACPC position acting ``index``-th on ``street`` heads-up: the button (position 1) first
    preflop, position 0 first after it."""
    first = seat_of_button if street == 0 else 1 - seat_of_button
    return first if index % 2 == 0 else 1 - first


def kind(action: str) -> str:
    return {"f": "fold", "c": "call/check"}.get(action, "raise")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("first", help="log of the reference agent")
    parser.add_argument("second", help="log of the other agent, same deals")
    parser.add_argument("--opponent", required=True, help="the opponent's name in the logs")
    parser.add_argument("--big-blind", type=int, default=100)
    args = parser.parse_args()
    first, second = read_log(args.first, args.opponent), read_log(args.second, args.opponent)
    if len(first) != len(second):
        raise SystemExit(f"the logs hold {len(first)} and {len(second)} hands")
    by_street: dict[str, list[float]] = defaultdict(list)
    by_actions: dict[tuple[str, str, str, str], list[float]] = defaultdict(list)
    same = 0
    for one, two in zip(first, second, strict=True):
        if one.seat != two.seat:
            raise SystemExit("the logs do not seat the agents alike: not the same deals")
        difference = (two.result - one.result) / args.big_blind * 1000
        a, b = actions(one.betting), actions(two.betting)
        split = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), None)
        if split is None:
            same += 1
            continue
        street, index, _ = a[split]
        who = "agent" if actor(street, index) == one.seat else "opponent"
        by_street[f"{STREETS[street]}, {who}"].append(difference)
        by_actions[(STREETS[street], who, kind(a[split][2]), kind(b[split][2]))].append(difference)
    hands = len(first)
    print(f"{hands} hands; {same} played alike. Second minus first, mbb per hand of the whole match:")
    print("| first differs on | hands | second minus first, mbb/hand (share of the match) |")
    print("|---|---:|---:|")
    for name, values in sorted(by_street.items()):
        print(f"| {name} | {len(values)} | {sum(values) / hands:+,.0f} |")
    print()
    print("| street | who | first's action | second's action | hands | mbb/hand of the match |")
    print("|---|---|---|---|---:|---:|")
    for key, values in sorted(by_actions.items(), key=lambda item: sum(item[1])):
        print(f"| {' | '.join(key)} | {len(values)} | {sum(values) / hands:+,.0f} |")


if __name__ == "__main__":
    main()
