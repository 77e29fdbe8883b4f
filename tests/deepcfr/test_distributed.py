"""Traversals on Ray workers: same samples as one process, weights sent once per retraining,
killed workers replaced without losing or double-counting a traversal, resumable checkpoints.

The Ray tests share one local Ray of 2 CPUs (started once for this module, a few seconds).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from pokerai.cli.main import main
from pokerai.deepcfr.distributed import (
    DistributedError,
    RayTraversalPool,
    TraversalWorker,
    concatenate,
    split_range,
)
from pokerai.deepcfr.trainer import DeepCFRTrainer, load_deepcfr_config, policy_exploitability
from pokerai.deepcfr.traversal import TraversalSamples, run_traversals
from tests.deepcfr.tiny import small_run

LEDUC = small_run(
    "leduc", iterations=3, traversals=60, hidden=[16, 16], steps=5, batch_size=64, capacity=400,
    evaluate_every=10, name="dist", seed=5,
)  # fmt: skip


def assert_same_buffers(a: DeepCFRTrainer, b: DeepCFRTrainer) -> None:
    """Equal reservoirs: the same rows seen and kept (targets to float rounding of batched inference)."""
    for x, y in zip(
        a.advantage_buffers + a.strategy_buffers, b.advantage_buffers + b.strategy_buffers, strict=True
    ):
        assert x.seen == y.seen
        left, right = x.contents(), y.contents()
        assert len(left) == len(right) > 0
        for name in left.dtype.names or ():
            if left[name].dtype.kind == "f":
                np.testing.assert_allclose(left[name], right[name], atol=1e-5)
            else:
                np.testing.assert_array_equal(left[name], right[name])


def assert_same_samples(a: TraversalSamples, b: TraversalSamples) -> None:
    np.testing.assert_array_equal(a.advantage_records, b.advantage_records)
    np.testing.assert_array_equal(a.advantage_masks, b.advantage_masks)
    np.testing.assert_allclose(a.advantage_targets, b.advantage_targets, atol=1e-5)
    np.testing.assert_array_equal(a.strategy_records, b.strategy_records)
    np.testing.assert_allclose(a.strategy_targets, b.strategy_targets, atol=1e-6)
    np.testing.assert_array_equal(a.strategy_players, b.strategy_players)
    assert a.nodes == b.nodes


# ---------------------------------------------------------------------- without Ray


@pytest.mark.parametrize(("count", "parts"), [(10, 3), (3, 5), (0, 2), (7, 1), (1000, 7)])
def test_split_range_covers_every_index_once(count: int, parts: int) -> None:
    ranges = split_range(count, parts)
    assert len(ranges) == parts
    covered = [index for first, size in ranges for index in range(first, first + size)]
    assert covered == list(range(count))
    sizes = [size for _, size in ranges]
    assert max(sizes) - min(sizes) <= 1


def test_worker_ranges_concatenate_to_one_process_run(tmp_path: Path) -> None:
    """Two workers' ranges, put together, are the samples of one run over all indices."""
    config = load_deepcfr_config({**LEDUC, "iterations": 1})
    trainer = DeepCFRTrainer(config, tmp_path)
    trainer.run_iteration()  # trains both advantage networks once
    payloads: dict[int, Any] = {p: (1, trainer.networks[f"advantage_p{p}"].state_dict()) for p in (0, 1)}
    whole = run_traversals(
        trainer.game,
        trainer.encoder,
        trainer.current_strategy,
        traverser=1,
        count=60,
        iteration=2,
        seed=config.seed,
        concurrent=config.concurrent_traversals,
    )
    workers = [TraversalWorker(LEDUC) for _ in range(2)]
    parts = [
        worker.run(1, 2, first, size, payloads)
        for worker, (first, size) in zip(workers, split_range(60, 2), strict=True)
    ]
    assert_same_samples(whole, concatenate(parts))
    assert [worker.stats()["loads"] for worker in workers] == [2, 2]


# ---------------------------------------------------------------------- on a local Ray


def one_process(run_dir: Path, **changes: Any) -> DeepCFRTrainer:
    trainer = DeepCFRTrainer(load_deepcfr_config({**LEDUC, **changes}), run_dir)
    trainer.train()
    return trainer


