"""Where the river solve gives up value against `call`, decision by decision.

Question: searched alone on the river, the street pipeline wins about 2,000 mbb/hand less than
the blueprint against `call` (docs/RESULTS.md, "Search" > "Hold'em: search at every postflop street").
Both play the same hand to the river, so the loss is in the river decisions. Is it bets with
losing hands (bluffs a caller pays off), or checks with winning hands (value not taken)?

Each seed deals one hand; the blueprint (``threshold`` 0.3) plays it against `call` to its first
river decision, in the seat the seed's parity gives. Against `call` that decision is the agent's
only one on the river: a bet is called, a check goes to showdown. For the blueprint's and the
solve's distributions at that spot, the exact chips each wins against `call`'s actual hand, split
by whether the agent's hand wins, ties or loses the showdown.

    OMP_NUM_THREADS=1 python experiments/river_vs_call.py --seeds 0-399 --show 12
    OMP_NUM_THREADS=1 python experiments/river_vs_call.py --seeds 0-399 --options "&safe=1"
"""

from __future__ import annotations

import argparse
from collections import defaultdict

import numpy as np
import numpy.typing as npt
import torch

from pokerai.agents.base import Observation
from pokerai.agents.blueprint import BlueprintAgent
from pokerai.agents.spec import make_agent
from pokerai.engine.cards import format_cards
from pokerai.engine.evaluator import rank_hands
from pokerai.engine.state import Action, ActionKind, HUNLState, Street

BLUEPRINT = "blueprint:{path}?threshold=0.3&allin=solve"
SEARCH = (
    "search:{path}?threshold=0.3&allin=solve&flop.iterations=0&turn.iterations=0"
    "&river.iterations=1000&river.budget_ms=none&river.full_iterations=1000"
)


def seeds(text: str) -> list[int]:
    low, _, high = text.partition("-")
    return list(range(int(low), int(high or low) + 1))


def river_spot(agent: BlueprintAgent, seed: int) -> tuple[HUNLState, int] | None:
    """The hand of ``seed`` at the agent's first river decision against `call`, and the agent's
    seat; None where the hand ends first."""
    rng = np.random.default_rng(seed)
    seat = seed % 2
    state = HUNLState.new(agent.blueprint.game.config, 0, rng=rng)
    while not state.is_over:
        if state.street == Street.RIVER and state.to_act == seat:
            return state, seat
        if state.to_act == seat:
            state.apply(agent.act(Observation.from_state(state), rng))
        else:
            state.check_or_call()
    return None


def chips(state: HUNLState, seat: int, action: Action) -> int:
    """What ``seat`` wins in the hand after taking ``action`` and `call` answering it."""
    after = state.clone()
    after.apply(action)
    while not after.is_over:
        after.check_or_call()
    return after.returns()[seat]


def showdown(state: HUNLState, seat: int) -> str:
    hands = np.array([list(state.hole_cards(player)) + list(state.board) for player in (seat, 1 - seat)])
    ours, theirs = rank_hands(hands.astype(np.uint8))
    return "wins" if ours > theirs else "ties" if ours == theirs else "loses"


def size(total: float, bets: float) -> str:
    """The mean bet in pots from the bet-weighted sum ``total`` over ``bets`` bets; – for none."""
    return f"{total / bets:.2f}" if bets >= 0.005 else "–"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--blueprint", default="checkpoints/hunl_tiny")
    parser.add_argument("--seeds", type=seeds, default=seeds("0-299"), help="e.g. 0-299")
    parser.add_argument("--show", type=int, default=0, help="print the N spots the solve loses most on")
    parser.add_argument("--options", default="", help="appended to the solve's spec, e.g. '&safe=1'")
    args = parser.parse_args()
    torch.set_num_threads(1)
    blueprint = make_agent(BLUEPRINT.format(path=args.blueprint))
    search = make_agent(SEARCH.format(path=args.blueprint) + args.options)
    assert isinstance(blueprint, BlueprintAgent) and isinstance(search, BlueprintAgent)
    # per showdown class: spots, chips by each policy, share of bets by each policy, bet sizes in pots
    table: dict[str, npt.NDArray[np.float64]] = defaultdict(lambda: np.zeros(7))
    spots: list[tuple[float, str]] = []
    for seed in args.seeds:
        found = river_spot(blueprint, seed)
        if found is None:
            continue
        state, seat = found
        observation = Observation.from_state(state)
        values, bets, sizes = [], [], []
        for agent in (blueprint, search):
            probabilities, actions = agent.decision(observation)
            values.append(
                sum(
                    p * chips(state, seat, action)
                    for p, action in zip(probabilities, actions, strict=True)
                    if p > 0 and action is not None
                )
            )
            raises = [
                (p, action.amount - state.bets[seat])
                for p, action in zip(probabilities, actions, strict=True)
                if p > 0 and action is not None and action.kind is ActionKind.RAISE
            ]
            bets.append(sum(p for p, _ in raises))
            sizes.append(sum(p * amount / state.pot for p, amount in raises))
        outcome = showdown(state, seat)
        table[outcome] += (1, values[0], values[1], bets[0], bets[1], sizes[0], sizes[1])
        hole = format_cards(state.hole_cards(seat))
        board = format_cards(state.board)
        spots.append(
            (
                values[1] - values[0],
                f"seed {seed} seat {seat} {hole} on {board} pot {state.pot}: {outcome}, "
                f"bets {bets[0]:.2f} -> {bets[1]:.2f}, chips {values[0]:+.0f} -> {values[1]:+.0f}",
            )
        )
    hands = len(args.seeds)
    print(f"{hands} hands, {sum(int(row[0]) for row in table.values())} reach the agent's river decision")
    print(
        "| showdown | spots | blueprint bets | solve bets | blueprint's bet, pots | solve's bet, pots "
        "| blueprint mbb/hand | solve mbb/hand |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    big_blind = blueprint.blueprint.game.config.big_blind
    for outcome in ("wins", "ties", "loses"):
        count, chips_b, chips_s, bets_b, bets_s, sizes_b, sizes_s = table[outcome]
        if count == 0:
            continue
        scale = 1000.0 / big_blind / hands
        print(
            f"| {outcome} | {count:.0f} | {bets_b / count:.2f} | {bets_s / count:.2f} "
            f"| {size(sizes_b, bets_b)} | {size(sizes_s, bets_s)} "
            f"| {chips_b * scale:+,.0f} | {chips_s * scale:+,.0f} |"
        )
    for difference, text in sorted(spots)[: args.show]:
        print(f"{difference:+.0f}  {text}")


if __name__ == "__main__":
    main()
