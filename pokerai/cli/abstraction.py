"""``pokerai abstraction``: build, inspect and query card-abstraction files.

    pokerai abstraction build --config configs/abstraction_tiny.yaml --out runs/abstraction_tiny.npz
    pokerai abstraction info PATH [--json]
    pokerai abstraction bucket PATH --hole AhKh [--board Ks7d2c] [--json]

Bad input (a bad config key, a corrupt file, malformed cards) is one sentence on stderr
and exit status 2.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from pokerai.abstraction.buckets import (
    AbstractionError,
    CardAbstraction,
    build_abstraction,
    load_abstraction_config,
)
from pokerai.abstraction.isomorphism import STREETS, street_indexer
from pokerai.cli.arguments import usage_error
from pokerai.cli.output import Progress, emit, progress_bar
from pokerai.engine.cards import BOARD_SIZES, format_cards, parse_cards

ACTIONS = (
    (
        "build",
        "build an abstraction file from a YAML config",
        "Build the four bucket tables and write them to one .npz file (atomically).",
    ),
    (
        "info",
        "verify an abstraction file and print its metadata",
        "Verify the file (format, version, checksums) and print metadata and bucket counts.",
    ),
    (
        "bucket",
        "print the bucket of a hand",
        "The bucket of hole cards on a board (the street follows from the board size).",
    ),
)
"""The actions of ``pokerai abstraction``: name, help line and description."""


class AbstractionUsageError(ValueError):
    """A bad argument of ``pokerai abstraction``; the message is one sentence for the user."""


DESCRIPTION = "Card abstraction: per-street bucket tables over suit-isomorphic hands."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``abstraction`` options and handler, on ``parser``."""
    actions = parser.add_subparsers(dest="action", metavar="ACTION", parser_class=type(parser))
    actions.required = True

    for name, summary, description in ACTIONS:
        action = actions.add_parser(name, help=summary, description=description)
        if name == "build":
            action.add_argument(
                "--config", required=True, help="YAML config, e.g. configs/abstraction_tiny.yaml"
            )
            action.add_argument("--out", required=True, help="output file (.npz)")
        else:
            action.add_argument("path", help="abstraction file")
        if name == "bucket":
            action.add_argument("--hole", required=True, help="two hole cards, e.g. AhKh")
            action.add_argument("--board", default="", help="0, 3, 4 or 5 board cards, e.g. Ks7d2c")
        action.add_argument("--json", action="store_true", help="print one JSON object")
        action.set_defaults(handler=run_abstraction)


def run_abstraction(args: argparse.Namespace) -> int:
    """The handler of all three actions; usage errors print one line and return 2."""
    try:
        if args.action == "build":
            return _build(args)
        if args.action == "info":
            return _info(args)
        return _bucket(args)
    except (AbstractionUsageError, AbstractionError) as error:
        return usage_error(f"abstraction {args.action}", error)


def _build(args: argparse.Namespace) -> int:
    try:
        config = load_abstraction_config(args.config)
    except ValueError as error:  # ConfigError: names the file and the key
        raise AbstractionUsageError(str(error)) from None
    out = Path(args.out)
    if out.is_dir():
        raise AbstractionUsageError(f"--out {args.out!r} is a folder; give a file path")
    if out.parent != Path("") and out.parent.exists() and not out.parent.is_dir():
        raise AbstractionUsageError(f"--out {args.out!r}: {str(out.parent)!r} is not a folder")
    bars: dict[str, Progress | None] = {}

    def progress(phase: str, done: int, total: int) -> None:
        if phase not in bars:
            for bar in bars.values():
                if bar is not None:
                    bar.close()
            bars[phase] = progress_bar(total, "hand" if "buckets" in phase else "board")
            if bars[phase] is None and not args.json:
                print(f"{phase}: {total:,} to do", file=sys.stderr, flush=True)
        bar = bars[phase]
        if bar is not None:
            bar.update_to(done)

    start = time.perf_counter()
    abstraction = build_abstraction(config, progress)
    for bar in bars.values():
        if bar is not None:
            bar.close()
    try:
        path = abstraction.save(out)
    except OSError as error:
        raise AbstractionUsageError(f"cannot write {args.out!r}: {error.strerror or error}") from None
    payload = {"path": str(path), "seconds": round(time.perf_counter() - start, 2), **abstraction.info()}
    emit(payload, _format_info(payload, f"wrote {path}"), args.json)
    return 0


def _load(path: str) -> CardAbstraction:
    return CardAbstraction.load(path)


def _info(args: argparse.Namespace) -> int:
    abstraction = _load(args.path)
    payload = {"path": args.path, **abstraction.info()}
    emit(payload, _format_info(payload, f"{args.path}: verified"), args.json)
    return 0


def _format_info(payload: dict[str, Any], headline: str) -> str:
    lines = [
        headline,
        f"format {payload['format']} v{payload['format_version']}, name {payload['name']!r}, "
        f"seed {payload['seed']}, created {payload['created']}",
        "",
        f"{'street':<8} {'buckets':>7} {'entries':>13}  hands per bucket",
    ]
    for name, street in payload["streets"].items():
        counts = " ".join(f"{count:,}" for count in street["hands_per_bucket"])
        lines.append(f"{name:<8} {street['buckets']:>7} {street['entries']:>13,}  {counts}")
    seconds = payload.get("build_seconds", {})
    if seconds:
        lines += ["", "build seconds: " + ", ".join(f"{key} {value}" for key, value in seconds.items())]
    return "\n".join(lines)


def _cards(text: str, option: str) -> tuple[int, ...]:
    try:
        return tuple(parse_cards(text))
    except ValueError as error:
        raise AbstractionUsageError(f"{option}: {error}") from None


def _bucket(args: argparse.Namespace) -> int:
    hole = _cards(args.hole, "--hole")
    board = _cards(args.board, "--board") if args.board.strip() else ()
    if len(hole) != 2:
        raise AbstractionUsageError(f"--hole needs exactly two cards, got {len(hole)}")
    if len(board) not in BOARD_SIZES:
        raise AbstractionUsageError(f"--board needs 0, 3, 4 or 5 cards, got {len(board)}")
    repeated = set(hole) & set(board)
    if repeated or len(set(board)) != len(board):
        raise AbstractionUsageError(f"the hole cards and board repeat a card: {args.hole} {args.board}")
    street = (0, None, None, 1, 2, 3)[len(board)]
    assert street is not None
    abstraction = _load(args.path)
    bucket = abstraction.bucket(street, hole, board)
    index = int(street_indexer(street).index(list(hole) + list(board)))
    canonical = street_indexer(street).unindex(index).tolist()
    payload = {
        "street": STREETS[street],
        "hole": format_cards(hole),
        "board": format_cards(board),
        "bucket": int(bucket),
        "buckets": abstraction.num_buckets(street),
        "index": index,
        "canonical": format_cards(canonical),
    }
    text = (
        f"{STREETS[street]} {payload['hole']} {payload['board']}".rstrip()
        + f": bucket {bucket} of {payload['buckets']} (0 = "
        + ("weakest" if street in (0, 3) else "lowest mean equity")
        + f"); canonical index {index:,}"
    )
    emit(payload, text, args.json)
    return 0
