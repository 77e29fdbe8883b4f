"""Where an agent's big hands are won and lost: a tally of ACPC hand histories from ``pokerai eval --log``.

Question: where does a blueprint lose its chips against ``heuristic``?
Answer: docs/RESULTS.md, "Deep CFR on hold'em" > "What did not make the first blueprint stronger".

Each hand the agent won or lost by at least ``--min-bb`` big blinds is put in
one group by its last raise: who made it (the agent or its opponent), on which
street, whether it was an all-in, and whether the hand then ended in a fold or a
showdown. For each group the table gives the hands and their sum in mbb per hand
of the whole log, for the agent named ``--agent``, so the groups plus the
smaller pots add up to the agent's result in the match.

    pokerai eval --a "blueprint:checkpoints/hunl_tiny?threshold=0.3" --b heuristic --pairs 1000 \\
        --seed 1 --workers 2 --log bp.log
    python experiments/big_pot_tally.py bp.log --agent blueprint

Each line is rebuilt by :func:`pokerai.engine.history.parse_acpc` (every action
replayed through the state machine), so a malformed line is an error.
"""

from __future__ import annotations

import argparse
import collections

from pokerai.engine.history import parse_acpc
from pokerai.engine.state import ActionKind, HUNLConfig, HUNLState

STREETS = ("preflop", "flop", "turn", "river")


def last_raise(state: HUNLState) -> tuple[int, int, bool] | None:
    """The finished hand's last bet or raise: (player, street, whether it was all-in); None if none."""
    replay = HUNLState.new(state.config, state.button, deck=state.deal)
    last = None
    for action in state.history:
        street = replay.street
        replay.apply(action)
        if action.kind is ActionKind.RAISE:
            last = (action.player, street, replay.stacks[action.player] == 0)
    return last


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("log", help="hand histories written by pokerai eval --log")
    parser.add_argument("--agent", default="blueprint", help="the player name the table is for")
    parser.add_argument("--min-bb", type=float, default=50.0, help="big hands: won or lost by at least this")
    parser.add_argument("--small-blind", type=int, default=50)
    parser.add_argument("--big-blind", type=int, default=100)
    parser.add_argument("--stack", type=int, default=20_000, help="each player's starting stack")
    args = parser.parse_args()
    config = HUNLConfig(args.small_blind, args.big_blind, (args.stack, args.stack))
    groups: dict[tuple[str, str, str, str], list[float]] = collections.defaultdict(lambda: [0, 0.0])
    hands = 0
    total = 0.0
    small = 0.0
    with open(args.log, encoding="utf-8") as lines:
        for line in lines:
            try:
                parsed = parse_acpc(line, config)
            except ValueError as error:
                raise SystemExit(f"{args.log}: {error}") from None
            if parsed.results is None or parsed.names is None:
                raise SystemExit(f"{args.log}: a STATE line without results and names: {line.strip()!r}")
            if args.agent not in parsed.names:
                raise SystemExit(f"{args.log}: {args.agent!r} does not play in {line.strip()!r}")
            player = parsed.names.index(args.agent)
            result = float(parsed.results[player])
            hands += 1
            total += result
            if abs(result) < args.min_bb * args.big_blind:
                small += result
                continue
            last = last_raise(parsed.state)
            if last is None:
                key = ("nobody", "-", "-", "showdown")
            else:
                raiser, street, all_in = last
                key = (
                    "agent" if raiser == player else "opponent",
                    STREETS[street],
                    "all-in" if all_in else "bet",
                    "fold" if parsed.state.folded is not None else "showdown",
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
