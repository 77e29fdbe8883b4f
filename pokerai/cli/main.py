"""The ``pokerai`` command line.

Errors in the arguments are one sentence on stderr and exit status 2, never a
traceback.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from collections.abc import Callable, Sequence
from importlib import import_module
from typing import TYPE_CHECKING, Any, NoReturn

from pokerai import __version__
from pokerai.cli.output import emit, progress_bar

if TYPE_CHECKING:
    from pokerai.solvers.qre import QREResult
    from pokerai.solvers.solve import SolveResult

USAGE_ERROR = 2
POLICY_TABLE_LIMIT = 40
"""Print the policy in the human-readable output for games with at most this many infosets."""
GAME_NAMES = ("kuhn", "leduc", "akq")
"""The small games of ``solve`` and ``qre`` (``pokerai.games.GAME_NAMES``, which a test holds equal)."""

COMMANDS: dict[str, tuple[str, str]] = {
    "solve": ("pokerai.cli.main", "solve a small game with a tabular CFR-family solver"),
    "equity": ("pokerai.cli.main", "all-in equity of two hands, exact or Monte Carlo"),
    "qre": ("pokerai.cli.main", "trace the logit quantal response equilibrium of a small game"),
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
    "play": ("pokerai.cli.play", "play heads-up no-limit hold'em against the bot in the terminal"),
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
"""Every command: the module whose ``register`` adds its parser, and its one-line help.

