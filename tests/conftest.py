"""Session-wide fixtures shared by several test folders."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pokerai.abstraction.buckets import CardAbstraction, build_abstraction, load_abstraction_config
from pokerai.abstraction.histograms import RiverStrength, river_strength
from pokerai.cluster import RAY_MISSING
from pokerai.deepcfr.export import export_policy
from pokerai.deepcfr.trainer import DeepCFRTrainer
from pokerai.search.street import avoid_hugepage_stalls
from tests.deepcfr import tiny

ROOT = Path(__file__).resolve().parents[1]

# The tests allocate and free large arrays by the thousand; huge-page requests then stall in
# the kernel's memory compaction on some machines (pokerai.search.street.avoid_hugepage_stalls).
avoid_hugepage_stalls()


@pytest.fixture(scope="session")
def hunl_trainer(tmp_path_factory: pytest.TempPathFactory) -> DeepCFRTrainer:
    """A hold'em Deep CFR trainer after one iteration (``tests.deepcfr.tiny``), policy networks
    trained: shared by the export tests and the blueprint agent's tests, which only read it."""
    return tiny.tiny_hunl_trainer(tmp_path_factory.mktemp("run"))


@pytest.fixture(scope="session")
def hunl_blueprint_dir(hunl_trainer: DeepCFRTrainer, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """:func:`hunl_trainer`'s exported blueprint folder."""
    return export_policy(hunl_trainer, tmp_path_factory.mktemp("blueprint")).parent


@pytest.fixture(scope="session")
def river_strength_table() -> RiverStrength:
    """The exact river-strength table (about 15 s on two cores, 250 MB)."""
    return river_strength()


@pytest.fixture(scope="session")
def small_abstraction(river_strength_table: RiverStrength) -> CardAbstraction:
    """``tests/abstraction_tests.yaml`` built once per test session (about 30 s more on two cores)."""
    config = load_abstraction_config(ROOT / "tests" / "abstraction_tests.yaml")
    return build_abstraction(config, strength=river_strength_table)


@pytest.fixture(scope="session")
def small_abstraction_path(
    small_abstraction: CardAbstraction, tmp_path_factory: pytest.TempPathFactory
) -> Path:
    """The small abstraction saved to a file."""
    return small_abstraction.save(tmp_path_factory.mktemp("abstraction") / "small.npz")


@pytest.fixture(scope="module")
def local_ray() -> Iterator[Any]:
    """A local Ray of 2 CPUs for one test module, shut down after its last test (the module's Ray work
    uses it rather than starting its own; about 5 s to start). Skips where Ray is not installed."""
    ray = pytest.importorskip("ray", reason=RAY_MISSING)
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        yield ray
    finally:
        ray.shutdown()


@pytest.fixture
def cold_search(monkeypatch: pytest.MonkeyPatch) -> Iterator[threading.Event]:
    """This process as if no search had warmed up in it (no street warm, no warm-up thread or error),
    with ``SearchAgent.warm_up`` held until the test sets the returned gate."""
    import pokerai.agents.search as search_module

    gate = threading.Event()
    real_warm_up = search_module.SearchAgent.warm_up

    def held_warm_up(agent: search_module.SearchAgent) -> None:
        gate.wait()
        real_warm_up(agent)

    monkeypatch.setattr(search_module, "_WARMED", set())
    monkeypatch.setattr(search_module, "_warm_thread", None)
    monkeypatch.setattr(search_module, "_warm_errors", [])
    monkeypatch.setattr(search_module.SearchAgent, "warm_up", held_warm_up)
    yield gate
    gate.set()
    thread = search_module._warm_thread
    if thread is not None:
        thread.join()
