"""What the benchmark and experiment scripts share: their command line, agent wrappers, spots and cells.

A script in ``benchmarks/`` imports it as ``common`` (its folder is on the path of a script run as
``python benchmarks/NAME.py``); a script in ``experiments/`` puts ``benchmarks/`` on its path first.
"""

from __future__ import annotations

import argparse

import numpy as np
import numpy.typing as npt

from pokerai.agents.base import Agent, HandSummary, Observation
from pokerai.agents.blueprint import BlueprintAgent, replay_observation
from pokerai.deepcfr.export import Blueprint
from pokerai.engine.state import Action, HUNLState, Street
from pokerai.eval.duplicate import Estimate, mean_ci95

DEEP_CFR_BLUEPRINT = "checkpoints/hunl_tiny"
"""The Deep CFR blueprint, which the scripts that time its network (beliefs, river spots) measure."""


def script_parser(
    doc: str | None,
    *,
    hands: int | None = None,
    pairs: int | None = None,
    seed: int | None = None,
    workers: int | None = None,
) -> argparse.ArgumentParser:
    """A parser whose ``--help`` shows the script's docstring as written, with the match options
    (``--hands``, ``--pairs``, ``--seed``, ``--workers``) that are given a default here."""
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    for name, default in (("hands", hands), ("pairs", pairs), ("seed", seed), ("workers", workers)):
        if default is not None:
            parser.add_argument(f"--{name}", type=int, default=default)
    return parser


def parse_single_threaded(parser: argparse.ArgumentParser) -> argparse.Namespace:
    """The parsed command line, with torch kept to one thread (every figure is of one core a process)."""
    import torch

    arguments = parser.parse_args()
    torch.set_num_threads(1)
    return arguments


class Opaque(Agent):
    """``agent`` with its policy hidden, so that AIVAT uses only the other seat's (still unbiased). A
    bot's all-in solve, asked for every hand at each of its decisions, would otherwise cost seconds
    a hand."""

    def __init__(self, agent: Agent) -> None:
        self.agent = agent
        self.name = agent.name

    def begin_hand(self, player: int, button: int) -> None:
        self.agent.begin_hand(player, button)

    def drop_time_budgets(self) -> None:
        self.agent.drop_time_budgets()

    def end_hand(self, summary: HandSummary) -> None:
        self.agent.end_hand(summary)

    def act(self, observation: Observation, rng: np.random.Generator) -> Action:
        return self.agent.act(observation, rng)


def estimate_cell(estimate: Estimate) -> str:
    """An estimate and its 95% confidence interval as a table cell: ``+12 [-3, +27]``."""
    return f"{estimate.mean:+,.0f} [{estimate.low:+,.0f}, {estimate.high:+,.0f}]"


def paired_cell(
    values: npt.NDArray[np.float64], reference: npt.NDArray[np.float64] | None
) -> tuple[str, npt.NDArray[np.float64]]:
    """The cell of ``values`` minus ``reference`` (the first row's values), paired entry by entry, or
    "–" on the first row (``reference`` None); and the reference for the rows after."""
    if reference is None:
        return "–", values
    return estimate_cell(mean_ci95(values - reference)), reference


def aivat_cells(
    scored: npt.NDArray[np.float64], reference: npt.NDArray[np.float64] | None
) -> tuple[str, npt.NDArray[np.float64]]:
    """The two AIVAT cells of a table row (the estimate, and its paired difference from ``reference``,
    the first row's estimates, or "–" on the first row) and the reference for the rows after."""
    difference, reference = paired_cell(scored, reference)
    return f" {estimate_cell(mean_ci95(scored))} | {difference} |", reference


def street_decisions(
    blueprint: Blueprint, count: int, threshold: float, seed: int, street: int = Street.RIVER
) -> list[Observation]:
    """The first ``count`` decisions on ``street`` (the river by default) of seeded blueprint self-play."""
    agent = BlueprintAgent(blueprint, threshold=threshold)
    observations: list[Observation] = []
    hand = 0
    while len(observations) < count:
        rng = np.random.default_rng([seed, hand])
        state = HUNLState.new(blueprint.game.config, hand % 2, rng=rng)
        hand += 1
        while not state.is_over and len(observations) < count:
            observation = Observation.from_state(state)
            if state.street == street:
                observations.append(observation)
            state.apply(agent.act(observation, rng))
    return observations


def deep_cfr_blueprint_arguments(doc: str | None, repeats: int) -> tuple[argparse.Namespace, Blueprint]:
    """The command line of a script that times the Deep CFR blueprint (``--blueprint``, ``--repeats``),
    parsed single-threaded, and the blueprint loaded."""
    parser = script_parser(doc)
    parser.add_argument("--blueprint", default=DEEP_CFR_BLUEPRINT, help="a Deep CFR blueprint folder")
    parser.add_argument("--repeats", type=int, default=repeats)
    arguments = parse_single_threaded(parser)
    return arguments, Blueprint.load(arguments.blueprint)


def add_river_spot_arguments(parser: argparse.ArgumentParser, decisions: int) -> None:
    """The options of ``river_spots``: the Deep CFR blueprint, how many river decisions, the threshold."""
    parser.add_argument("--blueprint", default=DEEP_CFR_BLUEPRINT, help="a Deep CFR blueprint folder")
    parser.add_argument("--decisions", type=int, default=decisions)
    parser.add_argument("--threshold", type=float, default=0.3)


def river_spots(path: str, count: int, threshold: float, seed: int) -> tuple[Blueprint, list[HUNLState]]:
    """The Deep CFR blueprint at ``path`` and the states of its first ``count`` river decisions of
    seeded self-play (``street_decisions``), the spots the search benchmarks time."""
    blueprint = Blueprint.load(path)
    observations = street_decisions(blueprint, count, threshold, seed)
    return blueprint, [replay_observation(observation) for observation in observations]
