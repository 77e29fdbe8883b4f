"""The ``pokerai solve`` command-line contract."""

from __future__ import annotations

import json

import pytest

from pokerai.cli.main import main
from tests.cli.helpers import console, console_usage_error, json_of, usage_error

JSON_KEYS = {"game", "algorithm", "iterations", "seconds", "exploitability", "game_value", "curve", "policy"}


def run_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict:
    return json_of(capsys, "solve", *args)


def test_json_output_kuhn(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(capsys, "--game", "kuhn", "--algorithm", "cfr+", "--iterations", "2000",
                    "--eval-every", "500")  # fmt: skip
    assert set(data) == JSON_KEYS
    assert data["game"] == "kuhn" and data["algorithm"] == "cfr+" and data["iterations"] == 2000
    assert [point[0] for point in data["curve"]] == [500, 1000, 1500, 2000]
    assert all(len(point) == 3 for point in data["curve"])
    assert data["exploitability"] == data["curve"][-1][2] < 1e-3
    assert data["game_value"] == pytest.approx(-1 / 18, abs=1e-3)
    assert len(data["policy"]) == 12
    assert data["policy"]["K:b"]["call"] == pytest.approx(1.0, abs=1e-3)
    assert sum(data["policy"]["Q:pb"].values()) == pytest.approx(1.0)


def test_json_output_akq_with_bet_size(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(capsys, "--game", "akq", "--bet-size", "2", "--algorithm", "dcfr",
                    "--iterations", "5000")  # fmt: skip
    assert data["game"] == "akq(B=2)"
    assert data["game_value"] == pytest.approx(2 / 6, abs=1e-3)
    assert data["policy"]["Q:"]["bet"] == pytest.approx(2 / 3, abs=1e-2)
    # Default schedule: 1, 2, 5, 10, ... and the last iteration.
    assert [p[0] for p in data["curve"]][:4] == [1, 2, 5, 10]
    assert data["curve"][-1][0] == 5000


def test_sampling_solver_is_reproducible(capsys: pytest.CaptureFixture[str]) -> None:
    args = ("--game", "leduc", "--algorithm", "mccfr-external", "--iterations", "300", "--seed", "4")
    first = run_json(capsys, *args)
    second = run_json(capsys, *args)
    assert first["policy"] == second["policy"]
    assert first["exploitability"] == second["exploitability"]


def test_human_readable_output(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", "--game", "kuhn", "--algorithm", "cfr", "--iterations", "100"]) == 0
    out = capsys.readouterr().out
    assert "exploitability" in out and "game value" in out
    assert "K:b" in out  # small games print their policy
    assert main(["solve", "--game", "leduc", "--algorithm", "cfr", "--iterations", "3"]) == 0
    assert "936 information sets" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--game", "chess", "--algorithm", "cfr", "--iterations", "10"], "unknown game 'chess'"),
        (["--game", "kuhn", "--algorithm", "cfr++", "--iterations", "10"], "unknown algorithm 'cfr++'"),
        (["--game", "kuhn", "--algorithm", "cfr", "--iterations", "0"],
         "iterations must be a positive whole number, got 0"),
        (["--game", "kuhn", "--algorithm", "cfr", "--iterations", "-5"],
         "iterations must be a positive whole number, got -5"),
        (["--game", "kuhn", "--algorithm", "cfr", "--iterations", "ten"],
         "iterations must be a whole number, got 'ten'"),
        (["--game", "akq", "--bet-size", "nan", "--algorithm", "cfr", "--iterations", "10"],
         "bet size must be finite"),
        (["--game", "akq", "--bet-size", "0", "--algorithm", "cfr", "--iterations", "10"],
         "bet size must be a positive number"),
        (["--game", "akq", "--bet-size", "-1", "--algorithm", "cfr", "--iterations", "10"],
         "bet size must be a positive number"),
        (["--game", "kuhn", "--bet-size", "2", "--algorithm", "cfr", "--iterations", "10"],
         "only applies to the akq game"),
        (["--game", "kuhn", "--algorithm", "cfr", "--iterations", "10", "--alpha", "2"],
         "only apply to --algorithm dcfr"),
        (["--game", "kuhn", "--algorithm", "cfr", "--iterations", "10", "--eval-every", "0"],
         "eval-every must be a positive whole number"),
        (["--algorithm", "cfr", "--iterations", "10"], "required: --game"),
        (["--game", "kuhn", "--algorithm", "mccfr-outcome", "--iterations", "10", "--seed", "-1"],
         "seed must be a non-negative whole number"),
    ],
)  # fmt: skip
def test_bad_arguments_exit_2_with_one_sentence(
    capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    assert message in usage_error(capsys, "solve", *args)


def test_console_script_end_to_end() -> None:
    """The installed entry point: JSON on stdout, and an error exit without a traceback."""
    ok = console("solve", "--game", "kuhn", "--algorithm", "mccfr-chance", "--iterations", "1000", "--json")
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout)["algorithm"] == "mccfr-chance"
    console_usage_error(
        "solve", "--game", "kuhn", "--algorithm", "cfr", "--iterations", "10", "--bet-size", "-2"
    )