@pytest.mark.slow  # about 9 s with Ray's start
def test_two_workers_fill_the_reservoirs_as_one_process_does(local_ray: Any, tmp_path: Path) -> None:
    config = load_deepcfr_config(LEDUC)
    with RayTraversalPool(config, 2) as pool:
        trainer = DeepCFRTrainer(config, tmp_path / "ray", pool=pool)
        trainer.train()
        stats = pool.worker_stats()
        broadcasts = list(pool.stats.broadcasts)
    assert_same_buffers(trainer, one_process(tmp_path / "local"))
    # Weights: each retrained advantage network is put in the object store once (iteration 1
    # starts untrained, so 2 * 3 - 1 puts for 3 iterations of 2 * 60 traversals) ...
    assert broadcasts == [(1, 0, 1), (2, 1, 1), (2, 0, 2), (3, 1, 2), (3, 0, 3)]
    # ... and each worker fetched each of them once, with one range per player and iteration.
    assert [s["loads"] for s in stats] == [5, 5]
    assert [s["ranges"] for s in stats] == [6, 6]
    assert [s["versions"] for s in stats] == [[3, 2], [3, 2]]
    assert pool.stats.restarts == 0


@pytest.mark.slow  # about 9 s: trains, kills a worker, resumes and trains the reference
def test_a_worker_killed_mid_iteration_is_replaced_and_the_run_resumes(
    local_ray: Any, tmp_path: Path
) -> None:
    """Worker 1 dies half-way through its range of iteration 2; a fresh actor re-runs that range.

    Nothing is lost or counted twice: the reservoirs equal an uninterrupted one-process run,
    and the checkpoint then resumes (on a new pool) to the same place as that run's checkpoint.
    """
    config = load_deepcfr_config(LEDUC)
    run_dir = tmp_path / "ray"
    with RayTraversalPool(config, 2) as pool:
        pool.inject_crash(iteration=2, traverser=0, worker=1)
        trainer = DeepCFRTrainer(config, run_dir, pool=pool)
        trainer.train()
        assert pool.stats.restarts == 1
        assert len({s["pid"] for s in pool.worker_stats()}) == 2
    assert_same_buffers(trainer, one_process(tmp_path / "local"))

    with RayTraversalPool(config, 2) as pool:
        resumed = DeepCFRTrainer.resume(run_dir, pool=pool)
        resumed.config = load_deepcfr_config({**LEDUC, "iterations": 4})
        resumed.train()
        assert pool.stats.restarts == 0
    assert resumed.iteration == 4
    reference = DeepCFRTrainer.resume(tmp_path / "local")
    reference.config = resumed.config
    reference.train()
    assert_same_buffers(resumed, reference)


@pytest.mark.slow  # about 6 s: kills a worker and trains on
def test_a_worker_killed_between_iterations_is_replaced(local_ray: Any, tmp_path: Path) -> None:
    config = load_deepcfr_config(LEDUC)
    with RayTraversalPool(config, 2) as pool:
        trainer = DeepCFRTrainer(config, tmp_path / "ray", pool=pool)
        trainer.run_iteration()
        victim = pool.worker_stats()[0]["pid"]
        os.kill(victim, signal.SIGKILL)
        trainer.run_iteration()
        trainer.run_iteration()
        assert pool.stats.restarts == 1
        assert victim not in {s["pid"] for s in pool.worker_stats()}
    assert_same_buffers(trainer, one_process(tmp_path / "local"))


@pytest.mark.slow  # about 3 s: retries a failing range until the run stops
def test_a_range_that_fails_on_every_retry_stops_the_run_with_a_clear_error(
    local_ray: Any, tmp_path: Path
) -> None:
    config = load_deepcfr_config(LEDUC)
    with RayTraversalPool(config, 2, max_retries=0) as pool:
        pool.inject_crash(iteration=1, traverser=0, worker=0)
        trainer = DeepCFRTrainer(config, tmp_path, pool=pool)
        with pytest.raises(DistributedError, match="worker 0 died 1 times on iteration 1"):
            trainer.run_iteration()


@pytest.mark.slow  # about 7 s: waits out the pool's start-up timeout
def test_a_cluster_without_free_cpus_is_a_clear_error_not_a_hang(local_ray: Any) -> None:
    config = load_deepcfr_config(LEDUC)
    # The third never gets a CPU; how many of the other two start in 4 s depends on the machine.
    with pytest.raises(DistributedError, match=r"started [0-2] of 3 traversal workers in 4 s .*needs 1 CPU"):
        RayTraversalPool(config, 3, start_timeout=4)
    with RayTraversalPool(config, 2) as pool:  # the failed pool gave its CPUs back
        assert len({s["pid"] for s in pool.worker_stats()}) == 2


