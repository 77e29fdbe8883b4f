"""The compile notice: a line on stderr when a pokerai kernel compiles, none when numba's cache serves it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numba
import pytest

import pokerai.jit as jit
from pokerai.jit import NOTICE, compile_notice

ONE_KERNEL = (
    "from pokerai.jit import compile_notice\n"
    "from pokerai.solvers.regret import discount_factor\n"
    "with compile_notice():\n"
    "    print(discount_factor(3, 1.5))\n"
)
"""A process that calls one small cached pokerai kernel inside the notice's block."""


def run_python(code: str, cache: Path) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "NUMBA_CACHE_DIR": str(cache)}
    environment.update(OMP_NUM_THREADS="1", NUMBA_NUM_THREADS="1")
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=environment, check=True, timeout=600
    )


def test_a_cold_cache_prints_the_notice_and_a_warm_one_does_not(tmp_path: Path) -> None:
    first = run_python(ONE_KERNEL, tmp_path)
    second = run_python(ONE_KERNEL, tmp_path)  # numba's cache now holds the kernel: it loads, silently
    assert first.stderr == f"{NOTICE}\n" and second.stderr == ""
    assert first.stdout == second.stdout and 0 < float(first.stdout) < 1  # stdout untouched


def kernel(module: str) -> Callable[..., Any]:
    """A fresh (uncompiled, uncached) numba kernel that says it was defined in ``module``."""

    def add_one(x: int) -> int:
        return x + 1

    add_one.__module__ = module
    compiled: Callable[..., Any] = numba.njit(add_one)
    return compiled


@pytest.fixture
def fresh_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """This test process as if it had not announced a compile yet."""
    monkeypatch.setattr(jit, "_noticed", False)


@pytest.mark.usefixtures("fresh_process")
def test_the_notice_comes_once_per_process() -> None:
    lines: list[str] = []
    with compile_notice(write=lines.append):
        kernel("pokerai.fake")(1)
        kernel("pokerai.fake")(2)
    with compile_notice(write=lines.append):
        kernel("pokerai.fake")(3)
    assert lines == [NOTICE] and jit.notice_given()


@pytest.mark.usefixtures("fresh_process")
def test_no_compile_no_notice() -> None:
    ready = kernel("pokerai.fake")
    ready(1)  # compiled outside any block: nothing is listening
    lines: list[str] = []
    with compile_notice(write=lines.append):
        ready(2)  # the same argument types: no compile
    assert lines == [] and not jit.notice_given()


@pytest.mark.usefixtures("fresh_process")
def test_kernels_of_other_packages_are_not_announced() -> None:
    lines: list[str] = []
    with compile_notice(write=lines.append):
        kernel("someone_else.kernels")(1)
    assert lines == []


@pytest.mark.slow
def test_solve_json_stays_clean_on_a_first_run(tmp_path: Path) -> None:
    """End to end: the notice is on stderr, alone; stdout is the JSON object; a second run is silent."""
    arguments = ["solve", "--game", "kuhn", "--algorithm", "cfr", "--iterations", "10", "--json"]
    code = f"import sys; from pokerai.cli.main import main; sys.exit(main({arguments!r}))"
    runs = [run_python(code, tmp_path) for _ in range(2)]
    assert [run.stderr for run in runs] == [f"{NOTICE}\n", ""]
    assert json.loads(runs[0].stdout)["iterations"] == json.loads(runs[1].stdout)["iterations"] == 10
