"""The ``pokerai train`` command-line contract: a tiny run, resume, and one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pokerai.cli.main import main
from tests.cli.helpers import leduc_deepcfr_config

TINY = leduc_deepcfr_config(
    iterations=2, traversals=20, steps=3, batch_size=32, evaluate_every=1, checkpoint_every=1
)


def test_a_tiny_run_then_resume(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    config = tmp_path / "tiny.yaml"
    config.write_text(TINY)
    assert main(["train", "--config", str(config), "--runs-dir", str(tmp_path / "runs"), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    run = Path(data["run_dir"])
    assert run.parent == tmp_path / "runs" and run.name.startswith("tiny__deepcfr__0__")
    assert data["iterations"] == 2 and "eval/exploitability" in data["final"]
    assert (run / "checkpoint.pt").is_file() and (run / "config.yaml").is_file()
    assert list(run.glob("events.out.tfevents.*"))  # TensorBoard events
    assert main(["train", "--resume", str(run), "--iterations", "3", "--json"]) == 0
    resumed = json.loads(capsys.readouterr().out)
    assert resumed["iterations"] == 3 and resumed["run_dir"] == str(run)


def test_a_hunl_run_logs_its_score_against_the_heuristic(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    config = tmp_path / "hunl.yaml"
    config.write_text(
        TINY.replace("game: leduc", "game: hunl")
        .replace("traversals_per_iteration: 20", "traversals_per_iteration: 4")
        .replace("evaluation: {every: 1}", "evaluation: {every: 2, hunl_pairs: 3}")
    )
    assert main(["train", "--config", str(config), "--runs-dir", str(tmp_path / "runs"), "--json"]) == 0
    final = json.loads(capsys.readouterr().out)["final"]
    assert {"eval/mbb_vs_heuristic", "eval/mbb_vs_heuristic_ci95"} <= set(final)
    assert final["eval/mbb_vs_heuristic_ci95"] > 0


def test_errors_are_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    config = tmp_path / "bad.yaml"
    config.write_text("iterations: 2\nadvantage: {stesp: 3}\n")
    assert main(["train", "--config", str(config), "--runs-dir", str(tmp_path)]) == 2
    error = capsys.readouterr().err.strip()
    assert len(error.splitlines()) == 1 and "unknown key 'stesp' in advantage" in error
    assert main(["train", "--resume", str(tmp_path / "nowhere")]) == 2
    assert "no such run folder" in capsys.readouterr().err
    (tmp_path / "empty").mkdir()
    assert main(["train", "--resume", str(tmp_path / "empty")]) == 2
    error = capsys.readouterr().err.strip()
    assert len(error.splitlines()) == 1 and "checkpoint.pt" in error


@pytest.mark.parametrize("text", [None, "", "# only a comment\n", "name: mine\nseed: 3\n"])
def test_a_config_file_without_game_and_iterations_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, text: str | None
) -> None:
    """An empty config file (or /dev/null) is refused with one sentence, not trained as a default run."""
    config = Path("/dev/null") if text is None else tmp_path / "config.yaml"
    if text is not None:
        config.write_text(text)
    assert main(["train", "--config", str(config), "--runs-dir", str(tmp_path / "runs")]) == 2
    error = capsys.readouterr().err.strip()
    assert len(error.splitlines()) == 1 and str(config) in error
    expected = "required keys missing: game, iterations" if text and "seed" in text else "game, iterations"
    assert error.endswith(expected)
    assert not (tmp_path / "runs").exists()
