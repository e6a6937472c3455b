"""Figures of a run for a networking engineer (matplotlib, Agg: no display needed).

One function per panel, each drawing on a given ``ax`` (a notebook's) or on a new
figure, written to ``path`` when one is given:

- :func:`goodput`: goodput of every flow in Mbit/s, with the bottleneck's rate and its
  wire bound (the goodput ceiling with full-size segments, spec 06 §1.2);
- :func:`cwnd`: the congestion window in segments, with the BDP and BDP + bottleneck
  buffer lines, retransmissions as ticks and RTOs as crosses;
- :func:`queue`: the bottleneck queue's occupancy (KiB) with its limit and its drops;
- :func:`rtt`: srtt and min RTT (ms) with the path's base RTT;
- :func:`tseq`: the time-sequence ("Stevens", tcptrace) graph of one flow over a window:
  data segments (retransmissions in red), the ACK line, the receive-window line and the
  SACK blocks, from ``packets.parquet`` (a monitor with ``capture_packets``);
- :func:`overview`: goodput, cwnd, queue and RTT stacked; :func:`goodput_cwnd` the first two.

Goodput comes from the TCP trace's cumulative ``bytes_acked`` (spec 06 §6) resampled
on a regular grid, or, when the trace is off, from the monitors' per-bin bytes in the
flows table. The path's lines come from ``summary.json`` ``flows[].path`` and the
resolved scenario (:mod:`lfnlab.explain`).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Optional

import numpy as np

from .result import Result

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["goodput", "cwnd", "queue", "rtt", "tseq", "overview", "goodput_cwnd", "goodput_series", "KINDS"]

#: Figure kinds of ``lfnlab plot --kind``.
KINDS = ("goodput_cwnd", "overview", "tseq", "queue", "rtt", "goodput", "cwnd")

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


def _new_figure(rows: int, height_in: float) -> tuple[Figure, list[Axes]]:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(9, height_in), layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(rows, 1, sharex=True, squeeze=False)[:, 0]
    return fig, list(axes)


def _save(fig: Figure, path: str | os.PathLike[str]) -> Path:
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=120)
    return out


def _single(draw: Callable[[Axes], None], result: Result, ax: Optional[Axes], path: Optional[str | os.PathLike[str]], what: str) -> Axes:
    """Draw one panel on ``ax`` or on a new figure titled after the run; save it to ``path``."""
    if ax is None:
        fig, (ax,) = _new_figure(1, 3.6)
        fig.suptitle(_title(result, what))
        ax.set_xlabel("time (s)")
    draw(ax)
    _finish(ax)
    if path is not None:
        fig = ax.get_figure()
        assert fig is not None
        _save(fig, path)  # type: ignore[arg-type]
    return ax


def _finish(ax: Axes) -> None:
    ax.grid(True, alpha=0.3)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(loc="best", fontsize="small")


def _title(result: Result, what: str, title: Optional[str] = None) -> str:
    duration = result.summary.get("duration_s")
    name = title if title is not None else result.name or "lfnlab run"
    return f"{name}: {what}" + (f" ({duration:g} s simulated)" if duration is not None else "")


def _paths(result: Result) -> dict[str, Any]:
    """The explanation of each TCP flow with a known path (for its lines), by flow name."""
    if result.scenario_toml is None:
        return {}
    from .explain import explain

    try:
        return {e.flow: e for e in explain(result).flows}
    except (KeyError, ValueError):  # an older result without path figures
        return {}


def _counter_steps(rows: pd.DataFrame, column: str) -> np.ndarray:
    """Times at which a cumulative trace counter increased."""
    if column not in rows.columns or len(rows) < 2:
        return np.array([])
    v = rows[column].to_numpy(dtype=float)
    t = rows["t"].to_numpy(dtype=float)
    return t[1:][np.diff(v) > 0]


def _draw_goodput(result: Result, ax: Axes, paths: dict[str, Any]) -> None:
    series = goodput_series(result)
    for flow, (t, mbps) in series.items():
        ax.plot(t, mbps, label=flow, linewidth=1.0)
    if not series:
        _no_data(ax, "goodput data (TCP trace off and no monitors)")
    drawn: set[tuple[str, int]] = set()
    for e in paths.values():
        if (e.bottleneck, e.bottleneck_bps) in drawn:
            continue
        drawn.add((e.bottleneck, e.bottleneck_bps))
        ax.axhline(e.bottleneck_bps / 1e6, color="black", linewidth=0.8, label=f"{e.bottleneck} {e.bottleneck_bps / 1e6:g} Mbit/s")
        ax.axhline(e.wire_bound_bps / 1e6, color="black", linestyle="--", linewidth=0.8, label=f"wire bound {e.wire_bound_bps / 1e6:.1f} Mbit/s")
    ax.set_ylabel("goodput (Mbit/s)")
    ax.set_ylim(bottom=0)


def _draw_cwnd(result: Result, ax: Axes, paths: dict[str, Any]) -> None:
    tcp = result.tcp
    series = _cwnd_series(tcp)
    for flow, (t, w) in series.items():
        (line,) = ax.plot(t, w, label=f"{flow} cwnd", linewidth=1.0, drawstyle="steps-post")
        color = line.get_color()
        band = _cwnd_band(tcp, flow)
        if band is not None:  # per-bin min and max of the `bin` trace mode (spec 06 §6)
            ax.fill_between(band[0], band[1], band[2], step="post", alpha=0.2, color=color, linewidth=0)
        rows = tcp[tcp["flow"] == flow].sort_values("t", kind="stable")
        top = float(np.nanmax(w)) if len(w) else 1.0
        rexmit = _counter_steps(rows, "retrans")
        if len(rexmit):
            ax.plot(rexmit, np.full(len(rexmit), top * 1.04), "|", color="tab:red", markersize=5, label=f"{flow} retransmissions")
        rto = _counter_steps(rows, "rtos")
        if len(rto):
            ax.plot(rto, np.full(len(rto), top * 1.08), "x", color="darkred", markersize=6, label=f"{flow} RTOs")
        e = paths.get(flow)
        if e is not None:
            bdp = e.wire_bound_bps * e.base_rtt_s / 8 / e.mss_bytes  # full segments that fill the pipe
            ax.axhline(bdp, color=color, linestyle=":", linewidth=0.9, label=f"BDP {bdp:.0f}")
            if e.buffer_bytes is not None:
                frame = e.mss_bytes * e.bottleneck_bps / e.wire_bound_bps - 20  # L2 bytes of a full frame
                ax.axhline(bdp + e.buffer_bytes / frame, color=color, linestyle="-.", linewidth=0.9,
                           label=f"BDP + buffer {bdp + e.buffer_bytes / frame:.0f}")  # fmt: skip
    if not series:
        _no_data(ax, "TCP trace")
    ax.set_ylabel("cwnd (segments)")
    ax.set_ylim(bottom=0)


def _bottleneck_queue(paths: dict[str, Any]) -> Optional[str]:
    for e in paths.values():
        return str(e.bottleneck)
    return None


def _draw_queue(result: Result, ax: Axes, paths: dict[str, Any], name: Optional[str] = None) -> None:
    q = result.queues
    name = name or _bottleneck_queue(paths)
    rows = q[q["queue"] == name].sort_values("t", kind="stable") if name is not None and len(q) else q.iloc[0:0]
    if not len(rows):
        _no_data(ax, f"queue trace of {name}" if name else "queue trace")
        ax.set_ylabel("queue (KiB)")
        return
    t = rows["t"].to_numpy(dtype=float)
    ax.plot(t, rows["bytes"].to_numpy(dtype=float) / 1024, linewidth=1.0, drawstyle="steps-post", label=f"{name} at bin end")
    if "max_bytes" in rows.columns:
        ax.plot(t, rows["max_bytes"].to_numpy(dtype=float) / 1024, linewidth=0.6, alpha=0.6, drawstyle="steps-post", label="bin maximum")
    limit = next((e.buffer_bytes for e in paths.values() if e.bottleneck == name and e.buffer_bytes), None)
    if limit is not None:
        ax.axhline(limit / 1024, color="black", linestyle="--", linewidth=0.8, label=f"limit {limit / 1024:.0f} KiB")
    drops = rows["drops"].to_numpy(dtype=float) if "drops" in rows.columns else np.zeros(len(rows))
    dropped = t[drops > 0]
    if len(dropped):
        top = max(float(rows["max_bytes"].max()) if "max_bytes" in rows.columns else 0.0, limit or 0.0) / 1024
        ax.plot(dropped, np.full(len(dropped), top * 1.05), "|", color="tab:red", markersize=5, label="drops")
    ax.set_ylabel("queue (KiB)")
    ax.set_ylim(bottom=0)


def _draw_rtt(result: Result, ax: Axes, paths: dict[str, Any]) -> None:
    tcp = result.tcp
    if not len(tcp) or not {"srtt", "min_rtt"} <= set(tcp.columns):
        _no_data(ax, "TCP trace")
        ax.set_ylabel("RTT (ms)")
        return
    for flow, rows in tcp.groupby("flow", sort=True):
        rows = rows.sort_values("t", kind="stable")
        t = rows["t"].to_numpy(dtype=float)
        (line,) = ax.plot(t, rows["srtt"].to_numpy(dtype=float) * 1e3, linewidth=1.0, label=f"{flow} srtt")
        ax.plot(t, rows["min_rtt"].to_numpy(dtype=float) * 1e3, linewidth=0.8, linestyle="--", color=line.get_color(), label=f"{flow} min RTT")
    drawn = set()
    for e in paths.values():
        if round(e.base_rtt_s, 9) not in drawn:
            drawn.add(round(e.base_rtt_s, 9))
            ax.axhline(e.base_rtt_s * 1e3, color="black", linestyle=":", linewidth=0.8, label=f"base RTT {e.base_rtt_s * 1e3:g} ms")
    ax.set_ylabel("RTT (ms)")
    ax.set_ylim(bottom=0)


def goodput(result: Result, ax: Optional[Axes] = None, *, path: Optional[str | os.PathLike[str]] = None) -> Axes:
    """Goodput per flow (Mbit/s) with the bottleneck's rate and wire bound."""
    return _single(lambda a: _draw_goodput(result, a, _paths(result)), result, ax, path, "goodput")


