"""06.V4: the AIMD sawtooth over a tiny buffer uses 3/4 of the link (spec 06 §7 V4)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ...result import Result
from .. import quantities as q
from ..figures import finish_axes, new_figure
from ..measure import flow_rows, goodput_bps, wire_bits
from ..outcome import Check, Figure, Outcome, Table
from .path06 import BOTTLENECK, FLOW, bdp_bytes, bdp_segments, path_scenario, wire_bound_bps
from ..engine import Case, Experiment

#: Expected busy fraction: a window sawtooth between W/2 and W averages 3/4 of W (spec 06 §7 V4).
TARGET = 0.75
TOLERANCE = 0.04
#: Figure: at most this many seconds of the sawtooth after the warm-up.
FIGURE_SPAN_CYCLES = 6


@dataclass(frozen=True)
class Params:
    rate_bps: float = field(metadata={"label": "bottleneck rate C", "unit": "bps"})
    rtt_s: float = field(metadata={"label": "RTT", "unit": "s"})
    buffer_packets: int = field(metadata={"label": "bottleneck buffer", "unit": "packets"})
    duration_s: float = field(metadata={"label": "duration", "unit": "s"})
    warmup_s: float = field(metadata={"label": "measured after", "unit": "s"})
    min_cycles: int = field(metadata={"label": "AIMD cycles required after the warm-up"})
    socket_bdp: float = field(metadata={"label": "socket buffers", "unit": "× BDP"})
    monitor_bin_s: float = field(metadata={"label": "bottleneck monitor bin", "unit": "s"})
    ack_policy: str = field(default="per_segment", metadata={"label": "ACK policy"})
    cc: str = field(default="newreno", metadata={"label": "congestion control"})
    profile: str = field(default="linux-2.6", metadata={"label": "profile"})


FULL = Params(
    rate_bps=1e8,
    rtt_s=0.04,
    buffer_packets=3,
    duration_s=240.0,
    warmup_s=20.0,
    min_cycles=30,
    socket_bdp=4.0,
    monitor_bin_s=0.1,
)
QUICK = Params(
    rate_bps=1e8,
    rtt_s=0.02,
    buffer_packets=3,
    duration_s=60.0,
    warmup_s=5.0,
    min_cycles=30,
    socket_bdp=4.0,
    monitor_bin_s=0.1,
)


def congestion_events(rows: pd.DataFrame, after_s: float, merge_s: float) -> np.ndarray:
    """Times of window reductions after ``after_s``: rows where the cumulative
    fast-retransmit or timeout counters grow; growth within ``merge_s`` of the
    previous one belongs to the same event (one recovery episode)."""
    count = (rows["fast_retrans"] + rows["rtos"]).to_numpy(dtype=np.int64)
    t = rows["t"].to_numpy(dtype=float)
    grew = np.flatnonzero(np.diff(count) > 0) + 1
    times = t[grew]
    times = times[times > after_s]
    events: list[float] = []
    for x in times:
        if not events or x - events[-1] > merge_s:
            events.append(float(x))
    return np.array(events)


def _keep(r: Result) -> dict[str, Any]:
    """What the checks and the figure need: the summary, the bottleneck monitor's bins and the flow's trace columns."""
    return {
        "summary": r.summary,
        "flows": r.flows,
        "rows": flow_rows(r.tcp, FLOW)[["t", "cwnd", "cwnd_min", "cwnd_max", "fast_retrans", "rtos", "bytes_read"]],
    }


def cases(p: Params) -> list[Case]:
    """One long transfer over the tiny buffer."""
    bdp = bdp_bytes(p.rate_bps, p.rtt_s)
    scenario = path_scenario(
        "06.V4",
        rate_bps=p.rate_bps,
        rtt_s=p.rtt_s,
        duration_s=p.duration_s,
        queue={"kind": "droptail", "limit_packets": p.buffer_packets},
        sndbuf_bytes=round(p.socket_bdp * bdp),
        rcvbuf_bytes=round(p.socket_bdp * bdp),
        cc=p.cc,
        profile=p.profile,
        tcp={"ack_policy": p.ack_policy},
        trace={"mode": "bin", "bin": "10ms"},
        monitor_bin_s=p.monitor_bin_s,
    )
    return [Case("aimd", scenario, _keep)]


def analyse(p: Params, results: Mapping[str, Any]) -> Outcome:
    m = results["aimd"]
    rows = m["rows"]
    span = p.duration_s - p.warmup_s
    busy = wire_bits(m["flows"], BOTTLENECK, p.warmup_s, p.duration_s) / (p.rate_bps * span)
    goodput = goodput_bps(rows, p.warmup_s, p.duration_s)
    events = congestion_events(rows, p.warmup_s, 2 * p.rtt_s)
    after = rows[rows["t"] > p.warmup_s]
    flow = m["summary"]["flows"][0]
    out = Outcome()
    out.checks.append(
        Check.within(
            f"AIMD cycles after {p.warmup_s:g} s", len(events), p.min_cycles, None, criterion=f"≥ {p.min_cycles}"
        )
    )
    out.checks.append(
        Check.within(
            "bottleneck utilization (wire bits / C·T)",
            busy,
            TARGET - TOLERANCE,
            TARGET + TOLERANCE,
            criterion=f"{TARGET} ± {TOLERANCE}",
        )
    )
    out.checks.append(
        Check.equal("timeouts", int(flow["timeouts"]), 0, criterion="0 (every cycle ends in fast recovery)")
    )
    period = float(np.mean(np.diff(events))) if len(events) > 1 else float("nan")
    out.tables.append(
        Table(
            "aimd",
            "Utilization and sawtooth of the measured interval.",
            pd.DataFrame(
                [
                    {
                        "bdp_segments": bdp_segments(p.rate_bps, p.rtt_s),
                        "buffer_packets": p.buffer_packets,
                        "measured_from_s": p.warmup_s,
                        "measured_to_s": p.duration_s,
                        "utilization_wire": busy,
                        "goodput_bps": goodput,
                        "goodput_over_wire_bound": goodput / wire_bound_bps(p.rate_bps),
                        "cycles": len(events),
                        "mean_cycle_s": period,
                        "cwnd_max_segments": float(after["cwnd_max"].max()),
                        "cwnd_min_segments": float(after["cwnd_min"].min()),
                        "retransmitted_segments": flow["retransmitted_segments"],
                        "timeouts": flow["timeouts"],
                    }
                ]
            ),
        )
    )
    fig, (ax,) = new_figure(1, 1, height=4.5)
    end = p.warmup_s + (FIGURE_SPAN_CYCLES * period if np.isfinite(period) else span)
    shown = rows[(rows["t"] >= p.warmup_s) & (rows["t"] <= end)]
    ax.plot(shown["t"], shown["cwnd"], linewidth=1.0, drawstyle="steps-post", label="cwnd")
    ax.axhline(bdp_segments(p.rate_bps, p.rtt_s), color="gray", linestyle="--", linewidth=0.8, label="BDP")
    for x in events[events <= end]:
        ax.axvline(x, color="C3", alpha=0.3, linewidth=0.8)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("cwnd (segments)")
    ax.set_ylim(bottom=0)
    finish_axes(ax)
    fig.suptitle(
        f"06.V4: AIMD sawtooth, {q.show_rate(p.rate_bps)}, RTT {q.show_time(p.rtt_s)}, "
        f"buffer {p.buffer_packets} packets; red: window reductions"
    )
    out.figures.append(Figure("aimd_sawtooth", f"cwnd over about {FIGURE_SPAN_CYCLES} cycles after the warm-up.", fig))
    out.notes.append(
        "Utilization is the link's busy fraction: wire bits leaving the bottleneck egress (the monitor's L2 "
        "bytes plus 20 B preamble/SFD and IPG per frame) divided by C·T, the quantity the 3/4 sawtooth "
        "average predicts. Goodput over the wire bound is listed too; the two differ only by retransmissions "
        "and the handshake."
    )
    out.notes.append(
        "A cycle is a window reduction: growth of the cumulative fast-retransmit or timeout counters, with "
        "growth within 2 RTTs merged into one event."
    )
    return out


EXPERIMENT = Experiment(
    id="06.V4",
    title="AIMD utilization over a tiny buffer",
    summary="NewReno over a 3-packet buffer saws between W/2 and W and keeps the link 75 % busy",
    reference="spec 06 §7 (V4)",
    checks=(
        "A NewReno flow with per-segment ACKs crosses a 100 Mbit/s, 40 ms path (BDP ≈ 325 packets) whose bottleneck "
        "holds only 3 packets. Each cycle the window grows by one segment per RTT to about BDP + 3, one packet is "
        "dropped, and the window halves: the link is busy for the sawtooth's mean of W/2…W, three quarters of the "
        "time. Measured over at least 30 cycles after the warm-up, the bottleneck utilization must be 0.75 ± 0.04."
    ),
    full=FULL,
    quick=QUICK,
    cases=cases,
    analyse=analyse,
)