@pytest.mark.slow  # about 5 s
def test_train_command_with_two_workers(
    local_ray: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "leduc.yaml"
    config.write_text(
        "game: leduc\niterations: 2\ntraversals_per_iteration: 30\nnetwork: {hidden_sizes: [8]}\n"
        "advantage: {steps: 2, batch_size: 16}\npolicy: {steps: 2, batch_size: 16}\n"
        "evaluation: {every: 2}\n"
    )
    status = main(
        ["train", "--config", str(config), "--runs-dir", str(tmp_path / "runs"), "--workers", "2", "--json"]
    )
    assert status == 0
    out = capsys.readouterr().out
    assert '"workers": 2' in out and '"iterations": 2' in out
    assert local_ray.is_initialized()  # the command used this process's Ray and left it running


# ---------------------------------------------------------------------- command-line errors


@pytest.mark.slow  # about 6 s: a training run in a subprocess
def test_one_worker_never_imports_ray(tmp_path: Path) -> None:
    config = tmp_path / "leduc.yaml"
    config.write_text(
        "game: leduc\niterations: 1\ntraversals_per_iteration: 10\nnetwork: {hidden_sizes: [8]}\n"
        "advantage: {steps: 1, batch_size: 8}\npolicy: {steps: 1, batch_size: 8}\n"
    )
    script = (
        "import sys; from pokerai.cli.main import main; "
        f"status = main(['train', '--config', {str(config)!r}, '--runs-dir', {str(tmp_path)!r}, '--json']); "
        "print('RAY' if 'ray' in sys.modules else 'NO-RAY', status)"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600)
    assert result.stdout.strip().splitlines()[-1] == "NO-RAY 0", result.stderr


def test_workers_without_ray_is_a_clear_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` now raises ImportError
    status = main(
        ["train", "--config", "configs/leduc_deepcfr.yaml", "--runs-dir", str(tmp_path), "--workers", "2"]
    )
    assert status == 2
    err = capsys.readouterr().err
    assert "--workers 2" in err and 'pip install -e ".[distributed]"' in err
    assert not list(tmp_path.iterdir())  # no run folder was created


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--workers", "0"], "--workers must be a positive whole number"),
        (["--workers", "two"], "--workers must be a whole number"),
        (["--ray-address", "auto"], "--ray-address needs --workers 2 or more"),
    ],
)
def test_bad_worker_options_are_usage_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    status = main(["train", "--config", "configs/leduc_deepcfr.yaml", "--runs-dir", str(tmp_path), *extra])
    assert status == 2
    assert message in capsys.readouterr().err


# ---------------------------------------------------------------------- exploitability band (slow)


@pytest.mark.slow
def test_one_and_two_workers_reach_the_same_leduc_exploitability(local_ray: Any, tmp_path: Path) -> None:
    """Same seed, same total traversals: the curves with 1 and 2 workers agree within noise.

    Same seed gives the same samples (see above), so the curves may differ only by float
    rounding of batched inference; a second seed shows the size of genuine sampling noise.
    """
    base = {
        **LEDUC,
        "iterations": 60,
        "traversals_per_iteration": 200,
        "network": {"hidden_sizes": [64, 64]},
        "advantage": {"steps": 30, "batch_size": 512, "buffer_capacity": 1_000_000, "warm_start": True},
        "policy": {"steps": 300, "batch_size": 1024, "buffer_capacity": 1_000_000},
        "evaluation": {"every": 20},
        "checkpoint_every": 100,
    }

    def curve(seed: int, pool: RayTraversalPool | None, name: str) -> list[float]:
        config = load_deepcfr_config({**base, "seed": seed})
        trainer = DeepCFRTrainer(config, tmp_path / name, pool=pool)
        result: list[float] = []

        def log(iteration: int, scalars: dict[str, float]) -> None:
            if "eval/exploitability" in scalars:
                result.append(scalars["eval/exploitability"])

        trainer.train(evaluator=lambda t: {"eval/exploitability": policy_exploitability(t)}, log=log)
        return result

    one = curve(0, None, "one")
    other_seed = curve(1, None, "seed1")
    with RayTraversalPool(load_deepcfr_config(base), 2) as pool:
        two = curve(0, pool, "two")
    assert len(one) == len(two) == 3
    noise = max(abs(a - b) for a, b in zip(one, other_seed, strict=True))
    for a, b in zip(one, two, strict=True):
        assert abs(a - b) <= max(0.02, noise)
    assert two[-1] < two[0]  # and it learns
