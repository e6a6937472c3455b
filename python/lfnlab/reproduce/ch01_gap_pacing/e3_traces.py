"""01.E3: microscopic traces with and without gap pacing (spec 01 §3 E3; paper Figs. 7–10),
plus the fq/EDT baseline the issue adds as a third panel.

Monitor M (the emulator's ingress, spec 01 §2.8) counts frame bytes per 500 µs bin; cwnd is
the tcp trace's value at the end of each 500 µs bin; TailDrops come from a 500 µs queue
monitor on the FIFO, so drop times have 500 µs resolution (the start of their bin).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ...result import Result
from ..engine import Case, Experiment
from ..figures import new_figure
from ..measure import WIRE_OVERHEAD_BYTES
from ..outcome import Check, Figure, Outcome, Table, expectation, expectations_table, verdict
from .path01 import BOTTLENECK, MONITOR_M, NIC_BYTES_PER_S, WIRE_BYTES, path_scenario
from .common01 import (
    MB,
    NIC_FRAME_BYTES_PER_S,
    PACINGS,
    VARIANT_NAMES,
    frame_rate_bound,
    host_entry,
    port_a_check,
    queue_entry,
    target_rate,
)

KIB = 1024
#: Paper's monitor bin (spec 01 §2.8) and the trace/queue bins matched to it.
BIN_S = 0.0005
#: Averaging window "over the RTT" of the Fig. 7 metrics (spec 01 §3 E3).
RTT_WINDOW_S = 0.2
#: Time at which Fig. 7's cwnd and 200 ms bandwidth are compared (CHOICE of spec 01 §3 E3).
COMPARE_AT_S = 5.0
#: Largest gap a paced packet can follow (spec 01 §2.3 gap_total_max), wire bytes.
GAP_TOTAL_MAX = 65536


@dataclass(frozen=True)
class Fig:
    """One paper figure: variant, FIFO size, phase (``ss`` slow start, ``ca`` congestion avoidance)."""

    name: str
    variant: str
    buffer_bytes: float
    phase: str


FIGS = (
    Fig("paper-fig7", "scalable", 128 * KIB, "ss"),
    Fig("paper-fig8", "fast", 128 * KIB, "ss"),
    Fig("paper-fig9", "fast", 128 * KIB, "ca"),
    Fig("paper-fig10", "fast", 512 * KIB, "ca"),
)


@dataclass(frozen=True)
class Params:
    c_MBps: float = field(metadata={"label": "bottleneck rate C", "unit": "MB/s"})
    rtt_s: float = field(metadata={"label": "RTT", "unit": "s"})
    ss_window_s: tuple[float, float] = field(metadata={"label": "slow-start window", "unit": "s"})
    ca_window_s: tuple[float, float] = field(metadata={"label": "congestion-avoidance window", "unit": "s"})
    zoom_s: float = field(default=1.0, metadata={"label": "zoom length", "unit": "s"})
    socket_bytes: float = field(default=32 * 2**20, metadata={"label": "socket send/receive buffers", "unit": "B"})
    seed: int = field(default=1, metadata={"label": "seed"})


FULL = Params(c_MBps=62.5, rtt_s=0.2, ss_window_s=(0.0, 10.0), ca_window_s=(100.0, 110.0))
#: All four figures; the CA window moved to 20–30 s so each FAST run lasts 30 s.
QUICK = Params(c_MBps=62.5, rtt_s=0.2, ss_window_s=(0.0, 10.0), ca_window_s=(20.0, 30.0))


def _window(par: Params, phase: str) -> tuple[float, float]:
    return par.ss_window_s if phase == "ss" else par.ca_window_s


def run_sets(par: Params) -> dict[tuple[str, float], float]:
    """(variant, B) → run duration: the end of the latest window a figure needs from it."""
    out: dict[tuple[str, float], float] = {}
    for f in FIGS:
        key = (f.variant, f.buffer_bytes)
        out[key] = max(out.get(key, 0.0), _window(par, f.phase)[1])
    return out


def run_label(variant: str, buffer_bytes: float, pacing_short: str) -> str:
    return f"{variant}-{round(buffer_bytes / KIB):03d}k-{pacing_short}"


def zoom_window(
    window: tuple[float, float], first_drop_s: float, phase: str, length: float = 1.0
) -> tuple[float, float]:
    """The 1 s zoom of spec 01 §3 E3: centred on the first TailDrop inside the window (of the
    unpaced case), shifted to stay inside the window; without a drop there, 1–2 s in slow
    start and the window's first second in congestion avoidance."""
    a, b = window
    if math.isnan(first_drop_s) or not (a <= first_drop_s < b):
        start = a + 1.0 if phase == "ss" else a
        return (start, min(b, start + length))
    start = min(max(a, first_drop_s - length / 2), b - length)
    return (start, start + length)


