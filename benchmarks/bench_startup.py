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
    python benchmarks/bench_startup.py --play-waits    # the bot's waits in a first hand, cold and warm

Prints a Markdown table: median and fastest seconds, the ratio to the bare interpreter, and the
target of each command. ``--install-size`` builds two virtual environments in a temporary
folder (a few minutes): ``pip install -e .`` as the README says, and the same with the
``[train]`` extra and the CPU build of torch (``torch==2.13.0``), the install every command
needed before play went torch-free; it prints the size of each.

``--play-waits`` plays the first hand of ``pokerai play`` against the default bot, with numba's
cache empty (cold: a fresh clone's first run) and filled (warm). In one scenario the user goes
all-in at the first prompt, after 0 s or 3 s (the bot then answers an all-in off its menu: the
solve with the table's time budget); in the other the user calls and checks the hand down. It
prints each scenario's longest bot wait (from the user's action to the next prompt or the
hand's end) and whether the thinking notice showed during it.
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


PLAY_WAITS_SEEDS = (5, 11, 23)
"""Seeds of the ``--play-waits`` sessions (chosen after the budgets were set; the user has the button
in every session's first hand)."""


def first_hand(env: dict[str, str], seed: int, shove_after: float | None) -> tuple[float, bool]:
    """One first hand of ``pokerai play``: the longest bot wait in it and whether the thinking notice
    showed in that wait. ``shove_after`` seconds at the first prompt, then all-in; None: call down."""
    pexpect: Any = importlib.import_module("pexpect")
    child = pexpect.spawn(
        pokerai_executable(),
        ["play", "--seed", str(seed), "--hands", "1"],
        cwd=str(ROOT),
        env=env,
        encoding="utf-8",
        timeout=600,
    )
    child.expect_exact(PLAY_PROMPT)
    longest, notice = 0.0, False
    first = True
    while True:
        if first and shove_after is not None:
            time.sleep(shove_after)
            child.sendline("a")
        else:
            child.sendline("c")  # a call, or a check when there is nothing to call
        first = False
        started = time.perf_counter()
        index = child.expect([PLAY_PROMPT, "score after 1 hand"])
        waited = time.perf_counter() - started
        if waited > longest:
            longest, notice = waited, "thinking" in (child.before or "")
        if index == 1:
            break
    child.expect(pexpect.EOF)
    child.close()
    return longest, notice


def play_waits_table() -> str:
    table = importlib.import_module("pokerai.agents.table")
    env = {**os.environ, "NO_COLOR": "1", "TERM": "dumb"}
    lines = [
        f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}; seeds {PLAY_WAITS_SEEDS}; "
        f"the table's solve budget {table.TABLE_BUDGET_S:g} s",
        "",
        "| numba cache | user's first action | longest bot wait s (per seed) | thinking notice in it |",
        "|---|---|---|---|",
    ]
    scenarios: list[tuple[str, float | None]] = [
        ("all-in at once", 0.0),
        ("all-in after 3 s", 3.0),
        ("call and check down", None),
    ]
    for state in ("cold", "warm"):
        for label, shove_after in scenarios:
            waits, notices = [], []
            for seed in PLAY_WAITS_SEEDS:
                with tempfile.TemporaryDirectory() as cache:
                    run_env = {**env, "NUMBA_CACHE_DIR": cache}
                    if state == "warm":
                        first_hand(run_env, seed, shove_after)  # fills the cache
                    longest, notice = first_hand(run_env, seed, shove_after)
                waits.append(f"{longest:.2f}")
                notices.append("yes" if notice else "no")
            lines.append(f"| {state} | {label} | {', '.join(waits)} | {', '.join(notices)} |")
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
    parser.add_argument("--play-waits", action="store_true", help="time the first hand's bot waits instead")
    args = parser.parse_args()
    if args.install_size:
        print(install_size_table())
    elif args.play_waits:
        print(play_waits_table())
    else:
        print(startup_table(args.repeats, args.cold))


if __name__ == "__main__":
    main()
