"""The table of ``pokerai`` commands, and how each command adds its parser.

Only the command being run is registered in full (:func:`pokerai.cli.main.build_parser`), so
``pokerai --help`` and each command import no more than they use; every other command is listed
by name and help line. :func:`register` adds a command's parser from the parts its module
declares, so the help line is written once, here.
"""

from __future__ import annotations

import argparse
from importlib import import_module
from typing import Any

COMMANDS: dict[str, str] = {
    "solve": "solve a small game with a tabular CFR-family solver",
    "equity": "all-in equity of two hands, exact or Monte Carlo",
    "qre": "trace the logit quantal response equilibrium of a small game",
    "abstraction": "build, inspect and query card abstractions (suit isomorphism + EMD buckets)",
    "eval": "duplicate matches between agents, or local best response against one",
    "report": "strength report: duplicate matches against the baselines and exploiters, and LBR",
    "train": "train a blueprint (Deep CFR, or tabular MCCFR on card buckets) from a YAML config",
    "play": "play heads-up no-limit hold'em against the bot in the terminal",
    "acpc": "play an agent against an ACPC dealer (protocol 2.0.0, no-limit reverse blinds)",
    "agents": "list every agent spec with its options and defaults",
    "spot": "solve a postflop spot, range against range, to the end of the river",
    "analyze": "a hand analyzer in the browser: what the bot would do at a spot, and why",
}
"""Every command and its one-line help."""
MODULES = {"eval": "evaluate", "play": "play.command"}
"""The module of each command under ``pokerai.cli`` whose name is not the command's."""


def register(commands: Any, name: str) -> argparse.ArgumentParser:
    """Add command ``name`` in full to ``commands`` (the ``pokerai`` argparse subparsers): its help line
    from :data:`COMMANDS`, and from its module the ``DESCRIPTION``, the ``EPILOG`` if it has one, and
    ``add_arguments(parser)``, which adds its options and sets its handler."""
    module = import_module(f"pokerai.cli.{MODULES.get(name, name)}")
    parser: argparse.ArgumentParser = commands.add_parser(
        name, help=COMMANDS[name], description=module.DESCRIPTION, epilog=getattr(module, "EPILOG", None)
    )
    module.add_arguments(parser)
    return parser


__all__ = ["COMMANDS", "MODULES", "register"]
