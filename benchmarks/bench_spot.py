"""The spot solver against postflop-solver: time to a target exploitability, peak memory and value.

For each spot (``--spots``: a river, a turn and a flop, both players with the same bet and raise
sizes on every street), each solver runs once in its own process with ``--threads`` threads, to
0.3% of the pot, and reports when it first reached 0.5% and 0.3% (its value and exploitability are
those at the end of the run): ``pokerai spot ... --json`` (its ``checks``) and postflop-solver
(Rust: Discounted CFR, SIMD, rayon). The peer is built from ``../shared/peers`` by
``../shared/tools/build_postflop_solver.sh`` with the harness
``benchmarks/peers/postflop_solver_spot.rs``; the build is kept in ``--build-dir`` and redone when
the harness or the script changes. Both check the exploitability before the first iteration and
every 10, and the checks' time counts. The all-in rules are postflop-solver's defaults (add all-in
at most 1.5 pots, force it at an SPR of at most 0.15, merge sizes within 10%), no donk sizes, no
rake.

    OMP_NUM_THREADS=1 python benchmarks/bench_spot.py               # river, turn, flop: minutes
    OMP_NUM_THREADS=1 python benchmarks/bench_spot.py --quick       # the river spot only

Prints two Markdown tables. The first: per spot and target, each solver's solve seconds (the
iterations and their checks, without building the tree), ours over the peer's, iterations, the
peak resident memory of each process, OOP's expected share of the pot at the root (the game value,
chips), the exploitability reached (% of the pot), and whether the two values agree within the
sum of the two exploitabilities in chips. The second: each spot's tree, as both solvers count its
nodes, and the memory each estimates before allocating. An untimed iteration of each spot fills
numba's cache first. Needs GNU time (``/usr/bin/time``) for the peak memory.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from common import script_parser

ROOT = Path(__file__).resolve().parents[1]
HARNESS = ROOT / "benchmarks" / "peers" / "postflop_solver_spot.rs"
BUILD_SCRIPT = ROOT.parent / "shared" / "tools" / "build_postflop_solver.sh"
BUILD_DIR = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "pokerai-peers" / "spot-bench"
PEER = "postflop-solver"
TIME = Path("/usr/bin/time")
TARGETS = (0.5, 0.3)
"""The target exploitabilities, in % of the pot."""

EXAMPLE_OOP = "66+,A8s+,A5s-A4s,AJo+,K9s+,KQo,QTs+,JTs,96s+,85s+,75s+,65s,54s"
EXAMPLE_IP = "QQ-22,AQs-A2s,ATo+,K5s+,KJo+,Q8s+,J8s+,T7s+,96s+,86s+,75s+,64s+,53s+"
"""postflop-solver's example ranges (its examples/basic.rs)."""


@dataclass(frozen=True)
class Spot:
    """A spot as both command lines take it: the same sizes on every street for both players."""

    board: str
    oop: str
    ip: str
    pot: int
    stack: int
    bets: str
    raises: str

    def arguments(self) -> list[str]:
        return [
            "--board", self.board, "--oop", self.oop, "--ip", self.ip, "--pot", str(self.pot),
            "--stack", str(self.stack), "--bets", self.bets, "--raises", self.raises,
        ]  # fmt: skip


SPOTS = {
    "river": Spot("Td9d6hQc7s", EXAMPLE_OOP, EXAMPLE_IP, 200, 900, "60%,e,a", "2.5x"),
    "turn": Spot("Td9d6hQc", EXAMPLE_OOP, EXAMPLE_IP, 200, 900, "60%,e,a", "2.5x"),
    # Narrower ranges than the example's, so that postflop-solver's tree takes about 1.2 GB.
    "flop": Spot(
        "Td9d6h",
        "TT+,AQs+,AKo,KQs,JTs,T9s,98s,87s",
        "99-22,AJs-A2s,KTs+,QTs+,JTs,T9s,98s,87s,76s,AQo-ATo,KQo",
        100,
        400,
        "33%,75%",
        "3x",
    ),
}


@dataclass(frozen=True)
class Run:
    """One solver process: its JSON summary, its peak resident bytes and its wall seconds."""

    summary: dict[str, Any]
    peak_bytes: int
    wall_seconds: float


