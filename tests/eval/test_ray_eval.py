"""Evaluation on Ray workers: the same seed gives the same hands, hand for hand, as local workers.

The Ray tests share one local Ray of 2 CPUs (``local_ray``, about 5 s to start, so they are
``slow``); the address ``local`` then uses it. The checks of a missing Ray or an unreachable
address start no Ray.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from pokerai.agents.spec import make_agent
from pokerai.cli.main import main
from pokerai.cluster import RAY_MISSING
from pokerai.eval.duplicate import duplicate_match, run_chunks
from pokerai.eval.lbr import LBRConfig, lbr_match
from tests.cli.helpers import console_usage_error, json_of, usage_error


@pytest.mark.slow  # about 8 s with the Ray start
def test_a_duplicate_match_on_ray_plays_the_hands_of_local_workers(local_ray: Any) -> None:
    def match(**where: Any) -> Any:
        # random's policy is known, so every hand also gets its AIVAT estimate.
        return duplicate_match(
            make_agent("heuristic"), make_agent("random"), 24, seed=11, aivat=None, **where
        )

    done: list[int] = []
    on_ray = duplicate_match(
        make_agent("heuristic"), make_agent("random"), 24, seed=11, aivat=None, workers=2,
        address="local", on_progress=done.append,
    )  # fmt: skip
    for local in (match(workers=1), match(workers=2)):
        np.testing.assert_array_equal(on_ray.a_results, local.a_results)
        assert on_ray.aivat_results is not None and local.aivat_results is not None
        np.testing.assert_array_equal(on_ray.aivat_results, local.aivat_results)
        assert not local.on_ray
    assert np.count_nonzero(on_ray.a_results) > 0  # the hands were played, not left at zero
    assert done == sorted(done) and done[-1] == 24
    assert on_ray.to_json()["ray"] is True and on_ray.workers == 2


@pytest.mark.slow
def test_lbr_on_ray_plays_the_hands_of_local_workers(local_ray: Any) -> None:
    def run(**where: Any) -> Any:
        return lbr_match(
            make_agent("random"), 24, seed=5, lbr_config=LBRConfig(runouts=20), aivat=None, **where
        )

    on_ray = run(workers=2, address="local")
    for local in (run(workers=1), run(workers=2)):
        np.testing.assert_array_equal(on_ray.exploiter_results, local.exploiter_results)
        assert on_ray.aivat_results is not None and local.aivat_results is not None
        np.testing.assert_array_equal(on_ray.aivat_results, local.aivat_results)
    assert np.count_nonzero(on_ray.exploiter_results) > 0
    assert on_ray.to_json()["ray"] is True


def _fail_on_chunk(start: int, stop: int) -> int:
    if start == 2:
        raise ValueError(f"no hand {start} here")
    return start


@pytest.mark.slow
def test_a_chunk_error_on_ray_comes_back_as_itself(local_ray: Any) -> None:
    assert run_chunks(_fail_on_chunk, (), 2, workers=2, chunk_size=1, address="local") == [0, 1]
    with pytest.raises(ValueError, match=r"^no hand 2 here$"):
        run_chunks(_fail_on_chunk, (), 4, workers=2, chunk_size=1, address="local")


@pytest.mark.slow
def test_the_eval_and_report_commands_run_on_ray(
    local_ray: Any, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    duplicate = ("eval", "--a", "heuristic", "--b", "random", "--pairs", "8", "--seed", "4")
    local = json_of(capsys, *duplicate, "--workers", "2")
    on_ray = json_of(capsys, *duplicate, "--workers", "2", "--ray-address", "local")
    assert (on_ray["ray"], local["ray"]) == (True, False)
    for key in ("mbb_per_hand", "ci95", "aivat"):
        assert on_ray[key] == local[key]
    lbr = ("eval", "--lbr", "--a", "random", "--hands", "8", "--lbr-runouts", "20", "--seed", "4")
    assert (
        json_of(capsys, *lbr, "--ray-address", "local")["mbb_per_hand"]
        == json_of(capsys, *lbr)["mbb_per_hand"]
    )

    report = ("report", "--a", "random", "--hands", "8", "--opponents", "call", "--lbr-menus", "none")
    assert main([*report, "--out", str(tmp_path / "local")]) == 0
    assert main([*report, "--out", str(tmp_path / "ray"), "--ray-address", "local", "--workers", "2"]) == 0
    capsys.readouterr()
    rows = [json.loads((tmp_path / name / "report.json").read_text())["rows"] for name in ("local", "ray")]
    assert [row["mbb_per_hand"] for row in rows[0]] == [row["mbb_per_hand"] for row in rows[1]]


def test_eval_without_ray_installed_is_one_sentence(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # ``import ray`` raises ImportError
    error = usage_error(
        capsys, "eval", "--a", "call", "--b", "random", "--pairs", "2", "--ray-address", "local"
    )
    assert "needs Ray, an optional extra" in error
    error = usage_error(capsys, "report", "--a", "call", "--hands", "2", "--ray-address", "local")
    assert "needs Ray, an optional extra" in error


@pytest.mark.slow  # a fresh interpreter, about 3 s
def test_an_address_nobody_answers_at_is_one_sentence() -> None:
    pytest.importorskip("ray", reason=RAY_MISSING)
    # Port 1 (tcpmux) is closed on any machine that runs the tests.
    error = console_usage_error(
        "eval", "--a", "call", "--b", "random", "--pairs", "2", "--ray-address", "127.0.0.1:1"
    )
    assert error.startswith("pokerai eval: error: no Ray cluster answers at '127.0.0.1:1'")
    assert error.count("\n") == 1