def cwnd(result: Result, ax: Optional[Axes] = None, *, path: Optional[str | os.PathLike[str]] = None) -> Axes:
    """cwnd per flow (segments) with BDP and BDP + buffer, retransmission ticks and RTO crosses."""
    return _single(lambda a: _draw_cwnd(result, a, _paths(result)), result, ax, path, "cwnd")


def queue(result: Result, ax: Optional[Axes] = None, *, name: Optional[str] = None, path: Optional[str | os.PathLike[str]] = None) -> Axes:
    """Occupancy of queue ``name`` (default: the first flow's bottleneck) in KiB, from the
    queues table (a ``[[monitor]]`` on that link), with its limit and its drops."""
    return _single(lambda a: _draw_queue(result, a, _paths(result), name), result, ax, path, "bottleneck queue")


def rtt(result: Result, ax: Optional[Axes] = None, *, path: Optional[str | os.PathLike[str]] = None) -> Axes:
    """srtt and min RTT per flow (ms) with the path's base RTT."""
    return _single(lambda a: _draw_rtt(result, a, _paths(result)), result, ax, path, "RTT")


def overview(result: Result, path: Optional[str | os.PathLike[str]] = None, *, title: Optional[str] = None) -> Figure:
    """Goodput, cwnd, bottleneck queue and RTT, stacked on one time axis."""
    fig, axes = _new_figure(4, 11)
    paths = _paths(result)  # the explanation once for all four panels
    for draw, ax in zip((_draw_goodput, _draw_cwnd, _draw_queue, _draw_rtt), axes):
        draw(result, ax, paths)
        _finish(ax)
    axes[-1].set_xlabel("time (s)")
    fig.suptitle(_title(result, "overview", title))
    if path is not None:
        _save(fig, path)
    return fig


