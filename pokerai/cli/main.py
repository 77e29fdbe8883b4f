"""The ``pokerai`` command line.

Errors in the arguments are one sentence on stderr and exit status 2, never a
traceback.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from pokerai import __version__
from pokerai.cli.arguments import USAGE_ERROR, Parser, UsageError, usage_error
from pokerai.cli.commands import COMMANDS, register

ALL_COMMANDS = "*"


def build_parser(command: str | None = ALL_COMMANDS) -> argparse.ArgumentParser:
    """The ``pokerai`` parser with ``command`` in full (every one for ``"*"``), the rest by name and help."""
    parser = Parser(prog="pokerai", description="Heads-up poker AI: solvers, evaluation, play.")
    parser.add_argument("--version", action="version", version=f"pokerai {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    commands.required = True
    for name, summary in COMMANDS.items():
        if command in (ALL_COMMANDS, name):
            register(commands, name)
        else:
            commands.add_parser(name, help=summary, add_help=False)
    return parser


def _command_of(argv: Sequence[str]) -> str | None:
    """The command named in ``argv`` (the first word that is not an option), if it is one."""
    for word in argv:
        if not word.startswith("-"):
            return word if word in COMMANDS else None
    return None


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    words = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(_command_of(words))
    try:
        args = parser.parse_args(words)
    except SystemExit as stop:  # usage errors, --help, --version
        return stop.code if isinstance(stop.code, int) else USAGE_ERROR
    try:
        return int(args.handler(args))
    except UsageError as error:
        return usage_error(args.command, error)
    except KeyboardInterrupt:
        print("pokerai: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # e.g. ``pokerai agents | head``: the reader left; say nothing more
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
