"""Why the turn solve bets less than the blueprint against `call`: the values it sees for its best hand.

Question: with the turn searched and every other street played by the blueprint, the bot wins
about 2,700 mbb/hand less than the blueprint against `call` (docs/RESULTS.md, "The turn
solve against callers"). The safe gadget, blueprint leaves, a floor of 0.6 and no buckets do
not change that. Where does the solve give the value up?
Answer: docs/RESULTS.md, same section.

Each seed deals one hand. The bot sits on the button and plays the blueprint (sampled from its
policy with its real cards) against `call` until its first turn decision. There, over the bot's
own range, hands are ranked by the five-card strength they make with the board. The table gives,
per strength band, the share of the range that bets, for the blueprint and for the turn solve
(100 CFR+ iterations, no buckets, no time limit, the opponent's range as ``opponent_threshold=0``
and ``floor`` 0.05 give it). For the strongest hand of the range it also prints the value the
solve gives each of its actions (chips won from the opponent, averaged over the opponent's range
at the decision) and how the solve's opponent answers each bet.

    OMP_NUM_THREADS=1 python experiments/turn_value_spots.py --seeds 1-30
    OMP_NUM_THREADS=1 python experiments/turn_value_spots.py --seeds 1-30 --leaves check-down
"""

from __future__ import annotations

import argparse

import numpy as np
import numpy.typing as npt
import torch

from pokerai.abstraction.bets import CHECK_CALL_SLOT, FOLD_SLOT, slot_actions
from pokerai.agents.base import Observation
from pokerai.agents.spec import make_agent
from pokerai.agents.street import StreetSearchAgent
from pokerai.engine.cards import format_cards
from pokerai.engine.evaluator import rank_hands
from pokerai.engine.state import Action, ActionKind, HUNLState, Street
from pokerai.search.combos import ALL_COMBOS
from pokerai.search.street import opponent_range, prepare_street
from pokerai.search.subgame import TERMINAL, counterfactual_values, solve

BASE = (
    "?threshold=0.3&pipeline=street&opponent_threshold=0&turn.iterations=100&turn.budget_ms=none"
    "&turn.buckets=none&river.iterations=0"
)
LEAVES = {
    "rollout": "",  # the default: four continuations, river rollouts with betting
    "check-down": "&turn.leaves=blueprint&turn.rollout_raises=0",  # the river checked down
}
BANDS = ((0.0, 0.5), (0.5, 0.8), (0.8, 0.95), (0.95, 1.0))
"""Strength percentiles within the bot's range: [low, high), the last one closed."""
ITERATIONS = 100
BOT = 0  # the button: `call` checks the turn to it


def seeds(text: str) -> list[int]:
    low, _, high = text.partition("-")
    return list(range(int(low), int(high or low) + 1))


def turn_spot(agent: StreetSearchAgent, seed: int) -> HUNLState | None:
    """The hand of ``seed`` at the bot's first turn decision, or None if the hand ends before it."""
    rng = np.random.default_rng(seed)
    state = HUNLState.new(agent.blueprint.game.config, BOT, rng=rng)
    caller = make_agent("call")
    combo = {frozenset(cards): index for index, cards in enumerate(ALL_COMBOS.tolist())}
    mine = combo[frozenset(state.hole_cards(BOT))]
    while state.to_act is not None and state.street <= Street.TURN:
        if state.to_act != BOT:
            state.apply(caller.act(Observation.from_state(state), rng))
            continue
        if state.street == Street.TURN:
            return state
        mask, actions = slot_actions(state, agent.blueprint.game.bets)
        row = agent.blueprint_rows(state)[mine] * mask
        action = actions[rng.choice(len(row), p=row / row.sum())]
        assert action is not None, "a slot the mask keeps has an action"
        state.apply(action)
    return None


def slot_name(action: Action | None, state: HUNLState) -> str:
    """``check`` or ``bet N`` (chips) for a turn action facing no bet."""
    if action is None or action.kind is not ActionKind.RAISE:
        return "check"
    return f"bet {action.amount - state.bets[BOT]}"


