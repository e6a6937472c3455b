"""Figure helpers: a matplotlib Figure on the Agg canvas and a byte-stable PNG writer."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["new_figure", "save_png", "finish_axes", "log2_x_axis", "spread_yerr"]

#: Resolution of every report figure.
DPI = 110


def new_figure(
    nrows: int = 1, ncols: int = 1, *, width: float = 8.0, height: float = 4.5, sharex: bool = False
) -> tuple[Figure, list[Axes]]:
    """A figure (no pyplot state, no display) and its axes as a flat list."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(nrows, ncols, sharex=sharex, squeeze=False)
    return fig, [ax for row in axes for ax in row]


def finish_axes(ax: Axes) -> None:
    """Grid, and a legend when something is labelled."""
    ax.grid(True, alpha=0.3)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(loc="best", fontsize="small")


def log2_x_axis(ax: Axes, label: str) -> None:
    """A base-2 log x axis labelled with plain numbers (1, 2, 4, …), and its label."""
    from matplotlib.ticker import FuncFormatter

    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.set_xlabel(label)


def spread_yerr(mean: Any, low: Any, high: Any) -> np.ndarray:
    """Asymmetric error bars from a mean and the min/max over seeds. The three are
    rounded separately, so a spread of zero can come out a hair below zero: it is
    clipped (matplotlib refuses negative error bars)."""
    mean, low, high = (np.asarray(x, dtype=float) for x in (mean, low, high))
    return np.clip(np.vstack([mean - low, high - mean]), 0.0, None)


def save_png(fig: Figure, path: Path) -> Path:
    """Write ``fig`` as PNG without the Software/date text chunks, so the same data
    gives the same bytes."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, format="png", dpi=DPI, metadata={"Software": None})
    return path
