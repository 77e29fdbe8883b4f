"""Fixtures of the hold'em search tests: the first and the shipped blueprint, and one torch thread."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import torch

from pokerai.deepcfr.export import Blueprint
from tests.search.hunl_spots import CAPPED, CHECKPOINT


@pytest.fixture(scope="module")
def blueprint() -> Blueprint:
    return Blueprint.load(CHECKPOINT)


@pytest.fixture(scope="module")
def capped() -> Blueprint:
    """The shipped blueprint (its menu capped: no all-in over 2 pots, two raises a street)."""
    return Blueprint.load(CAPPED)


@pytest.fixture(autouse=True, scope="module")
def one_torch_thread() -> Iterator[None]:
    """Batched network calls on a busy two-core machine are many times slower with two torch threads."""
    previous = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(previous)
