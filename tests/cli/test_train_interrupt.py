"""``pokerai train`` stopped by Ctrl-C resumes bit-identically; without PyTorch it says what to install.

The interrupt is a real SIGINT sent to a ``pokerai train`` process once it has reported an
iteration (no sleeps: the test waits for the line).
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import torch

from pokerai.cli.main import main
from pokerai.deepcfr.checkpoint import load_checkpoint
from tests.cli.helpers import leduc_deepcfr_config
from tests.processes import interruptible

ROOT = Path(__file__).resolve().parents[2]

# 1,000,000 iterations are never reached: the run is stopped, then resumed to a few more.
TINY = (
    leduc_deepcfr_config(
        iterations=1_000_000, traversals=10, steps=2, batch_size=16, evaluate_every=2, checkpoint_every=1000
    )
    + "seed: 7\n"
)

INTERRUPTED = re.compile(
    r"^interrupted at iteration (\d+); checkpoint written; continue with: pokerai train --resume (\S+)$"
)


def assert_equal_runs(a: Any, b: Any, where: str = "checkpoint") -> None:
    """Two checkpoint payloads hold equal tensors (``torch.equal``) and values throughout."""
    if isinstance(a, torch.Tensor):
        assert isinstance(b, torch.Tensor) and torch.equal(a, b), where
    elif isinstance(a, dict):
        assert isinstance(b, dict) and a.keys() == b.keys(), where
        for key in a:
            assert_equal_runs(a[key], b[key], f"{where}.{key}")
    elif isinstance(a, (list, tuple)):
        assert isinstance(b, (list, tuple)) and len(a) == len(b), where
        for index, (x, y) in enumerate(zip(a, b, strict=True)):
            assert_equal_runs(x, y, f"{where}[{index}]")
    else:
        assert a == b, where


def without_timings(state: dict[str, Any]) -> dict[str, Any]:
    """A checkpoint without what the clock decides: seconds, and speeds in the logged history."""
    history = [{tag: value for tag, value in entry.items() if not tag.startswith("perf/")}
               for entry in state["history"]]  # fmt: skip
    return {**{key: value for key, value in state.items() if key != "traversal_seconds"}, "history": history}


@pytest.mark.slow  # about 7 s: two training subprocesses
def test_ctrl_c_then_resume_ends_bit_identical_to_an_uninterrupted_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "tiny.yaml"
    config.write_text(TINY)
    command = [sys.executable, "-m", "pokerai.cli.main", "train", "--config", str(config),
               "--runs-dir", str(tmp_path / "runs")]  # fmt: skip
    process = interruptible(command, ROOT)
    assert process.stderr is not None
    seen = []
    for line in process.stderr:  # wait until the run reports an iteration: the handler is in place
        seen.append(line)
        if line.startswith("iteration 2/"):
            break
    process.send_signal(signal.SIGINT)
    _, rest = process.communicate(timeout=600)
    lines = rest.strip().splitlines()
    assert process.returncode == 130, "".join(seen) + rest
    assert any(line.startswith("Ctrl-C: finishing iteration") for line in lines), rest
    found = INTERRUPTED.match(lines[-1])
    assert found is not None, rest
    stopped, run = int(found[1]), Path(found[2])
    assert stopped >= 2 and load_checkpoint(run / "checkpoint.pt")["iteration"] == stopped

    total = str(stopped + 3)  # past an evaluation point and the end's policy training
    assert main(["train", "--resume", str(run), "--iterations", total, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["iterations"] == stopped + 3
    straight_runs = tmp_path / "straight"
    assert main(["train", "--config", str(config), "--runs-dir", str(straight_runs), "--iterations", total,
                 "--json"]) == 0  # fmt: skip
    straight = Path(json.loads(capsys.readouterr().out)["run_dir"])

    resumed_state = without_timings(load_checkpoint(run / "checkpoint.pt"))
    straight_state = without_timings(load_checkpoint(straight / "checkpoint.pt"))
    assert resumed_state["iteration"] == stopped + 3
    assert_equal_runs(straight_state, resumed_state)


BLOCKER = """
import sys

class Blocker:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {blocked!r}:
            raise ImportError(f"No module named {{name!r}}", name=name)
        return None

sys.meta_path.insert(0, Blocker())
from pokerai.cli.main import main
status = main(["train", "--config", "configs/leduc_deepcfr.yaml", "--runs-dir", {runs!r}])
print("status", status)
"""


@pytest.mark.parametrize(
    ("blocked", "missing"), [(("torch", "tensorboard"), "PyTorch"), (("tensorboard",), "TensorBoard")]
)
def test_without_torch_train_says_what_to_install(
    tmp_path: Path, blocked: tuple[str, ...], missing: str
) -> None:
    runs = tmp_path / "runs"
    script = BLOCKER.format(blocked=set(blocked), runs=str(runs))
    result = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True,
                            timeout=600, check=False)  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["status", "2"]
    assert result.stderr == f"pokerai train needs {missing}: pip install 'pokerai[train]'\n"
    assert not runs.exists()


def test_the_train_command_imports_torch_only_when_it_runs() -> None:
    script = (
        "import sys\nfrom pokerai.cli.main import main\nmain(['train', '--help'])\n"
        "print('torch' in sys.modules, 'tensorboard' in sys.modules)"
    )
    result = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True,
                            timeout=600, check=False, env={**os.environ, "COLUMNS": "100"})  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "--resume" in result.stdout and result.stdout.split()[-2:] == ["False", "False"]
