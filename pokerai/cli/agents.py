"""``pokerai agents``: every agent spec that ``play``, ``eval``, ``report`` and ``acpc`` accept.

    pokerai agents [--json]

Each spec is listed with one line on how it plays and its ``?KEY=VALUE`` options with
their defaults, e.g. ``shover?p=0.1`` or ``search:checkpoints/hunl_tiny?allin=solve&river.budget_ms=100``.
"""

from __future__ import annotations

import argparse

from pokerai.agents.spec import agent_catalogue
from pokerai.cli.output import emit

DESCRIPTION = (
    "The agent specs of play, eval, report and acpc: NAME, NAME?KEY=VALUE&..., "
    "or KIND:PATH?KEY=VALUE&... for agents that load a blueprint folder."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``agents`` options and handler, on ``parser``."""
    parser.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    parser.set_defaults(handler=run_agents)


def run_agents(args: argparse.Namespace) -> int:
    catalogue = agent_catalogue()
    payload = {
        "agents": [
            {
                "spec": info.spec,
                "summary": info.summary,
                "options": [{"key": o.key, "default": o.default, "help": o.help} for o in info.options],
            }
            for info in catalogue
        ]
    }
    lines = ["agent specs (options after a '?', joined by '&': shover?p=0.1, blueprint:PATH?threshold=0.3)"]
    for info in catalogue:
        lines += ["", f"{info.spec:<16} {info.summary}"]
        width = max((len(f"{o.key}={o.default}") for o in info.options), default=0)
        lines += [f"    {o.key + '=' + o.default:<{width}}  {o.help}" for o in info.options]
    emit(payload, "\n".join(lines), args.json)
    return 0