def _in(df: pd.DataFrame, a: float, b: float, eps: float = 1e-9) -> pd.DataFrame:
    return df[(df["t"] >= a - eps) & (df["t"] < b - eps)]


def _keeper(windows: list[tuple[float, float]]) -> Any:
    """Reduce a run to what the figures, metrics and checks use in its ``windows`` (run sizes:
    220 k bins per table)."""

    def keep(r: Result) -> dict[str, Any]:
        lo = min(a for a, _ in windows)
        hi = max(b for _, b in windows)
        m = r.flows[r.flows["monitor"] == MONITOR_M][["t", "bytes", "packets"]]
        m = m.astype({"bytes": "int64", "packets": "int64"})
        wire = m["bytes"].to_numpy() + WIRE_OVERHEAD_BYTES * m["packets"].to_numpy()
        q = r.queues[r.queues["queue"] == BOTTLENECK]
        drops = q[q["drops"] > 0][["t", "drops"]].astype({"drops": "int64"}).reset_index(drop=True)
        tcp = r.tcp[r.tcp["flow"] == "f"][["t", "cwnd", "ssthresh", "srtt"]]
        return {
            "summary": r.summary,
            "m": _in(m, lo, hi).reset_index(drop=True),
            "tcp": _in(tcp, lo, hi + BIN_S).reset_index(drop=True),
            "drops": drops,
            "drop_bins_total": int(q["drops"].sum()),
            "m_frames": int(m["packets"].sum()),
            "m_bytes": int(m["bytes"].sum()),
            "m_max_wire_bin": int(wire.max()) if len(wire) else 0,
        }

    return keep


# --- measures on the kept series (pure) ---------------------------------------------------


def bin_rate(m: pd.DataFrame) -> np.ndarray:
    """Monitor M bandwidth per bin, frame bytes/s."""
    return m["bytes"].to_numpy(dtype=float) / BIN_S


def first_drop(drops: pd.DataFrame, a: float = 0.0, b: float = math.inf) -> float:
    """Start of the first 500 µs bin in [a, b) with a TailDrop; NaN if none."""
    d = _in(drops, a, b) if math.isfinite(b) else drops[drops["t"] >= a - 1e-9]
    return float(d["t"].iloc[0]) if len(d) else math.nan


def mean_rate(m: pd.DataFrame, a: float, b: float) -> float:
    """Monitor M frame bytes/s over the bins starting in [a, b)."""
    return float(_in(m, a, b)["bytes"].sum()) / (b - a)


def cwnd_at(tcp: pd.DataFrame, t: float) -> float:
    """cwnd at the end of the bin ending at t (the last trace row with t_row ≤ t)."""
    rows = tcp[tcp["t"] <= t + 1e-9]
    return float(rows["cwnd"].iloc[-1]) if len(rows) else math.nan


def loss_episodes(drops: pd.DataFrame, gap_s: float) -> int:
    """Drop bins grouped into episodes separated by more than ``gap_s`` without a drop."""
    t = drops["t"].to_numpy(dtype=float)
    return 0 if len(t) == 0 else 1 + int(np.sum(np.diff(t) > gap_s))


def fig7_metrics(
    m: pd.DataFrame, tcp: pd.DataFrame, drops: pd.DataFrame, window: tuple[float, float]
) -> dict[str, float]:
    """Spec 01 §3 E3 Fig. 7 numbers of one case: first TailDrop, the largest 500 µs bin before
    it (over the window if no drop), the mean over the 200 ms aligned interval containing that
    bin, and cwnd and the 200 ms mean bandwidth centred on t = 5 s."""
    a, b = window
    t_drop = first_drop(drops, a, b)
    before = _in(m, a, t_drop if not math.isnan(t_drop) else b)
    rates = bin_rate(before)
    i = int(np.argmax(rates)) if len(rates) else -1
    t_peak = float(before["t"].iloc[i]) if i >= 0 else math.nan
    k = math.floor(t_peak / RTT_WINDOW_S + 1e-9) if i >= 0 else 0
    return {
        "first_taildrop_s": t_drop,
        "peak_bin_t_s": t_peak,
        "peak_bin_MBps": float(rates[i]) / MB if i >= 0 else math.nan,
        "rtt_avg_at_peak_MBps": mean_rate(m, k * RTT_WINDOW_S, (k + 1) * RTT_WINDOW_S) / MB if i >= 0 else math.nan,
        "cwnd_at_5s": cwnd_at(tcp, COMPARE_AT_S),
        "rtt_avg_at_5s_MBps": mean_rate(m, COMPARE_AT_S - RTT_WINDOW_S / 2, COMPARE_AT_S + RTT_WINDOW_S / 2) / MB,
    }


