"""``pokerai report``: an agent against the baselines, the exploiter panel and LBR, in one table.

    pokerai report --a SPEC [--hands N] [--seed S] [--workers W] [--ray-address ADDRESS] [--out DIR]

Writes ``report.md``, ``report.json`` and ``report.png`` into DIR (default
``runs/report``) and prints the Markdown table. Bad input is one sentence on
stderr and exit status 2.
"""

from __future__ import annotations

import argparse
import shlex

from pokerai.cli.arguments import add_count, add_ray_address, seed, usage_error
from pokerai.cli.output import progress_reporter
from pokerai.cluster import DistributedError, connect
from pokerai.eval.lbr import LBR_MENUS
from pokerai.eval.report import BASELINES, PANEL, REPORT_LBR_MENUS, strength_report
from pokerai.jit import compile_notice

DEFAULT_OUT = "runs/report"


def _specs(text: str) -> tuple[str, ...]:
    specs = tuple(part.strip() for part in text.split(",") if part.strip())
    if not specs:
        raise argparse.ArgumentTypeError("give at least one opponent spec (comma-separated)")
    return specs


def _menus(text: str) -> tuple[str, ...]:
    if text.strip().lower() == "none":
        return ()
    menus = tuple(part.strip() for part in text.split(","))
    for menu in menus:
        if menu not in LBR_MENUS:
            raise argparse.ArgumentTypeError(
                f"unknown LBR menu {menu!r}; menus: {', '.join(LBR_MENUS)} or none"
            )
    return menus


def _command(args: argparse.Namespace) -> str:
    """The full command that reproduces this report (every option spelled out but --ray-address: the
    figures do not depend on where they were played, and a cluster's address names its hosts)."""
    words = [
        "pokerai", "report", "--a", args.a.strip(), "--hands", str(args.hands), "--seed", str(args.seed),
        "--workers", str(args.workers), "--out", args.out,
    ]  # fmt: skip
    if tuple(args.opponents) != BASELINES + PANEL:
        words += ["--opponents", ",".join(args.opponents)]
    if tuple(args.lbr_menus) != REPORT_LBR_MENUS:
        words += ["--lbr-menus", ",".join(args.lbr_menus) or "none"]
    return " ".join(shlex.quote(word) for word in words)


DESCRIPTION = (
    "Play --a in duplicate against the baselines "
    f"({', '.join(BASELINES)}) and the exploiter panel ({', '.join(PANEL)}), and run local best "
    f"response against it ({', '.join(REPORT_LBR_MENUS)} menus). Every row has the plain estimate "
    "and, where a seat's policy is known, the AIVAT one. Writes report.md, report.json and "
    "report.png."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``report`` options and handler, on ``parser``."""
    parser.add_argument(
        "--a", metavar="SPEC", required=True, help="the agent to report on (all specs: pokerai agents)"
    )
    add_count(parser, "--hands", "hands a row (default 1000)", default=1000)
    parser.add_argument("--seed", type=seed, default=0, help="seed of the deals and agents (default 0)")
    add_count(
        parser,
        "--workers",
        "processes to play in, or Ray tasks at a time (default 1)",
        default=1,
        metavar="W",
    )
    add_ray_address(parser)
    parser.add_argument(
        "--out", default=DEFAULT_OUT, metavar="DIR", help=f"folder for the report (default {DEFAULT_OUT})"
    )
    parser.add_argument(
        "--opponents",
        type=_specs,
        default=BASELINES + PANEL,
        metavar="SPEC[,SPEC...]",
        help="duplicate opponents (default: the baselines and the panel)",
    )
    parser.add_argument(
        "--lbr-menus",
        type=_menus,
        default=REPORT_LBR_MENUS,
        metavar="MENU[,MENU...]",
        help=f"LBR menus to run, or none (default: {','.join(REPORT_LBR_MENUS)})",
    )
    parser.set_defaults(handler=run_report)


def run_report(args: argparse.Namespace) -> int:
    """The ``report`` handler: runs the report, writes it, prints the table."""
    if args.hands < 2:
        return usage_error("report", "--hands must be at least 2 (duplicate pairs)")
    total_rows = len(args.opponents) + len(args.lbr_menus)
    progress = progress_reporter(
        args.hands // 2 * 2 * len(args.opponents) + args.hands * len(args.lbr_menus), "hand", "report"
    )
    command = _command(args)
    try:
        if args.ray_address is not None:  # before the agents load: a bad address fails at once
            connect(args.ray_address, args.workers)
        with compile_notice():
            report = strength_report(
                args.a.strip(),
                args.hands,
                seed=args.seed,
                workers=args.workers,
                opponents=args.opponents,
                lbr_menus=args.lbr_menus,
                command=command,
                on_progress=progress.update_to,
                address=args.ray_address,
            )
    except (ValueError, DistributedError) as error:
        return usage_error("report", error)
    except OSError as error:
        return usage_error("report", f"--a {args.a}: {error.strerror or error}")
    finally:
        progress.close()
    try:
        paths = report.write(args.out)
    except OSError as error:
        return usage_error("report", f"cannot write to {args.out!r}: {error.strerror or error}")
    print(report.to_markdown())
    print(f"{len(report.rows)} of {total_rows} rows; written to {', '.join(str(path) for path in paths)}")
    return 0


__all__ = ["DESCRIPTION", "add_arguments", "run_report"]
