"""One strength report: an agent against the baselines, the exploiter panel and LBR.

:func:`strength_report` plays the agent of a spec in duplicate against every
opponent of :data:`BASELINES` and :data:`PANEL` and runs local best response
against it with each menu of :data:`REPORT_LBR_MENUS`, on the same seed. Every
row carries the plain estimate and, where a seat's policy is known, the AIVAT
one (:mod:`pokerai.eval.aivat`). :class:`StrengthReport` writes the rows as
Markdown, JSON and a bar chart with 95% error bars (matplotlib).

Signs: a duplicate row is what the agent wins; an LBR row is what LBR wins
against it (so lower is better for the agent there).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pokerai.agents.base import Agent
from pokerai.agents.spec import make_agent
from pokerai.atomic import write_text_atomically
from pokerai.eval.aivat import AIVATSummary
from pokerai.eval.duplicate import Estimate, duplicate_match, json_number
from pokerai.eval.lbr import LBR_MENUS, exposes_probabilities, lbr_match
from pokerai.search.config import STREETS, SearchConfig

BASELINES: tuple[str, ...] = ("random", "call", "raise", "allin", "heuristic")
"""The baseline opponents of every report."""
PANEL: tuple[str, ...] = ("shover?p=0.1", "shover?p=0.3", "shover?p=1.0", "station", "minraise")
"""The exploiter panel of every report."""
REPORT_LBR_MENUS: tuple[str, ...] = ("default", "lisy-bowling")
"""The LBR menus of every report: the CLI's default, and Lisý & Bowling's headline configuration."""


@dataclass(frozen=True)
class ReportRow:
    """One line of the report: a duplicate match or an LBR run."""

    opponent: str
    """The opponent's spec, or ``lbr:MENU``."""
    kind: str
    """``duplicate`` (the agent's winnings) or ``lbr`` (LBR's winnings against the agent)."""
    hands: int
    estimate: Estimate
    aivat: AIVATSummary | None
    seconds: float

    @property
    def hands_per_second(self) -> float:
        return self.hands / self.seconds if self.seconds > 0 else math.inf

    @property
    def best(self) -> tuple[float, float, float]:
        """The AIVAT estimate where there is one, else the plain one: (mean, low, high)."""
        if self.aivat is not None:
            return (self.aivat.mbb_per_hand, *self.aivat.ci95)
        return (self.estimate.mean, self.estimate.low, self.estimate.high)

    def to_json(self) -> dict[str, Any]:
        return {
            "opponent": self.opponent,
            "kind": self.kind,
            "hands": self.hands,
            "mbb_per_hand": self.estimate.mean,
            "ci95": [json_number(self.estimate.low), json_number(self.estimate.high)],
            "aivat": self.aivat.to_json() if self.aivat is not None else None,
            "seconds": self.seconds,
            "hands_per_second": json_number(self.hands_per_second),
        }


