"""``pokerai equity``: the all-in equity of two hold'em hands, exact or Monte Carlo.

    pokerai equity AhKh QsQd [--board Ks7d2c] [--samples N] [--seed S] [--json]

Exact enumeration of every board by default, Monte Carlo with ``--samples``.
"""

from __future__ import annotations

import argparse

from pokerai.cli.arguments import UsageError, number
from pokerai.cli.output import emit

DESCRIPTION = (
    "Equity (win + tie/2) of two hold'em hands on a partial board: exact "
    "enumeration of every board by default, Monte Carlo with --samples."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``equity`` options and handler, on ``parser``."""
    parser.add_argument("hand_a", metavar="HAND_A", help="first hand, e.g. AhKh")
    parser.add_argument("hand_b", metavar="HAND_B", help="second hand, e.g. QsQd")
    parser.add_argument("--board", default="", help="up to 5 known board cards, e.g. Ks7d2c")
    parser.add_argument("--samples", type=number("samples", int, positive=True), default=None,
                        metavar="N", help="sample N boards instead of enumerating all")  # fmt: skip
    parser.add_argument("--seed", type=number("seed", int, positive=False), default=0,
                        help="seed of the board sampler (default 0)")  # fmt: skip
    parser.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    parser.set_defaults(handler=run_equity)


def run_equity(args: argparse.Namespace) -> int:
    from pokerai.engine.equity import describe, equity

    if args.seed < 0:
        raise UsageError(f"seed must be a non-negative whole number, got {args.seed}")
    try:
        result = equity(args.hand_a, args.hand_b, args.board, samples=args.samples, seed=args.seed)
    except ValueError as error:
        raise UsageError(str(error)) from None
    emit(result.to_json(), describe(result), args.json)
    return 0


__all__ = ["DESCRIPTION", "add_arguments", "run_equity"]
