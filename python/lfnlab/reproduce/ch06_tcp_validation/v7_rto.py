"""06.V7: retransmission timeouts: first RTO, exponential backoff to rto_max, Karn (spec 06 §7 V7, §2.5, §2.6)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ...result import Result
from ...scenario import Scenario
from .. import quantities as q
from ..figures import finish_axes, new_figure
from ..measure import flow_rows
from ..outcome import Check, Figure, Outcome, Table
from .path06 import FLOW, path_scenario
from ..engine import Case, Experiment

#: Clock granularity of RFC 6298's G (spec 06 §2.6).
G_S = 0.001
#: Allowed difference between a measured and an expected timer value, s.
TOLERANCE_S = 0.001
#: The RTO formulas of spec 06 §2.6, for the report.
FORMULA_TEXT = {"linux": "SRTT + max(4·RTTVAR, rto_min)", "rfc6298": "max(SRTT + max(G, 4·RTTVAR), rto_min)"}
#: Extra simulated time after the last timeout for the transfer to finish, s.
TAIL_S = 5.0


@dataclass(frozen=True)
class TimerCase:
    """One timer configuration of spec 06 §2.6: the RTO formula, its bounds, and whether
    timestamps give RTT samples of retransmitted data."""

    label: str
    formula: str
    rto_min_s: float
    rto_max_s: float
    timestamps: bool


@dataclass(frozen=True)
class Params:
    rate_bps: float = field(metadata={"label": "bottleneck rate C", "unit": "bps"})
    rtt_s: float = field(metadata={"label": "RTT", "unit": "s"})
    transfer_bytes: float = field(metadata={"label": "transfer size", "unit": "B"})
    outage_start_s: float = field(metadata={"label": "outage (loss p = 1 on all frames) starts at", "unit": "s"})
    linux_rto_max_s: float = field(metadata={"label": "`linux`: rto_min 200 ms, rto_max", "unit": "s"})
    rfc_rto_min_s: float = field(metadata={"label": "`rfc6298`: rto_min", "unit": "s"})
    rfc_rto_max_s: float = field(metadata={"label": "`rfc6298`: rto_max", "unit": "s"})
    timeouts_at_max: int = field(metadata={"label": "timeouts at rto_max required"})
    linux_rto_min_s: float = field(default=0.2, metadata={"label": "`linux`: rto_min", "unit": "s"})
    profile: str = field(default="linux-2.6", metadata={"label": "profile"})


FULL = Params(
    rate_bps=1e8,
    rtt_s=0.1,
    transfer_bytes=1e6,
    outage_start_s=0.5,
    linux_rto_max_s=120.0,
    rfc_rto_min_s=1.0,
    rfc_rto_max_s=60.0,
    timeouts_at_max=2,
)
QUICK = Params(
    rate_bps=1e8,
    rtt_s=0.1,
    transfer_bytes=1e6,
    outage_start_s=0.5,
    linux_rto_max_s=5.0,
    rfc_rto_min_s=1.0,
    rfc_rto_max_s=8.0,
    timeouts_at_max=2,
)


def timer_cases(p: Params) -> list[TimerCase]:
    """`linux` and `rfc6298` with timestamps, and `linux` without them (Karn's rule)."""
    return [
        TimerCase("linux", "linux", p.linux_rto_min_s, p.linux_rto_max_s, True),
        TimerCase("rfc6298", "rfc6298", p.rfc_rto_min_s, p.rfc_rto_max_s, True),
        TimerCase("linux-no-timestamps", "linux", p.linux_rto_min_s, p.linux_rto_max_s, False),
    ]


def rto_after_first_sample(c: TimerCase, r_s: float) -> float:
    """RTO after the first sample R: SRTT = R, RTTVAR = R/2 (spec 06 §2.6)."""
    if c.formula == "linux":
        return min(r_s + max(4 * r_s / 2, c.rto_min_s), c.rto_max_s)
    return min(max(r_s + max(G_S, 4 * r_s / 2), c.rto_min_s), c.rto_max_s)


def backoff(first_s: float, rto_max_s: float, n: int) -> list[float]:
    """Intervals between successive timeouts: RTO, 2·RTO, 4·RTO, … capped at rto_max."""
    return [min(first_s * 2**k, rto_max_s) for k in range(n)]


def planned_timeouts(c: TimerCase, p: Params) -> int:
    """Timeouts the outage should cause: doublings until rto_max, then ``timeouts_at_max`` more."""
    first = rto_after_first_sample(c, p.rtt_s)
    return math.ceil(math.log2(c.rto_max_s / first)) + p.timeouts_at_max if first < c.rto_max_s else p.timeouts_at_max


def planned_intervals(c: TimerCase, p: Params) -> list[float]:
    """The intervals between the planned timeouts, from the RTO after the first sample."""
    return backoff(rto_after_first_sample(c, p.rtt_s), c.rto_max_s, planned_timeouts(c, p))


def outage_stop_s(c: TimerCase, p: Params) -> float:
    """The outage ends halfway through the last planned interval: every earlier retransmission
    is lost, the last one gets through and the transfer completes (setup only: the checks
    use the measured times)."""
    plan = planned_intervals(c, p)
    return p.outage_start_s + p.rtt_s + sum(plan[:-1]) + plan[-1] / 2


def _scenario(c: TimerCase, p: Params) -> Scenario:
    stop = outage_stop_s(c, p)
    duration = stop + planned_intervals(c, p)[-1] + TAIL_S
    tcp: dict[str, Any] = {
        "rto_formula": c.formula,
        "rto_min": q.time(c.rto_min_s),
        "rto_max": q.time(c.rto_max_s),
        "timestamps": c.timestamps,
    }
    return path_scenario(
        f"06.V7-{c.label}",
        rate_bps=p.rate_bps,
        rtt_s=p.rtt_s,
        duration_s=round(duration, 3),
        queue={"kind": "droptail", "limit": "16MiB"},
        sndbuf_bytes=16 * 2**20,
        rcvbuf_bytes=16 * 2**20,
        profile=p.profile,
        tcp=tcp,
        transfer_bytes=p.transfer_bytes,
        trace={"mode": "event"},
        loss={
            "kind": "bernoulli",
            "p": 1.0,
            "applies_to": "all",
            "start": q.time(p.outage_start_s),
            "stop": q.time(round(stop, 3)),
        },
    )


def read_timers(rows: pd.DataFrame, outage_stop_s: float) -> dict[str, Any]:
    """Read the timer behaviour from an event-mode trace."""
    t = rows["t"].to_numpy(dtype=float)
    srtt = rows["srtt"].to_numpy(dtype=float)
    rto = rows["rto"].to_numpy(dtype=float)
    una = rows["snd_una"].to_numpy(dtype=np.int64)
    rtos = rows["rtos"].to_numpy(dtype=np.int64)
    first_sample = int(np.flatnonzero(np.isfinite(srtt))[0])
    fired = np.flatnonzero(np.diff(rtos) > 0) + 1  # rows right after each timeout
    i1 = int(fired[0])
    advanced = np.flatnonzero(np.diff(una[: i1 + 1]) > 0) + 1
    arm = int(advanced[-1]) if len(advanced) else first_sample
    times = t[fired]
    # After the outage: the first ACK that advances snd_una, and the first RTT sample.
    post = np.flatnonzero((t >= outage_stop_s) & (np.diff(una, prepend=una[0]) > 0))
    first_ack = int(post[0]) if len(post) else -1
    pre_max = int(rows["snd_max"].iloc[i1 - 1])
    changed = np.flatnonzero((t >= outage_stop_s) & (np.diff(srtt, prepend=srtt[0]) != 0))
    first_new_sample = int(changed[0]) if len(changed) else -1
    return {
        "r_first_s": float(rows["latest_rtt"].iloc[first_sample]),
        "rto_first_s": float(rto[first_sample]),
        "t_arm_s": float(t[arm]),
        "rto_armed_s": float(rto[i1 - 1]),
        "timeout_times_s": times,
        "srtt_before_s": float(srtt[i1 - 1]),
        "rto_backed_off_s": float(rto[fired[-1]]),
        "first_ack_t_s": float(t[first_ack]) if first_ack >= 0 else math.nan,
        "srtt_first_ack_s": float(srtt[first_ack]) if first_ack >= 0 else math.nan,
        "rto_first_ack_s": float(rto[first_ack]) if first_ack >= 0 else math.nan,
        "pre_outage_snd_max": pre_max,
        "first_sample_t_s": float(t[first_new_sample]) if first_new_sample >= 0 else math.nan,
        "first_sample_snd_una": int(una[first_new_sample]) if first_new_sample >= 0 else -1,
        "first_sample_rtt_s": float(rows["latest_rtt"].iloc[first_new_sample]) if first_new_sample >= 0 else math.nan,
        "max_rtt_sample_s": float(np.nanmax(rows["latest_rtt"].to_numpy(dtype=float))),
    }


def _keep(r: Result) -> tuple[dict[str, Any], pd.DataFrame]:
    """The summary and the flow's event trace."""
    return r.summary, flow_rows(r.tcp, FLOW)


def cases(p: Params) -> list[Case]:
    """One small transfer through an outage per timer case."""
    return [Case(c.label, _scenario(c, p), _keep) for c in timer_cases(p)]


def analyse(p: Params, results: Mapping[str, Any]) -> Outcome:
    cs = timer_cases(p)
    out = Outcome()
    first_rows, timeout_rows, karn_rows = [], [], []
    fig, (ax,) = new_figure(1, 1, height=4.5)
    for c, style in zip(cs, ("o-", "s--", "^:")):
        summary, rows = results[c.label]
        a = read_timers(rows, outage_stop_s(c, p))
        want_first = rto_after_first_sample(c, p.rtt_s)
        first_rows.append(
            {
                "case": c.label,
                "rto_formula": c.formula,
                "rto_min_s": c.rto_min_s,
                "rto_max_s": c.rto_max_s,
                "timestamps": c.timestamps,
                "first_rtt_sample_s": a["r_first_s"],
                "rto_after_first_sample_s": a["rto_first_s"],
                "expected_s": want_first,
            }
        )
        if c.timestamps:
            out.checks.append(
                Check.within(
                    f"{c.label}: RTO after the first sample R = {a['r_first_s'] * 1e3:.3f} ms",
                    a["rto_first_s"],
                    want_first - TOLERANCE_S,
                    want_first + TOLERANCE_S,
                    unit="s",
                    criterion=f"{want_first:g} s ± 1 ms ({FORMULA_TEXT[c.formula]}, R = {p.rtt_s * 1e3:g} ms)",
                )
            )
        times = a["timeout_times_s"]
        measured = np.diff(np.concatenate([[a["t_arm_s"]], times]))
        expected = np.array(backoff(a["rto_armed_s"], c.rto_max_s, len(times)))
        for k, (tk, got, want) in enumerate(zip(times, measured, expected), start=1):
            timeout_rows.append(
                {
                    "case": c.label,
                    "timeout": k,
                    "t_s": tk,
                    "interval_s": got,
                    "expected_s": want,
                    "deviation_s": got - want,
                }
            )
        at_max = int(np.sum(np.abs(measured - c.rto_max_s) <= TOLERANCE_S))
        out.checks.append(
            Check.within(
                f"{c.label}: max |interval − min(RTO·2^(k−1), rto_max)| over {len(times)} timeouts",
                float(np.max(np.abs(measured - expected))),
                None,
                TOLERANCE_S,
                unit="s",
                criterion=f"≤ 1 ms (RTO when armed {a['rto_armed_s'] * 1e3:.3f} ms)",
            )
        )
        out.checks.append(
            Check.within(
                f"{c.label}: intervals at rto_max = {c.rto_max_s:g} s",
                at_max,
                p.timeouts_at_max,
                None,
                criterion=f"≥ {p.timeouts_at_max}",
            )
        )
        out.checks.append(
            Check.equal(
                f"{c.label}: transfer completes after the outage",
                summary["flows"][0]["bytes_delivered"],
                int(p.transfer_bytes),
            )
        )
        karn_rows.append(
            {
                "case": c.label,
                "timestamps": c.timestamps,
                "srtt_before_outage_s": a["srtt_before_s"],
                "srtt_at_first_ack_after_s": a["srtt_first_ack_s"],
                "rto_backed_off_s": a["rto_backed_off_s"],
                "rto_at_first_ack_after_s": a["rto_first_ack_s"],
                "pre_outage_snd_max": a["pre_outage_snd_max"],
                "first_sample_after_t_s": a["first_sample_t_s"],
                "first_sample_after_snd_una": a["first_sample_snd_una"],
                "first_sample_after_rtt_s": a["first_sample_rtt_s"],
                "largest_rtt_sample_s": a["max_rtt_sample_s"],
            }
        )
        if not c.timestamps:
            out.checks.append(
                Check.within(
                    f"{c.label} (Karn): |SRTT change| at the first ACK after the outage",
                    abs(a["srtt_first_ack_s"] - a["srtt_before_s"]),
                    None,
                    0.0,
                    unit="s",
                    criterion="0: an ACK of retransmitted data gives no sample",
                )
            )
            out.checks.append(
                Check.equal(
                    f"{c.label} (Karn): RTO at that ACK keeps the backoff",
                    a["rto_first_ack_s"],
                    a["rto_backed_off_s"],
                    unit="s",
                )
            )
            out.checks.append(
                Check.within(
                    f"{c.label} (Karn): snd_una at the first sample after the outage",
                    a["first_sample_snd_una"],
                    a["pre_outage_snd_max"] + 1,
                    None,
                    unit="B",
                    criterion=f"> {a['pre_outage_snd_max']} (only data first sent after the outage is timed)",
                )
            )
        ks = np.arange(1, len(measured) + 1)
        ax.semilogy(ks, measured, style, label=f"{c.label}: measured", markersize=5)
        ax.semilogy(ks, expected, "x", color="black", markersize=7, label="expected" if c is cs[0] else None)
    ax.set_xlabel("timeout k")
    ax.set_ylabel("interval before timeout k (s)")
    finish_axes(ax)
    ax.legend(loc="lower right", fontsize="small")
    fig.suptitle(f"06.V7: RTO backoff during an outage, RTT {q.show_time(p.rtt_s)}")
    out.tables.append(
        Table(
            "rto_first",
            "RTO after the first RTT sample (the handshake), from the event trace.",
            pd.DataFrame(first_rows),
        )
    )
    out.tables.append(
        Table(
            "timeouts",
            "Timeout times (rows where the `rtos` counter grows) and the interval before each: "
            "the first from the last ACK that restarted the timer.",
            pd.DataFrame(timeout_rows),
        )
    )
    out.tables.append(
        Table(
            "karn",
            "RTT sampling around the outage. Without timestamps, Karn's rule forbids samples from "
            "retransmitted segments; with timestamps, TSecr makes them valid (RFC 7323).",
            pd.DataFrame(karn_rows),
        )
    )
    out.figures.append(
        Figure("rto_backoff", "Interval before each timeout (log scale): doubling, then flat at rto_max.", fig)
    )
    out.notes.append(
        "The outage is the bottleneck link's loss table with p = 1 for all frames in [start, stop); it ends halfway "
        "through the last planned interval, so the last retransmission gets through and the transfer finishes."
    )
    return out


EXPERIMENT = Experiment(
    id="06.V7",
    title="retransmission timeouts",
    summary="first RTO 300 ms (`linux`) or 1 s (`rfc6298`) after R = 100 ms, doubling to rto_max, Karn without timestamps",
    reference="spec 06 §7 (V7), §2.5, §2.6",
    checks=(
        "A small transfer over a 100 ms path; its first RTT sample (the handshake, R = 100 ms) sets SRTT = R and "
        "RTTVAR = R/2, so the `linux` formula SRTT + max(4·RTTVAR, rto_min) gives 300 ms and `rfc6298` with a 1 s "
        "minimum gives 1 s. An outage of the bottleneck then forces successive timeouts, whose intervals must double "
        "from the armed RTO up to rto_max and stay there. Without timestamps, Karn's rule must hold: the ACKs of "
        "retransmitted data give no RTT sample and leave the backed-off RTO in place until data sent after the outage "
        "is acknowledged."
    ),
    full=FULL,
    quick=QUICK,
    cases=cases,
    analyse=analyse,
)
