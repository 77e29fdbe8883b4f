"""argparse types shared by the subcommands: each rejects bad text with one sentence naming the option."""

from __future__ import annotations

import argparse
from collections.abc import Callable


def count(name: str) -> Callable[[str], int]:
    """An argparse type: a positive whole number (``name`` goes into the message)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be a whole number, got {text!r}") from None
        if value <= 0:
            raise argparse.ArgumentTypeError(f"{name} must be a positive whole number, got {text}")
        return value

    return parse


def seed(text: str) -> int:
    """An argparse type: a non-negative whole number, the seed of a command's randomness."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"seed must be a whole number, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"seed must be a non-negative whole number, got {text}")
    return value


__all__ = ["count", "seed"]
