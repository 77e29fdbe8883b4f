"""Start-up of whole ``pokerai`` commands, warm, against the bare interpreter and an ``import torch``.

Each command runs as a user runs it (a new process of the ``pokerai`` console script); its
wall time is the median of ``--repeats`` runs after one untimed run, so numba's on-disk cache
and the OS file cache are warm. ``pokerai play`` is timed to its first action prompt, through a
pseudo-terminal (pexpect), then quit. The same run times ``python -c pass`` (the floor every
command pays) and ``python -c "import torch"`` (what every command paid while the CLI imported
torch), so the ratios hold on a busy machine where the seconds do not.

    OMP_NUM_THREADS=1 python benchmarks/bench_startup.py --repeats 5
    python benchmarks/bench_startup.py --cold        # also: first runs with an empty numba cache
    python benchmarks/bench_startup.py --install-size  # sizes of fresh `pip install -e .` environments

Prints a Markdown table: median and fastest seconds, the ratio to the bare interpreter, and the
target of each command. ``--install-size`` builds two virtual environments in a temporary
folder (a few minutes): ``pip install -e .`` as the README says, and the same with the
``[train]`` extra and the CPU build of torch (``torch==2.13.0``), the install every command
needed before play went torch-free; it prints the size of each.
"""

from __future__ import annotations

import argparse
import importlib
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PLAY_PROMPT = "your action> "


def pokerai_executable() -> str:
    beside = Path(sys.executable).parent / "pokerai"
    found = str(beside) if beside.is_file() else shutil.which("pokerai")
    if found is None:
        raise SystemExit("no pokerai console script: run `pip install -e .` first")
    return found


def run_command(argv: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    result = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - start
    if result.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed ({result.returncode}): {result.stderr.strip()[-500:]}")
    return seconds


def run_play(argv: list[str], env: dict[str, str]) -> float:
    pexpect: Any = importlib.import_module("pexpect")  # no type hints; a dev dependency

    start = time.perf_counter()
    child = pexpect.spawn(argv[0], argv[1:], cwd=str(ROOT), env=env, encoding="utf-8", timeout=600)
    child.expect_exact(PLAY_PROMPT)
    seconds = time.perf_counter() - start
    child.sendline("q")
    child.expect(pexpect.EOF)
    child.close()
    return seconds


def measure(run: Callable[[list[str], dict[str, str]], float], argv: list[str], env: dict[str, str],
            repeats: int) -> list[float]:  # fmt: skip
    run(argv, env)  # untimed: fills numba's cache and the file cache
    return [run(argv, env) for _ in range(repeats)]


def startup_table(repeats: int, cold: bool) -> str:
    pokerai = pokerai_executable()
    env = {**os.environ, "NO_COLOR": "1", "TERM": "dumb"}
    rows: list[tuple[str, list[str], Callable[[list[str], dict[str, str]], float], float | None]] = [
        ("python -c pass", [sys.executable, "-c", "pass"], run_command, None),
        ('python -c "import torch"', [sys.executable, "-c", "import torch"], run_command, None),
        ("pokerai --help", [pokerai, "--help"], run_command, 0.5),
        ("pokerai equity AhKh QsQd", [pokerai, "equity", "AhKh", "QsQd"], run_command, 1.0),
        (
            "pokerai solve --game leduc --algorithm cfr+ --iterations 1000",
            [pokerai, "solve", "--game", "leduc", "--algorithm", "cfr+", "--iterations", "1000"],
            run_command,
            2.0,
        ),
        ("pokerai play (to the first prompt)", [pokerai, "play", "--seed", "1"], run_play, 3.0),
    ]
    medians: dict[str, float] = {}
    lines = [
        f"{platform.python_implementation()} {platform.python_version()}, {os.cpu_count()} cores, "
        f"load average {os.getloadavg()[0]:.2f}, median of {repeats} warm runs",
        "",
        "| command | median s | fastest s | × `python -c pass` | target s | met |",
        "|---|---:|---:|---:|---:|:---:|",
    ]
    for label, argv, run, target in rows:
        try:
            times = measure(run, argv, env, repeats)
        except SystemExit as error:
            if "import torch" in label:  # torch is optional: without [train] there is nothing to compare
                lines.append(f"| `{label}` | – | – | – | – | ({error}) |")
                continue
            raise
        median = statistics.median(times)
        medians[label] = median
        ratio = median / medians["python -c pass"]
        met = "–" if target is None else ("yes" if median <= target else "no")
        shown_target = "–" if target is None else f"{target:g}"
        lines.append(
            f"| `{label}` | {median:.3f} | {min(times):.3f} | {ratio:.1f} | {shown_target} | {met} |"
        )
    if cold:
        lines += ["", "First runs with an empty numba cache (`NUMBA_CACHE_DIR` a new folder each):", ""]
        lines += ["| command | seconds |", "|---|---:|"]
        for label, argv, run, _ in rows[2:]:
            with tempfile.TemporaryDirectory() as cache:
                seconds = run(argv, {**env, "NUMBA_CACHE_DIR": cache})
            lines.append(f"| `{label}` | {seconds:.2f} |")
    return "\n".join(lines)


def folder_bytes(folder: Path) -> int:
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file() and not path.is_symlink())


def install_size_table() -> str:
    setups = [
        ("pip install -e .", [["-e", str(ROOT)]]),
        (
            'pip install torch==2.13.0 && pip install -e ".[train]"',
            [["torch==2.13.0"], ["-e", f"{ROOT}[train]"]],
        ),
    ]
    lines = ["| environment | site-packages MB | torch |", "|---|---:|:---:|"]
    with tempfile.TemporaryDirectory() as scratch:
        for index, (label, installs) in enumerate(setups):
            venv = Path(scratch) / f"env{index}"
            subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
            python = venv / "bin" / "python"
            for arguments in installs:
                subprocess.run([str(python), "-m", "pip", "install", "--quiet", *arguments], check=True)
            site = next(venv.glob("lib/python*/site-packages"))
            has_torch = (site / "torch").is_dir()
            lines.append(
                f"| `{label}` | {folder_bytes(site) / 2**20:,.0f} | {'yes' if has_torch else 'no'} |"
            )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5, help="timed runs per command (default 5)")
    parser.add_argument("--cold", action="store_true", help="also time first runs with an empty numba cache")
    parser.add_argument("--install-size", action="store_true", help="measure fresh environments instead")
    args = parser.parse_args()
    print(install_size_table() if args.install_size else startup_table(args.repeats, args.cold))


if __name__ == "__main__":
    main()
