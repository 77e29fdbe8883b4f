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
from collections import defaultdict
from dataclasses import dataclass

from pokerai.engine.history import parse_acpc
from pokerai.engine.state import Action, ActionKind

STREETS = ("preflop", "flop", "turn", "river")


@dataclass(frozen=True)
class Hand:
    actions: tuple[tuple[int, Action], ...]
    """(street, action) for every action of the hand."""
    agent: int
    """The player index of the agent (not the opponent)."""
    result: int


def read_log(path: str, opponent: str) -> list[Hand]:
    """The hands of a ``pokerai eval --log`` file, replayed through the engine (default blinds and stacks)."""
    hands = []
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            if not line.startswith("STATE:"):
                continue
            parsed = parse_acpc(line)
            if parsed.names is None or parsed.results is None:
                raise ValueError(f"{path}: a hand without names or results: {line.strip()!r}")
            agents = [player for player, name in enumerate(parsed.names) if name != opponent]
            if len(agents) != 1:
                raise ValueError(f"{path}: cannot tell the agent from {opponent!r} in {parsed.names}")
            state = parsed.state
            streets = [
                sum(index >= start for start in state.street_starts[1:])
                for index in range(len(state.history))
            ]
            actions = tuple(zip(streets, state.history, strict=True))
            hands.append(Hand(actions, agents[0], parsed.results[agents[0]]))
    return hands


def kind(action: Action) -> str:
    return {ActionKind.FOLD: "fold", ActionKind.RAISE: "raise"}.get(action.kind, "call/check")


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
        if one.agent != two.agent:
            raise SystemExit("the logs do not seat the agents alike: not the same deals")
        difference = (two.result - one.result) / args.big_blind * 1000
        split = next(
            (i for i, (x, y) in enumerate(zip(one.actions, two.actions, strict=False)) if x != y), None
        )
        if split is None:
            same += 1
            continue
        (street, action), (_, other) = one.actions[split], two.actions[split]
        who = "agent" if action.player == one.agent else "opponent"
        by_street[f"{STREETS[street]}, {who}"].append(difference)
        by_actions[(STREETS[street], who, kind(action), kind(other))].append(difference)
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
