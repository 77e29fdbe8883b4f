"""Evaluation (layer 7): duplicate matches with confidence intervals, and local best response."""

from __future__ import annotations

from pokerai.eval.duplicate import (
    DuplicateResult,
    Estimate,
    check_conservation,
    duplicate_match,
    mean_ci95,
    play_hand,
)

__all__ = [
    "DuplicateResult",
    "Estimate",
    "check_conservation",
    "duplicate_match",
    "mean_ci95",
    "play_hand",
]