Only the command being run is registered in full, so ``pokerai --help`` and each command
import no more than they use (``tests/cli/test_startup.py`` holds the help lines equal).
"""


class UsageError(Exception):
    """A bad argument; the message is one sentence for the user."""


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line (no usage dump) and exit status 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(USAGE_ERROR, f"{self.prog}: error: {message}\n")


def _number(name: str, convert: Callable[[str], Any], *, positive: bool) -> Callable[[str], Any]:
    """An argparse type: ``convert`` the text, then require a finite (and positive) value."""
    noun = "whole number" if convert is int else "number"

    def parse(text: str) -> Any:
        try:
            value = convert(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be a {noun}, got {text!r}") from None
        if not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"{name} must be finite, got {text}")
        if positive and value <= 0:
            raise argparse.ArgumentTypeError(f"{name} must be a positive {noun}, got {text}")
        return value

    return parse


def _choice(name: str, choices: Sequence[str]) -> Callable[[str], str]:
    def parse(text: str) -> str:
        if text not in choices:
            raise argparse.ArgumentTypeError(f"unknown {name} {text!r}; choose one of {', '.join(choices)}")
        return text

    return parse


ALL_COMMANDS = "*"


def build_parser(command: str | None = ALL_COMMANDS) -> argparse.ArgumentParser:
    """The ``pokerai`` parser with ``command`` in full (every one for ``"*"``), the rest by name and help."""
    parser = _Parser(prog="pokerai", description="Heads-up poker AI: solvers, evaluation, play.")
    parser.add_argument("--version", action="version", version=f"pokerai {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    commands.required = True
    for name, (module, summary) in COMMANDS.items():
        if command in (ALL_COMMANDS, name):
            register = _BUILTIN[name] if module == __name__ else import_module(module).register
            register(commands)
        else:
            commands.add_parser(name, help=summary, add_help=False)
    return parser


def _register_solve(commands: Any) -> None:
    from pokerai.solvers.solve import ALGORITHMS

    solve_parser = commands.add_parser(
        "solve",
        help="solve a small game with a tabular CFR-family solver",
        description="Solve Kuhn, Leduc or the AKQ game and report exact exploitability.",
    )
    solve_parser.add_argument("--game", required=True, type=_choice("game", GAME_NAMES),
                              metavar="{" + ",".join(GAME_NAMES) + "}")  # fmt: skip
    solve_parser.add_argument("--bet-size", type=_number("bet size", float, positive=True), default=None,
                              metavar="B", help="AKQ bet as a fraction of the pot (default 1)")  # fmt: skip
    solve_parser.add_argument("--algorithm", required=True, type=_choice("algorithm", ALGORITHMS),
                              metavar="{" + ",".join(ALGORITHMS) + "}")  # fmt: skip
    solve_parser.add_argument("--iterations", required=True, type=_number("iterations", int, positive=True),
                              metavar="N")  # fmt: skip
    solve_parser.add_argument(
        "--seed",
        type=_number("seed", int, positive=False),
        default=0,
        help="seed of the MCCFR samplers (default 0)",
    )
    solve_parser.add_argument("--eval-every", type=_number("eval-every", int, positive=True), default=None,
                              metavar="K",
                              help="measure exploitability every K iterations "
                                   "(default: at 1, 2, 5, 10, 20, 50, ... and the end)")  # fmt: skip
    solve_parser.add_argument(
        "--alpha",
        type=_number("alpha", float, positive=False),
        default=None,
        help="DCFR positive-regret discount exponent (default 1.5)",
    )
    solve_parser.add_argument(
        "--beta",
        type=_number("beta", float, positive=False),
        default=None,
        help="DCFR negative-regret discount exponent (default 0)",
    )
    solve_parser.add_argument(
        "--gamma",
        type=_number("gamma", float, positive=False),
        default=None,
        help="DCFR average-strategy exponent (default 2)",
    )
    solve_parser.add_argument(
        "--json", action="store_true", help="print one JSON object on stdout instead of tables"
    )
    solve_parser.set_defaults(handler=_run_solve)


def _register_equity(commands: Any) -> None:
    equity_parser = commands.add_parser(
        "equity",
        help="all-in equity of two hands, exact or Monte Carlo",
        description="Equity (win + tie/2) of two hold'em hands on a partial board: exact "
        "enumeration of every board by default, Monte Carlo with --samples.",
    )
    equity_parser.add_argument("hand_a", metavar="HAND_A", help="first hand, e.g. AhKh")
    equity_parser.add_argument("hand_b", metavar="HAND_B", help="second hand, e.g. QsQd")
    equity_parser.add_argument("--board", default="", help="up to 5 known board cards, e.g. Ks7d2c")
    equity_parser.add_argument("--samples", type=_number("samples", int, positive=True), default=None,
                               metavar="N", help="sample N boards instead of enumerating all")  # fmt: skip
    equity_parser.add_argument("--seed", type=_number("seed", int, positive=False), default=0,
                               help="seed of the board sampler (default 0)")  # fmt: skip
    equity_parser.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    equity_parser.set_defaults(handler=_run_equity)


def _register_qre(commands: Any) -> None:
    qre_parser = commands.add_parser(
        "qre",
        help="trace the logit quantal response equilibrium of a small game",
        description="Trace the agent logit QRE of Kuhn, Leduc or the AKQ game from λ = 0 and "
        "report it at the requested rationalities λ.",
    )
    qre_parser.add_argument("--game", required=True, type=_choice("game", GAME_NAMES),
                            metavar="{" + ",".join(GAME_NAMES) + "}")  # fmt: skip
    qre_parser.add_argument("--bet-size", type=_number("bet size", float, positive=True), default=None,
                            metavar="B", help="AKQ bet as a fraction of the pot (default 1)")  # fmt: skip
    qre_parser.add_argument("--lambdas", required=True, type=_lambdas, metavar="L1,L2,...",
                            help="comma-separated rationalities λ >= 0, e.g. 0.1,1,10,100,1000")  # fmt: skip
    qre_parser.add_argument(
        "--json", action="store_true", help="print one JSON object on stdout instead of tables"
    )
    qre_parser.set_defaults(handler=_run_qre)


def _lambdas(text: str) -> list[float]:
    """An argparse type: a comma-separated list of finite non-negative numbers."""
    parse = _number("λ", float, positive=False)
    values = [parse(part.strip()) for part in text.split(",")]
    for value in values:
        if value < 0:
            raise argparse.ArgumentTypeError(f"λ must be non-negative, got {value:g}")
    return values


def _run_qre(args: argparse.Namespace) -> int:
    from pokerai.games import make_game
    from pokerai.solvers.qre import QREError, trace_logit_qre

    if args.bet_size is not None and args.game != "akq":
        raise UsageError(f"--bet-size only applies to the akq game, not {args.game}")
    try:
        game = make_game(args.game, bet_size=args.bet_size)
    except ValueError as error:
        raise UsageError(str(error)) from None
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
    lines = [
        f"game     {result.game}",
        f"seconds  {result.seconds:.3f}  ({result.steps} path steps)",
        "",
        f"{'lambda':>10}  {'exploitability':>14}  {'game value':>11}  {'residual':>9}  {'mean entropy':>12}",
    ]
    for point in result.points:
        lines.append(f"{point.rationality:>10g}  {point.exploitability:>14.6g}  "
                     f"{point.player_values[0]:>+11.6f}  {point.residual:>9.1e}  "
                     f"{float(point.entropy.mean()):>12.6f}")  # fmt: skip
    last = result.points[-1]
    table = last.policy.to_dict()
    if len(table) <= POLICY_TABLE_LIMIT:
        lines += ["", f"policy at lambda = {last.rationality:g} (information set: action probabilities)"]
        width = max(len(key) for key in table)
        for key, row in table.items():
            actions = "  ".join(f"{name} {p:.4f}" for name, p in row.items())
            lines.append(f"  {key:<{width}}  {actions}")
    else:
        lines += ["", f"({len(table)} information sets; use --json for the full policy)"]
    return "\n".join(lines)


def _run_equity(args: argparse.Namespace) -> int:
    from pokerai.engine.equity import describe, equity

    if args.seed < 0:
        raise UsageError(f"seed must be a non-negative whole number, got {args.seed}")
    try:
        result = equity(args.hand_a, args.hand_b, args.board, samples=args.samples, seed=args.seed)
    except ValueError as error:
        raise UsageError(str(error)) from None
    emit(result.to_json(), describe(result), args.json)
    return 0


def _run_solve(args: argparse.Namespace) -> int:
    from pokerai.games import make_game
    from pokerai.solvers.solve import solve

    if args.seed < 0:
        raise UsageError(f"seed must be a non-negative whole number, got {args.seed}")
    if args.bet_size is not None and args.game != "akq":
        raise UsageError(f"--bet-size only applies to the akq game, not {args.game}")
    exponents = (args.alpha, args.beta, args.gamma)
    dcfr_exponents = None
    if any(x is not None for x in exponents):
        if args.algorithm != "dcfr":
            raise UsageError("--alpha, --beta and --gamma only apply to --algorithm dcfr")
        defaults = (1.5, 0.0, 2.0)
        alpha, beta, gamma = (d if x is None else x for x, d in zip(exponents, defaults, strict=True))
        dcfr_exponents = (alpha, beta, gamma)
    try:
        game = make_game(args.game, bet_size=args.bet_size)
    except ValueError as error:
        raise UsageError(str(error)) from None
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
    lines = [
        f"game            {result.game}",
        f"algorithm       {result.algorithm}",
        f"iterations      {result.iterations}",
        f"seconds         {result.seconds:.3f}",
        f"exploitability  {result.exploitability:.6g}  (mean best-response gain, chips per game)",
        f"game value      {result.game_value:+.6f}  (first player's expected return)",
        "",
        f"{'iteration':>10}  {'seconds':>9}  {'exploitability':>14}",
    ]
    lines += [f"{i:>10}  {s:>9.3f}  {e:>14.6g}" for i, s, e in result.curve]
    table = result.policy.to_dict()
    if len(table) <= POLICY_TABLE_LIMIT:
        lines += ["", "average policy (information set: action probabilities)"]
        width = max(len(key) for key in table)
        for key, row in table.items():
            actions = "  ".join(f"{name} {p:.3f}" for name, p in row.items())
            lines.append(f"  {key:<{width}}  {actions}")
    else:
        lines += ["", f"({len(table)} information sets; use --json for the full policy)"]
    return "\n".join(lines)


_BUILTIN: dict[str, Callable[[Any], None]] = {
    "solve": _register_solve,
    "equity": _register_equity,
    "qre": _register_qre,
}


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
        print(f"pokerai {args.command}: error: {error}", file=sys.stderr)
        return USAGE_ERROR
    except KeyboardInterrupt:
        print("pokerai: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # e.g. ``pokerai agents | head``: the reader left; say nothing more
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
