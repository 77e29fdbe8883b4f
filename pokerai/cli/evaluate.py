"""``pokerai eval``: duplicate matches between two agents, or local best response against one.

    pokerai eval --a SPEC --b SPEC --pairs N [--seed S] [--workers W] [--json] [--log PATH] [--no-aivat]
    pokerai eval --lbr --a SPEC --hands N [--lbr-menu NAME] [--seed S] [--workers W] [--json] [--no-aivat]
    pokerai eval ... --workers W --ray-address ADDRESS        # W chunks at a time on a Ray cluster

AIVAT (:mod:`pokerai.eval.aivat`) is on whenever a seat's policy is known; the
text output prints it under the plain estimate and ``--json`` adds the key
``aivat``. ``--lbr-menu lisy-bowling`` is Lisý & Bowling's headline LBR.

:data:`DESCRIPTION` and :func:`add_arguments` make the subcommand's parser
(:func:`pokerai.cli.commands.register`). Bad input is one sentence on stderr
(``pokerai eval: error: ...``) and exit status 2, never a traceback: the handler reports its
own errors.
"""

from __future__ import annotations

import argparse
import math
import os
from collections.abc import Sequence
from pathlib import Path

from pokerai.agents.base import Agent
from pokerai.agents.table import load_agent
from pokerai.cli.arguments import (
    USAGE_ERROR,
    Parser,
    add_agent,
    add_count,
    add_ray_address,
    seed,
    usage_error,
)
from pokerai.cli.output import emit, progress_reporter
from pokerai.cluster import DistributedError, connect
from pokerai.eval.aivat import AIVATSummary
from pokerai.eval.duplicate import DuplicateResult, Estimate, ScoredMatch, duplicate_match
from pokerai.eval.lbr import LBR_MENUS, STREET_NAMES, LBRConfig, LBRResult, lbr_match
from pokerai.jit import compile_notice


class EvalUsageError(ValueError):
    """A bad argument of ``pokerai eval``; the message is one sentence for the user."""


def _fractions(text: str) -> tuple[float, ...]:
    values = []
    for part in text.split(","):
        try:
            value = float(part)
        except ValueError:
            raise argparse.ArgumentTypeError(f"bet fraction {part!r} is not a number") from None
        if not math.isfinite(value) or value <= 0:
            raise argparse.ArgumentTypeError(f"bet fraction {part!r} must be a positive number")
        values.append(value)
    return tuple(values)


