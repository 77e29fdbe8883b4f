"""``pokerai play``: a heads-up no-limit session against the bot in a terminal.

    pokerai play [--opponent SPEC] [--hands N] [--stack BB] [--seed S] [--log PATH]

:data:`DESCRIPTION`, :data:`EPILOG` and :func:`add_arguments` make the subcommand's parser; the handler
:func:`run_play` reports its own errors (one line, exit status 2). At the table every solve the
bot runs has a time budget (:data:`~pokerai.agents.table.TABLE_BUDGET_S` where the agent has
none; ``budget_solves``), and the bot's per-process first-time work (numba kernels, equity
tables; ``warm_up``) runs in a background thread while the first hand is dealt. A kernel that
has to compile says so on stderr (:func:`pokerai.jit.compile_notice`), never over the open prompt.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TextIO

from pokerai.agents.table import BIG_BLIND, DEFAULT_BLUEPRINT, DEFAULT_BOT, TABLE_BUDGET_S, load_agent
from pokerai.cli.arguments import (
    add_agent,
    add_count,
    add_fresh_seed,
    checked,
    finite,
    fresh_seed,
    usage_error,
)
from pokerai.cli.play.screen import Screen, start_warm_up
from pokerai.cli.play.session import PlaySession
from pokerai.jit import compile_notice

DEFAULT_STACK_BB = 200.0


_stack = checked(
    "stack",
    float,
    "a number of big blinds",
    (lambda value: finite(value) and round(value * BIG_BLIND) >= 1, "a positive number of big blinds"),
)


DESCRIPTION = (
    "Play hands against the bot: blinds 50/100, stacks reset every hand, the button "
    "alternates. Type h at the prompt for the commands. q, Ctrl-D or Ctrl-C end the session "
    "with a summary (an unfinished hand counts as your fold)."
)
EPILOG = (
    "exit status: 0 when the session ends (hands done, q, Ctrl-D, Ctrl-C); "
    "2 for a bad argument or an opponent that cannot be loaded."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``play`` options and handler, on ``parser``."""
    add_agent(
        parser,
        "--opponent",
        f"the bot, any agent spec (default: search over the shipped blueprint, "
        f"{DEFAULT_BOT}; e.g. blueprint:{DEFAULT_BLUEPRINT}, heuristic, call). At the table "
        f"every solve the bot runs (the default's answers to all-ins off its menu, any search) stops "
        f"its CFR+ iterations after {TABLE_BUDGET_S:g} s unless the spec sets a budget",
    )
    add_count(parser, "--hands", "stop after N hands (default: play until you quit)")
    parser.add_argument(
        "--stack",
        type=_stack,
        default=DEFAULT_STACK_BB,
        metavar="BB",
        help=f"both stacks in big blinds, reset each hand (default {DEFAULT_STACK_BB:g}; "
        "the blueprint was trained at 200)",
    )
    add_fresh_seed(parser, "the cards and the bot", "at the start")
    parser.add_argument(
        "--log",
        metavar="PATH",
        default=None,
        help="write each hand to PATH: a readable history and an ACPC STATE line",
    )
    parser.set_defaults(handler=run_play)


def _open_log(path: str) -> TextIO:
    target = Path(path)
    if target.is_dir():
        raise ValueError(f"cannot write the log {path!r}: it is a folder")
    if not target.parent.is_dir():
        raise ValueError(f"cannot write the log {path!r}: folder {str(target.parent)!r} does not exist")
    try:
        return target.open("w", encoding="utf-8")
    except OSError as error:
        raise ValueError(f"cannot write the log {path!r}: {error.strerror or error}") from None


def run_play(args: argparse.Namespace) -> int:
    """The ``play`` handler: runs the session; a bad argument prints one line and returns 2."""
    try:
        opponent, name = load_agent(args.opponent, "--opponent")
        log = _open_log(args.log) if args.log is not None else None
    except ValueError as error:
        return usage_error("play", error)
    seed = fresh_seed(args.seed)
    budget_solves = getattr(opponent, "budget_solves", None)
    if callable(budget_solves):
        budget_solves(TABLE_BUDGET_S)
    screen = Screen(sys.stdout, sys.stderr)
    try:
        session = PlaySession(
            opponent,
            opponent_name=name,
            stack=round(args.stack * BIG_BLIND),
            seed=seed,
            hands=args.hands,
            read_line=input,
            write=screen.line,
            log=log,
            screen=screen,
        )
        with compile_notice(write=screen.notice):
            start_warm_up(opponent)
            session.run()
    finally:
        if log is not None:
            log.close()
    if args.log is not None:
        print(f"hand histories: {args.log}")
    return 0


__all__ = ["DEFAULT_STACK_BB", "DESCRIPTION", "EPILOG", "add_arguments", "run_play"]
