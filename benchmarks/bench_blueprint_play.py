"""A blueprint at the table: how long it takes to load, and how long each decision takes.

For each bot spec (the first is the reference), in one process: the seconds ``make_agent``
takes to load it (the tabular blueprint reads its strategy and its card abstraction; the
first spec also pays the imports), then ``--hands`` hands against ``heuristic`` (cards from
``default_rng([seed, hand])``, seats alternating), timing every decision of the bot. Prints a
Markdown table: load seconds, decisions, median and 95th-percentile milliseconds per decision
by street, and each median over the reference's.

    OMP_NUM_THREADS=1 python benchmarks/bench_blueprint_play.py \\
        "blueprint:checkpoints/hunl_tiny?threshold=0.3&allin=solve" blueprint:checkpoints/hunl_blueprint

(the Deep CFR blueprint at its playing options, against the shipped tabular blueprint).
"""

from __future__ import annotations

import os
import platform
import time

import numpy as np
from common import script_parser

from pokerai.agents.base import Agent, Observation
from pokerai.agents.spec import make_agent
from pokerai.engine.state import Action, HUNLConfig, HUNLState
from pokerai.eval.duplicate import play_hand

STREETS = ("preflop", "flop", "turn", "river")


class Timed(Agent):
    """``agent``, recording the seconds of each decision by street."""

    def __init__(self, agent: Agent) -> None:
        self.agent = agent
        self.name = agent.name
        self.seconds: dict[int, list[float]] = {street: [] for street in range(4)}

    def begin_hand(self, player: int, button: int) -> None:
        self.agent.begin_hand(player, button)

    def drop_time_budgets(self) -> None:
        self.agent.drop_time_budgets()

    def act(self, observation: Observation, rng: np.random.Generator) -> Action:
        started = time.perf_counter()
        action = self.agent.act(observation, rng)
        self.seconds[observation.street].append(time.perf_counter() - started)
        return action


def main() -> None:
    parser = script_parser(__doc__, hands=300, seed=0)
    parser.add_argument("specs", nargs="+", metavar="SPEC", help="bots; the first is the reference")
    args = parser.parse_args()
    config = HUNLConfig()
    print(
        f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}"
    )
    print(f"{args.hands} hands against heuristic, seed {args.seed}\n")
    print(
        "| bot | load s | decisions | median ms | p95 ms | median / reference | "
        + " | ".join(f"{name} median / p95 ms" for name in STREETS)
        + " |"
    )
    print("|---|---:|---:|---:|---:|---:|" + "---:|" * len(STREETS))
    reference: float | None = None
    for spec in args.specs:
        started = time.perf_counter()
        bot = Timed(make_agent(spec))
        load = time.perf_counter() - started
        opponent = make_agent("heuristic")
        for hand in range(args.hands):
            rng = np.random.default_rng([args.seed, hand])
            deck = rng.permutation(52)[:9].tolist()
            seat = hand & 1
            agents: list[Agent] = [opponent, opponent]
            agents[seat] = bot
            rngs = [np.random.Generator(np.random.PCG64(int(value))) for value in rng.integers(2**63, size=2)]
            for player in (0, 1):
                agents[player].begin_hand(player, 0)
            play_hand(HUNLState.new(config, 0, deck=deck), agents, rngs)
        everything = np.concatenate([np.asarray(bot.seconds[street]) for street in range(4)]) * 1000
        median = float(np.median(everything))
        reference = median if reference is None else reference
        streets = []
        for street in range(4):
            values = np.asarray(bot.seconds[street]) * 1000
            streets.append(
                f"{np.median(values):.1f} / {np.percentile(values, 95):.1f}" if values.size else "–"
            )
        print(
            f"| `{spec}` | {load:.2f} | {everything.size} | {median:.2f} | "
            f"{np.percentile(everything, 95):.2f} | {median / reference:.2f} | " + " | ".join(streets) + " |",
            flush=True,
        )


if __name__ == "__main__":
    main()