def run_measured(argv: list[str], env: dict[str, str]) -> Run:
    """Runs ``argv`` under ``/usr/bin/time`` and returns the JSON object on the last line of its
    output, with its peak resident memory. (``wait4`` on a child of this process would report this
    process's own peak too: Linux keeps the larger of the peaks before and after ``exec``.)"""
    if not TIME.exists():
        raise SystemExit(f"{TIME} not found: install GNU time (apt-get install time)")
    with tempfile.NamedTemporaryFile(mode="r") as peak:
        started = time.perf_counter()
        completed = subprocess.run(
            [str(TIME), "-f", "%M", "-o", peak.name, *argv],
            capture_output=True, text=True, env=env, cwd=ROOT, check=False,
        )  # fmt: skip
        wall_seconds = time.perf_counter() - started
        peak_kilobytes = int(peak.read().split()[-1])
    if completed.returncode != 0:
        raise SystemExit(f"{argv[0]} exited with {completed.returncode}: {completed.stderr.strip()[-2000:]}")
    lines = completed.stdout.strip().splitlines()
    if not lines:
        raise SystemExit(f"{argv[0]} printed nothing: {completed.stderr.strip()[-2000:]}")
    return Run(json.loads(lines[-1]), peak_kilobytes * 1024, wall_seconds)


def build_peer(build_dir: Path) -> Path:
    """The harness binary, built by the shared script unless a build newer than both is there."""
    binary = build_dir / "target" / "release" / "examples" / HARNESS.stem
    sources = (HARNESS, BUILD_SCRIPT)
    if binary.exists() and all(binary.stat().st_mtime > source.stat().st_mtime for source in sources):
        return binary
    if not BUILD_SCRIPT.exists():
        raise SystemExit(f"{BUILD_SCRIPT} not found: the peer is built from ../shared beside the checkout")
    print(f"building {PEER} into {build_dir} ...", file=sys.stderr, flush=True)
    completed = subprocess.run(
        ["bash", str(BUILD_SCRIPT), str(build_dir), str(HARNESS)], capture_output=True, text=True, check=False
    )
    if completed.returncode != 0:
        raise SystemExit(f"building {PEER} failed: {completed.stderr.strip()[-2000:]}")
    binary = Path(completed.stdout.strip().splitlines()[-1]) / HARNESS.stem
    if not binary.exists():
        raise SystemExit(f"the build printed no binary at {binary}")
    return binary


def run_peer(binary: Path, spot: Spot, threads: int, max_iterations: int) -> Run:
    env = {**os.environ, "RAYON_NUM_THREADS": str(threads)}
    targets = ",".join(str(target) for target in TARGETS)
    argv = [str(binary), *spot.arguments(), "--threads", str(threads), "--targets", targets]
    return run_measured([*argv, "--max-iterations", str(max_iterations)], env)


def run_ours(spot: Spot, target: float, threads: int, max_iterations: int) -> Run:
    env = {**os.environ, "OMP_NUM_THREADS": "1", "NUMBA_NUM_THREADS": str(threads)}
    argv = [sys.executable, "-m", "pokerai.cli.main", "spot", *spot.arguments(), "--target", str(target)]
    argv += ["--threads", str(threads), "--iterations", str(max_iterations), "--json"]
    run = run_measured(argv, env)
    run.summary.pop("strategy", None)  # the whole strategy: large on the flop, unused here
    return run


def reached(run: Run, target: float) -> tuple[int, float] | None:
    """The iterations and solve seconds at which a run first reached ``target`` (None if it did not):
    from the peer's per-target times, or from the first of our exploitability checks at or below it."""
    summary = run.summary
    if "targets" in summary:
        for entry in summary["targets"]:
            if entry["target_pct"] == target and entry["seconds"] is not None:
                return int(entry["iterations"]), float(entry["seconds"])
        return None
    for iterations, seconds, exploitability in summary["checks"]:
        if exploitability <= target:
            return int(iterations), float(seconds)
    return None


