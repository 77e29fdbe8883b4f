"""How often the street pipeline bets the flop, by hand strength, against the blueprint it starts from.

Question: the searching bot wins far less than the blueprint against `call`, `station` and
`minraise` (docs/RESULTS.md, "The street pipeline's report"). Does it bet its weak hands on the
flop where the blueprint checks them, and do the leaves' continuations change that?
Answer: docs/RESULTS.md, same section.

Two lines, one hand dealt per seed:

* ``limp``: the button completes and the agent, in the big blind, checks; the agent acts first
  on the flop.
* ``open``: the agent, on the button, opens with the blueprint's most likely raise; the big blind
  calls and checks the flop to it.

Over the agent's own range at the flop (what it played preflop), hands are ranked by the five-card
strength they make with the flop. The table gives, per strength band, the share of that range
that bets or raises, for the blueprint and for the flop solve of each variant (450 CFR+
iterations, no time limit: about what a 900 ms budget runs; the opponent's range as the bot's
``opponent_threshold=0`` and ``floor`` 0.05 give it).

    OMP_NUM_THREADS=1 python experiments/street_bet_spots.py --line limp --seeds 0-11
    OMP_NUM_THREADS=1 python experiments/street_bet_spots.py --line open --seeds 100-111

``--variants`` picks some of ``VARIANTS`` (default: all). The two-raise variants let the solve's
opponent raise a bet; their 450 iterations are more than a 900 ms budget runs on their tree.
"""

from __future__ import annotations

import argparse

import numpy as np
import numpy.typing as npt
import torch

from pokerai.abstraction.bets import CHECK_CALL_SLOT, slot_actions
from pokerai.agents.spec import make_agent
from pokerai.agents.street import StreetSearchAgent
from pokerai.engine.evaluator import rank_hands
from pokerai.engine.state import Action, ActionKind, HUNLState
from pokerai.search.combos import ALL_COMBOS, combos_holding

BASE = "?threshold=0.3&pipeline=street&opponent_threshold=0&flop.iterations=450&flop.budget_ms=none"
VARIANTS = {
    "depth-limited leaves (bias 5)": "",
    "bias 20": "&flop.bias=20",
    "blueprint leaves": "&flop.leaves=blueprint",
    "floor 0.3": "&floor=0.3",
    "floor 0.6": "&floor=0.6",
    "two raises": "&flop.max_raises=2",
    "check-down leaves": "&flop.leaves=blueprint&flop.rollout_raises=0",
    "check-down leaves, two raises": "&flop.leaves=blueprint&flop.rollout_raises=0&flop.max_raises=2",
}
BANDS = ((0.0, 0.5), (0.5, 0.8), (0.8, 0.95), (0.95, 1.0))
"""Strength percentiles within the agent's range: [low, high), the last one closed."""


def seeds(text: str) -> list[int]:
    low, _, high = text.partition("-")
    return list(range(int(low), int(high or low) + 1))


def flop_spot(agent: StreetSearchAgent, line: str, seed: int) -> HUNLState:
    """The hand of ``seed`` (the agent's seat as ``line`` says) at the agent's first flop decision."""
    state = HUNLState.new(agent.blueprint.game.config, 0, rng=np.random.default_rng(seed))
    if line == "limp":  # the button (player 0) completes; the agent, in the big blind, checks
        state.call()
        state.check()
    else:  # the agent (player 0) opens with its most likely raise; the big blind calls, then checks
        mask, actions = slot_actions(state, agent.blueprint.game.bets)
        opens = (agent.blueprint_rows(state) * mask).sum(axis=0)
        opening = actions[2 + int(np.argmax(opens[2:]))]
        assert opening is not None, "the button may always raise first in"
        state.apply(opening)
        state.call()
        state.check()
    return state


def bet_shares(
    agent: StreetSearchAgent, state: HUNLState, searched: bool
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Per strength band, the share of the agent's range at ``state`` that bets or raises; and per
    menu slot, the share of the range that takes it."""
    own, _ = agent.own_range(state)
    live = np.flatnonzero(~combos_holding(state.board) & (own > 0))
    board = np.tile(np.array(state.board, dtype=np.uint8), (len(live), 1))
    strength = rank_hands(np.concatenate([ALL_COMBOS[live], board], axis=1))
    percentile = np.argsort(np.argsort(strength, kind="stable")) / max(len(live) - 1, 1)
    mask, _ = slot_actions(state, agent.blueprint.game.bets)
    rows = (agent.policy(state) if searched else agent.blueprint_rows(state))[live] * mask
    rows /= rows.sum(axis=1, keepdims=True)
    bets = 1.0 - rows[:, CHECK_CALL_SLOT]
    weight = own[live]
    shares = []
    for low, high in BANDS:
        band = (percentile >= low) & ((percentile < high) if high < 1.0 else (percentile <= high))
        shares.append(float((weight[band] * bets[band]).sum() / weight[band].sum()))
    return np.array(shares), weight @ rows / weight.sum()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--blueprint", default="checkpoints/hunl_tiny")
    parser.add_argument("--line", choices=("limp", "open"), default="limp")
    parser.add_argument("--seeds", type=seeds, default=seeds("0-11"), help="e.g. 0-11")
    parser.add_argument("--variants", nargs="+", choices=list(VARIANTS), default=list(VARIANTS))
    args = parser.parse_args()
    torch.set_num_threads(1)
    results: dict[str, list[npt.NDArray[np.float64]]] = {"blueprint": []}
    actions: dict[str, list[npt.NDArray[np.float64]]] = {"blueprint": []}
    labels: list[str] = []
    for name in args.variants:
        options = VARIANTS[name]
        agent = make_agent(f"search:{args.blueprint}{BASE}{options}")
        assert isinstance(agent, StreetSearchAgent)
        results[name], actions[name] = [], []
        for seed in args.seeds:
            state = flop_spot(agent, args.line, seed)
            if name == args.variants[0]:
                bands, slots = bet_shares(agent, state, searched=False)
                results["blueprint"].append(bands)
                actions["blueprint"].append(slots)
            bands, slots = bet_shares(agent, state, searched=True)
            results[name].append(bands)
            actions[name].append(slots)
            labels = [
                slot_label(state, action) for action in slot_actions(state, agent.blueprint.game.bets)[1]
            ]
    headers = [f"{low:.0%}–{high:.0%}" for low, high in BANDS]
    first, last = args.seeds[0], args.seeds[-1]
    print(f"line {args.line}, seeds {first}–{last}: share of the range that bets, by strength")
    print("| policy | " + " | ".join(headers) + " |")
    print("|---|" + "---:|" * len(headers))
    for name, shares in results.items():
        print(f"| {name} | " + " | ".join(f"{share:.2f}" for share in np.mean(shares, axis=0)) + " |")
    used = [slot for slot, label in enumerate(labels) if label]
    print("\nshare of the range that takes each action (the last hand's sizes)")
    print("| policy | " + " | ".join(labels[slot] for slot in used) + " |")
    print("|---|" + "---:|" * len(used))
    for name, shares in actions.items():
        mean = np.mean(shares, axis=0)
        print(f"| {name} | " + " | ".join(f"{mean[slot]:.2f}" for slot in used) + " |")


def slot_label(state: HUNLState, action: Action | None) -> str:
    """``check``, ``call``, ``fold`` or ``bet N`` / ``raise to N`` in chips; "" for no action."""
    if action is None:
        return ""
    if action.kind is not ActionKind.RAISE:
        return action.kind.name.lower()
    return f"{'raise to' if max(state.bets) > 0 else 'bet'} {action.amount}"


if __name__ == "__main__":
    main()