FIG7_ROWS = {
    "first_taildrop_s": "time of first TailDrop (s, 500 µs bin start)",
    "peak_bin_t_s": "time of the largest 500 µs bin before it (s)",
    "peak_bin_MBps": "largest 500 µs bin before the first TailDrop (MB/s)",
    "rtt_avg_at_peak_MBps": "mean bandwidth over the 200 ms containing that bin (MB/s)",
    "cwnd_at_5s": "cwnd at t = 5 s (segments)",
    "rtt_avg_at_5s_MBps": "mean bandwidth over 4.9–5.1 s (MB/s)",
}


def fig7_table(metrics: dict[str, dict[str, float]]) -> pd.DataFrame:
    """Rows: the metrics; columns: the three cases and the with/without ratios."""
    off, gap, fq = (metrics[p.short] for p in PACINGS)
    rows = []
    for key, text in FIG7_ROWS.items():

        def ratio(x: float, y: float) -> float:
            return x / y if y and not math.isnan(y) and not math.isnan(x) else math.nan

        rows.append(
            {
                "metric": text,
                "without_pacing": off[key],
                "with_gap_pacing": gap[key],
                "fq_edt": fq[key],
                "ratio_gap_over_without": ratio(gap[key], off[key]),
                "ratio_fq_over_without": ratio(fq[key], off[key]),
            }
        )
    return pd.DataFrame(rows)


def _cov(x: np.ndarray) -> float:
    return float(np.std(x) / np.mean(x)) if len(x) and np.mean(x) > 0 else math.nan


def window_stats(kept: Mapping[str, Any], window: tuple[float, float]) -> dict[str, float]:
    """What the expectations read from one case in one window."""
    a, b = window
    m = _in(kept["m"], a, b)
    rates = bin_rate(m)
    tcp = _in(kept["tcp"], a + BIN_S, b + BIN_S)
    d = _in(kept["drops"], a, b)
    n200 = max(1, round((b - a) / RTT_WINDOW_S))
    per200 = np.array([mean_rate(m, a + i * RTT_WINDOW_S, a + (i + 1) * RTT_WINDOW_S) for i in range(n200)])
    cw = tcp["cwnd"].to_numpy(dtype=float)
    return {
        "drops": int(d["drops"].sum()),
        "episodes": loss_episodes(d, RTT_WINDOW_S),
        "first_drop_s": first_drop(kept["drops"], a, b),
        "mean_MBps": mean_rate(m, a, b) / MB,
        "max_bin_MBps": float(rates.max()) / MB if len(rates) else math.nan,
        "peak_to_mean": float(rates.max() / rates.mean()) if len(rates) and rates.mean() > 0 else math.nan,
        "bins_cov": _cov(rates),
        "rtt_avg_cov": _cov(per200),
        "cwnd_mean": float(cw.mean()) if len(cw) else math.nan,
        "cwnd_cov": _cov(cw),
        "cwnd_max": float(cw.max()) if len(cw) else math.nan,
    }


# --- figures ---------------------------------------------------------------------------------


