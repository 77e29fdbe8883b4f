"""The ``pokerai spot`` command-line contract, on small river spots (a solve takes well under a second
once numba's cache holds the kernel)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pokerai.cli.main import main
from pokerai.cli.spot import available_memory
from tests.cli.helpers import json_of, usage_error

BOARD = "Td9d6hQc7s"
OOP = "AA,KK,QQ,JJ,AK"
IP = "TT-88,AQs,KQs"
SPOT = ("spot", "--board", BOARD, "--oop", OOP, "--ip", IP, "--pot", "100", "--stack", "100",
        "--bets", "50%", "--raises", "a")  # fmt: skip
JSON_KEYS = {"iterations", "seconds", "exploitability_pct", "oop_ev", "ip_ev", "memory_bytes", "num_nodes",
             "board", "pot", "stack", "root", "strategy"}  # fmt: skip
# OOP's classes with the board's Qc removed, in grid order; the combos by counting: 6 per pair,
# 3 of QQ (one queen is on the board), 4 suited and 12 offsuit AK.
OOP_CLASSES = {"AA": 6, "AKs": 4, "AKo": 12, "KK": 6, "QQ": 3, "JJ": 6}


def test_json_has_the_figures_and_the_root_strategy(capsys: pytest.CaptureFixture[str]) -> None:
    data = json_of(capsys, *SPOT)
    assert set(data) >= JSON_KEYS
    assert data["board"] == BOARD and data["pot"] == 100 and data["stack"] == 100
    assert 0 < data["iterations"] < 1000  # the cap was not hit, so the target was met
    assert 0 <= data["exploitability_pct"] <= 0.5
    assert data["oop_ev"] + data["ip_ev"] == pytest.approx(100, abs=1e-4)  # float32 values
    assert data["memory_bytes"] > 0 and data["num_nodes"] > 0 and data["seconds"] > 0
    root = data["root"]
    assert root["player"] == "oop" and root["actions"] == ["Check", "Bet 50", "All-in 100"]
    assert set(root["strategy_by_class"]) == set(OOP_CLASSES)
    for strategy in root["strategy_by_class"].values():
        assert sum(strategy) == pytest.approx(1.0, abs=1e-5) and min(strategy) >= 0
    assert len(root["hands"]) == sum(OOP_CLASSES.values())


def test_the_tree_and_its_memory_go_to_stderr_before_the_solve(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*SPOT, "--json"]) == 0
    err = capsys.readouterr().err
    assert "action tree" in err and "game tree" in err and "OOP 37, IP 18" in err and "memory" in err


def test_progress_lines_show_the_exploitability_falling(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("pokerai.cli.spot_output.PROGRESS_INTERVAL_S", 0.0)  # a line at every check
    assert main([*SPOT, "--iterations", "20", "--target", "0", "--json"]) == 0
    captured = capsys.readouterr()
    assert captured.out.count("\n") == 1  # the progress stays off stdout
    lines = [line for line in captured.err.splitlines() if line.startswith("spot: ")]
    # Checks at 0, 10 and 20 iterations (every 10 and at the cap).
    assert [line.split()[1] for line in lines] == ["0", "10", "20"]
    falling = [float(line.split("exploitability ")[1].split("%")[0]) for line in lines]
    assert falling[-1] < falling[0]
    assert f"{json.loads(captured.out)['exploitability_pct']:.3f}%" in lines[-1]


def test_text_report_lists_the_classes_in_grid_order(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(list(SPOT)) == 0
    out = capsys.readouterr().out
    assert "exploitability" in out and "OOP EV" in out and "IP EV" in out
    lines = out.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("class"))
    assert lines[header].split()[:5] == ["class", "combos", "Check", "Bet", "50"]
    rows = [line.split() for line in lines[header + 1 :] if line.strip()]
    assert [row[0] for row in rows] == list(OOP_CLASSES)
    assert [float(row[1]) for row in rows] == list(OOP_CLASSES.values())


def test_save_then_load_prints_the_same_solution(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    saved = tmp_path / "river.spot"
    solved = json_of(capsys, *SPOT, "--save", str(saved))
    assert saved.is_file()
    assert json_of(capsys, "spot", "--load", str(saved)) == solved
    assert main([*SPOT, "--save", str(saved)]) == 0
    text = capsys.readouterr().out
    assert main(["spot", "--load", str(saved)]) == 0
    loaded = capsys.readouterr().out
    # The figures of the solve are saved with it; only the line naming the unknown target may differ.
    assert loaded.split("OOP to act")[1] == text.split("OOP to act")[1]


def test_the_iteration_cap_stops_the_solve(capsys: pytest.CaptureFixture[str]) -> None:
    data = json_of(capsys, *SPOT, "--iterations", "3", "--target", "0")
    assert data["iterations"] == 3 and data["exploitability_pct"] > 0
    assert main([*SPOT, "--iterations", "3", "--target", "0"]) == 0
    assert "not reached in 3 iterations" in capsys.readouterr().out


def test_sizes_per_street_and_player(capsys: pytest.CaptureFixture[str]) -> None:
    data = json_of(capsys, *SPOT, "--sizes", "river.oop=25%,a/a", "--sizes", "flop.both=33%")
    assert data["root"]["actions"] == ["Check", "Bet 25", "All-in 100"]
    # IP's sizes are still --bets after OOP checks.
    assert data["strategy"]["Check"]["actions"] == ["Check", "Bet 50", "All-in 100"]


def test_a_class_loses_the_combos_holding_a_board_card(capsys: pytest.CaptureFixture[str]) -> None:
    data = json_of(capsys, "spot", "--board", "AsTd9d6hQc", "--oop", "AKs,JJ", "--ip", IP,
                   "--pot", "100", "--stack", "100", "--bets", "50%", "--raises", "a")  # fmt: skip
    assert {h for h in data["root"]["hands"] if "K" in h} == {"KcAc", "KdAd", "KhAh"}


def test_a_locked_root_keeps_its_strategy(capsys: pytest.CaptureFixture[str]) -> None:
    data = json_of(capsys, *SPOT, "--lock", "root=Check:0.25,Bet 50:0.75")
    for strategy in data["root"]["strategy_by_class"].values():
        assert strategy == pytest.approx([0.25, 0.75, 0.0], abs=1e-6)


def test_the_default_memory_limit_reads_the_machine() -> None:
    available = available_memory()
    assert available is not None and available > 0


def _spot_with(**changes: str) -> list[str]:
    options = dict(zip(SPOT[1::2], SPOT[2::2], strict=True)) | {
        f"--{name}": value for name, value in changes.items()
    }
    return ["spot", *(word for flag, value in options.items() if value for word in (flag, value))]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (_spot_with(oop="AA,ZZ"), "'ZZ'"),
        (_spot_with(ip="TT-88:2"), "IP range"),
        (_spot_with(bets="50%,q"), "'q'"),
        (_spot_with(raises="3"), "'3'"),
        ([*_spot_with(), "--sizes", "river.xx=50%"], "a player (oop, ip or both)"),
        ([*_spot_with(), "--sizes", "river=50%"], "STREET.PLAYER=BETS/RAISES"),
        ([*_spot_with(), "--sizes", "river.ip=50%/3"], "'3'"),
        (_spot_with(board="Td9d"), "3, 4 or 5 cards"),
        (_spot_with(board="Td9dTd"), "Td"),
        (_spot_with(board="AsTd9d6hQc", oop="AsKs,JJ"), "hand AsKs holds As, which is on the board"),
        (_spot_with(board="AsAdAh9d6h", oop="AA"), "OOP range is empty"),
        (_spot_with(stack="-5"), "stack must be a positive whole number"),
        (_spot_with(pot="-5"), "pot must be a positive whole number"),
        (_spot_with(pot="0"), "pot must be a positive whole number"),
        (_spot_with(stack="0"), "stack must be a positive whole number"),
        (_spot_with(stack=""), "--stack must be given"),
        ([*_spot_with(), "--max-memory", "0.000001"], "more than"),
        ([*_spot_with(), "--lock", "root=Bet 60:1"], "'Bet 60'"),
        ([*_spot_with(), "--lock", "root=Check:0.5"], "summing to 0.5"),
        (["spot", "--load", "/nonexistent/river.spot"], "no solved spot"),
        (["spot", "--load", "river.spot", "--board", BOARD], "--board cannot be given"),
    ],
)
def test_bad_input_is_one_line_and_status_2(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    assert message in usage_error(capsys, *argv)


def test_a_damaged_saved_spot_is_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    damaged = tmp_path / "damaged.spot"
    damaged.write_bytes(b"not a solved spot")
    assert "not a readable solved spot" in usage_error(capsys, "spot", "--load", str(damaged))
