"""06.V1: a long bulk transfer reaches the wire-efficiency bound (spec 06 §7 V1)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ...result import Result
from ...scenario import Scenario
from .. import quantities as q
from ..figures import finish_axes, new_figure
from ..measure import flow_rows, goodput_bps, value_at
from ..outcome import Check, Figure, Outcome, Table
from .path06 import FLOW, bdp_bytes, path_scenario, wire_bound_bps
from ..engine import Case, Experiment

#: Upper slack over the bound: goodput ≤ bound + 0.1 % (spec 06 §7 V1).
UPPER_SLACK = 0.001
#: Lower criterion: goodput ≥ 0.98 · bound.
LOWER_FRACTION = 0.98


@dataclass(frozen=True)
class Params:
    rate_bps: float = field(metadata={"label": "bottleneck rate C", "unit": "bps"})
    rtt_s: float = field(metadata={"label": "RTT", "unit": "s"})
    duration_s: float = field(metadata={"label": "duration", "unit": "s"})
    measure_from_s: float = field(metadata={"label": "goodput measured from", "unit": "s"})
    buffer_bdp: float = field(metadata={"label": "bottleneck buffer", "unit": "× BDP"})
    socket_bdp: float = field(metadata={"label": "socket buffers (sndbuf = rcvbuf)", "unit": "× BDP"})
    ccs: tuple[str, ...] = field(metadata={"label": "congestion controls"})
    trace_bin_s: float = field(metadata={"label": "TCP trace bin", "unit": "s"})
    profile: str = field(default="linux-2.6", metadata={"label": "profile"})


FULL = Params(
    rate_bps=1e9,
    rtt_s=0.05,
    duration_s=60.0,
    measure_from_s=20.0,
    buffer_bdp=1.0,
    socket_bdp=4.0,
    ccs=("newreno", "cubic"),
    trace_bin_s=0.1,
)
QUICK = Params(
    rate_bps=1e8,
    rtt_s=0.02,
    duration_s=15.0,
    measure_from_s=5.0,
    buffer_bdp=1.0,
    socket_bdp=4.0,
    ccs=("newreno", "cubic"),
    trace_bin_s=0.05,
)


def _scenario(p: Params, cc: str) -> Scenario:
    bdp = bdp_bytes(p.rate_bps, p.rtt_s)
    return path_scenario(
        f"06.V1-{cc}",
        rate_bps=p.rate_bps,
        rtt_s=p.rtt_s,
        duration_s=p.duration_s,
        queue={"kind": "droptail", "limit": f"{round(p.buffer_bdp * bdp)}B"},
        sndbuf_bytes=round(p.socket_bdp * bdp),
        rcvbuf_bytes=round(p.socket_bdp * bdp),
        cc=cc,
        profile=p.profile,
        # CHOICE (docs/choices.md "V1 socket buffers"): the 4·BDP are what the
        # application asks setsockopt for; the kernel doubles them.
        tcp={"buffer_semantics": "setsockopt"},
        trace={"mode": "bin", "bin": q.time(p.trace_bin_s)},
    )


def _keep(r: Result) -> tuple[dict[str, Any], pd.DataFrame]:
    """What the checks and the figure need: the summary and the flow's trace columns."""
    return r.summary, flow_rows(r.tcp, FLOW)[["t", "cwnd", "cwnd_min", "bytes_read", "fast_retrans", "snd_lim"]]


def cases(p: Params) -> list[Case]:
    """One transfer per congestion control."""
    return [Case(cc, _scenario(p, cc), _keep) for cc in p.ccs]


