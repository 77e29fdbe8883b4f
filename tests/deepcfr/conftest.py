"""Fixtures of the Deep CFR tests: an abstraction cache that holds the fake card abstraction."""

from __future__ import annotations

from pathlib import Path

import pytest

from pokerai.abstraction.cache import CACHE_ENVIRONMENT
from tests.deepcfr.fake_abstraction import save_fake_abstraction


@pytest.fixture(scope="session")
def fake_abstraction_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A cache folder holding :func:`~tests.deepcfr.fake_abstraction.fake_abstraction` (written once)."""
    cache = tmp_path_factory.mktemp("pokerai_cache")
    save_fake_abstraction(cache)
    return cache


@pytest.fixture
def fake_cache(fake_abstraction_cache: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``POKERAI_CACHE`` at :func:`fake_abstraction_cache` for one test: runs find the fake abstraction."""
    monkeypatch.setenv(CACHE_ENVIRONMENT, str(fake_abstraction_cache))
    return fake_abstraction_cache