def row(name: str, spot: Spot, target: float, peer: Run, ours: Run | None) -> str:
    """One line of the first table; ``ours`` None when only the peer ran."""
    peer_reached = reached(peer, target)
    our_reached = None if ours is None else reached(ours, target)
    cells = [name, f"{target}"]
    cells += ["not reached" if point is None else f"{point[1]:.3g}" for point in (peer_reached, our_reached)]
    if ours is not None and our_reached is None:
        cells[-1] = f"not reached ({ours.summary['iterations']} it.)"
    if ours is None:
        cells[-1] = "–"
    ratio = "–" if peer_reached is None or our_reached is None else f"{our_reached[1] / peer_reached[1]:.2f}x"
    iterations = [str(point[0]) if point else "–" for point in (peer_reached, our_reached)]
    peer_value, peer_pct = peer.summary["oop_ev"], peer.summary["exploitability_pct"]
    our_value, our_pct = (
        (None, None) if ours is None else (ours.summary["oop_ev"], ours.summary["exploitability_pct"])
    )
    our_peak = "–" if ours is None else f"{ours.peak_bytes / 1e6:.0f}"
    agree = "–"
    if our_value is not None and our_pct is not None:
        tolerance = (peer_pct + our_pct) * spot.pot / 100
        difference = abs(peer_value - our_value)
        agree = f"{'yes' if difference <= tolerance else 'NO'} ({difference:.2f} ≤ {tolerance:.2f})"
    cells += [
        ratio, " / ".join(iterations), f"{peer.peak_bytes / 1e6:.0f} / {our_peak}",
        f"{peer_value:.2f} / " + ("–" if our_value is None else f"{our_value:.2f}"),
        f"{peer_pct:.3f} / " + ("–" if our_pct is None else f"{our_pct:.3f}"), agree,
    ]  # fmt: skip
    return "| " + " | ".join(cells) + " |"


def main() -> None:
    parser = script_parser(__doc__)
    parser.add_argument("--spots", default="river,turn,flop", help="comma-separated, of " + ",".join(SPOTS))
    parser.add_argument("--quick", action="store_true", help="the river spot only (a smoke test)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--max-iterations", type=int, default=1000)
    parser.add_argument("--build-dir", type=Path, default=BUILD_DIR, help="where the peer is built and kept")
    parser.add_argument("--peer-only", action="store_true", help=f"run {PEER} alone")
    args = parser.parse_args()
    names = ["river"] if args.quick else [name.strip() for name in args.spots.split(",")]
    unknown = [name for name in names if name not in SPOTS]
    if unknown:
        parser.error(f"unknown spot {unknown[0]!r}: choose from {', '.join(SPOTS)}")
    binary = build_peer(args.build_dir)
    if not args.peer_only:  # one iteration of each spot fills numba's cache, so that no timed run compiles
        for name in names:
            run_ours(SPOTS[name], TARGETS[0], args.threads, 1)

    load = ", ".join(f"{value:.2f}" for value in os.getloadavg())
    print(
        f"Python {platform.python_version()}, {platform.machine()}, {os.cpu_count()} cores, load {load}; "
        f"both solvers with {args.threads} threads, at most {args.max_iterations} iterations\n"
    )
    print(
        f"| spot | target % of pot | {PEER} s | pokerai s | pokerai / {PEER} | iterations ({PEER} / pokerai) "
        "| peak MB | OOP value, chips | exploitability % of pot | values agree within e₁ + e₂ |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    trees: list[str] = []
    for name in names:
        spot = SPOTS[name]
        peer = run_peer(binary, spot, args.threads, args.max_iterations)
        ours = None if args.peer_only else run_ours(spot, min(TARGETS), args.threads, args.max_iterations)
        for target in TARGETS:
            print(row(name, spot, target, peer, ours), flush=True)
        our_nodes = "–" if ours is None else f"{ours.summary['num_nodes']:,}"
        our_memory = "–" if ours is None else f"{ours.summary['memory_bytes'] / 1e6:,.1f}"
        trees.append(
            f"| {name} | {spot.board} | {spot.pot} | {spot.stack} | `{spot.bets}` | `{spot.raises}` | "
            f"{peer.summary['num_nodes']:,} | {our_nodes} | "
            f"{peer.summary['memory_bytes'] / 1e6:,.1f} | {our_memory} |"
        )
    print(
        f"\n| spot | board | pot | stack | bets | raises | nodes ({PEER}) | nodes (pokerai) "
        f"| estimated MB ({PEER}) | estimated MB (pokerai) |"
    )
    print("|---|---|---:|---:|---|---|---:|---:|---:|---:|")
    print("\n".join(trees))


if __name__ == "__main__":
    main()