def goodput_cwnd(result: Result, path: str | os.PathLike[str], *, title: Optional[str] = None) -> Path:
    """Write the goodput/cwnd figure of ``result`` to ``path`` (format from its suffix, e.g. PNG).

    Returns the path written.
    """
    fig, (ax_goodput, ax_cwnd) = _new_figure(2, 6.5)
    paths = _paths(result)
    _draw_goodput(result, ax_goodput, paths)
    _draw_cwnd(result, ax_cwnd, paths)
    for ax in (ax_goodput, ax_cwnd):
        _finish(ax)
    ax_cwnd.set_xlabel("time (s)")
    fig.suptitle(_title(result, "goodput and cwnd", title))
    return _save(fig, path)


def _tseq_rows(result: Result, flow: Optional[str]) -> tuple[str, pd.DataFrame, pd.DataFrame]:
    """The flow's data frames (from the first monitor that captured any) and its ACKs
    (from the first monitor that captured any: a monitor sees one direction)."""
    pk = result.packets
    if not len(pk):
        raise ValueError("no captured packets: add `capture_packets = N` to a [[monitor]] on the path")
    tcp = pk[pk["kind"].isin(["data", "ack"])]
    names = sorted(tcp["flow"].unique())
    if flow is None:
        if not names:
            raise ValueError("no TCP frames among the captured packets")
        flow = names[0]
    elif flow not in names:
        raise ValueError(f"no captured TCP frames of flow {flow!r} (captured: {', '.join(names) or 'none'})")
    rows = tcp[tcp["flow"] == flow]

    def first_monitor(frames: pd.DataFrame) -> pd.DataFrame:
        if not len(frames):
            return frames
        return frames[frames["monitor"] == sorted(frames["monitor"].unique())[0]].sort_values("t", kind="stable")

    data = first_monitor(rows[(rows["dir"] == 0) & (rows["payload"] > 0)])
    acks = first_monitor(rows[rows["dir"] == 1])
    return flow, data, acks


