"""What the subcommands share on the way in: argparse types that reject bad text with one sentence naming
the option, the one-line usage error and its exit status."""

from __future__ import annotations

import argparse
import math
import secrets
import sys
from collections.abc import Callable, Sequence
from typing import Any, NoReturn, TypeVar

USAGE_ERROR = 2
"""The exit status of a bad argument (argparse's own)."""

T = TypeVar("T", int, float)


def checked(
    name: str, convert: Callable[[str], T], noun: str, *rules: tuple[Callable[[T], bool], str]
) -> Callable[[str], T]:
    """An argparse type: ``convert`` the text, then require each rule ``(accepts, what)`` in turn.

    Text that does not convert is ``"{name} must be {noun}, got '{text}'"``; a value a rule does not
    accept is ``"{name} must be {what}, got {text}"``.
    """

    def parse(text: str) -> T:
        try:
            value = convert(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be {noun}, got {text!r}") from None
        for accepts, what in rules:
            if not accepts(value):
                raise argparse.ArgumentTypeError(f"{name} must be {what}, got {text}")
        return value

    return parse


def count(name: str) -> Callable[[str], int]:
    """An argparse type: a positive whole number (``name`` goes into the message)."""
    return checked(name, int, "a whole number", (lambda value: value > 0, "a positive whole number"))


seed = checked("seed", int, "a whole number", (lambda value: value >= 0, "a non-negative whole number"))
"""An argparse type: a non-negative whole number, the seed of a command's randomness."""


def add_count(
    parser: argparse.ArgumentParser,
    flag: str,
    help: str,
    *,
    default: int | None = None,
    metavar: str | None = "N",
    name: str | None = None,
) -> None:
    """Add option ``flag``, a positive whole number (:func:`count`, named ``name`` or the flag's word)."""
    parser.add_argument(flag, type=count(name or flag[2:]), default=default, metavar=metavar, help=help)


def add_agent(parser: argparse.ArgumentParser, flag: str, help: str) -> None:
    """Add option ``flag``: an agent spec (``pokerai agents`` lists them), None when left out."""
    parser.add_argument(flag, metavar="SPEC", default=None, help=help)


def add_fresh_seed(parser: argparse.ArgumentParser, of: str, shown: str) -> None:
    """Add ``--seed``, the seed ``of`` what, left out for a fresh one (:func:`fresh_seed`) ``shown`` then."""
    parser.add_argument(
        "--seed",
        type=seed,
        default=None,
        metavar="S",
        help=f"seed of {of} (default: a fresh one, shown {shown})",
    )


def fresh_seed(given: int | None) -> int:
    """``given``, or a fresh random seed in ``[0, 2**31)`` where it is None."""
    return given if given is not None else secrets.randbelow(2**31)


def port(lowest: int, range_text: str) -> Callable[[str], int]:
    """An argparse type: a TCP port from ``lowest`` to 65535, said as ``range_text`` in the message."""
    return checked("port", int, "a whole number", (lambda value: lowest <= value <= 65535, range_text))


def finite(value: float) -> bool:
    """Whether ``value`` is a finite number (a rule of :func:`checked`)."""
    return math.isfinite(value)


def number(name: str, convert: Callable[[str], Any], *, positive: bool) -> Callable[[str], Any]:
    """An argparse type: ``convert`` (``int`` or ``float``) the text, then require a finite (and
    positive) value."""
    noun = "whole number" if convert is int else "number"
    rules: list[tuple[Callable[[Any], bool], str]] = [(finite, "finite")]
    if positive:
        rules.append((lambda value: value > 0, f"a positive {noun}"))
    return checked(name, convert, f"a {noun}", *rules)


def choice(name: str, choices: Sequence[str]) -> Callable[[str], str]:
    """An argparse type: one of ``choices``, or a sentence that lists them."""

    def parse(text: str) -> str:
        if text not in choices:
            raise argparse.ArgumentTypeError(f"unknown {name} {text!r}; choose one of {', '.join(choices)}")
        return text

    return parse


class UsageError(Exception):
    """A bad argument; the message is one sentence for the user (``main`` prints it, exit status 2)."""


class Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line (no usage dump) and exit status :data:`USAGE_ERROR`."""

    def error(self, message: str) -> NoReturn:
        self.exit(USAGE_ERROR, f"{self.prog}: error: {message}\n")


def add_ray_address(parser: argparse.ArgumentParser) -> None:
    """``--ray-address ADDRESS``: play an evaluation's chunks as tasks on a Ray cluster."""
    parser.add_argument(
        "--ray-address",
        metavar="ADDRESS",
        help="play on the Ray cluster at ADDRESS (host:port of its head, or auto; local starts a Ray "
        "here), --workers chunks at a time, with the same figures; needs the distributed extra",
    )


def usage_error(command: str, error: Exception | str) -> int:
    """Print ``pokerai COMMAND: error: ...`` on stderr; returns :data:`USAGE_ERROR`."""
    print(f"pokerai {command}: error: {error}", file=sys.stderr)
    return USAGE_ERROR


__all__ = [
    "USAGE_ERROR",
    "Parser",
    "UsageError",
    "add_agent",
    "add_count",
    "add_fresh_seed",
    "add_ray_address",
    "checked",
    "choice",
    "count",
    "finite",
    "fresh_seed",
    "number",
    "port",
    "seed",
    "usage_error",
]
