"""``pokerai spot``: solve a postflop spot, range against range, to the end of the river.

    pokerai spot --board Td9d6hQc --oop "66+,A8s+,AJo+" --ip "QQ-22,ATo+,K5s+" --pot 200 --stack 900 \\
        [--bets "60%,e,a"] [--raises 2.5x] [--sizes river.ip=75%,a/3x ...] [--raise-cap N] \\
        [--target PCT] [--iterations N] [--threads N] [--max-memory GB] [--lock PATH=STRATEGY ...] \\
        [--save PATH] [--json]
    pokerai spot --load PATH [--json]

Before solving, stderr gets the tree's size and the memory the solve needs (a spot over
``--max-memory`` is refused in one sentence), then the exploitability as it falls. stdout gets the
result: iterations, seconds, exploitability in % of the pot, each player's EV, and the root's
strategy by hand class with each class's EV and equity; with ``--json``, the whole solution as one
JSON object (:meth:`pokerai.solvers.postflop.SpotSolution.to_json`).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pokerai.cli.arguments import UsageError, checked, count, finite, number
from pokerai.cli.output import emit
from pokerai.cli.spot_output import STREETS, SolveProgress, describe_spot, format_solution

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from pokerai.solvers.postflop import Spot, SpotSolution

SIZE_PLAYERS = ("oop", "ip", "both")
DEFAULT_BETS = "60%,e,a"
DEFAULT_RAISES = "2.5x"
MEMORY_SHARE = 0.8
"""The default ``--max-memory``: this share of the memory available now."""
SPOT_OPTIONS = ("board", "oop", "ip", "pot", "stack", "bets", "raises", "sizes", "raise_cap", "lock")
"""The options that describe a spot to solve, which ``--load`` does not take."""
REQUIRED = ("board", "oop", "ip", "pot", "stack")

DESCRIPTION = """\
Solve a postflop spot range against range to the end of the river (every turn and river card,
suit-isomorphic ones merged; Discounted CFR) until the exploitability is at most --target % of the
pot, and print the root's strategy by hand class with EV and equity. For example:

  pokerai spot --board Td9d6hQc --oop "66+,A8s+,A5s-A4s,AJo+,K9s+,KQo" --ip "QQ-22,AQs-A2s,ATo+,K5s+" \\
      --pot 200 --stack 900 --bets "60%,e,a" --raises 2.5x --target 0.5 --threads 2 --save turn.spot
  pokerai spot --load turn.spot --json
