"""The ``pokerai eval`` command-line contract (duplicate matches and LBR)."""

from __future__ import annotations

import argparse
import importlib
import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from pokerai.agents import table
from pokerai.cli import evaluate, output
from pokerai.cli.arguments import Parser
from pokerai.cli.commands import register

DUPLICATE_KEYS = {"a", "b", "pairs", "hands", "mbb_per_hand", "ci95", "seconds", "hands_per_second"}


def _entry() -> Callable[[list[str]], int]:
    """``pokerai.cli.main.main`` once ``eval`` is wired into it; until then the module's own entry."""
    cli = importlib.import_module("pokerai.cli.main")  # the package re-exports a function named main
    for action in cli.build_parser()._actions:
        if isinstance(action, argparse._SubParsersAction) and "eval" in action.choices:
            return lambda argv: cli.main(["eval", *argv])
    return lambda argv: evaluate.main(argv)


def run(*argv: str) -> int:
    return _entry()(list(argv))


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    assert run(*argv, "--json") == 0
    out = capsys.readouterr().out
    assert out.count("\n") == 1  # exactly one JSON object
    return json.loads(out)


def test_duplicate_json(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(capsys, "--a", "call", "--b", "random", "--pairs", "30", "--seed", "4")
    assert set(data) >= DUPLICATE_KEYS
    assert data["a"] == "call" and data["b"] == "random"
    assert data["pairs"] == 30 and data["hands"] == 60
    low, high = data["ci95"]
    assert low <= data["mbb_per_hand"] <= high
    assert data["seconds"] > 0 and data["hands_per_second"] > 0
    again = run_json(capsys, "--a", "call", "--b", "random", "--pairs", "30", "--seed", "4", "--workers", "2")
    assert again["mbb_per_hand"] == data["mbb_per_hand"] and again["ci95"] == data["ci95"]


def test_self_play_json_is_zero(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(capsys, "--a", "random", "--b", "random", "--pairs", "50")
    assert data["mbb_per_hand"] == 0.0 and data["ci95"] == [0.0, 0.0]


def test_duplicate_human_output_and_log(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    log = tmp_path / "hands.log"
    assert run("--a", "raise", "--b", "call", "--pairs", "5", "--log", str(log)) == 0
    out = capsys.readouterr().out
    assert "raise vs call" in out and "mbb/hand" in out and "95% CI" in out
    lines = log.read_text().splitlines()
    assert len(lines) == 10 and all(line.startswith("STATE:") for line in lines)


@pytest.mark.parametrize(
    ("argv", "label", "key", "total", "unit"),
    [
        (["--lbr", "--a", "call", "--hands", "6", "--lbr-runouts", "30"], "LBR", "hands", 6, "hands"),
        (["--a", "call", "--b", "random", "--pairs", "30"], "duplicate match", "pairs", 30, "pairs"),
    ],
)
def test_a_json_run_keeps_stdout_one_object_and_shows_progress_on_stderr(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    argv: list[str],
    label: str,
    key: str,
    total: int,
    unit: str,
) -> None:
    monkeypatch.setattr(output, "PROGRESS_INTERVAL_S", 0.0)  # a line at every update, however quick
    assert run(*argv, "--json") == 0
    captured = capsys.readouterr()
    assert captured.out.count("\n") == 1 and json.loads(captured.out)[key] == total
    lines = captured.err.splitlines()
    pattern = re.compile(rf"{label}: (\d+)/{total} {unit}, \d+m\d\ds")
    matches = [pattern.fullmatch(line) for line in lines]
    assert len(lines) >= 2 and all(matches), captured.err
    done = [int(match[1]) for match in matches if match]
    assert done == sorted(done) and done[-1] == total


def test_lbr_json_and_text(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(capsys, "--lbr", "--a", "call", "--hands", "6", "--lbr-runouts", "30")
    assert {"a", "hands", "mbb_per_hand", "ci95", "seconds", "hands_per_second"} <= set(data)
    assert data["lbr"] is True and data["a"] == "call" and data["hands"] == 6
    assert run("--lbr", "--a", "call", "--hands", "4", "--lbr-raise-streets", "river",
               "--lbr-bets", "0.5,1", "--lbr-no-allin") == 0  # fmt: skip
    out = capsys.readouterr().out
    assert "local best response against call" in out and "raises on river" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--a", "nope", "--b", "call", "--pairs", "3"], "unknown agent spec 'nope'"),
        (["--a", "call", "--b", "call", "--pairs", "-3"], "pairs must be a positive whole number"),
        (["--a", "call", "--b", "call", "--pairs", "0"], "pairs must be a positive whole number"),
        (["--a", "call", "--b", "call", "--pairs", "x"], "pairs must be a whole number"),
        (["--a", "blueprint:/no/such/checkpoint.pt", "--b", "call", "--pairs", "3"], "blueprint"),
        (["--a", "call", "--pairs", "3"], "--b SPEC is required"),
        (["--a", "call", "--b", "call"], "needs --pairs"),
        (["--a", "call", "--b", "call", "--pairs", "2", "--workers", "0"], "workers must be a positive"),
        (["--a", "call", "--b", "call", "--pairs", "2", "--seed", "-1"], "seed must be a non-negative"),
        (["--a", "call", "--b", "call", "--pairs", "2", "--log", "/no/such/dir/x.log"], "does not exist"),
        (["--a", "call", "--b", "call", "--pairs", "2", "--hands", "5"], "--hands applies only with --lbr"),
        (["--lbr", "--a", "call"], "--lbr needs --hands"),
        (["--lbr", "--a", "call", "--hands", "-5"], "hands must be a positive whole number"),
        (["--lbr", "--a", "call", "--b", "call", "--hands", "5"], "--b and --pairs are for duplicate"),
        (["--lbr", "--a", "heuristic", "--hands", "5"], "LBR needs an agent that exposes"),
        (["--lbr", "--a", "call", "--hands", "5", "--lbr-raise-streets", "showdown"], "unknown street"),
        (["--lbr", "--a", "call", "--hands", "5", "--lbr-bets", "-1"], "bet fraction"),
    ],
)
def test_bad_input_is_one_line_and_status_2(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    assert run(*argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1 and "Traceback" not in captured.err
    assert message in captured.err


def test_register_wires_the_handler(capsys: pytest.CaptureFixture[str]) -> None:
    parser = Parser(prog="pokerai")
    commands = parser.add_subparsers(dest="command", parser_class=Parser)
    register(commands, "eval")
    args = parser.parse_args(["eval", "--a", "call", "--b", "allin", "--pairs", "3", "--json"])
    assert args.handler(args) == 0
    assert json.loads(capsys.readouterr().out)["pairs"] == 3
    bad = parser.parse_args(["eval", "--a", "call", "--b", "nope", "--pairs", "3"])
    assert bad.handler(bad) == 2
    assert capsys.readouterr().err.startswith("pokerai eval: error: --b: unknown agent spec")


def test_unreadable_checkpoint_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def missing(spec: str) -> None:
        raise FileNotFoundError(2, "No such file or directory", spec.partition(":")[2])

    monkeypatch.setattr(table, "make_agent", missing)  # eval loads its agents through agents.table
    assert run("--a", "blueprint:/no/such.pt", "--b", "call", "--pairs", "3") == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "No such file or directory" in err
