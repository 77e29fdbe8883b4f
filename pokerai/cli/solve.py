"""``pokerai solve``: a small game (Kuhn, Leduc, AKQ) solved by a tabular CFR-family solver.

    pokerai solve --game kuhn --algorithm cfr+ --iterations N [--seed S] [--eval-every K] [--json]

The options that name a small game (``--game``, ``--bet-size``) and the policy table of the report
are shared with ``pokerai qre`` (:mod:`pokerai.cli.qre`).
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from typing import TYPE_CHECKING

from pokerai.cli.arguments import UsageError, choice, number
from pokerai.cli.output import emit, progress_bar

if TYPE_CHECKING:
    from pokerai.games.protocol import Game
    from pokerai.solvers.solve import SolveResult

POLICY_TABLE_LIMIT = 40
"""Print the policy in the human-readable output for games with at most this many infosets."""
GAME_NAMES = ("kuhn", "leduc", "akq")
"""The small games of ``solve`` and ``qre`` (``pokerai.games.GAME_NAMES``, which a test holds equal)."""
DCFR_EXPONENTS = (
    ("alpha", "positive-regret discount", 1.5),
    ("beta", "negative-regret discount", 0.0),
    ("gamma", "average-strategy", 2.0),
)
"""DCFR's exponents: option name, what it weighs, default."""


def add_game_arguments(parser: argparse.ArgumentParser) -> None:
    """``--game`` and ``--bet-size``, on ``parser``."""
    parser.add_argument("--game", required=True, type=choice("game", GAME_NAMES),
                        metavar="{" + ",".join(GAME_NAMES) + "}")  # fmt: skip
    parser.add_argument("--bet-size", type=number("bet size", float, positive=True), default=None,
                        metavar="B", help="AKQ bet as a fraction of the pot (default 1)")  # fmt: skip


def check_bet_size(args: argparse.Namespace) -> None:
    """A :class:`UsageError` unless ``--bet-size`` is left out or the game is akq."""
    if args.bet_size is not None and args.game != "akq":
        raise UsageError(f"--bet-size only applies to the akq game, not {args.game}")


def make_small_game(args: argparse.Namespace) -> Game:
    """The game of ``--game`` and ``--bet-size``; a bad pair is a :class:`UsageError`."""
    from pokerai.games import make_game

    check_bet_size(args)
    try:
        return make_game(args.game, bet_size=args.bet_size)
    except ValueError as error:
        raise UsageError(str(error)) from None


def policy_lines(table: Mapping[str, Mapping[str, float]], title: str, digits: int) -> list[str]:
    """The report's policy: a row an information set under ``title``, or a pointer to ``--json`` when
    there are more than :data:`POLICY_TABLE_LIMIT`."""
    if len(table) > POLICY_TABLE_LIMIT:
        return ["", f"({len(table)} information sets; use --json for the full policy)"]
    lines = ["", title]
    width = max(len(key) for key in table)
    for key, row in table.items():
        actions = "  ".join(f"{name} {p:.{digits}f}" for name, p in row.items())
        lines.append(f"  {key:<{width}}  {actions}")
    return lines


def labelled(*rows: tuple[str, str]) -> list[str]:
    """The head of a report: a line a ``(label, value)`` row, the values lined up two spaces after the
    longest label."""
    width = max(len(label) for label, _ in rows) + 2
    return [f"{label:<{width}}{value}" for label, value in rows]


DESCRIPTION = "Solve Kuhn, Leduc or the AKQ game and report exact exploitability."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``solve`` options and handler, on ``parser``."""
    from pokerai.solvers.solve import ALGORITHMS

    add_game_arguments(parser)
    parser.add_argument("--algorithm", required=True, type=choice("algorithm", ALGORITHMS),
                        metavar="{" + ",".join(ALGORITHMS) + "}")  # fmt: skip
    parser.add_argument("--iterations", required=True, type=number("iterations", int, positive=True),
                        metavar="N")  # fmt: skip
    parser.add_argument(
        "--seed",
        type=number("seed", int, positive=False),
        default=0,
        help="seed of the MCCFR samplers (default 0)",
    )
    parser.add_argument("--eval-every", type=number("eval-every", int, positive=True), default=None,
                        metavar="K",
                        help="measure exploitability every K iterations "
                             "(default: at 1, 2, 5, 10, 20, 50, ... and the end)")  # fmt: skip
    for name, weighs, default in DCFR_EXPONENTS:
        parser.add_argument(
            f"--{name}",
            type=number(name, float, positive=False),
            default=None,
            help=f"DCFR {weighs} exponent (default {default:g})",
        )
    parser.add_argument(
        "--json", action="store_true", help="print one JSON object on stdout instead of tables"
    )
    parser.set_defaults(handler=run_solve)


def run_solve(args: argparse.Namespace) -> int:
    from pokerai.solvers.solve import solve

    if args.seed < 0:
        raise UsageError(f"seed must be a non-negative whole number, got {args.seed}")
    check_bet_size(args)
    given = [getattr(args, name) for name, _, _ in DCFR_EXPONENTS]
    dcfr_exponents = None
    if any(x is not None for x in given):
        if args.algorithm != "dcfr":
            raise UsageError("--alpha, --beta and --gamma only apply to --algorithm dcfr")
        alpha, beta, gamma = (
            default if x is None else x for x, (_, _, default) in zip(given, DCFR_EXPONENTS, strict=True)
        )
        dcfr_exponents = (alpha, beta, gamma)
    game = make_small_game(args)
    from pokerai.jit import compile_notice

    progress = progress_bar(args.iterations)
    try:
        with compile_notice():
            result = solve(
                game,
                args.algorithm,
                args.iterations,
                seed=args.seed,
                eval_every=args.eval_every,
                dcfr_exponents=dcfr_exponents,
                on_progress=progress.update_to if progress else None,
            )
    finally:
        if progress:
            progress.close()
    emit(result.to_json(), format_result(result), args.json)
    return 0


def format_result(result: SolveResult) -> str:
    """The human-readable report of ``pokerai solve``."""
    lines = labelled(
        ("game", result.game),
        ("algorithm", result.algorithm),
        ("iterations", str(result.iterations)),
        ("seconds", f"{result.seconds:.3f}"),
        ("exploitability", f"{result.exploitability:.6g}  (mean best-response gain, chips per game)"),
        ("game value", f"{result.game_value:+.6f}  (first player's expected return)"),
    )
    lines += ["", f"{'iteration':>10}  {'seconds':>9}  {'exploitability':>14}"]
    lines += [f"{i:>10}  {s:>9.3f}  {e:>14.6g}" for i, s, e in result.curve]
    title = "average policy (information set: action probabilities)"
    lines += policy_lines(result.policy.to_dict(), title, 3)
    return "\n".join(lines)


__all__ = [
    "DESCRIPTION",
    "GAME_NAMES",
    "add_arguments",
    "add_game_arguments",
    "check_bet_size",
    "format_result",
    "labelled",
    "make_small_game",
    "policy_lines",
    "run_solve",
]
