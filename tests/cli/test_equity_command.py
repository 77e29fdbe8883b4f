"""The ``pokerai equity`` command-line contract."""

from __future__ import annotations

import json

import pytest

from pokerai.cli.main import main
from tests.cli.helpers import console, console_usage_error, json_of, usage_error

JSON_KEYS = {"hands", "board", "equity", "win", "tie", "boards", "exact", "seconds", "standard_error"}
# AhKh vs QsQd over all 1,712,304 preflop boards (see tests/engine/test_equity.py).
AK_QQ_EQUITY = (787_966 + 6_732 / 2) / 1_712_304


def run_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict:
    return json_of(capsys, "equity", *args)


def test_exact_preflop_json(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(capsys, "AhKh", "QsQd")
    assert set(data) == JSON_KEYS
    assert data["hands"] == ["AhKh", "QsQd"] and data["board"] == ""
    assert data["exact"] is True and data["boards"] == 1_712_304
    assert data["equity"][0] == pytest.approx(AK_QQ_EQUITY, abs=1e-12)
    assert data["equity"][0] + data["equity"][1] == pytest.approx(1.0)
    for share, win in zip(data["equity"], data["win"], strict=True):
        assert share == pytest.approx(win + data["tie"] / 2)
    assert data["standard_error"] == 0.0 and data["seconds"] > 0


def test_board_in_any_case_and_spacing(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(capsys, "ahkh", "QS QD", "--board", "Ks 7d 2c")
    assert data["hands"] == ["AhKh", "QsQd"] and data["board"] == "Ks7d2c"
    assert data["boards"] == 990
    # Exact over the 990 turn and river runouts.
    assert data["equity"][0] == pytest.approx(0.9121212121212121, abs=1e-12)


def test_monte_carlo_is_seeded_and_near_the_exact_value(capsys: pytest.CaptureFixture[str]) -> None:
    first = run_json(capsys, "AhKh", "QsQd", "--samples", "100000", "--seed", "3")
    again = run_json(capsys, "AhKh", "QsQd", "--samples", "100000", "--seed", "3")
    other = run_json(capsys, "AhKh", "QsQd", "--samples", "100000", "--seed", "4")
    assert first["exact"] is False and first["boards"] == 100_000
    assert first["equity"] == again["equity"] and first["equity"] != other["equity"]
    assert abs(first["equity"][0] - AK_QQ_EQUITY) < 3 * first["standard_error"]


def test_human_readable_output(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["equity", "AhKh", "QsQd", "--board", "Ks7d2c"]) == 0
    out = capsys.readouterr().out
    assert "AhKh" in out and "91.2121%" in out and "8.7879%" in out
    assert "990 every board (exact)" in out
    assert main(["equity", "AhKh", "QsQd", "--samples", "1000"]) == 0
    assert "standard error" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["AhKh", "AhQd"], "card Ah appears more than once"),
        (["AhKh", "QsQd", "--board", "Ks7dKs"], "card Ks appears more than once"),
        (["AhKh", "QsQd", "--board", "Qs7d2c"], "card Qs appears more than once"),
        (["AhKx", "QsQd"], "suit 'x' is not one of cdhs"),
        (["AhK", "QsQd"], "malformed cards 'AhK'"),
        (["AhKhQh", "QsQd"], "must have 2 cards, got 3"),
        (["AhKh", "QsQd", "--board", "2c3c4c5c6c7c"], "at most 5 cards, got 6"),
        (["AhKh", "QsQd", "--samples", "0"], "samples must be a positive whole number, got 0"),
        (["AhKh", "QsQd", "--samples", "many"], "samples must be a whole number, got 'many'"),
        (["AhKh", "QsQd", "--samples", "1"], "samples must be at least 2 for a standard error, got 1"),
        (["AhKh", "QsQd", "--seed", "-1"], "seed must be a non-negative whole number, got -1"),
        (["AhKh"], "required: HAND_B"),
    ],
)
def test_bad_arguments_exit_2_with_one_sentence(
    capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    assert message in usage_error(capsys, "equity", *args)


def test_console_script_end_to_end() -> None:
    """The installed entry point: JSON on stdout, and an error exit without a traceback."""
    ok = console("equity", "AhKh", "QsQd", "--board", "Ks7d2c5h", "--json")
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout)["boards"] == 44
    assert "card Kh appears more than once" in console_usage_error("equity", "AhKh", "KhQd")
