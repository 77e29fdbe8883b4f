"""The table of ``pokerai`` commands, and how each command adds its parser.

Only the command being run is registered in full (:func:`pokerai.cli.main.build_parser`), so
``pokerai --help`` and each command import no more than they use; every other command is listed
by name and help line. Each module's ``register`` adds its parser through :func:`add_command`,
so the help line is written once, here.
"""

from __future__ import annotations

import argparse
from typing import Any

COMMANDS: dict[str, tuple[str, str]] = {
    "solve": ("pokerai.cli.solve", "solve a small game with a tabular CFR-family solver"),
    "equity": ("pokerai.cli.equity", "all-in equity of two hands, exact or Monte Carlo"),
    "qre": ("pokerai.cli.qre", "trace the logit quantal response equilibrium of a small game"),
    "abstraction": (
        "pokerai.cli.abstraction",
        "build, inspect and query card abstractions (suit isomorphism + EMD buckets)",
    ),
    "eval": ("pokerai.cli.evaluate", "duplicate matches between agents, or local best response against one"),
    "report": (
        "pokerai.cli.report",
        "strength report: duplicate matches against the baselines and exploiters, and LBR",
    ),
    "train": (
        "pokerai.cli.train",
        "train a blueprint (Deep CFR, or tabular MCCFR on card buckets) from a YAML config",
    ),
    "play": ("pokerai.cli.play.command", "play heads-up no-limit hold'em against the bot in the terminal"),
    "acpc": (
        "pokerai.cli.acpc",
        "play an agent against an ACPC dealer (protocol 2.0.0, no-limit reverse blinds)",
    ),
    "agents": ("pokerai.cli.agents", "list every agent spec with its options and defaults"),
    "analyze": (
        "pokerai.cli.analyze",
        "a hand analyzer in the browser: what the bot would do at a spot, and why",
    ),
}
"""Every command: the module whose ``register`` adds its parser, and its one-line help."""


def add_command(commands: Any, name: str, **options: Any) -> argparse.ArgumentParser:
    """Add the parser of command ``name`` to ``commands`` (the ``pokerai`` argparse subparsers), with its
    help line from :data:`COMMANDS` and ``options`` (``description``, ``epilog``) as given."""
    parser: argparse.ArgumentParser = commands.add_parser(name, help=COMMANDS[name][1], **options)
    return parser


__all__ = ["COMMANDS", "add_command"]
