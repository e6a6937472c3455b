"""06.V8: a receive-window-limited flow gets φ·B_rcv per RTT (spec 06 §7 V8, §2.3)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ...result import Result
from .. import quantities as q
from ..figures import finish_axes, new_figure
from ..measure import flow_rows, goodput_bps, phi
from ..outcome import Check, Figure, Outcome, Table
from .path06 import FLOW, bdp_bytes, path_scenario, wire_bound_bps
from ..engine import Case, Experiment

TOLERANCE = 0.02


@dataclass(frozen=True)
class Params:
    rate_bps: float = field(metadata={"label": "bottleneck rate C", "unit": "bps"})
    rtt_s: float = field(metadata={"label": "RTT", "unit": "s"})
    rcvbuf_bdp: tuple[float, ...] = field(metadata={"label": "receive buffer B_rcv", "unit": "× BDP"})
    sndbuf_bdp: float = field(metadata={"label": "send buffer", "unit": "× BDP"})
    buffer_bdp: float = field(metadata={"label": "bottleneck buffer (lossless)", "unit": "× BDP"})
    duration_s: float = field(metadata={"label": "duration", "unit": "s"})
    measure_from_s: float = field(metadata={"label": "goodput measured from", "unit": "s"})
    adv_win_scale: int = field(default=1, metadata={"label": "adv_win_scale (φ = ½)"})
    cc: str = field(default="newreno", metadata={"label": "congestion control"})
    profile: str = field(default="linux-2.6", metadata={"label": "profile"})


FULL = Params(
    rate_bps=1e9,
    rtt_s=0.05,
    rcvbuf_bdp=(1.0, 2.0, 3.0),
    sndbuf_bdp=8.0,
    buffer_bdp=4.0,
    duration_s=20.0,
    measure_from_s=5.0,
)
QUICK = Params(
    rate_bps=1e9,
    rtt_s=0.05,
    rcvbuf_bdp=(1.0, 2.0, 3.0),
    sndbuf_bdp=8.0,
    buffer_bdp=4.0,
    duration_s=3.0,
    measure_from_s=1.5,
)


def _label(k: float) -> str:
    return f"rcvbuf-{k:g}bdp"


def cases(p: Params) -> list[Case]:
    """One lossless transfer per receive buffer."""
    bdp = bdp_bytes(p.rate_bps, p.rtt_s)

    def keep(r: Result) -> dict[str, Any]:
        rows = flow_rows(r.tcp, FLOW)
        after = rows[rows["t"] >= p.measure_from_s]
        return {
            "summary": r.summary,
            "goodput": goodput_bps(rows, p.measure_from_s, p.duration_s),
            "rwnd_mean": float(after["rwnd"].mean()),
            "srtt_mean": float(after["srtt"].mean()),
            "rwnd_share": float((after["snd_lim"] == "rwnd").mean()),
        }

    return [
        Case(
            _label(k),
            path_scenario(
                f"06.V8-{_label(k)}",
                rate_bps=p.rate_bps,
                rtt_s=p.rtt_s,
                duration_s=p.duration_s,
                queue={"kind": "droptail", "limit": f"{round(p.buffer_bdp * bdp)}B"},
                sndbuf_bytes=round(p.sndbuf_bdp * bdp),
                rcvbuf_bytes=round(k * bdp),
                cc=p.cc,
                profile=p.profile,
                tcp={"adv_win_scale": p.adv_win_scale},
                trace={"mode": "bin", "bin": "10ms"},
            ),
            keep,
        )
        for k in p.rcvbuf_bdp
    ]


def analyse(p: Params, results: Mapping[str, Any]) -> Outcome:
    bdp = bdp_bytes(p.rate_bps, p.rtt_s)
    bound = wire_bound_bps(p.rate_bps)
    f = phi(p.adv_win_scale)
    out = Outcome()
    rows = []
    for k in p.rcvbuf_bdp:
        m = results[_label(k)]
        want = min(f * k * bdp * 8.0 / p.rtt_s, bound)
        flow = m["summary"]["flows"][0]
        rows.append(
            {
                "rcvbuf_bdp": k,
                "rcvbuf_bytes": round(k * bdp),
                "expected_bps": want,
                "goodput_bps": m["goodput"],
                "goodput_over_expected": m["goodput"] / want,
                "mean_rwnd_bytes": m["rwnd_mean"],
                "mean_srtt_s": m["srtt_mean"],
                "rwnd_limited_share": m["rwnd_share"],
                "retransmitted_segments": flow["retransmitted_segments"],
            }
        )
        out.checks.append(
            Check.within(
                f"B_rcv = {k:g}·BDP: goodput / min(φ·B_rcv/RTT, bound)",
                m["goodput"] / want,
                1 - TOLERANCE,
                1 + TOLERANCE,
                criterion=f"1 ± {TOLERANCE:g} (expected {want / 1e6:.2f} Mbit/s)",
            )
        )
        out.checks.append(
            Check.equal(
                f"B_rcv = {k:g}·BDP: lossless", flow["retransmitted_segments"], 0, criterion="0 retransmitted segments"
            )
        )
    frame = pd.DataFrame(rows)
    fig, (ax,) = new_figure(1, 1, height=4.5)
    ks = np.linspace(0.0, max(p.rcvbuf_bdp) * 1.2, 100)
    ax.plot(
        ks, np.minimum(f * ks * bdp * 8.0 / p.rtt_s, bound) / 1e6, color="gray", label="min(φ·B_rcv/RTT, wire bound)"
    )
    ax.plot(frame["rcvbuf_bdp"], frame["goodput_bps"] / 1e6, "o", color="C0", label="lfnlab")
    ax.set_xlabel("receive buffer B_rcv (× BDP)")
    ax.set_ylabel("goodput (Mbit/s)")
    ax.set_ylim(bottom=0)
    finish_axes(ax)
    fig.suptitle(f"06.V8: receive-window limit, {q.show_rate(p.rate_bps)}, RTT {q.show_time(p.rtt_s)}, φ = {f:g}")
    out.tables.append(
        Table(
            "window",
            f"Goodput over [{p.measure_from_s:g}, {p.duration_s:g}] s against "
            "min(φ·B_rcv/RTT, (1448/1538)·C), RTT the base RTT.",
            frame,
        )
    )
    out.figures.append(Figure("goodput_vs_rcvbuf", "Goodput against the receive buffer, with the expected curve.", fig))
    out.notes.append(
        "The expected goodput uses the path's base RTT; a window-limited flow below C adds no queueing, and above "
        "C the wire bound applies. `rwnd_limited_share` is the fraction of trace rows whose `snd_lim` is `rwnd`."
    )
    return out


EXPERIMENT = Experiment(
    id="06.V8",
    title="receive-window limit",
    summary="goodput = min(φ·B_rcv/RTT, wire bound) for B_rcv of 1, 2 and 3 BDP with φ = ½",
    reference="spec 06 §7 (V8), §2.3",
    checks=(
        "A lossless 1 Gbit/s, 50 ms path and a receiver whose buffer B_rcv is 1, 2 or 3 BDP; the advertised window is "
        "φ·B_rcv with φ = ½ (`adv_win_scale = 1`), the send buffer is large. A window-limited flow moves one window per "
        "RTT, so goodput must be min(φ·B_rcv/RTT, (1448/1538)·C) within ±2 %: half the bound-free rate at 1·BDP, the "
        "wire bound at 2 and 3·BDP."
    ),
    full=FULL,
    quick=QUICK,
    cases=cases,
    analyse=analyse,
)