def tseq(
    result: Result,
    flow: Optional[str] = None,
    window: Optional[tuple[float, float]] = None,
    ax: Optional[Axes] = None,
    *,
    path: Optional[str | os.PathLike[str]] = None,
) -> Axes:
    """Time-sequence graph of ``flow`` (default: the first captured) over ``window`` =
    (t0, t1) s (default: the span of its captured data segments): each data segment as a vertical bar from its first to its last byte
    (MB, relative to the first byte; retransmissions in red), the cumulative ACK as a
    step line, the receive window's right edge (ACK + advertised window), and the SACK
    blocks as bars. Needs ``packets.parquet`` (a ``[[monitor]] capture_packets``)."""
    name, data, acks = _tseq_rows(result, flow)
    if window is None and len(data):
        # By default the span of the captured data: ACKs captured past it have nothing to answer.
        window = (float(data["t"].min()), float(data["t"].max()))
    if window is not None:
        t0, t1 = window
        data = data[(data["t"] >= t0) & (data["t"] <= t1)]
        acks = acks[(acks["t"] >= t0) & (acks["t"] <= t1)]

    def draw(a: Axes) -> None:
        mb = 1e-6
        if len(data):
            t = data["t"].to_numpy(dtype=float)
            lo = data["seq"].to_numpy(dtype=float)
            hi = lo + data["payload"].to_numpy(dtype=float)
            # A segment whose end is not above the highest end sent before it is a retransmission.
            before = np.maximum.accumulate(np.concatenate(([-np.inf], hi[:-1])))
            again = hi <= before
            a.vlines(t[~again], lo[~again] * mb, hi[~again] * mb, color="tab:blue", linewidth=0.8, label="data")
            if again.any():
                a.vlines(t[again], lo[again] * mb, hi[again] * mb, color="tab:red", linewidth=1.4, label="retransmission")
        else:
            _no_data(a, f"captured data segments of {name}")
        if len(acks):
            t = acks["t"].to_numpy(dtype=float)
            ack = acks["ack"].to_numpy(dtype=float)
            a.plot(t, ack * mb, drawstyle="steps-post", color="tab:green", linewidth=1.0, label="ACK")
            if "win" in acks.columns:
                a.plot(t, (ack + acks["win"].to_numpy(dtype=float)) * mb, drawstyle="steps-post", color="tab:olive",
                       linewidth=0.8, label="receive window")  # fmt: skip
            if {"sack_left", "sack_right"} <= set(acks.columns):
                s = acks[acks["sack_right"] > acks["sack_left"]]
                if len(s):
                    a.vlines(s["t"].to_numpy(dtype=float), s["sack_left"].to_numpy(dtype=float) * mb,
                             s["sack_right"].to_numpy(dtype=float) * mb, color="tab:purple", linewidth=1.0, label="SACK")  # fmt: skip
        a.set_ylabel("sequence (MB)")

    return _single(draw, result, ax, path, f"time-sequence graph of {name}")
