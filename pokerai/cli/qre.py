"""``pokerai qre``: the logit quantal response equilibrium of a small game, traced from λ = 0.

    pokerai qre --game kuhn --lambdas 0.1,1,10 [--bet-size B] [--json]

The game options are ``pokerai solve``'s (:mod:`pokerai.cli.solve`).
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from pokerai.cli.arguments import number
from pokerai.cli.output import emit
from pokerai.cli.solve import add_game_arguments, labelled, make_small_game, policy_lines

if TYPE_CHECKING:
    from pokerai.solvers.qre import QREResult


DESCRIPTION = (
    "Trace the agent logit QRE of Kuhn, Leduc or the AKQ game from λ = 0 and "
    "report it at the requested rationalities λ."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``qre`` options and handler, on ``parser``."""
    add_game_arguments(parser)
    parser.add_argument("--lambdas", required=True, type=_lambdas, metavar="L1,L2,...",
                        help="comma-separated rationalities λ >= 0, e.g. 0.1,1,10,100,1000")  # fmt: skip
    parser.add_argument(
        "--json", action="store_true", help="print one JSON object on stdout instead of tables"
    )
    parser.set_defaults(handler=run_qre)


def _lambdas(text: str) -> list[float]:
    """An argparse type: a comma-separated list of finite non-negative numbers."""
    parse = number("λ", float, positive=False)
    values = [parse(part.strip()) for part in text.split(",")]
    for value in values:
        if value < 0:
            raise argparse.ArgumentTypeError(f"λ must be non-negative, got {value:g}")
    return values


def run_qre(args: argparse.Namespace) -> int:
    from pokerai.solvers.qre import QREError, trace_logit_qre

    game = make_small_game(args)
    from pokerai.jit import compile_notice

    try:
        with compile_notice():
            result = trace_logit_qre(game, args.lambdas)
    except QREError as error:
        print(f"pokerai qre: error: {error}", file=sys.stderr)
        return 1
    emit(result.to_json(), format_qre(result), args.json)
    return 0


def format_qre(result: QREResult) -> str:
    """The human-readable report of ``pokerai qre``."""
    lines = labelled(("game", result.game), ("seconds", f"{result.seconds:.3f}  ({result.steps} path steps)"))
    lines += [
        "",
        f"{'lambda':>10}  {'exploitability':>14}  {'game value':>11}  {'residual':>9}  {'mean entropy':>12}",
    ]
    for point in result.points:
        lines.append(f"{point.rationality:>10g}  {point.exploitability:>14.6g}  "
                     f"{point.player_values[0]:>+11.6f}  {point.residual:>9.1e}  "
                     f"{float(point.entropy.mean()):>12.6f}")  # fmt: skip
    last = result.points[-1]
    title = f"policy at lambda = {last.rationality:g} (information set: action probabilities)"
    lines += policy_lines(last.policy.to_dict(), title, 4)
    return "\n".join(lines)


__all__ = ["DESCRIPTION", "add_arguments", "format_qre", "run_qre"]
