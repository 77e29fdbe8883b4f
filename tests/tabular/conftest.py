"""Fixtures of the tabular tests: the fake card abstraction's cache (shared with the Deep CFR tests)."""

from tests.deepcfr.conftest import fake_abstraction_cache, fake_cache

__all__ = ["fake_abstraction_cache", "fake_cache"]
