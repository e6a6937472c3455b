"""Figures of a comparison: goodput per run, and the simulator's and the kernel's TCP
traces overlaid (``cwnd``, ``pacing_rate``) on the common time axis (both start one
base RTT before the first data segment: docs/testbed.md "Time")."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from ..reproduce.figures import finish_axes, new_figure
from .runs import KERNEL, SIMULATOR

__all__ = ["Trace", "goodput_axes", "goodput_figure", "trace_axes", "trace_figure", "TRACE_COLUMNS"]

#: Traced columns: label and the factor to the plotted unit.
TRACE_COLUMNS = {
    "cwnd": ("cwnd (segments)", 1.0),
    "pacing_rate": ("pacing rate (Mbit/s)", 8e-6),
}
_COLOURS = {SIMULATOR: "tab:blue", KERNEL: "tab:red"}


@dataclass(frozen=True)
class Trace:
    """One run's TCP trace: side, repetition, validity and the ``tcp`` table's columns."""

    side: str
    repetition: int
    valid: bool
    tcp: pd.DataFrame


def goodput_axes(ax: Axes, rows: pd.DataFrame, title: str = "") -> None:
    """Each completed run as a dot (hollow: a kernel run marked invalid) and each side's
    median as a bar."""
    for x, side in enumerate((SIMULATOR, KERNEL)):
        done = rows[(rows["side"] == side) & (rows["status"] == "done")]
        g = done["goodput_bps"].to_numpy(dtype=float) / 1e6
        if g.size:
            ax.bar(x, float(np.median(g)), width=0.6, color=_COLOURS[side], alpha=0.35)
        valid = done["valid"].to_numpy(dtype=bool)
        jitter = np.linspace(-0.12, 0.12, max(len(g), 1))[: len(g)]
        ax.scatter(x + jitter[valid], g[valid], color=_COLOURS[side], zorder=3, s=18)
        ax.scatter(x + jitter[~valid], g[~valid], facecolors="none", edgecolors=_COLOURS[side], zorder=3, s=18)
    ax.set_xticks([0, 1], [SIMULATOR, KERNEL])
    ax.set_ylabel("goodput (Mbit/s)")
    ax.set_ylim(bottom=0)
    if title:
        ax.set_title(title, fontsize="small")
    ax.grid(True, axis="y", alpha=0.3)


def goodput_figure(rows: pd.DataFrame, title: str) -> Figure:
    fig, (ax,) = new_figure(width=5.0, height=4.0)
    goodput_axes(ax, rows, title)
    return fig


def trace_axes(ax: Axes, traces: Sequence[Trace], column: str, title: str = "", legend: bool = True) -> None:
    """``column`` against time, every run: the simulator's solid, the kernel's thin
    (dashed when the run is marked invalid)."""
    label, factor = TRACE_COLUMNS[column]
    for tr in traces:
        if column not in tr.tcp.columns or tr.tcp.empty:
            continue
        y = tr.tcp[column].to_numpy(dtype=float) * factor
        style = "-" if tr.valid else "--"
        width = 1.6 if tr.side == SIMULATOR else 0.9
        name = f"{tr.side} r{tr.repetition}" + ("" if tr.valid else " (invalid)")
        ax.plot(tr.tcp["t"], y, style, color=_COLOURS[tr.side], lw=width, alpha=0.9, label=name if legend else None)
    ax.set_xlabel("time (s)")
    ax.set_ylabel(label)
    if title:
        ax.set_title(title, fontsize="small")
    finish_axes(ax)


def trace_figure(traces: Sequence[Trace], column: str, title: str) -> Figure:
    fig, (ax,) = new_figure(width=8.0, height=4.0)
    trace_axes(ax, traces, column, title)
    return fig