def _trace_figure(title: str, panels: list[tuple[str, Mapping[str, Any]]], window: tuple[float, float], c: float) -> Any:
    """Stacked panels (one per case) with the same axes: monitor M bandwidth per 500 µs bin as
    bars, cwnd as a line on the right axis, C as a horizontal line, TailDrops as markers."""
    a, b = window
    fig, axes = new_figure(len(panels), 1, width=10.0, height=2.7 * len(panels) + 0.6, sharex=True)
    cw_max = 1.0
    for _, kept in panels:
        tcp = _in(kept["tcp"], a + BIN_S, b + BIN_S)
        if len(tcp):
            cw_max = max(cw_max, float(tcp["cwnd"].max()))
    bw_top = NIC_BYTES_PER_S / MB * 1.08
    for ax, (caption, kept) in zip(axes, panels):
        m = _in(kept["m"], a, b)
        edges = np.append(m["t"].to_numpy(dtype=float), m["t"].to_numpy(dtype=float)[-1] + BIN_S) if len(m) else None
        handles = []
        if edges is not None:
            handles.append(
                ax.stairs(
                    bin_rate(m) / MB, edges, fill=True, color="C0", alpha=0.75, label="monitor M, 500 µs bins (MB/s)"
                )
            )
        handles.append(ax.axhline(c / MB, color="C3", linestyle="--", linewidth=1.0, label=f"C = {c / MB:g} MB/s"))
        d = _in(kept["drops"], a, b)
        if len(d):
            (h,) = ax.plot(
                d["t"].to_numpy(dtype=float) + BIN_S / 2,
                np.full(len(d), bw_top * 0.96),
                "v",
                color="k",
                markersize=4,
                linestyle="none",
                label=f"TailDrop bins ({int(d['drops'].sum())} drops)",
            )
            handles.append(h)
        ax.set_ylim(0, bw_top)
        ax.set_xlim(a, b)
        ax.set_ylabel("bandwidth (MB/s)")
        ax.set_title(caption, fontsize="medium")
        ax.grid(True, alpha=0.3)
        ax2 = ax.twinx()
        tcp = _in(kept["tcp"], a + BIN_S, b + BIN_S)
        (h,) = ax2.plot(tcp["t"], tcp["cwnd"], color="C1", linewidth=1.2, label="cwnd (segments)")
        handles.append(h)
        ax2.set_ylim(0, cw_max * 1.1)
        ax2.set_ylabel("cwnd (segments)")
        ax.legend(handles=handles, loc="upper left", fontsize="x-small")
    axes[-1].set_xlabel("time (s)")
    fig.suptitle(title)
    return fig


# --- the experiment --------------------------------------------------------------------------


def cases(par: Params) -> list[Case]:
    """Per (variant, B) one run in each pacing case, as long as its latest figure window;
    each keeps the bins of the windows its figures show."""
    c = par.c_MBps * MB
    runs = []
    for (variant, buf), duration in run_sets(par).items():
        windows = [_window(par, f.phase) for f in FIGS if (f.variant, f.buffer_bytes) == (variant, buf)]
        for p in PACINGS:
            label = run_label(variant, buf, p.short)
            runs.append(
                Case(
                    label,
                    path_scenario(
                        f"01.E3-{label}",
                        cc=variant,
                        pacing=p.kind,
                        buffer_bytes=buf,
                        duration_s=duration,
                        c_bytes_per_s=c,
                        rtt_s=par.rtt_s,
                        sndbuf_bytes=par.socket_bytes,
                        rcvbuf_bytes=par.socket_bytes,
                        trace_bin_s=BIN_S,
                        monitor_bin_s=BIN_S,
                        queue_bin_s=BIN_S,
                        seed=par.seed,
                    ),
                    _keeper(windows),
                )
            )
    return runs