"""
EPILOG = """\
Sizes read as postflop-solver's: bets "60%" of the pot, "e" geometric, "a" all-in, "100c" chips;
raises "2.5x" the bet faced, "60%", "a". --sizes STREET.PLAYER=BETS/RAISES (street flop, turn or
river; player oop, ip or both; /RAISES left out: --raises) sets other sizes there, e.g.
--sizes river.ip=75%,a/3x. --lock PATH=STRATEGY fixes the acting player's strategy at a node for
every hand: PATH is action labels joined by "/" (with a card where one comes; "root" for the root),
STRATEGY is LABEL:FREQUENCY pairs, e.g. --lock "Check=Bet 60:0.5,Check:0.5"; unnamed actions get 0.
"""


def size_override(text: str) -> tuple[str, str, str, str | None]:
    """An argparse type: ``STREET.PLAYER=BETS[/RAISES]`` -> ``(street, player, bets, raises)``; raises left
    out are None (:func:`spot_config` puts ``--raises`` there)."""
    where, equals, sizes = text.partition("=")
    street, dot, player = where.strip().lower().partition(".")
    if not equals or not dot:
        raise argparse.ArgumentTypeError(
            f"sizes are STREET.PLAYER=BETS/RAISES (e.g. river.ip=75%,a/3x), got {text!r}"
        )
    if street not in STREETS or player not in SIZE_PLAYERS:
        raise argparse.ArgumentTypeError(
            f"sizes name a street (flop, turn or river) and a player (oop, ip or both), got {where.strip()!r}"
        )
    bets, slash, raises = sizes.partition("/")
    return (street, player, bets, raises if slash else None)


def lock_option(text: str) -> tuple[tuple[str, ...], dict[str, float]]:
    """An argparse type: ``PATH=LABEL:FREQ,...`` -> (path, {action label: frequency})."""
    where, equals, strategy = text.partition("=")
    if not equals or not strategy.strip():
        raise argparse.ArgumentTypeError(
            f"a lock must be PATH=LABEL:FREQUENCY,... (e.g. Check=Bet 60:1), got {text!r}"
        )
    path = () if where.strip() in ("", "root") else tuple(step.strip() for step in where.split("/"))
    frequencies: dict[str, float] = {}
    for item in strategy.split(","):
        label, colon, value = item.rpartition(":")
        try:
            frequency = float(value)
        except ValueError:
            frequency = -1.0
        if not colon or not label.strip() or not 0 <= frequency <= 1:
            raise argparse.ArgumentTypeError(
                f"a lock's strategy is LABEL:FREQUENCY pairs from 0 to 1, got {item!r}"
            )
        frequencies[label.strip()] = frequency
    return path, frequencies


def available_memory() -> int | None:
    """Bytes of memory available now (``MemAvailable`` of /proc/meminfo, else the free physical pages);
    None where neither can be read."""
    try:
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return None


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``spot`` options and handler, on ``parser``."""
    parser.formatter_class = argparse.RawDescriptionHelpFormatter  # keep the examples' lines
    spot = parser.add_argument_group("the spot")
    spot.add_argument("--board", help="3, 4 or 5 board cards, e.g. Td9d6hQc (the spot starts on that street)")
    spot.add_argument(
        "--oop", metavar="RANGE", help='range of the player out of position, e.g. "66+,A8s+,AKs:0.5"'
    )
    spot.add_argument("--ip", metavar="RANGE", help="range of the player in position")
    spot.add_argument("--pot", type=count("pot"), metavar="CHIPS", help="the pot at the start of the spot")
    spot.add_argument("--stack", type=count("stack"), metavar="CHIPS", help="the effective stack behind")
    spot.add_argument(
        "--bets",
        metavar="SIZES",
        help=f"bet sizes on every street for both players (default {DEFAULT_BETS.replace('%', '%%')})",
    )
    spot.add_argument("--raises", metavar="SIZES", help=f"raise sizes (default {DEFAULT_RAISES})")
    spot.add_argument(
        "--sizes",
        type=size_override,
        action="append",
        metavar="STREET.PLAYER=BETS/RAISES",
        help="other sizes on one street for oop, ip or both (repeatable)",
    )
    spot.add_argument(
        "--raise-cap",
        type=checked(
            "raise cap", int, "a whole number", (lambda value: value >= 0, "a non-negative whole number")
        ),
        metavar="N",
        help="most raises on a street (default: no cap)",
    )
    spot.add_argument(
        "--lock",
        type=lock_option,
        action="append",
        metavar="PATH=STRATEGY",
        help="fix the acting player's strategy at a node for every hand (repeatable)",
    )
    solve = parser.add_argument_group("the solve")
    solve.add_argument(
        "--target",
        type=checked(
            "target",
            float,
            "a number",
            (finite, "finite"),
            (lambda value: value >= 0, "a non-negative % of the pot"),
        ),
        default=0.5,
        metavar="PCT",
        help="stop at this exploitability, %% of the pot (default 0.5)",
    )
    for flag, what, default in (("--iterations", "most iterations", 1000), ("--threads", "threads", 2)):
        solve.add_argument(
            flag, type=count(flag[2:]), default=default, metavar="N", help=f"{what} (default {default})"
        )
    solve.add_argument(
        "--max-memory",
        type=number("max memory", float, positive=True),
        metavar="GB",
        help=f"refuse a spot that needs more (default {MEMORY_SHARE:.0%}% of the memory available)",
    )
    files = parser.add_argument_group("output")
    files.add_argument("--save", metavar="PATH", help="save the solved spot to PATH")
    files.add_argument("--load", metavar="PATH", help="print a spot saved with --save instead of solving one")
    files.add_argument(
        "--json", action="store_true", help="print the whole solution as one JSON object on stdout"
    )
    parser.set_defaults(handler=run_spot)


