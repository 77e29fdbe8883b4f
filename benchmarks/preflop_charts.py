"""A bot's preflop strategy as 13×13 charts: the button's first action, and the big blind's answers
to a 2.5 bb open and to a 200 bb shove (50/100 blinds, 200 bb stacks).

Each cell is one of the 169 classes (pairs on the diagonal, suited above it, offsuit below),
played holding one representative combination of it. A panel shows how often the class takes
one kind of action (raises of every size together). The script also prints the checks a
player would make first: aces never folded, and a shove called only with strong hands (the
share of the 1,326 combinations that call it, and the classes that do).

    OMP_NUM_THREADS=1 python benchmarks/preflop_charts.py "blueprint:checkpoints/hunl_blueprint" \\
        --plot docs/img/preflop_charts.png
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from pokerai.agents.base import Observation
from pokerai.agents.spec import make_agent
from pokerai.engine.cards import parse_cards
from pokerai.engine.state import Action, ActionKind, HUNLConfig, HUNLState

RANKS = "AKQJT98765432"


def class_name(row: int, column: int) -> str:
    """The class of a chart cell: a pair on the diagonal, suited above it, offsuit below."""
    high, low = RANKS[min(row, column)], RANKS[max(row, column)]
    if row == column:
        return high + low
    return high + low + ("s" if row < column else "o")


def representative(row: int, column: int) -> tuple[int, int]:
    """One combination of a cell's class (spades first; hearts for the second card unless suited)."""
    high, low = RANKS[min(row, column)], RANKS[max(row, column)]
    second = "s" if row < column else "h"
    cards = parse_cards(f"{high}s{low}{second}")
    return int(cards[0]), int(cards[1])


def combos(row: int, column: int) -> int:
    return 6 if row == column else (4 if row < column else 12)


def spot_states(config: HUNLConfig) -> dict[str, HUNLState]:
    """The three spots, the button (player 0) first to act; the deal's cards are never looked at."""
    deck = list(range(9))
    button = HUNLState.new(config, 0, deck=deck)
    opened = button.clone()
    opened.apply(Action(0, ActionKind.RAISE, 250))
    shoved = button.clone()
    shoved.apply(Action(0, ActionKind.RAISE, config.stacks[0]))
    return {
        "button first to act": button,
        "big blind vs a 2.5 bb open": opened,
        "big blind vs a 200 bb shove": shoved,
    }


def chart(agent: Any, state: HUNLState) -> dict[str, npt.NDArray[np.float64]]:
    """Each action kind's frequency per cell: ``{"raise" | "call" | "fold": float64 [13, 13]}``
    (``call`` is a limp or a check where nothing is owed)."""
    cells = [(row, column) for row in range(13) for column in range(13)]
    hands = np.array([representative(row, column) for row, column in cells], dtype=np.int64)
    observation = Observation.from_state(state, hole_cards=(int(hands[0, 0]), int(hands[0, 1])))
    policy = agent.range_policy(observation, hands)
    if policy is None:  # an agent without a range policy: ask hand by hand
        raise SystemExit("the agent gives no range policy; chart a blueprint or search agent")
    probabilities = policy.probabilities
    if probabilities.shape[1] == 1:
        probabilities = np.repeat(probabilities, len(cells), axis=1)
    out = {kind: np.zeros((13, 13)) for kind in ("raise", "call", "fold")}
    for row_index, kind in enumerate(policy.kinds.tolist()):
        name = {ActionKind.RAISE: "raise", ActionKind.CALL: "call", ActionKind.CHECK: "call"}.get(
            ActionKind(kind), "fold"
        )
        out[name] += probabilities[row_index].reshape(13, 13)
    return out


def describe(spot: str, frequencies: dict[str, npt.NDArray[np.float64]]) -> list[str]:
    weights = np.array([[combos(row, column) for column in range(13)] for row in range(13)], dtype=np.float64)
    lines = [f"{spot}:"]
    for kind, grid in frequencies.items():
        lines.append(
            f"  {kind:<5} {float((grid * weights).sum() / weights.sum()):6.1%} of the 1,326 combinations"
        )
    lines.append(f"  AA folds {frequencies['fold'][0, 0]:.3f}")
    if "shove" in spot:
        calling = [
            (class_name(row, column), frequencies["call"][row, column])
            for row in range(13)
            for column in range(13)
            if frequencies["call"][row, column] >= 0.5
        ]
        calling.sort(key=lambda item: -item[1])
        lines.append(
            "  calls at least half the time: " + ", ".join(f"{name} {share:.2f}" for name, share in calling)
        )
    return lines


def plot(charts: dict[str, dict[str, npt.NDArray[np.float64]]], path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from plots import save_figure  # benchmarks/plots.py, beside this script

    kinds = ("raise", "call", "fold")
    figure, axes = plt.subplots(len(charts), len(kinds), figsize=(11, 3.9 * len(charts)))
    for axes_row, (spot, frequencies) in zip(np.atleast_2d(axes), charts.items(), strict=True):
        for axis, kind in zip(axes_row, kinds, strict=True):
            grid = frequencies[kind]
            axis.imshow(grid, vmin=0.0, vmax=1.0, cmap="viridis")
            for row in range(13):
                for column in range(13):
                    axis.text(column, row, class_name(row, column), ha="center", va="center", fontsize=5,
                              color="white" if grid[row, column] < 0.6 else "black")  # fmt: skip
            axis.set_xticks([])
            axis.set_yticks([])
            verb = {"raise": "raises", "call": "limps" if "button" in spot else "calls", "fold": "folds"}[
                kind
            ]
            axis.set_title(f"{spot}: {verb}", fontsize=9)
    figure.suptitle(title, fontsize=10)
    save_figure(figure, path)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("spec", help="the bot, e.g. blueprint:checkpoints/hunl_blueprint")
    parser.add_argument("--plot", type=Path, help="write the charts to this PNG")
    args = parser.parse_args()
    agent = make_agent(args.spec)
    charts = {}
    for spot, state in spot_states(HUNLConfig()).items():
        assert state.to_act is not None
        agent.begin_hand(state.to_act, state.button)
        charts[spot] = chart(agent, state)
        print("\n".join(describe(spot, charts[spot])))
    if args.plot:
        plot(charts, args.plot, args.spec)


if __name__ == "__main__":
    main()
