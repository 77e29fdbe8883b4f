"""The figure set-up and saving that the benchmarks' ``--plot PATH`` options share (matplotlib, headless).

Imported only when a plot is asked for, so a benchmark without ``--plot`` never loads matplotlib.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any


def new_figure() -> tuple[Any, Any]:
    """A headless (Agg) figure of the benchmarks' size and its axes."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt.subplots(figsize=(8, 5.5))


def label_axes(axes: Any, xlabel: str, ylabel: str, title: str) -> None:
    """The benchmarks' axis labels, title, grid (major and minor lines) and legend."""
    axes.set_xlabel(xlabel)
    axes.set_ylabel(ylabel)
    axes.set_title(title)
    axes.grid(True, which="both", alpha=0.3)
    axes.legend(fontsize=8)


def save_figure(figure: Any, path: Path) -> None:
    """Write ``figure`` to ``path`` (creating its folder), close it and say where it went."""
    import matplotlib.pyplot as plt

    path.parent.mkdir(parents=True, exist_ok=True)
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)
    print(f"\nplot written to {path}")