def analyse(par: Params, kept: Mapping[str, Any]) -> Outcome:
    c = par.c_MBps * MB
    out = Outcome()

    # Figures and the per-window statistics.
    stats: dict[tuple[str, str], dict[str, float]] = {}
    for f in FIGS:
        window = _window(par, f.phase)
        panels = []
        for p in PACINGS:
            k = kept[run_label(f.variant, f.buffer_bytes, p.short)]
            stats[(f.name, p.short)] = window_stats(k, window)
            panels.append((f"{p.caption}: {VARIANT_NAMES[f.variant]}, B = {round(f.buffer_bytes / KIB)} KiB", k))
        phase = "slow start" if f.phase == "ss" else "congestion avoidance"
        title = f"{f.name}: {VARIANT_NAMES[f.variant]}, B = {round(f.buffer_bytes / KIB)} KiB, {phase}"
        out.figures.append(
            Figure(
                f.name,
                f"{title}, {window[0]:g}–{window[1]:g} s. Bars: monitor M frame bytes per 500 µs bin; line: cwnd at the "
                "end of each bin; dashed: C; triangles: 500 µs bins with TailDrops.",
                _trace_figure(f"{title}, {window[0]:g}–{window[1]:g} s", panels, window, c),
            )
        )
        zoom = zoom_window(window, stats[(f.name, "off")]["first_drop_s"], f.phase, par.zoom_s)
        out.figures.append(
            Figure(
                f"{f.name}-zoom",
                f"{title}: zoom {zoom[0]:.4g}–{zoom[1]:.4g} s (around the first TailDrop of the unpaced case in the "
                "window, else its first second; 1–2 s in slow start).",
                _trace_figure(f"{title}, zoom {zoom[0]:.4g}–{zoom[1]:.4g} s", panels, zoom, c),
            )
        )

    # Fig. 7 numbers (spec 01 §3 E3, "Also report").
    f7 = FIGS[0]
    m7 = {
        p.short: fig7_metrics(
            kept[run_label(f7.variant, f7.buffer_bytes, p.short)]["m"],
            kept[run_label(f7.variant, f7.buffer_bytes, p.short)]["tcp"],
            kept[run_label(f7.variant, f7.buffer_bytes, p.short)]["drops"],
            par.ss_window_s,
        )
        for p in PACINGS
    }
    out.tables.append(
        Table(
            "fig7-metrics",
            f"Fig. 7 ({VARIANT_NAMES[f7.variant]}, B = 128 KiB, slow start {par.ss_window_s[0]:g}–{par.ss_window_s[1]:g} s): "
            "monitor M bandwidth in MB/s of frame bytes, cwnd in segments, times with 500 µs resolution; NaN: no "
            "TailDrop in the window (then the peak is over the whole window).",
            fig7_table(m7),
            digits=5,
        )
    )

    # Per-run table and checks (model properties).
    run_rows = []
    line_bound = NIC_BYTES_PER_S * BIN_S + WIRE_BYTES
    for label in sorted(kept):
        k = kept[label]
        s = k["summary"]
        h = host_entry(s, "snd")
        fifo = queue_entry(s, BOTTLENECK)
        run_rows.append(
            {
                "run": label,
                "duration_s": s["duration_s"],
                "taildrops": int(fifo["dropped"]),
                "taildrops_in_500us_bins": k["drop_bins_total"],
                "sender_real_frames": int(h["frames"]),
                "monitor_M_frames": k["m_frames"],
                "fifo_enqueued": int(fifo["enqueued"]),
                "gap_frames": int(h["gap_frames"]),
                "max_M_bin_wire_MBps": k["m_max_wire_bin"] / BIN_S / MB,
            }
        )
    runs = pd.DataFrame(run_rows)
    n = len(runs)
    out.checks.append(
        Check.within(
            "largest 500 µs bin of monitor M, every run (wire bytes)",
            float(runs["max_M_bin_wire_MBps"].max()),
            None,
            line_bound / BIN_S / MB,
            unit="MB/s",
            criterion=f"≤ NIC line rate + one frame per bin = (62,500 + {WIRE_BYTES}) B / 500 µs "
            f"= {line_bound / BIN_S / MB:.3f} MB/s (a frame straddling the bin edge counts in one bin)",
        )
    )
    lag = runs["sender_real_frames"] - runs["monitor_M_frames"]
    out.checks.append(
        Check.within(
            "sender's real frames − monitor M frames, largest over runs",
            int(lag.max()),
            0,
            1,
            unit="frames",
            criterion="in [0, 1] (only a frame still on the 0-delay access link at the end; gap frames never reach M)",
        )
    )
    out.checks.append(
        Check.within(
            "sender's real frames − monitor M frames, smallest over runs",
            int(lag.min()),
            0,
            1,
            unit="frames",
            criterion="in [0, 1]",
        )
    )
    out.checks.append(port_a_check(runs["monitor_M_frames"], runs["fifo_enqueued"], runs["taildrops"], "every run"))
    out.checks.append(
        Check.equal(
            "runs where the 500 µs TailDrop events sum to the FIFO's TailDrops",
            int((runs["taildrops_in_500us_bins"] == runs["taildrops"]).sum()),
            n,
            criterion=f"= {n} (every run)",
        )
    )
    out.tables.append(
        Table(
            "e3-runs",
            "Each run: TailDrops (summary, and summed over the 500 µs queue bins), the sender's real frames against "
            "monitor M's frames and the FIFO's enqueues, gap frames, and the largest 500 µs bin of M in wire bytes.",
            runs,
            digits=6,
        )
    )
    out.tables.append(
        Table(
            "e3-windows",
            "Per figure and case, over its window: TailDrops and loss episodes (drop bins more than 200 ms apart), "
            "first TailDrop, mean and largest 500 µs bandwidth of M (MB/s), largest bin over the mean, coefficient of "
            "variation of the 500 µs bins and of the 200 ms means, cwnd mean, variation and maximum.",
            pd.DataFrame([{"figure": f, "case": p, **v} for (f, p), v in stats.items()]),
            digits=5,
        )
    )
    out.tables.append(
        Table(
            "expectations",
            "Spec 01 §4 (E3) against the traces: qualitative, not checks; `notes` says how `agrees` is read.",
            expectations(par, stats, m7, kept),
        )
    )
    out.notes += [
        "Monitor M sits at the emulator's port A ingress, before the FIFO (spec 01 §2.8) and counts frame bytes of "
        "real frames (gap frames are absorbed by port A's MAC); its bandwidth is frame bytes per 500 µs bin / 500 µs. "
        f"At full use of C it reads C·1518/1538 = {frame_rate_bound(c) / MB:.2f} MB/s, and the NIC line rate reads "
        f"{NIC_FRAME_BYTES_PER_S / MB:.2f} MB/s.",
        "cwnd is the tcp trace's value at the end of each 500 µs bin. TailDrop events come from a queue monitor on "
        f"the FIFO `{BOTTLENECK}` with 500 µs bins: their timestamps are bin starts (500 µs resolution).",
        "Zoom windows (CHOICE): 1 s centred on the first TailDrop of the unpaced case inside the figure's window, "
        "shifted to stay inside it; without such a drop, 1–2 s (slow start) or the window's first second "
        "(congestion avoidance). All panels of a figure share the window and the axes.",
        "Fig. 7 metrics (CHOICE): the 200 ms interval containing the peak is aligned to multiples of 200 ms from "
        "connection start; the 200 ms bandwidth at t = 5 s is the mean over 4.9–5.1 s; cwnd at 5 s is the value at "
        "the end of the bin ending at 5 s.",
        "Checks are model properties (a 500 µs bin cannot exceed the NIC line rate by more than the frame straddling "
        "its edge; every real frame the sender emits arrives at M, no gap frame does; every frame arriving at M is "
        "queued or tail-dropped; drop events add up). The spec 01 §4 expectations are in `expectations`.",
    ]
    return out