def _streets(text: str) -> tuple[int, ...]:
    if text.strip().lower() == "none":
        return ()
    streets = []
    for part in text.split(","):
        name = part.strip().lower()
        if name not in STREET_NAMES:
            raise argparse.ArgumentTypeError(
                f"unknown street {part!r}; choose from {', '.join(STREET_NAMES)} (comma-separated) or none"
            )
        streets.append(STREET_NAMES.index(name))
    return tuple(sorted(set(streets)))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``eval`` options and handler, on ``parser``."""
    add_agent(
        parser, "--a", "agent A (duplicate) or the LBR target, e.g. heuristic (all specs: pokerai agents)"
    )
    add_agent(parser, "--b", "agent B of a duplicate match (all specs: pokerai agents)")
    add_count(parser, "--pairs", "deal pairs of a duplicate match (each played twice, seats swapped)")
    parser.add_argument(
        "--swap-cards",
        action="store_true",
        help="also play each pair with the hole cards exchanged (4 hands a pair; cancels more luck)",
    )
    parser.add_argument("--lbr", action="store_true", help="score local best response against --a")
    add_count(parser, "--hands", "hands of an LBR run")
    parser.add_argument("--seed", type=seed, default=0, help="seed of the deals and agents (default 0)")
    add_count(
        parser,
        "--workers",
        "processes to play in, or Ray tasks at a time (default 1; the result does not depend on it)",
        default=1,
        metavar="W",
    )
    add_ray_address(parser)
    parser.add_argument(
        "--log", metavar="PATH", help="write every hand as an ACPC STATE line (duplicate only)"
    )
    parser.add_argument(
        "--lbr-menu",
        choices=sorted(LBR_MENUS),
        default=None,
        metavar="NAME",
        help=f"LBR's named menu, one of {', '.join(sorted(LBR_MENUS))} (default: default; lisy-bowling: "
        "fold or call preflop, fold, call, pot and all-in after); the --lbr-* options below override it",
    )
    parser.add_argument(
        "--lbr-bets",
        type=_fractions,
        default=None,
        metavar="F[,F...]",
        help="LBR raise sizes as fractions of the pot (default 1 = pot-size)",
    )
    parser.add_argument("--lbr-no-allin", action="store_true", help="LBR does not consider going all-in")
    parser.add_argument(
        "--lbr-raise-streets",
        type=_streets,
        default=None,
        metavar="STREETS",
        help="streets on which LBR may raise, e.g. flop,turn,river or none (default: all); "
        "elsewhere it folds, checks or calls",
    )
    add_count(
        parser,
        "--lbr-runouts",
        "boards LBR samples for equity before the turn (default 100)",
        name="LBR runouts",
    )
    parser.add_argument(
        "--no-aivat",
        action="store_true",
        help="do not compute the AIVAT estimate (by default it is computed whenever a seat's policy "
        "is known: a blueprint, a search agent or a baseline; not heuristic)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    parser.set_defaults(handler=run_eval)


DESCRIPTION = (
    "Duplicate match of --a against --b (every deal played twice with the seats "
    "swapped; mbb/hand for A with a 95% confidence interval over deal pairs), or with --lbr "
    "local best response against --a (a lower bound on its exploitability)."
)


def _agent(spec: str | None, option: str) -> Agent:
    if spec is None:
        raise EvalUsageError(f"{option} SPEC is required")
    try:
        return load_agent(spec, option)[0]
    except ValueError as error:
        raise EvalUsageError(str(error)) from None


def _check_log_path(path: str) -> None:
    folder = Path(path).parent
    if not folder.is_dir():
        raise EvalUsageError(f"cannot write the log {path!r}: folder {str(folder)!r} does not exist")
    if Path(path).is_dir():
        raise EvalUsageError(f"cannot write the log {path!r}: it is a folder")
    if not os.access(folder, os.W_OK):
        raise EvalUsageError(f"cannot write the log {path!r}: folder {str(folder)!r} is not writable")


def _lbr_config(args: argparse.Namespace) -> LBRConfig:
    default = LBR_MENUS[args.lbr_menu if args.lbr_menu is not None else "default"]
    streets = args.lbr_raise_streets
    return LBRConfig(
        bet_fractions=args.lbr_bets if args.lbr_bets is not None else default.bet_fractions,
        all_in=default.all_in and not args.lbr_no_allin,
        raise_streets=streets if streets is not None else default.raise_streets,
        runouts=args.lbr_runouts if args.lbr_runouts is not None else default.runouts,
    )


def _validate(args: argparse.Namespace) -> None:
    lbr_only = [
        ("--hands", args.hands is not None),
        ("--lbr-menu", args.lbr_menu is not None),
        ("--lbr-bets", args.lbr_bets is not None),
        ("--lbr-no-allin", args.lbr_no_allin),
        ("--lbr-raise-streets", args.lbr_raise_streets is not None),
        ("--lbr-runouts", args.lbr_runouts is not None),
    ]
    if args.lbr:
        if args.b is not None or args.pairs is not None:
            raise EvalUsageError("--lbr plays against --a alone; --b and --pairs are for duplicate matches")
        if args.log is not None:
            raise EvalUsageError("--log applies only to duplicate matches, not to --lbr")
        if args.hands is None:
            raise EvalUsageError("--lbr needs --hands N")
    else:
        used = [name for name, given in lbr_only if given]
        if used:
            raise EvalUsageError(f"{used[0]} applies only with --lbr")
        if args.pairs is None:
            raise EvalUsageError("a duplicate match needs --pairs N (or use --lbr with --hands N)")
        if args.log is not None:
            _check_log_path(args.log)


def run_eval(args: argparse.Namespace) -> int:
    """The ``eval`` handler: prints the result; a bad argument prints one line and returns 2."""
    try:
        _validate(args)
        if args.ray_address is not None:  # before the agents load: a bad address fails at once
            connect(args.ray_address, args.workers)
        agent_a = _agent(args.a, "--a")
        if args.lbr:
            with compile_notice():
                return _run_lbr(args, agent_a)
        agent_b = _agent(args.b, "--b")
        with compile_notice():
            return _run_duplicate(args, agent_a, agent_b)
    except (EvalUsageError, DistributedError) as error:
        return usage_error("eval", error)


def _run_duplicate(args: argparse.Namespace, agent_a: Agent, agent_b: Agent) -> int:
    progress = progress_reporter(args.pairs, "pair", "duplicate match")
    try:
        result = duplicate_match(
            agent_a,
            agent_b,
            args.pairs,
            seed=args.seed,
            workers=args.workers,
            log_path=args.log,
            on_progress=progress.update_to,
            names=(args.a.strip(), args.b.strip()),
            swap_cards=args.swap_cards,
            aivat=False if args.no_aivat else None,
            address=args.ray_address,
        )
    except OSError as error:
        raise EvalUsageError(f"cannot write the log {args.log!r}: {error.strerror or error}") from None
    finally:
        progress.close()
    emit(result.to_json(), format_duplicate(result, log=args.log), args.json)
    return 0


def _run_lbr(args: argparse.Namespace, target: Agent) -> int:
    try:
        lbr_config = _lbr_config(args)
    except ValueError as error:
        raise EvalUsageError(str(error)) from None
    progress = progress_reporter(args.hands, "hand", "LBR")
    try:
        result = lbr_match(
            target,
            args.hands,
            seed=args.seed,
            lbr_config=lbr_config,
            workers=args.workers,
            on_progress=progress.update_to,
            name=args.a.strip(),
            aivat=False if args.no_aivat else None,
            address=args.ray_address,
        )
    except ValueError as error:
        if "action probabilities" in str(error):
            raise EvalUsageError(f"--a {args.a}: {error}") from None
        raise
    finally:
        progress.close()
    emit(result.to_json(), format_lbr(result), args.json)
    return 0


def _signed(value: float) -> str:
    return f"{value:+,.1f}"


def _workers(result: ScoredMatch) -> str:
    """``2 workers``, or ``2 Ray tasks at a time``."""
    if result.on_ray:
        return f"{result.workers} Ray task{'s' if result.workers != 1 else ''} at a time"
    return f"{result.workers} worker{'s' if result.workers != 1 else ''}"


def format_duplicate(result: DuplicateResult, log: str | None = None) -> str:
    """The human-readable report of a duplicate match."""
    estimate, plain = result.estimate, result.plain_estimate
    plural = "s" if result.pairs != 1 else ""
    lines = [
        f"{result.a} vs {result.b}: duplicate match, {result.pairs:,} deal pair{plural} "
        f"({result.hands:,} hands), seed {result.seed}",
        f"{result.a} wins {_signed(estimate.mean)} mbb/hand, 95% CI "
        f"[{_signed(estimate.low)}, {_signed(estimate.high)}] over deal pairs",
        f"  (the same hands taken as independent: ±{plain.half_width:,.1f} instead of "
        f"±{estimate.half_width:,.1f})",
        f"{result.hands:,} hands in {result.seconds:.2f} s ({result.hands_per_second:,.0f} hands/s, "
        f"{_workers(result)})",
    ]
    lines.extend(_aivat_lines(result.aivat, estimate, result.aivat_seconds))
    if log is not None:
        lines.append(f"hand histories (ACPC STATE lines) written to {log}")
    return "\n".join(lines)


def _aivat_lines(aivat: AIVATSummary | None, plain: Estimate, seconds: float) -> list[str]:
    """The AIVAT line of a report (or why there is none)."""
    if aivat is None:
        return ["AIVAT: off (no seat's policy is known, or --no-aivat)"]
    low, high = aivat.ci95
    ratio = (high - low) / (plain.high - plain.low) if plain.high > plain.low else float("nan")
    return [
        f"AIVAT: {_signed(aivat.mbb_per_hand)} mbb/hand, 95% CI [{_signed(low)}, {_signed(high)}] "
        f"(±{(high - low) / 2:,.1f}: {ratio:.2f} of the plain interval's width, "
        f"{aivat.variance_reduction:.0%} of its variance removed; {seconds:.1f} s of estimating)"
    ]


def format_lbr(result: LBRResult) -> str:
    """The human-readable report of an LBR run."""
    estimate = result.estimate
    menu = result.config.describe()
    sizes = ", ".join(f"{fraction:g} pot" for fraction in menu["bet_fractions"])
    raises = ", ".join(menu["raise_streets"]) or "no street"
    return "\n".join(
        [
            f"local best response against {result.target}: {result.hands:,} hands, seed {result.seed}",
            f"LBR wins {_signed(estimate.mean)} mbb/hand, 95% CI [{_signed(estimate.low)}, "
            f"{_signed(estimate.high)}]",
            f"  menu: fold, check/call, {sizes}{', all-in' if menu['all_in'] else ''}; raises on {raises}; "
            f"{menu['runouts']} sampled runouts",
            f"{result.hands:,} hands in {result.seconds:.2f} s ({result.hands_per_second:,.1f} hands/s, "
            f"{_workers(result)})",
            *_aivat_lines(result.aivat, estimate, result.aivat_seconds),
        ]
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``eval`` on its own (``argv`` without the ``eval`` word); returns the exit status."""
    parser = Parser(prog="pokerai eval")
    add_arguments(parser)
    try:
        args = parser.parse_args(argv)
    except SystemExit as stop:
        return stop.code if isinstance(stop.code, int) else USAGE_ERROR
    return run_eval(args)


__all__ = [
    "DESCRIPTION",
    "EvalUsageError",
    "add_arguments",
    "format_duplicate",
    "format_lbr",
    "main",
    "run_eval",
]
