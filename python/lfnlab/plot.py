"""Figures of a run (matplotlib, Agg: no display needed).

``goodput_cwnd``: panel 1, goodput of every flow over time in Mbit/s; panel 2,
the congestion window in segments. Goodput comes from the TCP trace's cumulative
``bytes_acked`` (spec 06 §6) resampled on a regular grid, or, when the trace is
off, from the monitors' per-bin bytes in the flows table.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Optional

import numpy as np

from .result import Result

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.axes import Axes

__all__ = ["goodput_cwnd", "goodput_series"]

#: Most goodput samples per flow: enough for a figure, few enough to stay readable.
MAX_POINTS = 300
#: Narrowest goodput step, s: the default trace bin (spec 06 §6).
MIN_STEP_S = 0.01


def _grid(t_end: float, rtt_s: float) -> np.ndarray:
    """Sample times for goodput. Steps span at least one RTT: a window-limited sender
    delivers in bursts once per RTT, and shorter steps would plot the bursts, not the rate."""
    step = max(MIN_STEP_S, t_end / MAX_POINTS, rtt_s if np.isfinite(rtt_s) else 0.0)
    n = max(1, int(np.ceil(t_end / step)))
    return np.linspace(0.0, n * step, n + 1)


def _typical_rtt(rows: pd.DataFrame) -> float:
    """Median of the flow's smallest RTT seen (``min_rtt``), s; NaN if unknown."""
    if "min_rtt" not in rows.columns:
        return float("nan")
    rtt = rows["min_rtt"].to_numpy(dtype=float)
    rtt = rtt[np.isfinite(rtt) & (rtt > 0)]
    return float(np.median(rtt)) if len(rtt) else float("nan")


def goodput_series(result: Result) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Per flow: (bin end times in s, goodput in Mbit/s over each bin).

    From ``tcp.bytes_acked`` when the TCP trace has rows, else from ``flows.bytes``
    (every monitor's bins for that flow, the first monitor when several see it).
    """
    series: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    tcp = result.tcp
    if len(tcp) > 0 and {"t", "flow", "bytes_acked"} <= set(tcp.columns):
        for flow, rows in tcp.groupby("flow", sort=True):
            rows = rows.sort_values("t", kind="stable")
            t = rows["t"].to_numpy(dtype=float)
            acked = rows["bytes_acked"].to_numpy(dtype=float)
            grid = _grid(float(t[-1]), _typical_rtt(rows))
            # Cumulative bytes at each grid point (0 before the first row, flat after the last).
            cum = np.interp(grid, t, acked, left=0.0, right=acked[-1])
            mbps = np.diff(cum) * 8.0 / np.diff(grid) / 1e6
            series[str(flow)] = (grid[1:], mbps)
        return series
    flows = result.flows
    if len(flows) > 0 and {"t", "flow", "bytes", "monitor"} <= set(flows.columns):
        for flow, rows in flows.groupby("flow", sort=True):
            first_monitor = sorted(rows["monitor"].unique())[0]
            rows = rows[rows["monitor"] == first_monitor].sort_values("t", kind="stable")
            t = rows["t"].to_numpy(dtype=float)
            if len(t) == 0:
                continue
            # t is the end of each bin; bins have the monitor's fixed width, the smallest
            # spacing of the rows (a bin without traffic may have no row).
            spacing = np.diff(t)
            spacing = spacing[spacing > 0]
            width = float(spacing.min()) if len(spacing) else float(t[0])
            if width <= 0:
                continue
            series[str(flow)] = (t, rows["bytes"].to_numpy(dtype=float) * 8.0 / width / 1e6)
    return series


def _cwnd_series(tcp: pd.DataFrame) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    if len(tcp) == 0 or not {"t", "flow", "cwnd"} <= set(tcp.columns):
        return {}
    out = {}
    for flow, rows in tcp.groupby("flow", sort=True):
        rows = rows.sort_values("t", kind="stable")
        out[str(flow)] = (rows["t"].to_numpy(dtype=float), rows["cwnd"].to_numpy(dtype=float))
    return out


def _cwnd_band(tcp: pd.DataFrame, flow: str) -> Optional[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    if not {"cwnd_min", "cwnd_max"} <= set(tcp.columns):
        return None
    rows = tcp[tcp["flow"] == flow].sort_values("t", kind="stable")
    return (
        rows["t"].to_numpy(dtype=float),
        rows["cwnd_min"].to_numpy(dtype=float),
        rows["cwnd_max"].to_numpy(dtype=float),
    )


def _no_data(ax: Axes, what: str) -> None:
    ax.text(0.5, 0.5, f"no {what} in this result", ha="center", va="center", transform=ax.transAxes, color="gray")


def goodput_cwnd(result: Result, path: str | os.PathLike[str], *, title: Optional[str] = None) -> Path:
    """Write the goodput/cwnd figure of ``result`` to ``path`` (format from its suffix, e.g. PNG).

    Returns the path written.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(9, 6.5), layout="constrained")
    FigureCanvasAgg(fig)
    ax_goodput, ax_cwnd = fig.subplots(2, 1, sharex=True)

    goodput = goodput_series(result)
    for flow, (t, mbps) in goodput.items():
        ax_goodput.plot(t, mbps, label=flow, linewidth=1.0)
    if not goodput:
        _no_data(ax_goodput, "goodput data (TCP trace off and no monitors)")
    ax_goodput.set_ylabel("goodput (Mbit/s)")
    ax_goodput.set_ylim(bottom=0)

    cwnd = _cwnd_series(result.tcp)
    for flow, (t, w) in cwnd.items():
        (line,) = ax_cwnd.plot(t, w, label=flow, linewidth=1.0, drawstyle="steps-post")
        band = _cwnd_band(result.tcp, flow)
        if band is not None:  # per-bin min and max of the `bin` trace mode (spec 06 §6)
            ax_cwnd.fill_between(band[0], band[1], band[2], step="post", alpha=0.2, color=line.get_color(), linewidth=0)
    if not cwnd:
        _no_data(ax_cwnd, "TCP trace")
    ax_cwnd.set_ylabel("cwnd (segments)")
    ax_cwnd.set_xlabel("time (s)")
    ax_cwnd.set_ylim(bottom=0)

    for ax in (ax_goodput, ax_cwnd):
        ax.grid(True, alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(loc="best", fontsize="small")
    duration = result.summary.get("duration_s")
    name = title if title is not None else result.name or "lfnlab run"
    fig.suptitle(f"{name}: goodput and cwnd" + (f" ({duration:g} s simulated)" if duration is not None else ""))

    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=120)
    return out