def expectations(
    par: Params, stats: dict[tuple[str, str], dict[str, float]], m7: dict[str, dict[str, float]], kept: Mapping[str, Any]
) -> pd.DataFrame:
    """Spec 01 §4 E3 sentences against the traces (not checks)."""
    c = par.c_MBps * MB
    c_frame = frame_rate_bound(c) / MB
    bdp = c * par.rtt_s / WIRE_BYTES
    rows = []
    off7, gap7 = m7["off"], m7["gap"]
    exceeds = off7["peak_bin_MBps"] > par.c_MBps
    near_nic = off7["peak_bin_MBps"] >= 0.9 * NIC_FRAME_BYTES_PER_S / MB
    small = off7["rtt_avg_at_peak_MBps"] < par.c_MBps / 2
    rows.append(
        expectation(
            "Slow start without pacing: 500 µs peaks exceed C, close to the NIC line rate, while the RTT average is small",
            f"Fig. 7: peak {off7['peak_bin_MBps']:.1f} MB/s at {off7['peak_bin_t_s']:.4f} s, 200 ms mean "
            f"{off7['rtt_avg_at_peak_MBps']:.2f} MB/s (NIC line rate {NIC_FRAME_BYTES_PER_S / MB:.1f} MB/s of frames)",
            "yes" if exceeds and near_nic and small else ("partly" if exceeds else "no"),
            "close: ≥ 0.9 × NIC line rate; small: < C/2",
        )
    )
    k_off = kept[run_label("scalable", 128 * KIB, "off")]
    t1 = off7["first_taildrop_s"]
    if not math.isnan(t1):
        tcp = k_off["tcp"]
        # The loss is seen about one RTT after the drop: cwnd peaks, then ssthresh is set.
        after = tcp[(tcp["t"] > t1) & (tcp["t"] <= t1 + 10 * par.rtt_s)]
        finite = after["ssthresh"].replace([np.inf], np.nan)
        ssth = float(finite.dropna().iloc[0]) if finite.notna().any() else math.nan
        t_cut = float(after["t"][finite.notna()].iloc[0]) if finite.notna().any() else math.nan
        cw_peak = float(after[after["t"] < t_cut]["cwnd"].max()) if not math.isnan(t_cut) else math.nan
        halved = ssth <= 0.6 * cw_peak
        small_w = ssth < bdp / 4
        rows.append(
            expectation(
                "Slow start without pacing: first loss early; cwnd halved by fast recovery; CA starts at a small window",
                f"Fig. 7: first TailDrop {t1:.4f} s at cwnd {cwnd_at(tcp, t1):.0f}; cwnd peaks at {cw_peak:.0f}, then "
                f"ssthresh {ssth:.0f} at {t_cut:.4f} s (×{ssth / cw_peak:.3f}); BDP {bdp:.0f} segments",
                "yes" if halved and small_w else ("partly" if halved or small_w else "no"),
                "halved: ssthresh ≤ 0.6 × the peak cwnd before the reduction (Scalable's own rule is × 0.875, "
                "spec 01 §2.7); small: ssthresh < BDP/4",
            )
        )
    for f in ("paper-fig7", "paper-fig8"):
        s = stats[(f, "gap")]
        k = kept[run_label("scalable" if f == "paper-fig7" else "fast", 128 * KIB, "gap")]
        m = _in(k["m"], *par.ss_window_s)
        above = float(np.mean(bin_rate(m) / MB > c_frame + WIRE_BYTES / BIN_S / MB)) if len(m) else math.nan
        rows.append(
            expectation(
                "Slow start with pacing: 500 µs bandwidth at or below C, no congestion",
                f"{f}: {s['drops']} TailDrops in {par.ss_window_s[0]:g}–{par.ss_window_s[1]:g} s; "
                f"{above:.2%} of bins above C (+1 frame); largest bin {s['max_bin_MBps']:.1f} MB/s",
                "yes"
                if s["drops"] == 0 and above <= 0.01
                else ("partly" if s["drops"] == 0 or above <= 0.01 else "no"),
                "yes if no TailDrop and ≤ 1 % of bins above C·1518/1538 + one frame per bin",
            )
        )
    r_cw = gap7["cwnd_at_5s"] / off7["cwnd_at_5s"]
    r_bw = gap7["rtt_avg_at_5s_MBps"] / off7["rtt_avg_at_5s_MBps"] if off7["rtt_avg_at_5s_MBps"] > 0 else math.nan
    rows.append(
        expectation(
            "Slow start with pacing: cwnd and bandwidth many times larger than without",
            f"Fig. 7 at 5 s: cwnd ×{r_cw:.2f}, 200 ms bandwidth ×{r_bw:.2f} (with / without)",
            "yes" if r_cw >= 3 and r_bw >= 3 else ("partly" if r_cw > 1.5 or r_bw > 1.5 else "no"),
            "many times: both ratios ≥ 3; partly if one > 1.5",
        )
    )
    k_gap = kept[run_label("scalable", 128 * KIB, "gap")]
    early = _in(k_gap["m"], 0.0, 1.0)
    tcp_e = k_gap["tcp"][(k_gap["tcp"]["t"] <= 1.0) & (k_gap["tcp"]["srtt"] > 0)]
    tgt = float(np.mean(target_rate(tcp_e["cwnd"], tcp_e["srtt"]))) / MB if len(tcp_e) else math.nan
    floor = NIC_BYTES_PER_S * WIRE_BYTES / (WIRE_BYTES + GAP_TOTAL_MAX) / MB
    peak_e = float(bin_rate(early).max()) / MB if len(early) else math.nan
    rows.append(
        expectation(
            "Early slow start with pacing: some burstiness remains (64 KB gap cap)",
            f"Fig. 7, 0–1 s: mean equation (1) target {tgt:.3f} MB/s, below the lowest exactly paced rate "
            f"{floor:.2f} MB/s; largest 500 µs bin {peak_e:.2f} MB/s",
            verdict(bool(tgt < floor and peak_e > 2 * tgt)),
            "yes if the target is below 125 MB/s·1538/(1538 + 65536) and 500 µs bins exceed twice the target",
        )
    )
    cw_s = {p: m7[p]["cwnd_at_5s"] for p in ("off", "gap")}
    k8 = {p: cwnd_at(kept[run_label("fast", 128 * KIB, p)]["tcp"], COMPARE_AT_S) for p in ("off", "gap")}
    less = all(k8[p] < cw_s[p] for p in ("off", "gap"))
    rows.append(
        expectation(
            "FAST slow start: cwnd grows less aggressively than Scalable TCP",
            f"cwnd at 5 s, FAST vs Scalable: without pacing {k8['off']:.0f} vs {cw_s['off']:.0f}; with pacing "
            f"{k8['gap']:.0f} vs {cw_s['gap']:.0f}",
            verdict(less) if less or not any(k8[p] < cw_s[p] for p in ("off", "gap")) else "partly",
            "yes if FAST's cwnd is smaller in both cases",
        )
    )
    s_off, s_gap = stats[("paper-fig8", "off")], stats[("paper-fig8", "gap")]
    rows.append(
        expectation(
            "FAST slow start: without pacing bursts still cause losses; with pacing none",
            f"Fig. 8: TailDrops {s_off['drops']} without, {s_gap['drops']} with pacing",
            "yes"
            if s_off["drops"] > 0 and s_gap["drops"] == 0
            else ("partly" if s_gap["drops"] == 0 or s_off["drops"] > 0 else "no"),
            "",
        )
    )
    s_off, s_gap = stats[("paper-fig9", "off")], stats[("paper-fig9", "gap")]
    ca = f"{par.ca_window_s[0]:g}–{par.ca_window_s[1]:g} s"
    periodic = s_off["episodes"] >= 2 and s_off["mean_MBps"] < c_frame
    rows.append(
        expectation(
            "FAST CA, 128 KB, without pacing: periodic losses; cwnd cut before the average reaches C",
            f"Fig. 9, {ca}: {s_off['drops']} TailDrops in {s_off['episodes']} episodes; mean {s_off['mean_MBps']:.2f} "
            f"MB/s (C·1518/1538 = {c_frame:.2f})",
            "yes" if periodic else ("partly" if s_off["drops"] > 0 else "no"),
            "yes if ≥ 2 loss episodes and the mean stays below C",
        )
    )
    full = s_gap["mean_MBps"] >= 0.95 * c_frame
    steady = s_gap["rtt_avg_cov"] <= 0.05
    rows.append(
        expectation(
            "FAST CA, 128 KB, with pacing: the bottleneck is used fully and throughput is steady",
            f"Fig. 9, {ca}: mean {s_gap['mean_MBps']:.2f} MB/s ({s_gap['mean_MBps'] / c_frame:.1%} of C·1518/1538), "
            f"200 ms means vary by {s_gap['rtt_avg_cov']:.1%} (CoV), {s_gap['drops']} TailDrops",
            "yes" if full and steady else ("partly" if full or steady else "no"),
            "fully: mean ≥ 95 % of C in frame bytes; steady: CoV of 200 ms means ≤ 5 %",
        )
    )
    s_off, s_gap = stats[("paper-fig10", "off")], stats[("paper-fig10", "gap")]
    flat = s_off["cwnd_cov"] <= 0.01
    uneven = s_off["peak_to_mean"] >= 1.25
    rows.append(
        expectation(
            "FAST CA, 512 KB, without pacing: cwnd flat, but 500 µs bandwidth occasionally uneven",
            f"Fig. 10, {ca}: cwnd CoV {s_off['cwnd_cov']:.2%}; 500 µs bins CoV {s_off['bins_cov']:.1%}, largest "
            f"{s_off['max_bin_MBps']:.1f} MB/s = {s_off['peak_to_mean']:.2f} × the mean",
            "yes" if flat and uneven else ("partly" if flat or uneven else "no"),
            "flat: cwnd CoV ≤ 1 %; uneven: largest 500 µs bin ≥ 1.25 × the window's mean (delayed ACK is on; "
            "ACK compression and interrupt coalescing, `ack_batch_us`, are off by default, spec 01 §5 point 10)",
        )
    )
    rows.append(
        expectation(
            "FAST CA, 512 KB, with pacing: the 500 µs bandwidth is smooth",
            f"Fig. 10, {ca}: largest 500 µs bin / mean {s_gap['peak_to_mean']:.2f} with vs "
            f"{s_off['peak_to_mean']:.2f} without pacing (CoV {s_gap['bins_cov']:.1%} vs {s_off['bins_cov']:.1%}); "
            f"mean {s_gap['mean_MBps']:.2f} vs {s_off['mean_MBps']:.2f} MB/s",
            verdict(bool(s_gap["peak_to_mean"] < s_off["peak_to_mean"])),
            "yes if the paced peak-to-mean ratio of 500 µs bins is smaller (the CoV is not comparable across "
            "rates: at a few MB/s a 500 µs bin holds one or two frames)",
        )
    )
    return expectations_table(rows)


