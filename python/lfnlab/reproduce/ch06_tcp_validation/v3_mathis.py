"""06.V3: goodput under random loss against the Mathis et al. formula (spec 06 §7 V3)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ...result import Result
from .. import quantities as q
from ..figures import finish_axes, new_figure
from ..measure import flow_rows, goodput_bps
from ..outcome import Check, Figure, Outcome, Table
from .path06 import FLOW, MSS_BYTES, path_scenario
from ..engine import Case, Experiment

#: Allowed relative deviation from the formula (spec 06 §7 V3).
TOLERANCE = 0.20


@dataclass(frozen=True)
class Params:
    rate_bps: float = field(metadata={"label": "bottleneck rate C", "unit": "bps"})
    rtt_s: float = field(metadata={"label": "RTT", "unit": "s"})
    loss_p: tuple[float, ...] = field(metadata={"label": "Bernoulli loss p (data frames)"})
    durations_s: tuple[float, ...] = field(metadata={"label": "duration per p", "unit": "s"})
    measure_from_s: float = field(metadata={"label": "goodput measured from", "unit": "s"})
    min_losses: int = field(metadata={"label": "losses required per run"})
    buffer_bytes: float = field(
        metadata={"label": "bottleneck buffer and socket buffers (no congestion loss)", "unit": "B"}
    )
    ack_policy: str = field(default="per_segment", metadata={"label": "ACK policy"})
    cc: str = field(default="newreno", metadata={"label": "congestion control"})
    profile: str = field(default="linux-2.6", metadata={"label": "profile"})
    seed: int = field(default=1, metadata={"label": "seed"})


FULL = Params(
    rate_bps=1e9,
    rtt_s=0.02,
    loss_p=(1e-4, 1e-3),
    durations_s=(400.0, 150.0),
    measure_from_s=10.0,
    min_losses=200,
    buffer_bytes=64 * 2**20,
)
QUICK = Params(
    rate_bps=1e9,
    rtt_s=0.02,
    loss_p=(1e-4, 1e-3),
    durations_s=(200.0, 80.0),
    measure_from_s=10.0,
    min_losses=100,
    buffer_bytes=64 * 2**20,
)


def mathis_bps(rtt_s: float, p: float, ack_policy: str) -> float:
    """(MSS/RTT)·√(3/2)/√p; √(3/4) with one ACK per two segments (spec 06 §7 V3)."""
    c = math.sqrt(1.5) if ack_policy == "per_segment" else math.sqrt(0.75)
    return MSS_BYTES * 8.0 / rtt_s * c / math.sqrt(p)


def _label(p: float) -> str:
    return f"p{p:.0e}".replace("-0", "-")


def durations_s(par: Params) -> dict[float, float]:
    """The run length of each loss probability."""
    if len(par.loss_p) != len(par.durations_s):
        raise ValueError("one duration per loss probability")
    return dict(zip(par.loss_p, par.durations_s))


def cases(par: Params) -> list[Case]:
    """One long transfer per loss probability."""
    duration = durations_s(par)

    def keep(r: Result) -> dict[str, Any]:
        rows = flow_rows(r.tcp, FLOW)
        return {
            "summary": r.summary,
            "srtt_mean": float(rows["srtt"][rows["t"] >= par.measure_from_s].mean()),
            "rows": rows[["t", "bytes_read"]],
        }

    return [
        Case(
            _label(p),
            path_scenario(
                f"06.V3-{_label(p)}",
                rate_bps=par.rate_bps,
                rtt_s=par.rtt_s,
                duration_s=duration[p],
                queue={"kind": "droptail", "limit": f"{round(par.buffer_bytes)}B"},
                sndbuf_bytes=par.buffer_bytes,
                rcvbuf_bytes=par.buffer_bytes,
                cc=par.cc,
                profile=par.profile,
                tcp={"ack_policy": par.ack_policy},
                loss={"kind": "bernoulli", "p": p},
                trace={"mode": "bin", "bin": "100ms"},
                seed=par.seed,
            ),
            keep,
        )
        for p in par.loss_p
    ]


def analyse(par: Params, results: Mapping[str, Any]) -> Outcome:
    duration = durations_s(par)
    out = Outcome()
    table = []
    for p in par.loss_p:
        m = results[_label(p)]
        s = m["summary"]
        flow = s["flows"][0]
        # Random losses are the drops not made by any queue (conservation counts every drop).
        random_losses = s["conservation"]["frames_dropped"] - sum(q["dropped"] for q in s["queues"])
        g = goodput_bps(m["rows"], par.measure_from_s, duration[p])
        want = mathis_bps(par.rtt_s, p, par.ack_policy)
        table.append(
            {
                "p": p,
                "duration_s": duration[p],
                "random_losses": random_losses,
                "retransmitted_segments": flow["retransmitted_segments"],
                "timeouts": flow["timeouts"],
                "goodput_bps": g,
                "mathis_bps": want,
                "goodput_over_mathis": g / want,
                "mean_srtt_s": m["srtt_mean"],
            }
        )
        out.checks.append(
            Check.within(f"p = {p:g}: losses", random_losses, par.min_losses, None, criterion=f"≥ {par.min_losses}")
        )
        out.checks.append(
            Check.within(
                f"p = {p:g}: goodput / Mathis",
                g / want,
                1 - TOLERANCE,
                1 + TOLERANCE,
                criterion=f"1 ± {TOLERANCE:g} (Mathis {want / 1e6:.3f} Mbit/s)",
            )
        )
    frame = pd.DataFrame(table)
    fig, (ax,) = new_figure(1, 1, height=4.5)
    ps = np.logspace(math.log10(min(par.loss_p)) - 0.5, math.log10(max(par.loss_p)) + 0.5, 50)
    ax.plot(
        ps,
        [mathis_bps(par.rtt_s, x, par.ack_policy) / 1e6 for x in ps],
        color="gray",
        label="Mathis (MSS/RTT)·√(3/2)/√p",
    )
    ax.fill_between(
        ps,
        [mathis_bps(par.rtt_s, x, par.ack_policy) * (1 - TOLERANCE) / 1e6 for x in ps],
        [mathis_bps(par.rtt_s, x, par.ack_policy) * (1 + TOLERANCE) / 1e6 for x in ps],
        color="gray",
        alpha=0.15,
        label="±20 %",
    )
    ax.plot(frame["p"], frame["goodput_bps"] / 1e6, "o", color="C0", label=f"lfnlab, {par.cc}, {par.ack_policy}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("loss probability p")
    ax.set_ylabel("goodput (Mbit/s)")
    finish_axes(ax)
    fig.suptitle(f"06.V3: {q.show_rate(par.rate_bps)}, RTT {q.show_time(par.rtt_s)}, Bernoulli loss")
    out.tables.append(
        Table(
            "mathis",
            "Goodput over the measured interval against (MSS/RTT)·√(3/2)/√p, MSS 1448 B, RTT the path's base RTT.",
            frame,
        )
    )
    out.figures.append(
        Figure("goodput_vs_p", "Goodput against the loss probability, with the Mathis curve and its ±20 % band.", fig)
    )
    out.notes.append(
        "The RTT in the formula is the path's base RTT; the mean SRTT over the measured interval is listed for comparison "
        "(the buffer is far larger than any window, so there is no congestion loss and little queueing)."
    )
    out.notes.append(
        "Losses are the random drops: every dropped frame (summary `conservation.frames_dropped`) minus the queues' drops; "
        "the loss applies to data frames only."
    )
    return out


EXPERIMENT = Experiment(
    id="06.V3",
    title="Mathis formula under random loss",
    summary="NewReno goodput with Bernoulli loss p ∈ {1e-4, 1e-3} within ±20 % of (MSS/RTT)·√(3/2)/√p",
    reference="spec 06 §7 (V3)",
    checks=(
        "A long NewReno transfer with per-segment ACKs crosses a 1 Gbit/s, 20 ms path whose bottleneck drops data "
        "frames independently with probability p, and nothing else (the buffer exceeds any window). Its goodput must "
        "be within ±20 % of the Mathis et al. steady state (MSS/RTT)·√(3/2)/√p, over a run long enough to see the "
        "required number of losses."
    ),
    full=FULL,
    quick=QUICK,
    cases=cases,
    analyse=analyse,
)