def analyse(p: Params, results: Mapping[str, Any]) -> Outcome:
    bound = wire_bound_bps(p.rate_bps)
    out = Outcome()
    rows = []
    fig, (ax_g, ax_w) = new_figure(2, 1, height=6.5, sharex=True)
    for cc in p.ccs:
        summary, tcp = results[cc]
        g = goodput_bps(tcp, p.measure_from_s, p.duration_s)
        flow = summary["flows"][0]
        span = tcp[tcp["t"] > p.measure_from_s]
        rows.append(
            {
                "cc": cc,
                "goodput_bps": g,
                "wire_bound_bps": bound,
                "goodput_over_bound": g / bound,
                # Diagnostics of the interval: how low cwnd fell, how often the receive window limited.
                "min_cwnd_in_interval": float(span["cwnd_min"].min()),
                "fast_retransmits_in_interval": int(
                    span["fast_retrans"].iloc[-1] - value_at(tcp, "fast_retrans", p.measure_from_s, 0.0)
                ),
                "rwnd_limited_share_in_interval": float((span["snd_lim"] == "rwnd").mean()),
                "retransmitted_segments": flow["retransmitted_segments"],
                "fast_retransmits": flow["fast_retransmits"],
                "timeouts": flow["timeouts"],
            }
        )
        out.checks.append(
            Check.within(
                f"{cc}: goodput over [{p.measure_from_s:g}, {p.duration_s:g}] s / wire bound",
                g / bound,
                LOWER_FRACTION,
                1.0 + UPPER_SLACK,
                criterion=f"≥ {LOWER_FRACTION} and ≤ {1 + UPPER_SLACK} (bound (1448/1538)·C = {bound / 1e6:.3f} Mbit/s)",
            )
        )
        # Figure: goodput per step of max(RTT, 1 % of the run) from bytes_read, and cwnd.
        step = max(p.rtt_s, p.duration_s / 100.0)
        grid = np.arange(0.0, p.duration_s + 1e-9, step)
        t = tcp["t"].to_numpy(dtype=float)
        cum = np.interp(grid, t, tcp["bytes_read"].to_numpy(dtype=float), left=0.0)
        ax_g.plot(grid[1:], np.diff(cum) * 8 / step / 1e6, label=cc, linewidth=1.0)
        ax_w.plot(t, tcp["cwnd"].to_numpy(dtype=float), label=cc, linewidth=1.0, drawstyle="steps-post")
    ax_g.axhline(bound / 1e6, color="gray", linestyle="--", linewidth=0.8, label="wire bound")
    ax_g.axvspan(p.measure_from_s, p.duration_s, color="gray", alpha=0.08, label="measured interval")
    ax_g.set_ylabel("goodput (Mbit/s)")
    ax_g.set_ylim(bottom=0)
    ax_w.set_ylabel("cwnd (segments)")
    ax_w.set_xlabel("time (s)")
    ax_w.set_ylim(bottom=0)
    for ax in (ax_g, ax_w):
        finish_axes(ax)
    fig.suptitle(f"06.V1: {q.show_rate(p.rate_bps)}, RTT {q.show_time(p.rtt_s)}, buffer {p.buffer_bdp:g}·BDP")
    out.tables.append(
        Table(
            "goodput",
            "Goodput over the measured interval (from the receiver's `bytes_read`) against the wire-efficiency bound.",
            pd.DataFrame(rows),
        )
    )
    out.figures.append(
        Figure(
            "goodput_cwnd", "Goodput (per max(RTT, 1 % of the run)) and cwnd over time, one line per algorithm.", fig
        )
    )
    out.notes.append(
        "Goodput is payload read by the receiving application (`bytes_read` in the TCP trace) over the interval, "
        "spec 06 §1.1; the bound is (1448/1538)·C, spec 06 §1.2."
    )
    return out


EXPERIMENT = Experiment(
    id="06.V1",
    title="goodput at the wire-efficiency bound",
    summary="one long NewReno or CUBIC transfer over a 1·BDP drop-tail buffer reaches (1448/1538)·C",
    reference="spec 06 §7 (V1), §1.2",
    checks=(
        "One bulk TCP flow crosses the validation path (sender → 10·C access link → router → drop-tail bottleneck of "
        "one BDP → receiver) with socket buffers of 4·BDP as set with setsockopt (the kernel doubles them: "
        "`buffer_semantics = \"setsockopt\"`, a CHOICE, see docs/choices.md), once with `newreno` and once with "
        "`cubic` (profile `linux-2.6`). After start-up, a buffer of one BDP keeps the bottleneck busy through every window reduction, "
        "so goodput must sit at the wire-efficiency bound (1448/1538)·C: at least 98 % of it, and never more than "
        "0.1 % above it."
    ),
    full=FULL,
    quick=QUICK,
    cases=cases,
    analyse=analyse,
)