def bands(
    rows: npt.NDArray[np.float64], weight: npt.NDArray[np.float64], percentile: npt.NDArray[np.float64]
) -> list[float]:
    """Per strength band, the share of the range (``weight``) whose ``rows`` bet."""
    bets = 1.0 - rows[:, CHECK_CALL_SLOT]
    shares = []
    for low, high in BANDS:
        band = (percentile >= low) & ((percentile < high) if high < 1.0 else (percentile <= high))
        shares.append(float((weight[band] * bets[band]).sum() / weight[band].sum()))
    return shares


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--blueprint", default="checkpoints/hunl_tiny")
    parser.add_argument("--seeds", type=seeds, default=seeds("1-30"), help="e.g. 1-30")
    parser.add_argument("--leaves", choices=sorted(LEAVES), default="rollout")
    args = parser.parse_args()
    torch.set_num_threads(1)
    agent = make_agent(f"search:{args.blueprint}{BASE}{LEAVES[args.leaves]}")
    assert isinstance(agent, StreetSearchAgent)
    table: dict[str, list[list[float]]] = {"blueprint": [], "turn solve": []}
    for seed in args.seeds:
        state = turn_spot(agent, seed)
        if state is None:
            continue
        own, played = agent.own_range(state)
        opponent = opponent_range(agent.blueprint, state, 1 - BOT, threshold=0.0, floor=agent.config.floor)
        prepared = prepare_street(
            agent.blueprint, state, own, opponent, played, max_raises=1, safe=False,
            leaf=agent.leaf_settings(Street.TURN), threshold=agent.threshold,
        )  # fmt: skip
        game, tree = prepared.game, prepared.tree
        solution = solve(game, ITERATIONS, card_payoffs=prepared.payoffs.card_payoffs)
        values = counterfactual_values(game, solution.average, BOT)
        hands = tree.hands
        board = np.tile(np.array(state.board, dtype=np.uint8), (len(hands), 1))
        strength = rank_hands(np.concatenate([ALL_COMBOS[hands], board], axis=1))
        weight = game.reach[BOT]
        # Percentiles within the bot's range; the opponent's other hands are in the tree too.
        mine = np.flatnonzero(weight > 0)
        percentile = np.full(len(hands), -1.0)
        percentile[mine] = np.argsort(np.argsort(strength[mine], kind="stable")) / max(len(mine) - 1, 1)
        mask, actions = slot_actions(state, agent.blueprint.game.bets)
        blueprint = agent.blueprint_rows(state)[hands] * mask
        blueprint /= blueprint.sum(axis=1, keepdims=True)
        children = list(game.children(tree.current))
        slots = [int(game.label[child]) for child in children]
        searched = np.zeros_like(blueprint)
        searched[:, slots] = solution.average[children].T
        table["blueprint"].append(bands(blueprint, weight, percentile))
        table["turn solve"].append(bands(searched, weight, percentile))
        best = int(np.argmax(np.where(weight > 0, strength, -1)))
        # Counterfactual values carry the opponent's reach of the decision, which its solved
        # strategy on the turn before it (its check) scales: divide by that reach's mass.
        opponent_reach = game.reach[1 - BOT].copy()
        node = tree.current
        while node > 0:
            parent = int(game.parent[node])
            if int(game.player[parent]) == 1 - BOT:
                opponent_reach *= solution.average[node]
            node = parent
        opponent_mass = opponent_reach.sum()
        names = [slot_name(actions[slot], state) for slot in slots]
        answers = []
        for child, name in zip(children, names, strict=True):
            if game.kind[child] == TERMINAL or name == "check":
                continue
            replies = game.children(child)
            fold = next(reply for reply in replies if game.label[reply] == FOLD_SLOT)
            folds = solution.average[fold]
            answers.append(f"{name}: folds {float((folds * opponent_reach).sum() / opponent_mass):.2f}")
        blueprint_bets = 1 - blueprint[best, CHECK_CALL_SLOT]
        solve_bets = 1 - searched[best, CHECK_CALL_SLOT]
        print(
            f"seed {seed}: pot {state.pot}, board {format_cards(state.board)}, best hand "
            f"{format_cards(ALL_COMBOS[hands[best]])}; bets: blueprint {blueprint_bets:.2f}, "
            f"solve {solve_bets:.2f}; its values "
            + ", ".join(
                f"{name} {values[child, best] / opponent_mass:+,.0f}"
                for child, name in zip(children, names, strict=True)
            )
            + "; the solve's opponent "
            + ", ".join(answers),
            flush=True,
        )
    headers = [f"{low:.0%}–{high:.0%}" for low, high in BANDS]
    spots = len(table["blueprint"])
    print(f"\n{spots} turn spots, {args.leaves} leaves: share of the range that bets, by strength")
    print("| policy | " + " | ".join(headers) + " |")
    print("|---|" + "---:|" * len(headers))
    for name, shares in table.items():
        print(f"| {name} | " + " | ".join(f"{share:.2f}" for share in np.mean(shares, axis=0)) + " |")


if __name__ == "__main__":
    main()
