"""``pokerai report``: the table, JSON and chart of an agent against opponents and LBR."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pokerai.cli.main import main
from pokerai.eval.report import BASELINES, PANEL, strength_report


def test_a_small_report_writes_its_three_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "report"
    status = main(
        [
            "report", "--a", "raise", "--hands", "6", "--opponents", "call,shover?p=0.5",
            "--lbr-menus", "lisy-bowling", "--seed", "3", "--out", str(out),
        ]
    )  # fmt: skip
    assert status == 0
    printed = capsys.readouterr().out
    assert "| `call` | duplicate | 6 |" in printed and "| `lbr:lisy-bowling` | lbr | 6 |" in printed
    data = json.loads((out / "report.json").read_text())
    assert [row["opponent"] for row in data["rows"]] == ["call", "shover?p=0.5", "lbr:lisy-bowling"]
    assert data["seed"] == 3 and data["command"].startswith("pokerai report --a raise")
    for row in data["rows"]:
        low, high = row["ci95"]
        assert low <= row["mbb_per_hand"] <= high
        assert row["aivat"] is not None  # raise and the panel state their policies
    assert (out / "report.md").read_text().startswith("# Strength report: `raise`")
    assert (out / "report.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_report_uses_the_same_deals_as_eval(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    from pokerai.agents.spec import make_agent
    from pokerai.eval.duplicate import duplicate_match

    report = strength_report("raise", 10, seed=5, opponents=("random",), lbr_menus=())
    match = duplicate_match(make_agent("raise"), make_agent("random"), 5, seed=5)
    assert report.rows[0].estimate == match.estimate


def test_the_default_opponents_are_the_baselines_and_the_panel() -> None:
    assert BASELINES == ("random", "call", "raise", "allin", "heuristic")
    assert PANEL == ("shover?p=0.1", "shover?p=0.3", "shover?p=1.0", "station", "minraise")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--a", "nobody"], "unknown agent spec 'nobody'"),
        (["--a", "raise", "--opponents", "call,ghost"], "unknown agent spec 'ghost'"),
        (["--a", "raise", "--hands", "1"], "at least 2"),
    ],
)
def test_bad_input_is_one_sentence_and_status_2(
    argv: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["report", *argv, "--out", str(tmp_path / "r")]) == 2
    error = capsys.readouterr().err
    assert message in error and "Traceback" not in error


def test_an_unknown_lbr_menu_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", "--a", "raise", "--lbr-menus", "paper"]) == 2
    assert "unknown LBR menu 'paper'" in capsys.readouterr().err


def test_the_report_shows_its_progress_on_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from pokerai.cli import output

    monkeypatch.setattr(output, "PROGRESS_INTERVAL_S", 0.0)  # a line at every update, however quick
    argv = ["report", "--a", "raise", "--hands", "4", "--opponents", "call,random", "--lbr-menus", "none"]
    assert main([*argv, "--out", str(tmp_path / "report")]) == 0
    captured = capsys.readouterr()
    assert "| `random` | duplicate | 4 |" in captured.out and "hands, 0m" not in captured.out
    lines = captured.err.splitlines()
    assert lines and all(line.startswith("report: ") and "/8 hands, " in line for line in lines), captured.err
    assert lines[-1].startswith("report: 8/8 hands, ")