EXPERIMENT = Experiment(
    id="01.E3",
    title="microscopic traces (paper Figs. 7–10)",
    summary="500 µs bandwidth at the emulator ingress, cwnd and TailDrops in slow start and congestion avoidance, "
    "without pacing, with gap pacing and with fq/EDT",
    reference="spec 01 §3 (E3), §2.8, §4",
    checks=(
        "The E2 path (C = 62.5 MB/s, RTT 200 ms) with Scalable TCP (B = 128 KiB, Fig. 7) and FAST TCP (128 KiB, "
        "Figs. 8–9; 512 KiB, Fig. 10), each without pacing, with gap pacing and with fq/EDT. Monitor M at the "
        "emulator's ingress counts frame bytes per 500 µs bin, the tcp trace samples cwnd every 500 µs and a 500 µs "
        "queue monitor on the FIFO times the TailDrops. The checks are model properties: no 500 µs bin of M carries "
        "more than the NIC line rate plus the frame straddling its edge; every real frame the sender emits reaches "
        "M and no gap frame does; every frame reaching M is queued or tail-dropped; the 500 µs drop events add up "
        "to the FIFO's drop count. The paper's observations (spec 01 §4) are compared in `expectations`."
    ),
    full=FULL,
    quick=QUICK,
    cases=cases,
    analyse=analyse,
)
