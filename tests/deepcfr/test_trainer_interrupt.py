"""Ctrl-C during training, checkpoints on a clock, and torch's thread count (seconds).

The interrupts here are real: the test sends SIGINT to its own process in the middle of an
iteration, and the trainer's handler, not a stand-in, decides what happens.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

import pokerai.deepcfr.trainer as trainer_module
from pokerai.deepcfr.checkpoint import load_checkpoint
from pokerai.deepcfr.trainer import (
    CHECKPOINT_NAME,
    DEFAULT_THREADS,
    DeepCFRConfig,
    DeepCFRTrainer,
    TrainingInterrupted,
    load_deepcfr_config,
)
from pokerai.deepcfr.traversal import TraversalSamples
from tests.deepcfr.tiny import small_run

TINY = small_run(
    "leduc", iterations=4, traversals=20, hidden=[8], steps=3, batch_size=32, capacity=300, evaluate_every=2,
    checkpoint_every=100,  # only the interrupt, the clock and the end write checkpoints here
    checkpoint_minutes=0, name="interrupt", seed=5,
)  # fmt: skip


def tiny(**changes: Any) -> DeepCFRConfig:
    return load_deepcfr_config({**TINY, **changes})


def assert_identical(a: DeepCFRTrainer, b: DeepCFRTrainer) -> None:
    """Every network weight and every reservoir row of ``a`` and ``b`` are equal, bit for bit."""
    assert a.iteration == b.iteration
    for name, network in a.networks.items():
        theirs = b.networks[name].state_dict()
        for key, tensor in network.state_dict().items():
            assert torch.equal(tensor, theirs[key]), f"{name}.{key}"
    for x, y in zip(a.advantage_buffers + a.strategy_buffers, b.advantage_buffers + b.strategy_buffers,
                    strict=True):  # fmt: skip
        assert x.seen == y.seen
        assert np.array_equal(x.contents(), y.contents())


def send_ctrl_c_during(trainer: DeepCFRTrainer, iteration: int, times: int = 1) -> None:
    """Deliver SIGINT ``times`` to this process during the first traversal of ``iteration``."""
    traverse = trainer.traverse

    def traverse_then_interrupt(traverser: int, t: int) -> TraversalSamples:
        samples = traverse(traverser, t)
        if t == iteration and traverser == 0:
            for _ in range(times):
                signal.raise_signal(signal.SIGINT)
        return samples

    trainer.traverse = traverse_then_interrupt  # type: ignore[method-assign,assignment]


@pytest.fixture
def sigint_handler() -> Iterator[None]:
    """The test's SIGINT handler is the default one, and it is back after training."""
    before = signal.getsignal(signal.SIGINT)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    signal.signal(signal.SIGINT, before)


@pytest.mark.usefixtures("sigint_handler")
def test_ctrl_c_finishes_the_iteration_checkpoints_and_resumes_bit_identically(tmp_path: Path) -> None:
    straight = DeepCFRTrainer(tiny(), tmp_path / "straight")
    straight.train()

    interrupted = DeepCFRTrainer(tiny(), tmp_path / "interrupted")
    send_ctrl_c_during(interrupted, iteration=2)
    notices: list[int] = []
    logged: list[int] = []
    with pytest.raises(TrainingInterrupted) as stop:
        interrupted.train(on_interrupt=lambda: notices.append(interrupted.iteration),
                          log=lambda t, scalars: logged.append(t))  # fmt: skip
    # The signal came during player 0's traversals of iteration 2; player 1's half and the policy
    # training of that evaluation point still ran, and its checkpoint was written.
    assert stop.value.iteration == 2 and notices == [2] and logged == [1, 2]
    assert stop.value.checkpoint == tmp_path / "interrupted" / CHECKPOINT_NAME
    assert interrupted.advantage_versions == [2, 2] and interrupted.policy_trained
    assert load_checkpoint(stop.value.checkpoint)["iteration"] == 2

    resumed = DeepCFRTrainer.resume(tmp_path / "interrupted")
    assert resumed.iteration == 2
    resumed.train()
    assert_identical(straight, resumed)