@dataclass(frozen=True)
class StrengthReport:
    """The rows of a report, with what produced them."""

    agent: str
    seed: int
    hands: int
    workers: int
    rows: tuple[ReportRow, ...]
    command: str
    notes: tuple[str, ...] = ()
    on_ray: bool = False
    """Whether the rows were played as tasks on a Ray cluster."""

    def to_json(self) -> dict[str, Any]:
        return {
            "agent": self.agent,
            "seed": self.seed,
            "hands": self.hands,
            "workers": self.workers,
            "ray": self.on_ray,
            "command": self.command,
            "notes": list(self.notes),
            "rows": [row.to_json() for row in self.rows],
        }

    def to_markdown(self) -> str:
        """The report as a Markdown table (mbb/hand, 95% intervals) with its command."""

        def interval(mean: float, low: float, high: float) -> str:
            return f"{mean:+,.0f} [{low:+,.0f}, {high:+,.0f}]"

        lines = [
            f"# Strength report: `{self.agent}`",
            "",
            f"Seed {self.seed}, {self.hands:,} hands a row, {self.workers} worker(s)"
            f"{' on Ray' if self.on_ray else ''}. "
            "Duplicate rows: what the agent wins; LBR rows: what LBR wins against it. "
            "mbb/hand with 95% confidence intervals.",
            "",
            "| opponent | kind | hands | plain | AIVAT | AIVAT variance removed | hands/s |",
            "|---|---|---:|---:|---:|---:|---:|",
        ]
        for row in self.rows:
            estimate = row.estimate
            aivat = row.aivat
            aivat_text = interval(aivat.mbb_per_hand, *aivat.ci95) if aivat is not None else "–"
            removed = (
                f"{aivat.variance_reduction:.0%}"
                if aivat is not None and math.isfinite(aivat.variance_reduction)
                else "–"
            )
            lines.append(
                f"| `{row.opponent}` | {row.kind} | {row.hands:,} | "
                f"{interval(estimate.mean, estimate.low, estimate.high)} | {aivat_text} | {removed} | "
                f"{row.hands_per_second:,.1f} |"
            )
        lines += ["", *(f"- {note}" for note in self.notes), "", "```", self.command, "```", ""]
        return "\n".join(lines)

    def plot(self, path: str | Path) -> None:
        """A horizontal bar chart of every row from the agent's side (LBR rows negated), with error
        bars: the AIVAT interval where there is one, else the plain one. Written to ``path`` (PNG)."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        labels, means, errors, colours = [], [], [], []
        for row in self.rows:
            mean, low, high = row.best
            sign = -1.0 if row.kind == "lbr" else 1.0
            labels.append(f"{row.opponent}{' (AIVAT)' if row.aivat is not None else ''}")
            means.append(sign * mean)
            half = (high - low) / 2 if math.isfinite(high - low) else 0.0
            errors.append(half)
            colours.append("#c0392b" if sign * mean < 0 else "#2e86c1")
        figure, axes = plt.subplots(figsize=(8, 0.45 * len(labels) + 1.5))
        positions = list(range(len(labels)))[::-1]
        axes.barh(positions, means, xerr=errors, color=colours, capsize=3)
        axes.set_yticks(positions, labels)
        axes.axvline(0.0, color="black", linewidth=0.8)
        axes.set_xlabel("mbb/hand for the agent (LBR rows: minus what LBR wins), 95% CI")
        axes.set_title(f"{self.agent}: seed {self.seed}, {self.hands:,} hands a row", fontsize=9)
        figure.tight_layout()
        figure.savefig(path, dpi=110)
        plt.close(figure)

    def write(self, folder: str | Path) -> list[Path]:
        """Write ``report.md``, ``report.json`` and ``report.png`` into ``folder`` (created if missing)."""
        target = Path(folder)
        target.mkdir(parents=True, exist_ok=True)
        paths = [target / "report.md", target / "report.json", target / "report.png"]
        write_text_atomically(paths[0], self.to_markdown())
        write_text_atomically(paths[1], json.dumps(self.to_json(), indent=2) + "\n")
        temporary = target / ".report.tmp.png"
        self.plot(temporary)  # savefig picks the format from the suffix
        temporary.replace(paths[2])
        return paths


def report_notes(agent: Agent) -> tuple[str, ...]:
    """What a reader must know about how ``agent`` was measured: a search's iteration counts."""
    config = getattr(agent, "config", None)
    if not isinstance(config, SearchConfig):
        return ()
    searched = [
        f"{name} {search.iterations}" for name in STREETS if (search := getattr(config, name)).iterations > 0
    ]
    if not searched:
        return ()
    return (
        f"The agent's solves stop on iteration counts ({', '.join(searched)}), never on a clock: the "
        "figures are reproducible from the seed on any machine.",
    )


def strength_report(
    spec: str,
    hands: int,
    *,
    seed: int = 0,
    workers: int = 1,
    opponents: Sequence[str] = BASELINES + PANEL,
    lbr_menus: Sequence[str] = REPORT_LBR_MENUS,
    command: str = "",
    on_progress: Callable[[int], None] | None = None,
    address: str | None = None,
) -> StrengthReport:
    """Play ``spec`` against every opponent (``hands`` hands each, in duplicate pairs) and run LBR
    against it with each menu (``hands`` hands each). ``on_progress`` gets the hands done so far
    over the whole report. A spec whose agent cannot state its probabilities gets no LBR rows.
    ``address`` plays every row on the Ray cluster there, ``workers`` chunks at a time (``local``:
    a Ray started here), with the same figures."""
    if isinstance(hands, bool) or not isinstance(hands, int) or hands < 2:
        raise ValueError(f"a report needs at least 2 hands a row, got {hands!r}")
    for menu in lbr_menus:
        if menu not in LBR_MENUS:
            raise ValueError(f"unknown LBR menu {menu!r}; menus: {', '.join(LBR_MENUS)}")
    agent = make_agent(spec)
    for opponent in opponents:  # every spec checked before the first hand is played
        make_agent(opponent)
    pairs = hands // 2
    rows: list[ReportRow] = []
    done = 0

    def progress(offset: int, scale: int) -> Callable[[int], None] | None:
        if on_progress is None:
            return None
        callback = on_progress
        return lambda count: callback(offset + count * scale)

    for opponent in opponents:
        result = duplicate_match(
            make_agent(spec),
            make_agent(opponent),
            pairs,
            seed=seed,
            workers=workers,
            names=(spec, opponent),
            on_progress=progress(done, 2),
            aivat=None,
            address=address,
        )
        rows.append(
            ReportRow(opponent, "duplicate", result.hands, result.estimate, result.aivat, result.seconds)
        )
        done += result.hands
    if exposes_probabilities(agent):
        for menu in lbr_menus:
            lbr = lbr_match(
                make_agent(spec),
                hands,
                seed=seed,
                lbr_config=LBR_MENUS[menu],
                workers=workers,
                name=spec,
                on_progress=progress(done, 1),
                aivat=None,
                address=address,
            )
            rows.append(ReportRow(f"lbr:{menu}", "lbr", lbr.hands, lbr.estimate, lbr.aivat, lbr.seconds))
            done += lbr.hands
    return StrengthReport(
        spec, seed, hands, workers, tuple(rows), command, report_notes(agent), on_ray=address is not None
    )


__all__ = [
    "BASELINES",
    "PANEL",
    "REPORT_LBR_MENUS",
    "ReportRow",
    "StrengthReport",
    "report_notes",
    "strength_report",
]