def run_spot(args: argparse.Namespace) -> int:
    from pokerai.solvers.postflop import SpotError

    if args.save is not None and Path(args.save).is_dir():
        raise UsageError(f"--save needs a file name, and {args.save} is a folder")
    try:
        solution = _load(args) if args.load is not None else _solve(args)
    except SpotError as error:
        raise UsageError(str(error)) from None
    if args.save is not None:
        try:
            solution.save(args.save)
        except OSError as error:
            raise UsageError(f"cannot write {args.save}: {error.strerror or error}") from None
        print(f"saved the solution to {args.save}", file=sys.stderr)
    if args.json:
        emit(solution.to_json(), "", as_json=True)
    else:
        solved = args.load is None
        emit({}, format_solution(solution, args.target if solved else None, args.iterations), as_json=False)
    return 0


def _load(args: argparse.Namespace) -> SpotSolution:
    from pokerai.solvers.postflop import load_solution

    given = [name for name in SPOT_OPTIONS if getattr(args, name) is not None]
    if given:
        flags = ", ".join("--" + name.replace("_", "-") for name in given)
        raise UsageError(f"--load prints a saved spot, so {flags} cannot be given with it")
    return load_solution(args.load)


def spot_config(args: argparse.Namespace) -> Any:
    """The :class:`~pokerai.solvers.postflop.SpotConfig` of the options."""
    from pokerai.solvers.postflop import SpotConfig

    missing = [f"--{name}" for name in REQUIRED if getattr(args, name) is None]
    if missing:
        raise UsageError(f"{', '.join(missing)} must be given (or --load a saved spot)")
    raises = DEFAULT_RAISES if args.raises is None else args.raises
    return SpotConfig(
        board=args.board,
        oop=args.oop,
        ip=args.ip,
        pot=args.pot,
        stack=args.stack,
        bets=DEFAULT_BETS if args.bets is None else args.bets,
        raises=raises,
        overrides=tuple(
            (street, player, bets, raises if given is None else given)
            for street, player, bets, given in args.sizes or ()
        ),
        raise_cap=args.raise_cap,
    )


def _solve(args: argparse.Namespace) -> SpotSolution:
    from pokerai.jit import compile_notice
    from pokerai.solvers.postflop import build_spot, check_locks, solve_spot

    if args.max_memory is not None:
        limit: int | None = int(args.max_memory * 1e9)
    else:
        available = available_memory()
        limit = None if available is None else int(MEMORY_SHARE * available)
    spot = build_spot(spot_config(args), max_memory_bytes=limit, threads=args.threads, locked=bool(args.lock))
    locks = {path: lock_strategy(spot, path, frequencies) for path, frequencies in args.lock or ()}
    check_locks(spot, locks)
    print(describe_spot(spot, limit), file=sys.stderr, flush=True)
    progress = SolveProgress(args.iterations, args.target)
    try:
        with compile_notice():
            return solve_spot(
                spot,
                target_pct=args.target,
                max_iterations=args.iterations,
                threads=args.threads,
                progress=progress,
                locks=locks or None,
            )
    finally:
        progress.close()


def lock_strategy(spot: Spot, path: Sequence[str], frequencies: dict[str, float]) -> npt.NDArray[np.float64]:
    """The ``[hands, actions]`` strategy of a ``--lock``: the same ``frequencies`` for every hand of the
    player acting at ``path`` (a :class:`SpotError` if the path or a label is not in the tree)."""
    import numpy as np

    from pokerai.solvers.postflop import SpotError, decision_at

    player, labels = decision_at(spot, path)
    where = "/".join(path) or "the root"
    unknown = [label for label in frequencies if label not in labels]
    if unknown:
        raise SpotError(f"the lock at {where} names {unknown[0]!r}; the actions are {', '.join(labels)}")
    row = np.array([frequencies.get(label, 0.0) for label in labels])
    if abs(row.sum() - 1) > 1e-6:
        raise SpotError(f"the lock at {where} has frequencies summing to {row.sum():g}, not 1")
    return np.tile(row, (len(spot.hands[player]), 1))


__all__ = [
    "DESCRIPTION",
    "EPILOG",
    "add_arguments",
    "available_memory",
    "lock_option",
    "lock_strategy",
    "run_spot",
    "size_override",
    "spot_config",
]
