"""What ``pokerai spot`` prints: the spot's size before solving, progress, and the solution's table."""

from __future__ import annotations

import sys
import time
from typing import TYPE_CHECKING, Any

from pokerai.cli.output import PROGRESS_INTERVAL_S
from pokerai.cli.solve import labelled

if TYPE_CHECKING:
    from pokerai.solvers.postflop import Spot, SpotSolution

STREETS = ("flop", "turn", "river")
PLAYER_NAMES = ("OOP", "IP")


def describe_spot(spot: Spot, limit: int | None) -> str:
    """What a solve of ``spot`` will hold: the trees' sizes, the hands and the memory (for stderr)."""
    from pokerai.solvers.postflop import format_bytes

    nodes = spot.action_nodes
    allowed = "" if limit is None else f" (at most {format_bytes(limit)} allowed)"
    return "\n".join(
        labelled(
            (
                "action tree",
                f"{sum(nodes.values()):,} nodes: {nodes['player']:,} decisions, "
                f"{nodes['chance']:,} chance, {nodes['terminal']:,} terminal",
            ),
            ("game tree", f"{spot.num_nodes:,} nodes (every card dealt, isomorphic ones merged)"),
            ("hands", f"OOP {len(spot.hands[0]):,}, IP {len(spot.hands[1]):,}"),
            ("memory", format_bytes(spot.memory_bytes) + allowed),
        )
    )


class SolveProgress:
    """The exploitability as it falls, on stderr: a tqdm bar on a terminal, elsewhere a line at most every
    :data:`~pokerai.cli.output.PROGRESS_INTERVAL_S` seconds (and a last one if any was written)."""

    def __init__(self, max_iterations: int, target: float) -> None:
        self.target = target
        self.bar: Any = None
        if sys.stderr.isatty():
            from tqdm import tqdm

            self.bar = tqdm(total=max_iterations, unit="it", file=sys.stderr, leave=False, dynamic_ncols=True)
        self.written_at = time.monotonic()
        self.last: tuple[int, float] | None = None
        self.written: tuple[int, float] | None = None

    def __call__(self, iteration: int, exploitability: float) -> None:
        self.last = (iteration, exploitability)
        if self.bar is not None:
            self.bar.set_postfix_str(
                f"exploitability {exploitability:.3f}% (target {self.target:g}%)", refresh=False
            )
            self.bar.update(iteration - self.bar.n)
        elif time.monotonic() - self.written_at >= PROGRESS_INTERVAL_S:
            self._write()

    def _write(self) -> None:
        assert self.last is not None
        iteration, exploitability = self.last
        line = f"spot: {iteration:,} iterations, exploitability {exploitability:.3f}% of the pot"
        print(line, file=sys.stderr, flush=True)
        self.written_at, self.written = time.monotonic(), self.last

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
        elif self.written is not None and self.written != self.last:
            self._write()


def format_solution(solution: SpotSolution, target: float | None, max_iterations: int | None) -> str:
    """The human-readable report: the figures of the solve, then the root's strategy by hand class."""
    from pokerai.engine.cards import format_cards
    from pokerai.solvers.postflop import format_bytes

    spot = solution.spot
    street = STREETS[len(spot.board) - 3]
    pot = spot.config.pot
    gap = f"{solution.exploitability_pct:.3f}% of the pot"
    if solution.exploitability_pct > target if target is not None else False:
        gap += f" (target {target:g}% not reached in {max_iterations} iterations)"
    lines = labelled(
        ("board", f"{format_cards(spot.board)} ({street})"),
        ("pot, stack", f"{pot:,}, {spot.config.stack:,}"),
        ("iterations", f"{solution.iterations:,}"),
        ("seconds", f"{solution.seconds:.2f}"),
        ("exploitability", gap),
        ("OOP EV", f"{solution.oop_ev:.2f} chips ({100 * solution.oop_ev / pot:.1f}% of the pot)"),
        ("IP EV", f"{solution.ip_ev:.2f} chips ({100 * solution.ip_ev / pot:.1f}% of the pot)"),
        ("memory", format_bytes(solution.memory_bytes)),
    )
    return "\n".join([*lines, "", *root_table(solution)])


def root_table(solution: SpotSolution) -> list[str]:
    """The root's strategy by hand class (% of the class's weight; classes in grid order), with each
    class's combos, EV (chips) and equity."""
    from pokerai.engine.ranges import CLASS_NAMES

    root = solution.node(())
    if root.kind != "player":
        return [f"the root is a {root.kind} node"]
    classes = root.by_class()
    widths = [max(len(label), 6) for label in root.actions]
    head = "  ".join(f"{label:>{w}}" for label, w in zip(root.actions, widths, strict=True))
    lines = [
        f"{PLAYER_NAMES[root.player]} to act at the root: % of each class's combos, EV (chips), equity",
        f"{'class':<5}  {'combos':>6}  {head}  {'EV':>8}  {'equity':>6}",
    ]
    for name in CLASS_NAMES:
        if name not in classes:
            continue
        row = classes[name]
        cells = "  ".join(f"{100 * p:>{w}.1f}" for p, w in zip(row["strategy"], widths, strict=True))
        figures = f"{row['ev']:>8.2f}  {100 * row['equity']:>5.1f}%"
        lines.append(f"{name:<5}  {row['weight']:>6.2f}  {cells}  {figures}")
    return lines


__all__ = ["STREETS", "SolveProgress", "describe_spot", "format_solution", "root_table"]
