"""The ``pokerai qre`` command-line contract."""

from __future__ import annotations

import math

import pytest

from pokerai.cli.main import main
from tests.cli.helpers import json_of, usage_error

POINT_KEYS = {"lambda", "exploitability", "residual", "game_value", "policy", "entropy"}


def run_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict:
    return json_of(capsys, "qre", *args)


def test_json_output_akq(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(capsys, "--game", "akq", "--bet-size", "2", "--lambdas", "0.1,1,10,100,1000")
    assert {"game", "lambdas", "seconds"} <= set(data)
    assert data["game"] == "akq(B=2)"
    assert [p["lambda"] for p in data["lambdas"]] == [0.1, 1, 10, 100, 1000]
    for point in data["lambdas"]:
        assert set(point) >= POINT_KEYS
        assert point["residual"] < 1e-9
        assert set(point["policy"]) == {"A:", "Q:", "K:b"} == set(point["entropy"])
    last = data["lambdas"][-1]
    assert last["policy"]["Q:"]["bet"] == pytest.approx(2 / 3, abs=1e-3)
    assert last["game_value"] == pytest.approx(1 / 3, abs=1e-4)
    assert last["exploitability"] < 2e-4
    first = data["lambdas"][0]
    assert 0.69 < first["entropy"]["A:"] < math.log(2)  # nearly uniform at λ = 0.1
    assert last["entropy"]["A:"] < 1e-6  # A bets almost surely at λ = 1000
    exploitabilities = [p["exploitability"] for p in data["lambdas"]]
    assert exploitabilities == sorted(exploitabilities, reverse=True)


def test_json_output_kuhn(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(capsys, "--game", "kuhn", "--lambdas", "1000")
    (point,) = data["lambdas"]
    assert len(point["policy"]) == 12
    assert point["game_value"] == pytest.approx(-1 / 18, abs=1e-3)
    assert point["policy"]["K:b"]["call"] == pytest.approx(1.0, abs=1e-3)


def test_human_readable_output(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["qre", "--game", "akq", "--lambdas", "1,10"]) == 0
    out = capsys.readouterr().out
    assert "exploitability" in out and "residual" in out and "K:b" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--game", "holdem", "--lambdas", "1"], "unknown game"),
        (["--game", "akq", "--bet-size", "0", "--lambdas", "1"], "bet size"),
        (["--game", "akq", "--bet-size", "-1", "--lambdas", "1"], "bet size"),
        (["--game", "akq", "--lambdas", "1,-2"], "non-negative"),
        (["--game", "akq", "--lambdas", "1,x"], "number"),
        (["--game", "akq", "--lambdas", "nan"], "finite"),
        (["--game", "kuhn", "--bet-size", "2", "--lambdas", "1"], "only applies to the akq game"),
    ],
)
def test_bad_arguments(capsys: pytest.CaptureFixture[str], args: list[str], message: str) -> None:
    assert message in usage_error(capsys, "qre", *args)