@pytest.mark.usefixtures("sigint_handler")
def test_a_second_ctrl_c_aborts_at_once_and_the_last_checkpoint_stays_whole(tmp_path: Path) -> None:
    trainer = DeepCFRTrainer(tiny(checkpoint_every=1), tmp_path)
    send_ctrl_c_during(trainer, iteration=2, times=2)
    with pytest.raises(KeyboardInterrupt) as stop:
        trainer.train()
    assert not isinstance(stop.value, TrainingInterrupted)
    assert trainer.advantage_versions == [1, 1]  # stopped inside iteration 2
    assert DeepCFRTrainer.resume(tmp_path).iteration == 1


@pytest.mark.usefixtures("sigint_handler")
def test_a_ctrl_c_as_the_last_iteration_ends_lets_the_run_complete(tmp_path: Path) -> None:
    trainer = DeepCFRTrainer(tiny(iterations=2), tmp_path)
    send_ctrl_c_during(trainer, iteration=2)
    assert "loss/policy_p0" in trainer.train()
    assert load_checkpoint(tmp_path / CHECKPOINT_NAME)["iteration"] == 2


def test_outside_the_main_thread_no_handler_is_installed(tmp_path: Path) -> None:
    before = signal.getsignal(signal.SIGINT)
    seen: list[object] = []
    trainer = DeepCFRTrainer(tiny(iterations=1), tmp_path)

    def log(t: int, scalars: dict[str, float]) -> None:
        seen.append(signal.getsignal(signal.SIGINT))

    worker = threading.Thread(target=lambda: trainer.train(log=log))
    worker.start()
    worker.join()
    assert trainer.iteration == 1 and seen == [before]  # signal.signal would have raised in the thread


def test_checkpoints_follow_the_clock_and_the_clock_does_not_change_the_result(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With ``checkpoint_minutes: 10`` and 4 minutes an iteration, checkpoints come after iterations 3
    and 6 (the end); the networks and reservoirs equal those of runs saved only at the end, or after
    every iteration: saving does not touch the generators."""
    now = [0.0]
    monkeypatch.setattr(trainer_module, "_clock", lambda: now[0])

    def run(name: str, **changes: Any) -> tuple[DeepCFRTrainer, list[int]]:
        now[0] = 0.0
        trainer = DeepCFRTrainer(tiny(iterations=6, **changes), tmp_path / name)
        saved: list[int] = []
        save = trainer.save

        def counted_save(path: Path | None = None) -> Path:
            saved.append(trainer.iteration)
            return save(path)

        trainer.save = counted_save  # type: ignore[method-assign]

        def four_minutes_later(t: int, scalars: dict[str, float]) -> None:
            now[0] += 4 * 60

        trainer.train(log=four_minutes_later)
        return trainer, saved

    timed, timed_saves = run("timed", checkpoint_minutes=10)
    assert timed_saves == [3, 6]
    at_end, at_end_saves = run("end")
    assert at_end_saves == [6]
    every, every_saves = run("every", checkpoint_every=1, checkpoint_minutes=10)
    assert every_saves == [1, 2, 3, 4, 5, 6]
    assert_identical(timed, at_end)
    assert_identical(timed, every)


@pytest.fixture
def torch_threads() -> Iterator[None]:
    threads = torch.get_num_threads()
    yield
    torch.set_num_threads(threads)


@pytest.mark.usefixtures("torch_threads")
@pytest.mark.parametrize(("threads", "expected"), [(0, DEFAULT_THREADS), (2, 2)])
def test_torch_threads_follow_the_config(tmp_path: Path, threads: int, expected: int) -> None:
    torch.set_num_threads(3)
    DeepCFRTrainer(tiny(threads=threads), tmp_path)
    assert torch.get_num_threads() == expected
